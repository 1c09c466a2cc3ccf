"""Benchmark: the depth-width study's own overhead against its measuring time.

Run: ``python -m experiments.benchmark_study [--repeats K]``. It runs the tutorial's study
(docs/tutorials/depth_pays.md: ``linear-attention``, depths 1-3, widths 2 and 3, four
positions; serial executor, a fresh temporary store each time) and its figure, and prints,
each part's best of K runs (a busy machine only adds time, to any part): the wall time of
``seprank.study`` plus the figure, the measuring time (the cells' own wall times, as the
store records them), and the rest as the study's
overhead (planning, the store, f's degree, the ratios and verdict, the CSV, the figure as
``seprank study --out`` writes it: :func:`seprank.figures.study.write`, the PNG; the
PDF, written only with ``--pdf``, is timed on its own line, outside the overhead), with
its fraction of the measuring time; then every run's fraction. The goal (issue 39): under
10%. The load average is printed first: a loaded machine lengthens everything.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from experiments.script_args import Parser, pos_int
from seprank.engine.warm_up import warm_up
from seprank.figures import study as plot_study
from seprank.studies.study import CSV_NAME, study

#: The tutorial's study.
ARCH, VARY, FIXED = "linear-attention", {"depth": [1, 2, 3], "width": [2, 3]}, {"seq_len": 4}


def one_run() -> dict:
    """One study with its CSV and figure in a fresh folder: times in seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        s = study(ARCH, vary=VARY, fixed=FIXED, db=Path(tmp) / "r.sqlite", out=tmp)
        t1 = time.perf_counter()
        files = plot_study.write(s, tmp)  # what `seprank study --out` writes
        t2 = time.perf_counter()
        assert (Path(tmp) / CSV_NAME).exists() and all(f.stat().st_size for f in files)
        (Path(tmp) / "pdf").mkdir()
        t3 = time.perf_counter()
        plot_study.write(s, Path(tmp) / "pdf", pdf=True)  # with --pdf: outside the overhead
        t4 = time.perf_counter()
    total = t2 - t0
    return {"total": total, "measure": s.measure_seconds, "figure": t2 - t1,
            "overhead": total - s.measure_seconds, "with_pdf": t4 - t3}


def main(argv=None) -> int:
    ap = Parser(prog="benchmark_study", description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=pos_int, default=5,
                    help="runs; each part's best is reported, and every run's fraction")
    args = ap.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} (2 cores here)")
    warm_up(None)
    runs = [one_run() for _ in range(args.repeats)]
    best = {k: min(r[k] for r in runs) for k in runs[0]}  # each part's best: noise only adds
    print(f"study {ARCH} {VARY} {FIXED}, each part's best of {args.repeats} runs:")
    print(f"  total (study + CSV + figure)  {best['total']:8.3f} s")
    print(f"  measuring (the cells)         {best['measure']:8.3f} s")
    print(f"  of the rest, the figure (PNG) {best['figure']:8.3f} s")
    frac = best["overhead"] / best["measure"] if best["measure"] else float("inf")
    print(f"  overhead                      {best['overhead']:8.3f} s = {100 * frac:.1f}% of "
          f"the measuring time (goal: under 10%)")
    rest = min(r["overhead"] - r["figure"] for r in runs)
    print(f"  overhead without the figure   {rest:8.3f} s = "
          f"{100 * rest / best['measure']:.1f}% (planning, store, degrees, ratios, CSV)")
    fracs = sorted(r["overhead"] / r["measure"] for r in runs if r["measure"])
    print(f"  per run, overhead / measuring: {', '.join(f'{100 * f:.1f}%' for f in fracs)} "
          f"(median {100 * fracs[len(fracs) // 2]:.1f}%)")
    print(f"  (not in the overhead: the figure with --pdf, PNG + PDF, {best['with_pdf']:.3f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
