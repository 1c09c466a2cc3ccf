"""The paper's linearised multi-head self-attention, and a softmax variant (float only).

Layer l maps y^{l,i} to (the paper's network, softmax, feed-forward and norms removed)::

    y^{l+1,i} = [y^{l,i}]
              + sum_h W^{O,l,h} sum_j <W^{Q,l,h} y^{l,i}, W^{K,l,h} y^{l,j}> W^{V,l,h} y^{l,j}

The studied function is coordinate ``output_coord`` of y^{L,query_position}.

>>> import numpy as np
>>> from seprank.algebra.domains import ModP
>>> net = LinearSelfAttention(depth=1, width=2, heads=1, seq_len=2)
>>> params = net.init(np.random.default_rng(0), ModP(7))
>>> net.apply(params, np.ones((3, 2, 2), dtype=np.int64), ModP(7)).shape
(3,)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from seprank.errors import ConfigError, DomainError, heads_error
from seprank.nets import attention_kernel
from seprank.nets.bound import LINEAR_ATTENTION
from seprank.nets.capabilities import StructuralForm
from seprank.nets.sizes import plain_numbers


def _check_int(name: str, value, lo: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ConfigError(f"{name}={value!r} must be an integer")
    if value < lo:
        raise ConfigError(f"{name}={value} must be >= {lo}")


def head_counts(width: int) -> list[int]:
    """Every valid number of heads for ``width``: its divisors, ascending.

    Parameters
    ----------
    width : int
        The model width :math:`d_x`.

    Returns
    -------
    list of int
        The divisors of ``width``.

    Examples
    --------
    >>> head_counts(6)
    [1, 2, 3, 6]
    """
    return [h for h in range(1, width + 1) if width % h == 0]


@dataclass(frozen=True)
class LinearSelfAttention:
    r"""The paper's network: depth-L, width-d_x, H-head linearised self-attention on N positions.

    Parameters
    ----------
    depth, width, heads, seq_len : int
        :math:`L \ge 1`, :math:`d_x \ge 1`, :math:`H` dividing :math:`d_x` (head size
        :math:`d_a = d_x / H`), :math:`N \ge 2`.
    residual : bool
        Add the skip connection :math:`y^{l,i}` to every layer's output.
    query_position, output_coord : int
        The measured function is :math:`y^{L,i}_c` with :math:`i` = ``query_position`` and
        :math:`c` = ``output_coord``.
    """

    depth: int
    width: int
    heads: int = 1
    seq_len: int = 2
    residual: bool = False
    query_position: int = 0
    output_coord: int = 0
    #: The paper's theorems bound it (seprank.theory.bounds; not inherited: theorem_of).
    bound_theorem: ClassVar[str] = LINEAR_ATTENTION

    def __post_init__(self):
        plain_numbers(self)  # np.int64(2) is the size 2
        _check_int("depth", self.depth, 1)
        _check_int("width", self.width, 1)
        _check_int("heads", self.heads, 1)
        _check_int("seq_len", self.seq_len, 2)
        if self.width % self.heads:
            raise heads_error(self.heads, self.width)
        _check_int("query_position", self.query_position, 0)
        if self.query_position >= self.seq_len:
            raise ConfigError(
                f"query_position={self.query_position} must be < seq_len={self.seq_len}"
            )
        _check_int("output_coord", self.output_coord, 0)
        if not isinstance(self.residual, bool) and not (type(self.residual) is int
                                                        and self.residual in (0, 1)):
            raise ConfigError(f"residual={self.residual!r:.40} must be true or false")
        if self.output_coord >= self.width:
            raise ConfigError(f"output_coord={self.output_coord} must be < width={self.width}")

    @property
    def head_dim(self) -> int:
        return self.width // self.heads

    @property
    def degree(self) -> int:
        """Total degree of the output in the inputs: 3**depth (the top degree if residual)."""
        return 3**self.depth

    @property
    def homogeneous(self) -> bool:
        """Without the skip connection every layer is homogeneous cubic: f is homogeneous."""
        return not self.residual

    def structural_polynomial(self) -> StructuralForm:
        """Capability: f = e_c^T P_L(S) x^i (:mod:`seprank.nets.capabilities`)."""
        return StructuralForm(self.depth, self.width, self.heads, self.seq_len,
                              bool(self.residual), self.query_position, self.output_coord)

    def kernel(self):
        """Capability: the compiled GF(p) grid evaluator (None without numba)."""
        return attention_kernel.evaluator(self.structural_polynomial())

    def entry_degree(self, random_weights: bool = True) -> int:
        """Capability: degree of a grid entry, 3^L in the inputs plus 2 (3^L - 1) in the
        random weights (:mod:`seprank.engine.saturation`)."""
        T = 3**self.depth
        return T + (2 * (T - 1) if random_weights else 0)

    def init(self, rng: np.random.Generator, domain) -> dict:
        """Draw W^Q, W^K, W^V (L, H, d_a, d_x) and W^O (L, H, d_x, d_a) in ``domain``."""
        L, H, a, d = self.depth, self.heads, self.head_dim, self.width
        return {
            "Wq": domain.random(rng, (L, H, a, d)),
            "Wk": domain.random(rng, (L, H, a, d)),
            "Wv": domain.random(rng, (L, H, a, d)),
            "Wo": domain.random(rng, (L, H, d, a)),
        }

    def _scores(self, q, k, domain):
        return domain.einsum("bia,bja->bij", q, k)

    def apply(self, params: dict, X, domain):
        """Outputs f(X) of shape (B,) for inputs X of shape (B, seq_len, width)."""
        Y = X
        i = self.query_position
        for layer in range(self.depth):
            last = layer == self.depth - 1
            # The last layer is only read at the query position.
            Yq = Y[:, i : i + 1] if last else Y
            out = None
            for h in range(self.heads):
                q = domain.einsum("bnc,ac->bna", Yq, params["Wq"][layer, h])
                k = domain.einsum("bnc,ac->bna", Y, params["Wk"][layer, h])
                v = domain.einsum("bnc,ac->bna", Y, params["Wv"][layer, h])
                s = self._scores(q, k, domain)
                z = domain.einsum("bij,bja->bia", s, v)
                o = domain.einsum("bia,ca->bic", z, params["Wo"][layer, h])
                out = o if out is None else domain.add(out, o)
            Y = domain.add(Yq, out) if self.residual else out
        return Y[:, 0, self.output_coord]


@dataclass(frozen=True)
class SoftmaxSelfAttention(LinearSelfAttention):
    r"""The same network with softmax(<q, k> / sqrt(d_a)) attention; Float64 only.

    The attention weights are :math:`\operatorname{softmax}_j\bigl(\langle q^i, k^j
    \rangle / \sqrt{d_a}\bigr)`. Not a polynomial, so only the float rank engine applies.

    Parameters
    ----------
    depth, width, heads, seq_len : int
        :math:`L \ge 1`, :math:`d_x \ge 1`, :math:`H` dividing :math:`d_x` (head size
        :math:`d_a = d_x / H`), :math:`N \ge 2`.
    residual : bool
        Add the skip connection :math:`y^{l,i}` to every layer's output.
    query_position, output_coord : int
        The measured function is :math:`y^{L,i}_c` with :math:`i` = ``query_position`` and
        :math:`c` = ``output_coord``.
    """

    #: Not the structural lemma's polynomial: none of the paper network's capabilities.
    structural_polynomial = kernel = entry_degree = None
    #: No theorem bounds softmax attention (and a declaration is never inherited).
    bound_theorem: ClassVar[None] = None

    @property
    def degree(self) -> None:
        """None: softmax attention is not a polynomial."""
        return None

    @property
    def homogeneous(self) -> bool:
        return False

    @property
    def polynomial(self) -> bool:
        """False: only the float engine measures it (``measure(method="auto")`` picks it)."""
        return False

    def _scores(self, q, k, domain):
        if domain.name != "float64":
            raise DomainError(f"domain={domain.name}: SoftmaxSelfAttention needs float64")
        s = np.einsum("bia,bja->bij", q, k) / np.sqrt(self.head_dim)
        s = s - s.max(axis=-1, keepdims=True)
        e = np.exp(s)
        return e / e.sum(axis=-1, keepdims=True)
