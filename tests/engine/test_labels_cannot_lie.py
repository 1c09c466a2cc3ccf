"""Labels that cannot lie by construction (issue 40): a declared degree tested beyond the
claim, the one-row property checked on the batches measured, constants covered by a prime
drawn at random.

Truth is independent of seprank: f written by hand as an fmpq_mpoly and its coefficient
matrix ranked over Q (tests/_truth.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np
import pytest

import seprank
from seprank.algebra.domains import is_prime
from seprank.algebra.height import DenominatorDomain, HeightDomain
from seprank.engine import constants
from seprank.errors import ConfigError
from tests._truth import inputs, rank_over_q

P = 67108859  # the default prime: public, so constants can be written to cancel there


@dataclass(frozen=True)
class Cube:
    """f = (w (x0 + x1 + x2 + x3))^3, width 1: rank 4 across {0, 1} | {2, 3}."""

    seq_len: int = 4
    width: int = 1

    def init(self, rng, domain):
        return {"w": domain.random(rng, (1,))}

    def apply(self, params, X, domain):
        s = params["w"][0] * (X[:, 0, 0] + X[:, 1, 0] + X[:, 2, 0] + X[:, 3, 0])
        return s * s * s


@dataclass(frozen=True)
class CubeClaimsOne(Cube):
    degree = 1


@dataclass(frozen=True)
class CubeClaimsTwo(Cube):
    degree = 2
    weight_degree = 0  # also wrong (3): a user's degrees never set the entry degree


@dataclass(frozen=True)
class CubeClaimsThree(Cube):
    degree = 3


def _cube_truth() -> int:
    X, _ = inputs(4, 1)
    s = X[0][0] + X[1][0] + X[2][0] + X[3][0]
    return rank_over_q(s**3, [0, 1])


def test_a_declared_degree_too_small_is_refused_and_the_truth_measured_without_it():
    truth = _cube_truth()
    assert truth == 4
    for cls in (CubeClaimsOne, CubeClaimsTwo):
        with pytest.raises(ConfigError, match=r"declares degree=\d.*too small"):
            seprank.measure(cls(), [0, 1])
    for cls in (Cube, CubeClaimsThree):
        m = seprank.measure(cls(), [0, 1])
        assert m.rank == truth and m.saturated, m.saturation_reason


def test_the_declared_degree_is_tested_beyond_the_claim_and_says_so():
    m = seprank.measure(CubeClaimsThree(), [0, 1], strategy="graded")
    assert "tested beyond the claim" in m.detail.homogeneity
    assert 0 < m.detail.homogeneity_false_bound < 1e-12


@dataclass(frozen=True)
class BigBatches:
    """w0 x00 x10 + w1 x01 x11 (rank 2), but x02 x12 more on batches above 8 rows."""

    seq_len: int = 2
    width: int = 3

    def init(self, rng, domain):
        return {"w": domain.random(rng, (2,))}

    def apply(self, params, X, domain):
        w = params["w"]
        f = w[0] * X[:, 0, 0] * X[:, 1, 0] + w[1] * X[:, 0, 1] * X[:, 1, 1]
        if X.shape[0] > 8:
            f = f + X[:, 0, 2] * X[:, 1, 2]
        return f


@dataclass(frozen=True)
class SmallBatches(BigBatches):
    """The same function, the same on every batch."""

    def apply(self, params, X, domain):
        w = params["w"]
        return w[0] * X[:, 0, 0] * X[:, 1, 0] + w[1] * X[:, 0, 1] * X[:, 1, 1]


@pytest.mark.parametrize("method", ["modular", "float"])
def test_an_apply_that_changes_on_large_batches_is_refused(method):
    X, _ = inputs(2, 3)
    truth = rank_over_q(X[0][0] * X[1][0] + 7 * X[0][1] * X[1][1], [0])
    assert truth == 2
    with pytest.raises(ConfigError, match="another value for the same input row in a batch"):
        seprank.measure(BigBatches(), [0], method=method)
    assert seprank.measure(SmallBatches(), [0], method=method).rank == truth


@dataclass(frozen=True)
class QuarterSlip(SmallBatches):
    """The same function, but one row position in four of every batch above 8 rows (0, 4,
    8, ...: the 4-row probe never sees it) gets x02 x12 more: a quarter of the positions,
    whatever rows they hold."""

    def apply(self, params, X, domain):
        f = SmallBatches.apply(self, params, X, domain)
        if X.shape[0] > 8:
            slip = X[:, 0, 2] * X[:, 1, 2]
            f = f + slip * domain.constant((np.arange(X.shape[0]) % 4 == 0).astype(np.int64))
        return f


@pytest.mark.parametrize("method", ["modular", "float"])
def test_an_apply_that_slips_at_a_quarter_of_the_positions_is_refused(method):
    """A violation the stated bound covers (a quarter of a batch's positions)."""
    with pytest.raises(ConfigError, match="another value for the same input row in a batch"):
        seprank.measure(QuarterSlip(), [0], method=method)


def test_the_sentinel_copies_never_move_the_grid():
    """SpotChecker.evaluate gives each row of the batch exactly its value in the batch
    evaluated alone (the copies are taken out), for every batch size."""
    from seprank.algebra.domains import ModP
    from seprank.engine.evaluate import evaluate
    from seprank.engine.row_check import COPIES, SpotChecker

    net, dom, rng = SmallBatches(), ModP(P), np.random.default_rng(1)
    params = net.init(rng, dom)
    spot = SpotChecker(np.random.default_rng(2))
    for n in (1, 2, COPIES - 1, COPIES, COPIES + 1, 300, 300, 2):  # sizes again: places kept
        X = rng.integers(0, P, size=(n, 2, 3))
        got = spot.evaluate(net, params, dom, X)
        want = [int(evaluate(net, params, X[i : i + 1], dom)[0]) for i in range(n)]
        assert [int(v) for v in got] == want
    # a sentinel evaluated alone already (the arithmetic check's point): used as given
    row = rng.integers(0, P, size=(2, 3))
    value = int(evaluate(net, params, row[None], dom)[0])
    X = rng.integers(0, P, size=(10, 2, 3))
    ok = SpotChecker(np.random.default_rng(3), (P, row, value))
    assert np.array_equal(ok.evaluate(net, params, dom, X), evaluate(net, params, X, dom))
    with pytest.raises(ConfigError, match="another value for the same input row"):
        SpotChecker(np.random.default_rng(3), (P, row, value + 1)).evaluate(net, params, dom, X)


def test_the_one_row_check_is_part_of_the_bound_and_says_what_it_covers():
    from seprank.engine import row_check

    m = seprank.measure(SmallBatches(), [0])
    assert m.saturated and m.saturation_bound >= row_check.MISS
    assert row_check.MISS == pytest.approx(0.75**32) and row_check.MISS < 1.1e-4
    assert "the one-row property" in m.saturation_reason
    assert "fewer positions or only for some rows' values is not covered" in m.saturation_reason
    shipped = seprank.measure(seprank.LinearSelfAttention(depth=1, width=2, seq_len=4), [0, 1])
    assert shipped.saturated and "one-row" not in shipped.saturation_reason  # tested code


@dataclass(frozen=True)
class Cancels:
    """(P + 1) t - t + x01 x11 = P x00 x10 + x01 x11: rank 2 over Q, 1 mod P."""

    seq_len: int = 2
    width: int = 2

    def init(self, rng, domain):
        return {"w": domain.random(rng, (1,))}

    def apply(self, params, X, domain):
        t = X[:, 0, 0] * X[:, 1, 0]
        return (P + 1) * t - t + X[:, 0, 1] * X[:, 1, 1]


@dataclass(frozen=True)
class Difference:
    """f = (a0 - a1) x00 x10 + x01 x11."""

    seq_len: int = 2
    width: int = 2

    def init(self, rng, domain):
        return {"a": domain.random(rng, (2,))}

    def apply(self, params, X, domain):
        a = params["a"]
        return (a[0] - a[1]) * X[:, 0, 0] * X[:, 1, 0] + X[:, 0, 1] * X[:, 1, 1]


def test_constants_that_cancel_mod_the_default_prime_no_longer_fool_the_label():
    X, _ = inputs(2, 2)
    truth = rank_over_q(P * X[0][0] * X[1][0] + X[0][1] * X[1][1], [0])
    assert truth == 2
    m = seprank.measure(Cancels(), [0])
    assert m.rank == truth and m.saturated and m.prime != P
    assert "drawn at random" in m.saturation_reason and "constants" in m.saturation_reason
    fixed = seprank.measure(Cancels(), [0], prime=P)  # the user fixed the prime
    assert fixed.rank == 1 and not fixed.saturated and fixed.sample_saturated
    assert "was fixed" in fixed.saturation_reason


def test_given_weights_that_cancel_mod_the_default_prime_no_longer_fool_the_label():
    X, _ = inputs(2, 2)
    a0, a1 = P + 2, 2
    truth = rank_over_q((a0 - a1) * X[0][0] * X[1][0] + X[0][1] * X[1][1], [0])
    assert truth == 2
    m = seprank.measure(Difference(), [0], weights={"a": [a0, a1]})
    assert m.rank == truth and m.saturated and "given weights" in m.saturation_reason
    fixed = seprank.measure(Difference(), [0], weights={"a": [a0, a1]}, prime=P)
    assert fixed.rank == 1 and not fixed.saturated


def test_the_drawn_prime_is_recorded_and_fixes_the_measurement():
    m = seprank.measure(Cancels(), [0])
    assert constants.PRIME_RANGE[0] <= m.prime < constants.PRIME_RANGE[1] and is_prime(m.prime)
    again = seprank.measure(Cancels(), [0], prime=m.prime)
    assert again.prime == m.prime and again.rank == m.rank
    assert "drawn at random" in m.strategy_reason


def test_draw_prime_is_uniform_over_the_range_primes():
    rng = np.random.default_rng(3)
    ps = {constants.draw_prime(rng) for _ in range(20)}
    assert len(ps) == 20 and all(is_prime(p) and 2**25 <= p < 2**26 for p in ps)
    assert all(flint.fmpz(p).is_prime() for p in ps)  # an independent primality test


def test_strong_prime_agrees_with_flint():
    from seprank.algebra.domains import strong_prime

    rng = np.random.default_rng(4)
    ns = list(range(3000)) + [int(v) for v in rng.integers(0, 2**31, size=3000)]
    ns += [2**31 - 1, 2047, 1373653, 25326001, 3215031751 - 2]  # strong pseudoprimes to 2, 3, 5
    assert all(strong_prime(n) == bool(flint.fmpz(n).is_prime()) for n in ns)


def _l1(poly) -> Fraction:
    return sum(abs(Fraction(str(c))) for _, c in poly.terms())


def _sum3(a, b, c):
    return a + b + c


CASES = [
    lambda x, y, third, s: 3 * x * y - x / 2 + (y + 5) ** 3,
    lambda x, y, third, s: (x * third + y) ** 2 * 7 - 2 * x,
    lambda x, y, third, s: (x + y) * (x - y) * 1000 + x / 3 / 3,
    lambda x, y, third, s: s(x, y, x * y) ** 2 / 4 - (P + 1) * x + x,
]


def _np_sum3(a, b, c):
    return np.sum(np.stack([a, b, c]), axis=0)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_the_traced_sizes_bound_the_true_coefficients(case):
    """2^h bounds the l1 norm of f's coefficients and L^e clears their denominators, where
    f is expanded independently (flint) from the same expression."""
    X, _ = inputs(1, 2)
    truth = CASES[case](X[0][0], X[0][1], flint.fmpq(1, 3), _sum3)
    h_dom, d_dom = HeightDomain(), DenominatorDomain()
    h = int(np.max(CASES[case](*(h_dom.random(None, (2,)) for _ in range(2)),
                               Fraction(1, 3), _np_sum3).raw))
    e = int(np.max(CASES[case](*(d_dom.random(None, (2,)) for _ in range(2)),
                               Fraction(1, 3), _np_sum3).raw))
    lcm = math.lcm(*(h_dom.denominators | d_dom.denominators | {1}))
    assert _l1(truth) <= 2**h
    for _, c in truth.terms():
        assert (Fraction(str(c)) * lcm**e).denominator == 1


def test_constants_bound_grows_with_the_grid_and_the_constants():
    small = constants.bound([4, 6, 9], (1.0, 0, 0.0))
    big = constants.bound([4, 6, 9], (200.0, 2, 10.0))
    assert 0 < small < big < 1
    assert constants.bound([10**7], (200.0, 2, 10.0)) == 1.0


def test_confirm_draws_a_prime_per_run_for_code_seprank_does_not_ship():
    from seprank.engine.confirm import confirm

    best, summary = confirm(Cancels(), [0], k=2)
    primes = [r["prime"] for r in summary["runs"]]
    assert P not in primes and len(set(primes)) == 2
    assert best.rank == 2 and summary["saturated"], summary["reason"]
