"""Depth vs width at fixed non-embedding parameter budgets: sweep, CSV, plot, summary.

Run as ``python -m experiments.depth_width.run --preset smoke|cpu|gpu [--out DIR]
[--device cpu|cuda] [--threads T]`` from the repository root. Rows are appended to
``results.csv`` as they finish; a rerun skips finished rows (resume); Ctrl-C keeps them.
"""

from __future__ import annotations

import math
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from seprank.figures import csv_rows
from seprank.paths import atomic_write, write_text

FIELDS = [
    "budget", "depth", "width", "heads", "params", "params_12Ld2", "tokens", "seed",
    "train_loss", "val_loss", "seconds", "tokens_per_s", "device",
]


@dataclass(frozen=True)
class Preset:
    budgets: tuple[int, ...]
    depths: tuple[int, ...]
    tokens: tuple[int, ...]  # training tokens per run, one per budget
    seeds_smallest: int
    head_dim: int = 16
    batch: int = 32
    ctx: int = 128
    lr: float = 3e-3
    corpus_bytes: int = 8_000_000
    eval_batches: int = 16


PRESETS = {
    # Under a minute on 2 CPU cores: exercised by the test suite.
    "smoke": Preset(budgets=(6_000,), depths=(1, 2), tokens=(60_000,), seeds_smallest=1,
                    head_dim=8, batch=16, ctx=64, corpus_bytes=1_000_000, eval_batches=4),
    # About 30 minutes on 2 CPU cores.
    "cpu": Preset(budgets=(25_000, 100_000, 400_000), depths=(1, 2, 4, 8),
                  tokens=(1_000_000, 1_300_000, 1_600_000), seeds_smallest=3, head_dim=8),
    # Same design at larger budgets, sized for one H200-class GPU in < 8 minutes (untested).
    "gpu": Preset(budgets=(1_000_000, 4_000_000, 16_000_000), depths=(2, 4, 8, 16),
                  tokens=(20_000_000, 30_000_000, 40_000_000), seeds_smallest=3, head_dim=64,
                  batch=64, ctx=256, lr=1e-3, corpus_bytes=30_000_000),
}


def plan(preset: Preset) -> list[dict]:
    """Every run of the preset: (budget, depth, width, heads, seed, tokens)."""
    from .model import width_for_budget

    runs = []
    for bi, (budget, tokens) in enumerate(zip(preset.budgets, preset.tokens)):
        seeds = range(preset.seeds_smallest) if bi == 0 else range(1)
        for depth in preset.depths:
            width = width_for_budget(budget, depth, preset.head_dim)
            for seed in seeds:
                runs.append(dict(budget=budget, depth=depth, width=width,
                                 heads=width // preset.head_dim, seed=seed, tokens=tokens))
    return runs


def _key(row) -> tuple:
    return (int(row["budget"]), int(row["depth"]), int(row["seed"]))


def read_rows(path: Path) -> list[dict]:
    """The rows of a results CSV ([] when there is none)."""
    return csv_rows.read_rows(path, missing_ok=True)


def train_one(run: dict, preset: Preset, data, device: str, bar=None) -> dict:
    """Train one model; returns its CSV row."""
    import torch

    from .data import batches
    from .model import GPT

    train, val = data
    torch.manual_seed(run["seed"])
    model = GPT(run["depth"], run["width"], run["heads"], preset.ctx).to(device)
    steps = max(1, run["tokens"] // (preset.batch * preset.ctx))
    opt = torch.optim.AdamW(model.parameters(), lr=preset.lr, weight_decay=0.1,
                            betas=(0.9, 0.95))
    warm = max(1, steps // 20)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt,
        lambda s: min(1.0, (s + 1) / warm)
        * 0.5
        * (1 + math.cos(math.pi * min(s, steps) / steps)),
    )
    gen = batches(train, preset.batch, preset.ctx, np.random.default_rng(run["seed"]))
    losses = []
    t0 = time.perf_counter()
    model.train()
    for _ in range(steps):
        x, y = next(gen)
        loss = model(x.to(device), y.to(device))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        losses.append(float(loss.detach()))
        if bar is not None:
            bar.set_postfix(loss=f"{losses[-1]:.3f}", refresh=False)
            bar.update(1)
    seconds = time.perf_counter() - t0
    model.eval()
    vgen = batches(val, preset.batch, preset.ctx, np.random.default_rng(12345))
    with torch.no_grad():
        vl = [float(model(*(t.to(device) for t in next(vgen)))) for _ in range(preset.eval_batches)]
    tail = losses[-max(1, steps // 10) :]
    return dict(
        budget=run["budget"], depth=run["depth"], width=run["width"], heads=run["heads"],
        params=model.non_embedding_params(), params_12Ld2=12 * run["depth"] * run["width"] ** 2,
        tokens=steps * preset.batch * preset.ctx, seed=run["seed"],
        train_loss=round(float(np.mean(tail)), 5), val_loss=round(float(np.mean(vl)), 5),
        seconds=round(seconds, 2), tokens_per_s=round(steps * preset.batch * preset.ctx / seconds),
        device=device, first_loss=losses[0],
    )


def sweep(preset_name: str, out: Path, device: str = "cpu", progress: bool = True) -> list[dict]:
    """Run every unfinished run of a preset, appending rows to out/results.csv."""
    from tqdm import tqdm

    from .data import load_corpus

    preset = PRESETS[preset_name]
    out.mkdir(parents=True, exist_ok=True)
    path = out / "results.csv"
    done = {_key(r) for r in read_rows(path)}
    todo = [r for r in plan(preset) if _key(r) not in done]
    data = load_corpus(preset.corpus_bytes)
    new_rows = []
    outer = tqdm(todo, desc=f"sweep {preset_name}", unit="run", disable=not progress)
    try:
        for run in outer:
            steps = max(1, run["tokens"] // (preset.batch * preset.ctx))
            with tqdm(total=steps, desc=f"  L={run['depth']} d={run['width']} s={run['seed']}",
                      leave=False, disable=not progress) as bar:
                row = train_one(run, preset, data, device, bar)
            new_rows.append(row)
            append_row(path, row, FIELDS)
    except KeyboardInterrupt:
        print(f"\ninterrupted: {len(new_rows)} new rows kept in {path}", file=sys.stderr)
        raise
    finally:
        outer.close()
    _write_machine(out, preset_name, device)
    return new_rows


#: Append one finished run to a results CSV (header first if the file is new).
append_row = csv_rows.append_row


def machine_line(preset: str, device: str) -> str:
    """One line describing where a preset ran (written to machine.txt beside results)."""
    import os

    import torch

    desc = (f"preset={preset} device={device} torch={torch.__version__} "
            f"python={platform.python_version()} cpu={platform.machine()} "
            f"cores={os.cpu_count()} threads={torch.get_num_threads()}")
    if device.startswith("cuda") and torch.cuda.is_available():
        desc += f" gpu={torch.cuda.get_device_name(0)}"
    return desc


def _write_machine(out: Path, preset: str, device: str) -> None:
    write_text(out / "machine.txt", machine_line(preset, device) + "\n")


def summarise(rows: list[dict]) -> dict:
    """Mean val loss per (budget, depth), noise level, best depth per budget."""
    by: dict = {}
    for r in rows:
        by.setdefault(int(r["budget"]), {}).setdefault(int(r["depth"]), []).append(
            float(r["val_loss"])
        )
    out = {}
    for budget, depths in sorted(by.items()):
        means = {d: float(np.mean(v)) for d, v in sorted(depths.items())}
        stds = {d: float(np.std(v, ddof=1)) for d, v in depths.items() if len(v) > 1}
        best = min(means, key=means.get)
        out[budget] = dict(means=means, stds=stds, best_depth=best)
    return out


def plot(rows: list[dict], path: Path) -> None:
    """Validation loss against depth, one line per budget (error bars where seeds > 1)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = summarise(rows)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    colors = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9"]
    for i, (budget, v) in enumerate(s.items()):
        ds = sorted(v["means"])
        ys = [v["means"][d] for d in ds]
        err = [v["stds"].get(d, 0.0) for d in ds]
        ax.errorbar(ds, ys, yerr=err, marker="o", capsize=3, color=colors[i % len(colors)],
                    label=f"{budget:,} non-emb. params (best L={v['best_depth']})")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("depth L (layers; width spends the budget)")
    ax.set_ylabel("validation loss (nats/byte)")
    ax.set_title("Byte-level LM on CPython stdlib source: loss vs depth")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    with atomic_write(path, "wb") as f:  # a temporary file, then a rename
        fig.savefig(f, format="png", dpi=130)
    plt.close(fig)


def report(rows: list[dict]) -> str:
    """Plain-text comparison with the theory: best depth per budget and trend."""
    s = summarise(rows)
    lines = ["budget  best_depth  val_loss_by_depth (mean; std where seeds > 1)"]
    for budget, v in s.items():
        parts = []
        for d, m in v["means"].items():
            sd = v["stds"].get(d)
            parts.append(f"L={d}: {m:.4f}" + (f" (std {sd:.4f})" if sd is not None else ""))
        lines.append(f"{budget:>8,}  {v['best_depth']:>4}  " + ", ".join(parts))
    bests = [v["best_depth"] for v in s.values()]
    noise = [sd for v in s.values() for sd in v["stds"].values()]
    if noise:
        lines.append(f"noise level (std over seeds, smallest budget): max {max(noise):.4f}")
    if len(bests) > 1:
        grows = all(b2 >= b1 for b1, b2 in zip(bests, bests[1:]))
        lines.append(
            "optimal depth grows (weakly) with budget: " + ("yes" if grows else "no")
            + f" (best depths {bests})"
        )
    try:
        from seprank.theory.guidelines import fit_optimal_shape
        from seprank.theory.regimes import expressivity_optimal_depth

        for budget in s:
            f = fit_optimal_shape(float(budget))
            e = expressivity_optimal_depth(float(budget))
            fit = f"paper fit optimum depth {f['depth']:.1f} (width {f['width']:.0f})"
            if f["depth"] < 1:
                fit = (f"paper fit optimum depth {f['depth']:.2g}, width {f['width']:.0f} (below "
                       "one layer: by the fit, every whole-layer shape is too deep here)")
            lines.append(
                f"budget {budget:,}: {fit}; expressivity-optimal depth (H=1 block formula) {e}"
            )
    except ImportError:  # theory module absent: say so
        lines.append("(theory comparison unavailable: seprank.theory not importable)")
    return "\n".join(lines)


def main(argv=None) -> int:
    """``python -m experiments.depth_width.run [--preset P] [--out DIR] [--device D]
    [--threads T]``: bad flags refused in one line, exit 2, before any training."""
    from experiments.script_args import experiment_main

    return experiment_main("depth_width", PRESETS, run_cli, argv,
                           columns=("budget", "depth", "width", "seed", "val_loss"))


def run_cli(preset: str, out, device: str, threads=None) -> int:
    import torch

    from .data import CorpusError

    if threads:
        torch.set_num_threads(threads)
    if device.startswith("cuda") and not torch.cuda.is_available():
        print("seprank: error: device=cuda requested but no GPU is available", file=sys.stderr)
        return 2
    out = Path(out) if out else Path("experiments/depth_width/runs") / preset
    try:
        sweep(preset, out, device)
    except CorpusError as exc:
        print(f"seprank: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    rows = read_rows(out / "results.csv")
    plot(rows, out / "val_loss_vs_depth.png")
    text = report(rows)
    write_text(out / "summary.txt", text + "\n")
    print(text)
    print(f"wrote {out / 'results.csv'}, {out / 'val_loss_vs_depth.png'}, {out / 'summary.txt'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
