"""One style for every figure: the Okabe-Ito palette, one colour per width, sizes, saving.

Every figure colours a width d_x by :func:`width_color`, so d_x = 3 has the same colour in
each figure; other encodings (heads, sequence length, depth) use markers and line styles.
Sizes are the two column widths of a two-column paper (:data:`SINGLE`, :data:`DOUBLE`,
inches), fonts at least 7 pt, PNG at 300 dpi beside the PDF (:func:`save`; the depth-width
study's figure, redrawn after every study, writes a 200-dpi PNG and its PDF only when asked).
"""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import numpy as np

from seprank.paths import atomic_write

#: The Okabe-Ito colour-blind-safe palette (Okabe and Ito 2008), yellow last (weak on white).
OKABE_ITO = {
    "blue": "#0072B2", "orange": "#E69F00", "green": "#009E73", "purple": "#CC79A7",
    "vermillion": "#D55E00", "sky": "#56B4E9", "black": "#000000", "yellow": "#F0E442",
}
COLORS = list(OKABE_ITO.values())
#: Neutral colour for reference lines (thresholds, bounds that are not per width).
GREY = "#7F7F7F"

#: The colour of each width drawn anywhere in the figures.
WIDTH_COLORS = {
    2: OKABE_ITO["blue"], 3: OKABE_ITO["orange"], 4: OKABE_ITO["green"],
    5: OKABE_ITO["purple"], 6: OKABE_ITO["vermillion"], 8: OKABE_ITO["sky"],
    10: OKABE_ITO["black"], 100: OKABE_ITO["yellow"],
}

#: Figure widths in inches: one column and the full page width of a two-column paper.
SINGLE, DOUBLE = 3.3, 6.9
#: The smallest font size used anywhere (points).
MIN_FONT = 7
#: The PNG's resolution (dots per inch) unless a figure asks for another.
PNG_DPI = 300


def width_color(width: int) -> str:
    """The colour of a model width, the same in every figure.

    Parameters
    ----------
    width : int
        The model width :math:`d_x`.

    Returns
    -------
    str
        A hex colour of the Okabe-Ito palette (:data:`WIDTH_COLORS`); a width without an
        entry gets the neutral :data:`GREY`.
    """
    return WIDTH_COLORS.get(int(width), GREY)


def apply_style() -> None:
    """Set matplotlib's rcParams for the figures (fonts >= 7 pt, palette, 300 dpi PNG).

    Returns
    -------
    None
    """
    import matplotlib as mpl

    mpl.rcParams.update({
        "figure.dpi": 100, "savefig.dpi": 300, "font.size": 8, "axes.titlesize": 8,
        "axes.labelsize": 8, "xtick.labelsize": 7, "ytick.labelsize": 7,
        "legend.fontsize": 7, "legend.title_fontsize": 7, "lines.markersize": 4.5,
        "lines.linewidth": 1.2, "axes.grid": True, "grid.alpha": 0.3,
        "axes.prop_cycle": mpl.cycler(color=COLORS), "svg.hashsalt": "seprank",
        "pdf.compression": 6, "legend.framealpha": 0.85,
    })


def new_axes(ax=None, ncols: int = 1, nrows: int = 1, size: tuple = (SINGLE, 2.5)):
    """The figure and axes a plot function draws into.

    Parameters
    ----------
    ax : matplotlib Axes, sequence of Axes, or None
        Where to draw: an existing Axes (or ``nrows * ncols`` of them for a multi-panel
        figure); None makes a new figure of ``size`` inches.
    ncols, nrows : int
        Panels of a new figure (and how many Axes ``ax`` must hold).
    size : tuple
        (width, height) in inches of a new figure.

    Returns
    -------
    tuple
        (Figure, Axes) for one panel, else (Figure, list of Axes).
    """
    import matplotlib.pyplot as plt

    n = ncols * nrows
    if ax is None:
        apply_style()
        fig, axes = plt.subplots(nrows, ncols, figsize=size, squeeze=False)
        axes = [a for row in axes for a in row]
    else:
        if hasattr(ax, "flat"):  # a numpy array of Axes (plt.subplots)
            axes = list(ax.flat)
        elif isinstance(ax, (list, tuple)):
            axes = list(ax)
        else:
            axes = [ax]
        if len(axes) != n:
            raise ValueError(f"ax: {n} Axes needed, {len(axes)} given")
        fig = axes[0].figure
    return (fig, axes[0]) if n == 1 else (fig, axes)


def save(fig, out: Path, name: str, *, pdf: bool = True, dpi: int = PNG_DPI,
         compress_level: int | None = None, layout=None) -> None:
    """Write ``fig`` as ``out/name.png`` and (with ``pdf``) ``out/name.pdf``, then close it.

    The layout (``tight_layout``) is computed at the PNG's resolution, so that drawing the
    PNG reuses its renderer and the text metrics the layout measured (laid out at the
    screen's 100 dpi, every label would be measured, and its mathtext parsed, again).

    Parameters
    ----------
    fig : matplotlib Figure
        The figure (closed afterwards).
    out : Path
        The folder.
    name : str
        File name without extension.
    pdf : bool, default True
        Also write the PDF (vector: for print).
    dpi : int, default :data:`PNG_DPI`
        The PNG's resolution.
    compress_level : int or None, default None
        None: matplotlib's PNG writer (Pillow: zlib level 6, a filter chosen per row). A
        zlib level 0-9: the figure drawn once to its pixels and written by
        ``_png_bytes`` (rows unfiltered, RGB where every pixel is opaque): at level 1
        about three times faster to write than Pillow's, about as small, the same pixels
        (with ``savefig.bbox: tight`` in the rcParams, matplotlib's writer at that level).
    layout : callable or None, default None
        ``layout(fig)`` lays the figure out at the PNG's resolution, in place of
        ``tight_layout`` (a figure that knows its own panels can measure far fewer texts).
    """
    import matplotlib as mpl

    fig.set_dpi(dpi)
    if layout is not None:
        layout(fig)
    else:
        fig.tight_layout(pad=0.4)
    if not mpl.rcParams["figure.autolayout"]:  # (else None would ask the layout again)
        fig.set_layout_engine(None)  # tight_layout leaves a placeholder engine, and with
        # any engine savefig draws the whole figure once more, only to throw it away
    with atomic_write(Path(out) / f"{name}.png", "wb") as f:  # never through a link
        if compress_level is not None and mpl.rcParams["savefig.bbox"] is None:
            f.write(_png_of(fig, dpi, compress_level))
        else:  # (a savefig.bbox of "tight" crops the pixels: matplotlib's writer does that)
            fig.savefig(f, format="png", dpi=dpi, pil_kwargs=None if compress_level is None
                        else {"compress_level": compress_level})
    if pdf:
        with atomic_write(Path(out) / f"{name}.pdf", "wb") as f:
            fig.savefig(f, format="pdf", metadata={"CreationDate": None})
    import matplotlib.pyplot as plt

    plt.close(fig)


def _png_of(fig, dpi: int, level: int) -> bytes:
    """The figure's PNG: one Agg draw (savefig's, to raw RGBA) written by ``_png_bytes``
    with the metadata matplotlib's own writer records."""
    import matplotlib as mpl

    buf = io.BytesIO()
    fig.savefig(buf, format="rgba", dpi=dpi)
    w, h = int(fig.bbox.width), int(fig.bbox.height)  # the Agg renderer's size at ``dpi``
    if buf.getbuffer().nbytes != 4 * w * h:
        raise RuntimeError(f"the figure drew {buf.getbuffer().nbytes} bytes, not {w} x {h} "
                           "RGBA pixels")
    rgba = np.frombuffer(buf.getbuffer(), dtype=np.uint8).reshape(h, w, 4)
    software = f"Matplotlib version{mpl.__version__}, https://matplotlib.org/"
    return _png_bytes(rgba, dpi, level, text={"Software": software})


def _png_bytes(rgba, dpi: float, level: int = 1, text: dict | None = None) -> bytes:
    """A PNG file of 8-bit RGBA pixels: RGB where every pixel is opaque (else RGBA), every
    row unfiltered (PNG filter type 0), compressed by zlib at ``level``.

    A figure's large flat areas compress about as well without the per-row filters that
    Pillow chooses by trying each, and choosing them is most of Pillow's writing time.

    Parameters
    ----------
    rgba : numpy.ndarray
        ``(height, width, 4)`` uint8 pixels, the top row first.
    dpi : float
        The resolution recorded in the file (its pHYs chunk).
    level : int, default 1
        The zlib level, 0-9.
    text : dict, optional
        Keyword -> text, each written as a tEXt chunk (Latin-1).

    Returns
    -------
    bytes
        The PNG file.

    Raises
    ------
    ValueError
        If ``rgba`` is not a ``(height, width, 4)`` uint8 array.
    """
    a = np.asarray(rgba)
    if a.dtype != np.uint8 or a.ndim != 3 or a.shape[2] != 4 or 0 in a.shape:
        raise ValueError(f"rgba: a non-empty (height, width, 4) uint8 array expected, got "
                         f"{a.dtype} {a.shape}")
    h, w = a.shape[:2]
    if a[..., 3].min() == 255:
        a, color_type = a[..., :3], 2  # truecolour
    else:
        color_type = 6  # truecolour with alpha
    rows = np.empty((h, 1 + w * a.shape[2]), dtype=np.uint8)
    rows[:, 0] = 0  # each row's filter type: none
    rows[:, 1:].reshape(h, w, a.shape[2])[...] = a  # one copy, into place

    def chunk(tag: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))

    ppm = int(dpi / 0.0254 + 0.5)  # pixels per metre, as Pillow writes it
    parts = [b"\x89PNG\r\n\x1a\n",
             chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, color_type, 0, 0, 0)),
             chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1))]
    parts += [chunk(b"tEXt", k.encode("latin-1") + b"\0" + v.encode("latin-1"))
              for k, v in (text or {}).items()]
    parts += [chunk(b"IDAT", zlib.compress(rows, level)), chunk(b"IEND", b"")]
    return b"".join(parts)
