"""One bound per architecture: seprank.upper_bound, seprank bounds and certify agree."""

import json
import warnings
from dataclasses import dataclass

import pytest
from _user_module import install

import seprank
from seprank.cli import main
from seprank.errors import ConfigError
from seprank.nets import MPS, ConvACShallow, EmbeddedAttention, LinearSelfAttention
from seprank.nets.registry import resolve
from seprank.theory import bounds
from seprank.theory.architecture_bounds import (
    architecture_bound,
    bound_of,
    embedded_attention_bound,
    has_architecture_bound,
)


def test_each_kind_of_architecture_is_answered_by_the_one_function():
    att = LinearSelfAttention(depth=2, width=2, seq_len=4)
    assert bound_of(att, (0, 1)).value == bounds.theorem_bound(att, (0, 1))["upper"]
    assert bound_of(att, (0, 1)).source == bounds.theorem_bound(att, (0, 1))["why"]
    emb = EmbeddedAttention(depth=1, width=3, seq_len=4, vocab=3, embed_rank=2)
    assert bound_of(emb, (0, 1)).as_dict() == embedded_attention_bound(emb, (0, 1))
    mps = MPS(seq_len=6, phys_dim=2, bond=2)
    assert bound_of(mps, (0, 2, 4)) == mps.upper_bound((0, 2, 4))
    conv = ConvACShallow(seq_len=4, in_dim=2, channels=3)
    assert bound_of(conv).value == conv.upper_bound((0, 1)).value  # default A
    assert bound_of(seprank.SoftmaxSelfAttention(1, 2, 1, 4)) is None
    assert not has_architecture_bound(seprank.SoftmaxSelfAttention(1, 2, 1, 4))


def test_the_dict_forms_are_deprecated_and_still_answer():
    mps = MPS(seq_len=6, phys_dim=2, bond=2)
    with pytest.warns(DeprecationWarning, match="architecture_bound is deprecated"):
        assert architecture_bound(mps, (0, 2, 4)) == bound_of(mps, (0, 2, 4)).as_dict()
    b = seprank.upper_bound(LinearSelfAttention(depth=2, width=2, seq_len=4))
    with pytest.warns(DeprecationWarning, match=r"^Bound\[key\] .* is deprecated"):
        assert (b["upper"], b["source"], b["status"]) == (b.value, b.source, "proved")
    with pytest.warns(DeprecationWarning):
        assert b.get("log10_upper") == b.fact("log10_upper") and "which" in b
    with pytest.warns(DeprecationWarning):
        assert dict(b) == {**b.as_dict(), "status": "proved"}


def test_a_users_upper_bound_method(tmp_path, monkeypatch):
    install(tmp_path, monkeypatch)
    net = resolve("mymod:MyNet")(seq_len=4, terms=3)
    b = bound_of(net, (0, 1))
    assert (b.value, b.source) == (3, "CP rank R: a sum of R products")
    assert bound_of(resolve("mymod:MyPlain")(seq_len=4)) is None


@pytest.mark.parametrize("returned, words", [
    (7, "expected (bound, source)"), ((2.5, "x"), "bound=2.5 must be a non-negative int"),
    ((-1, "x"), "bound=-1"), ((True, "x"), "bound=True"), ((3, ""), "source=''"),
])
def test_a_malformed_user_bound_is_refused(returned, words):
    @dataclass(frozen=True)
    class Net:
        seq_len: int = 2

        def init(self, rng, domain): ...

        def apply(self, params, X, domain): ...

        def upper_bound(self, partition):
            return returned

    with pytest.raises(ConfigError) as e, warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the deprecated tuple form
        bound_of(Net())
    assert words in str(e.value)


def test_public_upper_bound_answers_for_any_architecture_or_refuses():
    mps = MPS(seq_len=6, phys_dim=2, bond=2)
    assert seprank.upper_bound(mps, (0, 2, 4)).value == 8
    assert seprank.upper_bound(LinearSelfAttention(1, 2, 1, 2)).value == 3
    with pytest.raises(ConfigError, match="no proved upper bound in seprank"):
        seprank.upper_bound(seprank.SoftmaxSelfAttention(1, 2, 1, 4))


def test_bounds_cli_and_the_api_agree(tmp_path, monkeypatch, capsys):
    install(tmp_path, monkeypatch)
    for arch, params, A in [("mps", ["seq_len=6", "phys_dim=2", "bond=2"], (0, 2, 4)),
                            ("mymod:MyNet", ["seq_len=4", "terms=3"], (0, 1))]:
        argv = ["bounds", "--arch", arch, "--partition", ",".join(map(str, A)), "--json"]
        assert main(argv + [x for p in params for x in ("--param", p)]) == 0
        d = json.loads(capsys.readouterr().out)
        net = resolve(arch)(**{k: int(v) for k, v in (p.split("=") for p in params)})
        api = seprank.upper_bound(net, A)
        assert (d["upper"], d["source"]) == (api.value, api.source)
