"""Recurrent arithmetic circuits (Levine, Sharir, Shashua, "Benefits of depth for long-term
memory of recurrent networks", 2018).

Multiplicative integration in place of the nonlinearity: layer 1 reads the inputs,

    h^1_t = (W^{H,1} h^1_{t-1}) * (W^{I,1} x^t),     h^1_0 = a weight vector,

a second layer (depth 2) reads the first one's hidden states,

    h^2_t = (W^{H,2} h^2_{t-1}) * (W^{I,2} h^1_t),

and f = <w^O, h^depth_T> at the last step T = seq_len. Over positions (time steps) every
h^1_t is homogeneous of degree t, so f has degree T (depth 1, multilinear) or
T(T+1)/2 (depth 2), homogeneous either way.

Known results (tags: [D] derived here; [M] recalled, not seen in the primary text), for the
Start-End partition (A = the first T/2 steps):

- depth 1 [D]: f = <w^O, L_B(x^B) h^1_{T/2}> with h^1_{T/2} in R^R, so sep <= R for every T;
  [M] = R for generic weights (once M^{T/2} >= R).
- depth 2 [M]: sep >= C(T/2 + min(M, R) - 1, T/2), growing with T.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from seprank.errors import ConfigError
from seprank.nets.base import check_int
from seprank.nets.bound import Bound, tagged
from seprank.nets.sizes import plain_numbers


@dataclass(frozen=True)
class RAC:
    """Recurrent arithmetic circuit (multiplicative integration), depth 1 or 2.

    Parameters
    ----------
    seq_len : int
        Time steps T >= 2.
    in_dim : int
        Input dimension M.
    hidden : int
        Hidden channels R.
    depth : int, default 1
        Recurrent layers: 1 or 2.
    """

    seq_len: int = field(metadata={"help": "time steps T >= 2"})
    in_dim: int = field(metadata={"help": "input dimension M"})
    hidden: int = field(metadata={"help": "hidden channels R"})
    depth: int = field(default=1, metadata={"help": "recurrent layers: 1 or 2"})

    def __post_init__(self):
        plain_numbers(self)  # np.int64(2) is the size 2
        check_int("seq_len", self.seq_len, 2)
        check_int("in_dim", self.in_dim, 1)
        check_int("hidden", self.hidden, 1)
        check_int("depth", self.depth, 1)
        if self.depth > 2:
            raise ConfigError(f"depth={self.depth} must be 1 or 2")

    @property
    def width(self) -> int:
        return self.in_dim

    @property
    def degree(self) -> int:
        T = self.seq_len
        return T if self.depth == 1 else T * (T + 1) // 2

    @property
    def homogeneous(self) -> bool:
        return True

    def init(self, rng, domain) -> dict:
        R, M = self.hidden, self.in_dim
        p = {"h0_1": domain.random(rng, (R,)), "WH1": domain.random(rng, (R, R)),
             "WI1": domain.random(rng, (R, M)), "WO": domain.random(rng, (R,))}
        if self.depth == 2:
            p.update({"h0_2": domain.random(rng, (R,)), "WH2": domain.random(rng, (R, R)),
                      "WI2": domain.random(rng, (R, R))})
        return p

    def apply(self, params, X, domain):
        B = X.shape[0]
        ones = domain.from_ints(_ones(B))

        def run(inputs, h0, WH, WI):
            h = domain.einsum("b,r->br", ones, h0)
            out = []
            for x in inputs:
                h = domain.mul(domain.einsum("bs,rs->br", h, WH),
                               domain.einsum("bm,rm->br", x, WI))
                out.append(h)
            return out

        hs = run([X[:, t] for t in range(self.seq_len)], params["h0_1"], params["WH1"],
                 params["WI1"])
        if self.depth == 2:
            hs = run(hs, params["h0_2"], params["WH2"], params["WI2"])
        return domain.einsum("br,r->b", hs[-1], params["WO"])

    def start_end(self) -> tuple[int, ...]:
        """The Start-End partition: the first T // 2 steps."""
        return tuple(range(self.seq_len // 2))

    def upper_bound(self, partition) -> Bound:
        """[D] depth 1, prefix partition: sep <= R; depth 2, Start-End: a recalled lower
        bound only [M]; otherwise the trivial bound (depth 1) or none."""
        A = tuple(sorted(set(partition)))
        T, M, R = self.seq_len, self.in_dim, self.hidden
        if self.depth == 1 and A == tuple(range(len(A))):
            return tagged(min(R, M ** len(A), M ** (T - len(A))),
                          "shallow RAC, prefix partition: sep <= R for every T [D] (= R "
                          "for generic weights: Levine-Sharir-Shashua 2018 [M])", "D",
                          "upper bound (every weight)")
        if self.depth == 2 and A == self.start_end():
            return tagged(None, "deep RAC, Start-End: sep >= C(T/2 + min(M,R) - 1, T/2) "
                          "(Levine-Sharir-Shashua 2018) [M]", "M",
                          "lower bound (generic weights), recalled",
                          lower=recalled_deep_lower_bound(T, M, R))
        return tagged(min(M ** len(A), M ** (T - len(A))) if self.depth == 1 else None,
                      "no published bound for this partition known to seprank", "D",
                      "trivial")


def recalled_deep_lower_bound(T: int, M: int, R: int) -> int:
    """C(T/2 + min(M, R) - 1, T/2): the recalled [M] Start-End lower bound for depth 2."""
    return math.comb(T // 2 + min(M, R) - 1, T // 2)


def _ones(n: int):
    return np.ones(n, dtype=np.int64)
