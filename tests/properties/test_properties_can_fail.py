"""Each property must be able to fail: broken networks and broken bounds are caught."""

from dataclasses import dataclass

import numpy as np
import pytest

from seprank.nets import LinearSelfAttention
from seprank.testing import (
    assert_engines_agree,
    assert_partition_invariant,
    assert_rank_within_bounds,
)
from seprank.theory.bounds import block_bound


def test_bound_minus_one_is_reported_violated():
    net = LinearSelfAttention(depth=2, width=2, heads=1, seq_len=4)
    ub = block_bound(2, 2, 2, 2)
    with pytest.raises(AssertionError, match=r"VIOLATED.*seprank measure --depth 2"):
        assert_rank_within_bounds(net, upper=ub - 1)


def test_lower_bound_above_rank_is_reported():
    net = LinearSelfAttention(depth=1, width=2, heads=1, seq_len=4)
    with pytest.raises(AssertionError, match="< lower bound 4"):
        assert_rank_within_bounds(net, lower=4)


@dataclass(frozen=True)
class PositionBiased(LinearSelfAttention):
    """Broken on purpose: adds (x^1 . x^3)^3, which ties positions 1 and 3 together.

    Degrees 3 and 6 mix: it must not inherit the parent's "homogeneous" declaration
    (seprank checks declarations and would refuse it)."""

    homogeneous = False

    def apply(self, params, X, domain):
        y = super().apply(params, X, domain)
        dot = domain.einsum("bc,bc->b", X[:, 1], X[:, 3])
        return domain.add(y, domain.mul(domain.mul(dot, dot), dot))


def test_partition_invariance_catches_a_position_biased_net():
    net = PositionBiased(depth=1, width=2, heads=1, seq_len=4)
    with pytest.raises(AssertionError, match="ranks differ"):
        assert_partition_invariant(net, [(0, 1), (0, 2)])


@dataclass(frozen=True)
class FloatOnlyWrong(LinearSelfAttention):
    """Broken on purpose: adds a product of A and B inputs only in float64."""

    def apply(self, params, X, domain):
        y = super().apply(params, X, domain)
        if domain.name == "float64":
            y = y + np.prod(X[:, :, 0], axis=1) * 1e3
        return y


def test_engine_disagreement_is_caught():
    with pytest.raises(AssertionError, match="float"):
        assert_engines_agree(FloatOnlyWrong(depth=1, width=2, heads=1, seq_len=4),
                             float_check="always")


@pytest.mark.parametrize("seed", range(40))
def test_float_is_never_trusted_when_the_degree_is_high(seed):
    """Depth 4 (degree 81): the exact rank is 861, beyond the 300 samples, so no float rank
    is right; every seed must be untrusted (seed 22 once gave a trusted rank of 1)."""
    from seprank import measure
    from seprank.algebra.float_rank import float_trustworthy

    m = measure(LinearSelfAttention(depth=4, width=2, heads=1, seq_len=2), method="float",
                max_samples=300, seed=seed)
    assert m.rank < 300 and not float_trustworthy(m), (m.rank, m.spectrum[:4])


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("cfg, exact", [((1, 3, 1, 4), 4), ((1, 4, 2, 4), 5), ((1, 2, 1, 2), 3)])
def test_float_is_trusted_and_right_at_low_degree(cfg, exact, seed):
    from seprank import measure
    from seprank.algebra.float_rank import FLOAT_GAP, float_trustworthy

    L, d, H, N = cfg
    m = measure(LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N), method="float",
                seed=seed)
    assert float_trustworthy(m) and m.rank == exact, m.saturation_reason
    # the case must not sit on a threshold: each margin is at least 1e3 beyond its limit
    s, r = m.spectrum, m.rank
    assert s[r - 1] / s[r] >= 1e3 * FLOAT_GAP and s[r - 1] / m.tolerance >= 1e3 * FLOAT_GAP


def test_float_verdict_ignores_how_far_below_round_off_the_tail_falls():
    """The discarded values are round-off: their spread must not flip the verdict (numpy
    2.4.6 gave s[-1] = 1.7e-19 for a right rank 4 and the old tail test refused it)."""
    from types import SimpleNamespace as M

    import numpy as np

    from seprank.algebra.float_rank import float_trustworthy

    for tail in (1e-13, 1e-19, 1e-40, 0.0):
        s = np.array([4.5e3, 56.5, 2.9e-13, tail])
        assert float_trustworthy(M(spectrum=s, rank=2, tolerance=1.6e-11, saturated=True,
                                   scaled_rank=2)), tail


def test_untrusted_message_names_the_failed_criterion_and_its_value():
    from types import SimpleNamespace as M

    import numpy as np

    from seprank.algebra.float_rank import float_distrust

    s = np.array([10.0, 5.0, 1e-9, 5e-10])
    good = dict(spectrum=s, rank=2, tolerance=1e-8, saturated=True, scaled_rank=2)
    assert float_distrust(M(**good)) is None
    assert "s[r-1]/s[r] = 2 < 1e+06" in float_distrust(M(**{**good, "rank": 1}))
    assert "s[r-1]/tolerance = 5 < 1e+06" in float_distrust(M(**{**good, "tolerance": 1.0}))
    assert "float rank 3, not 2" in float_distrust(M(**{**good, "scaled_rank": 3}))
    assert "sample size" in float_distrust(M(**{**good, "saturated": False}))


def test_equilibration_keeps_the_exact_rank_and_exposes_a_graded_grid():
    import numpy as np

    from seprank.algebra.float_rank import equilibrated_rank, rank_float

    rng = np.random.default_rng(0)
    low = rng.standard_normal((12, 3)) @ rng.standard_normal((3, 12))
    assert equilibrated_rank(low) == rank_float(low).rank == 3
    scale = 10.0 ** np.arange(0, 60, 5)  # rows graded over 55 decades: full rank 12
    graded = scale[:, None] * rng.standard_normal((12, 12))
    assert rank_float(graded).rank < 12 and equilibrated_rank(graded) == 12


def test_float_trust_rules_one_by_one():
    from types import SimpleNamespace as M

    import numpy as np

    from seprank.algebra.float_rank import FLOAT_GAP, float_trustworthy

    s = np.array([10.0, 5.0, 1e-9, 5e-10, 2e-10])
    good = dict(spectrum=s, rank=2, tolerance=1e-8, saturated=True, scaled_rank=2)
    assert float_trustworthy(M(**good))
    for change in (dict(saturated=False), dict(rank=0), dict(rank=5), dict(rank=-1),
                   dict(tolerance=None), dict(spectrum=None), dict(tolerance=6.0 / FLOAT_GAP),
                   dict(rank=1),  # s[0] / s[1] = 2: no gap
                   dict(spectrum=np.array([10.0, 5.0, 1e-9, 5e-10, np.nan])),
                   dict(scaled_rank=3), dict(scaled_rank=None)):  # not scale invariant
        assert not float_trustworthy(M(**{**good, **change})), change
    edge = np.array([4e6, 1e6, 1.0, 1e-6])  # every limit met with equality (FLOAT_GAP = 1e6)
    assert FLOAT_GAP == 1e6 and float_trustworthy(M(**{**good, "spectrum": edge, "tolerance": 1.0}))
    assert float_trustworthy(M(**{**good, "spectrum": s[:3]}))  # one discarded value
