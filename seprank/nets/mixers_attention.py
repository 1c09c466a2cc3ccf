"""Linear-attention mixers: linear attention (causal or not), retention, gated linear attention.

Written in plain numpy (``apply`` receives field arrays under the modular engine). Per
layer l and head h, with q_i = W^Q y_i, k_j = W^K y_j, v_j = W^V y_j (head size d_a) and
the head outputs summed through W^O (as in the paper's network, :mod:`seprank.nets.attention`):

- ``linear-attention`` (Katharopoulos et al. 2020): y_i = sum_j phi(q_i).phi(k_j) v_j over
  all j, or j <= i when causal; phi the identity or the elementwise square;
- ``retention`` (RetNet): causal, y_i = sum_{j<=i} gamma_h^(i-j) (q_i.k_j) v_j with a fixed
  per-head decay gamma_h, an exact rational (GF(p) needs exact constants);
- ``gla`` (gated linear attention): causal, state S_t = diag(g_t) S_{t-1} + k_t v_t^T,
  y_t = S_t^T q_t, with the input-dependent gate g_t = W^G y_t. The simplification: GLA's
  gate is sigmoid(W^G y_t)^(1/tau); here it is the linear form itself, so that f stays a
  polynomial; what is kept is that the decay of every key coordinate depends on the input.

The read-out is coordinate ``output_coord`` at ``query_position`` (None: the last position
when causal, 0 otherwise). Facts derived from the definitions [D] (tested in
tests/nets/test_mixers.py):

- [D] degrees: each layer multiplies the degree by 3 (identity phi; 5 with the square:
  phi(q) has degree 2, phi(k) 2, v 1), homogeneous; retention likewise 3 (gamma is a
  constant); gla is not homogeneous: the term of key j at query i carries i - j gate
  factors, so its top degree follows :func:`seprank.nets.sequence_common.gated_degrees`.
- [D] non-causal linear attention with the identity map is the paper's network
  (LinearSelfAttention without residual): the same weights (same names, shapes and draw
  order) give the same values, hence the same ranks.
- [D] one layer, the query in B: f = sum_h <phi(q_i) (x) G_h(x_B), S_A w_h> + g(x_B), where
  S_A = sum_{j in A} (decay) phi(k_j) v_j^T and w_h = the row output_coord of W^O_h: A
  enters only through the d_a numbers (S_A w_h)_a per head, so sep <= H d_a + 1 =
  width + 1. For linear attention (causal or not, either phi) and retention (the decay is
  a constant) this holds for every partition (swap A and B when the query is in A); for
  gla when A is a prefix (the gate product then runs over B only and scales coordinates,
  it does not mix them). ``upper_bound`` states these bounds.
- [D] causal linear attention with the identity map equals retention with gamma = 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from seprank.errors import ConfigError, heads_error
from seprank.nets import attention_kernel
from seprank.nets.base import check_flag, check_int
from seprank.nets.bound import Bound, derived
from seprank.nets.capabilities import StructuralForm
from seprank.nets.sequence_common import (
    GatedRecurrence,
    Readout,
    check_choice,
    check_readout,
    coord_field,
    prefix_without_query,
    query_field,
    seq_len_field,
)
from seprank.nets.sizes import plain_numbers

FEATURES = ("identity", "square")


def _check_heads(net) -> None:
    check_int("depth", net.depth, 1)
    check_int("width", net.width, 1)
    check_int("heads", net.heads, 1)
    check_int("seq_len", net.seq_len, 2)
    if net.width % net.heads:
        raise heads_error(net.heads, net.width)


def _qkv_weights(net, rng, domain) -> dict:
    """W^Q, W^K, W^V (L, H, d_a, d) and W^O (L, H, d, d_a): LinearSelfAttention's names,
    shapes and draw order (the same rng gives the same weights)."""
    L, H, a, d = net.depth, net.heads, net.width // net.heads, net.width
    return {
        "Wq": domain.random(rng, (L, H, a, d)),
        "Wk": domain.random(rng, (L, H, a, d)),
        "Wv": domain.random(rng, (L, H, a, d)),
        "Wo": domain.random(rng, (L, H, d, a)),
    }


def _recurrent_head(q, k, v, gate):
    """out_t = S_t^T q_t with S_t = gate(t) * S_{t-1} + k_t v_t^T (S_{-1} = 0); the gate is
    a constant or a (batch, d_a) array scaling the key coordinates. Shapes (b, n, a)."""
    outs, S = [], None
    for t in range(k.shape[1]):
        write = k[:, t, :, None] * v[:, t, None, :]
        if S is None:
            S = write
        else:
            g = gate(t)
            S = (g[:, :, None] if isinstance(g, np.ndarray) else g) * S + write
        outs.append(np.einsum("ba,bac->bc", q[:, t], S))
    return np.stack(outs, axis=1)


@dataclass(frozen=True)
class LinearAttention(Readout):
    """A sequence mixer, not the paper's network: linear attention, causal or not (no residual).

    Its feature map is the identity or the elementwise square.

    Parameters
    ----------
    depth : int
        Layers L >= 1.
    width : int
        Model width d.
    heads : int, default 1
        Heads H, dividing width.
    seq_len : int, default 4
        Positions N >= 2.
    causal : bool, default False
        Attend to j <= i only.
    feature : str, default 'identity'
        Feature map phi: 'identity' or 'square'.
    query_position : int or None, default None
        Read-out position (None: the last if causal, else 0).
    output_coord : int, default 0
        Read-out coordinate.
    """

    depth: int = field(metadata={"help": "layers L >= 1"})
    width: int = field(metadata={"help": "model width d"})
    heads: int = field(default=1, metadata={"help": "heads H, dividing width"})
    seq_len: int = seq_len_field()
    causal: bool = field(default=False, metadata={"help": "attend to j <= i only"})
    feature: str = field(default="identity", metadata={"help": "phi: identity or square"})
    query_position: int | None = query_field("last if causal, else 0")
    output_coord: int = coord_field()

    def __post_init__(self):
        plain_numbers(self)  # np.int64(2) is the size 2
        _check_heads(self)
        check_flag("causal", self.causal)
        check_choice("feature", self.feature, FEATURES)
        check_readout(self, bool(self.causal))


    @property
    def degree(self) -> int:
        return (5 if self.feature == "square" else 3) ** self.depth

    homogeneous = True

    def parameters(self) -> int:
        """Non-embedding parameter count: 4 d^2 per layer (W^Q, W^K, W^V, W^O)."""
        return 4 * self.width**2 * self.depth

    def upper_bound(self, partition) -> Bound:
        """[D] depth 1: the side without the query enters through H d_a numbers, sep <= d + 1
        (module docstring), for every partition."""
        return derived(self.width + 1 if self.depth == 1 else None,
                       "one linear-attention layer: the side without the query "
                       "enters through H d_a numbers, sep <= width + 1 [D]")

    def structural_polynomial(self) -> StructuralForm | None:
        """Capability, declared where f is the paper's network's: not causal, feature map
        identity (the weights are drawn in its layout): f = e_c^T P_L(S) x^i."""
        if self.causal or self.feature != "identity":
            return None
        return StructuralForm(self.depth, self.width, self.heads, self.seq_len, False,
                              self.query, self.output_coord)

    def kernel(self):
        """Capability: the paper network's compiled GF(p) grid evaluator, where
        :meth:`structural_polynomial` is declared (None elsewhere)."""
        form = self.structural_polynomial()
        return None if form is None else attention_kernel.evaluator(form)

    def init(self, rng, domain) -> dict:
        return _qkv_weights(self, rng, domain)

    def apply(self, params, X, domain):
        i = self.query
        Y = X[:, : i + 1] if self.causal else X  # causal: later positions never reach i
        mask = np.tril(np.ones((Y.shape[1], Y.shape[1]), dtype=np.int64))
        for layer in range(self.depth):
            last = layer == self.depth - 1
            rows = slice(i, i + 1) if last else slice(0, Y.shape[1])
            out = 0
            for h in range(self.heads):
                q = Y[:, rows] @ params["Wq"][layer, h].T
                k = Y @ params["Wk"][layer, h].T
                v = Y @ params["Wv"][layer, h].T
                if self.feature == "square":
                    q, k = q * q, k * k
                s = np.einsum("bia,bja->bij", q, k)
                if self.causal:
                    s = s * mask[rows]
                out = out + np.einsum("bij,bja,ca->bic", s, v, params["Wo"][layer, h])
            Y = out
        return Y[:, 0, self.output_coord]


@dataclass(frozen=True)
class Retention(Readout):
    """Retention (RetNet): causal linear attention with a fixed exact per-head decay gamma.

    Parameters
    ----------
    depth : int
        Layers L >= 1.
    width : int
        Model width d.
    heads : int, default 1
        Heads H, dividing width.
    seq_len : int, default 4
        Positions N >= 2.
    gamma_num : tuple of int, default (1,)
        Decay numerators: one, or one per head.
    gamma_den : int, default 2
        Decay denominator (gamma = num/den).
    query_position : int or None, default None
        Read-out position (None: the last).
    output_coord : int, default 0
        Read-out coordinate.
    """

    depth: int = field(metadata={"help": "layers L >= 1"})
    width: int = field(metadata={"help": "model width d"})
    heads: int = field(default=1, metadata={"help": "heads H, dividing width"})
    seq_len: int = seq_len_field()
    gamma_num: tuple[int, ...] = field(default=(1,), metadata={"help": "decay numerators: "
                                       "one, or one per head"})
    gamma_den: int = field(default=2, metadata={"help": "decay denominator (gamma = num/den)"})
    query_position: int | None = query_field()
    output_coord: int = coord_field()

    def __post_init__(self):
        plain_numbers(self)  # np.int64(2) is the size 2
        _check_heads(self)
        if not isinstance(self.gamma_num, tuple) or not self.gamma_num:
            raise ConfigError(f"gamma_num={self.gamma_num!r} must be a non-empty tuple of ints")
        for n, g in enumerate(self.gamma_num):
            check_int(f"gamma_num[{n}]", g, -(2**31))
        if len(self.gamma_num) not in (1, self.heads):
            raise ConfigError(f"gamma_num={self.gamma_num} must have 1 or heads={self.heads} "
                              "entries")
        check_int("gamma_den", self.gamma_den, 1)
        check_readout(self, True)


    def gammas(self) -> list[Fraction]:
        """The exact decay of every head."""
        nums = self.gamma_num * (self.heads if len(self.gamma_num) == 1 else 1)
        return [Fraction(n, self.gamma_den) for n in nums]

    @property
    def degree(self) -> int:
        return 3**self.depth

    homogeneous = True

    def parameters(self) -> int:
        """Non-embedding parameter count: 4 d^2 per layer (the decays are fixed constants)."""
        return 4 * self.width**2 * self.depth

    def upper_bound(self, partition) -> Bound:
        """[D] depth 1: the decay gamma^(i-j) is a constant, so the side without the query
        enters through H d_a numbers: sep <= d + 1 for every partition."""
        return derived(self.width + 1 if self.depth == 1 else None,
                       "one retention layer: the side without the query enters "
                       "through H d_a numbers, sep <= width + 1 [D]")

    def init(self, rng, domain) -> dict:
        return _qkv_weights(self, rng, domain)

    def gate(self, params, Y, layer, h):
        """The decay of head h at every step: a constant, or (batch, d_a) per step."""
        g = self.gammas()[h]
        return lambda t: g

    def apply(self, params, X, domain):
        return _recurrent_apply(self, params, X)


@dataclass(frozen=True)
class GLA(GatedRecurrence):
    """Gated linear attention: causal linear attention with an input-dependent gate W^G y_t.

    Parameters
    ----------
    depth : int
        Layers L >= 1.
    width : int
        Model width d.
    heads : int, default 1
        Heads H, dividing width.
    seq_len : int, default 4
        Positions N >= 2.
    query_position : int or None, default None
        Read-out position (None: the last).
    output_coord : int, default 0
        Read-out coordinate.
    """

    depth: int = field(metadata={"help": "layers L >= 1"})
    width: int = field(metadata={"help": "model width d"})
    heads: int = field(default=1, metadata={"help": "heads H, dividing width"})
    seq_len: int = seq_len_field()
    query_position: int | None = query_field()
    output_coord: int = coord_field()

    def __post_init__(self):
        plain_numbers(self)  # np.int64(2) is the size 2
        _check_heads(self)
        check_readout(self, True)

    WRITE = 2  # the value times the key

    def parameters(self) -> int:
        """Non-embedding parameter count: 4 d^2 + d^2 / H (the gates) per layer."""
        return (4 * self.width**2 + self.width**2 // self.heads) * self.depth

    def upper_bound(self, partition) -> Bound:
        """[D] depth 1, one side a prefix without the query: the gate product over the
        other side scales coordinates, so sep <= d + 1; other partitions: none known (a
        gate between two positions of one side can read the other side)."""
        ok = self.depth == 1 and prefix_without_query(partition, self.seq_len, self.query)
        return derived(self.width + 1 if ok else None,
                       "one gla layer, prefix/suffix partition: the prefix enters "
                       "through H d_a numbers, sep <= width + 1 [D]")

    def init(self, rng, domain) -> dict:
        p = _qkv_weights(self, rng, domain)
        a = self.width // self.heads
        p["Wg"] = domain.random(rng, (self.depth, self.heads, a, self.width))
        return p

    def gate(self, params, Y, layer, h):
        """The decay of head h at every step: a constant, or (batch, d_a) per step."""
        g = Y @ params["Wg"][layer, h].T
        return lambda t: g[:, t]

    def apply(self, params, X, domain):
        return _recurrent_apply(self, params, X)


def _recurrent_apply(net, params, X):
    """Retention and gla: every layer's heads run the recurrence up to the query."""
    i = net.query
    Y = X[:, : i + 1]  # causal: later positions never reach the query
    for layer in range(net.depth):
        out = 0
        for h in range(net.heads):
            q = Y @ params["Wq"][layer, h].T
            k = Y @ params["Wk"][layer, h].T
            v = Y @ params["Wv"][layer, h].T
            z = _recurrent_head(q, k, v, net.gate(params, Y, layer, h))
            out = out + z @ params["Wo"][layer, h].T
        Y = out
    return Y[:, i, net.output_coord]
