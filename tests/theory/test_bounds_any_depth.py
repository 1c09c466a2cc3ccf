"""The bounds at any depth: polynomial-time sums, unchanged values, refusals with sizes."""

import math
import subprocess
import sys
import time

import pytest

from seprank.errors import TooBigError
from seprank.theory import sequences as seq
from seprank.theory.bounds import (
    MAX_DIGITS,
    a_dim,
    b_dim,
    block_bound,
    block_bound_log10,
    generic_block_bound_log10,
    matrix_degree,
    monomial_bound,
    monomial_bound_log10,
)


def _direct_block(depth, width, nq, no, residual):
    """The definition, summed term by term (small D only): the reference."""
    D = matrix_degree(depth)
    a = [a_dim(j, width, nq) for j in range(D + 1)]
    cum = [sum(a[: j + 1]) for j in range(D + 1)]
    return sum(min(b_dim(k, width, no), (cum if residual else a)[D - k]) for k in range(D + 1))


def _direct_monomial(depth, width, nq, no, residual):
    deg, vq, vo = 3**depth, width * nq, width * no
    if residual:
        return min(math.comb(vq + deg, deg), math.comb(vo + deg, deg))
    return sum(min(math.comb(vq + t - 1, t), math.comb(vo + deg - t - 1, deg - t))
               for t in range(deg + 1))


CASES = [(L, d, nq, no, res) for L in (1, 2, 3) for d in (1, 2, 3, 4) for nq in (1, 2, 3, 5)
         for no in (1, 2, 4) for res in (False, True)]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_closed_forms_equal_the_term_by_term_sums(case):
    assert block_bound(*case) == _direct_block(*case)
    assert monomial_bound(*case) == _direct_monomial(*case)


@pytest.mark.parametrize("d, n", [(d, n) for d in range(2, 6) for n in range(1, d)])
def test_bounded_rank_dimensions_are_polynomials_of_the_stated_degree(d, n):
    # the claim the closed form rests on, checked 5 values past the fitted range
    e = seq.hilbert_degree(d, n)
    for dim in (b_dim, a_dim):
        vals = [dim(k, d, n) for k in range(e + 6)]
        fit = seq.Newton(vals[: e + 1])
        assert [fit.value(k) for k in range(e + 6)] == vals
        assert len(fit.coeffs) == e + 1  # degree exactly e


def test_quoted_values_unchanged():
    assert block_bound(4, 2, 2, 2) == 4538 and block_bound(3, 3, 3, 3) == 3102
    assert block_bound(2, 3, 2, 2) == 49
    assert block_bound(2, 4, 1, 1) == 70 and block_bound(2, 4, 2, 2) == 110


@pytest.mark.parametrize("depth, width, n", [(5, 5, 4), (6, 5, 4), (5, 10, 4), (19, 10, 4),
                                             (30, 10, 4), (50, 10, 4)])
def test_bounded_sides_at_depths_that_used_to_hang(depth, width, n):
    t = time.process_time()  # CPU time: a loaded machine does not fail the test
    v = block_bound(depth, width, n, n)
    assert time.process_time() - t < 10
    assert 0 < v <= monomial_bound(depth, width, n, n)
    assert v < block_bound(depth, width, width, width)  # fewer positions, smaller bound


@pytest.mark.parametrize("depth", [20, 40, 45, 50, 60])
def test_generic_formula_any_depth(depth):
    lg = generic_block_bound_log10(depth, 10)
    exact = block_bound(depth, 10, 10, 10)
    assert abs(math.log10(exact) - lg) < 1e-9 * lg
    assert block_bound_log10(depth, 10, 10, 10, residual=True) > lg
    assert monomial_bound_log10(depth, 10, 10, 10) > lg


def test_huge_integers_refused_with_their_size():
    with pytest.raises(TooBigError, match="decimal digits"):
        block_bound(50, 100, 100, 100)
    assert block_bound_log10(50, 100, 100, 100) > MAX_DIGITS


def test_costly_bounded_side_refused_with_estimate():
    with pytest.raises(TooBigError, match="Schur dimensions"):
        block_bound(5, 100, 4, 4)


def _child_cpu() -> float:
    import resource

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


@pytest.mark.parametrize("args", [["5", "5", "8"], ["6", "5", "8"], ["5", "10", "8"],
                                  ["19", "10", "8"], ["40", "10", "8"], ["50", "10", "8"],
                                  ["45", "10", "20"], ["50", "100", "8"],
                                  ["50", "100", "200"]])
def test_bounds_cli_finishes_quickly(args):
    L, d, N = args
    t = _child_cpu()
    r = subprocess.run([sys.executable, "-m", "seprank", "bounds", "--depth", L, "--width", d,
                        "--seq-len", N], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert _child_cpu() - t < 10  # CPU seconds of the command (wall time varies with load)
    assert "proved upper bound: " in r.stdout and "Traceback" not in r.stderr
