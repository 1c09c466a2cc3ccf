"""measure()'s contract at its edges: argument checks on their boundaries, the documented
defaults (budget, growth, start, seed) seen through what a run reports or refuses, the
pre-run estimate's memory limit, the first-run notice, the labels it hands on, and the
sampling rule a certificate relies on. In-process and fast (the mutation run of
seprank/engine/measure.py selects these tests)."""

import importlib
import time

import numpy as np
import pytest

import seprank.engine.sample_grid as grid
from seprank import measure
from seprank.algebra.domains import Symbolic
from seprank.engine import strategies
from seprank.engine.options import MeasureOptions
from seprank.errors import ConfigError, MeasurementInterrupted, SamplingError, TooBigError
from seprank.nets import EmbeddedAttention, LinearSelfAttention, SoftmaxSelfAttention
from seprank.verdicts.certificates import check_certificate, make_certificate

SMALL = dict(depth=1, width=2, seq_len=4)
measure_module = importlib.import_module("seprank.engine.measure")  # seprank.measure: the function


def _sizes(m):
    return [h[0] for h in m.history]


def _memory(monkeypatch, nbytes):
    monkeypatch.setattr(grid, "available_memory", lambda: nbytes)


# ---------------------------------------------------------------- argument checks
@pytest.mark.parametrize("seed", [True, 2.5, "3", -1])
def test_seed_must_be_a_non_negative_integer(seed):
    with pytest.raises(ConfigError, match=r"^seed=.* must be an integer in \[0, 2\*\*63-1\]$"):
        measure(LinearSelfAttention(**SMALL), seed=seed)


def test_numpy_integer_seed_and_the_default_seed():
    net = LinearSelfAttention(**SMALL)
    assert measure(net).seed == 0  # documented default
    assert measure(net, seed=np.int64(3)).seed == 3


@pytest.mark.parametrize("max_samples", [True, 2.5, "40"])
def test_max_samples_must_be_an_integer(max_samples):
    expected = r"^max_samples=.* must be an integer in \[2, 10000000\]$"
    with pytest.raises(ConfigError, match=expected):
        measure(LinearSelfAttention(**SMALL), max_samples=max_samples)


def test_max_samples_boundary_is_two():
    net = LinearSelfAttention(depth=2, width=2, seq_len=4)
    with pytest.raises(ConfigError, match=r"^max_samples=1 must be an integer in \[2, 10000000\]$"):
        measure(net, max_samples=1)
    m = measure(net, max_samples=2, strategy="direct")  # the smallest budget runs
    assert m.samples == (2, 2) and m.budget_hit and m.rank == 2
    assert measure(net, max_samples=np.int64(2), strategy="direct").samples == (2, 2)


@pytest.mark.parametrize("growth", [1, 1.0, 0.5, 0])
def test_growth_must_exceed_one(growth):
    with pytest.raises(ConfigError, match=rf"^growth={growth} must be a finite number > 1$"):
        measure(LinearSelfAttention(**SMALL), growth=growth)


def test_growth_is_used_as_given():
    net = LinearSelfAttention(depth=2, width=3, seq_len=4)
    assert _sizes(measure(net, strategy="direct", growth=2)) == [16, 32, 64]
    m = measure(net, strategy="direct", growth=1.01, max_samples=19)
    assert _sizes(m) == [16, 17, 18, 19] and m.budget_hit


def test_sampler_alphabet_needs_a_declared_alphabet():
    with pytest.raises(ConfigError, match="^sampler='alphabet': LinearSelfAttention declares "
                                          "no alphabet$"):
        measure(LinearSelfAttention(**SMALL), sampler="alphabet")
    net = EmbeddedAttention(vocab=3, embed_rank=2, width=2, depth=1, seq_len=4)
    m = measure(net, (0, 1), sampler="alphabet")
    assert m.sampler == "alphabet" and m.samples == (9, 9)


# ---------------------------------------------------------------- method='auto'
def test_method_auto_takes_modular_for_a_polynomial_and_says_nothing():
    m = measure(LinearSelfAttention(**SMALL), method="auto")
    assert m.method == "modular" and "method='auto'" not in m.strategy_reason


def test_method_auto_takes_float_for_a_non_polynomial_and_says_so():
    m = measure(SoftmaxSelfAttention(**SMALL), method="auto", max_samples=40)
    assert m.method == "float"
    assert m.strategy_reason.startswith("method='auto' took 'float': SoftmaxSelfAttention is "
                                        "not a polynomial (float engine only, no "
                                        "certificate); ")


# ---------------------------------------------------------------- documented defaults
def test_default_start_and_direct_growth():
    """start 16, then x1.5 per step (rounded up): 16, 24, 36, 54."""
    m = measure(LinearSelfAttention(depth=2, width=3, seq_len=4), strategy="direct")
    assert _sizes(m) == [16, 24, 36, 54]


def test_default_graded_growth():
    """Graded: x1.25 per step (rounded up): 16, 20, 25."""
    m = measure(LinearSelfAttention(depth=2, width=3, seq_len=4))
    assert m.strategy == "graded" and _sizes(m) == [16, 20, 25]


def test_fine_growth_only_for_graded_default_growth_incremental(monkeypatch):
    """From the graded strategy's fine_after on, a graded run grows by x1.1, only with the
    default growth and incremental elimination (the threshold is lowered here, to reach
    it cheaply)."""
    monkeypatch.setattr(strategies.get("graded"), "fine_after", 20)
    net = LinearSelfAttention(depth=2, width=3, seq_len=4)
    assert _sizes(measure(net)) == [16, 20, 22]  # 20 * 1.1 = 22 (x1.25 would give 25)
    assert _sizes(measure(net, incremental=False)) == [16, 20, 25]
    assert _sizes(measure(net, growth=1.25)) == [16, 20, 25]
    assert _sizes(measure(net, strategy="direct")) == [16, 24, 36, 54]


@pytest.mark.parametrize(
    "kwargs, budget",
    [({}, 16000), (dict(strategy="direct"), 6000), (dict(method="float"), 2500)],
)
def test_default_budget_in_the_estimate_and_in_the_grid_check(monkeypatch, kwargs, budget):
    """The default max_samples (16000 graded, 6000 direct, 2500 float) is the budget the
    estimate refuses on and the one the grid must fit."""
    net = LinearSelfAttention(depth=2, width=2, seq_len=8)
    if "method" not in kwargs:  # auto would take catalecticant (no grid)
        kwargs = {"strategy": "graded", **kwargs}
    _memory(monkeypatch, 2**20)  # the sample points at the budget do not fit
    with pytest.raises(TooBigError, match=rf"^max_samples: the sample points at "
                                          rf"max_samples={budget} need"):
        measure(net, **kwargs)
    _memory(monkeypatch, 2**24)  # they fit, the budget's grid does not
    with pytest.raises(SamplingError, match=rf"^max_samples: a {budget}x{budget} grid"):
        measure(net, **kwargs)


@pytest.mark.parametrize(
    "depth, prime, graded",
    [(1, 3, False), (1, 5, True), (2, 7, False), (2, 11, True), (2, 13, True),
     (3, 23, False), (3, 29, True)],
)
def test_estimate_models_graded_only_when_the_prime_can_interpolate(monkeypatch, depth, prime,
                                                                    graded):
    """Graded blocks (and their budget, 16000) are estimated only for prime > 3**depth + 1,
    the primes the graded strategy accepts; smaller ones are estimated direct (6000)."""
    _memory(monkeypatch, 2**20)
    budget = 16000 if graded else 6000
    with pytest.raises(TooBigError, match=rf"max_samples={budget} need"):
        measure(LinearSelfAttention(depth=depth, width=2, seq_len=8), prime=prime,
                partition=(0,))  # one position on the query's side: no catalecticant


def test_estimate_limit_is_a_quarter_of_memory(monkeypatch):
    """check_cost gets a quarter of the memory: points that need exactly a quarter pass it
    (the grid check refuses next), one byte less is refused by the estimate."""
    net = LinearSelfAttention(depth=2, width=2, seq_len=8)
    need = 6000 * 8 * 2 * 8  # sample points at the direct budget (int64 residues)
    _memory(monkeypatch, 4 * need)
    with pytest.raises(SamplingError, match="^max_samples: a 6000x6000 grid"):
        measure(net, strategy="direct")
    _memory(monkeypatch, 4 * need - 4)
    with pytest.raises(TooBigError, match="^max_samples: the sample points"):
        measure(net, strategy="direct")


def test_estimate_limit_is_a_whole_number_of_bytes(monkeypatch):
    """2**30 + 1 bytes of memory: the limit is 2**28 bytes (0.25 GiB, printed 0.2)."""
    net = LinearSelfAttention(depth=1, width=2, seq_len=3000)
    _memory(monkeypatch, 2**30 + 1)
    with pytest.raises(TooBigError, match=r"over the 0\.2 GiB allowed"):
        measure(net, strategy="direct")


# ---------------------------------------------------------------- first-run notice
@pytest.mark.parametrize(
    "kwargs, notice",
    [({}, True), (dict(options=MeasureOptions(use_kernel=False)), False),
     (dict(method="float"), False)],
)
def test_compiling_notice_only_when_the_kernel_will_compile(monkeypatch, kwargs, notice):
    from seprank.engine import kernels

    lines = []
    monkeypatch.setattr(kernels, "will_compile", lambda ds=None: True)
    monkeypatch.setattr(kernels, "compiling_message", lambda ds=None: kernels.COMPILING)
    measure(LinearSelfAttention(**SMALL), progress=lines.append, **kwargs)
    assert (kernels.COMPILING in lines) == notice
    lines.clear()
    monkeypatch.setattr(kernels, "will_compile", lambda ds=None: False)
    measure(LinearSelfAttention(**SMALL), progress=lines.append, **kwargs)
    assert not any(x.startswith("compiling") for x in lines)


# ---------------------------------------------------------------- symbolic
class _Linear:
    """A degree-1 'architecture' of seq_len * width variables whose init stops the run:
    only the monomial estimate is under test."""

    degree = 1

    def __init__(self, seq_len, width):
        self.seq_len, self.width = seq_len, width

    def init(self, rng, domain):
        raise LookupError("expansion started")

    def apply(self, params, X, domain):  # pragma: no cover
        raise AssertionError


def test_symbolic_monomial_limit_boundary():
    """C(nvars + 1, 1) = nvars + 1 monomials: 250,000 is allowed, 250,001 refused."""
    with pytest.raises(LookupError, match="expansion started"):
        measure(_Linear(3, 83333), method="symbolic")  # 249,999 variables
    with pytest.raises(TooBigError, match=r"^method=symbolic: up to 250001 monomials .*"
                                          r"\(limit 250000\); use method=modular$"):
        measure(_Linear(2, 125000), method="symbolic")  # 250,000 variables


def test_symbolic_result_fields():
    """An unbalanced partition: a non-square coefficient matrix, so rows and columns in the
    history cannot be swapped unseen; timings are durations, within the total."""
    net = LinearSelfAttention(depth=1, width=2, seq_len=3)
    t0 = time.perf_counter()
    m = measure(net, (0,), method="symbolic")
    wall = time.perf_counter() - t0
    rows, cols = m.samples
    assert rows != cols
    assert m.history == [(rows, cols, m.rank)]
    assert m.sample_saturated and m.saturated
    assert 0 <= m.eval_seconds <= m.seconds and 0 <= m.rank_seconds <= m.seconds <= wall


# ---------------------------------------------------------------- labels
def test_given_weights_are_labelled_as_fixed_integers():
    """Random weights count in the entry degree (3**L + 2 (3**L - 1)); given ones do not."""
    net = LinearSelfAttention(depth=2, width=2, seq_len=4)
    w = net.init(np.random.default_rng(5), Symbolic())
    assert "entry degree 25," in measure(net, strategy="graded").saturation_reason
    assert "entry degree 9," in measure(net, weights=w).saturation_reason


def test_interrupted_measurement_keeps_a_labelled_partial(monkeypatch):
    """Ctrl-C in the second step: the first step's result comes back, labelled."""
    real = grid.make_evaluator
    calls = []

    def make_evaluator(*args, **kwargs):
        evaluate = real(*args, **kwargs)

        def interrupted(A_pts, B_pts):
            calls.append(len(A_pts))
            if len(calls) > 1:
                raise KeyboardInterrupt
            return evaluate(A_pts, B_pts)

        return interrupted

    monkeypatch.setattr(grid, "make_evaluator", make_evaluator)
    net = LinearSelfAttention(depth=3, width=2, seq_len=4)
    with pytest.raises(MeasurementInterrupted) as info:
        measure(net, strategy="direct", saturation_threshold=0.5)
    part = info.value.partial
    assert part is not None and part.samples == (16, 16)
    assert part.saturation_threshold == 0.5 and part.saturation_reason


# ---------------------------------------------------------------- certificates
@pytest.mark.parametrize("strategy", ["direct", "graded"])
def test_sample_points_follow_the_certificate_rule(strategy):
    """The sample points are drawn from default_rng([seed, 1]), the rule a certificate
    states: a certificate of the measurement checks."""
    net = LinearSelfAttention(depth=2, width=2, seq_len=4)
    m = measure(net, seed=4, strategy=strategy)
    cert = make_certificate(net, m, None)
    assert cert is not None
    r = check_certificate(cert)
    assert r.ok, r.reasons
