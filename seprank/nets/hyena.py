"""The order-2 Hyena operator (Poli et al. 2023), stacked, in plain numpy.

One layer maps y (positions t, channels c) to, with q, k, v = W^Q y, W^K y, W^V y:

    u_t = k_t * q_t,    z_t[c] = sum_{s<=t} h[c, t - s] u_s[c],    y'_t = W^O (v_t * z_t),

a long causal convolution with a free filter h (one tap per channel and lag, N lags)
between two elementwise gates. Simplifications: Hyena's filters are generated implicitly
by a small network with positional features and a window, and short convolutions precede
the gates; here the filter taps are free weights and the short convolutions are dropped
(they would only enlarge the long filter's family). The read-out is coordinate
``output_coord`` at ``query_position`` (None: the last).

Facts derived from the definitions [D] (tested in tests/nets/test_mixers.py):

- [D] each layer is homogeneous cubic (q, k, v linear): degree 3^L, homogeneous.
- [D] one layer, any partition: f = sum_c W^O[p, c] v_i[c] (z_A[c] + z_B[c]) with the
  query i on one side; the other side enters only through the d sums z_side[c], so
  sep <= d + 1 for every partition and every N.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
class Hyena(Readout):
    """Order-2 Hyena: y = W^O (v * (h conv (k * q))), free causal filters, stacked.

    Parameters
    ----------
    depth : int
        Layers L >= 1.
    width : int
        Channels d.
    seq_len : int, default 4
        Positions N >= 2.
    query_position : int or None, default None
        Read-out position (None: the last).
    output_coord : int, default 0
        Read-out coordinate.
    """

    depth: int = field(metadata={"help": "layers L >= 1"})
    width: int = field(metadata={"help": "channels d"})
    seq_len: int = seq_len_field()
    query_position: int | None = query_field()
    output_coord: int = coord_field()

    def __post_init__(self):
        plain_numbers(self)  # np.int64(2) is the size 2
        check_int("depth", self.depth, 1)
        check_int("width", self.width, 1)
        check_int("seq_len", self.seq_len, 2)
        check_readout(self, True)


    @property
    def degree(self) -> int:
        return 3**self.depth

    homogeneous = True

    def parameters(self) -> int:
        """Non-embedding parameter count: W^Q, W^K, W^V, W^O (d x d) and the filter (d x N)
        per layer."""
        return (4 * self.width**2 + self.width * self.seq_len) * self.depth

    def upper_bound(self, partition) -> Bound:
        """[D] depth 1: sep <= d + 1 for every partition."""
        return derived(self.width + 1 if self.depth == 1 else None,
                       "one hyena layer: the side without the query enters through "
                       "d channel sums, sep <= width + 1 [D]")

    def init(self, rng, domain) -> dict:
        L, d, N = self.depth, self.width, self.seq_len
        return {"Wq": domain.random(rng, (L, d, d)), "Wk": domain.random(rng, (L, d, d)),
                "Wv": domain.random(rng, (L, d, d)), "Wo": domain.random(rng, (L, d, d)),
                "filt": domain.random(rng, (L, d, N))}

    def apply(self, params, X, domain):
        i = self.query
        Y = X[:, : i + 1]  # causal: later positions never reach the query
        n = Y.shape[1]
        lag = np.subtract.outer(np.arange(n), np.arange(n))  # t - s
        causal = (lag >= 0).astype(np.int64)
        for layer in range(self.depth):
            u = (Y @ params["Wk"][layer].T) * (Y @ params["Wq"][layer].T)  # (b, n, d)
            toeplitz = params["filt"][layer][:, np.maximum(lag, 0)] * causal  # (d, t, s)
            z = np.einsum("cts,bsc->btc", toeplitz, u)
            Y = ((Y @ params["Wv"][layer].T) * z) @ params["Wo"][layer].T
        return Y[:, i, self.output_coord]
