"""``seprank experiment``: the torch depth-vs-width experiment (needs a checkout)."""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import ConfigError
from ._common import check_out_dir, pos_int


def add_parser(sub) -> None:
    e = sub.add_parser("experiment", help="torch depth-vs-width experiment (needs a checkout "
                       "of the repository and torch)")  # fmt: skip
    e.add_argument("--preset", default="cpu", help="smoke | cpu | gpu")
    e.add_argument("--out", default=None,
                   help="results folder (default: experiments/depth_width/runs/PRESET)")
    e.add_argument("--device", default="cpu", help="cpu | cuda")
    e.add_argument("--threads", type=pos_int, default=None,
                   help="torch CPU threads (default: torch's choice)")


def _find_experiments() -> Path | None:
    import seprank

    for base in (Path.cwd(), Path(seprank.__file__).resolve().parents[1]):
        if (base / "experiments" / "depth_width" / "run.py").exists():
            return base
    return None


def _cmd_experiment(args) -> int:
    base = _find_experiments()
    if base is None:
        raise ConfigError("experiment: experiments/depth_width not found: the experiment ships "
                          "with the repository, not the package; run it from a checkout")
    try:
        import torch  # noqa: F401
    except ImportError:
        msg = "experiment: torch is not installed (pip install torch==2.13.0)"
        raise ConfigError(msg) from None
    sys.path.insert(0, str(base))
    from experiments.depth_width import run as exp

    if args.preset not in exp.PRESETS:
        raise ConfigError(f"preset={args.preset!r} must be one of {', '.join(exp.PRESETS)}")
    if args.device not in ("cpu", "cuda"):
        raise ConfigError(f"device={args.device!r} must be cpu or cuda")
    check_out_dir(args.out or Path("experiments/depth_width/runs") / args.preset)
    return exp.run_cli(args.preset, args.out, args.device, args.threads)
