"""State-space mixers: the selective S6 (Mamba) in polynomial form, and the time-invariant S4.

Written in plain numpy. Layer inputs y_t in R^d (y = x at layer 0), one layer maps y to y':

- ``s6`` (selective): per channel c and state coordinate k (state size n),
  B_t = W^B y_t, C_t = W^C y_t (in R^n), Delta_t = w^D . y_t (a scalar),
  h_t[c, k] = (1 + Delta_t a[c, k]) h_{t-1}[c, k] + Delta_t B_t[k] y_t[c]   (h_{-1} = 0),
  y'_t[c] = C_t . h_t[c, :].
  The simplification (the issue's): Mamba's discretisation exp(Delta_t A) is replaced by
  its first-order polynomial 1 + Delta_t A, the softplus on Delta and the layer's
  convolution, gate and projections are dropped, and Delta is one scalar per step. What
  makes S6 selective survives: the state's decay (1 + Delta_t a), what is written (B_t)
  and what is read (C_t) all depend on the current input, so f is a polynomial whose
  degree grows with the sequence length, not only with depth.
- ``s4`` (time-invariant, the non-selective control): h_t = A h_{t-1} + B y_t (h in R^n,
  A, B, C fixed weights), u_t = C h_t; the layer output is u_t, or with ``product``
  the product read-out y'_t = u_t * (E y_t) (elementwise, E in R^{d x d}: the gated
  read-out of H3-style layers).

The read-out is coordinate ``output_coord`` at ``query_position`` (None: the last).
Facts derived from the definitions [D] (tested in tests/nets/test_mixers.py):

- [D] a purely linear s4 (no product, any depth) is a linear function of X:
  f = l_A(x_A) + l_B(x_B) = l_A * 1 + 1 * l_B, so sep <= 2 for every partition.
- [D] s4 with the product read-out: degree 2 per layer, homogeneous (2^L); one layer has
  f = (l_A + l_B) * e(x_query), so sep <= 2 for every partition as well.
- [D] s6 degree: the term written at step j and read at step i carries i - j decays, so
  one layer has top degree 4 + i at the query i (read 1, write 3, decay 1 per step; the
  lowest degree is 4): not homogeneous; deeper layers by
  :func:`seprank.nets.sequence_common.gated_degrees`.
- [D] one s6 layer, prefix/suffix partition (query in B): f = sum_k G_k(x_B) h_A[c, k]
  + g(x_B), with h_A the state after the A steps: sep <= n + 1 (n = state), for every N.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from seprank.nets.base import check_flag, check_int
from seprank.nets.bound import Bound, derived
from seprank.nets.sequence_common import (
    GatedRecurrence,
    Readout,
    check_readout,
    coord_field,
    prefix_without_query,
    query_field,
    seq_len_field,
)
from seprank.nets.sizes import plain_numbers


def _check_sizes(net) -> None:
    check_int("depth", net.depth, 1)
    check_int("width", net.width, 1)
    check_int("state", net.state, 1)
    check_int("seq_len", net.seq_len, 2)


@dataclass(frozen=True)
class S6(GatedRecurrence):
    """Selective state space (Mamba's S6) in polynomial form: exp(Delta a) -> 1 + Delta a.

    Parameters
    ----------
    depth : int
        Layers L >= 1.
    width : int
        Channels d.
    state : int, default 2
        State size n per channel.
    seq_len : int, default 4
        Positions N >= 2.
    query_position : int or None, default None
        Read-out position (None: the last).
    output_coord : int, default 0
        Read-out coordinate.
    """

    depth: int = field(metadata={"help": "layers L >= 1"})
    width: int = field(metadata={"help": "channels d"})
    state: int = field(default=2, metadata={"help": "state size n per channel"})
    seq_len: int = seq_len_field()
    query_position: int | None = query_field()
    output_coord: int = coord_field()

    def __post_init__(self):
        plain_numbers(self)  # np.int64(2) is the size 2
        _check_sizes(self)
        check_readout(self, True)

    WRITE = 3  # Delta_t, B_t and the input

    def parameters(self) -> int:
        """Non-embedding parameter count: W^B, W^C (n x d), w^D (d), a (d x n): 3 d n + d
        per layer."""
        return (3 * self.width * self.state + self.width) * self.depth

    def upper_bound(self, partition) -> Bound:
        """[D] depth 1, one side a prefix without the query: sep <= n + 1."""
        ok = self.depth == 1 and prefix_without_query(partition, self.seq_len, self.query)
        return derived(self.state + 1 if ok else None,
                       "one s6 layer, prefix/suffix partition: the prefix enters "
                       "through the read channel's state, sep <= state + 1 [D]")

    def init(self, rng, domain) -> dict:
        L, d, n = self.depth, self.width, self.state
        return {"WB": domain.random(rng, (L, n, d)), "WC": domain.random(rng, (L, n, d)),
                "wD": domain.random(rng, (L, d)), "a": domain.random(rng, (L, d, n))}

    def apply(self, params, X, domain):
        i = self.query
        Y = X[:, : i + 1]  # causal: later positions never reach the query
        for layer in range(self.depth):
            Bt = Y @ params["WB"][layer].T  # (b, N, n)
            Ct = Y @ params["WC"][layer].T
            Dt = Y @ params["wD"][layer]  # (b, N)
            a = params["a"][layer]  # (d, n)
            outs, h = [], None
            for t in range(Y.shape[1]):
                write = Dt[:, t, None, None] * Bt[:, t, None, :] * Y[:, t, :, None]
                h = write if h is None else (1 + Dt[:, t, None, None] * a) * h + write
                outs.append((h * Ct[:, t, None, :]).sum(axis=-1))
            Y = _stack(outs)
        return Y[:, i, self.output_coord]


@dataclass(frozen=True)
class S4(Readout):
    """Time-invariant linear state space (S4-style), optionally with a product read-out.

    Parameters
    ----------
    depth : int
        Layers L >= 1.
    width : int
        Channels d.
    state : int, default 2
        State size n.
    seq_len : int, default 4
        Positions N >= 2.
    product : bool, default False
        Read-out u_t * (E y_t).
    query_position : int or None, default None
        Read-out position (None: the last).
    output_coord : int, default 0
        Read-out coordinate.
    """

    depth: int = field(metadata={"help": "layers L >= 1"})
    width: int = field(metadata={"help": "channels d"})
    state: int = field(default=2, metadata={"help": "state size n"})
    seq_len: int = seq_len_field()
    product: bool = field(default=False, metadata={"help": "read-out u_t * (E y_t)"})
    query_position: int | None = query_field()
    output_coord: int = coord_field()

    def __post_init__(self):
        plain_numbers(self)  # np.int64(2) is the size 2
        _check_sizes(self)
        check_flag("product", self.product)
        check_readout(self, True)


    @property
    def degree(self) -> int:
        return 2**self.depth if self.product else 1

    homogeneous = True

    def parameters(self) -> int:
        """Non-embedding parameter count: A (n x n), B, C (n d each) [+ E (d x d)] per layer."""
        n, d = self.state, self.width
        return (n * n + 2 * n * d + (d * d if self.product else 0)) * self.depth

    def upper_bound(self, partition) -> Bound:
        """[D] linear (any depth) or one product layer: sep <= 2 for every partition."""
        ok = not self.product or self.depth == 1
        return derived(2 if ok else None,
                       "s4: f = l_A + l_B (linear) or (l_A + l_B) e(x_query) (one "
                       "product layer), sep <= 2 [D]")

    def init(self, rng, domain) -> dict:
        L, d, n = self.depth, self.width, self.state
        p = {"A": domain.random(rng, (L, n, n)), "B": domain.random(rng, (L, n, d)),
             "C": domain.random(rng, (L, d, n))}
        if self.product:
            p["E"] = domain.random(rng, (L, d, d))
        return p

    def apply(self, params, X, domain):
        i = self.query
        Y = X[:, : i + 1]
        for layer in range(self.depth):
            Bu = Y @ params["B"][layer].T  # (b, N, n)
            outs, h = [], None
            for t in range(Y.shape[1]):
                h = Bu[:, t] if h is None else h @ params["A"][layer].T + Bu[:, t]
                outs.append(h @ params["C"][layer].T)
            U = _stack(outs)
            Y = U * (Y @ params["E"][layer].T) if self.product else U
        return Y[:, i, self.output_coord]


def _stack(outs):
    """The per-step outputs (b, d) stacked along positions: (b, N, d)."""
    return np.stack(outs, axis=1)
