"""Benchmark: filling the catalecticant matrices, compiled against the numpy passes.

Run: ``python -m experiments.benchmark_fill [--repeats K]``. For (L5, d2, H1, N4) and
(L3, d4, H1, N8) it builds F once, then fills every whole block (the long side too; the
blocks of more than 3e8 entries left out) by the compiled fill of
:func:`seprank.engine.structural_poly.catalecticant` and by the numpy passes it replaced
(a key grid, an index grid, a gather, a copy), the two alternating, and prints each one's
best of K total, their ratio, and whether every matrix is the same. (L5, d2)'s keys fit
the dense table; (L3, d4)'s do not (a galloping search of the sorted keys). The load
average is printed first.
"""

from __future__ import annotations

import os
import time

import numpy as np

from experiments.script_args import Parser, pos_int
from seprank.engine import structural_poly as sp
from seprank.engine.strategies import catalecticant as cat
from seprank.nets import LinearSelfAttention
from seprank.sweeps.block_tasks import measurement_plan

CASES = [(5, 2, 1, 4), (3, 4, 1, 8)]
#: Blocks with more entries than this are left out (memory).
MAX_ENTRIES = 3e8


def fill_all(prep, d: int, fill) -> tuple[float, list]:
    """(seconds, a checksum per block) of filling every whole block with ``fill``."""
    saved, sp._fill = sp._fill, fill
    try:
        total, sums = 0.0, []
        for k in range(prep.D + 1):
            rows = sp.degree_keys(k, prep.m, prep.radix)
            cols = sp.degree_keys(prep.D - k, prep.m, prep.radix)
            if rows.size * cols.size * d > MAX_ENTRIES:
                continue
            t = time.perf_counter()
            H = sp.catalecticant(prep.keys, prep.values, rows, cols,
                                 transpose=cols.size * d < rows.size)
            total += time.perf_counter() - t
            sums.append((H.shape, float(H.sum()), float((H * np.arange(H.shape[1])).sum())))
        return total, sums
    finally:
        sp._fill = saved


def main(argv=None) -> int:
    ap = Parser(prog="benchmark_fill", description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=pos_int, default=3, help="runs of each; the best")
    args = ap.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} (2 cores here)")
    if sp._fill is None:
        print("numba is missing: only the numpy passes run here")
        return 0
    print("| case | compiled (s) | numpy passes (s) | numpy / compiled | same matrices |")
    print("|---|---|---|---|---|")
    for L, d, H, N in CASES:
        mp = measurement_plan(LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N))
        prep = cat.prepare(mp.run)
        fill_all(prep, d, sp._fill)  # compiled or loaded, and the key ladder built
        new, old, same = [], [], True
        for _ in range(args.repeats):
            t_new, s_new = fill_all(prep, d, sp._fill)
            t_old, s_old = fill_all(prep, d, None)
            new.append(t_new)
            old.append(t_old)
            same &= s_new == s_old
        print(f"| (L{L}, d{d}, H{H}, N{N}) | {min(new):.2f} | {min(old):.2f} | "
              f"{min(old) / min(new):.1f} | {'yes' if same else 'NO'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
