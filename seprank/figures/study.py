"""The depth-width study's figure, drawn from a :class:`~seprank.studies.study.Study`.

Left: $\\log_{10}$ of the measured rank against depth, one line per series (colour: the
width, :func:`~seprank.figures.style.width_color`; marker: the head count or the other
keys), filled markers where the rank is exact or saturated, hollow where it is a certified
lower bound only; the proved bound dashed where the architecture has one (at the measured
depths). With widths and heads, the marker is the head dimension $d_x / H$ (a circle for
one head, a diamond for head dimension one). Middle: each
step's growth ratio $\\log r(L') / \\log r(L)$ at L', with the two laws it sits between
(the degree law, grey solid; the linear law $L'/L$, grey dotted); hollow where the ratio
is only a lower bound. Right: the depth-width map, one marker per step and series, green
where the step is depth-efficient, red where it is not, grey where undetermined.
"""

from __future__ import annotations

import math
from pathlib import Path

from seprank.figures.style import DOUBLE, GREY, apply_style, new_axes, save, width_color
from seprank.studies.study_analysis import series_of

NAME = "study"
#: The PNG's resolution: 1380 pixels across the double column, sharp on a screen at twice
#: the page's size; the vector PDF (``pdf=True``, ``seprank study --pdf``) is for print.
DPI = 200
#: Markers per series (the series' index among those of one width).
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
#: Markers by head dimension d_x / H (H > 1; one head: a circle).
HEAD_DIM_MARKERS = {1: "D", 2: "^", 3: "s", 4: "v", 5: "P", 6: "X"}
#: The map's colour per regime.
REGIME_COLORS = {"depth-efficient": "#009E73", "depth-inefficient": "#D55E00",
                 "no gain": "#D55E00", "undetermined": GREY}


def _settled(r: dict) -> bool:
    return r.get("kind") in ("exact", "saturated")


def _series_label(key: dict, width_key: str) -> str:
    parts = []
    for k, v in key.items():
        if k == width_key:
            parts.append(f"d\u2093 = {v}" if k == "width" else f"{k}={v}")
        elif k == "heads":
            parts.append(f"H = {v}")
        else:
            parts.append(f"{k}={v}")
    return ", ".join(parts) or "measured"


def plot(study, ax=None):
    """Draw the study's figure (three panels).

    Parameters
    ----------
    study : Study
        A study (:func:`seprank.study`, or :func:`seprank.studies.study.from_csv`).
    ax : sequence of three matplotlib Axes or None
        The panels; None makes a double-column figure, laid out (:func:`layout`).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.
    """
    fig = _draw(study, ax)
    if ax is None:
        layout(fig)
    return fig


def _draw(study, ax=None):
    """The figure of :func:`plot`, not laid out (:func:`write` lays it out at its dpi)."""
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    lax = None
    if ax is None:  # a new figure: the three panels above a row for the legend
        import matplotlib.pyplot as plt

        apply_style()
        fig = plt.figure(figsize=(DOUBLE, 3.5))
        gs = fig.add_gridspec(2, 3, height_ratios=[1, 0.2])  # the legend below, in the
        ax, bx, cx = (fig.add_subplot(gs[0, i]) for i in range(3))  # second row's band
        lax = fig  # the figure's own legend: no fourth Axes to build and lay out
    else:
        fig, (ax, bx, cx) = new_axes(ax, ncols=3)
    dk, wk = study.depth_key, study.width_key
    groups = series_of(study.rows, dk)
    marker_of = _markers(groups, wk)
    for key, rows in groups.items():
        d = dict(key).get(wk)
        c = width_color(d) if isinstance(d, int) else "black"
        mk = marker_of[key]
        pts = [r for r in rows if r.get("rank")]
        if not pts:
            continue
        xs = [r["values"][dk] for r in pts]
        ys = [math.log10(r["rank"]) for r in pts]
        ax.plot(xs, ys, "-", color=c, lw=0.8, alpha=0.6)
        for filled in (True, False):  # one marker line per fill (fewer artists to draw)
            xy = [(x, y) for x, y, r in zip(xs, ys, pts) if _settled(r) == filled]
            if xy:
                ax.plot(*zip(*xy), mk, ls="none", color=c, mfc=c if filled else "white",
                        mew=1, ms=4, zorder=3)
        ub = [(r["values"][dk], math.log10(r["upper"])) for r in rows
              if r.get("upper") and r.get("rank")]  # at the measured depths only
        if ub and marker_of[key] == MARKERS[0]:  # (a lone point: a dash, to be seen)
            ax.plot(*zip(*ub), "_--" if len(ub) == 1 else "--", color=c, lw=0.7, ms=8)
    ax.set_xlabel("depth L")
    ax.set_ylabel("log\u2081\u2080 measured rank")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10]))  # few ticks
    handles = [Line2D([], [], marker=marker_of[k], ls="none", color=width_color(dict(k).get(wk))
                      if isinstance(dict(k).get(wk), int) else "black",
                      label=_series_label(dict(k), wk)) for k in groups]
    if any(r.get("upper") for r in study.rows):
        handles.append(Line2D([], [], ls="--", color=GREY, lw=0.7, label="proved bound"))
    if lax is not None:
        lax.legend(handles=handles, fontsize=6, loc="center", frameon=False,
                   ncol=min(len(handles), 5), bbox_to_anchor=(0.5, 0.2 / 1.2 / 2))
    else:
        ax.legend(handles=handles, fontsize=5.5, loc="upper left",
                  frameon=False).set_in_layout(False)
    # y given: where matplotlib's automatic placement puts it (nothing above the panel),
    # without measuring the y axis again at every layout and draw to find that out
    ax.set_title("filled: exact or saturated; hollow: lower bound", fontsize=6.5, y=1.0)
    _ratios(bx, study, groups, marker_of)
    _map(cx, study, groups, marker_of)
    return fig


def write(study, out, *, pdf: bool = False) -> list[Path]:
    """Draw the study's figure and write it into ``out`` (what ``seprank study --out`` does).

    Parameters
    ----------
    study : Study
        A study (:func:`seprank.study`, or :func:`seprank.studies.study.from_csv`).
    out : str or Path
        The folder (it exists).
    pdf : bool, default False
        Also write the PDF (vector, for print: the figure's slowest part to write).

    Returns
    -------
    list of Path
        The files written: ``study.png`` (at :data:`DPI`, zlib level 1: redrawn after
        every study, it is written fast rather than small), then ``study.pdf`` if asked.
    """
    out = Path(out)
    save(_draw(study), out, NAME, pdf=pdf, dpi=DPI, compress_level=1, layout=layout)
    return [out / f"{NAME}.png"] + ([out / f"{NAME}.pdf"] if pdf else [])


def layout(fig) -> None:
    """Lay out a figure that :func:`plot` made (three panels above the figure's legend) at
    its dpi, as ``tight_layout(pad=0.4)`` would, from the texts around the panels: each
    panel's tick labels, axis labels and title, and the legend, measured. The panels are
    placed with ``set_position``.

    ``tight_layout`` asks every artist of every panel for its extent (the ticks laid out
    once for the layout and again for the draw); here a few dozen texts are measured, and
    the draw reuses their measures. ``save(..., layout=layout)`` calls it.

    Parameters
    ----------
    fig : matplotlib Figure
        A figure from :func:`plot` with ``ax=None``, its dpi set.

    Returns
    -------
    None
    """
    r = fig.canvas.get_renderer()
    dpi = fig.dpi
    W, H = fig.get_size_inches()
    panels = fig.axes[:3]
    pad = 0.4 * fig.axes[0].xaxis.label.get_fontsize() / 72  # tight_layout's pad, inches

    def size(texts, dim: str) -> float:  # the largest width or height, inches
        ext = [t.get_window_extent(r) for t in texts if t.get_visible() and t.get_text()]
        return max((getattr(e, dim) for e in ext), default=0.0) / dpi

    def ticks_out(axis) -> float:  # tick length outside the panel plus the label's pad
        return (axis.get_tick_padding() + max((t.get_pad() for t in axis.get_major_ticks()),
                                              default=0.0)) / 72

    left, right, below, above, title = [], [], 0.0, 0.0, []
    for ax in panels:
        xa, ya = ax.xaxis, ax.yaxis
        half_x = size(xa.get_ticklabels(), "width") / 2  # an end tick's label sticks out
        left.append(max(half_x, ticks_out(ya) + size(ya.get_ticklabels(), "width")
                        + (ya.labelpad / 72 + size([ya.label], "width")
                           if ya.label.get_text() else 0.0)))
        right.append(half_x)
        below = max(below, ticks_out(xa) + size(xa.get_ticklabels(), "height")
                    + (xa.labelpad / 72 + size([xa.label], "height")
                       if xa.label.get_text() else 0.0))
        if ax.title.get_text():  # (the title's pad: its offset above the panel, pixels)
            above = max(above, size([ax.title], "height")
                        + ax.titleOffsetTrans.get_matrix()[1, 2] / dpi)
        title.append(size([ax.title], "width"))
    legend = max((g.get_window_extent(r).height / dpi for g in fig.legends), default=0.0)
    n = len(panels)

    def width() -> float:  # each panel's width, the margins as they stand
        return (W - 2 * pad - sum(left) - sum(right) - pad * (n - 1)) / n

    a = width()
    for _ in range(2):  # a title wider than its panel widens the margins beside it
        over = [max(0.0, (t - a) / 2) for t in title]
        left = [max(left[0], over[0])] + [max(left[i], over[i] + over[i - 1] - right[i - 1])
                                          for i in range(1, n)]
        right = right[:-1] + [max(right[-1], over[-1])]
        a = width()
    y0 = pad + (legend + pad if legend else 0.0) + below
    h = H - y0 - pad - above
    x = pad
    for ax, lm, rm in zip(panels, left, right):
        x += lm
        ax.set_position([x / W, y0 / H, a / W, h / H])
        x += a + rm + pad
    for leg in fig.legends:  # centred in its band below the panels
        leg.set_bbox_to_anchor((0.5, (pad + legend / 2) / H), transform=fig.transFigure)


def _offsets(study) -> dict:
    """A small horizontal offset per series, so that markers at one depth do not hide."""
    keys = sorted({tuple(s["series"].items()) for s in study.steps}, key=str)
    n = len(keys)
    return {k: (i - (n - 1) / 2) * min(0.06, 0.5 / max(n, 1)) for i, k in enumerate(keys)}


def _markers(groups, wk: str) -> dict:
    """A marker per series: by head dimension d_x / H where the series have widths and heads
    (a circle for one head), else by the series' order within its width."""
    out, seen = {}, {}
    for key in groups:
        k = dict(key)
        d, H = k.get(wk), k.get("heads")
        if isinstance(d, int) and isinstance(H, int) and H >= 1 and d % H == 0:
            out[key] = "o" if H == 1 else HEAD_DIM_MARKERS.get(d // H, "*")
        else:
            seen[d] = seen.get(d, 0)
            out[key] = MARKERS[seen[d] % len(MARKERS)]
            seen[d] += 1
    return out


def _ratios(bx, study, groups, marker_of) -> None:
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    wk = study.width_key
    laws = {}
    off = _offsets(study)
    points: dict = {}  # (series, filled) -> its markers: one line each (fewer artists)
    for s in study.steps:
        key = tuple(s["series"].items())
        if s["linear_law"]:
            laws.setdefault(s["to"], (s["degree_law"], s["linear_law"]))
        if s["ratio"] is not None:
            points.setdefault((key, s["ratio_label"] == "measured"), []).append(
                (s["to"] + off[key], s["ratio"]))
    for (key, measured), xy in points.items():
        d = dict(key).get(wk)
        c = width_color(d) if isinstance(d, int) else "black"
        bx.plot(*zip(*xy), marker_of.get(key, "o"), ls="none", color=c,
                mfc=c if measured else "white", mew=1, ms=4, zorder=3)
    if laws:
        xs = sorted(laws)
        deg = [laws[x][0] for x in xs]
        lin = [laws[x][1] for x in xs]
        styles = [("-", 0.8, "degree law", deg),
                  ("--", 0.6, "midpoint: the regimes' border",
                   [g and math.sqrt(g * q) for g, q in zip(deg, lin)]),
                  (":", 1.0, "linear law L\u2032/L", lin)]
        handles = []  # the legend's lines without the end dashes, which would hide them
        for ls, lw, label, ys in styles:
            if all(v is not None for v in ys):
                bx.plot(xs, ys, "_" + ls, color=GREY, lw=lw, ms=10)
                handles.append(Line2D([], [], ls=ls, lw=lw, color=GREY, label=label))
        # a legend inside its panel: the layout need not measure it (the same pixels)
        bx.legend(handles=handles, fontsize=6, frameon=False,
                  loc="lower left").set_in_layout(False)
    bx.xaxis.set_major_locator(MaxNLocator(integer=True))
    bx.yaxis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 5, 10]))  # 0.5 apart, not 0.25
    bx.set_xlabel("depth L\u2032 of the step L \u2192 L\u2032")
    bx.set_ylabel("log r(L\u2032) / log r(L)")
    if bx.has_data():
        bx.set_ylim(bottom=1.0)
    else:  # no step (every cell refused): the laws' range, not an empty (1, 1)
        bx.set_ylim(1.0, 3.5)


def _map(cx, study, groups, marker_of) -> None:

    wk = study.width_key
    others = sorted({tuple((k, v) for k, v in s["series"].items() if k != wk)
                     for s in study.steps}, key=str)
    n = max(1, len(others))
    points: dict = {}  # (series, colour, filled) -> its markers: one line each
    for s in study.steps:
        d = s["series"].get(wk)
        if not isinstance(d, int):
            continue
        o = tuple((k, v) for k, v in s["series"].items() if k != wk)
        dx = (others.index(o) - (n - 1) / 2) * 0.6 / n if n > 1 else 0.0
        key = (tuple(s["series"].items()), REGIME_COLORS.get(s["regime"], GREY),
               s["ratio_label"] == "measured")
        points.setdefault(key, []).append((s["from"] + 0.5 + dx, d))
    for (series, col, measured), xy in points.items():
        cx.plot(*zip(*xy), marker_of.get(series, "o"), ls="none", color=col,
                mfc=col if measured else "white", mew=1, ms=5)
    for i, reg in enumerate(("depth-efficient", "depth-inefficient", "undetermined")):
        # the key: a swatch and a word per regime, in its colour (three texts draw in a
        # third of a legend's time, and look the same)
        cx.text(0.05, 0.96 - 0.05 * i, f"\u25a0  {reg}", color=REGIME_COLORS[reg],
                fontsize=6, transform=cx.transAxes, va="top", in_layout=False)
    cx.set_xlabel("step L \u2192 L+1")
    cx.set_ylabel("width d\u2093" if wk == "width" else wk)
    froms = sorted({s["from"] for s in study.steps})
    cx.set_xticks([L + 0.5 for L in froms], [f"{L}\u2192{L + 1}" for L in froms])
    if froms:
        cx.set_xlim(froms[0] - 0.1, froms[-1] + 1.1)
    ws = sorted({s["series"].get(wk) for s in study.steps
                 if isinstance(s["series"].get(wk), int)})
    if ws:
        cx.set_yticks(ws)
        cx.set_ylim(min(ws) - 0.7, max(ws) + 1.5)
    cx.set_title("hollow: the ratio is a lower bound", fontsize=6.5, y=1.0)  # (as ax's)
