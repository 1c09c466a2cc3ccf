"""Capabilities are declared, never inferred from the type: a mixer that declares the
paper network's form gets its fast paths with the same ranks; a subclass with methods of
its own does not inherit them."""

from dataclasses import dataclass

import pytest

from seprank import measure
from seprank.nets import (
    LinearAttention,
    LinearSelfAttention,
    SoftmaxSelfAttention,
    attention_kernel,
)
from seprank.nets.capabilities import CAPABILITIES, capability, inherited_past


def test_the_mixer_declares_the_form_only_where_it_is_the_papers_network():
    assert capability(LinearAttention(depth=2, width=2), "structural_polynomial")() is not None
    for other in (LinearAttention(depth=2, width=2, causal=True),
                  LinearAttention(depth=2, width=2, feature="square")):
        assert capability(other, "structural_polynomial")() is None
        assert capability(other, "kernel")() is None
    assert capability(SoftmaxSelfAttention(depth=1, width=2), "structural_polynomial") is None


def test_a_mixer_that_declares_the_form_gets_the_catalecticant_path_with_the_same_rank():
    mixer = LinearAttention(depth=2, width=2, seq_len=4)
    m = measure(mixer)
    assert m.strategy == "catalecticant" and m.saturated
    grid = measure(mixer, strategy="direct")
    generic = measure(mixer, strategy="graded")
    assert m.rank == grid.rank == generic.rank == measure(
        LinearSelfAttention(depth=2, width=2, seq_len=4)).rank


def test_a_mixer_that_declares_the_kernel_is_evaluated_by_it(monkeypatch):
    """The compiled kernel runs for the mixer's grid (a spy counts its calls), and the rank
    equals the generic evaluation's (use_kernel=False)."""
    if not attention_kernel.available():
        pytest.skip("numba kernel not available")
    from seprank.engine.options import MeasureOptions

    calls, real = [], attention_kernel.grid_modp
    monkeypatch.setattr(attention_kernel, "grid_modp",
                        lambda *a: calls.append(1) or real(*a))
    mixer = LinearAttention(depth=2, width=3, seq_len=4)  # 2 positions a side: a grid
    fast = measure(mixer, strategy="direct")
    assert calls and fast.strategy == "direct"
    calls.clear()
    slow = measure(mixer, options=MeasureOptions(strategy="direct", use_kernel=False))
    assert not calls and slow.rank == fast.rank and fast.saturated


@dataclass(frozen=True)
class Doubled(LinearSelfAttention):
    """Another function (scores doubled at every layer): the paper network's capabilities
    describe its parent, not it."""

    def _scores(self, q, k, domain):
        s = super()._scores(q, k, domain)
        return domain.add(s, s)


@dataclass(frozen=True)
class Same(LinearSelfAttention):
    """The same function under another name: no method of its own."""


@pytest.mark.parametrize("name", sorted(CAPABILITIES))
def test_a_subclass_with_methods_of_its_own_inherits_no_capability(name):
    assert inherited_past(Doubled, name) == "Doubled"
    assert capability(Doubled(depth=1, width=2), name) is None
    if name != "upper_bound":
        assert capability(Same(depth=1, width=2), name) is not None


def test_the_subclass_is_measured_by_the_generic_path():
    net = Doubled(depth=2, width=2, seq_len=4)
    m = measure(net)
    assert m.strategy != "catalecticant"
    assert m.rank == measure(net, strategy="direct").rank


@dataclass(frozen=True)
class Redeclared(LinearSelfAttention):
    """A user's subclass, the same function, re-declaring the paper network's capabilities."""

    def _scores(self, q, k, domain):
        return super()._scores(q, k, domain)

    def kernel(self):
        return super().kernel()

    def structural_polynomial(self):
        return super().structural_polynomial()

    def entry_degree(self, random_weights=True):
        return 1  # far too small: a false saturation bound, were it trusted


@dataclass(frozen=True)
class WronglyDeclared(Doubled):
    """Another function (doubled scores) claiming the paper network's kernel and form."""

    def kernel(self):
        return LinearSelfAttention.kernel(self)

    def structural_polynomial(self):
        return LinearSelfAttention.structural_polynomial(self)


def test_a_users_true_declarations_are_checked_and_earn_the_fast_paths():
    net, ref = Redeclared(depth=2, width=2, seq_len=4), LinearSelfAttention(depth=2, width=2,
                                                                         seq_len=4)
    m = measure(net)
    assert m.strategy == "catalecticant" and m.rank == measure(ref).rank
    grid = measure(Redeclared(depth=2, width=3, seq_len=4), strategy="direct")
    assert grid.rank == measure(LinearSelfAttention(depth=2, width=3, seq_len=4),
                                strategy="direct").rank


def test_a_users_entry_degree_is_not_trusted():
    """A declaration seprank cannot check is not read: the degree is traced."""
    from seprank.engine.saturation import entry_degree, traced_degree

    net = Redeclared(depth=1, width=2, seq_len=4)
    assert entry_degree(net) == traced_degree(net) > 1


def test_a_users_wrong_kernel_or_form_is_refused_naming_it():
    from seprank.errors import ConfigError

    if attention_kernel.available():
        with pytest.raises(ConfigError, match=r"declares kernel\(\), but its grid differs"):
            measure(WronglyDeclared(depth=2, width=3, seq_len=4), strategy="direct")
    with pytest.raises(ConfigError, match=r"declares structural_polynomial\(\), but F\(S\)"):
        measure(WronglyDeclared(depth=2, width=2, seq_len=4))  # auto takes catalecticant
