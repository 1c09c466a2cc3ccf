"""Tensor networks as functions of their inputs: the matrix product state (MPS), and min-cuts.

``MPS`` is a chain of cores G^n (phys_dim x bond x bond); the input vector x^n is
contracted into the physical leg of core n, so

    f(x^1..x^N) = (M_1 ... M_N)[0, 0]     (open chain)   or   tr(M_1 ... M_N)   (periodic)

with M_n = sum_s x^n_s G^n[s]. f is multilinear: homogeneous of degree N.

Known results (tags: [V] read in the primary text, [V2] secondary source, [D] derived here,
[M] recalled, not seen in the primary text):

- [M] Levine, Yakira, Cohen, Shashua, "Deep learning and quantum entanglement", ICLR 2018:
  the separation rank across (A, B) is at most the min-cut: the minimum, over cuts of the
  network separating A's input legs from B's, of the product of the cut bond dimensions
  (the upper bound itself is elementary: [D]). :func:`min_cut` computes it exactly.
- [V abstract] Cui, Freedman, Sattath, Stong, Minton, "Quantum max-flow/min-cut",
  J. Math. Phys. 2016: equality for almost all weights when every bond dimension is a
  power of one integer.
- [V abstract] Gesmundo, Landsberg, Walter, 2018: not equal in general; periodic chains
  with bond dimension 2 can fall below the min-cut.

>>> MPS(seq_len=6, phys_dim=2, bond=2).min_cut((0, 2, 4))
8
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from seprank.errors import ConfigError
from seprank.nets.base import Multilinear, check_flag, check_int
from seprank.nets.bound import Bound, tagged
from seprank.nets.sizes import plain_numbers

#: Nodes whose sides the exact min-cut enumerates (2**MAX_FREE_NODES assignments).
MAX_FREE_NODES = 22


def min_cut(n_nodes: int, hyperedges, legs, A) -> int:
    """Exact min-cut of a tensor network with hyperedges, as a product of dimensions.

    Parameters
    ----------
    n_nodes : number of tensors (nodes 0..n_nodes-1).
    hyperedges : iterable of ``(nodes, dim)``: a bond (two nodes) or a hyperedge (a copy
        tensor joining several nodes, e.g. product pooling); it is cut, at cost ``dim``,
        when its nodes are not all on one side.
    legs : iterable of ``(node, position, dim)``: the input leg of ``position`` on ``node``;
        cut when the node is not on the side of its position.
    A : positions on the A side.

    Every assignment of the nodes to the two sides is tried (exact; refused above
    MAX_FREE_NODES nodes). The product of the cut dimensions bounds the separation rank.
    """
    if n_nodes > MAX_FREE_NODES:
        raise ConfigError(f"seq_len: the min-cut of {n_nodes} tensors is enumerated exactly "
                          f"only up to {MAX_FREE_NODES}")
    A = set(A)
    edges = [(tuple(nodes), int(dim)) for nodes, dim in hyperedges]
    legs = [(int(v), int(pos), int(dim)) for v, pos, dim in legs]
    best = None
    step = 1 << min(n_nodes, 16)
    total = 1 << n_nodes
    for s0 in range(0, total, step):
        a = np.arange(s0, min(total, s0 + step), dtype=np.int64)
        side = ((a[:, None] >> np.arange(n_nodes)) & 1).astype(bool)  # True: A side
        cost = np.zeros(a.size)
        for nodes, dim in edges:
            s = side[:, list(nodes)]
            cost += np.where(s.all(1) | (~s).all(1), 0.0, math.log(dim))
        for v, pos, dim in legs:
            cost += np.where(side[:, v] != (pos in A), math.log(dim), 0.0)
        lo = cost.min()
        for i in np.nonzero(cost <= lo + 1e-9)[0]:  # exact product among (near-)ties
            val = 1
            for nodes, dim in edges:
                s = side[i, list(nodes)]
                val *= dim if (s.any() and not s.all()) else 1
            for v, pos, dim in legs:
                val *= dim if side[i, v] != (pos in A) else 1
            best = val if best is None else min(best, val)
    return int(best)


def _chain_product(Ms, domain):
    P = Ms[0]
    for M in Ms[1:]:
        P = domain.einsum("bij,bjk->bik", P, M)
    return P


@dataclass(frozen=True)
class MPS(Multilinear):
    """Matrix product state (tensor train, or ring if periodic) with inputs in its physical legs.

    Parameters
    ----------
    seq_len : int
        Number of sites N >= 2.
    phys_dim : int
        Physical (input) dimension d.
    bond : int
        Bond dimension chi.
    periodic : bool, default False
        Close the chain into a ring (a trace) instead of an open chain.
    """

    seq_len: int = field(metadata={"help": "number of sites N >= 2"})
    phys_dim: int = field(metadata={"help": "physical (input) dimension d"})
    bond: int = field(metadata={"help": "bond dimension chi"})
    periodic: bool = field(default=False, metadata={"help": "1: ring (trace), 0: open chain"})

    def __post_init__(self):
        plain_numbers(self)  # np.int64(2) is the size 2
        check_int("seq_len", self.seq_len, 2)
        check_int("phys_dim", self.phys_dim, 1)
        check_int("bond", self.bond, 1)
        check_flag("periodic", self.periodic)

    @property
    def width(self) -> int:
        return self.phys_dim

    def init(self, rng, domain) -> dict:
        """Cores G (N, d, chi, chi); an open chain reads row 0 of the first core's left
        bond and column 0 of the last one's right bond (boundary bonds of dimension 1)."""
        return {"G": domain.random(rng, (self.seq_len, self.phys_dim, self.bond, self.bond))}

    def apply(self, params, X, domain):
        G = params["G"]
        Ms = [domain.einsum("bs,sij->bij", X[:, n], G[n]) for n in range(self.seq_len)]
        if not self.periodic:
            Ms[0], Ms[-1] = Ms[0][:, :1, :], Ms[-1][:, :, :1]
            return _chain_product(Ms, domain)[:, 0, 0]
        eye = domain.from_ints(np.eye(self.bond, dtype=np.int64))
        return domain.einsum("bij,ji->b", _chain_product(Ms, domain), eye)

    def network(self):
        """(n_nodes, hyperedges, legs) of the chain, for :func:`min_cut`."""
        N = self.seq_len
        bonds = [((n, n + 1), self.bond) for n in range(N - 1)]
        if self.periodic:
            bonds.append(((N - 1, 0), self.bond))
        return N, bonds, [(n, n, self.phys_dim) for n in range(N)]

    def min_cut(self, partition) -> int:
        """Exact min-cut for the A side ``partition`` (an upper bound on the rank)."""
        return min_cut(*self.network(), partition)

    def upper_bound(self, partition) -> Bound:
        """[D] the min-cut, for every partition and every weight."""
        return tagged(
            self.min_cut(partition), "tensor-network min-cut bound (Levine, Yakira, Cohen, "
            "Shashua, ICLR 2018 [M]; the bound itself is elementary [D])", "D",
            "min-cut upper bound (every weight)",
            equality=("open chain: equality for almost all weights when bond dimensions "
                      "are powers of one integer (Cui et al. 2016 [V abstract])"
                      if not self.periodic else "periodic: can fall below the min-cut "
                      "(Gesmundo, Landsberg, Walter 2018 [V abstract]); measure it"),
            bond_is_power=_common_base(self.bond) is not None,
        )


def _common_base(n: int):
    """Smallest b with n a power of b (n itself if none smaller), None for n = 1."""
    if n == 1:
        return None
    for b in range(2, n + 1):
        k = round(math.log(n, b))
        if any(b**j == n for j in (k - 1, k, k + 1)):
            return b
    return n  # pragma: no cover

