"""A depth-width study's result: :class:`Study` (rows, steps, answers, verdict), its CSV
and JSON, and :func:`analyse`, which computes the answers from rows measured now or read
from a CSV (:mod:`seprank.studies.study_analysis`)."""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from seprank.engine import tables
from seprank.errors import ConfigError
from seprank.paths import write_text
from seprank.studies import study_analysis as sa
from seprank.theory.guidelines import fit_optimal_shape

#: The CSV a study writes (and ``--plot-only`` reads) in its output folder.
CSV_NAME = "study.csv"
#: The CSV's columns after the cell's keys.
RESULT_COLUMNS = ["rank", "label", "kind", "status", "saturated", "saturation_bound",
                  "upper", "upper_status", "params", "degree", "strategy", "method", "seconds",
                  "est_seconds", "seed", "prime", "error", "cell", "block_ranks",
                  "varied", "note"]
@dataclass
class Study:
    """The result of :func:`study`: rows (one per cell), steps, answers and a verdict.

    Parameters
    ----------
    arch : str
        The architecture's name.
    varied : list of str
        The varied keys, in order.
    fixed : dict
        The fixed keys.
    rules : list of str
        The rules for dependent keys, as ``key = expression``.
    rows : list of dict
        One per cell: ``values`` (every key), ``rank``, ``label``, ``kind``, ``status``...
    steps : list of dict
        Growth ratios and regimes (:func:`seprank.studies.study_analysis.step`).
    transitions : list of dict
        Per series: ``series`` and the transition
        (:func:`~seprank.studies.study_analysis.transition`).
    depth_width : list of dict
        The depth-width map (:func:`~seprank.studies.study_analysis.depth_width_map`).
    budgets : list of dict
        The winners by parameter budget (:func:`~seprank.studies.study_analysis.budgets`).
    verdict : list of str
        The conclusion in words.
    depth_key, width_key : str
        Which keys are depth and width.
    seconds : float
        Wall time of the study.
    measure_seconds : float
        Of that, the measurements run now (their own wall times summed).
    notes : list of str
        What else the reader must know (paper's fit, refusals, time limit).
    measured_now : int
        Cells measured by this call.
    from_store : int
        Cells read from the result store or the CSV (measured before).
    """

    arch: str
    varied: list
    fixed: dict
    rules: list
    rows: list
    steps: list
    transitions: list
    depth_width: list
    budgets: list
    verdict: list
    depth_key: str = "depth"
    width_key: str = "width"
    seconds: float = 0.0
    measure_seconds: float = 0.0
    notes: list = field(default_factory=list)
    measured_now: int = 0
    from_store: int = 0

    def to_dict(self) -> dict:
        """One JSON-friendly dict (what ``seprank study --json`` prints).

        Returns
        -------
        dict
            ``rows`` (each: the cell's keys, ``rank``, ``label`` and the rest), ``steps``
            (``from``, ``to``, ``ratio``, ``regime``...), ``verdict`` and the other answers.
        """
        rows = [{**r["values"], **{c: r.get(c) for c in RESULT_COLUMNS if c != "varied"}}
                for r in self.rows]
        return {"arch": self.arch, "varied": self.varied, "fixed": self.fixed,
                "rules": self.rules, "rows": rows, "steps": self.steps,
                "transitions": self.transitions, "depth_width": self.depth_width,
                "budgets": self.budgets, "verdict": self.verdict, "notes": self.notes,
                "seconds": round(self.seconds, 3),
                "measure_seconds": round(self.measure_seconds, 3)}

    def to_frame(self):
        """The rows as a pandas DataFrame (pandas must be installed).

        Returns
        -------
        pandas.DataFrame
            One row per cell: its keys and the result columns.
        """
        import pandas as pd

        return pd.DataFrame(self.to_dict()["rows"])

    def _table(self) -> tuple[list, list]:
        cols = self.keys() + ["rank", "label", "params"]
        rows = [[r["values"].get(k) for k in self.keys()]
                + [r.get("rank"), r.get("label") or r.get("status"), r.get("params")]
                for r in self.rows]
        return cols, rows

    def to_latex(self) -> str:
        """The rows as a booktabs LaTeX table: the cell's keys, rank, label, parameters.

        Returns
        -------
        str
            A ``tabular`` (``\\usepackage{booktabs}`` in the document).
        """
        return tables.latex_table(*self._table(),
                                  comment=f"seprank study of {self.arch}: measured ranks")

    def to_markdown(self) -> str:
        """The rows as a Markdown pipe table (the columns of :meth:`to_latex`).

        Returns
        -------
        str
            The table.
        """
        return tables.markdown_table(*self._table())

    def keys(self) -> list[str]:
        """Every key of the cells (varied first), the CSV's first columns.

        Returns
        -------
        list of str
            The keys.
        """
        out = list(self.varied)
        for r in self.rows:
            out += [k for k in r["values"] if k not in out]
        return out

    def to_csv(self, path) -> Path:
        """Write the rows as a CSV (:func:`seprank.paths.write_text`: atomic, never through a link).

        Parameters
        ----------
        path : str or pathlib.Path
            The file.

        Returns
        -------
        pathlib.Path
            The file written.
        """
        path = Path(path)
        cols = self.keys() + RESULT_COLUMNS
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=cols, restval="", lineterminator="\n")
        w.writeheader()
        for r in self.rows:
            w.writerow({**{k: _text(v) for k, v in r["values"].items()},
                        **{c: _text(r.get(c)) for c in RESULT_COLUMNS},
                        "varied": ",".join(self.varied)})
        return write_text(path, buf.getvalue())

    def lines(self) -> list[str]:
        """The result as text: rows, steps, transitions, map, budgets, verdict.

        Returns
        -------
        list of str
            The lines.
        """
        out = [f"study of {self.arch}: varying {', '.join(self.varied)}"
               + (f"; fixed {kv_text(self.fixed)}" if self.fixed else "")
               + (f"; rules {'; '.join(self.rules)}" if self.rules else "")]
        for r in self.rows:
            what = (f"{r['rank']} [{r['label']}]" if r.get("rank") is not None and
                    str(r.get("status", "done")).startswith("done") else
                    f"{r['status']}: {short(r.get('error') or '')}")
            extra = f"  ({r['params']} parameters)" if r.get("params") is not None else ""
            out.append(f"  {kv_text({k: r['values'][k] for k in self.varied})}: {what}{extra}")
        if self.steps:
            out.append("steps (growth ratio log r(L') / log r(L)):")
        for s in self.steps:
            ratio = "-" if s["ratio"] is None else f"{s['ratio']:.3f} ({s['ratio_label']})"
            bound = (f"; proved bound's regime: {s['bound_regime']}"
                     if s.get("bound_regime") else "")
            out.append(f"  {kv_text(s['series'])} {s['from']}->{s['to']}: {ratio}: "
                       f"{s['regime']} ({s['why']}){bound}")
        for t in self.transitions:
            out.append(f"transition {kv_text(t['series']) or ''}: {t['text']}")
        for m in self.depth_width:
            others = f" {kv_text(m['others'])}" if m["others"] else ""
            out.append(f"map{others} {m['from']}->{m['to']}: depth-efficient at "
                       f"{self.width_key} {m['efficient'] or '-'}, not at "
                       f"{m['inefficient'] or '-'}")
        for b in self.budgets:
            fit = b.get("paper_fit")
            beside = "" if not fit else (
                f"; the paper's fit at 12 L d^2 = {fit['params_paper_count']}: depth "
                f"{fit['depth']:.2f}, width {fit['width']:.0f}"
                + (f" ({fit['note']})" if fit["note"] else
                   " (under one layer: the fit says no depth at this size)"
                   if fit["depth"] < 1 else ""))
            out.append(f"budget <= {b['budget']} parameters: {kv_text(b['winner'])} with rank "
                       f"{b['rank']} [{b['kind']}]"
                       + ("" if b["certain"] else " (another cell within the budget has a "
                          "lower bound only: it might be larger)") + beside)
        out += [f"note: {n}" for n in self.notes]
        out += [f"verdict: {v}" for v in self.verdict]
        return out


def kv_text(d: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in d.items())


def _text(v) -> str:
    if v is None:
        return ""
    if isinstance(v, (list, tuple)):
        return json.dumps(v)
    return str(v)


def short(text: str, limit: int = 160) -> str:
    """``text`` cut at ``limit`` characters (the whole text stays in the CSV and JSON)."""
    text = str(text).replace("refused: refused:", "refused:")
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def json_list(text) -> list:
    try:
        v = json.loads(text or "[]")
    except (TypeError, ValueError):
        return []
    return v if isinstance(v, list) else []


def read_csv(path) -> list[dict]:
    """The rows of a study CSV, as text (none if the file does not exist).

    Parameters
    ----------
    path : str or pathlib.Path

    Returns
    -------
    list of dict
    """
    path = Path(path)
    if not path.exists():
        return []
    try:
        with path.open(newline="") as f:
            return list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ConfigError(f"csv={str(path)!r} cannot be read ({exc})") from None


def analyse(arch: str, varied: list, fixed: dict, rules: list, rows: list,
            depth_key: str = "depth", width_key: str = "width") -> Study:
    """A :class:`Study` from its rows, measured now or read from a CSV.

    The steps, transitions, map, budgets and verdict come from
    :mod:`seprank.studies.study_analysis`.

    Parameters
    ----------
    arch : str
        The architecture's name.
    varied : list of str
        The varied keys.
    fixed : dict
        The fixed keys.
    rules : list of str
        The rules, as text.
    rows : list of dict
        The rows (``values``, ``rank``, ``kind``, ``label``, ``degree``, ``params``...).
    depth_key, width_key : str, default "depth", "width"
        Which keys are the depth and the width.

    Returns
    -------
    Study
        The rows with their answers.
    """
    for r in rows:
        r["varied"] = list(varied)
    steps = sa.steps_of(rows, depth_key)
    budgets = sa.budgets(rows)
    if arch == "attention":  # the paper's fit beside each winner, at the paper's count
        for b in budgets:
            paper = 3 * b["budget"]  # 12 L d^2 (with the feed-forward layers) = 3 x 4 L d^2
            fit = fit_optimal_shape(paper)
            b["paper_fit"] = {"params_paper_count": paper, "depth": fit["depth"],
                              "width": fit["width"], "note": fit.get("note", "")}
    return Study(
        arch=arch, varied=list(varied), fixed=fixed, rules=list(rules), rows=rows,
        steps=steps, transitions=_transitions(steps),
        depth_width=sa.depth_width_map(steps, width_key), budgets=budgets,
        verdict=sa.verdict(rows, steps, depth_key, width_key) + _paper_lines(
            arch, rows, depth_key, width_key),
        depth_key=depth_key, width_key=width_key)


def _number(text):
    t = str(text).strip()
    if t.lstrip("-").isdigit():
        return int(t)
    return t


def from_csv(path, depth_key: str = "depth", width_key: str = "width",
             arch: str = "") -> Study:
    """A :class:`Study` drawn from a study CSV (``--plot-only``).

    The CSV is data, read as it is: nothing it names is imported or measured.

    Parameters
    ----------
    path : str or pathlib.Path
        The CSV (:data:`CSV_NAME` in a study's folder).
    depth_key, width_key : str, default "depth", "width"
        Which keys are the depth and the width.
    arch : str, default ""
        The architecture's name, for the text.

    Returns
    -------
    Study
        Its rows and the answers computed from them.

    Raises
    ------
    ConfigError
        If the file is missing, empty, or not a study CSV.
    """
    raw = read_csv(path)
    if not raw:
        raise ConfigError(f"csv={str(path)!r} does not exist or holds no rows")
    cols = list(raw[0])
    if "rank" not in cols or depth_key not in cols:
        raise ConfigError(f"csv={str(path)!r} is not a study CSV (no column "
                          f"{'rank' if 'rank' not in cols else depth_key!r})")
    keys = cols[: cols.index("rank")]
    rows = []
    for i, r in enumerate(raw, start=2):
        row = {"values": {k: _number(r[k]) for k in keys}}
        for c in RESULT_COLUMNS:
            row[c] = r.get(c) or None
        for c in ("rank", "params", "degree", "upper"):
            v = (r.get(c) or "").strip()
            if v and not (v.isdigit() and len(v) < 4000):
                raise ConfigError(f"csv={str(path)!r} line {i}: {c}={v[:20]!r} must be a "
                                  "non-negative integer or empty")
            row[c] = int(v) if v else None
        row["block_ranks"] = json_list(r.get("block_ranks"))
        if not isinstance(row["values"].get(depth_key), int):
            raise ConfigError(f"csv={str(path)!r} line {i}: {depth_key} must be an integer")
        rows.append(row)
    named = [k for k in (raw[0].get("varied") or "").split(",") if k in keys]
    varied = named or [k for k in keys if len({str(r["values"][k]) for r in rows}) > 1]
    varied = varied or [depth_key]
    fixed = {k: rows[0]["values"][k] for k in keys if k not in varied}
    return analyse(arch or "(from the CSV)", varied, fixed, [], rows, depth_key, width_key)


def _paper_lines(arch: str, rows: list, depth_key: str, width_key: str) -> list[str]:
    """For the paper's network: where the paper and the proved formula put the transition,
    beside what the study measured."""
    if arch != "attention":
        return []
    widths = sorted({r["values"].get(width_key) for r in rows
                     if isinstance(r["values"].get(width_key), int)})
    out = []
    for d in widths:
        paper = math.log(d, 3)
        formula = math.log(d * d + d + 1, 3)
        out.append(f"{width_key}={d}: the paper puts the transition at L = log3 d = "
                   f"{paper:.2f}; the proved one-head block formula's regimes meet at "
                   f"3^L = d^2 + d + 1, L = {formula:.2f} (proofs/transition.md)")
    return out


def _transitions(steps: list[dict]) -> list[dict]:
    by: dict = {}
    for s in steps:
        by.setdefault(tuple(s["series"].items()), []).append(s)
    return [{"series": dict(k), **sa.transition(v)} for k, v in by.items()]


__all__ = ["CSV_NAME", "RESULT_COLUMNS", "Study", "analyse", "from_csv", "read_csv"]
