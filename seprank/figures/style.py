"""One style for every figure: colour-blind-safe palette (Okabe-Ito), sizes, saving."""

from __future__ import annotations

from pathlib import Path

COLORS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#000000"]


def apply_style() -> None:
    import matplotlib as mpl

    mpl.rcParams.update({
        "figure.dpi": 110, "savefig.dpi": 130, "font.size": 10, "axes.titlesize": 10,
        "axes.grid": True, "grid.alpha": 0.3, "axes.prop_cycle": mpl.cycler(color=COLORS),
        "svg.hashsalt": "seprank", "pdf.compression": 6,
    })  # fmt: skip


def save(fig, out: Path, name: str) -> None:
    fig.tight_layout()
    fig.savefig(Path(out) / f"{name}.png")
    fig.savefig(Path(out) / f"{name}.pdf", metadata={"CreationDate": None})
    import matplotlib.pyplot as plt

    plt.close(fig)
