"""seprank.registry.Registry: the one shape of the four registries (strategies, rank engines,
certificate kinds, architectures), and its one message form."""

import pytest

from seprank.algebra.rank_engines.base import ENGINES
from seprank.engine.strategies.registry import REGISTRY as STRATEGIES
from seprank.errors import ConfigError
from seprank.nets.registry import ARCHITECTURES
from seprank.registry import Registry
from seprank.verdicts.kinds import KINDS


class Thing:
    def __init__(self, name):
        self.name = name


@pytest.fixture
def reg():
    return Registry("thing", Thing, listed=("auto",))


def test_the_four_registries_are_one_shape():
    for r, what in ((STRATEGIES, "strategy"), (ENGINES, "rank_engine"), (KINDS, "kind"),
                    (ARCHITECTURES, "arch")):
        assert isinstance(r, Registry) and r.what == what and len(r.names(plugins=False)) >= 2
        with pytest.raises(ConfigError, match=rf"^{what}='nope' must be one of "):
            r.get("nope")


def test_register_get_names_unregister(reg):
    a = reg.register(Thing("a"))
    assert reg.get("a") is a and reg["a"] is a and "a" in reg and reg.names() == ("a",)
    assert reg.register(a) is a  # the same object again: allowed
    assert reg.get("b", None) is None
    assert reg.unregister("a") is a and reg.unregister("a") is None and len(reg) == 0


@pytest.mark.parametrize("obj, match", [
    ("a", r"^thing='a' must be a Thing instance$"),
    (Thing(""), r"^thing='' must be a name other than '' or 'auto'$"),
    (Thing("auto"), r"^thing='auto' must be a name other than '' or 'auto'$"),
])
def test_refusals_in_one_form(reg, obj, match):
    with pytest.raises(ConfigError, match=match):
        reg.register(obj)


def test_a_taken_name_is_refused_unless_replaced(reg):
    reg.register(Thing("a"))
    with pytest.raises(ConfigError, match=r"^thing='a' is registered already \(Thing\)$"):
        reg.register(Thing("a"))
    b = reg.register(Thing("a"), replace=True)
    assert reg["a"] is b
    with pytest.raises(ConfigError, match=r"^thing='x' must be one of auto, a$"):
        reg.get("x")


def test_entry_points_load_once_and_a_broken_one_is_skipped(monkeypatch):
    import seprank.registry

    class EP:
        def __init__(self, name, obj=None):
            self.name, self.value, self.obj = name, f"pkg:{name}", obj

        def load(self):
            if self.obj is None:
                raise ImportError(f"no module named {self.name}")
            return self.obj

    eps = [EP("good", Thing("good")), EP("broken")]
    monkeypatch.setattr(seprank.registry.metadata, "entry_points",
                        lambda group: eps if group == "g" else [])
    reg = Registry("thing", Thing, group="g")
    with pytest.warns(UserWarning, match="thing entry point 'broken' \\(g\\) skipped: no module"):
        assert reg.names() == ("good",)
    eps.append(EP("late", Thing("late")))
    assert reg.names() == ("good",)  # once
    lazy = Registry("thing", Thing, group="g", autoload=False)
    assert lazy.names() == () and lazy.entry_point("late").name == "late"
    with pytest.raises(ConfigError, match="^thing='broken': its entry point 'pkg:broken' cannot"):
        lazy.entry_point("broken")
