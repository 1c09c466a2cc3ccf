"""The torch interpreter's operations of issue 40, its words for what it cannot compute,
frozen parameters, optional forward arguments and train mode.

Every module is accepted only if the trace-time check finds seprank's float64
interpretation equal to eager torch (seprank.nets.torch_check); the ranks asserted here
are checked against flint expansions (tests/_truth.py) where one is written.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import seprank  # noqa: E402
from seprank import labels  # noqa: E402
from seprank.errors import ConfigError  # noqa: E402
from tests._truth import inputs, rank_over_q  # noqa: E402

N, D = 4, 2


class _Lin(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(D, D, bias=False)


class WhereConst(_Lin):
    def __init__(self):
        super().__init__()
        self.register_buffer("m", torch.tril(torch.ones(N, N)) > 0)

    def forward(self, x):
        a = self.l(x) @ x.transpose(1, 2)
        return torch.where(self.m, a, torch.zeros_like(a)) @ x


class DivConst(_Lin):
    def __init__(self):
        super().__init__()
        self.register_buffer("c", torch.tensor([3.0, 0.1]))

    def forward(self, x):
        return (self.l(x) / self.c) * x / 7


class BatchNormEval(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(D, D)
        self.bn = nn.BatchNorm1d(N)
        self.bn.running_mean.fill_(0.5)
        self.bn.running_var.fill_(2.0)

    def forward(self, x):
        return self.bn(self.l(x)) * x


class Fills(_Lin):
    def forward(self, x):
        y = self.l(x)
        h = y.new_zeros(y.shape[0], N, D) + torch.ones_like(y) + y.new_ones(y.shape) * 2
        return (y + h) * torch.full_like(y, 0.5) * x + y.new_full((N, D), 3.0)


class Reductions(_Lin):
    def forward(self, x):
        y = self.l(x)
        return (torch.cumprod(y, dim=1) + y.prod(dim=-1, keepdim=True)
                + y.var(dim=1, keepdim=True) + torch.diff(y, dim=1, prepend=y[:, :1]))


class Grouped(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv1d(D, 2 * D, 3, groups=D, padding=1)

    def forward(self, x):
        y = self.c(x.transpose(1, 2)).transpose(1, 2)
        return y[..., :D] * y[..., D:] + torch.nn.functional.conv1d(
            x.transpose(1, 2), self.c.weight, groups=D, padding=1).transpose(1, 2)[..., :D]


class Bil(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = nn.Bilinear(D, D, D)

    def forward(self, x):
        return self.b(x, x.flip(1))


class Contractions(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(D, D))

    def forward(self, x):
        a = torch.tensordot(x, self.w, dims=([2], [0]))
        b = torch.baddbmm(a, x, self.w.expand(x.shape[0], D, D), beta=2, alpha=0.5)
        return torch.addcmul(b, a, x, value=0.5)


class FBatchNorm(nn.Module):
    """``F.batch_norm`` in evaluation mode with given running statistics (buffers), then
    y_0 . y_3; eps = 0 and variances 4, 1/4, 1, 16 make every scale exact (1/2, 2, 1, 1/4),
    and position 0's shift b - mean * scale * gamma is 0 (position 3's is -5/8)."""

    def __init__(self):
        super().__init__()
        self.l = nn.Linear(D, D, bias=False)
        self.register_buffer("rm", torch.tensor([0.5, -1.0, 0.25, 2.0]))
        self.register_buffer("rv", torch.tensor([4.0, 0.25, 1.0, 16.0]))
        self.register_buffer("g", torch.tensor([2.0, 0.5, -1.0, 1.5]))
        self.register_buffer("b", torch.tensor([0.5, 0.0, -3.0, 0.125]))

    def forward(self, x):
        y = torch.nn.functional.batch_norm(self.l(x), self.rm, self.rv, weight=self.g,
                                           bias=self.b, training=False, eps=0.0)
        return (y[:, 0] * y[:, 3]).sum(dim=-1)


class AddBmm(nn.Module):
    """x_0^T M x_3 with M = torch.addbmm(c, w1, w2, beta=2, alpha=1/2): rank(M) across
    positions {0, 1} | {2, 3}."""

    def __init__(self):
        super().__init__()
        self.w1 = nn.Parameter(torch.randn(3, D, D))
        self.w2 = nn.Parameter(torch.randn(3, D, D))
        self.register_buffer("c", torch.tensor([[1.0, 0.0], [0.0, 0.0]]))

    def forward(self, x):
        M = torch.addbmm(self.c, self.w1, self.w2, beta=2, alpha=0.5)
        return ((x[:, 0] @ M) * x[:, 3]).sum(dim=-1)


class FrozenInside(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(D, D, bias=False)
        self.l.weight.requires_grad_(False)
        self.k = nn.Linear(D, D, bias=False)

    def forward(self, x):
        return self.l(x) * self.k(x)


@pytest.mark.parametrize("cls", [WhereConst, DivConst, BatchNormEval, Fills, Reductions,
                                 Grouped, Bil, Contractions, FrozenInside, FBatchNorm,
                                 AddBmm])
def test_polynomial_modules_are_computed_exactly(cls):
    scalar = cls in (FBatchNorm, AddBmm)  # (batch,) outputs
    net = seprank.from_torch(cls(), seq_len=N, width=D,
                             output=(lambda y: y) if scalar else (N - 1, 0))
    assert net.polynomial, net.polynomial_reason
    m = seprank.measure(net, (0, 1))
    assert m.method == "modular" and m.saturated, m.saturation_reason
    fl = seprank.measure(net, (0, 1), method="float")
    assert fl.rank == m.rank and fl.polynomial is True


def test_a_frozen_parameter_inside_a_submodule_is_a_constant_read_exactly():
    mod = FrozenInside()
    with torch.no_grad():
        mod.l.weight.copy_(torch.tensor([[1.0, 0.5], [0.0, 2.0]]))
    net = seprank.from_torch(mod, seq_len=N, width=D, output=(N - 1, 0))
    assert "l.weight (parameter, requires_grad=False)" in net.measure_note
    K = np.array([[2, -1], [1, 3]])
    m = seprank.measure(net, (0, 1), weights={"k.weight": K})
    X, _ = inputs(N, D)
    x = X[N - 1]
    f = (x[0] + x[1] / 2) * (2 * x[0] - x[1])  # row 0 of l(x) times row 0 of k(x)
    assert m.rank == rank_over_q(f, (0, 1)) == 1  # position N - 1 alone: B side only
    got = net.apply({"k.weight": K}, np.array([[[0, 0]] * (N - 1) + [[3, 4]]]),
                    seprank.Float64())
    assert float(got[0]) == (3 + 4 / 2) * (2 * 3 - 4)


def test_forward_with_optional_arguments_uses_their_defaults_and_says_so():
    class Opt(_Lin):
        def forward(self, x, mask=None, scale: float = 2.0):
            y = self.l(x) * x * scale
            if mask is not None:
                y = y * mask
            return y

    net = seprank.from_torch(Opt(), seq_len=N, width=D)
    assert "optional arguments at their defaults: mask=None, scale=2.0" in net.measure_note
    assert "mask=None" in seprank.measure(net, (0,)).strategy_reason

    class Needs(_Lin):
        def forward(self, x, y):
            return self.l(x) * y

    with pytest.raises(ConfigError, match="forward's argument 'y' has no default"):
        seprank.from_torch(Needs(), seq_len=N, width=D)


def test_train_mode_is_measured_in_eval_mode_and_said():
    mod = BatchNormEval()
    mod.train()
    net = seprank.from_torch(mod, seq_len=N, width=D, output=(N - 1, 0))
    assert net.measure_note.startswith("the module was in train mode: measured in eval mode")
    mod.eval()
    assert "train mode" not in seprank.from_torch(mod, seq_len=N, width=D).measure_note


@pytest.mark.parametrize("body, words", [
    (lambda x: torch.where(x > 0, x, -x), "gt at node 'gt' is not a polynomial"),
    (lambda x: x / x.sum(dim=2, keepdim=True), "division by a computed tensor at node"),
    (lambda x: torch.relu(x) * x, "relu at node 'relu' is not a polynomial"),
])
def test_not_a_polynomial_is_said_of_true_non_polynomials_only(body, words):
    class Mod(nn.Module):
        def forward(self, x):
            return body(x)

    net = seprank.from_torch(Mod(), seq_len=N, width=D)
    assert not net.polynomial and not net.polynomial_unknown
    assert words in net.polynomial_reason and "line " in net.polynomial_reason
    m = seprank.measure(net, (0,), method="float")
    assert m.label == labels.NOT_POLYNOMIAL


def test_an_unsupported_operation_is_never_called_a_non_polynomial():
    class Sorts(nn.Module):
        def forward(self, x):
            return torch.sort(x, dim=1).values * x

    net = seprank.from_torch(Sorts(), seq_len=N, width=D)
    assert net.polynomial_unknown and "not supported" in net.polynomial_reason
    m = seprank.measure(net, (0,), method="float")
    assert m.polynomial is None and m.trusted is False
    assert m.label == labels.float_label(False) and m.label != labels.NOT_POLYNOMIAL
    assert "cannot tell whether the module is a polynomial" in m.saturation_reason
    with pytest.raises(ConfigError, match="not supported .* may still be a polynomial"):
        seprank.measure(net, (0,), method="modular")


def _value(poly, X, point) -> Fraction:
    """The flint polynomial at a point (rows of (N, D) numbers)."""
    names = poly.context().names()
    vals = {f"x{n}_{c}": Fraction(int(point[n][c])) for n in range(N) for c in range(D)}
    got = poly(*(flint.fmpq(vals[v].numerator, vals[v].denominator) for v in names))
    return Fraction(int(got.p), int(got.q))


def _check_values(net, weights, truth, X, rng):
    """net.apply (Float64: every number here is a short binary fraction, so exact) equals
    the flint polynomial at random integer points."""
    for _ in range(3):
        point = rng.integers(-5, 6, size=(N, D))
        got = net.apply(weights, point[None].astype(np.float64), seprank.Float64())
        assert Fraction(float(got[0])) == _value(truth, X, point)


def test_functional_batch_norm_against_a_flint_expansion():
    """F.batch_norm(eval, given running stats, affine): the exact polynomial, written out
    by hand, has the measured rank and the interpreter's values."""
    X, _ = inputs(N, D)
    K = np.array([[2, -1], [1, 3]])
    mod = FBatchNorm()
    rm, rv, g, b = (getattr(mod, k).tolist() for k in ("rm", "rv", "g", "b"))

    root = {4.0: Fraction(2), 0.25: Fraction(1, 2), 1.0: Fraction(1), 16.0: Fraction(4)}

    def q(v) -> flint.fmpq:
        return flint.fmpq(*Fraction(v).as_integer_ratio())

    def y(n, j):  # ((K x_n)_j - rm_n) / sqrt(rv_n) * g_n + b_n, every constant exact
        lin = sum(int(K[j, i]) * X[n][i] for i in range(D))
        return (lin - q(rm[n])) * q(Fraction(g[n]) / root[rv[n]]) + q(b[n])

    truth = sum(y(0, j) * y(3, j) for j in range(D))
    want = rank_over_q(truth, (0, 1))
    assert want == 2  # position 0's shift is 0: no constant row (3 if it were not)
    net = seprank.from_torch(mod, seq_len=N, width=D, output=lambda v: v)
    assert net.polynomial, net.polynomial_reason
    m = seprank.measure(net, (0, 1), weights={"l.weight": K})
    assert m.rank == want and m.saturated, m.saturation_reason
    _check_values(net, {"l.weight": K}, truth, X, np.random.default_rng(0))


def test_addbmm_against_a_flint_expansion():
    """torch.addbmm(c, w1, w2, beta=2, alpha=1/2) = 2 c + 1/2 sum_i w1[i] w2[i], with given
    integer weights: M computed by hand in fractions, x_0^T M x_3 expanded by flint."""
    X, _ = inputs(N, D)
    rng = np.random.default_rng(5)
    w1, w2 = rng.integers(-3, 4, size=(3, D, D)), rng.integers(-3, 4, size=(3, D, D))
    c = [[1, 0], [0, 0]]
    M = [[2 * c[r][k] + Fraction(1, 2) * sum(int(w1[i, r, j]) * int(w2[i, j, k])
                                               for i in range(3) for j in range(D))
          for k in range(D)] for r in range(D)]
    truth = sum(flint.fmpq(*M[r][k].as_integer_ratio()) * X[0][r] * X[3][k]
                for r in range(D) for k in range(D))
    want = rank_over_q(truth, (0, 1))
    net = seprank.from_torch(AddBmm(), seq_len=N, width=D, output=lambda v: v)
    assert net.polynomial, net.polynomial_reason
    weights = {"w1": w1, "w2": w2}
    m = seprank.measure(net, (0, 1), weights=weights)
    assert m.rank == want and m.saturated, m.saturation_reason
    _check_values(net, weights, truth, X, rng)
    # a rank-1 M (w1 w2 summing to -4 c) is seen as such: the sum over the first axis
    w1b = np.zeros((3, D, D), dtype=np.int64)
    w2b = np.zeros((3, D, D), dtype=np.int64)
    w1b[0, 0, 0], w2b[0, 0, 0], w1b[1, 1, 1], w2b[1, 1, 1] = -4, 1, 1, 1  # M = diag(0, 1/2)
    assert seprank.measure(net, (0, 1), weights={"w1": w1b, "w2": w2b}).rank == 1


@pytest.mark.parametrize("call, draw, words", [
    (lambda s, y: F.batch_norm(y, s.rm, s.rv, training=True), "trainable",
     "training=True: batch statistics"),
    (lambda s, y: F.batch_norm(y, None, None, training=True), "trainable",
     "training=True: batch statistics"),
    (lambda s, y: F.batch_norm(y, s.rm, s.rv), "all", "with a drawn or computed running_var"),
])
def test_functional_batch_norm_with_data_in_its_scale_is_not_a_polynomial(call, draw, words):
    class Mod(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("rm", torch.zeros(N))
            self.register_buffer("rv", torch.ones(N))

        def forward(self, x):
            y = x * x
            return call(self, y)

    net = seprank.from_torch(Mod(), seq_len=N, width=D, draw=draw)
    assert not net.polynomial and not net.polynomial_unknown
    assert words in net.polynomial_reason and "is not a polynomial" in net.polynomial_reason
