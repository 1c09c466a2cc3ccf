"""The live deprecations, listed once (seprank.registry.DEPRECATIONS): a deprecation added or
retired changes this list, and each one still warns where its old form is read."""

import importlib
from dataclasses import dataclass

import pytest

import seprank
import seprank.cli  # noqa: F401 - registers the CLI's deprecations
from seprank.registry import DEPRECATIONS, Deprecation, deprecated

LIVE = {
    ".known_bound": "0.2.0",
    ".upper_bound returning (bound, source)": "0.2.0",
    "seprank.theory.architecture_bounds.known_bound": "0.2.0",
    "seprank.theory.architecture_bounds.has_known_bound": "0.2.0",
    "--format": "0.2.0",
    "CertificateKind(prepare=...)": "0.2.0",
    "seprank.theory.architecture_bounds.architecture_bound": "0.2.0",
    "Bound[key] (a bound read as the dict seprank.upper_bound returned)": "0.2.0",
    "seprank.theory.bounds.upper_bound": "0.2.0",
    "seprank.engine.strategies.Plan": "0.2.0",
    "seprank.studies.transition.plan": "0.2.0",
}


def test_the_live_deprecations_are_exactly_these():
    assert {d.what: d.since for d in DEPRECATIONS.values()} == LIVE
    assert all(d.since <= seprank.__version__ for d in DEPRECATIONS.values())


def test_a_deprecation_says_what_since_when_and_what_instead():
    d = Deprecation("old", "0.1.0", "use new")
    assert d.message("Cls") == "Clsold is deprecated: use new (since 0.1.0)"
    with pytest.warns(DeprecationWarning, match=r"^old is deprecated: use new \(since 0.1.0\)$"):
        d.warn()


def test_declaring_one_lists_it_until_retired():
    d = deprecated("tmp-name", since="0.2.0", instead="nothing")
    try:
        assert DEPRECATIONS["tmp-name"] is d
    finally:
        DEPRECATIONS.unregister("tmp-name")
    assert "tmp-name" not in DEPRECATIONS


@pytest.mark.parametrize("name", ["known_bound", "has_known_bound"])
def test_the_old_module_names_warn_and_answer(name):
    mod = importlib.import_module("seprank.theory.architecture_bounds")
    with pytest.warns(DeprecationWarning, match=f"architecture_bounds.{name} is deprecated"):
        old = getattr(mod, name)
    assert old is getattr(mod, name.replace("known", "architecture"))


@pytest.mark.parametrize("module, old, new", [
    ("seprank.theory.bounds", "upper_bound", "theorem_bound"),
    ("seprank.theory", "upper_bound", "theorem_bound"),
    ("seprank.engine.strategies", "Plan", "RunInputs"),
    ("seprank.engine.strategies.base", "Plan", "RunInputs"),
    ("seprank.studies.transition", "plan", "networks"),
])
def test_the_renamed_public_names_warn_and_answer(module, old, new):
    """One meaning each: "upper_bound" an architecture's Bound, "plan" the planner's."""
    mod = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated: use "):
        got = getattr(mod, old)
    assert got is getattr(mod, new)
    with pytest.raises(AttributeError):
        mod.no_such_name  # noqa: B018 - the attribute access is what is tested


def test_the_old_method_protocols_warn():
    from seprank.theory.architecture_bounds import bound_of

    @dataclass(frozen=True)
    class Old:
        seq_len: int = 4

        def upper_bound(self, partition):
            return 3, "a note"

    with pytest.warns(DeprecationWarning, match=r"^Old.upper_bound returning \(bound, source\)"):
        assert bound_of(Old(), (0, 1)).value == 3
