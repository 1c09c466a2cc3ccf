"""Conjecture (heads_two.md): at d_x = 2 with two heads the block of S-degree k on the side
without the query (j = D - k on the query's) has rank

    min( min_{i <= k} (b_i + s (k - i)),  min_{i <= j} (a_i + 2 s (j - i)) ),  s = (3^(L-1) + 1)/2.

Check: the formula against the measured block ranks: L = 1..4 measured here by the
catalecticant strategy (L <= 3 by the graded grid too), L = 5 from the recorded measurement
in proofs/data/L5d2H2N4_blocks.json. False variant: s = (3^(L-1) - 1)/2 (fails for L >= 2).
"""

import json
from pathlib import Path

DATA = Path(__file__).with_name("data") / "L5d2H2N4_blocks.json"


def formula(L: int, slope=lambda L: (3 ** (L - 1) + 1) // 2) -> dict:
    """{A-degree: conjectured rank} for (L, d2, H2), two positions a side, query on A."""
    from seprank.theory.bounds import a_dim, b_dim

    D, s = (3**L - 1) // 2, slope(L)
    b = [b_dim(i, 2, 2) for i in range(D + 1)]
    a = [a_dim(i, 2, 2) for i in range(D + 1)]
    out = {}
    for k in range(D + 1):
        j = D - k
        out[2 * j + 1] = min(min(b[i] + s * (k - i) for i in range(k + 1)),
                             min(a[i] + 2 * s * (j - i) for i in range(j + 1)))
    return out


def measured(L: int, strategy: str = "catalecticant") -> dict:
    """{A-degree: rank} measured (L <= 4), or read from the recorded run (L = 5)."""
    if L == 5 and strategy == "catalecticant":
        return {g: r for g, _, r, _ in json.loads(DATA.read_text())["blocks"]}
    from seprank import measure
    from seprank.nets import LinearSelfAttention

    m = measure(LinearSelfAttention(depth=L, width=2, heads=2, seq_len=4), strategy=strategy)
    return {b["degree"]: b["rank"] for b in m.blocks}


def _agrees(conj: dict, meas: dict) -> bool:
    return all(meas.get(g, 0) == r for g, r in conj.items()) and \
        all(r == 0 or g in conj for g, r in meas.items())


def check() -> bool:
    ok = True
    for L in (1, 2, 3, 4, 5):
        ok &= _agrees(formula(L), measured(L))
    for L in (1, 2, 3):  # the grid, which does not use the coefficient reduction
        ok &= _agrees(formula(L), measured(L, "graded"))
    return bool(ok)


def false_variant_fails() -> bool:
    """With the slope (3^(L-1) - 1)/2 the formula misses a measured block at every L >= 2."""
    bad = lambda L: (3 ** (L - 1) - 1) // 2  # noqa: E731
    return all(not _agrees(formula(L, bad), measured(L)) for L in (2, 3, 4, 5))


if __name__ == "__main__":
    print(check(), false_variant_fails())
