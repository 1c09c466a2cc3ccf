"""Every label true: saturation needs a small Schwartz-Zippel bound, float needs a
trustworthy spectrum, bounds refuse networks no theorem covers, templates stop on
distinct rows and a plateau."""

import json
import re

import numpy as np
import pytest

from seprank import measure
from seprank.cli import main
from seprank.engine.saturation import entry_degree
from seprank.errors import ConfigError
from seprank.nets import LinearSelfAttention, SoftmaxSelfAttention
from seprank.theory.bounds import theorem_bound

NET = LinearSelfAttention(depth=3, width=2, seq_len=4)


def test_small_prime_is_not_saturated(capsys):
    # 83: the smallest kind the CLI accepts here (p > e = 79, the entry degree: issue 24),
    # still far too small for the Schwartz-Zippel bound to reach the threshold
    assert main(["measure", "--depth", "3", "--width", "2", "--seq-len", "4", "--prime", "83",
                 "--json", "--quiet"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["saturated"] is False and d["sample_saturated"] is True
    assert d["rank"] <= 232 and d["saturation_bound"] > 1e-2
    assert "Schwartz-Zippel" in d["saturation_reason"] and "threshold" in d["saturation_reason"]


def test_default_prime_is_saturated_on_a_probability_ground():
    m = measure(NET, strategy="graded")
    assert m.rank == 232 and m.saturated and 0 < m.saturation_bound <= 1e-2
    assert m.saturation_reason.startswith("probability bound")
    assert f"over GF({m.prime})" in m.saturation_reason  # the field the bound is about
    m = measure(NET, strategy="graded", saturation_threshold=1e-9)  # the user's threshold
    assert not m.saturated and m.sample_saturated and m.rank == 232
    with pytest.raises(ConfigError):
        measure(NET, saturation_threshold=2)


def test_bound_is_the_degree_argument():
    assert entry_degree(LinearSelfAttention(depth=1, width=2)) == 7  # 3 + 2*(3-1)
    assert entry_degree(NET) == 27 + 52 == 3**4 - 2
    assert entry_degree(NET, random_weights=False) == 27
    m = measure(LinearSelfAttention(depth=1, width=3, seq_len=4), strategy="direct")
    steps = sum(min(r, c) for r, c, _ in m.history)
    assert m.saturation_bound == pytest.approx(steps * 7 / m.prime)


def test_confirm_combines_independent_runs(capsys):
    assert main(["measure", "--depth", "2", "--width", "2", "--seq-len", "4", "--confirm", "2",
                 "--json", "--quiet"]) == 0
    d = json.loads(capsys.readouterr().out)
    c = d["confirm"]
    assert len(c["runs"]) == 2 and len({r["prime"] for r in c["runs"]}) == 2
    assert len({r["seed"] for r in c["runs"]}) == 2 and c["max_rank"] == d["rank"] == 18
    assert c["combined_bound"] == pytest.approx(np.prod([r["saturation_bound"]
                                                         for r in c["runs"]]))
    assert c["saturated"]


def test_float_never_says_saturated_or_trusted_unless_trustworthy(capsys):
    assert main(["measure", "--depth", "3", "--width", "2", "--seq-len", "4", "--method",
                 "float"]) == 0
    cap = capsys.readouterr()
    out = cap.out + cap.err  # the progress lines (stderr) included
    # the float rank itself (22 with numpy 2.4.6's LAPACK) depends on round-off: only its
    # label is asserted, and that it falls short of the exact rank 232
    assert "untrusted" in out and "saturated" not in out
    assert not re.search(r"(?<!un)trusted", out)
    m = measure(NET, method="float")
    assert not m.saturated and m.saturation_reason.startswith("untrusted") and m.rank < 232
    assert re.search(rf"rank {m.rank}\b", cap.err)


def test_theorem_bound_refuses_softmax():
    net = SoftmaxSelfAttention(depth=1, width=2, seq_len=4)
    with pytest.raises(ConfigError, match="no proved upper bound"):
        theorem_bound(net)
    assert main(["bounds", "--depth", "1", "--width", "2", "--seq-len", "4", "--softmax"]) == 2
    assert main(["bounds", "--arch", "softmax-attention", "--param", "depth=2",
                 "--param", "width=2", "--param", "seq_len=4"]) == 2


def test_templates_stop_on_distinct_rows():
    from seprank.algebra.domains import ModP
    from seprank.algebra.rank import rank_modp
    from seprank.engine import sample_grid as grid
    from seprank.engine.strategies.direct import templates_saturated

    net, dom = LinearSelfAttention(depth=2, width=2, seq_len=4), ModP(67108859)
    params = net.init(np.random.default_rng(0), dom)
    T = dom.random(np.random.default_rng(5), (4, 2))
    pts = grid.template_points(T, 2)
    F = grid.evaluate_grid(net, params, dom, pts, pts, (1, 2), (0, 3))
    r = rank_modp(F, dom.p)
    # positions 1 and 2 play symmetric roles: 10 distinct rows of 16; rank 10 < 16
    assert r == np.unique(F, axis=0).shape[0] == 10 < min(F.shape)
    # yesterday's rule (rank < sample, same rank as the step before) would stop here
    assert r < min(F.shape) and not templates_saturated(F, r, [(9, 9, 10), (16, 16, 10)])
    assert measure(net, (1, 2)).rank == 18 > r
    m = measure(net, (1, 2), sampler="templates")
    assert m.rank == 18 and not m.saturated and "templates" in m.saturation_reason


def test_bounds_states_the_threshold_free_crossover(capsys):
    import math

    assert main(["bounds", "--depth", "2", "--width", "3", "--seq-len", "6", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["crossover_depth"] == pytest.approx(math.log(13, 3))
    # the study's vocabulary: read against the degree and linear laws, no arbitrary threshold
    assert "two laws" in d["regime_bound_growth_basis"]
    assert "midpoint" in d["regime_bound_growth_basis"]
    assert d["regime_bound_growth"] == "depth-inefficient"  # 2 -> 3 at d = 3: past L = 2.33


def test_confirm_auto_runs_only_as_many_as_the_bound_needs(capsys):
    """--confirm auto: an exact first run is left alone; a run that is neither exact nor
    saturated gets as many more runs as its bound says the product needs, independent
    seeds and primes, the combined bound their product."""
    from seprank.engine.confirm import runs_needed

    assert main(["measure", "--depth", "2", "--width", "2", "--seq-len", "4", "--confirm",
                 "auto", "--json", "--quiet"]) == 0
    c = json.loads(capsys.readouterr().out)["confirm"]
    assert len(c["runs"]) == 1 and "nothing to confirm" in c["reason"] and c["auto"]
    assert main(["measure", "--depth", "3", "--width", "2", "--heads", "2", "--seq-len", "4",
                 "--confirm", "auto", "--saturation-threshold", "1e-12", "--json",
                 "--quiet"]) == 0
    d = json.loads(capsys.readouterr().out)
    c, runs = d["confirm"], d["confirm"]["runs"]
    assert d["label"] == "lower bound, not saturated"  # one run cannot say saturated here
    first = runs[0]["saturation_bound"]
    assert len(runs) == runs_needed(first, 1e-12) > 1
    assert len({r["prime"] for r in runs}) == len({r["seed"] for r in runs}) == len(runs)
    assert c["saturated"] and c["combined_bound"] == pytest.approx(
        np.prod([r["saturation_bound"] for r in runs])) and c["combined_bound"] <= 1e-12


def test_confirm_auto_says_why_it_makes_no_run_where_none_would_do():
    """A prime so small that one run's bound is 1: no number of runs brings the product
    under the threshold, so none is made, and the summary says so (a larger prime)."""
    from seprank.engine.confirm import confirm

    net = LinearSelfAttention(depth=3, width=2, heads=2, seq_len=4)
    m, c = confirm(net, k="auto", prime=1009, strategy="graded")
    assert len(c["runs"]) == 1 and not c["saturated"]
    assert "no confirmation run made" in c["reason"] and "larger prime" in c["reason"]


@pytest.mark.parametrize("bound, thr, k", [(0.5, 0.01, 7), (1e-3, 1e-2, 1), (0.1, 0.02, 2),
                                           (0.1, 0.01, 3), (1.0, 0.01, None),
                                           (None, 0.01, None)])
def test_runs_needed(bound, thr, k):
    from seprank.engine.confirm import runs_needed

    assert runs_needed(bound, thr) == k
    if k:
        assert bound**k <= thr and (k == 1 or bound ** (k - 1) > thr)


def test_confirm_refuses_a_bad_count_in_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["measure", "--depth", "2", "--width", "2", "--confirm", "often"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--confirm" in err[0] and "auto" in err[0]
