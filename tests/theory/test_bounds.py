import math

import pytest

from seprank.errors import TooBigError
from seprank.theory import guidelines as gl
from seprank.theory.bounds import (
    a_dim,
    b_dim,
    block_bound,
    generic_block_bound,
    generic_block_bound_log10,
    matrix_degree,
    monomial_bound,
)
from seprank.theory.combinatorics import log_comb
from seprank.theory.dimcheck import evaluation_dim
from seprank.theory.regimes import (
    formula_transition_depth,
    growth_regime,
    paper_regime,
    transition_from_ratios,
)


@pytest.mark.parametrize("d, n, k", [(2, 1, 2), (3, 1, 2), (3, 2, 2), (3, 2, 3), (4, 2, 2),
                                     (4, 3, 2), (2, 2, 3), (3, 3, 2)])
def test_b_dim_matches_exact_rank_of_evaluations(d, n, k):
    """b_k(n): dim of degree-k polynomials in S = X X^T, X (d x n): rank of evaluations."""
    assert evaluation_dim(k, d, n, "b", seed=0) == b_dim(k, d, n)


@pytest.mark.parametrize("d, n, j", [(2, 1, 1), (2, 1, 2), (3, 1, 1), (3, 2, 1), (3, 2, 2),
                                     (4, 2, 1), (4, 3, 1), (2, 2, 2)])
def test_a_dim_matches_exact_rank_of_evaluations(d, n, j):
    assert evaluation_dim(j, d, n, "a", seed=1) == a_dim(j, d, n)


def test_generic_closed_form_equals_sum_and_known_values():
    for L in (1, 2, 3):
        for d in (1, 2, 3, 4):
            D, m = matrix_degree(L), d * (d + 1) // 2
            direct = sum(min(math.comb(m + k - 1, k), d * math.comb(m + D - k - 1, D - k))
                         for k in range(D + 1))
            assert generic_block_bound(L, d) == direct
    assert block_bound(1, 5, 5, 5) == 6  # L = 1: d + 1
    assert block_bound(4, 2, 2, 2) == 4538 and block_bound(3, 3, 3, 3) == 3102


def test_log10_matches_exact_and_is_stable_for_huge_sizes():
    assert abs(generic_block_bound_log10(6, 5) - math.log10(generic_block_bound(6, 5))) < 1e-9
    assert abs(log_comb(10**30, 3) - (3 * 30 * math.log(10) - math.log(6))) < 1e-9
    v = [generic_block_bound_log10(L, 1000) for L in range(10, 40)]
    assert all(b > a for a, b in zip(v, v[1:]))


def test_monomial_bound_dominates_block_on_small_cases():
    assert monomial_bound(1, 2, 1, 1) >= block_bound(1, 2, 1, 1)


def test_regimes():
    assert paper_regime(1, 9) == "depth-efficient" and paper_regime(2, 9) == "depth-inefficient"
    assert growth_regime(2.9) == "depth-efficient" and growth_regime(1.2) == "depth-inefficient"
    assert transition_from_ratios({1: 3.0, 2: 1.0}) == pytest.approx(1.5)
    t = formula_transition_depth(1000)
    assert 2 * math.log(1000, 3) - 2 < t < 2 * math.log(1000, 3) + 0.5


def test_guidelines_reproduce_quoted_numbers():
    t = gl.trillion_report()
    assert 94 < t["fit_depth"] < 96 and 29_000 < t["fit_width"] < 30_500
    g = gl.gpt3_report()
    assert g["verdict"] == "too deep" and round(gl.fit_width(96)) == 31793
    rows = {r["name"]: r for r in gl.gatortron_report()}
    assert rows["GatorTron-medium"]["verdict"] == "near the fit"


# ----------------------------------------------------------- guidelines: exact arithmetic
def test_parameter_count_is_12_L_d_squared():
    assert gl.params(1, 1) == 12 and gl.params(2, 10) == 2400 and gl.params(96, 12288) == \
        12 * 96 * 12288**2
    opt = gl.fit_optimal_shape(1e9)
    assert 12 * opt["depth"] * opt["width"] ** 2 == pytest.approx(1e9, rel=1e-9)
    assert opt["width"] == pytest.approx(gl.fit_width(opt["depth"]), rel=1e-12)


def test_fit_width_and_depth_are_inverse_and_use_the_quoted_constants():
    assert gl.fit_width(0) == pytest.approx(math.exp(5.039))
    assert gl.fit_width(10) == pytest.approx(math.exp(5.039 + 0.555))
    for L in (0.5, 7, 96):
        assert gl.fit_depth(gl.fit_width(L)) == pytest.approx(L)
    assert gl.fit_depth(1) == pytest.approx(-5.039 / 0.0555)  # width 1 is valid
    for bad in (0, -1):
        with pytest.raises(gl.ConfigError, match="width="):
            gl.fit_depth(bad)


@pytest.mark.parametrize("factor, want", [(1.0, "near the fit"), (1.14, "near the fit"),
                                          (1.16, "too deep"), (0.88, "near the fit"),
                                          (0.86, "too shallow"), (3.0, "too deep"),
                                          (0.3, "too shallow")])
def test_verdict_thresholds(factor, want):
    """A shape with the fit's parameter count: the verdict follows depth / fit depth."""
    opt = gl.fit_optimal_shape(1e10)
    L = opt["depth"] * factor
    d = math.sqrt(1e10 / (12 * L))  # same budget, so the fit optimum is unchanged
    v = gl.verdict(L, d)
    assert v["verdict"] == want and v["params"] == pytest.approx(1e10)
    assert v["fit_depth_at_params"] == pytest.approx(opt["depth"])
    assert v["fit_width_for_depth"] == pytest.approx(gl.fit_width(L))
    assert v["fit_depth_for_width"] == pytest.approx(gl.fit_depth(d)) and v["kind"] == "fit"


@pytest.mark.parametrize("depth, width, arg", [(0, 10, "depth="), (-1, 10, "depth="),
                                              (10, 0, "width="), (10, -2, "width=")])
def test_verdict_rejects_non_positive_shapes(depth, width, arg):
    with pytest.raises(gl.ConfigError, match=arg):
        gl.verdict(depth, width)


@pytest.mark.parametrize("budget", [0, -1, float("inf"), float("nan")])
def test_fit_rejects_bad_budgets(budget):
    with pytest.raises(gl.ConfigError, match="params="):
        gl.fit_optimal_shape(budget)


def test_small_budget_has_a_depth_below_one():
    r = gl.fit_optimal_shape(1e5)  # the root lies in (0, 1): the bracket starts near 0
    assert 0.3 < r["depth"] < 0.4 and "note" not in r


def test_tiny_budget_is_below_the_fit():
    r = gl.fit_optimal_shape(2e-4)  # g at the bracket's low end is just above 0
    assert r["depth"] == 0.0 and "below" in r["note"] and r["width"] == gl.fit_width(0)


def test_quoted_reports():
    t = gl.trillion_report()
    assert t["width_difference_pct"] == pytest.approx(100 * (t["fit_width"] - 30_000) / 30_000)
    assert t["depth_difference"] == pytest.approx(t["fit_depth"] - 92)
    assert t["quoted_depth_authors"] == 92 and t["quoted_width_paper"] == 30_000
    g = gl.gpt3_report()
    assert g["quoted_params"] == 175e9 and g["params"] == 12 * 96 * 12288**2
    rows = {r["name"]: r for r in gl.gatortron_report()}
    base = rows["GatorTron-base"]
    assert base["width_derived"] and base["width"] == math.sqrt(345e6 / (12 * 24))
    assert base["params_12Ld2_vs_quoted"] == pytest.approx(1.0)
    large = rows["GatorTron-large"]
    assert not large["width_derived"] and large["width"] == 3560
    assert large["params_12Ld2_vs_quoted"] == pytest.approx(12 * 56 * 3560**2 / 8.9e9)


# ------------------------------------------------------------------ bounds: exact values
@pytest.mark.parametrize("L, D", [(1, 1), (2, 4), (3, 13), (4, 40)])
def test_degrees(L, D):
    from seprank.theory.bounds import output_degree

    assert matrix_degree(L) == D and output_degree(L) == 3**L


def test_partitions_and_schur_dims():
    from seprank.theory.bounds import partitions, schur_dim

    assert list(partitions(4, 2)) == [(4,), (3, 1), (2, 2)]
    assert list(partitions(3, 3)) == [(3,), (2, 1), (1, 1, 1)]
    assert list(partitions(0, 0)) == [()] and list(partitions(2, 0)) == []
    assert schur_dim((1,), 3) == 3 and schur_dim((2,), 3) == 6 and schur_dim((1, 1), 3) == 3
    assert schur_dim((2, 1), 3) == 8 and schur_dim((1, 1, 1, 1), 3) == 0
    assert schur_dim((4, 2), 2) == 3 and schur_dim((), 4) == 1


@pytest.mark.parametrize("k, d, n, want", [(0, 3, 1, 1), (1, 3, 1, 6), (2, 3, 1, 15),
                                           (2, 3, 3, 21), (1, 2, 5, 3), (2, 3, 2, 21)])
def test_b_dim_values(k, d, n, want):
    """n = 1: S = x x^T, so degree-k polynomials in S are those of degree 2k in x."""
    assert b_dim(k, d, n) == want


@pytest.mark.parametrize("j, d, n, want", [(0, 3, 1, 3), (1, 3, 1, 10), (1, 2, 3, 6),
                                           (2, 2, 1, 6), (0, 1, 1, 1)])
def test_a_dim_values(j, d, n, want):
    """n = 1: x_c g(x x^T) spans the degree-(2j+1) polynomials in x: C(2j+d, d-1)."""
    assert a_dim(j, d, n) == want


def test_block_bound_values_by_hand():
    # L = 1, D = 1: min(b_0, a_1) + min(b_1, a_0) = min(1, d m) + min(m, d) = 1 + d
    for d in (1, 2, 3, 7):
        assert block_bound(1, d, d, d) == d + 1
    # bounded-rank sides and the residual form, against the proofs' table values
    assert block_bound(2, 3, 2, 2) == 49 and block_bound(2, 4, 1, 1) == 70
    assert block_bound(2, 4, 2, 2) == 110 and block_bound(2, 2, 2, 2, residual=True) == 20
    with pytest.raises(gl.ConfigError, match="depth=0"):
        block_bound(0, 2, 2, 2)
    with pytest.raises(gl.ConfigError, match="n_other=True"):
        block_bound(1, 2, 2, True)


def test_monomial_bound_values():
    # L = 1, d = 1, one position a side: f = sum over t of min(1, 1) = 4 terms (t = 0..3)
    assert monomial_bound(1, 1, 1, 1) == 4
    assert monomial_bound(1, 1, 1, 1, residual=True) == 4  # min(C(4,3), C(4,3))
    assert monomial_bound(1, 2, 1, 1) == sum(min(math.comb(t + 1, t), math.comb(4 - t, 3 - t))
                                             for t in range(4))


def test_theorem_bound_dict_and_sides():
    from seprank.nets import LinearSelfAttention
    from seprank.theory.bounds import sides, theorem_bound

    assert sides(6, (0, 1), 0) == (2, 4) and sides(6, (0, 1), 3) == (4, 2)
    net = LinearSelfAttention(depth=2, width=3, heads=1, seq_len=6)
    ub = theorem_bound(net)
    assert ub["upper"] == 49 == ub["block"] and ub["which"] == "block" and ub["kind"] == "proved"
    assert ub["log10_upper"] == pytest.approx(math.log10(49))
    assert ub["n_query_side"] == 3 and ub["n_other_side"] == 3 and "closed form" in ub["why"]
    small = theorem_bound(LinearSelfAttention(depth=1, width=1, heads=1, seq_len=2))
    assert small["upper"] == min(small["block"], small["monomial"]) == 2
    q = theorem_bound(LinearSelfAttention(depth=2, width=3, heads=1, seq_len=5, query_position=4),
                    [0, 1])
    assert (q["n_query_side"], q["n_other_side"]) == (3, 2) and "bounded-rank" in q["why"]
    res = theorem_bound(LinearSelfAttention(depth=2, width=2, heads=1, seq_len=4, residual=True))
    assert res["upper"] == 20 and "residual" in res["why"]


# ------------------------------------------------------------------- regimes: thresholds
def test_regime_boundaries():
    from seprank.theory import regimes as rg

    assert rg.paper_regime(2, 9) == "depth-inefficient"  # L == log3 d: not below
    assert rg.paper_regime(1, 4) == "depth-efficient"
    assert rg.growth_regime(2.0) == "depth-efficient" and rg.growth_regime(1.999) != \
        "depth-efficient"
    assert rg.growth_regime(None) == "unknown" and rg.growth_regime(float("nan")) == "unknown"
    assert rg.doubled_transition_depth(9) == pytest.approx(4.0)
    assert rg.growth_ratios({1: 2.0, 2: 5.0, 4: 1.0}) == {1: 2.5}
    assert rg.growth_ratios({1: 0.0, 2: 1.0}) == {}
    assert rg.transition_from_ratios({1: 1.5}) == 1.0
    assert rg.transition_from_ratios({1: 3.0, 2: 2.5}) is None
    assert rg.transition_from_ratios({1: 3.0, 2: 2.5, 4: 1.5}) == pytest.approx(3.0)
    r = rg.formula_growth_ratio(1, 3)
    assert r == pytest.approx(math.log10(block_bound(2, 3, 3, 3)) / math.log10(4))
    assert rg.width_at_budget(1200, 1) == 10 and rg.width_at_budget(1, 5) == 1


def test_budget_optima():
    from seprank.theory import regimes as rg

    assert rg.expressivity_optimal_depth(1e12) == 19
    L = rg.paper_optimal_depth(1e12)
    assert L == pytest.approx(rg.paper_transition_depth(math.sqrt(1e12 / (12 * L))))
    assert rg.paper_optimal_depth(1e-6) == 0.0


def test_quoted_figures_are_pinned():
    """What the paper, its authors and GatorTron quoted: data, checked exactly."""
    assert gl.QUOTED == {"gpt3": {"depth": 96, "width": 12288, "params": 175e9},
                         "trillion": {"params": 1e12, "width_paper": 30_000,
                                      "depth_authors": 92}}
    assert [(m["name"], m["params"], m["depth"], m["width"], m["heads"]) for m in gl.GATORTRON] \
        == [("GatorTron-base", 345e6, 24, None, None), ("GatorTron-medium", 3.9e9, 48, 2560, 40),
            ("GatorTron-large", 8.9e9, 56, 3560, 56)]
    assert gl.trillion_report()["params"] == 1e12


def test_fit_near_its_lower_end():
    """Budgets whose fit depth is below 1: still solved, and verdicts still finite."""
    r = gl.fit_optimal_shape(5e-4)  # g at the bracket's low end is just below 0
    assert "note" not in r and 0 < r["depth"] < 1e-6
    opt = gl.fit_optimal_shape(1e5)
    v = gl.verdict(opt["depth"], opt["width"])
    assert v["verdict"] == "near the fit" and v["fit_depth_at_params"] == pytest.approx(
        opt["depth"])
    assert gl.verdict(1, 1)["params"] == 12  # width 1 is a valid shape


def test_verdict_below_the_fit_range_is_too_deep():
    v = gl.verdict(1e-6, 1)  # 12e-6 parameters: below the fit's range, fit depth 0
    assert v["fit_depth_at_params"] == 0.0 and v["verdict"] == "too deep"


def test_formula_transition_depth_searches_exactly_max_depth_layers():
    from seprank.theory.regimes import formula_transition_depth

    t = formula_transition_depth(1000)  # ratio drops below 2 first at L = 12
    assert 11.5 < t < 11.6 and formula_transition_depth(1000, max_depth=12) == t
    assert formula_transition_depth(1000, max_depth=11) is None


# ------------------------------------------- regimes: cases the mutation run found unguarded
def test_regime_helpers_off_their_easy_points():
    """Points where a changed operator or constant gives another answer (at width 9,
    2 * log3 = 2 + log3, and so on): each assertion kills a mutant that survived."""
    from seprank.theory import regimes as rg

    assert rg.doubled_transition_depth(27) == pytest.approx(6.0)
    assert rg.growth_ratios({1: 0.5, 2: 1.0}) == {1: 2.0}  # any positive log sep counts
    assert rg.transition_from_ratios({1: 2.0}) is None  # ratio exactly 2: still efficient
    # 12 L d^2 = budget: d = sqrt(budget / 12 L), real division, then rounded
    assert rg.width_at_budget(12 * 100**2, 1) == 100
    assert rg.width_at_budget(12 * 100**2, 4) == 50
    assert rg.width_at_budget(30, 1) == 2  # sqrt(2.5) = 1.58; 30 // 12 would give 1


def test_formula_transition_below_depth_two():
    """Width 1: the ratio is 2.32 at L = 1 and 1.64 at L = 2, so the crossing is
    interpolated between L = 1 and 2 (the search starts at L = 1)."""
    from seprank.theory import regimes as rg

    r1, r2 = rg.formula_growth_ratio(1, 1), rg.formula_growth_ratio(2, 1)
    assert r1 > 2 > r2
    assert rg.formula_transition_depth(1) == pytest.approx(1 + (r1 - 2) / (r1 - r2))


def test_expressivity_optimal_depth_honours_max_depth():
    """At budget 1e8 every depth up to 11 is depth-efficient, so the answer is the cap."""
    from seprank.theory import regimes as rg

    assert rg.expressivity_optimal_depth(1e8) == 11
    assert rg.expressivity_optimal_depth(1e8, max_depth=10) == 10
    assert rg.expressivity_optimal_depth(100) == 1 and rg.expressivity_optimal_depth(200) == 2


def test_paper_optimal_depth_on_both_sides_of_one():
    """The bracket starts near 0, not at 1: fit depths below 1 are roots too; a budget
    whose g(1e-6) is positive (below 1.2e-5) has no root and gives 0."""
    from seprank.theory import regimes as rg

    for budget in (5e-5, 50.0):  # g(1e-6) = -0.65 (root 4.2e-6), and a root near 0.77
        L = rg.paper_optimal_depth(budget)
        assert 0 < L < 1
        g = L - rg.paper_transition_depth(math.sqrt(budget / (12 * L)))
        assert abs(g) < 1e-6  # brentq: |L - root| < 2e-12, and |dg/dL| < 1e5 here
    assert rg.paper_optimal_depth(1e-5) == 0.0  # g(1e-6) = 0.08: between 0 and 1


# -------------------------------------------- bounds: cases the mutation run found unguarded
def _last_k_with_b_below_a(D: int, d: int) -> int:
    m = d * (d + 1) // 2
    ks = [k for k in range(D + 1) if math.comb(m + k - 1, k) <= d * math.comb(m + D - k - 1, D - k)]
    return max(ks, default=-1)


@pytest.mark.parametrize("width", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5])
def test_crossover_is_the_last_k_with_b_below_a(depth, width):
    """The bisection finds exactly the crossover of the exact integer sequences."""
    from seprank.theory.bounds import _crossover

    D = matrix_degree(depth)
    assert _crossover(D, width) == _last_k_with_b_below_a(D, width)


def test_log_comb_edges():
    assert log_comb(5, 5) == 0.0 and log_comb(7, 0) == 0.0  # r = n and r = 0: C = 1
    assert log_comb(3, 4) == -math.inf and log_comb(3, -1) == -math.inf
    assert log_comb(10, 3) == pytest.approx(math.log(120))
    # past a = 1e12 a direct lgamma difference keeps only ~4 digits: the log1p form
    # keeps ~16 (its (b - 1/2) log1p(delta / b) term is 1e-12 off with b +- 1/2)
    import mpmath

    mpmath.mp.dps = 40
    for n, r in ((10**12 + 5, 1), (10**12 + 5, 3), (5 * 10**13, 1), (10**12, 2)):
        assert log_comb(n, r) == pytest.approx(float(mpmath.log(mpmath.binomial(n, r))),
                                               rel=1e-15)
    # below 1e12 too (the direct difference was 1e-4 off at n = 1e12 - 10, 4e-8 at 1e9)
    for n, r in ((10**12 - 10, 1), (10**9, 1), (10**6 + 3, 2), (10**7, 10**5), (999_999, 1)):
        assert log_comb(n, r) == pytest.approx(float(mpmath.log(mpmath.binomial(n, r))),
                                               rel=1e-10)


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_width_one_generic_log10_matches_the_integer(depth):
    """Width 1 (m = 1): b_k = C(k, k) = 1, the log path meets log_comb(n, n)."""
    exact = generic_block_bound(depth, 1)
    assert generic_block_bound_log10(depth, 1) == pytest.approx(math.log10(exact))


def test_lgamma_ratio_stirling_branch():
    """a >= 1e12 with a small b: Stirling's series for lgamma(a) (its constant
    0.5 log(2 pi) matters), against 40-digit mpmath."""
    import mpmath

    from seprank.theory.combinatorics import _lgamma_ratio

    mpmath.mp.dps = 40
    for a, b in ((10**12, 10), (3 * 10**13, 999_999), (10**12 + 7, 1)):
        ref = mpmath.loggamma(a) - mpmath.loggamma(b)
        assert abs(_lgamma_ratio(a, a - b) - float(ref)) < 1e-2  # |value| ~ 3e13: 1e-15 rel


def test_log10_companions_default_to_no_residual():
    from seprank.theory.bounds import block_bound_log10, monomial_bound_log10

    for args in ((2, 2, 2, 2), (1, 3, 1, 2)):
        assert monomial_bound_log10(*args) == pytest.approx(math.log10(monomial_bound(*args)))
        assert block_bound_log10(*args) == pytest.approx(math.log10(block_bound(*args)))
    assert monomial_bound_log10(2, 2, 2, 2) != monomial_bound_log10(2, 2, 2, 2, residual=True)


def test_residual_generic_log10_at_any_depth():
    """Residual with generic sides is summed in log space: no TooBigError at depth 30,
    width 30 (about 5300 digits, past MAX_DIGITS), and at least the non-residual bound."""
    from seprank.theory.bounds import MAX_DIGITS, block_bound_log10

    res = block_bound_log10(30, 30, 30, 30, residual=True)
    assert MAX_DIGITS < res < 10**4 and res >= generic_block_bound_log10(30, 30)
    with pytest.raises(TooBigError):
        block_bound(30, 30, 30, 30, residual=True)
    assert block_bound_log10(3, 2, 2, 2, residual=True) == pytest.approx(
        math.log10(block_bound(3, 2, 2, 2, residual=True))
    )


def test_residual_refused_when_only_the_residual_form_is_too_big():
    """Depth 54, width 18: the plain block bound has 3995 digits, the residual form 4006
    (past MAX_DIGITS = 4000): the residual one is refused, the plain one computed."""
    from seprank.theory.bounds import MAX_DIGITS, block_bound_log10

    assert generic_block_bound_log10(54, 18) < MAX_DIGITS
    assert block_bound_log10(54, 18, 18, 18, residual=True) > MAX_DIGITS
    with pytest.raises(TooBigError, match="digits"):
        block_bound(54, 18, 18, 18, residual=True)
    assert len(str(block_bound(54, 18, 18, 18))) == 3995


def test_costly_bounded_side_says_what_to_use_instead():
    with pytest.raises(TooBigError, match=r"at least 100 positions per side \(seq_len >= 200\)"):
        block_bound(5, 100, 4, 4)


def test_residual_monomial_log10_matches_the_integer():
    from seprank.theory.bounds import monomial_bound_log10

    for args in ((2, 2, 1, 3), (1, 3, 3, 1), (2, 1, 2, 2)):
        exact = monomial_bound(*args, residual=True)
        assert monomial_bound_log10(*args, residual=True) == pytest.approx(math.log10(exact))


def test_theorem_bound_falls_back_to_monomial_when_block_is_too_costly():
    """Width 100 with 4 positions a side: the bounded-rank block bound needs too many
    Schur dimensions, so the monomial count is the bound, and ``why`` says why."""
    from seprank.nets import LinearSelfAttention
    from seprank.theory.bounds import theorem_bound

    r = theorem_bound(LinearSelfAttention(depth=5, width=100, heads=1, seq_len=8))
    assert r["which"] == "monomial" and r["block"] is None
    assert r["why"].startswith("monomial count per side (block bound not computed: seq_len")
    assert r["upper"] == r["monomial"] == monomial_bound(5, 100, 4, 4)
    assert r["log10_upper"] == pytest.approx(math.log10(r["upper"]))


def test_theorem_bound_past_max_digits_keeps_its_log10():
    from seprank.nets import LinearSelfAttention
    from seprank.theory.bounds import MAX_DIGITS, theorem_bound

    r = theorem_bound(LinearSelfAttention(depth=30, width=30, heads=1, seq_len=60))
    assert r["upper"] is None and r["block"] is None and r["which"] == "block"
    assert r["log10_upper"] == pytest.approx(generic_block_bound_log10(30, 30))
    assert r["log10_upper"] > MAX_DIGITS


def _generic_closed_form_width_2(depth: int) -> int:
    """Width 2 (m = 3), exact integers only: b_k = C(k+2, 2), a_j = 2 C(j+2, 2); the
    crossover by integer bisection, then C(m+K, K) + d C(m+D-K-1, D-K-1)."""
    D = matrix_degree(depth)
    lo, hi = 0, D  # b_0 = 1 <= a_D: true at 0
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if math.comb(mid + 2, 2) <= 2 * math.comb(D - mid + 2, 2):
            lo = mid
        else:
            hi = mid - 1
    return math.comb(3 + lo, lo) + 2 * math.comb(3 + D - lo - 1, D - lo - 1)


@pytest.mark.parametrize("depth", [7, 655, 700, 2000])
def test_generic_log10_beyond_float_range(depth):
    """Depths past ~630 put C(n, r)'s n beyond float range (another branch of the log
    gamma ratio; at depth 655 the bisection's n straddle 1.8e308, the float limit);
    checked against the exact integer closed form."""
    exact = _generic_closed_form_width_2(depth)
    assert generic_block_bound_log10(depth, 2) == pytest.approx(math.log10(exact), rel=1e-12)


def test_bounded_side_estimate_uses_the_bounded_side():
    """Depth 200, width 10, a 4-position query side: the bounded side's sum (about 3200
    digits) decides, not the generic side's (about 5200): computed, not refused."""
    from seprank.theory.bounds import block_bound_log10

    assert 3000 < block_bound_log10(200, 10, 4, 10) < 4000


@pytest.mark.parametrize("arg", ["depth", "width", "n_query", "n_other"])
@pytest.mark.parametrize("bad", [0, -1, 1.0, True, "2"])
def test_block_bound_arguments_checked_by_name(arg, bad):
    from seprank.errors import ConfigError
    from seprank.theory.bounds import block_bound_log10, monomial_bound_log10

    args = {**dict(depth=2, width=2, n_query=2, n_other=2), arg: bad}
    for f in (block_bound, block_bound_log10, monomial_bound_log10):
        with pytest.raises(ConfigError, match=f"^{arg}="):
            f(**args)


# --- theory/bounds.py on its limits: the log gamma ratio's branch points, MAX_DIGITS and
# MAX_PARTITION_TERMS exactly on the limit (moved onto a small case with monkeypatch, so
# that one case sits on it), the real limits' values, and block_terms ---


def _lgamma_ratio_ref(a: int, delta: int) -> float:
    """lgamma(a) - lgamma(a - delta) to ~40 digits: the sum of log(a - i), i = 1..delta
    (Gamma(a) / Gamma(a - delta) = (a - 1)...(a - delta)) for small delta, else mpmath."""
    import mpmath

    with mpmath.workdps(60):
        if delta <= 200:
            return float(mpmath.fsum(mpmath.log(mpmath.mpf(a - i)) for i in range(1, delta + 1)))
        return float(mpmath.loggamma(a) - mpmath.loggamma(a - delta))


@pytest.mark.parametrize("a, delta", [
    (2, 1), (61, 1), (61, 60), (99, 1), (100, 1), (101, 1), (102, 1), (150, 50), (200, 100),
    (200, 101), (10**4, 1), (999_999, 1), (10**6, 1), (10**6 + 1, 1), (10**6 + 3, 5),
    (10**6 - 1, 10**6 - 99), (10**6, 10**6 - 99), (10**6 + 1, 10**6 - 98), (10**6 + 1, 10**6),
    (10**9, 10**9 - 5), (10**12 + 7, 3), (10**15, 10**15 - 10**3), (10**20, 10**10),
    (10**301 + 3, 3), (10**305, 7), (10**310 + 1, 2), (10**400 + 5, 5), (3 * 10**300, 10**300),
    (2 * 10**302 + 10**300, 10**300), (10**310 + 5 * 10**297, 5 * 10**297),
], ids=lambda v: f"{v}" if v < 10**7 else f"{str(v)[0]}e{len(str(v)) - 1}")
def test_lgamma_ratio_full_precision_on_every_branch(a, delta):
    """Relative error below 1e-13 on both sides of every branch point (b = a - delta at
    99 / 100, a at 1e6 with b < 100, b past 1e300 and past the float range 1.8e308, with
    delta below b / 1e12 or not)."""
    from seprank.theory.combinatorics import _lgamma_ratio

    assert _lgamma_ratio(a, delta) == pytest.approx(_lgamma_ratio_ref(a, delta), rel=1e-13)


def test_residual_generic_bound_near_the_digit_limit_is_computed():
    """Depth 49, width 19, residual: 3987 digits, under MAX_DIGITS. block_bound computes it
    and theorem_bound returns it (an estimate 14 digits loose once refused it, and
    theorem_bound, which had asked for it, let the TooBigError escape)."""
    from seprank.nets import LinearSelfAttention
    from seprank.theory.bounds import theorem_bound

    v = block_bound(49, 19, 19, 19, residual=True)
    assert len(str(v)) == 3987
    r = theorem_bound(LinearSelfAttention(depth=49, width=19, heads=1, seq_len=38, residual=True))
    assert r["upper"] == r["block"] == v and r["which"] == "block"


def _digit_limit_cases():
    """(what, compute, log10 of the value it is refused by) on every refusal path: generic
    sides (closed form, and residual in log space), a bounded side (refused by the sum of
    that side's terms, the block bound's upper estimate) and the monomial bound."""
    from seprank.theory.bounds import monomial_bound_log10

    def side_sum(dim, width, n, D, folds):  # folds-fold cumulative sum at D of dim(k)
        vals = [dim(k, width, n) for k in range(D + 1)]
        for _ in range(folds):
            vals = [sum(vals[: k + 1]) for k in range(D + 1)]
        return math.log10(vals[-1])

    from seprank.theory.bounds import block_bound_log10

    D3 = matrix_degree(3)
    return [
        ("generic", lambda: block_bound(3, 2, 2, 2), block_bound_log10(3, 2, 2, 2)),
        ("generic residual", lambda: block_bound(3, 2, 2, 2, True),
         block_bound_log10(3, 2, 2, 2, True)),
        ("bounded other side", lambda: block_bound(3, 3, 3, 2), side_sum(b_dim, 3, 2, D3, 1)),
        ("bounded query side", lambda: block_bound(3, 3, 1, 3), side_sum(a_dim, 3, 1, D3, 1)),
        ("bounded, residual", lambda: block_bound(3, 3, 1, 3, True),
         side_sum(a_dim, 3, 1, D3, 2)),
        ("monomial", lambda: monomial_bound(3, 2, 1, 2), monomial_bound_log10(3, 2, 1, 2)),
        ("monomial residual", lambda: monomial_bound(3, 2, 1, 2, True),
         monomial_bound_log10(3, 2, 1, 2, True)),
    ]


def test_digit_limit_is_inclusive_on_every_path(monkeypatch):
    """With MAX_DIGITS moved onto a case's log10 (of the value, or of the upper estimate it
    is refused by), the case is computed; a float below it, refused. Generic sides and
    the monomial bound are refused by their log10 companions."""
    from seprank.theory import bounds

    for what, compute, lg in _digit_limit_cases():
        monkeypatch.setattr(bounds, "MAX_DIGITS", lg)
        assert compute() > 0, what
        monkeypatch.setattr(bounds, "MAX_DIGITS", math.nextafter(lg, -math.inf))
        with pytest.raises(TooBigError, match="decimal digits"):
            compute()


@pytest.mark.parametrize("residual", [False, True])
def test_theorem_bound_asks_only_for_integers_it_gets(monkeypatch, residual):
    """theorem_bound returns the exact integer exactly when its log10 (the companion's, the
    number the refusal compares) is at most MAX_DIGITS, and never lets block_bound's or
    monomial_bound's refusal escape: the limit on it, a float below it, a float above."""
    from seprank.nets import LinearSelfAttention
    from seprank.theory import bounds

    net = LinearSelfAttention(depth=3, width=2, heads=1, seq_len=4, residual=residual)
    ref = bounds.theorem_bound(net)
    assert ref["which"] == "block"
    lg = bounds.block_bound_log10(3, 2, 2, 2, residual)
    for limit, computed in ((lg, True), (math.nextafter(lg, -math.inf), False),
                            (math.nextafter(lg, math.inf), True)):
        monkeypatch.setattr(bounds, "MAX_DIGITS", limit)
        r = bounds.theorem_bound(net)
        assert (r["upper"] == ref["upper"]) if computed else r["upper"] is None
        assert r["log10_upper"] == pytest.approx(lg, rel=1e-12)


def test_digit_limit_value_and_message():
    """MAX_DIGITS = 4000, on real bounds: the residual monomial bound C(595 + 3**19, 595)
    (width 35, 17 positions a side) has exactly 4000 digits and is computed; C(356 +
    3**28, 356) (width 4, 89 a side) has 4001 and is refused, stating the limit."""
    from seprank.theory.bounds import monomial_bound_log10

    v = monomial_bound(19, 35, 17, 17, residual=True)
    assert v == math.comb(595 + 3**19, 595) and len(str(v)) == 4000
    assert 4000 < monomial_bound_log10(28, 4, 89, 89, residual=True) < 4001
    with pytest.raises(TooBigError, match=r"has about 4,001 decimal digits \(limit 4,000\)"):
        monomial_bound(28, 4, 89, 89, residual=True)
    assert len(str(math.comb(356 + 3**28, 356))) == 4001


def test_partition_term_limit_is_inclusive(monkeypatch):
    """With MAX_PARTITION_TERMS moved onto the exact number of Schur dimensions a side
    of 3 positions at width 5 needs, the bound is computed; one fewer, refused."""
    from seprank.theory import bounds
    from seprank.theory import sequences as seq

    terms = seq.bounded_rank_terms(5, 3, 10**9)
    assert terms < 10**9  # exact
    monkeypatch.setattr(bounds, "MAX_PARTITION_TERMS", terms)
    assert block_bound(2, 5, 3, 3) == _direct_block_bound(2, 5, 3, 3)
    monkeypatch.setattr(bounds, "MAX_PARTITION_TERMS", terms - 1)
    with pytest.raises(TooBigError, match=f"more than {terms - 1:,} Schur dimensions"):
        block_bound(2, 5, 3, 3)


def test_partition_term_limit_value_in_the_message():
    with pytest.raises(TooBigError, match=r"needs more than 200,000 Schur dimensions \(the "
                       r"limit\) for its bounded-rank dimensions; use at least 100 positions"):
        block_bound(5, 100, 4, 4)


def _direct_block_bound(depth, width, nq, no, residual=False):
    """sum_k min(b_k, a_{D-k}) (A_{D-k} cumulative with residual), term by term."""
    D = matrix_degree(depth)
    a = [a_dim(j, width, nq) for j in range(D + 1)]
    cum = [sum(a[: j + 1]) for j in range(D + 1)]
    return sum(min(b_dim(k, width, no), (cum if residual else a)[D - k]) for k in range(D + 1))


@pytest.mark.parametrize("depth, width, nq, no", [(1, 3, 2, 2), (2, 2, 2, 2), (2, 3, 1, 2),
                                                   (2, 3, 2, 1), (3, 2, 1, 3), (2, 4, 3, 5)])
def test_block_terms_are_the_block_bounds_terms(depth, width, nq, no):
    from seprank.theory.bounds import block_terms

    D = matrix_degree(depth)
    terms = block_terms(depth, width, nq, no)
    assert terms == [min(b_dim(k, width, no), a_dim(D - k, width, nq)) for k in range(D + 1)]
    assert sum(terms) == block_bound(depth, width, nq, no)


def test_block_terms_limit():
    """None past ``limit`` terms (D + 1), the list at exactly ``limit``; by default lists
    depth 11 (88,574 terms) and not depth 12 (265,721)."""
    from seprank.errors import ConfigError
    from seprank.theory.bounds import block_terms

    assert block_terms(2, 2, 2, 2, limit=5) == block_terms(2, 2, 2, 2)
    assert len(block_terms(2, 2, 2, 2, limit=5)) == 5
    assert block_terms(2, 2, 2, 2, limit=4) is None
    assert block_terms(12, 2, 2, 2) is None
    assert len(block_terms(11, 2, 2, 2)) == 88_574
    with pytest.raises(ConfigError, match="^n_other="):
        block_terms(2, 2, 2, 0)
