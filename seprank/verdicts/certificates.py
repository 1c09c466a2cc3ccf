"""Computer-assisted theorems: a certified lower bound, a proved upper bound, a certificate.

``certify(net, partition)`` measures the separation rank over GF(p) and compares the
result with the architecture's proved upper bound
(:func:`seprank.theory.architecture_bounds.bound_of`, a :class:`~seprank.nets.bound.Bound`
from the certified-rank comparison to the certificate's fields: the attention theorems, a
zoo architecture's bound, or a class's own ``upper_bound`` method), or with a bound the
user states (``upper=U, upper_source=...``). Where they meet, the separation rank is
*exact, proved* (*exact, given the stated bound* for a stated one): no probability is
involved, because

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
prime, seed, the claimed ``rank`` and the bound; its kind (:mod:`seprank.verdicts.kinds`,
named by its ``strategy``) writes the rest and checks it:

- grid minors (:mod:`~seprank.verdicts.kinds.grid_minors`, strategies direct and graded):
  the sampling schedule (``draws``) and, per block, its ``rank`` and the ``rows`` and
  ``cols`` of a nonsingular minor of a sampled grid; :func:`check_certificate` re-derives
  each minor from the seed alone (the weights and points regenerated with numpy's
  generator, the network's reference (numpy) code in GF(p), graded blocks interpolated
  exactly at t = 0..T) and computes each determinant with python-flint (not the BLAS
  engine that measured it);
- catalecticant minors (:mod:`~seprank.verdicts.kinds.catalecticant_minors`): where the
  catalecticant strategy applies (``strategy='auto'`` takes it), ``certify`` measures with
  it and each block names a nonsingular minor of the coefficient matrix of the structural
  polynomial F; the check rebuilds F's coefficients from the seed by its own route
  (:mod:`seprank.verdicts.reference_poly`). ``grid=True`` keeps the grid kinds.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from seprank import labels
from seprank._version import __version__
from seprank.algebra.domains import ModP
from seprank.engine import display
from seprank.engine.estimate import check_architecture
from seprank.engine.measure import execute, plan
from seprank.engine.options import MeasureOptions
from seprank.engine.result import BOOL_COLUMNS
from seprank.engine.saturation import DEFAULT_THRESHOLD
from seprank.errors import ConfigError, SeprankError
from seprank.labels import ARCHITECTURE, bound_status
from seprank.nets.bound import Bound
from seprank.nets.partitions import check_partition, default_partition
from seprank.nets.registry import label_of
from seprank.paths import write_text
from seprank.theory.architecture_bounds import RECALLED_TAGS, bound_of, exact_label
from seprank.verdicts import certificate_schema, kinds
from seprank.verdicts.certificate_check import CheckResult, check_certificate
from seprank.verdicts.certificate_fields import MAX_STRING as MAX_SOURCE
from seprank.verdicts.certificate_format import (
    FORMAT,
    WEIGHTS_RULE,
    certificate_name,
    claim_text,
    dumps,
    weights_digest,
)

__all__ = ["FORMAT", "CheckResult", "Certification", "certificate_name", "certify",
           "check_certificate", "dumps", "make_certificate"]


@dataclass(repr=False)
class Certification:
    """Outcome of :func:`certify`: the measurement, both bounds and the verdict.

    Parameters
    ----------
    measurement : Measurement
        The measurement made.
    lower : int
        The certified lower bound (the measured rank).
    upper : int or None
        The upper bound compared with (None when none is known).
    upper_why : str
        Where the upper bound comes from, or why there is none.
    exact : bool
        Whether the lower bound meets the upper bound (with a certificate).
    status : str
        ``"exact, proved"``, ``"exact, given the stated bound (SOURCE)"``, ``"exact, given
        the recalled literature bound (SOURCE)"`` or ``"lower bound"``.
    ground : str
        What the status rests on (the minors, the bound, the saturation ground).
    certificate : dict or None, default None
        The certificate (None without recorded minors).
    path : str or None, default None
        Where :meth:`write` wrote the certificate.
    upper_source : str or None, default None
        The source of the upper bound.
    upper_given : bool, default False
        Whether the upper bound was stated by the user (``upper=``).
    upper_status : str or None, default None
        The upper bound's status (:data:`seprank.labels.BOUND_STATUSES`: proved, recalled,
        architecture, user); None when there is no upper bound.
    bound : Bound or None, default None
        The bound compared with, the one the fields ``upper*`` are read from (its value
        None where none is known: its source says why).
    """

    measurement: object
    lower: int
    upper: int | None
    upper_why: str
    exact: bool
    status: str
    ground: str
    certificate: dict | None = field(default=None, repr=False)
    path: str | None = None
    upper_source: str | None = None
    upper_given: bool = False
    upper_status: str | None = None
    bound: Bound | None = field(default=None, repr=False)

    @property
    def gap(self) -> int | None:
        """The upper bound minus the certified lower bound (None without an upper bound)."""
        return None if self.upper is None else self.upper - self.lower

    @property
    def label(self) -> str:
        """The certified rank's label in the words of :mod:`seprank.labels`.

        Returns
        -------
        str
            The status when exact (``exact, proved`` or ``exact, given ...``); else the
            measurement's ``lower bound, saturated`` / ``not saturated`` (or its words for
            a rank above the architecture's bound).
        """
        m = self.measurement
        if self.exact:
            return self.status
        if m.label.startswith("lower bound"):
            return m.label
        return labels.grid_label(m.saturated, m.budget_hit)

    def __repr__(self) -> str:
        """One short line: the rank (= if exact, >= if a lower bound), the status, the
        upper bound, the configuration and the time."""
        m = self.measurement
        up = "" if self.exact else (", no upper bound" if self.upper is None else
                                    f", upper {self.upper}")
        return (f"Certification(rank {'=' if self.exact else '>='} {self.lower} "
                f"[{self.status}]{up}, {display.short_config(m.config)}, "
                f"A={tuple(m.partition)}, {m.seconds:.2f} s)")

    def _repr_html_(self) -> str:
        """A small HTML table: rank, status, bounds, ground, configuration, certificate.

        Returns
        -------
        str
            An HTML ``<table>``.
        """
        m = self.measurement
        rows = [("rank", ("= " if self.exact else ">= ") + str(self.lower)),
                ("status", self.status), ("upper bound", self.upper),
                ("upper bound from", self.upper_why), ("gap", self.gap),
                ("ground", self.ground),
                ("configuration", display.short_config(m.config)),
                ("partition A", list(m.partition)), ("prime", m.prime), ("seed", m.seed),
                ("certificate", self.path or "not written"), ("time", f"{m.seconds:.2f} s")]
        return display.html_table("Certification", rows)

    def to_frame(self):
        """Return this certification as a one-row pandas DataFrame with tidy types.

        Returns
        -------
        pandas.DataFrame
            One row: the measurement's columns (:meth:`Measurement.to_frame
            <seprank.engine.result.Measurement.to_frame>`) with ``status``, ``label``, ``exact``,
            ``upper_given`` (bool), ``lower``, ``upper``, ``gap``, ``upper_source`` and
            ``certificate`` (its path or None) before them.

        Raises
        ------
        ConfigError
            When pandas is not installed (``pip install 'seprank[pandas]'``).
        """
        rec = {"status": self.status, "label": self.label, "exact": bool(self.exact),
               "lower": int(self.lower),
               "upper": self.upper, "gap": self.gap, "upper_source": self.upper_source,
               "upper_given": bool(self.upper_given), "certificate": self.path}
        rec.update({k: v for k, v in self.measurement._record().items() if k not in rec})
        return display.tidy_frame([rec], bool_columns=(*BOOL_COLUMNS, "exact", "upper_given"),
                                  list_columns=("partition", "block_ranks"))

    def to_dict(self) -> dict:
        """The outcome as a JSON-friendly dict (what ``seprank certify --json`` prints).

        Returns
        -------
        dict
            The status, ``label`` (:attr:`label`) and both bounds with their grounds, the
            certificate's path, and the measurement's saturation, prime, seed, strategy,
            config, partition and time.
        """
        m = self.measurement
        return {
            "status": self.status, "label": self.label, "exact": self.exact, "rank": self.lower,
            "lower": self.lower, "upper": self.upper, "gap": self.gap,
            "upper_why": self.upper_why, "upper_source": self.upper_source,
            "upper_given": self.upper_given, "upper_status": self.upper_status,
            "ground": self.ground, "certificate": self.path,
            "saturated": m.saturated, "saturation_bound": m.saturation_bound,
            "saturation_reason": m.saturation_reason, "prime": m.prime, "seed": m.seed,
            "strategy": m.strategy, "config": m.config, "partition": list(m.partition),
            "seconds": m.seconds,
        }

    def write(self, folder) -> Path:
        """Write the certificate into ``folder`` (created); return its path.

        Parameters
        ----------
        folder : str or pathlib.Path
            The folder (created if missing); the file is named after the certificate.

        Returns
        -------
        pathlib.Path
            The certificate's path (also kept in ``path``).

        Raises
        ------
        ConfigError
            If there is no certificate (no nonsingular minor was recorded), or it breaks
            the schema :func:`check_certificate` reads (nothing is written then).
        OutputError
            If the file cannot be written (no partial file is left).
        """
        if self.certificate is None:
            raise ConfigError("certify: no certificate (no nonsingular minor was recorded)")
        certificate_schema.validate(self.certificate)  # never write what the checker refuses
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / certificate_name(self.certificate)
        write_text(path, dumps(self.certificate))  # atomic: never through a link
        self.path = str(path)
        return path


def make_certificate(net, m, bound: Bound | None = None) -> dict | None:
    """The certificate of a modular Measurement, written by the kind of its strategy (None
    without minors, or where no kind certifies it); ``bound`` the one compared with (None,
    or its value None: none; status ``user``: stated by the user)."""
    upper = None if bound is None else bound.value
    source = None if upper is None else bound.source
    given, tag = upper is not None and bound.status == labels.USER, _tag(bound)
    kind = kinds.for_strategy(m.strategy)
    if (kind is None or kind.write is None or m.minors is None or m.method != "modular"
            or not kind.certifies(m)):
        return None
    own = dict(kind.write(net, m))
    points, draws, degree, blocks = (own.pop(k) for k in ("points", "draws", "total_degree",
                                                           "blocks"))
    params = net.init(np.random.default_rng(m.seed), ModP(m.prime))
    cert = {
        "format": FORMAT,
        "architecture": label_of(type(net)),
        "config": {k: _as_json(v) for k, v in m.config.items() if k != "architecture"},
        "partition": list(m.partition),
        "prime": int(m.prime),
        "seed": int(m.seed),
        "weights": WEIGHTS_RULE,
        "weights_sha256": weights_digest(params),
        "points": points,
        "draws": draws,
        "strategy": m.strategy,
        "total_degree": degree,
        **own,  # the kind's own fields
        "rank": int(m.rank),
        "blocks": blocks,
        "upper_bound": upper,
        "upper_source": source,
        "upper_given": bool(given),
        "exact": upper is not None and int(m.rank) == int(upper),
        "claim": claim_text(m.rank, upper, given, tag in RECALLED_TAGS,
                            stated=bound_status(tag) == ARCHITECTURE),
        "created_by": f"seprank {__version__}",
        "numpy": np.__version__,
    }
    return cert


def _as_json(v):
    """A config value as JSON holds it (tuples, nested ones too, as lists)."""
    return [_as_json(x) for x in v] if isinstance(v, (tuple, list)) else v


def _tag(bound: Bound | None):
    """The tag the certificate's words read (a user's stated bound has none)."""
    return None if bound is None or bound.status == labels.USER else bound.tag


def _status(bound: Bound) -> str:
    """The status the certificate's words give the bound: ``user`` for one the user
    states, else its tag's (:func:`seprank.labels.bound_status`, as the checker reads it
    again: a bound without a tag is the architecture's word)."""
    return labels.USER if bound.status == labels.USER else labels.bound_status(bound.tag)


def _bound(net, partition, upper, upper_source) -> Bound:
    """The bound to compare with: the user's stated one (status ``user``), else the
    architecture's (:func:`bound_of`); its value None where there is none (its source
    then says why)."""
    if upper is not None:
        if isinstance(upper, bool) or not isinstance(upper, numbers.Integral) or upper < 0:
            raise ConfigError(f"upper={upper!r} must be a non-negative integer")
        src = str(upper_source).strip() if upper_source else "stated by the user"
        if len(src) > MAX_SOURCE:  # the checker's limit: certify never writes what it refuses
            raise ConfigError(f"upper_source is {len(src)} characters, at most {MAX_SOURCE}")
        return Bound(int(upper), src or "stated by the user", labels.USER)
    if upper_source is not None:
        raise ConfigError("upper_source needs upper=U (the bound it is the source of)")
    try:
        ub = bound_of(net, partition)
    except SeprankError as exc:  # e.g. a bound too costly to compute: no bound, said why
        return Bound(None, str(exc), ARCHITECTURE)
    if ub is None:
        return Bound(None, f"no proved upper bound for {type(net).__name__} in seprank (give "
                     "the class an upper_bound(partition) -> seprank.nets.bound.Bound method, "
                     "or state one: upper=U)", ARCHITECTURE)
    return ub


def _why(bound: Bound) -> str:
    """Where the bound comes from, or why there is none (``upper_why``)."""
    return f"stated: {bound.source}" if bound.status == labels.USER else bound.source


def _verdict(m, bound: Bound, has_cert: bool) -> tuple[bool, str, str]:
    """(exact, status, ground) of a measurement against the bound (the ladder:
    :func:`seprank.labels.rung`)."""
    upper, given, tag = bound.value, bound.status == labels.USER, _tag(bound)
    source = None if upper is None else bound.source
    status_of = _status(bound)
    what = {labels.USER: "the stated upper bound", labels.RECALLED: "the recalled upper bound",
            labels.ARCHITECTURE: "the architecture's stated upper bound",
            labels.PROVED: "the proved upper bound"}[status_of]
    step = labels.rung(m.rank, m.saturated, upper)
    if step == labels.MEETS and has_cert:
        status = exact_label(given, source, tag)
        tail = ("a theorem, no probability involved" if status == "exact, proved" else
                "exact if that bound holds (seprank does not prove it)")
        return True, status, (f"certified lower bound {m.rank} (nonsingular minors over "
                              f"GF({m.prime}), {len(m.minors)} block(s)) meets {what} "
                              f"{upper}: {tail}")
    if step == labels.ABOVE:
        gap = (f"; {what} {upper} is below it, so it is FALSE" if given else
               f"; it EXCEEDS {what} {upper}: " + ("a bug (the bound is proved)"
                                                     if status_of == labels.PROVED else
                                                     "that bound is false, or a bug"))
    elif upper is not None:
        gap = f", gap {upper - m.rank} to {what}"
    else:
        gap = ""
    return False, "lower bound", (f"certified lower bound {m.rank}{gap}"
                                  + ("" if upper is not None else " (no proved upper bound)")
                                  + f"; saturation: {m.saturation_reason}")


def _measure(net, partition, A, *, seed, prime, max_samples, progress, saturation_threshold,
             grid):
    """Measure with minors recorded: the first strategy the planner takes among those
    that can write a certificate for this network (catalecticant where auto takes it,
    then graded where f is homogeneous by theorem, else direct; grid strategies only with
    ``grid``)."""
    opts = MeasureOptions(seed=seed, prime=prime, max_samples=max_samples,
                          saturation_threshold=DEFAULT_THRESHOLD if saturation_threshold
                          is None else saturation_threshold)
    mp = plan(net, partition, opts, progress=progress,
              purpose="certify-grid" if grid else "certify")
    kind = kinds.for_strategy(mp.strategy)
    if kind is not None:
        kind.prepare(mp)  # deprecated: a kind of 0.2.0 that still asks (the purpose does)
    return execute(mp)


def certify(net, partition=None, *, seed: int = 0, prime: int | None = None,
            max_samples: int | None = None, progress=None,
            saturation_threshold: float | None = None, upper: int | None = None,
            upper_source: str | None = None, grid: bool = False) -> Certification:
    """Measure, compare with an upper bound, and build a certificate.

    The bound is the architecture's own (:func:`bound_of`), or ``upper`` with
    its ``upper_source`` (a bound the user states). ``status`` is ``"exact, proved"``
    when the certified lower bound meets the architecture's proved bound (no probability
    involved), ``"exact, given the stated bound (SOURCE)"`` when it meets a stated one;
    otherwise ``"lower bound"`` with the gap, and ``ground`` repeats the probability
    ground of the saturation label, if any. Where the catalecticant strategy applies
    (LinearSelfAttention with at least width positions a side; what ``strategy='auto'``
    takes) it measures, and the certificate names a nonsingular minor of each coefficient
    block; else homogeneous-by-theorem networks are measured by the graded strategy,
    every other architecture by the direct one.

    Parameters
    ----------
    net : Architecture
        The network.
    partition : iterable of int, optional
        The A side (default: the first ``seq_len // 2`` positions).
    seed : int, default 0
        The measurement seed.
    prime : int, optional
        The modulus (default: the largest prime below :math:`2^{26}`).
    max_samples : int, optional
        The sample budget (see :func:`seprank.measure`).
    progress : bool or callable, optional
        Progress of the measurement (see :func:`seprank.measure`).
    saturation_threshold : float, optional
        The saturation label's threshold (default: 1e-2, as :func:`seprank.measure`).
    upper : int, optional
        A bound the user states, instead of the architecture's own.
    upper_source : str, optional
        Where ``upper`` is proved (needs ``upper``).
    grid : bool, default False
        Measure with a grid strategy (graded or direct) even where the catalecticant
        strategy applies: the certificate then names minors of sampled grids.

    Returns
    -------
    Certification
        The measurement, both bounds, the status and the certificate.

    Raises
    ------
    ConfigError
        If the partition is invalid, ``upper`` is not a non-negative integer, or
        ``upper_source`` is given without ``upper`` (and as :func:`seprank.measure`).

    Examples
    --------
    >>> import seprank
    >>> c = seprank.certify(seprank.LinearSelfAttention(depth=1, width=3, seq_len=4))
    >>> c.status, c.lower, c.upper
    ('exact, proved', 4, 4)
    >>> seprank.check_certificate(c.certificate).ok
    True
    """
    check_architecture(net)  # certify(None): one line, not an AttributeError
    A, _ = check_partition(default_partition(net.seq_len) if partition is None else partition,
                           net.seq_len)
    bound = _bound(net, partition, upper, upper_source)
    m = _measure(net, partition, A, seed=seed, prime=prime, max_samples=max_samples,
                 progress=progress, saturation_threshold=saturation_threshold,
                 grid=grid)
    cert = make_certificate(net, m, bound)
    exact, status, ground = _verdict(m, bound, cert is not None)
    upper, given = bound.value, bound.status == labels.USER
    return Certification(measurement=m, lower=int(m.rank), upper=upper, upper_why=_why(bound),
                         exact=exact, status=status, ground=ground, certificate=cert,
                         upper_source=None if upper is None else bound.source,
                         upper_given=given and upper is not None,
                         upper_status=None if upper is None else _status(bound), bound=bound)
