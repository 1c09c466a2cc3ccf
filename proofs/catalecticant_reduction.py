"""Claim (proved, catalecticant_reduction.md): for LinearSelfAttention (no mask, no
biases) with at least d_x positions on each side, sep(f; A, B) = rank H and, without the
residual, each graded block's rank is that of the catalecticant block H_k of the
structural polynomial's coefficients; so the ranks do not depend on N.

Check: the coefficient ranks (computed here from F directly, without the strategy's
refusal) equal the grid ranks of the graded (direct, for the residual) strategy on the
same integer weights, block by block, at N = 2 d and N = 2 d + 2. False variant: sides of
fewer than d_x positions, where the grid rank differs from the coefficient rank.
"""


def _coefficient_blocks(net, seed=0):
    """{A-degree: rank} of the blocks H_k (query on side A), or {None: rank} (residual)."""
    import numpy as np

    from seprank.algebra.domains import DEFAULT_PRIME, ModP
    from seprank.algebra.rank import RankEngine
    from seprank.engine import structural_poly as sp

    p = DEFAULT_PRIME
    params = net.init(np.random.default_rng(seed), ModP(p))
    d, D = net.width, (3**net.depth - 1) // 2
    m = d * (d + 1) // 2
    radix = 2 * D + 1 if net.residual else D + 1
    _, F = sp.build_F(net, params, p)
    keys, values = sp.coefficient_table(F, m, D, p, radix)
    eng = RankEngine.choose("auto", p)
    if net.residual:
        ks = sp.keys_up_to(D, m, radix)
        return {None: eng.rank(sp.catalecticant(keys, values, ks, ks))}
    out = {}
    for k in range(D + 1):
        r = eng.rank(sp.catalecticant(keys, values, sp.degree_keys(k, m, radix),
                                      sp.degree_keys(D - k, m, radix)))
        if r:
            out[2 * (D - k) + 1] = r
    return out


def _grid_blocks(net, A, seed=0):
    from seprank import measure

    g = measure(net, A, seed=seed, strategy="direct" if net.residual else "graded")
    if net.residual:
        return {None: g.rank}
    return {b["degree"]: b["rank"] for b in g.blocks if b["rank"]}


def check() -> bool:
    from seprank.nets import LinearSelfAttention

    ok = True
    for L, d, H, res in [(2, 2, 1, False), (3, 2, 1, False), (2, 3, 1, False),
                         (2, 2, 2, False), (2, 2, 1, True)]:
        for N in (2 * d, 2 * d + 2):
            net = LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N, residual=res)
            A = tuple(range(N // 2))  # query position 0 on side A
            ok &= _coefficient_blocks(net) == _grid_blocks(net, A)
    return bool(ok)


def false_variant_fails() -> bool:
    """With a side of fewer than d_x positions the coefficient ranks are not the grid's:
    (L2, d2, N2): one position a side (d - 1); (L2, d3, N4, A = {0}): one on the query side."""
    from seprank.nets import LinearSelfAttention

    bad = True
    for d, N, A in [(2, 2, (0,)), (3, 4, (0,))]:
        net = LinearSelfAttention(depth=2, width=d, seq_len=N)
        coef, grid = _coefficient_blocks(net), _grid_blocks(net, A)
        bad &= sum(grid.values()) < sum(coef.values())
    return bool(bad)


if __name__ == "__main__":
    print(check(), false_variant_fails())
