"""A polynomial MLP-Mixer (Tolstikhin et al. 2021), in plain numpy.

One block maps Y (N positions x d channels) through a token-mixing MLP, then a
channel-mixing MLP, each a linear map, an elementwise square and a linear map:

    Z = T2 (T1 Y)^2         (T1: N_h x N, T2: N x N_h; mixes positions, per channel)
    Y' = (Z C1^T)^2 C2^T    (C1: d_h x d, C2: d x d_h; mixes channels, per position)

The square replaces the GELU (so f is a polynomial); the layer norms and the skip
connections are dropped (so f is homogeneous). The read-out is coordinate
``output_coord`` at ``query_position`` (default 0; the model is not causal).

Facts derived from the definitions [D] (tested in tests/nets/test_mixers.py):

- [D] each block is homogeneous of degree 4 (two squares of linear maps): 4^L.
- [D] one block, one hidden token (N_h = 1), one channel (d = 1): Z_t = T2[t] (a + b)^2
  with a = sum_{s in A} T1[s] x_s and b its B counterpart, so f = c (a + b)^4, whose
  coefficient matrix over a^k b^(4-k) is anti-diagonal: sep = 5 for every partition
  (c != 0, generic weights).
- [D] one hidden token (N_h = 1), any depth and width: the first token mix reads only the
  d numbers s = T1[0] X (a linear form of all positions, per channel), and after it every
  position is a multiple of one vector (Z_t = T2[t] s^2, and Y'_t = T2[t]^2 h(s^2)), so
  every later block again reads one multiple of that vector: f = P(s) with P a form of
  degree D = 4^L in d variables. With s = u + v (u = the A-side part, v the B side),
  the degree-k part in u is a sum of monomials u^alpha times forms in v of degree D - k:
  sep <= sum_{k=0..D} min(C(k+d-1, d-1), C(D-k+d-1, d-1)) for every partition; for
  d = 2 that is (D/2 + 1)^2 = (2^(2L-1) + 1)^2 (9, 81, 1089, 16641 for L = 1..4).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import comb

import numpy as np

from seprank.nets.base import check_int
from seprank.nets.bound import Bound, derived
from seprank.nets.sequence_common import (
    Readout,
    check_readout,
    coord_field,
    query_field,
    seq_len_field,
)
from seprank.nets.sizes import plain_numbers


@dataclass(frozen=True)
class MLPMixer(Readout):
    """Polynomial MLP-Mixer: token- and channel-mixing maps with a squaring nonlinearity.

    Parameters
    ----------
    depth : int
        Blocks L >= 1.
    width : int
        Channels d.
    seq_len : int, default 4
        Positions N >= 2.
    token_hidden : int or None, default None
        Token-MLP hidden size N_h (None: N).
    channel_hidden : int or None, default None
        Channel-MLP hidden size d_h (None: d).
    query_position : int or None, default None
        Read-out position (None: 0).
    output_coord : int, default 0
        Read-out coordinate.
    """

    depth: int = field(metadata={"help": "blocks L >= 1"})
    width: int = field(metadata={"help": "channels d"})
    seq_len: int = seq_len_field()
    token_hidden: int | None = field(default=None, metadata={"help": "token-MLP hidden size "
                                     "N_h (none: N)"})
    channel_hidden: int | None = field(default=None, metadata={"help": "channel-MLP hidden "
                                       "size d_h (none: d)"})
    query_position: int | None = query_field("0")
    output_coord: int = coord_field()

    def __post_init__(self):
        plain_numbers(self)  # np.int64(2) is the size 2
        check_int("depth", self.depth, 1)
        check_int("width", self.width, 1)
        check_int("seq_len", self.seq_len, 2)
        for name in ("token_hidden", "channel_hidden"):
            if getattr(self, name) is not None:
                check_int(name, getattr(self, name), 1)
        check_readout(self, False)

    causal = False  # the read-out defaults to position 0

    @property
    def hidden(self) -> tuple[int, int]:
        """(N_h, d_h)."""
        return (self.token_hidden or self.seq_len, self.channel_hidden or self.width)

    @property
    def degree(self) -> int:
        return 4**self.depth

    homogeneous = True

    def upper_bound(self, partition) -> Bound:
        """[D] one hidden token (N_h = 1): f = P(s), s = T1[0] X in K^d, P a form of degree
        4^L, so sep <= sum_k min(C(k+d-1, d-1), C(4^L-k+d-1, d-1)) for every partition;
        N_h > 1: none known."""
        if self.hidden[0] != 1:
            return derived(None, "")
        D, d = self.degree, self.width
        upper = sum(min(comb(k + d - 1, d - 1), comb(D - k + d - 1, d - 1)) for k in range(D + 1))
        return derived(upper, "mixer with one hidden token: f = P(T1 X), a form of "
                       "degree 4^L in d numbers, sep <= sum_k min(C(k+d-1, d-1), "
                       "C(4^L-k+d-1, d-1)) [D]")

    def parameters(self) -> int:
        """Parameter count: 2 N N_h + 2 d d_h per block (the token maps scale with N)."""
        (nh, dh), N, d = self.hidden, self.seq_len, self.width
        return (2 * N * nh + 2 * d * dh) * self.depth

    def init(self, rng, domain) -> dict:
        (nh, dh), L, N, d = self.hidden, self.depth, self.seq_len, self.width
        return {
            "T1": domain.random(rng, (L, nh, N)),
            "T2": domain.random(rng, (L, N, nh)),
            "C1": domain.random(rng, (L, dh, d)),
            "C2": domain.random(rng, (L, d, dh)),
        }

    def apply(self, params, X, domain):
        Y, q = X, self.query
        for layer in range(self.depth):
            Z = np.einsum("ms,bsc->bmc", params["T1"][layer], Y) ** 2
            T2 = params["T2"][layer]
            rows = T2[q : q + 1] if layer == self.depth - 1 else T2  # only the query is read
            Z = np.einsum("tm,bmc->btc", rows, Z)
            Y = ((Z @ params["C1"][layer].T) ** 2) @ params["C2"][layer].T
        return Y[:, 0, self.output_coord]
