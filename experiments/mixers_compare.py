"""The sequence mixers side by side: measured separation rank against depth at matched
non-embedding parameter counts (issue 25, item 2).

Run from the repository root::

    python -m experiments.mixers_compare      # the committed CSV and figures (about 1 h)
    python -m experiments.mixers_compare --depths 3 --timeout 20 --row-seconds 5 --out /tmp/q
                                              # a quick look (about 5 min)
    python -m experiments.mixers_compare --timeout 1200 --resume   # further, keeping rows

For every mixer at two sizes ("small", about 16 non-embedding parameters per layer, and
"large", about 36; the per-layer counts are matched, so every depth is matched too: see
SIZES and the ``params_per_layer`` column), depths 1.. ``--depths`` on N = 4 positions,
the measured separation rank (over GF(p)) for the balanced partition A = {0, 2} and for the
prefix/suffix (start-end) partition A = {0, 1}. The read-out is the last position for the
causal mixers, position 0 for the mixer (not causal). Each rank is a certified lower
bound (exact rank over GF(p) of a grid of the integer-weight network), and each row is
labelled with what else was established, in the words of :mod:`seprank.labels`: ``exact,
given the architecture's stated bound (SOURCE)`` when it meets the mixer's upper bound
(``upper``, from seprank's architecture bound: derived in the mixer's module docstring
[D], so stated by the architecture, not proved in proofs/; ``exact, proved`` for a bound
with a proof there), ``lower bound, saturated`` when it stopped below its sample with a
Schwartz-Zippel bound <= 1e-2 on a false stop (``saturation_bound``: equal to the
separation rank except with that probability), else ``lower bound, not saturated``; with
its time. A
mixer stops going deeper once a row took more than ``--row-seconds`` (the next depth would
be many times slower) or was not saturated, or when a row does not finish within
``--timeout`` seconds (run in a child process, terminated);
the ``stopped`` column of its last row says which. ``--relabel`` recomputes the bounds and
labels of the committed CSV without measuring again. A run replaces the rows it measures
anew and keeps every other row of the CSV (:mod:`experiments.script_args`: bad input
refused in one line, Ctrl-C exit 130).

Output: ``paper_figures/mixers_compare.csv`` and ``mixers_compare.png/.pdf`` (log10 sep
against depth, one line per mixer; one panel per partition and size) and
``mixers_params.png/.pdf`` (log10 sep against total parameter count).
"""

from __future__ import annotations

import math
import multiprocessing
import re
import time
from pathlib import Path
from queue import Empty

from experiments.script_args import (
    Parser,
    int_at_least,
    measure_keeping,
    names,
    out_folder,
    read_rows,
    sample_count,
    seconds,
)
from seprank import labels, measure
from seprank.figures import csv_rows
from seprank.nets import GLA, S4, S6, Hyena, LinearAttention, MLPMixer, Retention
from seprank.paths import atomic_write
from seprank.theory.architecture_bounds import bound_of

N = 4
PARTITIONS = {"balanced": (0, 2), "prefix": (0, 1)}
#: mixer -> size -> builder of a depth-L network (about 16 / 36 parameters per layer).
SIZES = {
    "linear-attention": {"small": lambda L: LinearAttention(L, 2, seq_len=N, causal=True),
                         "large": lambda L: LinearAttention(L, 3, seq_len=N, causal=True)},
    "retention": {"small": lambda L: Retention(L, 2, seq_len=N, gamma_num=(1,), gamma_den=2),
                  "large": lambda L: Retention(L, 3, seq_len=N, gamma_num=(1,), gamma_den=2)},
    "gla": {"small": lambda L: GLA(L, 2, seq_len=N), "large": lambda L: GLA(L, 3, seq_len=N)},
    "s6": {"small": lambda L: S6(L, 2, state=2, seq_len=N),
           "large": lambda L: S6(L, 3, state=4, seq_len=N)},
    "s4": {"small": lambda L: S4(L, 2, state=2, seq_len=N),
           "large": lambda L: S4(L, 3, state=3, seq_len=N)},
    "s4-product": {"small": lambda L: S4(L, 2, state=2, seq_len=N, product=True),
                   "large": lambda L: S4(L, 3, state=3, seq_len=N, product=True)},
    "hyena": {"small": lambda L: Hyena(L, 2, seq_len=N), "large": lambda L: Hyena(L, 3, seq_len=N)},
    "mixer": {"small": lambda L: MLPMixer(L, 2, seq_len=N, token_hidden=1, channel_hidden=2),
              "large": lambda L: MLPMixer(L, 3, seq_len=N, token_hidden=3, channel_hidden=2)},
}
FIELDS = ["mixer", "size", "config", "params_per_layer", "params", "depth", "partition", "A",
          "degree", "homogeneous", "rank", "upper", "upper_source", "label", "saturated",
          "saturation_bound", "strategy", "prime", "seconds", "stopped"]


def _tagged(source: str, tag) -> str:
    """The bound's source with its tag, once (a source may already end in it)."""
    return source if not tag or source.rstrip().endswith(f"[{tag}]") else f"{source} [{tag}]"


def label_of(net, A, rank: int, saturated: bool) -> tuple[dict, str]:
    """(the bound's columns, the label) of a certified rank (:func:`seprank.labels.rank_label`):
    ``exact, proved`` when it meets a bound proved in proofs/, ``exact, given the
    architecture's stated bound (SOURCE)`` a [D] one, ``exact, given the recalled literature
    bound (SOURCE)`` an [M] one; else ``lower bound, saturated`` / ``not saturated``."""
    b = bound_of(net, A)
    upper = None if b is None else b.value
    cols = {"upper": "" if upper is None else upper,
            "upper_source": "" if upper is None else _tagged(b.source, b.tag)}
    status = labels.bound_status(b.tag) if upper is not None else labels.PROVED
    return cols, labels.rank_label(rank, saturated, False, upper, status,
                                   cols["upper_source"] or None)


def measured_columns(net, A, got) -> dict:
    """The columns a measurement gives a row (rank, bound, label, saturation, strategy,
    prime, seconds; ``stopped`` empty), from ``got`` as :func:`measure_with_timeout`
    returns it."""
    rank, saturated, bound, strategy, prime, seconds = got
    cols, label = label_of(net, A, rank, saturated)
    return {"rank": rank, **cols, "label": label, "saturated": bool(saturated),
            "saturation_bound": f"{bound:.2g}" if bound is not None else "",
            "strategy": strategy, "prime": prime, "seconds": round(seconds, 3),
            "stopped": ""}


def is_saturated(row) -> bool:
    """A row's ``saturated`` column, as measured (bool) or read from a CSV (text)."""
    return row["saturated"] in (True, "True")


def is_lower_bound_only(row) -> bool:
    """Whether a row's label is a certified lower bound only (neither exact nor saturated;
    an older CSV's word for it was ``lower bound``): drawn hollow."""
    return row["label"] == "lower bound" or row["label"].startswith("lower bound, not saturated")


def row_of(mixer, size, net, part, got) -> dict:
    A = PARTITIONS[part]
    return {"mixer": mixer, "size": size, "config": repr(net),
            "params_per_layer": net.parameters() // net.depth, "params": net.parameters(),
            "depth": net.depth, "partition": part, "A": " ".join(map(str, A)),
            "degree": net.degree, "homogeneous": int(net.homogeneous),
            **measured_columns(net, A, got)}


#: the prime of a second measurement when the first stopped below its sample but its
#: Schwartz-Zippel bound is over the threshold (the bound falls as 1/p)
RETRY_PRIME = 536870909


def measure_row(net, A, max_samples: int):
    """(rank, saturated, bound, strategy, prime) of ``net`` at ``A``: at the default prime,
    and once more at RETRY_PRIME when the rank stopped below its sample but the bound on a
    false stop is over the threshold (the second measurement is the row, unless its rank is
    below the first's certified lower bound: then its stop was false and the first stands)."""
    m = measure(net, A, max_samples=max_samples)
    if not m.saturated and m.sample_saturated and m.saturation_bound is not None and \
            m.prime < RETRY_PRIME:
        again = measure(net, A, max_samples=max_samples, prime=RETRY_PRIME)
        if again.rank >= m.rank:  # else the second stop was false: the first, a lower bound
            m = again
    return m.rank, m.saturated, m.saturation_bound, m.strategy, m.prime


def _measure_child(net, A, max_samples, queue) -> None:
    t = time.perf_counter()
    try:
        got = measure_row(net, A, max_samples)
    except Exception as e:  # noqa: BLE001 - reported to the parent as the row's stop
        queue.put(f"{type(e).__name__}: {e}")
        return
    queue.put((*got, time.perf_counter() - t))


def measure_with_timeout(net, A, max_samples: int, timeout: float):
    """(rank, saturated, bound, strategy, prime, seconds) of :func:`measure_row` in a child
    process; a string saying why there is none if it ran past ``timeout`` seconds (the
    child is then terminated), raised an error or died."""
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_measure_child, args=(net, A, max_samples, queue))
    proc.start()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            try:
                return queue.get(timeout=min(1.0, max(deadline - time.monotonic(), 0.01)))
            except Empty:
                if not proc.is_alive() and queue.empty():
                    return f"the measuring process died (exit code {proc.exitcode})"
        return f"not finished within {timeout:g} s"
    finally:
        if proc.is_alive():
            proc.terminate()
        proc.join()


#: The columns a CSV must have to be read back (older CSVs lack some of FIELDS: --relabel
#: fills them), and the values checked in the columns it has.
REQUIRED = ["mixer", "size", "config", "depth", "partition", "rank"]
CHECKS = {"mixer": list(SIZES), "size": ["small", "large"], "partition": list(PARTITIONS),
          "depth": 1, "rank": 1, "params": 0, "params_per_layer": 0, "degree": 0,
          "seconds": float}


def _key(r) -> tuple:
    return (r["mixer"], r["size"], int(r["depth"]), r["partition"])


def _slow(row, row_seconds: float) -> str:
    """Why the mixer goes no deeper after this row ('' if it goes on)."""
    if float(row["seconds"]) > row_seconds or not is_saturated(row):
        return (f"depth {int(row['depth']) + 1} not run: depth {row['depth']} took "
                f"{float(row['seconds']):.0f} s (more than {row_seconds:g} s) or was not "
                "saturated")
    return ""


def timed_out(stopped: str, timeout: float) -> str:
    """An earlier run's stop for a timeout at least ``timeout`` (trying again would time out
    again), else ''."""
    m = re.search(r"not finished within ([0-9.]+) s", stopped or "")
    return stopped if m and float(m.group(1)) >= timeout else ""


def run(depths: int, row_seconds: float, timeout: float, max_samples: int, mixers,
        sizes, done=(), sink=None) -> list[dict]:
    """The rows, mixer by mixer and depth by depth. ``done``: rows of an earlier run (a
    row of the same network is taken from them, not measured again, and where the mixer
    stops is decided anew under these limits: a timeout stop stands unless ``timeout`` is
    longer); ``sink(rows)`` is called with the rows after each depth."""
    rows, old = [], {_key(r): r for r in done}
    for mixer in mixers:
        for size in sizes:
            for L in range(1, depths + 1):
                net, stop, last = SIZES[mixer][size](L), "", []
                for part, A in PARTITIONS.items():
                    k = old.get((mixer, size, L, part))
                    if k is not None and k["config"] == repr(net):
                        last.append({**k, "stopped": ""})
                        stop = stop or timed_out(k["stopped"], timeout)
                        if f"depth {L}," in stop:  # this depth's next partition timed out
                            break
                    else:
                        got = measure_with_timeout(net, A, max_samples, timeout)
                        if isinstance(got, str):
                            stop = f"depth {L}, {part}: {got}"
                            break
                        last.append(row_of(mixer, size, net, part, got))
                        print(f"{mixer:17s} {size:5s} L={L} {part:8s} rank={got[0]:<7d} "
                              f"{last[-1]['label']:11s} {got[-1]:7.2f}s", flush=True)
                    stop = stop or _slow(last[-1], row_seconds)
                stop = stop if stop and (L < depths or f"depth {L}," in stop) else ""
                mine = last or [r for r in rows if _key(r)[:2] == (mixer, size)]
                if stop and mine:  # with no row at all the stop is only printed
                    mine[-1]["stopped"] = stop
                if stop:
                    print(f"{mixer:17s} {size:5s} stopped: {stop}", flush=True)
                rows += last
                if sink is not None:
                    sink(rows)
                if stop:
                    break
    return rows


def _merged(rows, done) -> list[dict]:
    """``rows`` and the earlier rows this run did not measure or keep (other mixers, sizes,
    depths), in SIZES order, small before large, by depth, balanced before prefix."""
    mine = {_key(r) for r in rows}
    order, parts = {m: i for i, m in enumerate(SIZES)}, list(PARTITIONS)
    rest = [r for r in done if _key(r) not in mine and r["mixer"] in order]
    return sorted(rows + rest, key=lambda r: (
        order[r["mixer"]], r["size"] != "small", int(r["depth"]), parts.index(r["partition"])))


def write_csv(rows, path: Path, fields=FIELDS) -> None:
    """Write the rows under this script's columns (:func:`seprank.figures.csv_rows.write_rows`)."""
    csv_rows.write_rows(path, rows, fields)


def _series(ax, rows, x, colour, marker, line="-", label=True) -> None:
    """One line per mixer; a lower-bound point is drawn hollow."""
    for mx in colour:
        pts = sorted((r for r in rows if r["mixer"] == mx), key=lambda r: int(r[x]))
        if not pts:
            continue
        xs, ys = [int(r[x]) for r in pts], [math.log10(int(r["rank"])) for r in pts]
        ax.plot(xs, ys, line, color=colour[mx], marker=marker[mx], label=mx if label else None)
        low = [(u, v) for u, v, r in zip(xs, ys, pts) if is_lower_bound_only(r)]
        if low:
            ax.plot(*zip(*low), linestyle="none", marker=marker[mx], markersize=7,
                    markerfacecolor="white", color=colour[mx])


def _styles(rows):
    from seprank.figures.style import COLORS, GREY

    mixers = list(dict.fromkeys(r["mixer"] for r in rows))
    palette = COLORS[:7] + [GREY]  # Okabe-Ito without yellow (weak on white), then grey
    colour = {m: palette[i % len(palette)] for i, m in enumerate(mixers)}
    marker = {m: "osD^vP*X"[i % 8] for i, m in enumerate(mixers)}
    return colour, marker


def plot_compare(rows, ax=None):
    """Draw mixers_compare: log10 rank against depth, one panel per size and partition.

    Parameters
    ----------
    rows : list of dict
        Rows of mixers_compare.csv.
    ax : 2 x 2 array or sequence of four matplotlib Axes, or None
        Small balanced, small prefix, large balanced, large prefix; None makes a
        double-column figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from seprank.figures.style import DOUBLE, new_axes

    fig, axes = new_axes(ax, ncols=2, nrows=2, size=(DOUBLE, 6.2))
    colour, marker = _styles(rows)
    depths = sorted({int(r["depth"]) for r in rows})
    for i, size in enumerate(("small", "large")):
        for j, part in enumerate(PARTITIONS):
            a = axes[2 * i + j]
            sel = [r for r in rows if r["size"] == size and r["partition"] == part]
            _series(a, sel, "depth", colour, marker)
            a.set_xticks(depths)
            a.set(title=f"{size} (~{16 if size == 'small' else 36} parameters/layer), {part} "
                  f"$A = \\{{{', '.join(map(str, PARTITIONS[part]))}\\}}$", xlabel="depth $L$",
                  ylabel=r"$\log_{10}$ separation rank")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4,
               title="hollow: lower bound only (not saturated)")
    fig.suptitle(f"Sequence mixers, $N = {N}$: measured separation rank (over "
                 r"$\mathrm{GF}(p)$) vs depth, matched parameters per layer", fontsize=8)
    return fig


def plot_params(rows, ax=None):
    """Draw mixers_params: log10 rank against the parameter count, one panel per partition.

    Parameters
    ----------
    rows : list of dict
        Rows of mixers_compare.csv.
    ax : sequence of two matplotlib Axes or None
        Balanced and prefix partition; None makes a double-column figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.ticker

    from seprank.figures.style import DOUBLE, new_axes

    fig, axes = new_axes(ax, ncols=2, size=(DOUBLE, 3.6))
    colour, marker = _styles(rows)
    for a, part in zip(axes, PARTITIONS):
        for size, line in (("small", "-"), ("large", "--")):
            sel = [r for r in rows if r["partition"] == part and r["size"] == size]
            _series(a, sel, "params", colour, marker, line, label=size == "small")
        a.set(xscale="log", xlabel="non-embedding parameters (a point per depth)",
              ylabel=r"$\log_{10}$ separation rank", title=f"{part} partition")
        a.set_xticks([10, 20, 50, 100, 200])
        a.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        a.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4,
               title="solid: small (~16 parameters/layer), dashed: large (~36)")
    return fig


def save_figures(rows, out: Path, figures) -> None:
    """For each (draw, name, bottom) of ``figures``: ``draw(rows)`` written to ``out`` as
    name.png (300 dpi) and name.pdf, its layout leaving ``bottom`` for the legend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from seprank.figures.style import apply_style

    apply_style()
    for draw, name, bottom in figures:
        fig = draw(rows)
        fig.tight_layout(rect=(0, bottom, 1, 1))
        with atomic_write(out / f"{name}.png", "wb") as f:  # never through a link
            fig.savefig(f, format="png", dpi=300)
        with atomic_write(out / f"{name}.pdf", "wb") as f:
            fig.savefig(f, format="pdf", metadata={"CreationDate": None})
        plt.close(fig)


def plot(rows, out: Path) -> None:
    """Write mixers_compare and mixers_params (PNG at 300 dpi, PDF) to ``out``.

    Parameters
    ----------
    rows : list of dict
        Rows of mixers_compare.csv.
    out : Path
        The folder.
    """
    save_figures(rows, out, ((plot_compare, "mixers_compare", 0.1),
                             (plot_params, "mixers_params", 0.17)))


#: The rows of a CSV, every value a string.
read_csv = csv_rows.read_rows


def relabel(rows: list[dict]) -> list[dict]:
    """The rows with their bound and label recomputed (the ranks are kept; a CSV written
    before the ``saturated`` column existed called a saturated row ``exact``, a later one
    ``saturated``, now ``lower bound, saturated``)."""
    out = []
    for r in rows:
        net = SIZES[r["mixer"]][r["size"]](int(r["depth"]))
        if repr(net) != r["config"]:
            raise ValueError(f"row config {r['config']} is not {repr(net)}")
        sat = is_saturated(r) if r.get("saturated") else \
            r["label"] in ("exact", "saturated", "lower bound, saturated")
        cols, label = label_of(net, PARTITIONS[r["partition"]], int(r["rank"]), sat)
        out.append({**r, **cols, "label": label, "saturated": sat})
    return out


def _parser() -> Parser:
    ap = Parser(prog="mixers_compare", description=__doc__.splitlines()[0])
    ap.add_argument("--depths", type=int_at_least(1, 30), default=5,
                    help="deepest L tried (default 5)")
    ap.add_argument("--row-seconds", type=seconds, default=90.0,
                    help="stop a mixer's depths after a row slower than this (default 90)")
    ap.add_argument("--timeout", type=seconds, default=300.0,
                    help="seconds one row may run before the mixer stops there (default 300)")
    ap.add_argument("--max-samples", type=sample_count, default=24000,
                    help="sample cap per side; a capped row is a lower bound (default 24000)")
    ap.add_argument("--mixers", type=names(list(SIZES)), default=list(SIZES),
                    help="comma list (default: all)")
    ap.add_argument("--sizes", type=names(["small", "large"]), default=["small", "large"],
                    help="comma list of small, large")
    ap.add_argument("--out", default="paper_figures", help="output folder")
    ap.add_argument("--plot-only", action="store_true",
                    help="redraw the figures from the CSV in --out, measure nothing")
    ap.add_argument("--resume", action="store_true",
                    help="keep the depths the CSV in --out already has, measure the rest")
    ap.add_argument("--relabel", action="store_true",
                    help="recompute the bounds and labels of the CSV in --out, measure nothing "
                         "(and redraw)")
    return ap


def main(argv=None) -> int:
    ap = _parser()
    args = ap.parse_args(argv)
    path = Path(args.out) / "mixers_compare.csv"
    earlier = read_rows(ap, path, REQUIRED, CHECKS, FIELDS)
    if (args.relabel or args.plot_only) and not earlier:
        ap.error(f"--out {args.out}: no mixers_compare.csv rows to read (run without "
                 "--relabel and --plot-only first)")
    older = [f for f in FIELDS if earlier and f not in earlier[0]]
    if older and not args.relabel:
        ap.error(f"--out: {path} has no column {older[0]} (an older version's CSV): "
                 "--relabel adds the columns, or choose another --out")
    out = out_folder(ap, args.out)
    if args.relabel:
        try:
            rows = relabel(earlier)
        except (KeyError, ValueError) as e:
            ap.error(f"--relabel: {path} is not this script's CSV ({e})")
        write_csv(rows, path)
        plot(rows, out)
        return 0
    if args.plot_only:
        plot(earlier, out)
        return 0
    done = earlier if args.resume else []  # --resume: the same network's rows are taken

    def measure(sink):
        return run(args.depths, args.row_seconds, args.timeout, args.max_samples,
                   args.mixers, args.sizes, done, sink)

    return measure_keeping(path, earlier, measure, _merged,
                           lambda rows: write_csv(rows, path), lambda rows: plot(rows, out))


if __name__ == "__main__":
    raise SystemExit(main())
