"""The ``label`` of each row of a figure's CSV, derived from the row's own fields.

Every CSV row with a measured rank says what that rank is, in the words of
:mod:`seprank.labels` (docs/explanation/labels.md). The label is derived from what the
row records: its rank, the proved bound it is compared with (a column of the row, its
``exact_proved``, or the bound of the configuration the row names, computed after
measuring and never used to measure), ``saturated`` and ``budget_hit`` where recorded. A
row that records no saturation is labelled ``lower bound, not saturated`` unless it meets
its bound (the weaker label: saturation is not established by the row). So the label a
figure writes and the one :func:`relabel_csv` gives a committed CSV are the same.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from seprank import labels
from seprank.figures.csv_rows import read_table, write_rows
from seprank.nets import LinearSelfAttention
from seprank.nets.embedded_attention import EmbeddedAttention
from seprank.theory.architecture_bounds import bound_of
from seprank.theory.bounds import theorem_bound


@dataclass(frozen=True)
class RankRule:
    """How the rows of one figure CSV are labelled.

    Parameters
    ----------
    rank : str
        The column of the measured rank (``label`` is written right after it).
    upper : str or None
        The column of the proved upper bound (None: the row's ``exact_proved``, or
        ``bound``).
    bound : callable or None
        ``row -> (upper, status, source)``: the bound of the configuration the row names
        (for a CSV that records none).
    """

    rank: str
    upper: str | None = None
    bound: Callable | None = None

    def __call__(self, row: dict) -> str:
        """The row's label ("" for a row without a measured rank)."""
        v = row.get(self.rank)
        if v is None or str(v).strip() == "":
            return ""
        up, status, source = row.get(self.upper) if self.upper else None, labels.PROVED, None
        if self.bound is not None:
            up, status, source = self.bound(row)
        elif (up is None or str(up).strip() == "") and labels.truthy(row.get("exact_proved")):
            up = v
        return labels.rank_label(v, row.get("saturated"), row.get("budget_hit"), up, status,
                                 source)


def _attention_n2(row) -> tuple:
    """Figure 5's networks: d_x = 2, N = 2, one head, at the row's depth."""
    net = LinearSelfAttention(depth=int(row["depth"]), width=2, heads=1, seq_len=2)
    return theorem_bound(net)["upper"], labels.PROVED, None


def _embedded(row) -> tuple:
    """Figure 9's networks (balanced partition): their [D] bound, stated by the module."""
    net = EmbeddedAttention(vocab=int(row["vocab"]), embed_rank=int(row["embed_rank"]),
                            width=int(row["width"]), depth=int(row["depth"]),
                            seq_len=int(row["seq_len"]))
    b = bound_of(net, tuple(range(net.seq_len // 2)))
    return b.value, labels.bound_status(b.tag), b.source


#: Each figure CSV with a measured rank -> its rule (figures 8 and 12 are written by
#: :mod:`seprank.studies.transition` and :func:`seprank.studies.verify.upgrade_row`, by
#: the same :func:`seprank.labels.rank_label`).
RULES = {
    "fig1_rank_vs_depth.csv": RankRule("measured_rank"),
    "fig4_heads.csv": RankRule("measured_rank", "upper_proved"),
    "fig5_exact_vs_float.csv": RankRule("exact_rank", bound=_attention_n2),
    "fig9_vocab_bottleneck.csv": RankRule("measured", bound=_embedded),
    "fig11_block_ranks.csv": RankRule("measured_block_rank", "block_bound"),
    "fig13_heads_bound.csv": RankRule("measured_rank", "upper_proved"),
}


def fields_with_label(fields: list[str], rank: str) -> list[str]:
    """``fields`` with ``label`` right after the rank column (unchanged if it has one)."""
    if "label" in fields:
        return list(fields)
    i = fields.index(rank) + 1
    return [*fields[:i], "label", *fields[i:]]


def labelled(name: str, rows: list[dict]) -> list[dict]:
    """Copies of ``rows`` with ``label`` filled by the rule of the CSV ``name`` (a row's
    recorded label is kept; a CSV without a rule: the rows unchanged).

    Parameters
    ----------
    name : str
        The CSV's file name (a key of :data:`RULES`).
    rows : list of dict
        Its rows.

    Returns
    -------
    list of dict
    """
    rule = RULES.get(name)
    if rule is None:
        return rows
    return [{**r, "label": r.get("label") or rule(r)} for r in rows]


def relabel_csv(path: Path | str) -> Path:
    """Rewrite a committed figure CSV with each row's label derived from its own fields.

    Nothing is measured: the other columns are written back as they were read, the
    ``label`` column (added after the rank column where missing) is recomputed.

    Parameters
    ----------
    path : Path or str
        A figure CSV named in :data:`RULES`.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    KeyError
        If the CSV has no rule.
    """
    path = Path(path)
    rule = RULES[path.name]
    fields, rows = read_table(path)
    return write_rows(path, [{**r, "label": rule(r)} for r in rows],
                      fields_with_label(fields, rule.rank))
