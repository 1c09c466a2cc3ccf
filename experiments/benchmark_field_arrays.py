"""Benchmark: what field arrays cost against the raw domain operations.

Run: ``python -m experiments.benchmark_field_arrays [--repeats K]``. For the worked example
(docs/worked_example.md: SumProduct, N = 6, width 2, K = 4) and each zoo architecture at
its test size, it evaluates the same grid (P x Q points over GF(p), the generic path, no
compiled kernel) twice and prints the best of K times:

- ``raw``: the architecture's ``apply`` on plain int64 residues with the domain operations
  as they were before field arrays (``LegacyModP`` below: ``np.einsum(...) % p``,
  ``(a + b) % p``, ``(a * b) % p``, no conversion of their operands), the baseline;
- ``field``: through :func:`seprank.engine.evaluate.evaluate`, i.e. the inputs and
  weights handed over as FieldArrays and the output checked, as every measurement does now;
- for the worked example also ``numpy``: the same function written in plain numpy
  operators (``X.sum(axis=1) @ W.T``, ``*``) on field arrays.

The target (issue 22): field / raw <= 1.5 and numpy / raw <= 1.5. The grids agree entry
for entry (checked). One Markdown table.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from experiments.script_args import Parser, int_at_least, pos_int
from seprank.algebra.domains import ModP
from seprank.algebra.field_array import einsum_modp
from seprank.engine.evaluate import evaluate
from seprank.nets import (
    GNN,
    MPS,
    RAC,
    ConvACDeep,
    ConvACShallow,
    EmbeddedAttention,
    LinearSelfAttention,
)
from seprank.nets.base import input_dim


class LegacyModP(ModP):
    """The ModP domain operations before field arrays (the baseline)."""

    def einsum(self, spec, a, b):
        return einsum_modp(spec, a, b, self.p)

    def add(self, a, b):
        return (a + b) % self.p

    def mul(self, a, b):
        return (a * b) % self.p


@dataclass(frozen=True)
class SumProduct:
    """The worked example, with the domain operations."""

    seq_len: int = 6
    width: int = 2
    factors: int = 4

    def init(self, rng, domain):
        return {"w": domain.random(rng, (self.factors, self.width))}

    def apply(self, params, X, domain):
        ones = domain.from_ints(np.ones(self.seq_len, dtype=np.int64))
        r = domain.einsum("bc,kc->bk", domain.einsum("bnc,n->bc", X, ones), params["w"])
        f = r[:, 0]
        for k in range(1, self.factors):
            f = domain.mul(f, r[:, k])
        return f


@dataclass(frozen=True)
class SumProductNumpy(SumProduct):
    """The worked example in plain numpy."""

    def apply(self, params, X, domain):
        r = X.sum(axis=1) @ params["w"].T
        return np.prod(r, axis=1)


def path(n):
    return tuple((i, i + 1) for i in range(n - 1))


NETS = {
    "worked example": SumProduct(),
    "attention L2 d2 N4": LinearSelfAttention(depth=2, width=2, seq_len=4),
    "attention L3 d2 N4": LinearSelfAttention(depth=3, width=2, seq_len=4),
    "embedded-attention": EmbeddedAttention(depth=1, width=2, seq_len=4, vocab=3, embed_rank=2),
    "convac-shallow": ConvACShallow(seq_len=4, in_dim=2, channels=3),
    "convac-deep": ConvACDeep(seq_len=4, in_dim=2, channels=(2, 3)),
    "mps": MPS(seq_len=4, phys_dim=2, bond=2),
    "rac": RAC(seq_len=4, in_dim=2, hidden=2, depth=2),
    "gnn": GNN(edges=path(4), depth=1, width=2),
}


def _inputs(net, dom, rng, batch):
    return rng.integers(0, dom.p, size=(batch, net.seq_len, input_dim(net)), dtype=np.int64)


def _best(fn, repeats):
    best, out = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def row(name, net, dom, X, repeats, alt=None):
    params = net.init(np.random.default_rng(0), dom)
    if getattr(net, "alphabet", None) is not None:  # token nets read one-hot alphabets
        al = np.asarray(net.alphabet(dom))
        X = al[np.random.default_rng(2).integers(0, len(al), X.shape[:2])]
    legacy = LegacyModP(dom.p)
    t_raw, raw = _best(lambda: np.asarray(net.apply(params, X, legacy)).reshape(-1), repeats)
    t_field, fld = _best(lambda: evaluate(net, params, X, dom), repeats)
    assert np.array_equal(raw, fld), name
    cells = [f"{t_raw * 1e3:.1f}", f"{t_field * 1e3:.1f}", f"{t_field / t_raw:.2f}"]
    if alt is not None:
        t_np, via = _best(lambda: evaluate(alt, params, X, dom), repeats)
        assert np.array_equal(raw, via), name
        cells += [f"{t_np * 1e3:.1f}", f"{t_np / t_raw:.2f}"]
    else:
        cells += ["", ""]
    return f"| {name} | {X.shape[0]} | " + " | ".join(cells) + " |"


def main(argv=None):
    ap = Parser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=pos_int, default=10)
    ap.add_argument("--batch", type=int_at_least(1, 1 << 24), default=1 << 14,
                    help="grid entries per call")
    args = ap.parse_args(argv)
    dom, rng = ModP(), np.random.default_rng(1)
    print("| architecture | entries | raw ms | field ms | field/raw | numpy ms | numpy/raw |")
    print("|---|---|---|---|---|---|---|")
    for name, net in NETS.items():
        X = _inputs(net, dom, rng, args.batch)
        alt = SumProductNumpy() if name == "worked example" else None
        print(row(name, net, dom, X, args.repeats, alt), flush=True)


if __name__ == "__main__":
    main()
