import numpy as np
import pytest

from seprank import measure
from seprank.algebra.float_rank import float_trustworthy
from seprank.engine.sample_grid import template_points
from seprank.errors import ConfigError, DomainError, SamplingError, TooBigError
from seprank.nets import LinearSelfAttention, SoftmaxSelfAttention

TINY = [  # (depth, width, heads, seq_len, residual): small enough for sympy
    (1, 2, 1, 2, False),
    (1, 3, 3, 4, False),
    (2, 2, 1, 2, False),
    (2, 2, 1, 4, False),
    (2, 2, 2, 4, True),
    (2, 3, 1, 2, False),
    (1, 4, 2, 4, True),
    (3, 1, 1, 2, False),
]


def _ints(net, seed):
    from seprank.algebra.domains import Symbolic

    return net.init(np.random.default_rng(seed), Symbolic())


@pytest.mark.parametrize(
    "cfg", TINY, ids=lambda c: "L{}d{}H{}N{}{}".format(*c[:4], "r" if c[4] else "")
)
def test_three_engines_agree_on_tiny_nets(cfg):
    L, d, H, N, res = cfg
    net = LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N, residual=res)
    w = _ints(net, 3)  # one integer network, measured by all three engines
    sym = measure(net, method="symbolic", weights=w)
    mod = measure(net, method="modular", weights=w)
    assert mod.saturated and mod.rank == sym.rank
    flo = measure(net, method="float")  # generic float weights (unit scale)
    assert flo.tolerance is not None and flo.tolerance > 0
    assert len(flo.spectrum) == min(flo.samples)
    if L <= 2:  # degree <= 9: the float spectrum still has a clear gap
        assert flo.sample_saturated and flo.rank == sym.rank
        assert flo.trusted == float_trustworthy(flo)  # the label follows the spectrum
        assert not flo.saturated  # a float rank is never saturated


@pytest.mark.parametrize(
    "width, heads", [(w, h) for w in (1, 2, 3, 4, 6) for h in (1, 2, 3, 6) if w % h == 0]
)
def test_depth_one_gives_width_plus_one(width, heads):
    m = measure(LinearSelfAttention(depth=1, width=width, heads=heads, seq_len=4))
    assert m.saturated and m.rank == width + 1


def test_same_seed_same_result_and_seeds_agree():
    net = LinearSelfAttention(depth=2, width=3, heads=1, seq_len=4)
    a, b = measure(net, seed=7), measure(net, seed=7)
    assert a.rank == b.rank and a.samples == b.samples and a.history == b.history
    assert {measure(net, seed=s).rank for s in range(3)} == {a.rank}


@pytest.mark.parametrize("cfg", [(3, 2, 1, 4, False), (2, 4, 2, 6, False), (2, 2, 1, 4, True)])
def test_rank_engines_agree_at_every_adaptive_step(cfg):
    """BLAS and flint engines on the same grids: identical rank history (exact both)."""
    L, d, H, N, res = cfg
    net = LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N, residual=res)
    a, b = measure(net, rank_engine="blas"), measure(net, rank_engine="flint")
    assert a.saturated and a.history == b.history


@pytest.mark.parametrize("partition", [(0, 1), (0, 2), (0, 3), (1, 2), (2, 3)])
def test_balanced_partitions_same_rank(partition):
    net = LinearSelfAttention(depth=2, width=2, heads=1, seq_len=4)
    assert measure(net, partition).rank == measure(net).rank


def test_template_grid_matches_random_sampler_and_tensorly_unfold():
    net = LinearSelfAttention(depth=2, width=2, heads=1, seq_len=2)
    assert measure(net, sampler="templates").rank == measure(net).rank
    tl = pytest.importorskip("tensorly")
    # The (A, B) matricisation with |A| = 1 is tensorly's mode-0 unfolding.
    from seprank.algebra.domains import Float64
    from seprank.engine.sample_grid import evaluate_grid

    rng = np.random.default_rng(0)
    params = net.init(rng, Float64())
    T = rng.standard_normal((4, 2))
    Ap, Bp = template_points(T, 1), template_points(T, 1)
    F = evaluate_grid(net, params, Float64(), Ap, Bp, (0,), (1,))
    full = np.array([[net.apply(params, np.stack([T[i], T[j]])[None], Float64())[0]
                      for j in range(4)] for i in range(4)])
    assert np.allclose(F, tl.unfold(tl.tensor(full), 0))


def test_unsaturated_budget_is_reported():
    net = LinearSelfAttention(depth=3, width=2, heads=1, seq_len=4)
    m = measure(net, max_samples=40, strategy="direct")
    assert not m.saturated and m.budget_hit and m.rank == 40


def test_softmax_float_rank_is_full():
    m = measure(SoftmaxSelfAttention(depth=1, width=2, heads=1, seq_len=4), method="float",
                max_samples=60)
    assert m.method == "float" and m.rank >= 3


@pytest.mark.parametrize(
    "kwargs, exc, text",
    [
        (dict(partition=[]), ConfigError, "empty"),
        (dict(partition=[0, 0]), ConfigError, "repeats"),
        (dict(partition=[0, 9]), ConfigError, "out of range"),
        (dict(partition=[0, 1, 2, 3]), ConfigError, "B side"),
        (dict(method="svd"), ConfigError, "method="),
        (dict(prime=91), DomainError, "prime=91"),
        (dict(prime=2**40 + 15), DomainError, r"prime=1099511627791 must be a prime in \[2, "),
        (dict(max_samples=10**7), SamplingError, "max_samples"),
        (dict(seed=-1), ConfigError, "seed="),
    ],
)
def test_bad_measure_inputs(kwargs, exc, text):
    net = LinearSelfAttention(depth=1, width=2, heads=1, seq_len=4)
    with pytest.raises(exc, match=text):
        measure(net, **kwargs)


def test_symbolic_refuses_big_cases_with_estimate():
    with pytest.raises(TooBigError, match="monomials"):
        measure(LinearSelfAttention(depth=4, width=3, heads=1, seq_len=8), method="symbolic")
