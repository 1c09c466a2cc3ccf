"""MeasureOptions (validated once, frozen), plan() (decides, evaluates no grid) and
execute() (runs it): measure() is execute(plan(...))."""

import dataclasses

import pytest

from seprank import measure
from seprank.engine.measure import MeasurementPlan, execute, plan
from seprank.engine.options import MeasureOptions
from seprank.errors import ConfigError
from seprank.nets import LinearSelfAttention

NET = LinearSelfAttention(depth=2, width=2, seq_len=4)


@pytest.mark.parametrize("field, value, message", [
    ("method", "exact", r"^method='exact' must be one of modular, float, symbolic, auto$"),
    ("strategy", "fast", r"^strategy='fast' must be one of"),
    ("sampler", 3, r"^sampler=3 must be one of"),
    ("rank_engine", "gpu", r"^rank_engine='gpu' must be one of"),
    ("device", "tpu", r"^device='tpu' must be one of cpu, cuda$"),
    ("seed", -1, r"^seed=-1 must be an integer in \[0, 2\*\*63-1\]$"),
    ("seed", True, r"^seed=True must be an integer in \[0, 2\*\*63-1\]$"),
    ("max_samples", 2.5, r"^max_samples=2.5 must be an integer in \[2, 10000000\]$"),
    ("max_samples", 1, r"^max_samples=1 must be an integer in \[2, 10000000\]$"),
    ("growth", float("nan"), r"^growth=nan must be a finite number > 1$"),
    ("growth", "2", r"^growth='2' must be a finite number > 1$"),
    ("growth", 1.0, r"^growth=1.0 must be a finite number > 1$"),
    ("tol", -1.0, r"^tol=-1.0 must be a finite number >= 0$"),
    ("tol", True, r"^tol=True must be a finite number >= 0$"),
    ("saturation_threshold", 2, r"^saturation_threshold=2 must be a number in \[0, 1\]$"),
    ("incremental", 2, r"^incremental=2 must be True or False$"),
    ("use_kernel", None, r"^use_kernel=None must be True or False$"),
    ("start", 1, r"^start=1 must be an integer in \[2, 10000000\]$"),
    ("chunk", 0, r"^chunk=0 must be an integer in \[1, 2\*\*63-1\]$"),
])
def test_each_bad_option_is_refused_naming_it(field, value, message):
    with pytest.raises(ConfigError, match=message):
        MeasureOptions(**{field: value})


@pytest.mark.parametrize("field, value", [("max_samples", 2), ("growth", 1.0001), ("tol", 0.0),
                                          ("start", 2), ("chunk", 1), ("seed", 0),
                                          ("saturation_threshold", 0)])
def test_the_limits_themselves_are_accepted(field, value):
    assert getattr(MeasureOptions(**{field: value}), field) == value


def test_numpy_scalars_and_0_1_flags_are_accepted_as_before():
    import numpy as np

    o = MeasureOptions(growth=np.float32(1.5), tol=np.float32(0.1), incremental=0,
                       use_kernel=np.bool_(True), seed=np.int64(3), max_samples=np.int64(40))
    assert o.incremental is False and o.use_kernel is True and o.growth == 1.5
    assert MeasureOptions(incremental=1).incremental is True


def test_options_are_frozen_and_the_user_fields_are_measures_keywords():
    import inspect

    opts = MeasureOptions()
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.method = "float"
    keywords = set(inspect.signature(measure).parameters)
    assert set(MeasureOptions.user_fields()) <= keywords
    assert {"start", "chunk", "use_kernel"} & keywords == set()  # internal knobs: options only


def test_plan_decides_without_measuring_and_execute_runs_it():
    p = plan(NET, options=MeasureOptions(seed=3, strategy="graded"))
    assert isinstance(p, MeasurementPlan) and p.strategy == "graded" and p.method == "modular"
    assert p.sampler == "random" and p.A == (0, 1) and p.B == (2, 3)
    assert "homogeneous" in p.reason and p.estimate.model["strategy"] == "graded"
    assert p.run.engine.name in ("blas", "flint")  # the rank engine, chosen once
    m = execute(p)
    assert m.rank == 18 and m.saturated and m.seed == 3
    assert m.rank == measure(NET, seed=3).rank  # auto: catalecticant, the same rank


def test_plan_of_symbolic_and_float():
    p = plan(LinearSelfAttention(depth=1, width=2, seq_len=2),
             options=MeasureOptions(method="symbolic"))
    assert p.strategy == "coefficients" and p.run is None and execute(p).rank == 3
    p = plan(NET, options=MeasureOptions(method="float"))
    assert p.strategy == "direct" and p.run.engine is None


def test_options_and_keywords_together_are_refused():
    with pytest.raises(ConfigError, match=r"^options= given together with method, seed: set"):
        measure(NET, seed=1, method="float", options=MeasureOptions())
    assert measure(NET, seed=0, options=MeasureOptions(seed=2)).seed == 2  # a default is fine


def test_options_must_be_measure_options():
    with pytest.raises(ConfigError, match=r"^options=\{'seed': 1\} must be a MeasureOptions$"):
        plan(NET, options={"seed": 1})


def test_internal_knobs_reach_the_run():
    m = measure(NET, options=MeasureOptions(start=8, chunk=7, use_kernel=False,
                                            strategy="direct"))
    assert m.history[0][:2] == (8, 8) and m.rank == 18


def test_plan_repr_shows_the_decisions_not_the_state():
    text = repr(plan(NET, options=MeasureOptions(strategy="graded")))
    assert "strategy='graded'" in text and "reason=" in text and "estimate=" in text
    assert "run=" not in text and "t_start" not in text and "homogeneity=" not in text


def test_sample_points_come_from_the_certificate_rule_generator():
    """Certificates state that the sample points are drawn from default_rng([seed, 1]);
    a certificate check cannot see another generator (generic points keep every minor
    nonsingular), so the plan's generator is compared directly."""
    import numpy as np

    for seed in (0, 4):
        run = plan(NET, options=MeasureOptions(seed=seed)).run
        want = np.random.default_rng([seed, 1]).bit_generator.state
        assert run.pts_rng.bit_generator.state == want and run.draws == []


def test_homogeneity_probes_have_their_own_stream(monkeypatch):
    """The probes draw from default_rng([seed, 2]), not from the points' stream."""
    import numpy as np

    from seprank.engine.strategies import registry

    seen, real = [], registry.homogeneity

    def spy(net, params, domain, rng):
        seen.append(rng.bit_generator.state)
        return real(net, params, domain, rng)

    monkeypatch.setattr(registry, "homogeneity", spy)
    graded = LinearSelfAttention(depth=2, width=3, seq_len=4)  # 2 positions a side: graded
    assert plan(graded, options=MeasureOptions(seed=5)).strategy == "graded"
    assert seen == [np.random.default_rng([5, 2]).bit_generator.state]
