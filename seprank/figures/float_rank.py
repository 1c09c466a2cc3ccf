"""Figure 5: exact (GF(p)) against float64 SVD rank as the degree grows."""

from __future__ import annotations

import json

from seprank.figures.common import Measurer, seq_colors
from seprank.figures.style import DOUBLE, GREY, new_axes, width_color

# --------------------------------------------------------------------------- figure 5
FIG5_FIELDS = ["depth", "degree", "exact_rank", "label", "float_rank", "float_label",
               "float_tolerance", "float_grid_rows", "float_grid_cols",
               "spectrum_s_over_s1"]


def float_grid_size(exact_rank: int) -> int:
    """The float grid's side for a network of exact rank ``exact_rank``: larger than it.

    Parameters
    ----------
    exact_rank : int

    Returns
    -------
    int
        ``exact_rank + max(16, exact_rank // 4)``, so the float rank could reach the exact
        one.
    """
    return exact_rank + max(16, exact_rank // 4)


def float_vs_exact_rows(quick: bool = False, measurer=None, depths=None) -> list[dict]:
    r"""Figure 5's data: exact and float64 SVD rank of one network (:math:`d_x = 2`, :math:`N = 2`).

    The float rank is computed on one :math:`n \times n` grid with :math:`n` =
    :func:`float_grid_size` of the exact rank, so it is not capped by the grid.

    Parameters
    ----------
    quick : bool
        Depths 1-3 instead of 1-4.
    measurer : Measurer or None
        Where exact measurements come from (None: measure inline).
    depths : iterable of int or None
        Overrides ``quick``.

    Returns
    -------
    list of dict
        ``depth``, ``degree`` (:math:`3^L`), ``exact_rank`` (:math:`\mathrm{GF}(p)`),
        ``float_rank``, ``float_label`` (its label: ``float estimate, trusted`` /
        ``untrusted``, never saturated),
        ``float_tolerance``, ``float_grid_rows``, ``float_grid_cols`` and
        ``spectrum_s_over_s1`` (a JSON list); the CSV adds ``label`` (of ``exact_rank``:
        :mod:`seprank.figures.row_labels`).
    """
    _m = measurer or Measurer()
    d, N = 2, 2
    rows = []
    for L in depths or ([1, 2, 3] if quick else [1, 2, 3, 4]):
        e = _m(L, d, 1, N)
        f = _m(L, d, 1, N, method="float", grid=float_grid_size(e.rank))
        s = [float(x) / float(f.spectrum[0]) for x in f.spectrum]
        rows.append({"depth": L, "degree": 3**L, "exact_rank": e.rank, "float_rank": f.rank,
                     "float_label": f.label, "float_tolerance": f.tolerance,
                     "float_grid_rows": f.samples[0], "float_grid_cols": f.samples[1],
                     "spectrum_s_over_s1": json.dumps([float(f"{x:.4g}") for x in s])})
    return rows


def plot_float_vs_exact(rows, ax=None):
    """Draw figure 5: exact and float rank against the degree; the float spectra.

    Parameters
    ----------
    rows : list of dict
        :func:`float_vs_exact_rows`.
    ax : sequence of two matplotlib Axes or None
        Left and right panel; None makes a double-column figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into (new, or the one holding ``ax``).
    """
    fig, (a1, a2) = new_axes(ax, ncols=2, size=(DOUBLE, 2.6))
    rows = sorted(rows, key=lambda r: int(r["depth"]))
    degs = [int(r["degree"]) for r in rows]
    c = width_color(2)
    a1.plot(degs, [int(r["exact_rank"]) for r in rows], "-o", color=c, gid="d_x=2",
            label=r"exact (over $\mathrm{GF}(p)$, measured)")
    a1.plot(degs, [int(r["float_rank"]) for r in rows], "--s", color="black", mfc="white",
            label="float64 SVD rank")
    a1.plot(degs, [int(r["float_grid_rows"]) for r in rows], ":", color=GREY,
            label=r"float grid side $n$ ($n \times n$)")
    a1.set_xscale("log", base=3)
    a1.set_yscale("log")
    a1.set_xticks(degs, [str(x) for x in degs])
    a1.minorticks_off()
    a1.set_xlabel(f"polynomial degree $3^L$ ($L = 1, \\ldots, {int(rows[-1]['depth'])}$)")
    a1.set_ylabel("rank")
    a1.set_title("$d_x = 2,\\ N = 2,\\ H = 1$")
    a1.legend(loc="upper left")
    cols = seq_colors(len(rows))
    for col, r in zip(cols, rows):
        s = json.loads(r["spectrum_s_over_s1"]) if isinstance(r["spectrum_s_over_s1"], str) \
            else r["spectrum_s_over_s1"]
        s = [max(x, 1e-300) for x in s]
        a2.semilogy(range(1, len(s) + 1), s, color=col, lw=1,
                    label=f"$L = {r['depth']}$: exact rank {r['exact_rank']}, "
                    f"float {r['float_rank']}")
        a2.axvline(int(r["exact_rank"]), color=col, ls=":", lw=1)
    a2.set_xscale("log")
    a2.set_xlabel("singular value index $i$ (dotted: exact rank)")
    a2.set_ylabel(r"$s_i / s_1$ (float64, $n \times n$ grid)")
    a2.set_title("float64 spectra")
    a2.legend(loc="lower left")
    return fig
