"""Certificates of grid measurements (strategies ``direct`` and ``graded``): per block, a
nonsingular minor of a sampled grid matrix over GF(p), and its check from the seed alone.

Why a nonsingular minor mod p certifies ``sep >= rank``: an r x r minor of the grid matrix
over GF(p) (its rows, columns and the seeds are in the certificate) is the reduction mod p
of an integer minor of the grid of the integer-weight network whose weights are those
residues, so that integer minor is nonzero, the grid has rank >= r over Q, and sep >= r
(a separation of rank R makes every grid matrix a sum of R rank-one matrices). With the
graded strategy each block is the grid of the A-degree component f_k (exact interpolation
in t of f(t a, b)), and for a homogeneous f, sep(f) = sum_k sep(f_k) (the graded
decomposition, proofs/); the network without residual is homogeneous of degree 3^L, so
the block lower bounds add up.

The check regenerates the points with numpy's generator (the ``points`` rule), evaluates
the network with its reference (numpy) code in GF(p), for graded blocks evaluates
f(t a_r, b_c) at the T + 1 points t = 0..T and interpolates exactly (so it does not trust
the measurement's degree detection), and computes each determinant with python-flint.
"""

from __future__ import annotations

import numpy as np

from seprank.algebra.domains import ModP
from seprank.engine.line_check import needs_check
from seprank.engine.row_check import SpotChecker
from seprank.engine.sample_grid import evaluate_grid, make_evaluator
from seprank.nets.base import input_dim
from seprank.nets.capabilities import homogeneous_by_theorem
from seprank.verdicts import certificate_fields as cf
from seprank.verdicts.check_result import CheckResult
from seprank.verdicts.kinds.base import CertificateKind

POINTS_RULE = (
    "rng = numpy.random.default_rng([seed, 1]); for each draw [tag, count, positions] in "
    "order: rng.integers(0, prime, size=(count, positions, width)); rows of the grid are "
    "the 'A' draws concatenated, columns the 'B' draws, 'probe' draws are discarded; a "
    "draw ['choice', m] is rng.choice(numpy.arange(1, prime), size=m, replace=False)")
BLOCK_FIELDS = ("degree", "rank", "rows", "cols")


def certifies(m) -> bool:
    """Only a random sample's grid minors are rebuilt from the seed."""
    return m.sampler == "random"


def write(net, m) -> dict:
    """The grid fields of a certificate of ``m``: the points rule, the draws and the blocks."""
    return {"points": POINTS_RULE, "draws": [list(d) for d in m.draws],
            "total_degree": getattr(m.detail, "total_degree", None),
            "blocks": [{"degree": b["degree"], "rank": int(b["rank"]), "rows": list(b["rows"]),
                        "cols": list(b["cols"])} for b in m.minors]}


def schema(cert: dict) -> None:
    """The blocks (degree, rank, rows, cols), and for graded blocks the interpolation's
    size and prime (T + 1 <= MAX_VANDERMONDE, p > T + 1)."""
    cf.blocks(cert["blocks"], BLOCK_FIELDS)
    if cert["strategy"] == "graded":
        _graded(cert, cert["prime"])


def _graded(cert: dict, p: int) -> None:
    depth = cert["config"].get("depth")
    T = cert["total_degree"]
    if T is None and cf.is_int(depth) and 0 <= depth <= 40:
        T = 3**depth
    if T is None:
        return
    if T + 1 > cf.MAX_VANDERMONDE:
        L = f" (depth {depth})" if cf.is_int(depth) else ""
        cf.fail("strategy", f"graded with T = {T}{L}: the check inverts a {T + 1} x {T + 1} "
                f"Vandermonde matrix over GF(p) (~{float(T + 1) ** 3:.1e} operations, "
                f"{(T + 1) ** 2 * 8 / 2**30:,.1f} GiB); at most side {cf.MAX_VANDERMONDE} "
                "(depth 7)")
    if p <= T + 1:
        cf.fail("prime", f"{p} is too small for a graded certificate of degree T = {T}: the "
                f"interpolation at t = 0..T needs p > T + 1 = {T + 1}")
    for i, b in enumerate(cert["blocks"]):
        if b["degree"] is not None and b["degree"] > T:
            cf.fail(f"blocks[{i}].degree", f"{b['degree']} exceeds T = {T}")


def _regenerate_points(cert, net, p):
    rng = np.random.default_rng([int(cert["seed"]), 1])
    dom = ModP(p)
    A, B = [], []
    for d in cert["draws"]:
        if d[0] == "choice":
            rng.choice(np.arange(1, p), size=int(d[1]), replace=False)
            continue
        tag, count, positions = d[0], int(d[1]), int(d[2])
        pts = dom.random(rng, (count, positions, input_dim(net)))
        if tag == "A":
            A.append(pts)
        elif tag == "B":
            B.append(pts)
        elif tag != "probe":
            raise ValueError(f"unknown draw tag {tag!r}")
    def cat(xs, side):
        return np.concatenate(xs) if xs else np.zeros((0, side, input_dim(net)), np.int64)

    return cat(A, 1), cat(B, 1)


def _grid(net, params, dom, a_pts, b_pts, A, B, kernel: bool, chunk=1 << 14):
    """F[i, j] = f(a_pts[i] on A, b_pts[j] on B) mod p: by the network's reference (numpy)
    code, or with ``kernel`` by the compiled kernel the measurement uses."""
    if kernel:
        return make_evaluator(net, params, dom, A, B)(a_pts, b_pts) % dom.p
    spot = SpotChecker(np.random.default_rng(8)) if needs_check(net) else None  # as measured
    return np.asarray(evaluate_grid(net, params, dom, a_pts, b_pts, A, B, chunk=chunk,
                                    spot=spot), dtype=np.int64) % dom.p


def _minors(net, params, dom, Ap, Bp, A, B, blocks, T, kernel=False):
    """Every block's minor, as a flat list of entries per block.

    Direct: f(a_r, b_c). Graded: f_k(a_r, b_c) = sum_t w_kt f(t a_r, b_c) over t = 0..T,
    w = the inverse of the Vandermonde matrix (t^e), e, t = 0..T, over GF(p) (python-flint):
    exact interpolation whatever degrees occur. The grid f(t a, b) is evaluated once per t
    on the union of the blocks' rows and columns and shared by the blocks.
    """
    import flint

    p = dom.p
    R = sorted({int(i) for b in blocks for i in b["rows"]})
    C = sorted({int(j) for b in blocks for j in b["cols"]})
    ri = {r: n for n, r in enumerate(R)}
    ci = {c: n for n, c in enumerate(C)}
    sub = [(np.array([ri[int(i)] for i in b["rows"]], dtype=np.int64),
            np.array([ci[int(j)] for j in b["cols"]], dtype=np.int64)) for b in blocks]
    a_pts, b_pts = Ap[R], Bp[C]
    if T is None:
        G = _grid(net, params, dom, a_pts, b_pts, A, B, kernel)
        return [G[np.ix_(r, c)].ravel().tolist() for r, c in sub]
    V = flint.nmod_mat(T + 1, T + 1, [pow(t, e, p) for t in range(T + 1)
                                      for e in range(T + 1)], p).inv()
    acc = [np.zeros((len(r), len(c)), dtype=np.int64) for r, c in sub]
    for t in range(T + 1):
        G = _grid(net, params, dom, (t * a_pts) % p, b_pts, A, B, kernel)
        for blk, (r, c), F in zip(blocks, sub, acc):
            w = int(V[int(blk["degree"]), t])
            if w:
                F += (w * G[np.ix_(r, c)]) % p  # < p**2 + p < 2**53: exact in int64
                F %= p
    return [F.ravel().tolist() for F in acc]


def _layout(cert, net, bad: list) -> int | None:
    """The blocks' degrees (graded: distinct, in 0..T = 3^L, f homogeneous by theorem;
    direct: one block of degree null); the degree T to interpolate (None: direct)."""
    blocks = cert["blocks"]
    if cert["strategy"] != "graded":
        if len(blocks) != 1 or blocks[0]["degree"] is not None:
            bad.append("a direct certificate has exactly one block, of degree null")
        return None
    if not homogeneous_by_theorem(net):
        bad.append(f"graded blocks need an f homogeneous by theorem; "
                   f"{cert['architecture']} {cert['config']} is not one")
    T = int(net.degree)
    if cert.get("total_degree") not in (None, T):
        bad.append(f"total_degree {cert['total_degree']} != 3^L = {T}")
    degs = [b["degree"] for b in blocks]
    if len(set(degs)) != len(degs) or not all(isinstance(k, int) and 0 <= k <= T
                                              for k in degs):
        bad.append(f"block degrees {degs} must be distinct integers in 0..{T}")
    return T


def _where(b) -> str:
    return "block" + ("" if b["degree"] is None else f" of degree {b['degree']}")


def _indices(blocks, n_a: int, n_b: int) -> list:
    """Why the blocks' minors do not fit their rank or the sample (empty: they do)."""
    bad = []
    for b in blocks:
        r, rows, cols = int(b["rank"]), list(b["rows"]), list(b["cols"])
        if len(rows) != r or len(cols) != r:
            bad.append(f"{_where(b)}: rank {r} but {len(rows)} rows and {len(cols)} columns")
        elif any(not isinstance(i, int) or not 0 <= i < n_a for i in rows) or any(
                not isinstance(j, int) or not 0 <= j < n_b for j in cols):
            bad.append(f"{_where(b)}: an index is outside the {n_a} x {n_b} sample")
    return bad


def check(cert: dict, ctx) -> CheckResult | None:
    """Rebuild every block's minor from the seed and check its determinant over GF(p)."""
    import flint

    net, p, bad = ctx.net, ctx.dom.p, list(ctx.bad)
    Ap, Bp = _regenerate_points(cert, net, p)
    T = _layout(cert, net, bad)
    if bad:
        return CheckResult(False, bad)
    bad = _indices(cert["blocks"], Ap.shape[0], Bp.shape[0])
    if bad:
        return CheckResult(False, bad)
    live = [b for b in cert["blocks"] if int(b["rank"]) > 0]
    for b, entries in zip(live, _minors(net, ctx.params, ctx.dom, Ap, Bp, ctx.A, ctx.B, live,
                                        T, ctx.kernel)):
        r, rows, cols = int(b["rank"]), b["rows"], b["cols"]
        det = int(flint.nmod_mat(r, r, [int(v) for v in entries], p).det())
        if det == 0:
            dup = " (rows or columns repeat an index)" if (
                len(set(rows)) < r or len(set(cols)) < r) else ""
            bad.append(f"{_where(b)}: the {r} x {r} minor is singular over GF({p}){dup}")
    return CheckResult(False, bad, rank=ctx.total) if bad else None


KIND = CertificateKind(name="grid minors", strategies=("direct", "graded"), schema=schema,
                       check=check, write=write, certifies=certifies,
                       grid=True)
