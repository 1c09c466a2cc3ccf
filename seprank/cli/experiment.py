"""``seprank experiment``: the torch experiments, depth-width and teacher-student (need a
checkout of the repository and torch)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from seprank.cli._common import choices_metavar, thread_count
from seprank.errors import ConfigError
from seprank.paths import check_out_dir

EXPERIMENTS = {"depth-width": "depth_width", "teacher-student": "teacher_student"}


def add_parser(sub) -> None:
    e = sub.add_parser("experiment", help="torch experiments: depth-width, teacher-student "
                       "(need a checkout of the repository and torch)")  # fmt: skip
    e.add_argument("--name", default="depth-width", metavar=choices_metavar(EXPERIMENTS),
                   help="which experiment")
    e.add_argument("--preset", default="cpu", metavar="{smoke,cpu,gpu,cpu-v1,cpu-v2}",
                   help="the run's size (cpu-v1, cpu-v2: teacher-student only)")  # fmt: skip
    e.add_argument("--out", default=None,
                   help="results folder (default: experiments/NAME/runs/PRESET)")
    e.add_argument("--device", default="cpu", metavar="{cpu,cuda}", help="torch device")
    e.add_argument("--threads", type=thread_count, default=None,
                   help="torch CPU threads (default: torch's choice; teacher-student: 1)")


def _find_experiments(folder: str = "depth_width") -> Path | None:
    for base in (Path.cwd(), Path(__file__).resolve().parents[2]):
        if (base / "experiments" / folder / "run.py").exists():
            return base
    return None


def cmd_experiment(args) -> int:
    name = getattr(args, "name", "depth-width")
    if name not in EXPERIMENTS:
        raise ConfigError(f"name={name!r} must be one of {', '.join(EXPERIMENTS)}")
    folder = EXPERIMENTS[name]
    base = _find_experiments(folder)
    if base is None:
        raise ConfigError(f"experiment: experiments/{folder} not found: the experiment ships "
                          "with the repository, not the package; run it from a checkout")
    try:
        import torch
    except ImportError:
        msg = "experiment: torch is not installed (pip install torch==2.13.0)"
        raise ConfigError(msg) from None
    sys.path.insert(0, str(base))
    exp = importlib.import_module(f"experiments.{folder}.run")

    if args.preset not in exp.PRESETS:
        raise ConfigError(f"preset={args.preset!r} must be one of {', '.join(exp.PRESETS)}")
    if args.device not in ("cpu", "cuda"):
        raise ConfigError(f"device={args.device!r} must be cpu or cuda")
    if args.device == "cuda" and not torch.cuda.is_available():  # before --out is made
        raise ConfigError("device=cuda requested but no GPU is available")
    check_out_dir(args.out or Path("experiments") / folder / "runs" / args.preset)
    return exp.run_cli(args.preset, args.out, args.device, args.threads)
