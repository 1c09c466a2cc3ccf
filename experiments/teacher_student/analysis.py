"""Summary (summary.md beside results.csv) and figure 10 from a teacher-student CSV.

``python -m experiments.teacher_student.analysis RESULTS.csv [--figure PREFIX]``

Every statement is computed from the rows: "fitted" means test FVU <= ``FIT`` on every
seed of the cell; the best depth has the lowest median over seeds, and is "clear" when
its worst seed beats every other depth's best seed, otherwise "within seed spread".
Like with like: the tables, verdicts and figure use the rows of one training protocol
(the one with most rows); the rank-1 control is checked under every protocol present.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

from seprank.figures import csv_rows
from seprank.paths import write_text

from .targets import row_label

FIT = 0.1  # test FVU at or below which a cell counts as fitted (10% of variance left)
CONTROL = "ctrl-R1"  # targets.CONTROL (not imported: this module stays numpy-only)


def protocol(r) -> str:
    """A row's training protocol (rows from before the column are protocol v1)."""
    return r.get("protocol") or "v1"


def main_protocol(rows) -> str:
    """The protocol with most rows (a tie goes to the later name: v3 over v1): the one the
    tables compare like with like."""
    n: dict = {}
    for r in rows:
        n[protocol(r)] = n.get(protocol(r), 0) + 1
    return max(n, key=lambda p: (n[p], p))


def _cells(rows):
    """{(student, budget, depth, target): list of rows}."""
    out: dict = {}
    for r in rows:
        k = (r["student"], int(r["budget"]), int(r["depth"]), r["target"])
        out.setdefault(k, []).append(r)
    return out


def stats(rs) -> dict:
    v = np.array([float(r["test_fvu"]) for r in rs])
    return dict(n=len(v), median=float(np.median(v)), mean=float(v.mean()),
                std=float(v.std(ddof=1)) if len(v) > 1 else 0.0,
                min=float(v.min()), max=float(v.max()))


def target_ranks(rows) -> dict:
    """{target: sorted list of its measured ranks over seeds}."""
    out: dict = {}
    for r in rows:
        out.setdefault(r["target"], set()).add(int(r["target_rank"]))
    return {t: sorted(v) for t, v in out.items()}


def target_order(rows) -> list[str]:
    tr = target_ranks(rows)
    return sorted(tr, key=lambda t: (t.startswith("teacher"), float(np.median(tr[t])),
                                      t != CONTROL))


def control(rows, target: str = CONTROL) -> dict:
    """Which (student, budget, depth) cells fit ``target`` (the rank-1 control by
    default) on every seed; pass the rows of one protocol."""
    fitted, failed = [], []
    for (st, b, L, t), rs in sorted(_cells(rows).items()):
        if t != target:
            continue
        s = stats(rs)
        (fitted if s["max"] <= FIT else failed).append(((st, b, L), s))
    return dict(fitted=fitted, failed=failed)


def best_depths(rows) -> dict:
    """{(student, budget, target): (best depth, 'clear' | 'within seed spread', stats)}."""
    by: dict = {}
    for (st, b, L, t), rs in _cells(rows).items():
        by.setdefault((st, b, t), {})[L] = stats(rs)
    out = {}
    for k, per in by.items():
        best = min(per, key=lambda L: per[L]["median"])
        clear = all(per[L]["min"] > per[best]["max"] for L in per if L != best)
        out[k] = (best, "clear" if clear else "within seed spread", per)
    return out


def theory(student: str, budget: int, depths, widths: dict) -> dict:
    """H = 1 formula at the student's widths: preferred depth and transition depths."""
    from seprank.theory.bounds import generic_block_bound_log10
    from seprank.theory.regimes import expressivity_optimal_depth, formula_transition_depth

    # expressivity_optimal_depth counts 12 L d^2; the linear core spends 4 L d^2.
    equiv = budget * (3 if student == "linear" else 1)
    trans = {L: formula_transition_depth(widths[L]) for L in depths}
    formula = {L: generic_block_bound_log10(L, widths[L]) for L in depths}
    return dict(optimal=expressivity_optimal_depth(equiv), transition=trans,
                formula_log10=formula, argmax=max(formula, key=formula.get))


def _fmt(s) -> str:
    """Median [min, max] over seeds (a blown-up seed cannot hide in a mean)."""
    if s["n"] == 1:
        return f"{s['median']:.3g}"
    return f"{s['median']:.3g} [{s['min']:.3g}, {s['max']:.3g}]"


def report(rows) -> str:
    """The summary as Markdown (every number from the rows or from seprank.theory)."""
    all_rows, main = rows, main_protocol(rows)
    rows = [r for r in rows if protocol(r) == main]
    others = len(all_rows) - len(rows)
    L_ = sorted({int(r["depth"]) for r in rows})
    tr = target_ranks(rows)
    order = target_order(rows)
    cells = _cells(rows)
    seeds = sorted({int(r["seed"]) for r in rows})
    lines = [
        "# Teacher-student: can a student fit a target of known separation rank?", "",
        f"{len(rows)} runs of training protocol {main}"
        + (f" (the tables and verdicts; {others} runs of other protocols appear only in "
           "the control section)" if others else "")
        + f", seeds {seeds}; test error = fraction of variance unexplained "
        f"(FVU, 1 = the mean); a cell is *fitted* when test FVU <= {FIT} on every seed. "
        "Cells: median [min, max] over seeds (medians, since a deep linear student can blow "
        "up on test points on one seed). " + _blowups(rows) + _restarts(rows), "",
        "Targets (rank across the balanced partition): "
        + "; ".join(f"{t}: {'/'.join(map(str, tr[t]))} ({_rank_how(rows, t)})" for t in order),
        "",
    ]
    lines += control_section(all_rows, main)
    bd = best_depths(rows)
    for st in sorted({r["student"] for r in rows}):
        for b in sorted({int(r["budget"]) for r in rows if r["student"] == st}):
            ws = {int(r["depth"]): int(r["width"]) for r in rows
                  if r["student"] == st and int(r["budget"]) == b}
            lines += ["", f"## {st} student, budget {b:,} non-embedding parameters", "",
                      "| target (rank) | " + " | ".join(f"L={L} (d={ws[L]})" for L in L_)
                      + " | best depth |", "|---" * (len(L_) + 2) + "|"]
            for t in order:
                if (st, b, t) not in bd:
                    continue
                best, how, per = bd[(st, b, t)]
                row = [_fmt(per[L]) if L in per else "" for L in L_]
                row = [f"**{x}**" if L == best else x for L, x in zip(L_, row)]
                lines.append(f"| {t} ({'/'.join(map(str, tr[t]))}) | " + " | ".join(row)
                             + f" | {best} ({how}) |")
            th = theory(st, b, L_, ws)
            lines += [
                "",
                "Theory at these widths (H = 1 block formula, seprank.theory): "
                "transition depth of each depth's width (depth-efficient where L <= it): "
                + ", ".join(f"L={L}: {th['transition'][L]:.2f}" for L in L_)
                + f"; expressivity-optimal depth {th['optimal']} "
                f"(seprank.theory.regimes, budget counted as 12 L d^2"
                + (" = 3 x 4 L d^2" if st == "linear" else "")
                + f"); the formula's rank at these widths is largest at L={th['argmax']}.",
            ]
            if st == "linear":
                caps = {}
                for r in rows:
                    if r["student"] == st and int(r["budget"]) == b:
                        caps[int(r["depth"])] = (float(r["capacity_log10"]), r["capacity_which"])
                lines.append(
                    "Proved capacity of the linear student (capacity.py): "
                    + ", ".join(f"L={L}: {_cap(caps[L][0])} ({caps[L][1]})" for L in sorted(caps))
                    + "."
                )
            else:
                g = [int(r["student_grid_rank"]) for r in rows if r["student"] == st
                     and int(r["budget"]) == b and r["student_grid_rank"] != ""]
                if g:
                    lines.append(
                        f"No capacity theorem for softmax attention; measured float grid "
                        f"rank of the trained students: min {min(g)}, max {max(g)} "
                        f"(grid side caps it)."
                    )
    lines += ["", "## Agree, disagree, cannot tell", ""] + verdicts(rows, cells, bd)
    return "\n".join(lines) + "\n"


def control_section(rows, main: str) -> list[str]:
    """The rank-1 control under each protocol (a table of worst-seed FVU per cell) and
    the old product sop-R1 (rank 1, not the control) under the main protocol."""
    lines = [f"## Rank-1 control ({CONTROL})", "",
             f"{CONTROL}: f = (a . u_0)(sum over j in B of b . u_j), a product g(u_A) h(u_B) "
             "that every student class can represent at every depth (the linear student "
             "exactly: tests set its weights by hand; softmax to any accuracy).", ""]
    protos = sorted({protocol(r) for r in rows if r["target"] == CONTROL})
    if not protos:
        lines.append(f"No {CONTROL} rows: the control was not run.")
    for p in protos:
        rs = [r for r in rows if protocol(r) == p]
        c = control(rs)
        cells = c["fitted"] + c["failed"]
        n_seeds = max(s["n"] for _, s in cells)
        short = [k for k, s in cells if s["n"] < n_seeds]
        worst = max(s["max"] for _, s in cells)
        if c["failed"]:
            verdict = (
                f"**Not every student fits the control**: {len(c['fitted'])} of "
                f"{len(cells)} (student, budget, depth) cells fit it on every seed"
            )
        else:
            verdict = (f"**Every student fits the control**: {len(cells)} of {len(cells)} "
                       f"(student, budget, depth) cells fit it on every seed")
        lines.append(
            f"Protocol {p}: {verdict} (worst seed FVU {worst:.3g}; "
            f"up to {n_seeds} seeds a cell"
            + (f"; {len(short)} cells have fewer seeds, so their check is incomplete" if short
               else "") + ")."
        )
        per = {k: s for k, s in cells}
        Ls = sorted({k[2] for k in per})
        lines += ["", "| student, budget | " + " | ".join(f"L={L}" for L in Ls) + " |",
                  "|---" * (len(Ls) + 1) + "|"]
        for st, b in sorted({k[:2] for k in per}):
            row = []
            for L in Ls:
                s = per.get((st, b, L))
                if s is None:
                    row.append("")
                    continue
                mark = "fitted" if s["max"] <= FIT else "**not fitted**"
                n = f", {s['n']} seeds" if s["n"] < n_seeds else ""
                row.append(f"{s['max']:.3g} ({mark}{n})")
            lines.append(f"| {st}, {b:,} | " + " | ".join(row) + " |")
        lines += ["", "(worst seed test FVU per cell)", ""]
        miss = [r for r in rs if r["target"] == CONTROL and float(r["test_fvu"]) > FIT]
        if miss:
            lines.append(f"Runs that miss the control under {p} (measured):")
            lines += [f"- {_miss(r)}" for r in sorted(miss, key=_run_key)]
            lines.append("")
    old = control([r for r in rows if protocol(r) == main], "sop-R1")
    n_old = len(old["fitted"]) + len(old["failed"])
    if n_old:
        lines.append(
            f"sop-R1 (rank 1, not the control: a product of cosines of each side's mean "
            f"input) under protocol {main}: fitted on every seed in {len(old['fitted'])} of "
            f"{n_old} cells" + (". Not fitted (worst seed FVU):" if old["failed"] else ".")
        )
        lines += [f"- {st} B={b} L={L}: {_fmt(s)} (max {s['max']:.3f})" + _why(st, L)
                  for (st, b, L), s in old["failed"]]
    return lines


def _run_key(r) -> tuple:
    return (r["student"], int(r["budget"]), int(r["depth"]), int(r["seed"]))


def _miss(r) -> str:
    """One missed run: its errors and epochs, and 'stuck at the mean' when no epoch took
    the validation FVU below 0.9 (val_fvu is the best over epochs, the epoch-0 start too)."""
    tr, va = float(r["train_fvu"]), float(r["val_fvu"])
    why = (f" (stuck at the mean: best validation FVU over all epochs {va:.3g})" if va >= 0.9
           else "")
    return (f"{r['student']} B={int(r['budget']):,} L={r['depth']} seed {r['seed']}: test FVU "
            f"{float(r['test_fvu']):.3g}, train FVU {tr:.3g}, best epoch {r['best_epoch']} of "
            f"{r['epochs']}" + why)


def _blowups(rows) -> str:
    big = [r for r in rows if float(r["test_fvu"]) > 10]
    div = sum(int(r.get("diverged") or 0) for r in rows)
    desc = ", ".join(f"{r['student']} B={r['budget']} L={r['depth']} {r['target']} seed "
                     f"{r['seed']}: {float(r['test_fvu']):.3g}" for r in big)
    return (f"Runs with test FVU > 10: {len(big)}" + (f" ({desc})" if big else "")
            + f"; runs stopped by a non-finite validation error: {div}.")


def _restarts(rows) -> str:
    """Runs the protocol restarted (validation FVU never below its threshold), if any."""
    again = [r for r in rows if (r.get("restarts") or "0") != "0"]
    if not again:
        return ""
    left = [r for r in again if float(r["val_fvu"]) < 0.5]
    return (f" Runs restarted from a fresh initialisation (best validation FVU of the first "
            f"attempt >= 0.5): {len(again)}, of which {len(left)} left the mean on a "
            "later attempt (" + ", ".join(f"{r['student']} B={r['budget']} L={r['depth']} "
                                          f"{r['target']} seed {r['seed']}" for r in left)
            + ").")


def _why(student: str, depth: int) -> str:
    if student == "linear" and depth == 1:
        return (
            " (its class cannot hold this product exactly, proved: at depth 1 the output is"
            " a sum over j of terms in (u_0, u_j), with no product of two other positions;"
            " capacity.py. How close it can come is not bounded here)"
        )
    return ""


def _cap(log10) -> str:
    return f"{round(10**log10):,}" if log10 < 9 else f"10^{log10:.1f}"


def _rank_how(rows, t) -> str:
    st = sorted({r.get("label") or r["rank_status"] for r in rows if r["target"] == t})
    return ", ".join(st)


def verdicts(rows, cells, bd) -> list[str]:
    out = []
    c = control(rows)
    n_c = len(c["fitted"]) + len(c["failed"])
    if c["failed"]:
        out.append(
            f"- Control ({CONTROL}, same protocol as these tables): {len(c['failed'])} of "
            f"{n_c} (student, budget, depth) cells do not fit it on every seed, so a failure "
            "at larger rank in those cells says nothing about rank: "
            + ", ".join(f"{st} B={b:,} L={L}" for (st, b, L), _ in c["failed"])
            + "."
        )
    elif n_c:
        out.append(f"- Control ({CONTROL}, same protocol as these tables): fitted in all "
                   f"{n_c} cells, so a failure at larger rank is not a training failure "
                   "at rank 1.")
    # Proved capacity below the target's rank: no exact fit. How close a rank-k function
    # can come is measured by the target's grid spectrum (rank_floor).
    below = []
    for (st, b, L, t), rs in sorted(cells.items()):
        if st != "linear":
            continue
        cap = 10 ** float(rs[0]["capacity_log10"])  # log10 kept to 3 decimals in the CSV
        k = round(cap) if cap < 1e12 else math.inf
        rank = min(int(r["target_rank"]) for r in rs)
        if rank > k:
            floors = [rank_floor(t, int(r["seed"]), k) for r in rs]
            below.append((b, L, t, rank, k, stats(rs), floors, rs))
    if below:
        n_rows = sum(len(x[7]) for x in below)
        ok = sum(float(r["test_fvu"]) >= f for x in below for r, f in zip(x[7], x[6]))
        fitted = sum(float(r["test_fvu"]) <= FIT for x in below for r in x[7])
        out.append(
            f"- Capacity (proved) vs rank: {len(below)} linear cells have a target rank above "
            f"the proved capacity ({n_rows} runs). No exact fit is possible there; the least "
            "FVU any function of that rank reaches on the target's 256 x 256 grid "
            f"(Eckart-Young, measured) is met or exceeded by {ok} of {n_rows} runs"
            + (" (agree)" if ok == n_rows else " (the rest beat the grid floor: sampling)")
            + f"; fitted (FVU <= {FIT}) in {fitted} of {n_rows}."
        )
        for b, L, t, rank, k, s, floors, _ in below:
            out.append(
                f"  - B={b:,} L={L} {t} (rank {rank} > capacity {k}): FVU {_fmt(s)}, "
                f"rank-{k} floor {np.mean(floors):.3f}"
            )
    ranks = target_ranks(rows)
    for st in sorted({r["student"] for r in rows}):
        for b in sorted({int(r["budget"]) for r in rows if r["student"] == st}):
            seq = [(float(np.median(ranks[t])), t, bd[(st, b, t)]) for t in target_order(rows)
                   if (st, b, t) in bd]
            ws = {int(r["depth"]): int(r["width"]) for r in rows
                  if r["student"] == st and int(r["budget"]) == b}
            th = theory(st, b, sorted(ws), ws)
            desc = ", ".join(f"{t}: L={x[0]} ({x[1]})" for _, t, x in seq)
            agree = [t for _, t, x in seq if x[0] == th["optimal"]]
            tell = [t for _, t, x in seq if x[1] == "clear"]
            out.append(
                f"- {st}, budget {b:,}: best depth by target (rank ascending) {desc}. "
                f"Theory's expressivity-optimal depth {th['optimal']}: matched for "
                f"{len(agree)} of {len(seq)} targets; clear (outside seed spread) for "
                f"{len(tell)} of {len(seq)}"
                + ("; the rest cannot tell." if len(tell) < len(seq) else ".")
            )
            sop = [(int(t.split("R")[1]), t) for _, t, _ in seq if t.startswith("sop-")]
            mono = []
            for L in sorted(ws):
                m = [stats(cells[(st, b, L, t)])["median"] for _, t in sorted(sop)
                     if (st, b, L, t) in cells]
                mono.append(all(x <= y for x, y in zip(m, m[1:])))
            if sop:
                out.append(
                    f"  Error grows with R (sum-of-products, median FVU non-decreasing in R) "
                    f"at {sum(mono)} of {len(mono)} depths."
                )
    return out


_FLOORS: dict = {}


def rank_floor(target: str, seed: int, k: int, grid: int = 256) -> float:
    """Least FVU of a rank-<=k function on a target's grid matrix (Eckart-Young), measured.

    M[i, j] = f(u_A^i, u_B^j) on independent uniform side samples: the squared singular
    values beyond the k-th, over n^2, divided by the variance of M's entries.
    """
    from .targets import make_target, sample_inputs

    key = (target, seed, grid)
    if key not in _FLOORS:
        f = make_target(target, 8, 2, seed)
        rng = np.random.default_rng([seed, 5])
        ua, ub = sample_inputs(rng, grid, 4, 2), sample_inputs(rng, grid, 4, 2)
        u = np.concatenate([np.repeat(ua, grid, 0), np.tile(ub, (grid, 1, 1))], axis=1)
        m = f(u).reshape(grid, grid)
        _FLOORS[key] = (np.linalg.svd(m, compute_uv=False) ** 2, float(np.var(m)) * grid**2)
    sv2, total = _FLOORS[key]
    return float(sv2[k:].sum() / total)


def read(path) -> list[dict]:
    """The rows of a results.csv, each with its ``protocol``."""
    return [{**r, "protocol": protocol(r)} for r in csv_rows.read_rows(path)]


def write_summary(csv_path) -> Path:
    rows = read(csv_path)
    p = Path(csv_path).with_name("summary.md")
    write_text(p, report(rows) if rows else "No rows.\n")
    return p


def figure_data(rows) -> list[dict]:
    """fig10's data, from the rows of the main protocol.

    Parameters
    ----------
    rows : list of dict
        Rows of the teacher-student results.csv (:func:`read`).

    Returns
    -------
    list of dict
        Per student, largest budget, student depth and target the test FVU's median,
        mean, std, min and max over seeds (``panel`` ``error_vs_rank``), and the best depth
        per student, budget and target (``best_depth``; in the CSV, not drawn); each with
        ``target_rank`` (the median over the target's measured ranks) and ``label`` (the
        labels of those ranks, ``; ``-joined: ``targets.row_label``).
    """
    main = main_protocol(rows)
    rows = [r for r in rows if protocol(r) == main]  # like with like
    cells, ranks, bd = _cells(rows), target_ranks(rows), best_depths(rows)
    words = {t: "; ".join(sorted({r.get("label") or row_label(r) for r in rows
                                  if r["target"] == t})) for t in ranks}
    students = sorted({r["student"] for r in rows})
    budgets = sorted({int(r["budget"]) for r in rows})
    depths = sorted({int(r["depth"]) for r in rows})
    data = []
    order = target_order(rows)
    for st in students:
        for L in depths:
            for t in [t for fam in ("sop", "teacher", "ctrl") for t in order
                      if t.startswith(fam)]:
                if (st, budgets[-1], L, t) in cells:
                    data.append(dict(panel="error_vs_rank", student=st, budget=budgets[-1],
                                     depth=L, target=t,
                                     target_rank=float(np.median(ranks[t])), label=words[t],
                                     **stats(cells[(st, budgets[-1], L, t)])))
    for st in students:
        for b in budgets:
            for t in target_order(rows):
                if (st, b, t) in bd:
                    best, how, per = bd[(st, b, t)]
                    data.append(dict(panel="best_depth", student=st, budget=b, depth=best,
                                     target=t, target_rank=float(np.median(ranks[t])),
                                     label=words[t], clear=how, **per[best]))
    return data


def plot_figure(data, ax=None):
    """Draw fig10: test FVU (median over seeds, bars min..max) against the target's
    separation rank, one panel per student, one line per student depth.

    Parameters
    ----------
    data : list of dict
        :func:`figure_data` (its ``error_vs_rank`` rows are drawn; the rank-1 control and
        the best-depth rows are not).
    ax : sequence of matplotlib Axes (one per student) or None
        None makes a double-column figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib

    from seprank.figures.style import DOUBLE, GREY, new_axes

    data = [d for d in data if d["panel"] == "error_vs_rank" and d["target"] != CONTROL]
    students = sorted({d["student"] for d in data})
    depths = sorted({int(d["depth"]) for d in data})
    fig, axes = new_axes(ax, ncols=len(students), size=(DOUBLE, 2.8))
    axes = axes if len(students) > 1 else [axes]
    cmap = matplotlib.colormaps["cividis"]  # student depths, not widths
    cols = {L: cmap(0.85 * i / max(1, len(depths) - 1)) for i, L in enumerate(depths)}
    for a, st in zip(axes, students):
        for i, L in enumerate(depths):
            sh = 1.05 ** (i - (len(depths) - 1) / 2)  # side by side, bars stay apart
            for fam, mk, ls in (("sop", "o", "-"), ("teacher", "s", "none")):
                pts = [d for d in data if d["student"] == st and int(d["depth"]) == L
                       and d["target"].startswith(fam)]
                if not pts:
                    continue
                x = [d["target_rank"] * sh for d in pts]
                y = [d["median"] for d in pts]
                lo = [d["median"] - d["min"] for d in pts]
                hi = [min(d["max"], 10) - d["median"] for d in pts]
                a.errorbar(x, y, yerr=[lo, hi], marker=mk, ls=ls, color=cols[L], capsize=1.5,
                           ms=3.5, lw=1, elinewidth=0.6, mfc=cols[L] if fam == "sop" else
                           "white", label=f"$L = {L}$" if fam == "sop" else None)
        a.axhline(FIT, color=GREY, lw=0.8, ls=":")
        a.set_xscale("log", base=2)
        a.set_yscale("log")
        if a.get_ylim()[1] > 10:
            a.set_ylim(top=10)
        a.set_xlabel("target separation rank $R$")
        a.set_ylabel("test FVU (median; bars min..max)")
        a.text(0.03, 0.97, f"{st} student, budget {data[0]['budget']:,}",
               transform=a.transAxes, va="top", fontsize=8)
    from matplotlib.lines import Line2D

    handles, _ = axes[0].get_legend_handles_labels()
    handles += [Line2D([], [], marker="s", mfc="white", color="black", ls="none",
                       label="teacher"),
                Line2D([], [], color=GREY, ls=":", label=f"FVU = {FIT}")]
    axes[0].legend(handles=handles, loc="lower left", bbox_to_anchor=(0.0, 1.02),
                   ncol=4, columnspacing=0.9, handletextpad=0.4,
                   title="student depth (circles: sum-of-products targets)",
                   borderaxespad=0.0)
    return fig


def figure(rows, prefix) -> list[Path]:
    """Write fig10: PNG (300 dpi), PDF and the CSV of :func:`figure_data`.

    Parameters
    ----------
    rows : list of dict
        Rows of the results.csv.
    prefix : Path or str
        The files' path without extension, e.g. paper_figures/fig10_teacher_student.

    Returns
    -------
    list of Path
        The PNG, PDF and CSV.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from seprank.figures.style import save

    prefix = Path(prefix)
    data = figure_data(rows)
    save(plot_figure(data), prefix.parent, prefix.name)
    paths = [prefix.with_suffix(".png"), prefix.with_suffix(".pdf"), prefix.with_suffix(".csv")]
    plt.close("all")
    write_figure_csv(data, paths[2])
    return paths


#: fig10's CSV columns.
FIGURE_KEYS = ["panel", "student", "budget", "depth", "target", "target_rank", "label", "n",
               "median", "mean", "std", "min", "max", "clear"]


def write_figure_csv(data, path) -> Path:
    """Write fig10's CSV (:func:`figure_data`'s rows) to ``path``; returns ``path``."""
    return csv_rows.write_rows(path, data, FIGURE_KEYS, digits=6)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.teacher_student.analysis")
    ap.add_argument("csv", type=Path)
    ap.add_argument("--figure", type=Path, default=None, help="prefix, e.g. paper_figures/fig10_"
                    "teacher_student (writes .png, .pdf, .csv)")
    a = ap.parse_args(argv)
    if not a.csv.exists():
        print(f"error: csv={str(a.csv)!r} does not exist", file=sys.stderr)
        return 2
    p = write_summary(a.csv)
    print(p.read_text())
    if a.figure:
        print("wrote", ", ".join(map(str, figure(read(a.csv), a.figure))))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # stdout closed early (| head): the files are written
        sys.stderr.close()
        sys.exit(0)
