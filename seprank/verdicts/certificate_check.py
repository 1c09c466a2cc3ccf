"""Checking a certificate without trusting the measurement: the weights and points
regenerated from the seed, the network's reference (numpy) code, python-flint
determinants, and the architecture's own bound recomputed."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from seprank.algebra.domains import ModP
from seprank.engine.line_check import needs_check
from seprank.engine.row_check import check_rows
from seprank.engine.sample_grid import evaluate_grid, make_evaluator
from seprank.errors import ConfigError, SeprankError
from seprank.labels import ARCHITECTURE, bound_status
from seprank.nets.base import input_dim
from seprank.nets.partitions import check_partition
from seprank.theory.architecture_bounds import RECALLED_TAGS, architecture_bound, exact_label
from seprank.verdicts import catalecticant_certificate, certificate_schema
from seprank.verdicts.certificate_format import (
    FORMAT,
    architecture_for,
    claim_text,
    homogeneous_by_theorem,
    net_from,
    weights_digest,
)


@dataclass
class CheckResult:
    """Outcome of :func:`check_certificate`; true when the certificate checks out.

    Parameters
    ----------
    ok : bool
        Whether every check passed.
    reasons : list, default []
        Why a check failed (one line each).
    exact : bool, default False
        Whether the certified rank meets the upper bound.
    rank : int or None, default None
        The certified rank (the sum over the blocks).
    given : bool, default False
        Whether the upper bound was stated by the user.
    source : str or None, default None
        The upper bound's source.
    tag : str or None, default None
        The architecture's tag of its bound (``"M"``: recalled from the literature).
    rechecked : bool, default True
        Whether the architecture's own bound was recomputed.
    """
    ok: bool
    reasons: list = field(default_factory=list)
    exact: bool = False
    rank: int | None = None
    given: bool = False
    source: str | None = None
    tag: str | None = None
    rechecked: bool = True

    def __bool__(self) -> bool:
        return self.ok

    @property
    def status(self) -> str:
        """The verdict of the check, as :func:`seprank.certify` words it.

        ``"exact, proved"``, ``"exact, given the stated bound (SOURCE)"``, ``"exact, given
        the recalled literature bound (SOURCE)"``, ``"exact, bound not rechecked"`` (with
        ``recheck_upper=False``), ``"lower bound"`` or ``"invalid"``.
        """
        if not self.ok:
            return "invalid"
        if not self.exact:
            return "lower bound"
        if not self.given and not self.rechecked:
            return "exact, bound not rechecked"
        return exact_label(self.given, self.source, self.tag)


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


#: What makes a certificate malformed or unreadable: answered as "invalid", not raised.
MALFORMED = (KeyError, TypeError, ValueError, IndexError, json.JSONDecodeError, OSError,
             SeprankError)  # fmt: skip


def check_certificate(cert, *, recheck_upper: bool = True, kernel: bool = False,
                      cls=None, allow_import=False) -> CheckResult:  # fmt: skip
    """Check a certificate without trusting seprank's measurement.

    It regenerates weights and points from the seed, rebuilds every claimed minor and checks
    its determinant over GF(p) with python-flint; it recomputes the architecture's own bound
    and compares it with ``upper_bound`` and ``upper_source`` (a stated bound,
    ``upper_given``, cannot be recomputed: then only rank == upper_bound is checked).

    A certificate is data: checking it imports no module it names unless you say so. A
    registry architecture, seprank's own classes and an installed entry point need no
    permission; a ``module:Class`` it names (and a torch ``factory`` ``module:function``
    in its config) is imported only with ``cls`` (your class) or ``allow_import``.

    Parameters
    ----------
    cert : dict or str or pathlib.Path
        The certificate, or the path of its JSON file.
    recheck_upper : bool, default True
        Recompute the architecture's own bound (False: the status says it was not rechecked).
    kernel : bool, default False
        Evaluate the network with the compiled kernel of the measurement instead of its
        reference code (faster for deep networks; the determinants are python-flint's either
        way).
    cls : type or str or Architecture, optional
        The architecture class (default: the class the certificate's ``architecture``
        names), its name in your words (``"mymod:MyNet"``, resolved as ``--arch`` is), or
        the architecture itself for one its config cannot rebuild (``from_torch`` on a
        module object; its config must equal the certificate's). Your word: the
        certificate's own ``module:Class`` is then not imported.
    allow_import : bool or str or iterable of str, default False
        Permission to import what the certificate names: True (whatever it names), or
        the import paths you allow (``"mymod:MyNet"``, a torch factory ``"mymod:make"``).

    Returns
    -------
    CheckResult
        ``ok`` is False, with the reasons, on any failure (a malformed file included: no
        exception is raised for one).

    Raises
    ------
    ConfigError
        If the certificate names a module that neither ``cls`` nor ``allow_import``
        allows (nothing is imported), or an allowed one cannot be imported, or it names
        no architecture: the certificate cannot be checked here, which is no verdict on it.

    Examples
    --------
    >>> import seprank
    >>> c = seprank.certify(seprank.nets.MPS(seq_len=4, phys_dim=2, bond=2), (0, 1))
    >>> seprank.check_certificate(c.certificate).status  # doctest: +ELLIPSIS
    "exact, given the architecture's stated bound (tensor-network min-cut bound ...)"
    >>> seprank.check_certificate(dict(c.certificate, architecture="elsewhere:Net"))
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    seprank.errors.ConfigError: the certificate names the module 'elsewhere' ...
    """
    try:
        if not isinstance(cert, dict):
            cert = certificate_schema.load(cert)  # size and nesting bounded before parsing
        certificate_schema.validate(cert)  # strict types, no unknown keys, sizes bounded
        if cert.get("format") != FORMAT:
            return CheckResult(False, [f"format {cert.get('format')!r} is not {FORMAT!r}"])
    except MALFORMED as exc:
        return _malformed(exc)
    # refused, not importable, or no such architecture: raised, never "invalid"
    arch = architecture_for(cert["architecture"], cert["config"], cls, allow_import)
    try:
        return _check(cert, recheck_upper, kernel, arch, allow_import)
    except MALFORMED as exc:
        return _malformed(exc)


def _malformed(exc) -> CheckResult:
    return CheckResult(False, [f"malformed or unreadable certificate: "
                               f"{type(exc).__name__}: {exc}"])  # fmt: skip


def _check(cert: dict, recheck_upper: bool, kernel: bool, cls, allow_import) -> CheckResult:
    import flint

    bad: list[str] = []
    net = net_from(cert["architecture"], cert["config"], cls, allow_import)
    certificate_schema.check_work(cert, max(input_dim(net), int(net.width)))  # its real width
    p = int(cert["prime"])
    dom = ModP(p)
    if needs_check(net):  # a class seprank does not ship: its apply keeps rows apart
        try:
            check_rows(net, dom, int(cert["seed"]))
        except ConfigError as exc:
            return CheckResult(False, [str(exc)])
    A, B = check_partition(cert["partition"], net.seq_len)
    params = net.init(np.random.default_rng(int(cert["seed"])), dom)
    if "weights_sha256" in cert and weights_digest(params) != cert["weights_sha256"]:
        bad.append("the seed regenerates other weights than when the certificate was made "
                   "(a different numpy random generator?)")
    Ap, Bp = _regenerate_points(cert, net, p)
    blocks = cert["blocks"]
    total = sum(int(b["rank"]) for b in blocks)
    if int(cert["rank"]) != total:
        bad.append(f"claimed rank {cert['rank']} != sum of the block ranks {total}")
    if cert.get("strategy") == "catalecticant":  # F's coefficients rebuilt, not a grid
        bad = bad or catalecticant_certificate.check(cert, net, params, A, p)
        return CheckResult(False, bad, rank=total) if bad else \
            _check_upper(cert, net, A, total, recheck_upper)  # fmt: skip
    graded = cert.get("strategy") == "graded"
    T = None
    if graded:
        if not homogeneous_by_theorem(net):
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
    if bad:
        return CheckResult(False, bad, rank=total)
    return _check_upper(cert, net, A, total, recheck_upper)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_upper(cert, net, A, total: int, recheck: bool) -> CheckResult:
    """The bound's fields: ``upper_bound`` an int (or null) not below the rank, equal to
    the architecture's own bound (and ``upper_source`` to its source) unless stated by
    the user (``upper_given``); ``exact`` only when rank == upper_bound."""
    up, given, source = cert.get("upper_bound"), cert.get("upper_given", False), \
        cert.get("upper_source")  # fmt: skip
    if up is not None and not _is_int(up):
        return CheckResult(False, [f"upper_bound={up!r} must be an integer or null"])
    if given not in (True, False):
        return CheckResult(False, [f"upper_given={given!r} must be true or false"])
    bad = []
    if up is not None and up < total:
        bad.append(f"upper_bound {up} is below the certified rank {total}")
    if cert.get("exact") and up != total:
        bad.append(f"claims exact, but upper_bound {up} != rank {total}")
    if given and up is None:
        bad.append("upper_given is true but upper_bound is null")
    own = {}
    if not given and recheck and up is not None and not bad:
        own = architecture_bound(net, A) or {}
        if own.get("upper") != up:
            bad.append(f"upper_bound {up} is not the architecture's proved bound "
                       f"({own.get('upper')}; {own.get('source', 'none known')})")  # fmt: skip
        elif "upper_source" in cert and source != own.get("source"):
            bad.append(f"upper_source {source!r} is not the architecture's: "
                       f"{own.get('source')!r}")  # fmt: skip
    meets = up is not None and up == total
    if not bad and bool(cert.get("exact")) != meets:
        bad.append(f"exact={cert.get('exact')!r}, but the rank {total} "
                   f"{'meets' if meets else 'does not meet'} upper_bound {up}")  # fmt: skip
    if not bad and (given or recheck):  # the claim text, regenerated from verified fields
        want = claim_text(total, up, bool(given), own.get("tag") in RECALLED_TAGS,
                          stated=bound_status(own.get("tag")) == ARCHITECTURE)
        if cert.get("claim") != want:
            bad.append(f"claim {cert.get('claim')!r} is not what the verified fields give: "
                       f"{want!r}")  # fmt: skip
    exact = not bad and meets and bool(cert.get("exact"))
    return CheckResult(not bad, bad, exact=exact, rank=total, given=bool(given),
                       source=source, tag=own.get("tag"), rechecked=recheck)  # fmt: skip
