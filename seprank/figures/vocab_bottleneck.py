"""Figure 9: the vocabulary bottleneck, measured (embedded attention, rank vs width).

For each embedding rank r and depth L, the separation rank of
:class:`~seprank.nets.embedded_attention.EmbeddedAttention` (vocabulary V, N positions,
one head, balanced partition) is measured exactly on the complete grid over the
vocabulary for widths d_x = 1..6. Where the width stops adding rank is where the curve
goes flat. Source of the expectation: Wies, Levine, Jannai, Shashua, ICML 2021 [M, rough]:
the width-dependence saturates once d_x exceeds r.

Command (20 s on the shared 2-core machine, 1 Dec 2026)::

    python -m seprank.figures.vocab_bottleneck [--out paper_figures] [--quick]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from seprank.engine.measure import measure
from seprank.figures.common import read_csv, write_csv
from seprank.figures.style import DOUBLE, apply_style, new_axes, save
from seprank.nets.embedded_attention import EmbeddedAttention
from seprank.paths import check_out_dir

NAME = "fig9_vocab_bottleneck"
FIELDS = ["depth", "embed_rank", "width", "vocab", "seq_len", "measured", "label",
          "saturated", "samples", "seconds"]
FULL = {"vocab": 6, "seq_len": 6, "depths": (1, 2), "ranks": (1, 2, 3, 4), "widths": range(1, 7)}
QUICK = {"vocab": 4, "seq_len": 4, "depths": (1, 2), "ranks": (1, 2), "widths": range(1, 4)}


def run(out, quick: bool = False, seed: int = 0, say=print) -> list[dict]:
    """Measure the grid and write ``out``/fig9_vocab_bottleneck.csv; returns the rows."""
    g = QUICK if quick else FULL
    V, N = g["vocab"], g["seq_len"]
    rows = []
    for L in g["depths"]:
        for r in g["ranks"]:
            for d in g["widths"]:
                net = EmbeddedAttention(vocab=V, embed_rank=r, width=d, depth=L, seq_len=N)
                m = measure(net, tuple(range(N // 2)), seed=seed)
                rows.append({"depth": L, "embed_rank": r, "width": d, "vocab": V, "seq_len": N,
                             "measured": m.rank, "saturated": m.saturated,
                             "samples": f"{m.samples[0]}x{m.samples[1]}",
                             "seconds": round(m.seconds, 3)})
                say(f"L={L} r={r} d_x={d}: rank {m.rank}")
    write_csv(Path(out) / f"{NAME}.csv", rows, FIELDS)  # label: figures.row_labels
    return rows


def plot(rows: list[dict], ax=None):
    """Draw figure 9: measured rank against width, one panel per depth.

    One line per embedding rank :math:`r`, with a dotted vertical at :math:`d_x = r`.

    Parameters
    ----------
    rows : list of dict
        :func:`run`'s rows (or the CSV's).
    ax : matplotlib Axes, sequence of Axes (one per depth) or None
        None makes a double-column figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into (new, or the one holding ``ax``).
    """
    import matplotlib

    depths = sorted({int(r["depth"]) for r in rows})
    fig, axes = new_axes(ax, ncols=len(depths), size=(DOUBLE, 2.6))
    axes = axes if len(depths) > 1 else [axes]
    V, N = rows[0]["vocab"], rows[0]["seq_len"]
    ranks = sorted({int(r["embed_rank"]) for r in rows})
    cmap = matplotlib.colormaps["cividis"]  # embedding ranks, not widths: not width_color
    cols = [cmap(0.85 * i / max(1, len(ranks) - 1)) for i in range(len(ranks))]
    marks = "osD^v"
    for a, L in zip(axes, depths):
        for i, er in enumerate(ranks):
            pts = sorted((int(r["width"]), int(r["measured"])) for r in rows
                         if int(r["depth"]) == L and int(r["embed_rank"]) == er)
            a.plot([p[0] for p in pts], [p[1] for p in pts], "-" + marks[i % len(marks)],
                   color=cols[i], label=f"$r = {er}$")
            a.axvline(er, color=cols[i], ls=":", lw=1)
        a.set_xlabel("model width $d_x$")
        a.set_ylabel(r"measured separation rank (over $\mathrm{GF}(p)$)")
        a.set_title(f"$L = {L},\\ V = {V},\\ N = {N},\\ H = 1$")
        a.set_ylim(0, None)
        a.legend(loc="upper left", title="embedding rank")
    return fig


def draw(out, rows: list[dict]) -> Path:
    """Write figure 9 (PNG + PDF) to ``out``; returns the PNG's path.

    Parameters
    ----------
    out : Path or str
    rows : list of dict
        :func:`run`'s rows.

    Returns
    -------
    Path
    """
    import matplotlib

    matplotlib.use("Agg")
    apply_style()
    save(plot(rows), Path(out), NAME)
    return Path(out) / f"{NAME}.png"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m seprank.figures.vocab_bottleneck",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="paper_figures", help="folder for CSV, PNG and PDF")
    ap.add_argument("--quick", action="store_true", help="tiny grid, a few seconds")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--plot-only", action="store_true",
                    help="redraw the figure from the CSV in --out, measure nothing")
    args = ap.parse_args(argv)

    out = check_out_dir(args.out)
    if args.plot_only:
        if not (out / f"{NAME}.csv").exists():
            ap.error(f"--out {out}: no {NAME}.csv to redraw (run without --plot-only first)")
        rows = read_csv(out / f"{NAME}.csv")
    else:
        rows = run(out, quick=args.quick, seed=args.seed)
    png = draw(out, rows)
    print(f"wrote {out / (NAME + '.csv')} and {png}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
