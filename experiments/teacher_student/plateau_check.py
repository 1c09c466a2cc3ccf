"""Diagnose a run that stopped at the mean: retrain it at a constant rate with no early stop.

``python -m experiments.teacher_student.plateau_check softmax 6000 6 0 [--target ctrl-R1]``

Same data, seed, widths, initialisation and optimiser as the cpu presets (lr 1e-2, batch
128, clipping), but ``--epochs`` epochs with no early stopping and no rate decay; prints
the validation FVU every 10 epochs (measured), so one can see whether and when the run
leaves the plateau at the mean (FVU ~ 1) that stopped it in the sweep.
"""

from __future__ import annotations

import argparse


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.teacher_student.plateau_check")
    ap.add_argument("student", choices=["softmax", "linear"])
    ap.add_argument("budget", type=int)
    ap.add_argument("depth", type=int)
    ap.add_argument("seed", type=int)
    ap.add_argument("--target", default="ctrl-R1")
    ap.add_argument("--epochs", type=int, default=150)
    a = ap.parse_args(argv)
    import torch

    from .run import PRESETS
    from .students import STUDENTS, build
    from .targets import make_target
    from .train import make_data, train

    torch.set_num_threads(1)
    p = PRESETS["cpu-v1"]  # the settings whose plateau it diagnoses (lr, batch, data)
    t = make_target(a.target, p.seq_len, p.dim, a.seed)
    data = make_data(t, a.seed, p.n, p.seq_len, p.dim)
    torch.manual_seed(a.seed)  # as run_one: the same initialisation
    width = STUDENTS[a.student]["width"](a.budget, a.depth)
    model = build(a.student, a.depth, width, p.seq_len, p.dim)
    hist: list[float] = []
    r = train(model, data, lr=p.lr, batch=p.batch, max_epochs=a.epochs, min_epochs=a.epochs,
              patience=a.epochs, seed=a.seed, on_epoch=lambda e, v, b: hist.append(v))
    below = next((i + 1 for i, v in enumerate(hist) if v < 0.9), None)
    print(f"{a.target} {a.student} B={a.budget} L={a.depth} d={width} seed {a.seed}, "
          f"{a.epochs} epochs at constant lr {p.lr}: test FVU {r['test_fvu']:.4g} (best "
          f"epoch {r['best_epoch']}); first epoch with validation FVU < 0.9: {below}")
    print("validation FVU at epochs 1, 11, 21, ...: "
          + ", ".join(f"{v:.3g}" for v in hist[::10]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
