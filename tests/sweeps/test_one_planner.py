"""A sweep and `seprank measure` plan one network identically: one planner.

For every configuration of `seprank verify --quick` the sweep's task is planned
(seprank.sweeps.tasks.plan) and the same network is planned as `seprank measure` plans it
(its own argument parsing and options: seprank.cli.measure.options_from_args); strategy,
prime, budget, method and sampler agree. Also for measure tasks with the prime left to
the planner, where the catalecticant strategy takes its fast prime."""

import pytest

from seprank.cli import _build_parser
from seprank.cli.measure import options_from_args
from seprank.engine.planner import plan
from seprank.nets import LinearSelfAttention
from seprank.studies.verify import _grid_file, configs
from seprank.sweeps.tasks import plan as plan_task
from seprank.sweeps.tasks import spec_for_net

NETS, _ = configs("quick")
BUDGET = _grid_file("quick")["grid"]["max_samples"]


def _cli_plan(net, *flags):
    args = ["measure", "--arch", "attention"]
    for key in ("depth", "width", "heads", "seq_len", "residual"):
        args += ["--param", f"{key}={int(getattr(net, key))}"]
    parsed = _build_parser().parse_args(args + list(flags))
    return plan(net, parsed.partition, options_from_args(parsed)).summary()


@pytest.mark.parametrize("net", NETS, ids=lambda n: f"L{n.depth}d{n.width}H{n.heads}"
                         f"N{n.seq_len}{'r' if n.residual else ''}")
def test_verify_quick_tasks_are_planned_as_seprank_measure_plans_them(net):
    spec = plan_task(spec_for_net("verify", net, seed=0, max_samples=BUDGET))
    assert spec["plan"] == _cli_plan(net, "--max-samples", str(BUDGET))


def test_verify_quick_covers_every_grid_strategy():
    """The comparison above is not vacuous: the quick grid's plans take more than one
    strategy, and the budgets differ with them."""
    plans = [plan_task(spec_for_net("verify", n, seed=0, max_samples=BUDGET))["plan"]
             for n in NETS]
    assert {"catalecticant", "graded", "direct"} <= {p["strategy"] for p in plans}


def test_a_measure_task_gets_the_prime_seprank_measure_picks(monkeypatch):
    """The prime left to the planner: a large-block catalecticant plan takes its fast prime,
    in the sweep as in `seprank measure` (it was the default prime in sweeps before)."""
    from seprank.engine.strategies import catalecticant_sizes

    monkeypatch.setattr(catalecticant_sizes, "FAST_FROM", 2)  # small blocks count as large
    net = LinearSelfAttention(depth=2, width=2, seq_len=4)
    spec = plan_task(spec_for_net("measure", net))
    assert spec["plan"]["prime"] == catalecticant_sizes.FAST_PRIME
    assert spec["plan"] == _cli_plan(net)


def test_a_task_the_planner_refuses_as_too_big_is_stored_refused(tmp_path):
    """Planning now runs the planner, whose cost check refuses what cannot finish: the task
    is stored "refused" (as a worker stores it), not "failed", and never run."""
    from seprank.sweeps.runner import run
    from seprank.sweeps.store import Store
    from seprank.sweeps.tasks import make_spec

    big = make_spec("measure", "attention", {"depth": 9, "width": 4, "seq_len": 6})
    with Store(tmp_path / "r.sqlite") as store:
        o = run([big], store, executor="serial", progress=False, say=lambda m: None)
        row = store.get(big["key"])
    assert (o.refused, o.failed, o.done) == (1, 0, 0)
    assert row["status"] == "refused" and row["error"].startswith("refused: ")
