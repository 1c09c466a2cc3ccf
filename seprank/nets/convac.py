"""Convolutional arithmetic circuits (Cohen, Sharir, Shashua 2016): shallow (CP) and deep (HT).

Linear representation: the input x^n (in_dim = M) of position n enters through 1x1
convolutions (unshared weights per position), pooling is a product.

- ``ConvACShallow`` (CP form, Z channels):
  f(X) = sum_{z<Z} a_z prod_n <w^{n,z}, x^n>.
- ``ConvACDeep`` (hierarchical Tucker, size-2 product pooling, N = 2^L, channels
  r_0..r_{L-1}): v^0[n, c] = <a^{0,n,c}, x^n>; at level l = 1..L-1,
  v^l[j, g] = sum_c a^{l,j}[g, c] v^{l-1}[2j, c] v^{l-1}[2j+1, c]; and
  f = sum_c a^L[c] v^{L-1}[0, c] v^{L-1}[1, c].

Both are multilinear in the x^n: homogeneous of degree N.

Known results (tags: [V2] in a secondary source, lecture notes; [D] derived here; [M]
recalled, not seen in the primary text):

- shallow [V2]: sep <= Z for every partition; [D] for generic weights
  sep = min(Z, M^|A|, M^|B|).
- deep [V2]: halving partition (left/right): sep <= r_{L-1} for all weights; interleaved
  (odd/even) partition: sep = M^{N/2} almost everywhere when r_0 >= M;
  [M] Cohen-Sharir-Shashua 2016 Thm 1: >= min(r_0, M)^{N/2} almost everywhere.
  [D] every partition: sep <= the min-cut of the HT tree (pooling = a hyperedge of the
  channel dimension), computed by :func:`seprank.nets.tensor_network.min_cut`.

>>> ConvACShallow(seq_len=4, in_dim=3, channels=5).bound((0,))
3
"""

from __future__ import annotations

from dataclasses import dataclass, field

from seprank.errors import ConfigError
from seprank.nets.base import Multilinear, check_int
from seprank.nets.bound import Bound, tagged
from seprank.nets.sizes import plain_numbers
from seprank.nets.tensor_network import min_cut


@dataclass(frozen=True)
class ConvACShallow(Multilinear):
    """Shallow convolutional arithmetic circuit (CP decomposition, linear representation).

    Parameters
    ----------
    seq_len : int
        Positions N >= 2.
    in_dim : int
        Input dimension M per position.
    channels : int
        Hidden channels Z (the CP rank).
    """

    seq_len: int = field(metadata={"help": "positions N >= 2"})
    in_dim: int = field(metadata={"help": "input dimension M per position"})
    channels: int = field(metadata={"help": "hidden channels Z (the CP rank)"})

    def __post_init__(self):
        plain_numbers(self)  # np.int64(2) is the size 2
        check_int("seq_len", self.seq_len, 2)
        check_int("in_dim", self.in_dim, 1)
        check_int("channels", self.channels, 1)

    @property
    def width(self) -> int:
        return self.in_dim

    def init(self, rng, domain) -> dict:
        """W (N, Z, M): 1x1 conv weights per position; a (Z,): output weights."""
        N, Z, M = self.seq_len, self.channels, self.in_dim
        return {"W": domain.random(rng, (N, Z, M)), "a": domain.random(rng, (Z,))}

    def apply(self, params, X, domain):
        W = params["W"]
        P = domain.einsum("bm,zm->bz", X[:, 0], W[0])
        for n in range(1, self.seq_len):
            P = domain.mul(P, domain.einsum("bm,zm->bz", X[:, n], W[n]))
        return domain.einsum("bz,z->b", P, params["a"])

    def bound(self, partition) -> int:
        """min(Z, M^|A|, M^|B|): an upper bound for all weights, the rank for generic ones."""
        a = len(set(partition))
        return min(self.channels, self.in_dim**a, self.in_dim ** (self.seq_len - a))

    def upper_bound(self, partition) -> Bound:
        """[V2] min(Z, M^|A|, M^|B|) (:meth:`bound`), recalled."""
        return tagged(self.bound(partition), "shallow ConvAC (CP form): sep <= Z for every "
                      "partition [V2, Cohen-Sharir-Shashua via lecture notes]; min(Z, M^|A|, "
                      "M^|B|) for generic weights [D]", "V2",
                      "upper bound (every weight); equality for generic weights [D]")


@dataclass(frozen=True)
class ConvACDeep(Multilinear):
    """Deep convolutional arithmetic circuit (hierarchical Tucker, size-2 product pooling).

    Parameters
    ----------
    seq_len : int
        Positions N, a power of 2 >= 2.
    in_dim : int
        Input dimension M per position.
    channels : tuple of int
        Channels per level r_0,...,r_{L-1} (L = log2 N entries).
    """

    seq_len: int = field(metadata={"help": "positions N, a power of 2 >= 2"})
    in_dim: int = field(metadata={"help": "input dimension M per position"})
    channels: tuple[int, ...] = field(
        metadata={"help": "channels per level r_0,...,r_{L-1} (L = log2 N entries)"})

    def __post_init__(self):
        plain_numbers(self)  # np.int64(2) is the size 2
        check_int("seq_len", self.seq_len, 2)
        check_int("in_dim", self.in_dim, 1)
        if self.seq_len & (self.seq_len - 1):
            raise ConfigError(f"seq_len={self.seq_len} must be a power of 2")
        ch = self.channels
        if isinstance(ch, int):
            ch = (ch,)
        try:
            ch = tuple(ch)
        except TypeError:
            raise ConfigError(f"channels={ch!r} must be a list of integers") from None
        object.__setattr__(self, "channels", ch)
        for i, r in enumerate(ch):
            check_int(f"channels[{i}]", r, 1)
        if len(ch) != self.levels:
            raise ConfigError(f"channels={','.join(map(str, ch))} must have log2(seq_len)="
                              f"{self.levels} entries, one per level")

    @property
    def levels(self) -> int:
        return self.seq_len.bit_length() - 1

    @property
    def width(self) -> int:
        return self.in_dim

    def init(self, rng, domain) -> dict:
        """a0 (N, r_0, M); a{l} (N / 2^l, r_l, r_{l-1}) for l = 1..L-1; out (r_{L-1},)."""
        N, M, r = self.seq_len, self.in_dim, self.channels
        params = {"a0": domain.random(rng, (N, r[0], M))}
        for lvl in range(1, self.levels):
            params[f"a{lvl}"] = domain.random(rng, (N >> lvl, r[lvl], r[lvl - 1]))
        params["out"] = domain.random(rng, (r[-1],))
        return params

    def apply(self, params, X, domain):
        v = domain.einsum("bnm,ncm->bnc", X, params["a0"])
        for lvl in range(1, self.levels):
            pooled = domain.mul(v[:, 0::2], v[:, 1::2])
            v = domain.einsum("bjc,jgc->bjg", pooled, params[f"a{lvl}"])
        return domain.einsum("bc,c->b", domain.mul(v[:, 0], v[:, 1]), params["out"])

    def network(self):
        """(n_nodes, hyperedges, legs) of the HT tree: one node per convolution; each
        product pooling is a hyperedge (a copy tensor) of the pooled channel dimension."""
        N, r = self.seq_len, self.channels
        legs = [(n, n, self.in_dim) for n in range(N)]  # level-0 conv nodes 0..N-1
        edges, below, nxt = [], list(range(N)), N
        for lvl in range(1, self.levels):
            here = list(range(nxt, nxt + len(below) // 2))
            nxt += len(here)
            for j, node in enumerate(here):
                edges.append(((below[2 * j], below[2 * j + 1], node), r[lvl - 1]))
            below = here
        edges.append(((below[0], below[1]), r[-1]))  # top pooling (output node dropped)
        return nxt, edges, legs

    def min_cut(self, partition) -> int:
        return min_cut(*self.network(), partition)

    def upper_bound(self, partition) -> Bound:
        """[D] the HT tree's min-cut (or the trivial bound), [V2] r_{L-1} on a halving
        partition; an interleaved one also gets the recalled lower bound [M]."""
        A = tuple(sorted(set(partition)))
        B = tuple(n for n in range(self.seq_len) if n not in A)
        halves = {tuple(range(self.seq_len // 2)), tuple(range(self.seq_len // 2,
                                                               self.seq_len))}
        try:
            upper, kind = self.min_cut(A), "min-cut of the HT tree (every weight)"
            source = "deep ConvAC: tensor-network min-cut of the hierarchical Tucker tree [D]"
        except ConfigError:  # too many tensors to enumerate: the trivial bound
            upper, kind = self.in_dim ** min(len(A), len(B)), "trivial (every weight)"
            source = "M^min(|A|,|B|) [D] (the HT min-cut is enumerated only up to seq_len 8)"
        facts = {}
        if A in halves or B in halves:
            facts["halving_bound"] = self.channels[-1]
            upper = min(upper, self.channels[-1])
            source += ("; halving partition: sep <= r_{L-1} = "
                       f"{self.channels[-1]} for all weights [V2]")
        if A == tuple(range(0, self.seq_len, 2)) or B == tuple(range(0, self.seq_len, 2)):
            facts["lower"] = lower = min(self.channels[0], self.in_dim) ** (self.seq_len // 2)
            source += (f"; interleaved: >= min(r_0, M)^(N/2) = {lower} almost "
                       "everywhere (Cohen-Sharir-Shashua 2016 Thm 1) [M]")
        return tagged(upper, source, "D", kind, **facts)
