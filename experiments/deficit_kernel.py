"""The left kernel of a catalecticant block: the differential operators that annihilate F.

Run: ``python -m experiments.deficit_kernel [--depth 3 --width 4 --seq-len 8] [--degree 13]
[--seeds 0 1] [--prime P] [--out FILE.json]``.

Block k of the catalecticant matrix is H[gamma, (delta, c)] = d^(gamma + delta) F_c (a
constant: |gamma| + |delta| = D), gamma of degree k in the entries of S on the side without
the query, delta of degree D - k on the query's side. A vector v in its left kernel is an
operator v(d) = sum_gamma v_gamma d^gamma of order k with v(d) F_c = 0 for every c. For
each seed (random integer weights, reduced mod p) this script builds F (the catalecticant
strategy's route), eliminates a random subset of the block's columns, takes the left
kernel K of that subset (:mod:`seprank.algebra.left_kernel`), keeps the part of K that
also kills the remaining columns (exact: rank [H1 | X] = rank H1 + rank(K X)), and checks
K H = 0 on the whole block. It prints the kernel's dimension, the support of its basis in
reduced echelon form (how many gammas each operator involves, and the pivot gammas as
monomials in s_ab), and whether the span is the same for every seed (the rank of the
stacked kernels: equal to one kernel's dimension if and only if the spans agree).
Everything printed is measured over GF(p) at those weights. Each seed's rank is the exact
rank over GF(p) of the whole block at those integer weights, so a certified lower bound of
its rank over Q: its ``label`` (in the JSON and the printed line) is ``lower bound, not
saturated`` in the words of :mod:`seprank.labels` (no saturation is claimed, and it is not
compared with a bound here).
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

from experiments.script_args import (
    Parser,
    guarded,
    int_at_least,
    nonneg_int,
    out_file,
    pos_int,
    prime_arg,
)
from seprank import labels
from seprank.algebra import blas_elimination
from seprank.algebra.domains import ModP
from seprank.algebra.left_kernel import left_kernel, matmul_mod_long
from seprank.engine import structural_poly as sp
from seprank.errors import ConfigError, OutputError
from seprank.nets import LinearSelfAttention
from seprank.paths import write_text
from seprank.theory import bounds


def check_degree(net, degree: int) -> None:
    """Refuse (ConfigError) an A-degree that has no block: the A-degrees are odd, 1..2D+1."""
    D = bounds.matrix_degree(net.depth)
    if degree % 2 == 0 or not 1 <= degree <= 2 * D + 1:
        raise ConfigError(f"--degree: the blocks' A-degrees are odd, 1..{2 * D + 1} "
                          f"(got {degree})")


def block_keys(net, degree: int):
    """(rows, cols, radix, k) of the block of A-degree ``degree`` (query on side A)."""
    check_degree(net, degree)
    d, D = net.width, bounds.matrix_degree(net.depth)
    m, radix = d * (d + 1) // 2, D + 1
    k = D - (degree - 1) // 2  # S-degree on the side without the query
    return sp.degree_keys(k, m, radix), sp.degree_keys(D - k, m, radix), radix, k


def kernel_for_seed(net, seed: int, p: int, degree: int, say) -> dict:
    """The left kernel of one block at the weights of ``seed``, checked on the whole block."""
    t0 = time.perf_counter()
    params = net.init(np.random.default_rng(seed), ModP(p))
    _, F = sp.build_F(net, params, p)
    rows, cols, radix, k = block_keys(net, degree)
    m, D = net.width * (net.width + 1) // 2, bounds.matrix_degree(net.depth)
    keys, values = sp.coefficient_table(F, m, D, p, radix)
    d = values.shape[1]
    rng = np.random.default_rng([seed, 3])
    order = rng.permutation(cols)
    first = order[: -(-(rows.size + 16) // d)]
    H1 = sp.catalecticant(keys, values, rows, first)
    factors: dict = {}
    rank1 = len(blas_elimination.pivots(H1, p, factors=factors)[0])
    K = left_kernel(H1, factors, p)
    del H1
    say(f"seed {seed}: block {rows.size} x {cols.size * d}, subset rank {rank1}, "
        f"left kernel of the subset {K.shape[0]} ({time.perf_counter() - t0:.1f}s)")
    rest = order[first.size:]
    if K.shape[0] and rest.size:
        Z = np.hstack([matmul_mod_long(K, sp.catalecticant(keys, values, rows, rest[s:s + 4096]), p)
                       for s in range(0, rest.size, 4096)])
        if Z.any():  # keep the combinations of K that kill the other columns too
            Zc = Z.copy()
            f2: dict = {}
            blas_elimination.pivots(Zc, p, factors=f2)
            K = matmul_mod_long(left_kernel(Zc, f2, p), K, p)
    whole = np.hstack([
        matmul_mod_long(K, sp.catalecticant(keys, values, rows, cols[s:s + 4096]), p)
        for s in range(0, cols.size, 4096)]) if K.shape[0] else np.zeros((0, 1))
    assert not whole.any(), "K H != 0 on the whole block"
    return {"seed": seed, "K": K, "rows": rows, "radix": radix, "k": k,
            "block": [int(rows.size), int(cols.size * d)], "rank": int(rows.size - K.shape[0]),
            "seconds": time.perf_counter() - t0}


def rref(K: np.ndarray, p: int) -> tuple[np.ndarray, list[int]]:
    """Reduced row echelon form of K mod p (python-flint) and its pivot columns."""
    import flint

    if K.shape[0] == 0:
        return K, []
    M = flint.nmod_mat(K.shape[0], K.shape[1], [int(x) for x in K.ravel()], p)
    R, r = M.rref()
    E = np.array([[int(R[i, j]) for j in range(K.shape[1])] for i in range(r)], dtype=np.int64)
    piv = [int(np.flatnonzero(E[i])[0]) for i in range(r)]
    return E, piv


def monomial(key: int, radix: int, pairs) -> str:
    """The monomial of S-exponent ``key`` as text, e.g. s00^2 s13."""
    out = []
    for a, b in pairs:
        key, e = divmod(key, radix)
        if e:
            out.append(f"s{a}{b}" + (f"^{e}" if e > 1 else ""))
    return " ".join(out) or "1"


def main(argv=None) -> None:
    ap = Parser(description=__doc__.splitlines()[0])
    # beyond these the blocks (C(m + k - 1, k) rows, m = d(d+1)/2, k up to 3^L) cannot fit
    ap.add_argument("--depth", type=int_at_least(1, 5), default=3)
    ap.add_argument("--width", type=int_at_least(1, 16), default=4)
    ap.add_argument("--seq-len", type=int_at_least(2, 256), default=8)
    ap.add_argument("--degree", type=pos_int, default=13, help="the block's A-degree (odd)")
    ap.add_argument("--seeds", type=nonneg_int, nargs="+", default=[0, 1])
    ap.add_argument("--prime", type=prime_arg, default=8388593)
    ap.add_argument("--out", help="write the kernels (reduced echelon form) as JSON")
    args = ap.parse_args(argv)
    net = guarded(ap, lambda: LinearSelfAttention(depth=args.depth, width=args.width,
                                                  seq_len=args.seq_len))
    guarded(ap, lambda: check_degree(net, args.degree))  # before --out is made
    out_file(ap, args.out)
    guarded(ap, lambda: _report(args, net))  # e.g. a prime too small, a block too large


def _report(args, net) -> None:
    """Compute and print the kernels of ``args`` (and write them to ``--out``)."""

    def say(msg):
        print(msg, file=sys.stderr, flush=True)

    p = args.prime
    runs = [kernel_for_seed(net, s, p, args.degree, say) for s in args.seeds]
    pairs = sp.variable_pairs(net.width)
    report = {"config": [args.depth, args.width, 1, args.seq_len], "degree": args.degree,
              "prime": p, "seeds": []}
    for run in runs:
        E, piv = rref(run["K"], p)
        run["E"] = E
        supports = [int(np.count_nonzero(row)) for row in E]
        label = labels.rank_label(run["rank"], False)  # a certified lower bound only
        print(f"seed {run['seed']}: block {run['block'][0]} x {run['block'][1]}, rank "
              f"{run['rank']} [{label}], left kernel dimension {E.shape[0]}; support sizes "
              f"{supports} of {run['rows'].size} gammas (S-degree {run['k']})")
        for i, j in enumerate(piv):
            gamma = monomial(int(run["rows"][j]), run["radix"], pairs)
            print(f"  operator {i}: pivot gamma = {gamma}")
        report["seeds"].append({"seed": run["seed"], "rank": run["rank"], "label": label,
                                "block": run["block"],
                                "kernel_dimension": int(E.shape[0]), "supports": supports,
                                "pivots": [monomial(int(run["rows"][j]), run["radix"], pairs)
                                           for j in piv], "seconds": run["seconds"]})
    dims = {int(r["E"].shape[0]) for r in runs}
    if len(runs) > 1 and len(dims) == 1:
        stacked = np.vstack([r["E"] for r in runs])
        together = len(rref(stacked, p)[1])
        same = together == dims.pop()
        print(f"span of the kernels over seeds {args.seeds}: rank of the stack {together}: "
              + ("the same subspace for every seed (weight-independent at these seeds)" if same
                 else "different subspaces (the operators depend on the weights)"))
        report["stacked_rank"], report["same_span"] = together, same
    if args.out:
        for r, s in zip(runs, report["seeds"]):
            s["kernel_rref"] = r["E"].tolist()
        try:
            write_text(args.out, json.dumps(report))  # a temporary file, then a rename
        except OutputError as exc:  # what was printed above is the result; only the file failed
            raise ConfigError(f"--out: {exc}") from None


if __name__ == "__main__":
    main()
