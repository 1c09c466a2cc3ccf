"""seprank.testing.configs_of: configs of any architecture class from its fields."""

import builtins
import importlib
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seprank.errors import ConfigError
from seprank.nets import MPS, LinearSelfAttention
from seprank.testing import configs_of


@settings(max_examples=25, deadline=None)
@given(configs_of(LinearSelfAttention, depth=st.integers(1, 2), width=st.integers(1, 4),
                  heads=st.integers(1, 4), seq_len=4))
def test_invalid_combinations_are_filtered_and_defaults_kept(net):
    assert net.width % net.heads == 0  # heads not dividing width raise ConfigError: dropped
    assert net.seq_len == 4 and net.residual is False and net.query_position == 0


def test_the_strategy_draws_what_it_is_given():
    seen = set()

    @settings(max_examples=40, deadline=None, database=None)
    @given(configs_of(MPS, seq_len=st.integers(2, 3), phys_dim=2, bond=st.sampled_from([1, 2])))
    def collect(net):
        assert isinstance(net, MPS) and net.periodic is False
        seen.add((net.seq_len, net.phys_dim, net.bond))

    collect()
    assert seen <= {(n, 2, b) for n in (2, 3) for b in (1, 2)} and len(seen) >= 3


def test_required_and_unknown_fields_are_named():
    with pytest.raises(ConfigError, match=r"MPS\.bond is required"):
        configs_of(MPS, seq_len=st.integers(2, 3), phys_dim=2)
    with pytest.raises(ConfigError, match="'bonds' is not a field of MPS"):
        configs_of(MPS, seq_len=2, phys_dim=2, bond=1, bonds=2)
    with pytest.raises(ConfigError, match="is not a dataclass"):
        configs_of(int)


def test_without_hypothesis_the_import_fails_with_one_line(monkeypatch):
    real = builtins.__import__

    def no_hypothesis(name, *args, **kw):
        if name == "hypothesis" or name.startswith("hypothesis."):
            raise ImportError(f"No module named {name!r}")
        return real(name, *args, **kw)

    monkeypatch.setattr(builtins, "__import__", no_hypothesis)
    for mod in [m for m in sys.modules if m == "hypothesis" or m.startswith("hypothesis.")]:
        monkeypatch.delitem(sys.modules, mod)
    monkeypatch.delitem(sys.modules, "seprank.testing")
    with pytest.raises(ImportError) as e:
        importlib.import_module("seprank.testing")
    assert str(e.value) == "seprank.testing needs hypothesis: pip install 'seprank[test]'"
