"""Figure 12: measured / proved over (L, d_x) from the verify grid."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from seprank.figures.common import PAPER_FIGURES, read_csv, truthy, write_csv
from seprank.figures.style import DOUBLE, new_axes
from seprank.studies.verify import upgrade_row

# --------------------------------------------------------------------------- figure 12
FIG12_FIELDS = ["depth", "width", "heads", "seq_len", "residual", "measured", "label",
                "saturated", "upper", "exact_proved"]
VERIFY_CSV = "fig12_verify_grid.csv"


def verify_source(out: Path | str | None = None) -> Path | None:
    """The verify rows figure 12 reads.

    Parameters
    ----------
    out : Path, str or None
        A figures folder.

    Returns
    -------
    Path or None
        ``out``/fig12_verify_grid.csv if it exists, else the committed one (written by
        :func:`write_verify_csv` from ``seprank verify --quick``'s results.csv), else None.
    """
    for p in ([Path(out) / VERIFY_CSV] if out is not None else []) + [PAPER_FIGURES / VERIFY_CSV]:
        if p.exists():
            return p
    return None


def verify_rows(results) -> list[dict]:
    """Figure 12's data: the verify grid's measured rank beside the proved bound.

    Parameters
    ----------
    results : list of dict
        Rows of ``seprank verify``'s results.csv (an older one, with ``tight`` and no
        ``label``, is read in the current words: :func:`seprank.studies.verify.upgrade_row`).

    Returns
    -------
    list of dict
        Per configuration: ``depth``, ``width``, ``heads``, ``seq_len``, ``residual``,
        ``measured``, ``label``, ``saturated``, ``upper`` (proved), ``exact_proved``
        (measured = upper).
    """
    return [{k: r[k] for k in FIG12_FIELDS} for r in (upgrade_row(dict(x)) for x in results)]


def write_verify_csv(results_csv: Path | str, out: Path | str = "paper_figures") -> Path:
    """Copy the columns figure 12 needs from a verify results.csv into ``out``.

    Parameters
    ----------
    results_csv : Path or str
        ``seprank verify --quick``'s results.csv.
    out : Path or str
        The figures folder.

    Returns
    -------
    Path
        ``out``/fig12_verify_grid.csv.
    """
    p = Path(out) / VERIFY_CSV
    write_csv(p, verify_rows(read_csv(Path(results_csv))), FIG12_FIELDS)
    return p


def plot_verify_grid(rows, ax=None):
    """Draw figure 12: measured / proved over :math:`(L, d_x)`, for :math:`H = 1` and :math:`H > 1`.

    Each cell is coloured by the smallest measured / proved over the configurations in it
    (sequence lengths, residual or not, head counts) and says how many are exact, proved
    (measured = proved bound).

    Parameters
    ----------
    rows : list of dict
        :func:`verify_rows`.
    ax : sequence of two matplotlib Axes or None
        None makes a double-column figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into (new, or the one holding ``ax``).
    """

    fig, axes = new_axes(ax, ncols=2, size=(DOUBLE, 2.5))
    Ls = sorted({int(r["depth"]) for r in rows})
    ds = sorted({int(r["width"]) for r in rows})
    im = None
    for a, (name, sel) in zip(axes, (("$H = 1$", lambda h: h == 1), ("$H > 1$", lambda h: h > 1))):
        z = np.full((len(Ls), len(ds)), np.nan)
        for i, L in enumerate(Ls):
            for j, d in enumerate(ds):
                rs = [r for r in rows if int(r["depth"]) == L and int(r["width"]) == d
                      and sel(int(r["heads"]))]
                if not rs:
                    a.text(j, i, "not in grid", ha="center", va="center", fontsize=7)
                    continue
                q = [int(r["measured"]) / int(r["upper"]) for r in rs]
                z[i, j] = min(q)
                t = sum(truthy(r["exact_proved"]) for r in rs)
                a.text(j, i, f"{t}/{len(rs)}\nexact, proved\nmin {min(q):.3f}", ha="center",
                       va="center", fontsize=7, color="black" if min(q) > 0.6 else "white")
        im = a.imshow(z, origin="lower", cmap="cividis", vmin=0.5, vmax=1, aspect="auto")
        a.set_xticks(range(len(ds)), [str(d) for d in ds])
        a.set_yticks(range(len(Ls)), [str(L) for L in Ls])
        a.grid(False)
        a.set_xlabel("width $d_x$")
        a.set_ylabel("depth $L$")
        a.set_title(f"{name}: measured / proved bound")
    fig.colorbar(im, ax=axes[-1], label="min measured / proved")
    return fig
