import math

import pytest

from seprank.theory import guidelines as gl
from seprank.theory.bounds import (
    a_dim,
    b_dim,
    block_bound,
    generic_block_bound,
    generic_block_bound_log10,
    log_comb,
    matrix_degree,
    monomial_bound,
)
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
