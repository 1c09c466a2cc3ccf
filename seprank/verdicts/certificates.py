"""Computer-assisted theorems: a certified lower bound, a proved upper bound, a certificate.

``certify(net, partition)`` measures the separation rank over GF(p) and compares the
result with the proved upper bound (:func:`seprank.theory.bounds.upper_bound`). Where they
meet, the separation rank is *exact, proved*: no probability is involved, because

- the measured rank is a lower bound that holds with certainty: a nonsingular r x r minor
  of the grid matrix over GF(p) (its rows, columns and the seeds are in the certificate)
  is the reduction mod p of an integer minor of the grid of the integer-weight network
  whose weights are those residues, so that integer minor is nonzero, the grid has rank
  >= r over Q, and sep >= r for that network (a separation of rank R makes every grid
  matrix a sum of R rank-one matrices). With the graded strategy each block is the grid
  of the A-degree component f_k (exact interpolation in t of f(t a, b)), and for a
  homogeneous f, sep(f) = sum_k sep(f_k) (the graded decomposition, proofs/); the
  network without residual is homogeneous of degree 3^L (each layer is a homogeneous
  cubic map), so the block lower bounds add up;
- the upper bound is a theorem for every weight.

So the maximum of sep over the weights equals the rank, and the integer network of the
certificate attains it; the set of real weights where sep >= r is Zariski-open and not
empty, so generic real weights attain it too.

A certificate (JSON, :func:`make_certificate`) holds the architecture, config, partition,
prime, seed, the sampling schedule (``draws``), the claimed ``rank`` and, per block, its
``rank`` and the ``rows`` and ``cols`` of a nonsingular minor. :func:`check_certificate`
re-derives each minor from the seed alone: it regenerates the weights and points with
numpy's generator, evaluates the network with its reference (numpy) code in GF(p), for
graded blocks evaluates f(t a_r, b_c) at the T + 1 points t = 0..T and interpolates
exactly (so it does not trust the measurement's degree detection), and computes each
determinant with python-flint (not the BLAS engine that measured it).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from seprank import nets
from seprank._version import __version__
from seprank.algebra.domains import ModP
from seprank.engine.measure import measure
from seprank.engine.sample_grid import evaluate_grid, make_evaluator
from seprank.engine.saturation import DEFAULT_THRESHOLD
from seprank.errors import ConfigError, SeprankError
from seprank.nets.attention import LinearSelfAttention
from seprank.nets.partitions import check_partition
from seprank.theory.bounds import upper_bound
from seprank.verdicts import certificate_schema

FORMAT = "seprank-certificate/1"

POINTS_RULE = (
    "rng = numpy.random.default_rng([seed, 1]); for each draw [tag, count, positions] in "
    "order: rng.integers(0, prime, size=(count, positions, width)); rows of the grid are "
    "the 'A' draws concatenated, columns the 'B' draws, 'probe' draws are discarded; a "
    "draw ['choice', m] is rng.choice(numpy.arange(1, prime), size=m, replace=False)")
WEIGHTS_RULE = "net.init(numpy.random.default_rng(seed), ModP(prime)) (integers in [0, p))"


def _homogeneous_by_theorem(net) -> bool:
    """Architectures whose homogeneity (degree 3^L) is a theorem, not a measurement."""
    return type(net) is LinearSelfAttention and not net.residual


def _net_from(name: str, config: dict):
    cls = getattr(nets, name, None)
    if cls is None or not isinstance(cls, type):
        raise ConfigError(f"architecture={name!r} is not one seprank knows")
    kw = {k: v for k, v in config.items() if k != "architecture"}
    return cls(**kw)


def _weights_digest(params: dict) -> str:
    h = hashlib.sha256()
    for k in sorted(params):
        a = np.ascontiguousarray(np.asarray(params[k], dtype=np.int64))
        h.update(k.encode())
        h.update(repr(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


@dataclass
class Certification:
    """Outcome of :func:`certify`: the measurement, both bounds and the verdict."""

    measurement: object
    lower: int
    upper: int | None
    upper_why: str
    exact: bool
    status: str
    ground: str
    certificate: dict | None = field(default=None, repr=False)
    path: str | None = None

    @property
    def gap(self) -> int | None:
        return None if self.upper is None else self.upper - self.lower

    def to_dict(self) -> dict:
        m = self.measurement
        return {
            "status": self.status, "exact": self.exact, "rank": self.lower,
            "lower": self.lower, "upper": self.upper, "gap": self.gap,
            "upper_why": self.upper_why, "ground": self.ground, "certificate": self.path,
            "saturated": m.saturated, "saturation_bound": m.saturation_bound,
            "saturation_reason": m.saturation_reason, "prime": m.prime, "seed": m.seed,
            "strategy": m.strategy, "config": m.config, "partition": list(m.partition),
            "seconds": m.seconds,
        }  # fmt: skip

    def write(self, folder) -> Path:
        """Write the certificate into ``folder`` (created); return its path."""
        if self.certificate is None:
            raise ConfigError("certify: no certificate (no nonsingular minor was recorded)")
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / certificate_name(self.certificate)
        path.write_text(dumps(self.certificate))
        self.path = str(path)
        return path


def dumps(cert: dict) -> str:
    """The certificate as JSON, one top-level key per line (index lists stay on one line)."""
    return "{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in cert.items()) \
        + "\n}\n"  # fmt: skip


def certificate_name(cert: dict) -> str:
    c = cert["config"]
    res = "_res" if c.get("residual") else ""
    A = "-".join(str(a) for a in cert["partition"])
    return (f"{cert['architecture']}_L{c['depth']}_d{c['width']}_H{c['heads']}_N{c['seq_len']}"
            f"{res}_A{A}_seed{cert['seed']}_p{cert['prime']}.json")  # fmt: skip


def make_certificate(net, m, upper: int | None = None) -> dict | None:
    """The certificate of a modular, random-sampler Measurement (None without minors)."""
    if m.minors is None or m.method != "modular" or m.sampler != "random":
        return None
    params = net.init(np.random.default_rng(m.seed), ModP(m.prime))
    cert = {
        "format": FORMAT,
        "architecture": type(net).__name__,
        "config": {k: v for k, v in m.config.items() if k != "architecture"},
        "partition": list(m.partition),
        "prime": int(m.prime),
        "seed": int(m.seed),
        "weights": WEIGHTS_RULE,
        "weights_sha256": _weights_digest(params),
        "points": POINTS_RULE,
        "draws": [list(d) for d in m.draws],
        "strategy": m.strategy,
        "total_degree": (m.graded or {}).get("total_degree"),
        "rank": int(m.rank),
        "blocks": [{"degree": b["degree"], "rank": int(b["rank"]), "rows": list(b["rows"]),
                    "cols": list(b["cols"])} for b in m.minors],  # fmt: skip
        "upper_bound": upper,
        "exact": upper is not None and int(m.rank) == int(upper),
        "claim": (
            "sep(f; A, B) >= rank for the integer-weight network regenerated from the seed, "
            "hence for the architecture maximised over weights (and at generic weights)"
            + ("; rank equals the proved upper bound, so the separation rank is exactly rank"
               if upper is not None and int(m.rank) == int(upper) else "")),
        "created_by": f"seprank {__version__}",
        "numpy": np.__version__,
    }  # fmt: skip
    return cert


def certify(net, partition=None, *, seed: int = 0, prime: int | None = None,
            max_samples: int | None = None, progress=None,
            saturation_threshold: float | None = None) -> Certification:  # fmt: skip
    """Measure, compare with the proved upper bound, and build a certificate.

    ``status`` is ``"exact, proved"`` when the certified lower bound meets the proved
    upper bound (no probability involved); otherwise ``"lower bound"`` with the gap, and
    ``ground`` repeats the probability ground of the saturation label, if any.
    """
    try:
        ub = upper_bound(net, partition)
        upper, why = ub["upper"], ub["why"]
    except ConfigError as exc:
        upper, why = None, str(exc)
    strategy = "auto" if _homogeneous_by_theorem(net) else "direct"
    m = measure(net, partition, seed=seed, prime=prime, max_samples=max_samples,
                strategy=strategy, progress=progress,
                saturation_threshold=DEFAULT_THRESHOLD if saturation_threshold is None
                else saturation_threshold)  # fmt: skip
    cert = make_certificate(net, m, upper)
    exact = upper is not None and m.rank == upper and cert is not None
    if exact:
        status = "exact, proved"
        ground = (f"certified lower bound {m.rank} (nonsingular minors over GF({m.prime}), "
                  f"{len(m.minors)} block(s)) meets the proved upper bound {upper}: a theorem, "
                  "no probability involved")  # fmt: skip
    else:
        status = "lower bound"
        gap = "" if upper is None else f", gap {upper - m.rank} to the proved upper bound"
        ground = (f"certified lower bound {m.rank}{gap}"
                  + ("" if upper is not None else f" (no proved upper bound: {why})")
                  + f"; saturation: {m.saturation_reason}")
    return Certification(measurement=m, lower=int(m.rank), upper=upper, upper_why=why,
                         exact=exact, status=status, ground=ground, certificate=cert)


# --------------------------------------------------------------------------------------
# Checking a certificate: python-flint determinants, the network's reference code.


@dataclass
class CheckResult:
    ok: bool
    reasons: list = field(default_factory=list)
    exact: bool = False
    rank: int | None = None

    def __bool__(self) -> bool:
        return self.ok


def _regenerate_points(cert, net, p):
    rng = np.random.default_rng([int(cert["seed"]), 1])
    dom = ModP(p)
    A, B = [], []
    for d in cert["draws"]:
        if d[0] == "choice":
            rng.choice(np.arange(1, p), size=int(d[1]), replace=False)
            continue
        tag, count, positions = d[0], int(d[1]), int(d[2])
        pts = dom.random(rng, (count, positions, net.width))
        if tag == "A":
            A.append(pts)
        elif tag == "B":
            B.append(pts)
        elif tag != "probe":
            raise ValueError(f"unknown draw tag {tag!r}")
    def cat(xs, side):
        return np.concatenate(xs) if xs else np.zeros((0, side, net.width), np.int64)

    return cat(A, 1), cat(B, 1)


def _grid(net, params, dom, a_pts, b_pts, A, B, kernel: bool, chunk=1 << 14):
    """F[i, j] = f(a_pts[i] on A, b_pts[j] on B) mod p: by the network's reference (numpy)
    code, or with ``kernel`` by the compiled kernel the measurement uses."""
    if kernel:
        return make_evaluator(net, params, dom, A, B)(a_pts, b_pts) % dom.p
    return np.asarray(evaluate_grid(net, params, dom, a_pts, b_pts, A, B, chunk=chunk),
                      dtype=np.int64) % dom.p  # fmt: skip


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
                                      for e in range(T + 1)], p).inv()  # fmt: skip
    acc = [np.zeros((len(r), len(c)), dtype=np.int64) for r, c in sub]
    for t in range(T + 1):
        G = _grid(net, params, dom, (t * a_pts) % p, b_pts, A, B, kernel)
        for blk, (r, c), F in zip(blocks, sub, acc):
            w = int(V[int(blk["degree"]), t])
            if w:
                F += (w * G[np.ix_(r, c)]) % p  # < p**2 + p < 2**53: exact in int64
                F %= p
    return [F.ravel().tolist() for F in acc]


def check_certificate(cert, *, recheck_upper: bool = True, kernel: bool = False) -> CheckResult:
    """Check a certificate (a dict, or the path of its JSON file) without trusting seprank's
    measurement: regenerate weights and points from the seed, rebuild every claimed minor
    and check its determinant over GF(p) with python-flint. ``ok`` is False, with the
    reasons, on any failure (a malformed file included). ``kernel=True`` evaluates the
    network with the compiled kernel of the measurement instead of its reference code
    (faster for deep networks; the determinants are python-flint's either way)."""
    try:
        return _check(cert, recheck_upper, kernel)
    except (KeyError, TypeError, ValueError, IndexError, json.JSONDecodeError, OSError,
            SeprankError) as exc:  # fmt: skip
        return CheckResult(False, [f"malformed or unreadable certificate: "
                                   f"{type(exc).__name__}: {exc}"])  # fmt: skip


def _check(cert, recheck_upper: bool, kernel: bool = False) -> CheckResult:
    import flint

    if not isinstance(cert, dict):
        cert = json.loads(Path(cert).read_text())
    certificate_schema.validate(cert)
    bad: list[str] = []
    if cert.get("format") != FORMAT:
        return CheckResult(False, [f"format {cert.get('format')!r} is not {FORMAT!r}"])
    net = _net_from(cert["architecture"], cert["config"])
    p = int(cert["prime"])
    dom = ModP(p)
    A, B = check_partition(cert["partition"], net.seq_len)
    params = net.init(np.random.default_rng(int(cert["seed"])), dom)
    if "weights_sha256" in cert and _weights_digest(params) != cert["weights_sha256"]:
        bad.append("the seed regenerates other weights than when the certificate was made "
                   "(a different numpy random generator?)")
    Ap, Bp = _regenerate_points(cert, net, p)
    blocks = cert["blocks"]
    total = sum(int(b["rank"]) for b in blocks)
    if int(cert["rank"]) != total:
        bad.append(f"claimed rank {cert['rank']} != sum of the block ranks {total}")
    graded = cert.get("strategy") == "graded"
    T = None
    if graded:
        if not _homogeneous_by_theorem(net):
            bad.append(f"graded blocks need an f homogeneous by theorem; "
                       f"{cert['architecture']} {cert['config']} is not one")
        T = int(net.degree)
        if cert.get("total_degree") not in (None, T):
            bad.append(f"total_degree {cert['total_degree']} != 3^L = {T}")
        degs = [b["degree"] for b in blocks]
        if len(set(degs)) != len(degs) or not all(isinstance(k, int) and 0 <= k <= T
                                                  for k in degs):  # fmt: skip
            bad.append(f"block degrees {degs} must be distinct integers in 0..{T}")
    elif len(blocks) != 1 or blocks[0]["degree"] is not None:
        bad.append("a direct certificate has exactly one block, of degree null")
    if bad:
        return CheckResult(False, bad)
    for b in blocks:
        r, rows, cols, k = int(b["rank"]), list(b["rows"]), list(b["cols"]), b["degree"]
        where = "block" + ("" if k is None else f" of degree {k}")
        if len(rows) != r or len(cols) != r:
            bad.append(f"{where}: rank {r} but {len(rows)} rows and {len(cols)} columns")
        elif any(not isinstance(i, int) or not 0 <= i < Ap.shape[0] for i in rows) or any(
                not isinstance(j, int) or not 0 <= j < Bp.shape[0] for j in cols):
            bad.append(f"{where}: an index is outside the {Ap.shape[0]} x {Bp.shape[0]} "
                       f"sample")  # fmt: skip
    if bad:
        return CheckResult(False, bad)
    live = [b for b in blocks if int(b["rank"]) > 0]
    for b, entries in zip(live, _minors(net, params, dom, Ap, Bp, A, B, live, T, kernel)):
        r, rows, cols, k = int(b["rank"]), b["rows"], b["cols"], b["degree"]
        where = "block" + ("" if k is None else f" of degree {k}")
        det = int(flint.nmod_mat(r, r, [int(v) for v in entries], p).det())
        if det == 0:
            dup = " (rows or columns repeat an index)" if (
                len(set(rows)) < r or len(set(cols)) < r) else ""  # fmt: skip
            bad.append(f"{where}: the {r} x {r} minor is singular over GF({p}){dup}")
    exact = False
    if not bad and cert.get("exact"):
        if recheck_upper:
            up = upper_bound(net, A)["upper"]
            if up != total:
                bad.append(f"claims exact, but the proved upper bound is {up}, not {total}")
            exact = up == total
        else:
            exact = cert.get("upper_bound") == total
    return CheckResult(not bad, bad, exact=exact and not bad, rank=total)
