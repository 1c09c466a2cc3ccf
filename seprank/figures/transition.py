"""Figure 8: the measured transition, drawn from the CSV that ``seprank transition`` writes.

Left: log10 of the measured separation rank against depth, per (width, heads), with the
proved bound as lines. Right: the growth ratio log sep(L+1) / log sep(L) from measured
ranks (markers) beside the bound's (lines). Colour: the width (:func:`width_color`);
marker and line style: the head count (square 2, triangle 3, diamond 4 heads).

:func:`plot_overview` draws the front page's figure from the same CSV: the one-head rows
only, both panels, its text large enough to read in the site's column (figure 8 itself is
a paper's double column with 7-pt text, about 10 px on screen at 1280 px).
"""

from __future__ import annotations

import math
from pathlib import Path

from seprank.figures.style import DOUBLE, GREY, apply_style, new_axes, save, width_color
from seprank.studies.transition import CSV_NAME, read, settled

NAME = "fig8_measured_transition"
#: The front page's figure (docs/index.md), drawn beside figure 8.
OVERVIEW = "fig8_overview"
#: Font sizes (points) of the overview: drawn 6.9 in wide and shown about 736 px wide (the
#: site's column at 1280 px), a point is about 1.5 px, so 9 pt reads as about 13.3 px.
OVERVIEW_FONT = {"tick": 9, "label": 10, "legend": 9}
#: Marker per head count (H = 1 also has the bound's line).
MARKERS = {1: "o", 2: "s", 3: "^", 4: "D"}


def plot(rows, ax=None):
    """Draw figure 8 from the transition CSV's rows.

    Parameters
    ----------
    rows : list of dict
        Rows of fig8_measured_transition.csv (:func:`seprank.studies.transition.read`).
    ax : sequence of two matplotlib Axes or None
        Left (log10 rank against depth) and right (growth ratio) panel; None makes a
        double-column figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into (new, or the one holding ``ax``).
    """
    import matplotlib.ticker
    from matplotlib.lines import Line2D

    fig, (ax, bx) = new_axes(ax, ncols=2, size=(DOUBLE, 3.0))
    series: dict = {}
    for r in rows:
        series.setdefault((int(r["width"]), int(r["heads"])), []).append(r)
    handles = []
    for (d, H), rs in sorted(series.items()):
        rs = sorted(rs, key=lambda r: int(r["depth"]))
        c = width_color(d)
        mk, ls = MARKERS.get(H, "v"), "-" if H == 1 else "none"
        dx = 0.0 if H == 1 else 0.15 if H == 2 else 0.3  # beside H = 1: none hides another
        L = [int(r["depth"]) for r in rs]
        for r in rs:  # filled: exact (meets the proved bound, or saturated); hollow: a lower bound
            ex = settled(r)
            ax.plot(int(r["depth"]) + dx, math.log10(int(r["measured"])), mk, color=c,
                    mfc=c if ex else "white", mew=1, ms=4.5 if H == 1 else 3, zorder=3,
                    gid=f"d_x={d}")
        if H == 1:  # the proved bound does not depend on H: drawn once
            ax.plot(L, [math.log10(int(r["upper_proved"])) for r in rs], ls, color=c, lw=0.9,
                    gid=f"d_x={d}")
        by_depth = {int(r["depth"]): r for r in rs}
        for Ld, r in by_depth.items():
            nxt = by_depth.get(Ld + 1)
            if nxt is None or int(r["measured"]) < 2:
                continue
            ratio = math.log(int(nxt["measured"])) / math.log(int(r["measured"]))
            ex = settled(r) and settled(nxt)
            bx.plot(Ld + dx, ratio, mk, color=c, mfc=c if ex else "white", mew=1,
                    ms=4.5 if H == 1 else 3, zorder=3, gid=f"d_x={d}")
        rf = [(int(r["depth"]), float(r["ratio_formula"])) for r in rs if r["ratio_formula"]]
        if rf and H == 1:
            bx.plot(*zip(*rf), ls, color=c, lw=0.9, gid=f"d_x={d}")
        handles.append(Line2D([], [], color=c, marker=mk, ls=ls, lw=0.9,
                              label=f"$d_x = {d},\\ H = {H},\\ N = {rs[0]['seq_len']}$"))
    bx.axhline(3, color=GREY, lw=0.6)
    bx.axhline(2, color=GREY, lw=0.6, ls=":")
    ax.set_xlabel("depth $L$ (layers)")
    ax.set_ylabel(r"$\log_{10}$ separation rank")
    bx.set_xlabel("depth $L$ (ratio from $L$ to $L + 1$)")
    bx.set_ylabel(r"$\log \mathrm{sep}(L{+}1) \,/\, \log \mathrm{sep}(L)$")
    bx.set_ylim(1, 4.0)  # room above 3 for the legend, clear of every point
    for a in (ax, bx):
        a.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        a.margins(x=0.08, y=0.08)
    top = max(math.log10(int(r["measured"])) for r in rows) if rows else 1.0
    ax.set_ylim(0, top + 2.3)  # room above the points for the legend
    ax.legend(handles=handles, loc="upper left", ncol=2)
    bx.legend(handles=[
        Line2D([], [], color="black", marker="o", ls="",
               label="measured: exact, proved or saturated"),
        Line2D([], [], color="black", marker="o", mfc="white", ls="",
               label="measured, a lower bound"),
        Line2D([], [], color="black", ls="-", lw=0.9, label="proved bound (any $H$)"),
        Line2D([], [], color="black", marker="s", ls="none",
               label="$H = 2$ ($H = 3, 4$: 0.3) drawn 0.15 to the right")],
        loc="upper right")
    return fig


def plot_overview(rows, ax=None):
    """Draw the front page's figure: figure 8's one-head rows, legible in a web column.

    The same data and encodings as :func:`plot` (colour: the width; filled: exact, proved
    or saturated; hollow: a lower bound only; lines: the proved bound), without the
    multi-head series, with fonts of :data:`OVERVIEW_FONT` and legends in words.

    Parameters
    ----------
    rows : list of dict
        Rows of fig8_measured_transition.csv (:func:`seprank.studies.transition.read`);
        rows with more than one head are left out.
    ax : sequence of two matplotlib Axes or None
        Left (:math:`\\log_{10}` rank against depth) and right (growth ratio) panel; None
        makes a double-column figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into (new, or the one holding ``ax``).
    """
    import matplotlib.ticker
    from matplotlib.lines import Line2D

    fig, (ax, bx) = new_axes(ax, ncols=2, size=(DOUBLE, 3.0))
    font = OVERVIEW_FONT
    series: dict = {}
    for r in rows:
        if int(r["heads"]) == 1:
            series.setdefault(int(r["width"]), []).append(r)
    handles = []
    for d, rs in sorted(series.items()):
        rs = sorted(rs, key=lambda r: int(r["depth"]))
        c = width_color(d)
        by_depth = {int(r["depth"]): r for r in rs}
        for Ld, r in by_depth.items():  # filled: exact, proved or saturated; hollow: lower
            ex = settled(r)
            ax.plot(Ld, math.log10(int(r["measured"])), "o", color=c, mfc=c if ex else "white",
                    mew=1.2, ms=6, zorder=3, gid=f"d_x={d}")
            nxt = by_depth.get(Ld + 1)
            if nxt is not None and int(r["measured"]) > 1:
                ratio = math.log(int(nxt["measured"])) / math.log(int(r["measured"]))
                ex = settled(r) and settled(nxt)
                bx.plot(Ld, ratio, "o", color=c, mfc=c if ex else "white", mew=1.2, ms=6,
                        zorder=3, gid=f"d_x={d}")
        ax.plot(list(by_depth), [math.log10(int(r["upper_proved"])) for r in rs], "-",
                color=c, lw=1.2, gid=f"d_x={d}")
        rf = [(int(r["depth"]), float(r["ratio_formula"])) for r in rs if r["ratio_formula"]]
        if rf:
            bx.plot(*zip(*rf), "-", color=c, lw=1.2, gid=f"d_x={d}")
        handles.append(Line2D([], [], color=c, marker="o", lw=1.2, ms=6,
                              label=f"width {d}, {rs[0]['seq_len']} positions"))
    bx.axhline(3, color=GREY, lw=0.8)
    bx.axhline(2, color=GREY, lw=0.8, ls=":")
    ax.set_xlabel("depth $L$", fontsize=font["label"])
    ax.set_ylabel(r"$\log_{10}$ separation rank", fontsize=font["label"])
    bx.set_xlabel("depth $L$ (ratio from $L$ to $L + 1$)", fontsize=font["label"])
    bx.set_ylabel(r"$\log \mathrm{sep}(L{+}1) \,/\, \log \mathrm{sep}(L)$",
                  fontsize=font["label"])
    bx.set_ylim(1, 4.0)  # room above 3 for the legend
    for a in (ax, bx):
        a.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        a.tick_params(labelsize=font["tick"])
        a.margins(x=0.08, y=0.08)
    top = max((math.log10(int(r["measured"])) for rs in series.values() for r in rs),
              default=1.0)
    ax.set_ylim(0, top + 1.6)  # room above the points for the legend
    ax.legend(handles=handles, loc="upper left", fontsize=font["legend"])
    bx.legend(handles=[
        Line2D([], [], color="black", marker="o", ls="",
               label="measured: exact, proved or saturated"),
        Line2D([], [], color="black", marker="o", mfc="white", ls="",
               label="measured: a lower bound only"),
        Line2D([], [], color="black", ls="-", lw=1.2, label="proved bound")],
        loc="upper right", fontsize=font["legend"])
    return fig


def draw(out: Path | str) -> Path:
    """Draw figure 8 and the front page's overview (PNG + PDF) into ``out`` from
    ``out``/fig8_measured_transition.csv.

    Parameters
    ----------
    out : Path or str
        The folder holding the CSV; the figure is written beside it.

    Returns
    -------
    Path
        The PNG.
    """
    import matplotlib

    matplotlib.use("Agg")
    apply_style()
    out = Path(out)
    rows = read(out / CSV_NAME)
    save(plot(rows), out, NAME)
    save(plot_overview(rows), out, OVERVIEW)
    return out / f"{NAME}.png"
