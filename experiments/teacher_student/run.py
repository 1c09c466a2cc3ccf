"""Teacher-student sweep: presets, plan, resume by CSV, progress lines, CLI glue.

Run as ``python -m experiments.teacher_student.run --preset smoke|cpu|gpu [--out DIR]``
(also cpu-v1, cpu-v2) from the repository root. A row is appended to
``results.csv`` when its run finishes; a rerun skips finished rows; Ctrl-C keeps them.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

from seprank.figures import csv_rows
from seprank.paths import write_text

FIELDS = [
    "target", "family", "target_rank", "rank_measured", "rank_upper", "rank_status", "label",
    "student", "budget", "depth", "width", "heads", "params", "capacity_log10",
    "capacity_which", "seed", "n_train", "epochs", "best_epoch", "diverged", "train_fvu",
    "val_fvu", "test_fvu", "student_grid_rank", "seconds", "device", "protocol", "restarts",
]


@dataclass(frozen=True)
class Preset:
    budgets: tuple[int, ...]
    depths: tuple[int, ...]
    targets: tuple[str, ...]
    seeds: int
    students: tuple[str, ...] = ("softmax", "linear")
    seq_len: int = 8
    dim: int = 2
    n: tuple[int, int, int] = (4096, 1024, 2048)  # train, validation, test
    batch: int = 128
    lr: float = 1e-2
    max_epochs: int = 200
    patience: int = 20
    min_epochs: int = 30
    grid: int = 256  # grid matrix side for the measured student rank (0: skip)
    lr_factor: float = 1.0  # < 1: multiply the rate by it after lr_patience flat epochs
    lr_patience: int = 5
    arm_below: float | None = None  # early stop / decay only once validation FVU < it
    restarts: int = 0  # fresh initialisations for a run that never got below arm_below
    protocol: str = "v1"  # the name of the training settings, written in every row


# Protocol v2 (cpu-v2): longer, patient, with the rate halved on validation plateaus. Made
# for the rank-1 control after protocol v1 left one softmax run at the mean (FVU 1.00,
# stopped on its plateau at epoch 24); fixed after one trial on that run, not per cell.
V2 = dict(max_epochs=150, min_epochs=40, patience=20, lr_factor=0.5, lr_patience=5,
          protocol="v2")

# Protocol v3 (preset cpu): v1's constant rate, but early stopping counts only once the best
# validation FVU is below 0.5 (the run has left the plateau at the mean), and up to 120
# epochs. Made because v1 and v2 stopped softmax runs of the control on that plateau, and
# a diagnosis at constant rate with no early stop (plateau_check.py) saw those runs leave
# it at epochs 22-42; applied to every target, not per cell. A run whose attempt ends (cap
# or divergence) with its best validation FVU still >= 0.5 starts again from a fresh
# initialisation (torch seed + 1000 k, up to 2 more times); the attempt with the best
# validation FVU is kept, `restarts` counts them.
V3 = dict(max_epochs=120, min_epochs=20, patience=10, arm_below=0.5, restarts=2,
          protocol="v3")


PRESETS = {
    # Seconds: run by the default tests through the CLI.
    "smoke": Preset(budgets=(600,), depths=(1, 2), targets=("ctrl-R1", "sop-R1", "teacher-L1"),
                    seeds=1, n=(256, 128, 256), max_epochs=8, patience=4, min_epochs=0, grid=32,
                    protocol="smoke"),
    # 360 runs: the first 288 took about 42 minutes measured on 2 shared CPU cores with 1
    # torch thread; the 72 control runs added later about 8 minutes of training.
    # Protocol v1 (kept for the control comparison; the first name of today's cpu preset).
    "cpu-v1": Preset(budgets=(1_500, 6_000), depths=(1, 2, 3, 4, 5, 6),
                     targets=("ctrl-R1", "sop-R1", "sop-R4", "sop-R16", "teacher-L2"), seeds=3,
                     n=(1024, 512, 2048), max_epochs=80, min_epochs=20, patience=10, grid=64),
    # The rank-1 control again under protocol v2 (72 runs; same data, seeds, widths).
    "cpu-v2": Preset(budgets=(1_500, 6_000), depths=(1, 2, 3, 4, 5, 6), targets=("ctrl-R1",),
                     seeds=3, n=(1024, 512, 2048), grid=64, **V2),
    # Every target under protocol v3 (360 runs; same data, seeds, widths as cpu-v1).
    "cpu": Preset(budgets=(1_500, 6_000), depths=(1, 2, 3, 4, 5, 6),
                  targets=("ctrl-R1", "sop-R1", "sop-R4", "sop-R16", "teacher-L2"), seeds=3,
                  n=(1024, 512, 2048), grid=64, **V3),
    # Larger budgets, more data, the control, ranks up to 32, teachers L = 1..3, for one GPU
    # (1,080 runs; a few hours by an estimate of small-model step latency, not measured).
    # Untested.
    "gpu": Preset(budgets=(6_000, 24_000, 96_000), depths=(1, 2, 3, 4, 5, 6),
                  targets=("ctrl-R1", "sop-R1", "sop-R2", "sop-R4", "sop-R8", "sop-R16", "sop-R32",
                           "teacher-L1", "teacher-L2", "teacher-L3"), seeds=3,
                  n=(8192, 2048, 8192), batch=256, max_epochs=150, patience=15,
                  arm_below=0.5, restarts=2, protocol="gpu"),
}


def plan(preset: Preset) -> list[dict]:
    """Every run: targets outermost, then seeds (a partial run has whole targets)."""
    from .students import STUDENTS, heads_of

    runs = []
    for target in preset.targets:
        for seed in range(preset.seeds):
            for student in preset.students:
                for budget in preset.budgets:
                    for depth in preset.depths:
                        width = STUDENTS[student]["width"](budget, depth)
                        runs.append(dict(target=target, student=student, budget=budget,
                                         depth=depth, width=width, seed=seed,
                                         heads=heads_of(student, width),
                                         protocol=preset.protocol))
    return runs


def key(row) -> tuple:
    return (row["target"], row["student"], int(row["budget"]), int(row["depth"]),
            int(row["seed"]), row["protocol"])


def read_rows(path: Path) -> list[dict]:
    """Rows of a results CSV; rows from before the protocol column are protocol v1, rows
    from before the label column get it from their own fields (targets.row_label)."""
    from .targets import row_label, row_status

    return [{**r, "protocol": r.get("protocol") or "v1", "rank_status": row_status(r),
             "label": r.get("label") or row_label(r)}
            for r in csv_rows.read_rows(path, missing_ok=True)]


def run_one(run: dict, preset: Preset, target, info: dict, data, device: str) -> dict:
    """Train one student on one target; returns its CSV row."""
    import torch

    from .capacity import linear_capacity, student_grid_rank
    from .students import STUDENTS, build
    from .train import train

    best, spent = None, 0.0
    for k in range(preset.restarts + 1):
        torch.manual_seed(run["seed"] + 1000 * k)  # k = 0: the seed itself
        m = build(run["student"], run["depth"], run["width"], preset.seq_len, preset.dim)
        m.to(device)
        r = train(m, data, lr=preset.lr, batch=preset.batch, max_epochs=preset.max_epochs,
                  patience=preset.patience, min_epochs=preset.min_epochs,
                  lr_factor=preset.lr_factor, lr_patience=preset.lr_patience,
                  arm_below=preset.arm_below, seed=run["seed"])
        spent += r["seconds"]
        if best is None or r["val_fvu"] < best[1]["val_fvu"]:
            best = (m, r)
        if preset.arm_below is None or r["val_fvu"] < preset.arm_below:
            break  # left the mean (or no restart rule): no fresh start
    (model, res), restarts = best, k
    res = dict(res, seconds=spent)  # every attempt's training time
    params = model.non_embedding_params()
    assert params == STUDENTS[run["student"]]["params"](run["depth"], run["width"])
    cap, which = ("", "no theorem (softmax)")
    if run["student"] == "linear":
        cap, which = linear_capacity(run["depth"], run["width"], preset.seq_len, preset.dim)
        cap = round(cap, 3)
    grank = ""
    if preset.grid:
        grank = student_grid_rank(model.cpu(), preset.seq_len, preset.dim, preset.grid)
    return dict(
        run, family=target.name.split("-")[0], params=params, capacity_log10=cap,
        capacity_which=which, n_train=preset.n[0], student_grid_rank=grank, device=device,
        restarts=restarts if preset.restarts else "",
        **{k: info[k] for k in ("target_rank", "rank_measured", "rank_upper", "rank_status",
                                "label")},
        **{k: (round(v, 6) if isinstance(v, float) else v) for k, v in res.items()},
    )


def sweep(preset_name: str, out: Path, device: str = "cpu", progress: bool = True) -> list[dict]:
    """Run every unfinished run of the preset, appending rows to out/results.csv."""
    import torch

    from .targets import make_target
    from .train import make_data

    preset = PRESETS[preset_name]
    out.mkdir(parents=True, exist_ok=True)
    path = out / "results.csv"
    _add_protocol_column(path)
    done = {key(r) for r in read_rows(path)}
    todo = [r for r in plan(preset) if key(r) not in done]
    cache: dict = {}
    new_rows: list[dict] = []
    t0 = time.perf_counter()
    try:
        for i, run in enumerate(todo, 1):
            tk = (run["target"], run["seed"])
            if tk not in cache:
                target = make_target(run["target"], preset.seq_len, preset.dim, run["seed"])
                threads = torch.get_num_threads()
                info = target.rank_info()
                # seprank.measure's compiled kernel resets the shared OpenMP thread count
                # (torch 1 -> 2 measured here): put it back, or training slows ~10x.
                torch.set_num_threads(threads)
                data = make_data(target, run["seed"], preset.n, preset.seq_len, preset.dim)
                cache = {tk: (target, info, data)}  # one target at a time in memory
            row = run_one(run, preset, *cache[tk], device)
            new_rows.append(row)
            csv_rows.append_row(path, row, FIELDS)
            if progress:
                el = time.perf_counter() - t0
                print(f"[{i}/{len(todo)} {el / 60:.1f} min] {run['target']} (rank "
                      f"{row['target_rank']}) {run['student']} B={run['budget']} "
                      f"L={run['depth']} d={run['width']} seed={run['seed']}: test FVU "
                      f"{row['test_fvu']:.4f} ({row['epochs']} epochs, "
                      f"{row['seconds']:.1f} s)", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print(f"\ninterrupted: {len(new_rows)} new rows kept in {path}", file=sys.stderr)
        raise
    _write_machine(out, preset_name, device)
    return new_rows


def _add_protocol_column(path: Path) -> None:
    """Rewrite a CSV with rows from before the protocol (those were protocol v1), the
    restarts column (empty: no restart rule) or the label column (from each row's own
    fields: targets.row_label) to the current columns."""
    if not path.exists():
        return
    fields, rows = csv_rows.read_table(path)
    short = any(v is None for r in rows for v in r.values())  # a row with fewer cells
    if fields and (fields != FIELDS or short):
        csv_rows.write_rows(path, read_rows(path), FIELDS)


def _write_machine(out: Path, preset: str, device: str) -> None:
    from ..depth_width.run import machine_line

    desc = machine_line(preset, device)
    path = out / "machine.txt"  # one line per preset run into this folder
    keep = [x for x in (path.read_text().splitlines() if path.exists() else [])
            if not x.startswith(f"preset={preset} ")]
    write_text(path, "\n".join(keep + [desc]) + "\n")


def run_cli(preset: str, out, device: str, threads=None) -> int:
    import torch

    from .analysis import write_summary

    torch.set_num_threads(threads or 1)
    if device.startswith("cuda") and not torch.cuda.is_available():
        print("seprank: error: device=cuda requested but no GPU is available", file=sys.stderr)
        return 2
    out = Path(out) if out else Path("experiments/teacher_student/runs") / preset
    try:
        sweep(preset, out, device)
    except KeyboardInterrupt:
        return 130
    path = write_summary(out / "results.csv")
    print(path.read_text())
    print(f"wrote {out / 'results.csv'}, {path}")
    return 0


def main(argv=None) -> int:
    """``python -m experiments.teacher_student.run [--preset P] [--out DIR] [--device D]
    [--threads T]``: bad flags refused in one line, exit 2, before any training."""
    from experiments.script_args import experiment_main

    return experiment_main("teacher_student", PRESETS, run_cli, argv, threads_default="1",
                           columns=("target", "student", "budget", "depth", "seed"))


if __name__ == "__main__":
    sys.exit(main())
