"""Figure 7: the torch depth-width experiment's validation loss."""

from __future__ import annotations

import math
from pathlib import Path

from seprank.figures.common import seq_colors
from seprank.figures.style import SINGLE, new_axes

# --------------------------------------------------------------------------- figure 7
FIG7_FIELDS = ["budget", "depth", "n_seeds", "val_loss_mean", "val_loss_std"]


def experiment_source() -> Path | None:
    """The depth-width experiment's results.csv.

    Returns
    -------
    Path or None
        experiments/depth_width/results/results.csv under the working directory, else the
        repository's, else None.
    """
    rel = Path("experiments/depth_width/results/results.csv")
    for p in (rel, Path(__file__).resolve().parents[2] / rel):
        if p.exists():
            return p
    return None


def experiment_rows(results) -> list[dict]:
    """Figure 7's data: validation loss per budget and depth, over seeds (measured).

    Parameters
    ----------
    results : list of dict
        Rows of the experiment's results.csv (``budget``, ``depth``, ``val_loss``).

    Returns
    -------
    list of dict
        ``budget``, ``depth``, ``n_seeds``, ``val_loss_mean`` and ``val_loss_std`` (the
        sample std, NaN where there is one seed: no spread is known).
    """
    by: dict = {}
    for r in results:
        by.setdefault((int(r["budget"]), int(r["depth"])), []).append(float(r["val_loss"]))
    rows = []
    for (b, L), v in sorted(by.items()):
        m = sum(v) / len(v)
        sd = (sum((x - m) ** 2 for x in v) / (len(v) - 1)) ** 0.5 if len(v) > 1 else math.nan
        rows.append({"budget": b, "depth": L, "n_seeds": len(v), "val_loss_mean": m,
                     "val_loss_std": sd})
    return rows


def plot_experiment(rows, ax=None, title: str | None = None):
    """Draw figure 7: validation loss against depth per budget; bars only for n >= 2 seeds.

    Parameters
    ----------
    rows : list of dict
        :func:`experiment_rows` (or its CSV's rows: an empty std is NaN).
    ax : matplotlib Axes or None
        Where to draw; None makes a single-column figure.
    title : str or None
        The title (None: none).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into (new, or the one holding ``ax``).
    """
    fig, ax = new_axes(ax, size=(SINGLE, 2.7))
    budgets = sorted({int(r["budget"]) for r in rows})
    for col, b in zip(seq_colors(len(budgets)), budgets):
        rs = sorted((r for r in rows if int(r["budget"]) == b), key=lambda r: int(r["depth"]))
        L = [int(r["depth"]) for r in rs]
        m = [float(r["val_loss_mean"]) for r in rs]
        n = sorted({int(r["n_seeds"]) for r in rs})
        nl = f"{n[0]}" if len(n) == 1 else f"{n[0]}-{n[-1]}"
        ax.plot(L, m, "-o", color=col, gid=f"budget={b}",
                label=f"{b:,} params, {nl} seed{'s' if n[-1] > 1 else ''}")
        bars = [(x, y, float(r["val_loss_std"])) for x, y, r in zip(L, m, rs)
                if int(r["n_seeds"]) >= 2]
        if bars:
            ax.errorbar([x for x, _, _ in bars], [y for _, y, _ in bars],
                        yerr=[s for _, _, s in bars], fmt="none", ecolor=col, capsize=2,
                        label=f"_errorbar budget={b}")
    ax.set_xscale("log", base=2)
    Ls = sorted({int(r["depth"]) for r in rows})
    ax.set_xticks(Ls, [str(x) for x in Ls])
    ax.minorticks_off()
    ax.set_xlabel("depth $L$ (width spends the budget)")
    ax.set_ylabel("validation loss (nats/byte)")
    if title:
        ax.set_title(title)
    ax.legend(loc="best", title=r"non-embedding budget (bars: std, $n \geq 2$)")
    return fig
