"""Every label earned for any code, or refused (issue 33): given weights, constants against
the prime, f = 0, the one-row protocol, bounds an architecture states, float labels.

Truth is independent of seprank: f written by hand as an fmpq_mpoly and its coefficient
matrix ranked over Q (tests/_truth.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np
import pytest

import seprank
from seprank import labels
from seprank.errors import ConfigError, DomainError
from tests._truth import inputs, rank_over_q


@dataclass(frozen=True)
class Two:
    """f = a0 x00 x10 + a1 x01 x11 (rank 2 over Q unless a weight is 0)."""

    seq_len: int = 2
    width: int = 2

    def init(self, rng, domain):
        return {"a": domain.random(rng, (2,))}

    def apply(self, params, X, domain):
        a = params["a"]
        return a[0] * X[:, 0, 0] * X[:, 1, 0] + a[1] * X[:, 0, 1] * X[:, 1, 1]


def _two_truth(a0, a1) -> int:
    X, _ = inputs(2, 2)
    a0, a1 = (flint.fmpq(q.numerator, q.denominator) for q in (a0, a1))
    return rank_over_q(a0 * X[0][0] * X[1][0] + a1 * X[0][1] * X[1][1], [0])


@pytest.mark.parametrize("method", ["modular", "symbolic", "float"])
@pytest.mark.parametrize("a", [[0.5, 1.0], [Fraction(1, 3), -2], [0.375, 0]])
def test_given_weights_are_read_exactly_by_every_engine(method, a):
    truth = _two_truth(Fraction(a[0]), Fraction(a[1]))
    m = seprank.measure(Two(), [0], method=method, weights={"a": np.array(a, dtype=object)})
    assert m.rank == truth


@pytest.mark.parametrize("weights, match", [
    ({"a": [float("nan"), 1]}, r"weights\['a'\] holds nan, not a finite float64"),
    ({"a": [1, "x"]}, r"weights\['a'\] holds a str"),
    ({}, r"weights: key 'a' is missing \(expected keys: a\)"),
    ({"a": [1, 2], "b": [1]}, r"weights: key 'b' is not a weight of Two"),
    ({"a": [1, 2, 3]}, r"weights\['a'\]: shape \(3,\) given, \(2,\) expected"),
    ([1, 2], r"weights=list: must be a dict"),
])
def test_bad_weights_are_refused_naming_the_key(weights, match):
    with pytest.raises(ConfigError, match=match):
        seprank.measure(Two(), [0], weights=weights)


@dataclass(frozen=True)
class TimesC:
    """f = C x00 x10 + x01 x11: rank 2 over Q for every C != 0."""

    C: int = 67108859
    seq_len: int = 2
    width: int = 2

    def init(self, rng, domain):
        return {"w": domain.random(rng, (1,))}

    def apply(self, params, X, domain):
        return self.C * X[:, 0, 0] * X[:, 1, 0] + X[:, 0, 1] * X[:, 1, 1]


def test_a_constant_that_is_a_multiple_of_the_prime_is_refused():
    X, _ = inputs(2, 2)
    assert rank_over_q(67108859 * X[0][0] * X[1][0] + X[0][1] * X[1][1], [0]) == 2
    with pytest.raises(DomainError, match="the constant 67108859 is a nonzero multiple of the "
                                          r"prime p=67108859.*another prime"):
        seprank.measure(TimesC(), [0], prime=67108859)
    assert seprank.measure(TimesC(), [0], prime=2147483647).rank == 2
    assert seprank.measure(TimesC(), [0]).rank == 2  # the prime drawn at random
    with pytest.raises(ConfigError, match=r"weights\['a'\]: the constant 101 is a nonzero "
                                          "multiple of the prime p=101"):
        seprank.measure(Two(), [0], prime=101, weights={"a": [101, 1]})
    with pytest.raises(ConfigError, match="denominator divisible by p=101"):
        seprank.measure(Two(), [0], prime=101, weights={"a": [Fraction(1, 101), 1]})


@dataclass(frozen=True)
class Zero:
    seq_len: int = 2
    width: int = 2

    def init(self, rng, domain):
        return {"a": domain.random(rng, (1,))}

    def apply(self, params, X, domain):
        return X[:, 0, 0] * X[:, 1, 0] * 0


@pytest.mark.parametrize("kw", [{}, {"strategy": "direct"}, {"strategy": "graded"},
                                {"method": "symbolic"}, {"method": "float"}])
def test_an_identically_zero_f_measures_zero_in_every_strategy(kw):
    m = seprank.measure(Zero(), [0], **kw)
    assert m.rank == 0 and m.label  # a label, whichever it is


@dataclass(frozen=True)
class MixBatch:
    """X - X.mean(axis=0): a slip for axis=1 that mixes the batch."""

    seq_len: int = 4
    width: int = 2

    def init(self, rng, domain):
        return {"a": domain.random(rng, (1,))}

    def apply(self, params, X, domain):
        Y = X - X.mean(axis=0)
        return (Y[:, 0, 0] * Y[:, 2, 0] + Y[:, 1, 1] * Y[:, 3, 1]) * params["a"][0]


@dataclass(frozen=True)
class SumBatch(MixBatch):
    def apply(self, params, X, domain):
        return X[:, 0, 0] * X[:, 2, 0] + X[:, 1, 1].sum() * X[:, 3, 1]


@pytest.mark.parametrize("cls", [MixBatch, SumBatch])
@pytest.mark.parametrize("method", ["modular", "float", "symbolic"])
def test_apply_mixing_the_batch_axis_is_refused(cls, method):
    with pytest.raises(ConfigError, match=f"{cls.__name__}.apply mixes the batch axis: row "
                                          r"\d of the output changed when other rows"):
        seprank.measure(cls(), [0, 1], method=method)


def test_certify_refuses_a_class_that_mixes_the_batch(tmp_path):
    with pytest.raises(ConfigError, match="mixes the batch axis"):
        seprank.certify(MixBatch(), [0, 1])


@dataclass(frozen=True)
class Claims(Two):
    """Two, with a user's back-of-envelope (and wrong, for claim=1) upper bound."""

    claim: int = 2

    def upper_bound(self, partition):
        from seprank.nets.bound import Bound

        return Bound(self.claim, "my back-of-envelope claim", "architecture")


def test_an_architectures_own_bound_is_never_called_proved():
    m = seprank.measure(Claims(), [0])
    assert m.rank == 2 and m.bound.status == "architecture"
    assert m.label == "exact, given the architecture's stated bound (my back-of-envelope claim)"
    c = seprank.certify(Claims(), [0])
    assert c.status == m.label and "proved" not in c.status
    wrong = seprank.measure(Claims(claim=1), [0])
    assert wrong.label == ("lower bound, above the architecture's stated bound (my "
                           "back-of-envelope claim): that bound is false")


@dataclass(frozen=True)
class ReluMixer:
    """A ReLU token mixer: not a polynomial."""

    seq_len: int = 4
    width: int = 2
    polynomial: bool = False

    def init(self, rng, domain):
        return {"W": domain.random(rng, (4, 4))}

    def apply(self, params, X, domain):
        H = np.maximum(np.einsum("nm,bmc->bnc", params["W"], X), 0)
        return H[:, 0, 0] * H[:, 1, 1] + H[:, 2, 0] * H[:, 3, 1]


def test_a_non_polynomial_is_never_saturated_nor_trusted():
    m = seprank.measure(ReluMixer(), [0, 1], method="auto")
    assert m.method == "float" and not m.saturated and not m.trusted
    assert m.label == labels.NOT_POLYNOMIAL
    assert m.to_dict()["saturated"] is False


def test_a_float_rank_is_never_saturated_only_trusted():
    net = seprank.LinearSelfAttention(depth=1, width=3, seq_len=4)
    m = seprank.measure(net, method="float")
    assert m.trusted and not m.saturated and m.label == "float estimate, trusted"


def test_measure_says_exact_proved_where_the_rank_meets_the_proved_bound():
    out = subprocess.run([sys.executable, "-m", "seprank", "measure", "--depth", "4",
                          "--width", "2", "--seq-len", "4", "--json"],
                         capture_output=True, text=True, check=True)
    d = json.loads(out.stdout)
    assert d["rank"] == 4538 and d["label"] == "exact, proved"
    assert d["bound"]["status"] == "proved" and d["bound"]["upper"] == 4538


@dataclass(frozen=True)
class KeepsRows(MixBatch):
    """MixBatch's function with the slip fixed (axis=1: per row)."""

    def apply(self, params, X, domain):
        Y = X - X.mean(axis=1, keepdims=True)
        return (Y[:, 0, 0] * Y[:, 2, 0] + Y[:, 1, 1] * Y[:, 3, 1]) * params["a"][0]


def test_the_certificate_checker_refuses_code_that_mixes_the_batch():
    cert = seprank.certify(KeepsRows(), [0, 1]).certificate
    assert seprank.check_certificate(cert, cls=KeepsRows).ok
    r = seprank.check_certificate(cert, cls=MixBatch)  # the same config, the slip back in
    assert not r.ok and "mixes the batch axis" in r.reasons[0]


def test_a_certificate_never_calls_a_secondary_source_bound_proved():
    from seprank.nets import ConvACShallow

    c = seprank.certify(ConvACShallow(seq_len=4, in_dim=2, channels=3), (0, 1))
    assert c.status.startswith("exact, given the recalled literature bound (")
    assert "proved" not in c.certificate["claim"] and "recalled" in c.certificate["claim"]
    assert seprank.check_certificate(c.certificate).status == c.status


def test_the_complete_alphabet_grid_with_given_weights_is_not_saturated():
    from seprank.nets import EmbeddedAttention

    net = EmbeddedAttention(vocab=3, embed_rank=2, width=3, depth=1, seq_len=4)
    w = {k: np.asarray(v) for k, v in net.init(np.random.default_rng(0), seprank.ModP()).items()}
    m = seprank.measure(net, weights=w)
    assert m.sampler == "alphabet" and not m.saturated and m.saturation_bound is None
    assert "nothing random" in m.saturation_reason


def test_the_row_check_remembers_an_object_not_an_equal_configuration(monkeypatch):
    from seprank.engine import row_check

    calls = []
    real = row_check._check
    monkeypatch.setattr(row_check, "_check", lambda *a: calls.append(a) or real(*a))
    net = KeepsRows()
    for A in ([0, 1], [0, 2], [1, 3]):
        seprank.measure(net, A)
    assert len(calls) == 1  # one object, three partitions: one check
    seprank.measure(KeepsRows(), [0, 1])  # an equal configuration, another object
    assert len(calls) == 2
    with pytest.raises(ConfigError):
        seprank.measure(MixBatch(), [0, 1])
    with pytest.raises(ConfigError):  # a failure is never remembered
        seprank.measure(MixBatch(), [0, 1])
    assert len(calls) == 4


def test_a_transition_row_earns_exact_proved_only_from_the_recomputed_bound():
    from seprank.studies.transition import row_label

    row = {"width": 2, "heads": 1, "seq_len": 4, "depth": 2, "measured": 18,
           "saturated": "True", "upper_proved": 18}
    assert row_label(row) == "exact, proved"
    forged = dict(row, depth=3, upper_proved=18)  # a file's own word for another config
    assert row_label(forged) == "lower bound, saturated"


def test_a_torch_factory_is_gated_for_subclasses_of_torch_module_too():
    from seprank.nets.registry import file_imports
    from seprank.nets.torch_module import TorchModule

    class MyTorch(TorchModule):
        pass

    config = {"factory": "evil:make"}
    assert ("factory", "evil:make") in file_imports("TorchModule", config, cls=TorchModule)
    assert ("factory", "evil:make") in file_imports("x:MyTorch", config, cls=MyTorch)
