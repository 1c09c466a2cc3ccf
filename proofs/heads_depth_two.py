"""Conjecture (heads_depth_two.md): at depth 2 with heads of dimension h = d_x / H in {1, 2},
the block of S-degree k on the side without the query (j = 4 - k on the query's), both
sides with d_x positions, has rank

    h = 1:  k = 2: d (d^2 + 1) / 2;   k = 3: min(d^2 (d + 1) / 2, C(d + 2, 3) + d^2)
    h = 2:  k = 2: d (d^2 - d + 1)
    every other block: its one-head term min(b_k, a_{4-k}).

Check: the formula against the block ranks measured (seed 0) by the catalecticant strategy
for h = 1 at d_x = 2..6 and h = 2 at d_x = 4, 6, and by the sketch strategy (its keys
allow larger m) at d_x = 7, 8 and (h = 2) 8. False variant: k = 3 at h = 1
without the minimum (C(d + 2, 3) + d^2 alone), which misses d_x = 2 and 3.
"""

from math import comb


def formula(d: int, h: int, k: int, one_head_term: int, minimum: bool = True) -> int:
    """The conjectured rank of block k at depth 2, width d, head dimension h."""
    if h == 1 and k == 2:
        return d * (d * d + 1) // 2
    if h == 1 and k == 3:
        alt = comb(d + 2, 3) + d * d
        return min(d * d * (d + 1) // 2, alt) if minimum else alt
    if h == 2 and k == 2:
        return d * (d * d - d + 1)
    return one_head_term


def measured(d: int, h: int) -> dict:
    """{k: (rank, one-head term)} measured with N = 2 d: by the catalecticant strategy up
    to d = 6 (its monomial keys need radix^m < 2^62), by the sketch strategy above."""
    from seprank import measure
    from seprank.nets import LinearSelfAttention

    m = measure(LinearSelfAttention(depth=2, width=d, heads=d // h, seq_len=2 * d),
                strategy="catalecticant" if d <= 6 else "sketch")
    assert m.saturated, m.saturation_reason
    return {b["other_s_degree"]: (b["rank"], b["bound"]) for b in m.blocks}


CASES = [(d, 1) for d in range(2, 9)] + [(d, 2) for d in (4, 6, 8)]


def _agrees(d: int, h: int, minimum: bool = True) -> bool:
    return all(r == formula(d, h, k, term, minimum) for k, (r, term) in measured(d, h).items())


def check() -> bool:
    return all(_agrees(d, h) for d, h in CASES)


def false_variant_fails() -> bool:
    """Without the minimum at k = 3 (h = 1) the formula misses d_x = 2 and 3."""
    return not _agrees(2, 1, minimum=False) and not _agrees(3, 1, minimum=False)


if __name__ == "__main__":
    print("check:", check(), "false variant fails:", false_variant_fails())
