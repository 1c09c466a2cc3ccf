"""The time estimate printed before a run: said only where the model is trusted (the
expected rank is bounded), with the compiled kernel's rate only where the grid uses the
kernel. Its accuracy is measured by experiments/benchmark_estimate.py (no timed test)."""

from seprank import nets
from seprank.engine import estimate
from seprank.engine.measure import plan
from seprank.engine.options import MeasureOptions

A, B = (0, 1), (2, 3)


def _said(net, **options) -> list[str]:
    lines = []
    plan(net, options=MeasureOptions(**options), progress=lines.append)
    return [x for x in lines if x.startswith("estimate")]


def test_an_unbounded_rank_prints_no_estimate():
    """A mixer with no known bound: the model can only assume the sample grows to
    max_samples (the worst case); a one-second run printed "about 37 s expected"."""
    net = nets.LinearAttention(depth=2, width=2, seq_len=4, causal=True)  # declares no form
    est = estimate.estimate(net, A, B, method="modular", max_samples=6000, start=16,
                            fast=True)
    assert est["log10_expected_rank"] is None and not estimate.trusted(est)
    assert est["expected_seconds"] == est["worst_seconds"] > estimate.SAY_SECONDS
    assert _said(net) == []


def test_a_long_run_with_a_bounded_rank_still_prints_its_estimate():
    net = nets.LinearSelfAttention(depth=5, width=2, seq_len=4)
    lines = _said(net, strategy="direct", max_samples=8000)
    assert len(lines) == 1 and "expected" in lines[0] and "max_samples=8000" in lines[0]


def test_check_cost_says_only_a_trusted_estimate_over_the_threshold():
    est = {"log10_expected_rank": 3.0, "expected_seconds": estimate.SAY_SECONDS + 1,
           "first_grid_seconds": 0.0, "worst_seconds": 100.0, "degree": 3, "param_bytes": 0,
           "first_grid_bytes": 0, "points_bytes_at_budget": 0, "max_samples": 6000}
    for lg, secs, want in ((3.0, estimate.SAY_SECONDS + 1, 1), (None, estimate.SAY_SECONDS + 1, 0),
                           (3.0, estimate.SAY_SECONDS - 1, 0)):
        said = []
        figures = {**est, "log10_expected_rank": lg, "expected_seconds": secs}
        estimate.check_cost(estimate.Cost(secs, 0, "the line", figures), 2**40,
                            say=said.append)
        assert said in ([], ["the line"])
        assert len(said) == want, (lg, secs)


def test_the_kernel_rate_only_where_the_grid_runs_the_kernel():
    """``fast`` (a modular run, the kernel allowed) speeds the estimate up only for a
    network the compiled kernel evaluates; another one runs the generic path."""
    lsa = nets.LinearSelfAttention(depth=2, width=2, seq_len=4)
    s6 = nets.S6(depth=2, width=2, seq_len=4)

    def secs(net, fast):
        return estimate.estimate(net, A, B, method="modular", max_samples=6000, start=16,
                                 fast=fast)["worst_seconds"]

    assert secs(lsa, True) < secs(lsa, False)
    assert secs(s6, True) == secs(s6, False)
