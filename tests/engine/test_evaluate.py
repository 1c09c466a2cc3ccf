"""User code in ``apply``: plain numpy gets exact ranks; code that leaves the field is refused.

The three wrong results of the issue tracker (plain numpy operators certified at rank 6000
instead of 4; a torch module in apply "saturated" at rank 1; ``0.5 * sum(X)`` at 3 instead
of 2) each get the right rank or a DomainError saying what happened.
"""

from dataclasses import dataclass

import numpy as np
import pytest

import seprank
from seprank.algebra.domains import ModP
from seprank.engine.evaluate import evaluate
from seprank.errors import DomainError


@dataclass(frozen=True)
class NumpySumProduct:
    """f = <w_1, s> <w_2, s>, s the sum of the inputs: plain numpy, rank 4 for width 2."""

    seq_len: int = 4
    width: int = 2

    def init(self, rng, domain):
        return {"W": domain.random(rng, (2, self.width))}

    def apply(self, params, X, domain):
        r = X.sum(axis=1) @ params["W"].T
        return r[:, 0] * r[:, 1]


@dataclass(frozen=True)
class HalfSum:
    """f = 0.5 * (the sum of every input): linear, rank 2."""

    seq_len: int = 4
    width: int = 2

    def init(self, rng, domain):
        return {}

    def apply(self, params, X, domain):
        return 0.5 * sum(X[:, n].sum(axis=1) for n in range(self.seq_len))


@dataclass(frozen=True)
class TorchInside:
    """A torch layer called inside apply (its arithmetic is int64 or float, not GF(p))."""

    seq_len: int = 4
    width: int = 2

    def init(self, rng, domain):
        return {"W": domain.random(rng, (self.width, self.width))}

    def apply(self, params, X, domain):
        torch = pytest.importorskip("torch")
        x = torch.as_tensor(np.asarray(X)).sum(dim=1)
        y = x @ torch.as_tensor(np.asarray(params["W"]))
        return (y[:, 0] * y[:, 1]).numpy()


@dataclass(frozen=True)
class FloatCast(NumpySumProduct):
    def apply(self, params, X, domain):
        return np.asarray(super().apply(params, X, domain), dtype=float)


@pytest.mark.parametrize("method", ["modular", "float", "symbolic"])
def test_plain_numpy_gets_the_true_rank_in_every_engine(method):
    m = seprank.measure(NumpySumProduct(), (0, 1), method=method)
    # a float rank is never saturated: trusted at best (labels.md)
    assert m.rank == 4 and (m.trusted and not m.saturated if method == "float" else m.saturated)


@pytest.mark.parametrize("method", ["modular", "float", "symbolic"])
def test_a_rational_constant_is_exact(method):
    m = seprank.measure(HalfSum(), (0, 2), method=method)
    assert m.rank == 2 and (m.trusted and not m.saturated if method == "float" else m.saturated)


@pytest.mark.parametrize("net, said", [(TorchInside(), "numpy array of dtype int64"),
                                       (FloatCast(), "numpy array of dtype float64")])
def test_code_that_leaves_the_field_is_refused_saying_what_apply_returned(net, said):
    with pytest.raises(DomainError, match=f"apply returned a {said}"):
        seprank.measure(net, (0, 1), method="modular")


@pytest.mark.parametrize("shape, ok", [((5,), True), ((5, 1), True), ((5, 2), False),
                                       ((1, 5), False), ((5, 1, 1), False)])
def test_the_output_shape_is_checked(shape, ok):
    @dataclass(frozen=True)
    class Shaped(NumpySumProduct):
        def apply(self, params, X, domain):
            return np.broadcast_to(super().apply(params, X, domain)[:1], shape).copy()

    X = np.ones((5, 4, 2), dtype=np.int64)
    params = Shaped().init(np.random.default_rng(0), ModP(7))
    if ok:
        assert evaluate(Shaped(), params, X, ModP(7)).shape == (5,)
    else:
        with pytest.raises(DomainError, match=r"of shape \(5,\) or \(5, 1\)"):
            evaluate(Shaped(), params, X, ModP(7))


def test_an_exp_in_apply_is_refused_by_the_exact_engine_naming_it():
    @dataclass(frozen=True)
    class Exp(NumpySumProduct):
        def apply(self, params, X, domain):
            return np.exp(super().apply(params, X, domain))

    with pytest.raises(DomainError, match="numpy.exp"):
        seprank.measure(Exp(), (0, 1), method="modular")


@dataclass(frozen=True)
class Escapes(NumpySumProduct):
    """Products computed on np.asarray(X) in int64 (they overflow), returned via constant."""

    def apply(self, params, X, domain):
        x = np.asarray(X).sum(axis=1)
        return domain.constant((x[:, 0] * x[:, 1] * x[:, 0]) % 7919)


@dataclass(frozen=True)
class Buffer(NumpySumProduct):
    """A preallocated numpy buffer filled with products: int64, not GF(p)."""

    def apply(self, params, X, domain):
        H = np.zeros((len(X), self.seq_len), dtype=np.int64)
        for n in range(self.seq_len):
            H[:, n] = np.asarray(X[:, n, 0] * X[:, n, 1])
        return np.prod(domain.wrap(H) if domain.exact_array else H, axis=1)


@pytest.mark.parametrize("net", [Escapes(), Buffer()])
def test_arithmetic_outside_the_field_arrays_is_caught_by_the_line_check(net):
    with pytest.raises(DomainError, match="not a polynomial of degree"):
        seprank.measure(net, (0, 1), method="modular")


def test_the_line_check_passes_a_right_computation_and_skips_the_zoo(monkeypatch):
    from seprank.engine import line_check
    from seprank.nets import MPS

    assert line_check.check_arithmetic(NumpySumProduct(), ModP(), 0) == 4  # 2 weights + 2
    assert not line_check.needs_check(MPS(seq_len=4, phys_dim=2, bond=2))
    assert line_check.needs_check(NumpySumProduct())


def test_numpys_own_errors_on_polynomials_are_a_seprank_error():
    @dataclass(frozen=True)
    class Inverts:
        seq_len: int = 2
        width: int = 2

        def init(self, rng, domain):
            return {"w": domain.random(rng, (2, 2))}

        def apply(self, params, X, domain):
            return np.linalg.inv(X)[:, 0, 0]

    with pytest.raises(DomainError, match="does not run on polynomials .*UFuncTypeError"):
        seprank.measure(Inverts(), [0], method="symbolic")
