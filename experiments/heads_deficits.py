"""The block deficits of the paper's network with H > 1 heads at widths 3 and 4, and the
candidate block-rank forms they rule out (issue 39, item 4): writes docs/heads_deficits.md
from measured cells in the JSON-lines format of experiments/heads_cells.py.

For each measured block (S-degree k on the side without the query, j = D - k on the
query's, two sides of d positions) the one-head term is min(b_k, a_j)
(seprank.theory.bounds.b_dim, a_dim: proved an upper bound for every H,
proofs/block_bound.md) and the deficit is that term minus the measured rank. A deficit is
only as good as the measured rank's label: a saturated block's rank is the block's rank
except with the stated probability; an unsaturated one (budget hit, or a Schwartz-Zippel
bound over the threshold) is a certified lower bound, so its deficit is an upper bound.

Candidate forms, each fitted to every block of a (width, heads, depth) measurement whose
rank is saturated (a form that misses a saturated block is ruled out):

- ``one-slope``: proofs/heads_two.md's form, min(min_i (b_i + s (k - i)),
  min_i (a_i + 2 s (j - i))) for some integer s >= 1;
- ``two-slope``: the same with independent slopes s_b and s_a on the two sides;
- ``two-slope+cap``: the two-slope form capped by a constant c, min(two-slope, c).

The fit is exhaustive over the integers that can matter (slopes up to the largest
one-head term of the cell, caps among the measured ranks), so "no fit" is a proof that
the form (with any slope) misses a measured block; the first block it misses is named.

Usage: python -m experiments.heads_deficits proofs/data/heads_cells.jsonl docs/heads_deficits.md
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from experiments.script_args import Parser, out_file
from seprank.theory.bounds import a_dim, b_dim

WIDTHS = (3, 4)


def cells(path: Path) -> list[dict]:
    """The measured (not refused) seed-0 cells with H > 1 at widths 3 and 4, by (width,
    heads, depth); a seed-1 run of the same cell rides along as ``"seed1"``."""
    out, other = {}, {}
    for line in path.read_text().splitlines():
        r = json.loads(line)
        m = r.get("measurement")
        if m is None or r["heads"] == 1 or r["width"] not in WIDTHS:
            continue
        (out if m["seed"] == 0 else other)[(r["width"], r["heads"], r["depth"])] = r
    for k, r in other.items():
        if k in out:
            out[k]["seed1"] = {b["other_s_degree"]: b["rank"] for b in r["measurement"]["blocks"]}
    return [out[k] for k in sorted(out)]


def terms(d: int, D: int) -> tuple[list[int], list[int]]:
    """(b_i, a_i), i = 0..D, for two sides of d positions."""
    return [b_dim(i, d, d) for i in range(D + 1)], [a_dim(i, d, d) for i in range(D + 1)]


def blocks(r: dict) -> list[dict]:
    """Each block of a cell: k, j, its one-head term, rank, deficit, saturated."""
    m = r["measurement"]
    D = m["catalecticant"]["D"]
    b, a = terms(r["width"], D)
    rows = []
    for blk in sorted(m["blocks"], key=lambda x: x["other_s_degree"]):
        k = blk["other_s_degree"]
        term = min(b[k], a[D - k])
        sat = bool(blk.get("saturated", m["saturated"]))
        again = r.get("seed1", {}).get(k)
        rows.append({"k": k, "j": D - k, "degree": blk["degree"], "term": term,
                     "rank": blk["rank"], "deficit": term - blk["rank"], "saturated": sat,
                     "seed1": "" if again is None else ("=" if again == blk["rank"]
                                                        else str(again))})
    return rows


def inf_conv(t: list[int], n: int, slopes: np.ndarray) -> np.ndarray:
    """min_{i <= n} (t_i + s (n - i)) for each slope s (nondecreasing in s)."""
    t = np.asarray(t[: n + 1], dtype=np.int64)
    return (t[None, :] + slopes[:, None] * (n - np.arange(n + 1))[None, :]).min(axis=1)


def _feasible(rows, b, a, slopes, cap, tied: bool):
    """The (s_b, s_a) that fit every row: for each s_b the interval of s_a (the form is
    min(B_k(s_b), A_j(s_a)), each nondecreasing in its slope, so every block asks an
    interval of s_a); ``tied``: s_a = 2 s_b only."""
    B = {x["k"]: inf_conv(b, x["k"], slopes) for x in rows}
    A = {x["j"]: inf_conv(a, x["j"], slopes) for x in rows}
    n = slopes.size
    lo, hi = np.zeros(n, dtype=np.int64), np.full(n, n - 1, dtype=np.int64)  # s_a indices
    ok = np.ones(n, dtype=bool)
    for x in rows:
        r, Bk, Aj = x["rank"], B[x["k"]], A[x["j"]]
        ge = int(np.searchsorted(Aj, r))  # first s_a with A >= r
        if cap is not None and r > cap:  # the form is at most the cap, below the rank
            ok[:] = False
            break
        if not x["saturated"] or (cap is not None and r == cap):
            # a certified lower bound (or a rank the cap attains): the form must be >= r
            lo = np.maximum(lo, ge)
            ok &= Bk >= r
            continue
        eq_hi = int(np.searchsorted(Aj, r, "right")) - 1
        # B == r: need A >= r; B > r: need A == r; B < r: impossible
        lo = np.where(Bk >= r, np.maximum(lo, ge), lo)
        hi = np.where(Bk > r, np.minimum(hi, eq_hi), hi)
        ok &= Bk >= r
    ok &= lo <= hi
    if tied:
        want = np.searchsorted(slopes, 2 * slopes)
        ok &= (want < n) & (lo <= want) & (want <= hi)
        lo = hi = want
    idx = np.nonzero(ok)[0]
    if idx.size == 0:
        return None
    i = int(idx[0])
    return int(slopes[i]), int(slopes[min(int(lo[i]), n - 1)])


def _misses(rows, b, a, sb: int, sa: int, cap) -> list[dict]:
    """The rows the form misses: unequal at a saturated block, below the certified lower
    bound at another."""
    out = []
    for x in rows:
        v = min(int(inf_conv(b, x["k"], np.array([sb]))[0]),
                int(inf_conv(a, x["j"], np.array([sa]))[0]))
        v = v if cap is None else min(v, cap)
        if v < x["rank"] or (x["saturated"] and v != x["rank"]):
            out.append({**x, "form": v})
    return out


def fit(r: dict, kind: str) -> tuple[tuple | None, str]:
    """(parameters (s_b, s_a, cap) that fit: equal at every saturated block, at least
    the certified lower bound at every other; or None, with the closest one-slope
    candidate and the first block it misses)."""
    rows = blocks(r)
    D = r["measurement"]["catalecticant"]["D"]
    b, a = terms(r["width"], D)
    top = 2 * (max(min(b[k], a[D - k]) for k in range(D + 1)) + 1)
    slopes = np.arange(1, top + 1, dtype=np.int64)
    caps = [None] if kind != "two-slope+cap" else \
        sorted({x["rank"] for x in rows if x["saturated"]}) + [None]  # None: no cap
    for cap in caps:
        got = _feasible(rows, b, a, slopes, cap, kind == "one-slope")
        if got is not None:
            return (*got, cap), ""
    half = slopes[: top // 2]  # the one-slope candidates s, with 2 s within the slopes
    bad_count = np.zeros(half.size, dtype=np.int64)
    for x in rows:
        v = np.minimum(inf_conv(b, x["k"], half), inf_conv(a, x["j"], 2 * half))
        bad_count += (v < x["rank"]) | ((v != x["rank"]) & x["saturated"])
    s_best = int(half[int(np.argmin(bad_count))])
    bad = _misses(rows, b, a, s_best, 2 * s_best, None)
    x = bad[0] if bad else None
    why = (f"no parameters fit; the closest one-slope s={s_best} misses {len(bad)} "
           f"block(s), first k={x['k']}: form {x['form']}, measured {x['rank']}") if x \
        else "no block"
    return None, why


def report(path: Path) -> str:
    rs = cells(path)
    out = ["# Block deficits with heads at widths 3 and 4",
           "",
           f"Generated by `python -m experiments.heads_deficits {path} docs/heads_deficits.md` "
           "from the measured cells (seed 0; N = 2 d, A the first d positions, the query on "
           "A). The one-head term is min(b_k, a_{D-k}) (proved an upper bound for every H, "
           "proofs/block_bound.md); deficit = term - measured rank. k is the S-degree on the "
           "side without the query, j = D - k. A block marked * is not saturated (a "
           "certified lower bound: its deficit is an upper bound on the true deficit). "
           "\"seed 1\": the same block measured with other weights and draws (= the same "
           "rank; empty: not run, as for every saturated cell).",
           ""]
    for r in rs:
        m = r["measurement"]
        rows = blocks(r)
        out += [f"## width {r['width']}, {r['heads']} heads, depth {r['depth']}",
                "",
                f"Measured {m['rank']} ({m['label']}; strategy {m['strategy']}, prime "
                f"{m['prime']}, Schwartz-Zippel bound {m['saturation_bound']}); one-head "
                f"sum {sum(x['term'] for x in rows)}, deficit "
                f"{sum(x['deficit'] for x in rows)}.",
                "",
                "| k | j | A-degree | one-head term | rank | deficit | seed 1 |",
                "|---|---|---|---|---|---|---|"]
        out += [f"| {x['k']} | {x['j']} | {x['degree']} | {x['term']} | {x['rank']}"
                f"{'' if x['saturated'] else '*'} | {x['deficit']} | {x['seed1']} |"
                for x in rows]
        out.append("")
    out += ["## Candidate forms", "",
            "Each form is fitted to every saturated block of one (width, heads, depth) "
            "(exhaustively over its integer parameters); \"no fit\" names the closest "
            "candidate and the first block it misses. A form fits when it equals every saturated "
            "block and is at least every other block's certified lower bound (so a miss at an "
            "unsaturated block is a form below a certified lower bound: ruled out all the "
            "same). Where no saturated block falls below "
            "its one-head term (\"deficits\" 0) every form fits with large enough slopes: "
            "such a fit says nothing. The smallest fitting s_b is given, with the smallest "
            "s_a that goes with it.", "",
            "| width | heads | depth | blocks with a deficit (saturated) | one-slope "
            "(heads_two.md) | two-slope | two-slope+cap |",
            "|---|---|---|---|---|---|---|"]
    for r in rs:
        cols = []
        for kind in ("one-slope", "two-slope", "two-slope+cap"):
            params, miss = fit(r, kind)
            cols.append(f"fits: s_b={params[0]}, s_a={params[1]}"
                        + (f", cap={params[2]}" if params[2] else "") if params
                        else f"no fit ({miss})")
        n_def = sum(1 for x in blocks(r) if x["deficit"])
        n_sat = sum(1 for x in blocks(r) if x["saturated"] and x["deficit"])
        out.append(f"| {r['width']} | {r['heads']} | {r['depth']} | {n_def} ({n_sat}) | "
                   + " | ".join(cols) + " |")
    out.append("")
    return "\n".join(out)


def main(argv=None) -> int:
    """``python -m experiments.heads_deficits DATA OUT``: bad input refused in one line,
    exit 2, before anything is written."""
    ap = Parser(prog="python -m experiments.heads_deficits",
                description="The block deficits with heads at widths 3 and 4 (Markdown).")
    ap.add_argument("data", help="cells, one JSON line each (experiments/heads_cells.py)")
    ap.add_argument("out", help="the Markdown file to write")
    args = ap.parse_args(argv)
    data = Path(args.data)
    if not data.is_file():
        ap.error(f"data={args.data!r} is not a file")
    out = out_file(ap, args.out, "out")
    try:
        text = report(data)
    except (ValueError, KeyError, TypeError) as exc:  # a line not in the cells' format
        ap.error(f"data={args.data!r} is not in experiments/heads_cells.py's format "
                 f"({type(exc).__name__}: {exc})")
    out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
