"""The strategy registry: a strategy is one registered object; the planner asks each in
order, records why each was or was not taken, and a plugin's strategy (an entry point)
is planned and run like a shipped one."""

from dataclasses import replace

import pytest

import seprank.registry
from seprank import measure
from seprank.engine import planner, strategies
from seprank.engine.strategies import registry
from seprank.engine.strategies.direct import run as run_direct
from seprank.errors import ConfigError
from seprank.nets import LinearSelfAttention

NET = LinearSelfAttention(depth=1, width=2, seq_len=4)


class Toy(strategies.Strategy):
    """The direct loop under another name, taken first by auto where width == 2."""

    name = "toy"
    order = 15  # after coefficients, before the others

    def applies(self, req):
        return None if req.net.width == 2 and req.method == "modular" else "needs width 2"

    def run(self, mp):
        return replace(run_direct(mp.run, mp.reason), strategy=self.name)


@pytest.fixture
def toy():
    strategies.register(Toy())
    yield
    registry.unregister("toy")


def test_every_shipped_strategy_is_registered_in_order():
    assert strategies.names()[:1] == ("auto",)
    shipped = ["coefficients", "catalecticant", "graded", "direct"]
    assert [n for n in strategies.names() if n in shipped] == shipped
    for s in strategies.ordered():
        assert strategies.get(s.name) is s


def test_a_registered_strategy_is_taken_by_auto_and_recorded(toy):
    m = measure(NET)
    assert m.strategy == "toy" and m.rank == measure(NET, strategy="direct").rank
    assert m.considered[0] == ["coefficients", "needs method='symbolic' (got method='modular')"]
    assert ["toy", None] in m.considered
    assert all(why.startswith("not asked: toy") for name, why in m.considered
               if name in ("catalecticant", "graded", "direct"))
    other = measure(LinearSelfAttention(depth=1, width=3, seq_len=6))
    assert other.strategy != "toy" and ["toy", "needs width 2"] in other.considered


def test_a_requested_strategy_that_does_not_apply_is_refused_naming_why(toy):
    with pytest.raises(ConfigError, match="strategy='toy' needs width 2"):
        measure(LinearSelfAttention(depth=1, width=3, seq_len=4), strategy="toy")


def test_unknown_and_duplicate_names_are_refused(toy):
    with pytest.raises(ConfigError, match="strategy='nope' must be one of auto, "):
        strategies.get("nope")
    with pytest.raises(ConfigError, match="registered already"):
        strategies.register(Toy())
    with pytest.raises(ConfigError, match=r"^strategy=<object object at .*> must be a Strategy "
                                          "instance$"):
        strategies.register(object())


def test_an_entry_point_strategy_is_loaded_on_first_use(monkeypatch):
    class EntryPoint:
        name = "toy"

        def load(self):
            return Toy()

    class Broken:
        name = "broken"

        def load(self):
            raise ImportError("no module named broken_plugin")

    wanted = registry.ENTRY_POINT_GROUP
    monkeypatch.setattr(seprank.registry.metadata, "entry_points",
                        lambda group: [EntryPoint(), Broken()] if group == wanted else [])
    registry.REGISTRY.reload_entry_points()
    try:
        with pytest.warns(UserWarning, match="'broken'.*skipped: no module named"):
            assert "toy" in strategies.names()
        assert measure(NET, strategy="toy").strategy == "toy"
    finally:
        registry.unregister("toy")


def test_the_plan_says_what_decides_the_result():
    mp = planner.plan(NET)
    assert mp.summary() == {"strategy": mp.strategy, "prime": 67108859,
                            "max_samples": 6000, "method": "modular", "sampler": "random"}
