"""Checking a certificate without trusting the measurement: the weights regenerated from
the seed, the certificate's kind's checker (:mod:`seprank.verdicts.kinds`: the minors
rebuilt by the network's reference code or an independent route, python-flint
determinants), and the architecture's own bound recomputed."""

from __future__ import annotations

import json

import numpy as np

from seprank.algebra.domains import ModP
from seprank.engine.line_check import needs_check
from seprank.engine.row_check import check_rows
from seprank.errors import ConfigError, SeprankError
from seprank.labels import ARCHITECTURE, bound_status
from seprank.nets.base import input_dim
from seprank.nets.partitions import check_partition
from seprank.theory.architecture_bounds import RECALLED_TAGS, bound_of
from seprank.verdicts import certificate_schema, kinds
from seprank.verdicts.certificate_format import (
    FORMAT,
    architecture_for,
    claim_text,
    net_from,
    weights_digest,
)
from seprank.verdicts.certificate_schema import OverBudgetError, UnknownKindError
from seprank.verdicts.check_result import CheckResult

__all__ = ["MALFORMED", "CheckResult", "check_certificate"]


#: What makes a certificate malformed or unreadable: answered as "invalid", not raised.
MALFORMED = (KeyError, TypeError, ValueError, IndexError, json.JSONDecodeError, OSError,
             SeprankError)


def check_certificate(cert, *, recheck_upper: bool = True, kernel: bool = False,
                      cls=None, allow_import=False, budget=None) -> CheckResult:
    """Check a certificate without trusting seprank's measurement.

    It regenerates the weights from the seed and, by the checker of the certificate's kind
    (its ``strategy``: :mod:`seprank.verdicts.kinds`), rebuilds every claimed minor and
    checks its determinant over GF(p) with python-flint; it recomputes the architecture's
    own bound and compares it with ``upper_bound`` and ``upper_source`` (a stated bound,
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
    budget : Budget, optional
        What the check may cost (:class:`~seprank.verdicts.certificate_schema.Budget`:
        memory and seconds, default 2 GiB and 600 s), compared with the estimate from the
        certificate's claimed sizes before any minor is built.

    Returns
    -------
    CheckResult
        ``ok`` is False, with the reasons, on any failure (a malformed file included: no
        exception is raised for one; ``malformed`` then says so).

    Raises
    ------
    ConfigError
        If the certificate names a module that neither ``cls`` nor ``allow_import``
        allows (nothing is imported), or an allowed one cannot be imported, or it names
        no architecture, or it is of a kind this seprank does not know (UnknownKindError,
        naming the known ones): the certificate cannot be checked here, which is no
        verdict on it. Also (OverBudgetError) if its check would cost more than
        ``budget``.

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
            cert = certificate_schema.load(cert, budget)  # size, nesting bounded first
        certificate_schema.validate(cert, budget)  # strict types, no unknown keys, sizes
        if cert.get("format") != FORMAT:
            return CheckResult(False, [f"format {cert.get('format')!r} is not {FORMAT!r}"])
    except (UnknownKindError, OverBudgetError):  # not checked here, no verdict: raised
        raise
    except MALFORMED as exc:
        return _malformed(exc)
    # refused, not importable, or no such architecture: raised, never "invalid"
    arch = architecture_for(cert["architecture"], cert["config"], cls, allow_import)
    try:
        return _check(cert, recheck_upper, kernel, arch, allow_import, budget)
    except OverBudgetError:
        raise
    except MALFORMED as exc:
        return _malformed(exc)


def _malformed(exc) -> CheckResult:
    return CheckResult(False, [f"malformed or unreadable certificate: "
                               f"{type(exc).__name__}: {exc}"], malformed=True)


def _check(cert: dict, recheck_upper: bool, kernel: bool, cls, allow_import,
           budget=None) -> CheckResult:
    bad: list[str] = []
    net = net_from(cert["architecture"], cert["config"], cls, allow_import)
    certificate_schema.check_work(cert, max(input_dim(net), int(net.width)), budget)
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
    total = sum(int(b["rank"]) for b in cert["blocks"])
    if int(cert["rank"]) != total:
        bad.append(f"claimed rank {cert['rank']} != sum of the block ranks {total}")
    ctx = kinds.CheckContext(net=net, params=params, dom=dom, A=A, B=B, total=total,
                             kernel=kernel, bad=bad)
    failed = kinds.kind_of(cert).check(cert, ctx)  # its minors re-derived from the seed
    if failed is not None:
        return failed
    if bad:  # a kind's checker that passed over the common reasons: they still count
        return CheckResult(False, bad, rank=total)
    return _check_upper(cert, net, A, total, recheck_upper)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_upper(cert, net, A, total: int, recheck: bool) -> CheckResult:
    """The bound's fields: ``upper_bound`` an int (or null) not below the rank, equal to
    the architecture's own bound (and ``upper_source`` to its source) unless stated by
    the user (``upper_given``); ``exact`` only when rank == upper_bound."""
    up, given, source = cert.get("upper_bound"), cert.get("upper_given", False), \
        cert.get("upper_source")
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
    own = None  # the architecture's Bound, where it is checked against
    if not given and recheck and up is not None and not bad:
        own = bound_of(net, A)
        value, src = (None, None) if own is None else (own.value, own.source)
        if value != up:
            bad.append(f"upper_bound {up} is not the architecture's proved bound "
                       f"({value}; {'none known' if own is None else src})")
        elif "upper_source" in cert and source != src:
            bad.append(f"upper_source {source!r} is not the architecture's: {src!r}")
    meets = up is not None and up == total
    if not bad and bool(cert.get("exact")) != meets:
        bad.append(f"exact={cert.get('exact')!r}, but the rank {total} "
                   f"{'meets' if meets else 'does not meet'} upper_bound {up}")
    if not bad and (given or recheck):  # the claim text, regenerated from verified fields
        tag = None if own is None else own.tag
        want = claim_text(total, up, bool(given), tag in RECALLED_TAGS,
                          stated=bound_status(tag) == ARCHITECTURE)
        if cert.get("claim") != want:
            bad.append(f"claim {cert.get('claim')!r} is not what the verified fields give: "
                       f"{want!r}")
    exact = not bad and meets and bool(cert.get("exact"))
    return CheckResult(not bad, bad, exact=exact, rank=total, given=bool(given),
                       source=source, tag=None if own is None else own.tag, rechecked=recheck)
