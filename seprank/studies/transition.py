"""The measured transition: exact separation ranks at depths 1-5 (width 2) and 1-3
(widths 3, 4), beside the proved block bound, and the growth ratio of each.

``seprank transition [--quick] [--out DIR]`` measures every configuration of the grid
(strategy auto: the catalecticant one for these networks, exact ranks with no grid) as a
sweep through the result store
(:mod:`seprank.sweeps.runner`: each finished configuration is stored at once, so an interrupted
run keeps its work and a rerun measures only what is missing), writes the CSV from the
store (rows already in the CSV are kept and not measured again), then draws the figure
from the CSV. The growth ratio at depth L is
log sep(L+1) / log sep(L): about 3 while depth pays doubly exponentially, tending to
(L+1)/L once it does not. Columns: ``measured`` (certified lower bound), ``label`` (what
it is, in the words of :mod:`seprank.labels`, derived from the row's own fields:
:func:`row_label`), ``sample_saturated``
(the rank stopped below the sample size), ``saturation_bound`` and ``saturated`` (the
Schwartz-Zippel bound and the label it allows: :mod:`seprank.engine.saturation`; blank in rows
measured before they were recorded), ``exact_proved`` (measured == the proved upper bound:
the separation rank of that network, with no probability involved), ``block_ranks`` (a
JSON list of [A-degree, measured rank] pairs, one per graded block; empty in rows measured
before it was recorded). ``ratio_measured``
uses measured ranks that are exact (proved, or saturated);
``ratio_formula`` the proved bound (for H = 1 the block formula, which every
measurement so far attains).
"""

from __future__ import annotations

import csv
import json
import math
import tempfile
from pathlib import Path

from seprank import labels
from seprank.engine import bars
from seprank.nets import LinearSelfAttention
from seprank.nets.base import config_of
from seprank.paths import atomic_write
from seprank.registry import deprecated, old_names
from seprank.studies.study import measure_cells
from seprank.studies.study_cells import Cell
from seprank.sweeps import block_data
from seprank.sweeps.block_tasks import run_blocks
from seprank.sweeps.store import DEFAULT_DB, Store
from seprank.theory.bounds import theorem_bound
from seprank.theory.regimes import growth_ratios

#: (width, heads, seq_len, depths): N = 2 d_x, so each side has d_x positions (generic).
GRIDS = {
    "quick": [(2, 1, 4, (1, 2, 3)), (2, 2, 4, (1, 2, 3)), (3, 1, 6, (1, 2)),
              (4, 1, 8, (1, 2))],
    "deep": [(2, 1, 4, (1, 2, 3, 4, 5)), (2, 2, 4, (1, 2, 3, 4, 5)), (3, 1, 6, (1, 2, 3)),
             (3, 3, 6, (1, 2, 3)), (4, 1, 8, (1, 2, 3)), (4, 2, 8, (1, 2, 3)),
             (4, 4, 8, (1, 2, 3))],
}
CSV_NAME = "fig8_measured_transition.csv"
COLUMNS = ["width", "heads", "seq_len", "depth", "measured", "label", "sample_saturated",
           "saturation_bound", "saturated", "upper_proved", "exact_proved", "ratio_measured",
           "ratio_formula", "strategy", "blocks", "largest_block", "samples", "seconds",
           "seed", "prime", "block_ranks"]


def networks(grid: str) -> list[LinearSelfAttention]:
    """The grid's networks: one head first (the formula's case), then the others, each
    cheapest first (by proved bound: an ordering only, never a result). Called ``plan``
    before (still answers, deprecated: a plan is the planner's)."""
    nets = [LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N)
            for d, H, N, depths in GRIDS[grid] for L in depths]
    return sorted(nets, key=lambda n: (n.heads > 1, theorem_bound(n)["upper"]))


def row_label(row: dict) -> str:
    """The label of a transition row from its own fields (measured, upper_proved,
    saturated): ``exact, proved`` where it meets the proved bound, else ``lower bound,
    saturated`` / ``not saturated`` (:func:`seprank.labels.rank_label`).

    Parameters
    ----------
    row : dict
        A row (as :func:`row_from` makes it, or as a CSV holds it).

    Returns
    -------
    str
    """
    up = proved_upper(row)
    return labels.rank_label(row["measured"], row.get("saturated"), row.get("budget_hit"),
                             up, labels.PROVED)


def proved_upper(row: dict) -> int | None:
    """The proved block bound of a row's configuration, recomputed (never read from the
    file: a CSV from elsewhere is data); None if the row's ``upper_proved`` disagrees (the
    row then earns no "exact, proved") or the bound is too large to write."""
    try:
        net = LinearSelfAttention(depth=int(row["depth"]), width=int(row["width"]),
                                  heads=int(row["heads"]), seq_len=int(row["seq_len"]))
    except (KeyError, TypeError, ValueError):
        return None
    up = theorem_bound(net).get("upper")
    recorded = row.get("upper_proved")
    if up is None or (recorded not in (None, "") and str(recorded) != str(up)):
        return None
    return int(up)


def _key(row) -> tuple:
    return tuple(int(row[c]) for c in ("width", "heads", "seq_len", "depth"))


def block_ranks_cell(cell: str) -> str:
    """A ``block_ranks`` cell in the current form.

    Parameters
    ----------
    cell : str
        A JSON list of [A-degree, rank] pairs, the older space-separated ``degree:rank``
        form, or empty.

    Returns
    -------
    str
        The JSON form (empty stays empty; a cell in neither form is returned as it is).
    """
    if not cell or not cell.strip() or cell.lstrip().startswith("["):
        return cell or ""
    try:
        return json.dumps([[int(g), int(r)] for g, r in (x.split(":") for x in cell.split())])
    except ValueError:  # not the old form either: left as it is
        return cell


def read(path: Path) -> list[dict]:
    """The rows of a transition CSV.

    Parameters
    ----------
    path : Path

    Returns
    -------
    list of dict
        One per row, ``block_ranks`` in the JSON form whatever the file's (none if the
        file does not exist).
    """
    if not path.exists():
        return []
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["block_ranks"] = block_ranks_cell(r.get("block_ranks") or "")
    return rows


def row_from(net, m: dict, seed: int) -> dict:
    """The CSV row of one configuration from its Measurement (as ``to_dict()``, or as the
    result store holds it)."""
    ub = theorem_bound(net)["upper"]
    row = {
        "width": net.width, "heads": net.heads, "seq_len": net.seq_len, "depth": net.depth,
        "measured": m["rank"], "label": "", "sample_saturated": m["sample_saturated"],
        "saturation_bound": m["saturation_bound"], "saturated": m["saturated"],
        "upper_proved": ub, "exact_proved": m["rank"] == ub, "ratio_measured": "",
        "ratio_formula": "", "strategy": m["strategy"], "blocks": len(m["blocks"]),
        "largest_block": max(b["rank"] for b in m["blocks"]), "samples": m["samples"][0],
        "seconds": round(m["seconds"], 1), "seed": seed, "prime": m["prime"],
        "block_ranks": json.dumps([[b["degree"], b["rank"]] for b in m["blocks"]]),
    }
    row["label"] = row_label(row)  # from the columns the CSV keeps: a relabel gives the same
    return row


def rows_from_blocks(path: Path, say=None) -> list[dict]:
    """The rows of the complete measurements that a block data file holds (``seprank blocks
    --data``: :mod:`seprank.sweeps.block_data`), each assembled from its committed blocks
    as ``seprank blocks`` assembles it (in a temporary store; nothing is ranked).

    A measurement is a row only where it is a transition configuration (the attention
    network with its default query position, output coordinate, no residual, and the default
    partition); one with a block missing is left out, with a line to ``say``.

    Parameters
    ----------
    path : Path
        The data file.
    say : callable, optional
        Receives a line per measurement left out.

    Returns
    -------
    list of dict
        One row per complete measurement (:func:`row_from`).

    Raises
    ------
    ConfigError
        A line that is not a block record (:func:`seprank.sweeps.block_data.read`).
    """
    say = say or (lambda msg: None)
    groups: dict = {}
    for line in block_data.read(Path(path)).values():
        key = json.dumps({k: line[k] for k in ("arch", "params", "partition", "seed", "prime")},
                         sort_keys=True)
        groups.setdefault(key, line)
    rows = []
    for line in groups.values():
        p = line["params"]
        try:
            net = LinearSelfAttention(depth=p["depth"], width=p["width"], heads=p["heads"],
                                      seq_len=p["seq_len"])
        except (KeyError, TypeError, ValueError):
            net = None
        if (net is None or line["arch"] != "attention" or line["partition"] is not None
                or {k: v for k, v in config_of(net).items() if k in p} != p):
            say(f"{path}: {line['arch']} {p}: not a configuration of the transition grid's "
                "form; left out")
            continue
        with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "blocks.sqlite") as st:
            r = run_blocks(net, st, None, seed=int(line["seed"]), prime=int(line["prime"]),
                           max_blocks=0, progress=False, data=path)
        if r.measurement is None:
            say(f"{path}: depth {net.depth} width {net.width} heads {net.heads}: "
                f"{r.stored} of {r.blocks} blocks committed; left out until all are")
            continue
        rows.append(row_from(net, r.measurement.to_dict(), int(line["seed"])))
    return rows


def merge(rows: list[dict], new: list[dict]) -> list[dict]:
    """``rows`` with each of ``new`` in place of the row of its configuration (or added)."""
    keys = {_key(r) for r in new}
    return [r for r in rows if _key(r) not in keys] + list(new)


def settled(row) -> bool:
    """Whether a transition row's measured rank is exact, proved (equal to the proved bound)
    or saturated: the rows whose ranks enter a measured growth ratio.

    Parameters
    ----------
    row : dict
        A transition row (CSV values as text, or as bools).

    Returns
    -------
    bool
    """
    exact = str(row["exact_proved"]) == "True" and proved_upper(row) == int(row["measured"])
    return exact or str(row["saturated"]) == "True"


def fill_ratios(rows: list[dict]) -> None:
    """Growth ratios from the measured ranks (exact: proved, or saturated) and from the
    proved bound."""
    groups: dict = {}
    for r in rows:
        g = groups.setdefault((int(r["width"]), int(r["heads"])), {"m": {}, "f": {}})
        if settled(r) and int(r["measured"]) > 1:
            g["m"][int(r["depth"])] = math.log(int(r["measured"]))
        g["f"][int(r["depth"])] = math.log(int(r["upper_proved"]))
    for r in rows:
        g = groups[(int(r["width"]), int(r["heads"]))]
        for col, src in (("ratio_measured", "m"), ("ratio_formula", "f")):
            v = growth_ratios(g[src]).get(int(r["depth"]))
            r[col] = "" if v is None else round(v, 4)


def write(rows: list[dict], path: Path) -> None:
    rows.sort(key=_key)
    fill_ratios(rows)
    for r in rows:  # a row read from an older CSV gets its label from its own fields
        r["label"] = r.get("label") or row_label(r)
    with atomic_write(path, newline="") as f:  # a temporary file, then a rename
        w = csv.DictWriter(f, fieldnames=COLUMNS, restval="")
        w.writeheader()
        w.writerows(rows)


def run(grid: str = "deep", out: Path | str = "paper_figures", seed: int = 0,
        progress: bool = True, max_bound: int | None = None, *,
        db: Path | str = DEFAULT_DB, executor: str = "processes",
        scheduler: str | None = None, workers: int | None = None,
        worker_memory: int | None = None, retries: int = 2) -> tuple[list[dict], int]:
    """Measure what the transition CSV in ``out`` lacks, as a sweep, then write the CSV.

    The sweep goes through the result store ``db`` (configurations already stored are not
    measured again; each is stored as it finishes); the CSV is then written from the store.
    Ctrl-C: the CSV is written with what finished, then KeyboardInterrupt propagates.

    Parameters
    ----------
    grid : {"deep", "quick"}, default "deep"
        The grid of (width, heads, seq_len, depths) measured (``GRIDS``).
    out : str or pathlib.Path, default "paper_figures"
        The folder of the CSV (``fig8_measured_transition.csv``).
    seed : int, default 0
        The measurement seed.
    progress : bool, default True
        Show progress.
    max_bound : int, optional
        Skip configurations whose proved bound exceeds it (planning only).
    db : str or pathlib.Path, default DEFAULT_DB
        The result store.
    executor : {"serial", "processes", "dask"}, default "processes"
        Where the tasks run (:func:`seprank.sweeps.runner.run`).
    scheduler : str, optional
        Address of an existing Dask scheduler (``executor="dask"`` only).
    workers : int, optional
        Number of workers (default: all cores).
    worker_memory : int, optional
        Bytes of memory per worker (default: the memory available here).
    retries : int, default 2
        Resubmissions of a task that failed unexpectedly (see :func:`seprank.sweeps.runner.run`).

    Returns
    -------
    rows : list of dict
        The CSV's rows.
    failed : int
        How many configurations failed or were refused (stored with the reason).

    Raises
    ------
    KeyboardInterrupt
        On Ctrl-C, after the CSV is written.
    """
    out = Path(out)
    path = out / CSV_NAME
    rows = read(path)
    done = {_key(r) for r in rows}
    todo = [n for n in networks(grid) if (n.width, n.heads, n.seq_len, n.depth) not in done
            and (max_bound is None or theorem_bound(n)["upper"] <= max_bound)]
    say = bars.write if progress else (lambda s: None)  # above the sweep's bar
    say(f"transition ({grid}): {len(done)} configurations in {path}, {len(todo)} to measure "
        f"(or read from the store {db})")
    # the study's one path (a preset): these cells, measured through the planner and store
    cells = [Cell(dict(config_of(n), architecture=None), net=n) for n in todo]
    for c in cells:
        c.values.pop("architecture")
    run_kw = dict(executor=executor, scheduler=scheduler, workers=workers,
                  worker_memory=worker_memory, retries=retries, progress=progress,
                  label=f"transition {grid}", say=say)
    measure_kw = dict(partition=None, method="modular", strategy="auto", seed=seed, prime=None,
                      max_samples=None)
    found, _, o = measure_cells(cells, ["depth"], measure_kw, run_kw, db=db)
    failed = 0
    for net, r in zip(todo, found):
        if r.get("measurement") is not None:
            rows.append(row_from(net, r["measurement"], seed))
        elif r["status"] != "not run":
            failed += 1
            say(f"  depth {net.depth} width {net.width} heads {net.heads}: {r['status']}: "
                f"{r['error']}")
    write(rows, path)
    if o.interrupted:
        raise KeyboardInterrupt
    return rows, failed


#: ``plan``, :func:`networks`' old name (a plan is the planner's decision for one network).
PLAN_NAME = deprecated("seprank.studies.transition.plan", since="0.2.0",
                       instead="use seprank.studies.transition.networks")


#: ``plan``, :func:`networks`' old name, with a DeprecationWarning.
__getattr__ = old_names(__name__, {"plan": (networks, PLAN_NAME)})
