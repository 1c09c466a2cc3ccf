"""The result of a measurement: ``Measurement`` (what was measured, how, and what it certifies)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from seprank import labels
from seprank.engine import display, tables
from seprank.engine.detail import Detail, detail_keys
from seprank.nets.bound import Bound

CERTIFIED = {
    "modular": "lower bound (exact rank over GF(p) of an integer-weight network's grid)",
    "symbolic": "exact for these weights (rank over Q of the coefficient matrix of this "
                "integer-weight network)",
    "float": "none (floating-point estimate)",
}


#: Columns of :meth:`Measurement.to_frame` (and the frames built on it) that are bool.
BOOL_COLUMNS = ("saturated", "sample_saturated", "budget_hit", "residual")


@dataclass(repr=False, frozen=True)
class Measurement:
    """One measured separation rank and everything needed to reproduce it.

    ``strategy`` is ``direct`` (one grid matrix) or ``graded`` (one matrix per A-side
    degree of a homogeneous f; ``blocks`` lists each block's degree, rank, sample size
    and saturation, and its ``detail`` the degree support and its Schwartz-Zippel bounds).
    The total is saturated only when every block is. ``catalecticant`` (no grid): ``blocks``
    lists each block's degree, rank, matrix shape, proved bound and time, and its
    ``detail`` F's size and the degree convention. Each strategy's ``detail`` is its own
    typed record (:class:`seprank.engine.detail.Detail`), written under its key by
    :meth:`to_dict`.

    Saturation (:mod:`seprank.engine.saturation`): ``sample_saturated`` says the rank stopped
    below the sample size (every block); ``saturated`` says more: that the rank equals the
    separation rank except with probability at most ``saturation_bound`` (a Schwartz-Zippel
    bound, or None where none applies), which must not exceed ``saturation_threshold``.
    ``saturation_reason`` says which ground the label rests on, or why it is refused.
    ``minors`` (one per block: degree, rank, rows, cols of a nonsingular minor) and
    ``draws`` (the sampling schedule) make a certificate
    (:mod:`seprank.verdicts.certificates`); they are
    left out of :meth:`to_dict` unless asked for.

    Made by :func:`seprank.measure`; the parameters are its fields.

    Parameters
    ----------
    rank : int
        The measured rank (the total over the blocks for graded and catalecticant).
    saturated : bool
        Whether the rank is labelled the separation rank (see above).
    certified : str
        What the number certifies: a lower bound (modular: the direct, graded and
        catalecticant strategies), exact for these weights (symbolic) or nothing (float).
    method : str
        ``"modular"``, ``"float"`` or ``"symbolic"``.
    prime : int or None
        The modulus of a modular measurement (None otherwise).
    samples : tuple of (int, int)
        Rows and columns of the last grid matrix.
    seconds : float
        Wall time of the whole measurement.
    seed : int
        The seed the weights and sample points were drawn from.
    config : dict
        The network's config (:func:`~seprank.nets.config_of`).
    partition : tuple of int
        The A side.
    sampler : str, default "random"
        How the sample points were drawn (``random``, ``templates`` or ``alphabet``).
    eval_seconds : float, default 0.0
        Time spent evaluating the network.
    rank_seconds : float, default 0.0
        Time spent computing ranks.
    budget_hit : bool, default False
        True when the sample reached ``max_samples`` without saturating.
    tolerance : float or None, default None
        The SVD tolerance of a float measurement.
    scaled_rank : int or None, default None
        Float rank of the row-and-column equilibrated grid (a trust check of float ranks).
    history : list, default []
        ``(rows, cols, rank)`` of every adaptive step.
    spectrum : numpy.ndarray or None, default None
        Singular values of a float measurement's grid.
    strategy : str, default "direct"
        The measurement strategy taken (``direct``, ``graded``, ``catalecticant``; the
        symbolic method's is ``coefficients``).
    strategy_reason : str, default ""
        Why that strategy (and method) was taken.
    blocks : list, default []
        One dict per block of a graded or catalecticant measurement (see above).
    sample_saturated : bool, default False
        Whether the rank stopped below the sample size (every block).
    saturation_bound : float or None, default None
        Probability bound on a false saturation label (None where none applies).
    saturation_threshold : float or None, default None
        The most ``saturation_bound`` may be for ``saturated`` to be True.
    saturation_reason : str, default ""
        The ground of the saturation label, or why it is refused.
    minors : list or None, default None
        Nonsingular minors (one per block) for a certificate.
    draws : list, default []
        The sampling schedule, for a certificate.
    trusted : bool or None, default None
        Float only: whether the spectrum passed the trust criterion (a float rank is never
        ``saturated``).
    polynomial : bool or None, default True
        Whether the network declares itself a polynomial (None: unknown, a torch module
        with an operation seprank's interpreter does not support; a non-polynomial's float rank
        estimates no finite separation rank).
    bound : Bound or None, default None
        The architecture's upper bound for this partition
        (:class:`seprank.nets.bound.Bound`), compared after measuring (never used to
        measure); its value None where none could be compared (its ``source`` says why).
        :meth:`to_dict` writes it as ``upper``, ``status``, ``source``, ``kind`` (or
        ``upper`` None and ``note``: :func:`bound_record`).
    considered : list, default []
        [name, why not] for every registered strategy, in the planner's order (why not is
        None for the one taken).
    detail : Detail or None, default None
        What the strategy records beside the rank, typed by the strategy
        (:class:`seprank.engine.detail.Detail`: ``GradedDetail``, ``CatalecticantDetail``,
        ``SketchDetail``, ``ExpandDetail``); None for a strategy that records nothing more.
    """

    rank: int
    saturated: bool
    certified: str
    method: str
    prime: int | None
    samples: tuple[int, int]
    seconds: float
    seed: int
    config: dict
    partition: tuple[int, ...]
    sampler: str = "random"
    eval_seconds: float = 0.0
    rank_seconds: float = 0.0
    budget_hit: bool = False
    tolerance: float | None = None
    scaled_rank: int | None = None
    history: list = field(default_factory=list)
    spectrum: np.ndarray | None = field(default=None, repr=False)
    strategy: str = "direct"
    strategy_reason: str = ""
    blocks: list = field(default_factory=list)
    sample_saturated: bool = False
    saturation_bound: float | None = None
    saturation_threshold: float | None = None
    saturation_reason: str = ""
    minors: list | None = field(default=None, repr=False)
    draws: list = field(default_factory=list, repr=False)
    trusted: bool | None = None
    polynomial: bool | None = True
    bound: Bound | None = None
    considered: list = field(default_factory=list)
    detail: Detail | None = None

    @property
    def kind(self) -> str:
        """'measured' always: this number comes from a computation, not a formula."""
        return "measured"

    @property
    def label(self) -> str:
        """What this measurement established about its rank, in a few words.

        Returns
        -------
        str
            ``exact for these weights`` (symbolic); ``float estimate, trusted`` /
            ``untrusted`` (float, of a polynomial; of a non-polynomial ``float rank of a
            non-polynomial``); for a
            GF(p) rank ``exact, proved`` (or ``exact, given ...``) when it meets the
            architecture's upper bound (``bound``), else ``lower bound`` with
            ``saturated`` / ``not saturated`` (and ``budget hit``). The words are those of
            :mod:`seprank.labels`.
        """
        return labels.label_of({"method": self.method, "rank": self.rank,
                                "saturated": self.saturated, "budget_hit": self.budget_hit,
                                "trusted": self.trusted, "polynomial": self.polynomial,
                                "bound": bound_record(self.bound)})

    def __repr__(self) -> str:
        """One short line: rank, label, method (and the strategy, where it keeps a typed
        detail of its own), configuration, partition and time."""
        how = self.method + (f" p={self.prime}" if self.prime else "")
        how += f", {self.strategy}" if self.detail is not None else ""  # one with its record
        return (f"Measurement(rank={self.rank} [{self.label}], {how}, "
                f"{display.short_config(self.config)}, A={tuple(self.partition)}, "
                f"{self.seconds:.2f} s)")

    def _repr_html_(self) -> str:
        """A small HTML table of the main fields (Jupyter calls it to display the object).

        Returns
        -------
        str
            An HTML ``<table>``.
        """
        rows = [("rank", self.rank), ("label", self.label), ("method", self.method),
                ("prime", self.prime), ("strategy", self.strategy),
                ("configuration", display.short_config(self.config)),
                ("partition A", list(self.partition)),
                ("samples", f"{self.samples[0]} x {self.samples[1]}"), ("seed", self.seed),
                ("time", f"{self.seconds:.2f} s"), ("ground", self.saturation_reason)]
        if self.blocks and self.detail is not None and self.detail.shows_blocks:
            rows.insert(5, ("block ranks", display.block_ranks(self.blocks)))
        return display.html_table("Measurement", rows)

    def to_frame(self):
        """Return this measurement as a one-row pandas DataFrame with tidy types.

        Returns
        -------
        pandas.DataFrame
            One row: ``rank``, ``label``, ``saturated``, ``sample_saturated``,
            ``budget_hit`` (bool dtype), ``method``, ``strategy``, ``prime``, ``seed``,
            ``rows``, ``cols``, ``seconds``, ``saturation_bound``, ``partition`` and
            ``block_ranks`` (lists of ints) and the configuration's fields as columns.

        Raises
        ------
        ConfigError
            When pandas is not installed (``pip install 'seprank[pandas]'``).
        """
        return display.tidy_frame([self._record()], bool_columns=BOOL_COLUMNS,
                                  list_columns=("partition", "block_ranks"))

    def _record(self) -> dict:
        rec = {"rank": int(self.rank), "label": self.label, "saturated": self.saturated,
               "sample_saturated": self.sample_saturated, "budget_hit": self.budget_hit,
               "method": self.method, "strategy": self.strategy, "prime": self.prime,
               "seed": self.seed, "rows": int(self.samples[0]), "cols": int(self.samples[1]),
               "seconds": float(self.seconds), "saturation_bound": self.saturation_bound,
               "partition": [int(a) for a in self.partition],
               "block_ranks": display.block_ranks(self.blocks)}
        rec.update({k: v for k, v in self.config.items() if k not in rec})
        return rec

    def _paper(self, fmt: str) -> tuple[list, list]:
        header = ["network", "configuration", "partition A", "method", "strategy", "seed",
                  "rank", "label"]
        latex = fmt == "latex"
        row = [self.config.get("architecture") or "-",
               (tables.config_math if latex else tables.config_text)(self.config),
               tables.partition_math(self.partition) if latex else
               ",".join(str(int(a)) for a in self.partition),
               self.method, self.strategy, self.seed, int(self.rank), self.label]
        if latex:
            header[2] = tables.math_cell("partition $A$")
        return header, [row]

    def to_latex(self) -> str:
        """Return this measurement as a one-row booktabs LaTeX table (rank and its label).

        The columns of ``seprank results --format latex`` (:mod:`seprank.engine.tables`),
        with the strategy; pandas is not needed.

        Returns
        -------
        str
            A ``tabular`` (``\\usepackage{booktabs}`` in the document).
        """
        return tables.latex_table(*self._paper("latex"), comment="rank: measured (seprank)")

    def to_markdown(self) -> str:
        """Return this measurement as a one-row Markdown pipe table (rank and its label).

        Returns
        -------
        str
            The table, the columns of :meth:`to_latex`.
        """
        return tables.markdown_table(*self._paper("markdown"))

    def to_dict(self, spectrum: bool = False, minors: bool = False) -> dict:
        """The measurement as a JSON-friendly dict (what the CLI and the result store write).

        Parameters
        ----------
        spectrum : bool, default False
            Include the float spectrum (as a list) instead of None.
        minors : bool, default False
            Include ``minors`` and ``draws`` (left out by default).

        Returns
        -------
        dict
            Every field (tuples as lists), ``kind`` (``"measured"``) and ``label``
            (:attr:`label`).
        """
        d = asdict(self)
        d["bound"] = bound_record(self.bound)
        d.pop("detail")
        d = _with_detail(d, self.detail)
        if not minors:
            d.pop("minors")
            d.pop("draws")
        d["samples"] = list(self.samples)
        d["partition"] = list(self.partition)
        d["kind"] = self.kind
        d["label"] = self.label
        d["spectrum"] = (
            None if (self.spectrum is None or not spectrum) else [float(s) for s in self.spectrum]
        )
        return d


def bound_record(bound: Bound | None) -> dict | None:
    """``Measurement.bound`` as JSON and the result store record it.

    Parameters
    ----------
    bound : Bound or None
        The bound compared with (value None: none could be; its source says why).

    Returns
    -------
    dict or None
        ``upper``, ``status``, ``source``, ``kind`` (None for no kind); or ``upper`` None
        and ``note`` (the source); None without a bound.
    """
    if bound is None:
        return None
    if bound.value is None:
        return {"upper": None, "note": bound.source}
    return {"upper": bound.value, "status": bound.status, "source": bound.source,
            "kind": bound.kind or None}


def _with_detail(d: dict, detail: Detail | None) -> dict:
    """``d`` with the detail's keys placed after the fields they follow."""
    extra = detail_keys(detail)
    out: dict = {}

    def put(name, value):
        out[name] = value
        for key, v in extra.get(name, ()):
            put(key, v)

    for name, value in d.items():
        put(name, value)
    return out
