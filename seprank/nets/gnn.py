"""Graph neural networks with product aggregation (Razin, Verbin, Cohen, "On the ability of
graph neural networks to model interactions between vertices", NeurIPS 2023).

Positions are the vertices of an undirected graph, with self-loops added; x^i is the
feature vector of vertex i. With h^{0,i} = x^i,

    h^{l,i} = prod_{j in N(i)} (W^l h^{l-1,j})        (elementwise product; N(i) holds i)

and the output is <w^o, h^{L,t}> (vertex prediction at ``target``) or
<w^o, prod_i h^{L,i}> (graph prediction, product pooling). Each h^{l,i} is homogeneous of
degree = the number of l-step walks leaving i, so f is homogeneous.

Known result (tags: [V] read in the authors' code; [M] recalled, not seen in the primary
text): [M] sep(f; I) <= D_h^(4 WI + 1) with D_h = ``width`` and the walk index
WI = WI_{L-1}(I): the number of (L-1)-step walks (self-loops added) that start at a
boundary vertex of I (a vertex with a neighbour on the other side) and, for vertex
prediction, end at the target [V: the authors' walk_index code, as recalled]. The walk
index can only fall when edges are removed, so the bound never rises.

>>> GNN(edges="0-1,1-2", depth=2, width=2).walk_index((0,))
5
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from seprank.errors import ConfigError
from seprank.nets.base import Edges, check_int, parse_edges
from seprank.nets.bound import Bound, tagged
from seprank.nets.sizes import plain_numbers


@dataclass(frozen=True)
class GNN:
    """Graph neural network with product aggregation (vertex or graph prediction).

    Parameters
    ----------
    edges : tuple of (int, int)
        Undirected edges (a, b) (the CLI reads them as 0-1,1-2,2-3).
    depth : int
        Message-passing layers L >= 1.
    width : int
        Hidden (and input) dimension D_h.
    target : int or None, default None
        Vertex whose prediction is read (None: a graph-level output).
    n_vertices : int or None, default None
        Number of vertices (default: 1 + the largest vertex in edges).
    """

    edges: Edges = field(metadata={"help": "undirected edges a-b, e.g. 0-1,1-2,2-3"})
    depth: int = field(metadata={"help": "message-passing layers L >= 1"})
    width: int = field(metadata={"help": "hidden (and input) dimension D_h"})
    target: int | None = field(default=None, metadata={
        "help": "vertex whose prediction is read; none: graph-level output"})
    n_vertices: int | None = field(default=None, metadata={
        "help": "number of vertices (default: 1 + the largest vertex in edges)"})

    def __post_init__(self):
        plain_numbers(self)  # np.int64(2) is the size 2
        object.__setattr__(self, "edges", parse_edges(self.edges))
        check_int("depth", self.depth, 1)
        check_int("width", self.width, 1)
        top = max((max(e) for e in self.edges), default=-1) + 1
        n = top if self.n_vertices is None else self.n_vertices
        check_int("n_vertices", n, max(2, top))
        object.__setattr__(self, "n_vertices", int(n))
        bad = [e for e in self.edges if min(e) < 0]
        if bad:
            raise ConfigError(f"edges={bad} must join vertices >= 0")
        if self.target is not None:
            check_int("target", self.target, 0)
            if self.target >= n:
                raise ConfigError(f"target={self.target} must be < n_vertices={n}")

    @property
    def seq_len(self) -> int:
        return self.n_vertices

    @property
    def query_position(self) -> int:
        return 0 if self.target is None else self.target

    def adjacency(self) -> np.ndarray:
        """Adjacency matrix with self-loops (0/1, int64)."""
        n = self.n_vertices
        adj = np.eye(n, dtype=np.int64)
        for a, b in self.edges:
            adj[a, b] = adj[b, a] = 1
        return adj

    def neighbours(self) -> list[list[int]]:
        adj = self.adjacency()
        return [list(np.nonzero(adj[i])[0]) for i in range(self.n_vertices)]

    @property
    def degree(self) -> int:
        walks = np.linalg.matrix_power(self.adjacency().astype(object), self.depth)
        row = walks.sum(axis=1)
        return int(row[self.target] if self.target is not None else row.sum())

    @property
    def homogeneous(self) -> bool:
        return True

    def init(self, rng, domain) -> dict:
        L, D = self.depth, self.width
        return {"W": domain.random(rng, (L, D, D)), "o": domain.random(rng, (D,))}

    def apply(self, params, X, domain):
        nb = self.neighbours()
        H = X
        for lvl in range(self.depth):
            Z = domain.einsum("bnc,dc->bnd", H, params["W"][lvl])
            rows = []
            for i in range(self.n_vertices):
                h = Z[:, nb[i][0]]
                for j in nb[i][1:]:
                    h = domain.mul(h, Z[:, j])
                rows.append(h)
            H = np.stack(rows, axis=1)
        if self.target is not None:
            out = H[:, self.target]
        else:
            out = H[:, 0]
            for i in range(1, self.n_vertices):
                out = domain.mul(out, H[:, i])
        return domain.einsum("bd,d->b", out, params["o"])

    def boundary(self, partition) -> list[int]:
        """C_I: vertices with a neighbour on the other side of the partition."""
        A = set(partition)
        return [i for i, nbs in enumerate(self.neighbours())
                if any((j in A) != (i in A) for j in nbs)]

    def walk_index(self, partition) -> int:
        """WI_{L-1}(I): (L-1)-step walks from the boundary C_I (self-loops added), ending
        anywhere (graph prediction) or at the target (vertex prediction)."""
        walks = np.linalg.matrix_power(self.adjacency().astype(object), self.depth - 1)
        C = self.boundary(partition)
        if self.target is not None:
            return int(sum(walks[c, self.target] for c in C))
        return int(sum(walks[c].sum() for c in C))

    def bound(self, partition) -> int:
        """width^(4 WI + 1) (recalled [M] from Razin-Verbin-Cohen 2023)."""
        return self.width ** (4 * self.walk_index(partition) + 1)

    def upper_bound(self, partition) -> Bound:
        """[M] width^(4 WI + 1), recalled (:meth:`bound`)."""
        wi = self.walk_index(partition)
        return tagged(self.bound(partition), f"Razin-Verbin-Cohen 2023: sep <= D_h^(4 WI + "
                      f"1) with walk index WI = {wi} [M]", "M",
                      "upper bound (every weight), recalled", walk_index=wi)


def path(n: int) -> str:
    return ",".join(f"{i}-{i + 1}" for i in range(n - 1))


def star(n: int) -> str:
    return ",".join(f"0-{i}" for i in range(1, n))


def cycle(n: int) -> str:
    return path(n) + f",{n - 1}-0"
