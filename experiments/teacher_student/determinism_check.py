"""Rerun finished rows of a results CSV with the current code and compare every digit.

``python -m experiments.teacher_student.determinism_check RESULTS.csv ROW [ROW ...]``

ROW: 0-based row numbers of protocol-v3 rows (preset ``cpu``). For each, the same target,
data, seed and protocol are trained again (1 torch thread) and the recorded test,
validation and train FVU, epochs, best epoch and grid rank are compared as written in the
CSV (measured). Used to check that rerunning only the runs the restart rule changes is
the same as a full rerun.
"""

from __future__ import annotations

import argparse


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.teacher_student.determinism_check")
    ap.add_argument("csv")
    ap.add_argument("rows", type=int, nargs="+")
    a = ap.parse_args(argv)
    from pathlib import Path

    import torch

    from .run import PRESETS, read_rows, run_one
    from .targets import make_target
    from .train import make_data

    torch.set_num_threads(1)
    p = PRESETS["cpu"]
    rows = read_rows(Path(a.csv))
    same_all = True
    for i in a.rows:
        r = rows[i]
        if r["protocol"] != p.protocol:
            raise SystemExit(f"row {i} is protocol {r['protocol']}, not {p.protocol}")
        seed = int(r["seed"])
        t = make_target(r["target"], p.seq_len, p.dim, seed)
        info = t.rank_info()
        torch.set_num_threads(1)  # seprank.measure's kernel may reset it (run.sweep does too)
        data = make_data(t, seed, p.n, p.seq_len, p.dim)
        run = {k: r[k] for k in ("target", "student", "protocol")} | dict(
            budget=int(r["budget"]), depth=int(r["depth"]), width=int(r["width"]),
            seed=seed, heads=int(r["heads"]))
        new = run_one(run, p, t, info, data, "cpu")
        keys = ("test_fvu", "val_fvu", "train_fvu", "epochs", "best_epoch", "student_grid_rank")
        same = all(str(new[k]) == r[k] for k in keys)
        same_all &= same
        print(f"row {i}: {r['target']} {r['student']} B={r['budget']} L={r['depth']} seed "
              f"{seed}: recorded test FVU {r['test_fvu']} ({r['epochs']} epochs), rerun "
              f"{new['test_fvu']} ({new['epochs']} epochs): "
              + ("identical" if same else "DIFFERENT"))
    return 0 if same_all else 1


if __name__ == "__main__":
    raise SystemExit(main())
