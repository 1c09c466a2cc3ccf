"""What the figure modules share: CSV input and output (through :mod:`csv_rows`), the
committed figures' folder, the transition CSV's block ranks, and :class:`Measurer` (exact
measurements through the result store)."""

from __future__ import annotations

import json
from pathlib import Path

from seprank.engine.measure import measure
from seprank.engine.options import MeasureOptions
from seprank.errors import SeprankError
from seprank.figures import csv_rows
from seprank.figures.row_labels import labelled
from seprank.nets import LinearSelfAttention
from seprank.studies.transition import block_ranks_cell, settled
from seprank.sweeps import tasks as sweep_tasks

#: The committed figures (data a figure reads when its own output folder lacks it).
PAPER_FIGURES = Path(__file__).resolve().parents[2] / "paper_figures"
TRANSITION_CSV = "fig8_measured_transition.csv"


def write_csv(path: Path, rows: list[dict], fields: list[str]) -> None:
    """Write ``rows`` (the ``fields`` columns, a NaN empty: :func:`csv_rows.write_rows`); a
    CSV with a measured rank gets each row's ``label`` by its rule
    (:mod:`seprank.figures.row_labels`), the rows left unchanged."""
    rows = labelled(Path(path).name, rows) if "label" in fields else rows
    csv_rows.write_rows(path, rows, fields, empty_nan=True)


def read_csv(path: Path) -> list[dict]:
    """The rows of a figure's CSV, every value a string (:func:`csv_rows.read_rows`)."""
    return csv_rows.read_rows(path)


def truthy(v) -> bool:
    return v is True or str(v) == "True"


def seq_colors(n: int) -> list:
    """n colours of the cividis map (colour-blind safe) for an ordered quantity that is not
    a width (depth, budget, embedding rank): never confused with :func:`width_color`."""
    import matplotlib

    cmap = matplotlib.colormaps["cividis"]
    return [cmap(0.85 * i / max(1, n - 1)) for i in range(n)]


def transition_csv(out: Path | str | None = None) -> Path | None:
    """The measured-transition CSV (figure 8) a figure reads.

    Parameters
    ----------
    out : Path, str or None
        A figures folder; its ``fig8_measured_transition.csv`` is used if it exists.

    Returns
    -------
    Path or None
        That file, else the committed one in paper_figures/, else None.
    """
    for p in ([Path(out) / TRANSITION_CSV] if out is not None else []) + \
            [PAPER_FIGURES / TRANSITION_CSV]:
        if p.exists():
            return p
    return None


def block_ranks(cell) -> list[tuple[int, int]]:
    """The (A-degree, measured rank) pairs of a transition CSV's ``block_ranks`` cell.

    Parameters
    ----------
    cell : str or list
        A JSON list of [A-degree, rank] pairs (the current form), the older
        space-separated ``degree:rank`` form, or empty (not recorded).

    Returns
    -------
    list of (int, int)
        The pairs, A-degree ascending; empty when not recorded.
    """
    if not isinstance(cell, list):
        cell = block_ranks_cell(str(cell or "")).strip()  # the old form made JSON
        if not cell:
            return []
    pairs = cell if isinstance(cell, list) else json.loads(cell)
    return sorted((int(g), int(r)) for g, r in pairs)


class Measurer:
    """The figures' measurements: exact (modular) ones through the result store ``store``
    (a :class:`seprank.sweeps.store.Store`, or None: measure inline), so a rerun of the figures
    measures nothing already stored; float ones inline (the figure needs their spectrum,
    which the store does not keep)."""

    def __init__(self, store=None):
        self.store = store

    def __call__(self, depth, width, heads, seq_len, *, method="modular", seed=0,
                 max_samples=None, grid=None):
        """Measure one network.

        Parameters
        ----------
        depth, width, heads, seq_len : int
            The LinearSelfAttention network.
        method : str
            ``"modular"`` (through the store) or ``"float"`` (inline).
        seed : int
        max_samples : int or None
            The adaptive loop's budget.
        grid : int or None
            A fixed ``grid x grid`` sample with no adaptive stop (for ``"float"``).

        Returns
        -------
        Measurement or SimpleNamespace
            With ``rank``, ``saturated``, ``samples`` (and ``spectrum``, ``tolerance``
            for float).
        """
        net = LinearSelfAttention(depth=depth, width=width, heads=heads, seq_len=seq_len)
        if grid is not None:  # the float engine on a fixed grid (no adaptive stop)
            return measure(net, options=MeasureOptions(method=method, seed=seed, start=grid,
                                                       max_samples=grid))
        if self.store is None or method != "modular":
            return measure(net, method=method, seed=seed, max_samples=max_samples)
        from types import SimpleNamespace

        spec = sweep_tasks.spec_for_net("measure", net, method="modular", seed=seed,
                                        max_samples=max_samples, grid="figures")
        r = self.store.get(spec["key"])
        if r is None or r["status"] != "done":
            r = sweep_tasks.run_task(spec)
            self.store.put(spec, r)
            if r["status"] != "done":
                raise SeprankError(f"figures: depth={depth} width={width} heads={heads} "
                                   f"seq_len={seq_len}: {r['error']}")
        return SimpleNamespace(**r["measurement"])


def transition_exact(trows) -> list[dict]:
    """Transition CSV rows whose measured rank is exact, proved, or saturated."""
    return [r for r in trows if settled(r)]

