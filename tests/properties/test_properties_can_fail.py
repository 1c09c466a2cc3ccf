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


def test_float_is_not_trusted_when_the_degree_is_high():
    from seprank import measure
    from seprank.rank import float_trustworthy

    m = measure(LinearSelfAttention(depth=4, width=2, heads=1, seq_len=2), method="float",
                max_samples=300)
    assert not float_trustworthy(m)
    low = measure(LinearSelfAttention(depth=1, width=3, heads=1, seq_len=4), method="float")
    assert float_trustworthy(low)
