"""The paper's linearised self-attention on discrete tokens, through a low-rank embedding.

Each position holds a token from a vocabulary of size V, given as a one-hot vector e_t in
R^V (``width`` = V). The embedding has rank ``embed_rank`` r: E = U V with U (V x r) and
V (r x d_x), so token t enters the network as e_t^T U V in R^{d_x}; then
:class:`~seprank.nets.attention.LinearSelfAttention` of depth L, width d_x and H heads
(no residual) is read at position 0, coordinate 0.

The function of interest is the tensor f(t_1..t_N) over token sequences (V^N entries), so
the architecture declares its ``alphabet`` (the V one-hot vectors): seprank measures the
complete grid over the vocabulary (templates = tokens), an exact matricisation of that
tensor, not random real-valued points.

Known result (tag [M]: recalled, not seen in the primary text, rough): Wies, Levine,
Jannai, Shashua, "Which transformer architecture fits my data? A vocabulary bottleneck in
self-attention", ICML 2021: with a rank-r embedding the separation rank stops growing with
the width d_x once d_x exceeds r. [D] The upper half of that: every embedded token is
V^T u with u = U^T e_t in R^r, so S = sum_j x^j x^j^T = V^T S_u V with S_u an r x r Gram
matrix, and by the structural lemma (proofs/structural_lemma.py: y^{L,i} = P_L(S) x^i)
f = e^T P_L(V^T S_u V) V^T u_i is a polynomial in (S_u, u_i) of the same shape as the
width-r network's: the proved block bound at width min(d_x, r) bounds sep for every d_x
(:func:`seprank.theory.architecture_bounds.bound_of`), flat once d_x >= r. That the
rank reaches a plateau exactly at d_x = r is measured (paper_figures/fig9).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from seprank.nets.attention import LinearSelfAttention
from seprank.nets.base import check_int
from seprank.nets.bound import EMBEDDED_ATTENTION
from seprank.nets.sizes import plain_numbers


@dataclass(frozen=True)
class EmbeddedAttention:
    r"""Linearised self-attention on tokens through a rank-r embedding (vocabulary bottleneck).

    Parameters
    ----------
    vocab : int
        Vocabulary size :math:`V` (inputs are one-hot in :math:`\mathbb{R}^V`).
    embed_rank : int
        Rank :math:`r` of the embedding matrix.
    width : int
        Model width :math:`d_x`.
    depth : int, default 1
        Attention layers :math:`L`.
    heads : int, default 1
        Heads :math:`H` dividing the width.
    seq_len : int, default 4
        Sequence length :math:`N`.
    """

    vocab: int = field(metadata={"help": "vocabulary size V (inputs are one-hot in R^V)"})
    embed_rank: int = field(metadata={"help": "rank r of the embedding matrix"})
    width: int = field(metadata={"help": "model width d_x"})
    depth: int = field(default=1, metadata={"help": "attention layers L"})
    heads: int = field(default=1, metadata={"help": "heads H dividing the width"})
    seq_len: int = field(default=4, metadata={"help": "sequence length N"})
    #: Its bound rests on the paper's theorems (seprank.theory.architecture_bounds).
    bound_theorem: ClassVar[str] = EMBEDDED_ATTENTION

    def __post_init__(self):
        plain_numbers(self)  # np.int64(2) is the size 2
        check_int("vocab", self.vocab, 1)
        check_int("embed_rank", self.embed_rank, 1)
        _ = self.attention  # validates depth, width, heads, seq_len

    @property
    def attention(self) -> LinearSelfAttention:
        return LinearSelfAttention(depth=self.depth, width=self.width, heads=self.heads,
                                   seq_len=self.seq_len)

    # The protocol's input dimension is the vocabulary (one-hot inputs); ``width`` is d_x.
    # seprank reads ``input_dim`` when an architecture has one (see grid/estimate).
    @property
    def input_dim(self) -> int:
        return self.vocab

    @property
    def query_position(self) -> int:
        return 0

    @property
    def degree(self) -> int:
        return 3**self.depth

    @property
    def homogeneous(self) -> bool:
        return True

    def alphabet(self, domain):
        """The V tokens as one-hot vectors: the complete grid's templates."""
        return domain.from_ints(np.eye(self.vocab, dtype=np.int64))

    def init(self, rng, domain) -> dict:
        params = self.attention.init(rng, domain)
        params["U"] = domain.random(rng, (self.vocab, self.embed_rank))
        params["V"] = domain.random(rng, (self.embed_rank, self.width))
        return params

    def apply(self, params, X, domain):
        low = domain.einsum("bnt,tr->bnr", X, params["U"])
        emb = domain.einsum("bnr,rd->bnd", low, params["V"])
        inner = {k: params[k] for k in ("Wq", "Wk", "Wv", "Wo")}
        return self.attention.apply(inner, emb, domain)
