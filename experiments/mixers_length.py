"""How the gap between s6 and linear attention grows with the sequence length N (issue 25,
the Cohen-Karlik et al. check).

Run from the repository root::

    python -m experiments.mixers_length            # the committed CSV and figure

For the selective s6 (width 2, state 2: 14 non-embedding parameters a layer), the gated
gla (width 2: 20) and causal identity linear attention (width 2: 16), at depths 1 and 2
and N = 4, 5, ... ``--max-len`` positions, the measured separation rank (over GF(p)) of
the last position's first coordinate for the prefix/suffix partition (A = the first
floor(N/2) positions) and the balanced one (A = the even positions). Rows are labelled
as in ``experiments.mixers_compare``, in the words of :mod:`seprank.labels` (``exact,
given the architecture's stated bound (SOURCE)`` for a mixer's [D] bound met, ``lower
bound, saturated``, ``lower bound, not saturated``), with their time; ``--relabel``
recomputes the bounds and labels of the CSV, measuring nothing. A (mixer, depth,
partition) line stops at the first N whose row does not finish within ``--timeout``
seconds (run in a child process) or was not saturated. ``--resume`` keeps the rows the
CSV already has (and a timeout stop, unless ``--timeout`` is longer); rows are written as
they come, and every row of the CSV this run does not measure anew is kept
(:mod:`experiments.script_args`).

Output: ``paper_figures/mixers_length.csv`` and ``mixers_length.png/.pdf`` (log10 sep
against N, one line per mixer and depth, one panel per partition).
"""

from __future__ import annotations

import math
from pathlib import Path

from experiments.mixers_compare import (
    is_saturated,
    label_of,
    measure_with_timeout,
    measured_columns,
    save_figures,
    timed_out,
    write_csv,
)
from experiments.script_args import (
    Parser,
    int_at_least,
    int_list,
    measure_keeping,
    names,
    out_folder,
    read_rows,
    sample_count,
    seconds,
)
from seprank.nets import GLA, S6, LinearAttention

BUILD = {
    "s6": lambda L, N: S6(L, 2, state=2, seq_len=N),
    "gla": lambda L, N: GLA(L, 2, seq_len=N),
    "linear-attention": lambda L, N: LinearAttention(L, 2, seq_len=N, causal=True),
}
FIELDS = ["mixer", "config", "params", "depth", "N", "partition", "A", "degree", "rank",
          "upper", "upper_source", "label", "saturated", "saturation_bound", "strategy",
          "prime", "seconds", "stopped"]


#: The values checked when the CSV is read back (experiments.script_args.read_rows).
CHECKS = {"mixer": list(BUILD), "partition": ["prefix", "balanced"], "depth": 1, "N": 2,
          "rank": 1, "params": 0, "degree": 0, "seconds": float}


def partition(kind: str, N: int) -> tuple[int, ...]:
    """A: the first floor(N/2) positions (``prefix``) or the even ones (``balanced``)."""
    return tuple(range(N // 2)) if kind == "prefix" else tuple(range(0, N, 2))


def _row(mixer, net, kind, got) -> dict:
    A = partition(kind, net.seq_len)
    return {"mixer": mixer, "config": repr(net), "params": net.parameters(),
            "depth": net.depth, "N": net.seq_len, "partition": kind,
            "A": " ".join(map(str, A)), "degree": net.degree,
            **measured_columns(net, A, got)}


def _key(r) -> tuple:
    return (r["mixer"], int(r["depth"]), r["partition"], int(r["N"]))


def relabel(rows: list[dict]) -> list[dict]:
    """The rows with their bound and label recomputed from their own fields (the ranks and
    saturation are kept; nothing is measured)."""
    out = []
    for r in rows:
        net = BUILD[r["mixer"]](int(r["depth"]), int(r["N"]))
        if repr(net) != r["config"]:
            raise ValueError(f"row config {r['config']} is not {repr(net)}")
        cols, label = label_of(net, partition(r["partition"], net.seq_len), int(r["rank"]),
                               is_saturated(r))
        out.append({**r, **cols, "label": label})
    return out


def run(mixers, depths, max_len: int, timeout: float, max_samples: int, done=(),
        sink=None) -> list[dict]:
    """The rows, line by line (mixer, depth, partition), N growing; ``done``: rows of an
    earlier run, kept where the network is the same (a kept timeout stop stands unless
    ``timeout`` is longer); ``sink(rows)`` is called after each row."""
    old, rows = {_key(r): r for r in done}, []
    for mixer in mixers:
        for L in depths:
            for kind in ("prefix", "balanced"):
                for N in range(4, max_len + 1):
                    net, stop = BUILD[mixer](L, N), ""
                    kept = old.get((mixer, L, kind, N))
                    if kept is not None and kept["config"] == repr(net):
                        row = {**kept, "stopped": ""}
                        stop = timed_out(kept["stopped"], timeout)
                    else:
                        got = measure_with_timeout(net, partition(kind, N), max_samples,
                                                   timeout)
                        if isinstance(got, str):
                            if rows and _key(rows[-1])[:3] == (mixer, L, kind):
                                rows[-1]["stopped"] = f"N = {N}: {got}"
                            print(f"{mixer:17s} L={L} {kind:8s} N={N} stopped: {got}",
                                  flush=True)
                            if sink is not None:
                                sink(rows)
                            break
                        row = _row(mixer, net, kind, got)
                        print(f"{mixer:17s} L={L} {kind:8s} N={N} rank={row['rank']:<7d} "
                              f"{row['label']:11s} {row['seconds']:7.2f}s", flush=True)
                    if not is_saturated(row):
                        stop = f"N = {N + 1} not run: N = {N} was not saturated"
                    row["stopped"] = stop
                    rows.append(row)
                    if sink is not None:
                        sink(rows)
                    if stop:
                        break
    return rows


def merged(rows, done) -> list[dict]:
    """``rows`` and the earlier rows this run did not measure or keep, in BUILD order, by
    depth, partition and N."""
    order, mine = list(BUILD), {_key(r) for r in rows}
    rest = [r for r in done if r["mixer"] in BUILD and _key(r) not in mine]
    return sorted(rows + rest, key=lambda r: (order.index(r["mixer"]), int(r["depth"]),
                                              r["partition"] != "prefix", int(r["N"])))


def plot_length(rows, ax=None):
    """Draw mixers_length: log10 rank against N, one line per mixer and depth.

    Parameters
    ----------
    rows : list of dict
        Rows of mixers_length.csv.
    ax : sequence of two matplotlib Axes or None
        Prefix and balanced partition; None makes a double-column figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from seprank.figures.style import COLORS, DOUBLE, new_axes

    fig, axes = new_axes(ax, ncols=2, size=(DOUBLE, 3.4))
    colour = {m: COLORS[i] for i, m in enumerate(BUILD)}
    shift = {m: 0.08 * (i - 1) for i, m in enumerate(BUILD)}  # coinciding lines stay visible
    for a, kind in zip(axes, ("prefix", "balanced")):
        for i, mixer in enumerate(BUILD):
            for L, line in ((1, "--"), (2, "-"), (3, ":")):
                pts = sorted((int(r["N"]) + shift[mixer], math.log10(int(r["rank"])))
                             for r in rows if r["mixer"] == mixer and int(r["depth"]) == L
                             and r["partition"] == kind)
                if pts:
                    a.plot(*zip(*pts), line, marker="os^"[i], color=colour[mixer],
                           label=f"{mixer}, $L = {L}$")
        what = r"first $\lfloor N/2 \rfloor$" if kind == "prefix" else "even"
        a.set(xlabel="sequence length $N$", ylabel=r"$\log_{10}$ separation rank",
              title=f"{kind} partition ($A$ = the {what} positions)")
        a.set_xticks(sorted({int(r["N"]) for r in rows}))
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3,
               title="width 2; dashed: depth 1, solid: 2, dotted: 3; mixers drawn shifted in $N$")
    return fig


def plot(rows, out: Path) -> None:
    """Write mixers_length.png (300 dpi) and .pdf to ``out``.

    Parameters
    ----------
    rows : list of dict
        Rows of mixers_length.csv.
    out : Path
        The folder.
    """
    save_figures(rows, out, ((plot_length, "mixers_length", 0.2),))


def main(argv=None) -> int:
    ap = Parser(prog="mixers_length", description=__doc__.splitlines()[0])
    ap.add_argument("--max-len", type=int_at_least(4, 64), default=8,
                    help="largest N tried, at least 4 (default 8)")
    ap.add_argument("--depths", type=int_list(1, 30), default=[1, 2],
                    help="comma list of depths (default 1,2)")
    ap.add_argument("--timeout", type=seconds, default=300.0,
                    help="seconds one row may run before its line stops (default 300)")
    ap.add_argument("--max-samples", type=sample_count, default=20000,
                    help="sample cap per side; a capped row is a lower bound (default 20000)")
    ap.add_argument("--mixers", type=names(list(BUILD)), default=list(BUILD),
                    help="comma list (default: all)")
    ap.add_argument("--out", default="paper_figures", help="output folder")
    ap.add_argument("--resume", action="store_true", help="keep the rows the CSV has")
    ap.add_argument("--plot-only", action="store_true", help="redraw from the CSV only")
    ap.add_argument("--relabel", action="store_true",
                    help="recompute the bounds and labels of the CSV in --out, measure nothing "
                         "(and redraw)")
    args = ap.parse_args(argv)
    path = Path(args.out) / "mixers_length.csv"
    earlier = read_rows(ap, path, FIELDS, CHECKS, FIELDS)
    if (args.plot_only or args.relabel) and not earlier:
        ap.error(f"--out {args.out}: no mixers_length.csv rows to read (run without "
                 "--plot-only and --relabel)")
    out = out_folder(ap, args.out)
    if args.relabel:
        try:
            rows = relabel(earlier)
        except (KeyError, ValueError) as e:
            ap.error(f"--relabel: {path} is not this script's CSV ({e})")
        write_csv(rows, path, FIELDS)
        plot(rows, out)
        return 0
    if args.plot_only:
        plot(earlier, out)
        return 0
    done = earlier if args.resume else []  # --resume: the same network's rows are taken

    def measure(sink):
        return run(args.mixers, args.depths, args.max_len, args.timeout, args.max_samples,
                   done, sink)

    return measure_keeping(path, earlier, measure, merged,
                           lambda rows: write_csv(rows, path, FIELDS), lambda rows: plot(rows, out))


if __name__ == "__main__":
    raise SystemExit(main())
