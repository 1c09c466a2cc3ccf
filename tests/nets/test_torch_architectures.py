"""2026 architectures as they are written (issue 40): Mamba-2/SSD with ``new_zeros`` and with
``cumprod`` + ``where``, Hyena with a depthwise ``nn.Conv1d``, RetNet's real decay
1 - 2^-6 at N = 6, and a module loaded with float32 weights from a state_dict.

Each rank is checked against an independent truth: f written out by hand with
python-flint (tests/_truth.py) from the same weights (given to ``measure`` by name, or
the module's own frozen float32 values read exactly), its coefficient matrix ranked
over Q. Nothing here runs seprank to build the truth.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import seprank  # noqa: E402
from tests._truth import inputs, rank_over_q  # noqa: E402


def Q(v) -> flint.fmpq:
    q = Fraction(float(v)) if isinstance(v, (float, np.floating)) else Fraction(
        int(v) if isinstance(v, np.integer) else v)
    return flint.fmpq(q.numerator, q.denominator)


def lin(W, x):
    """W (out, in) times a vector of polynomials."""
    return [sum((Q(W[o, i]) * x[i] for i in range(len(x))), Q(0) * x[0]) for o in range(len(W))]


def dot(a, b):
    return sum((u * v for u, v in zip(a, b)), Q(0) * a[0])


def _ints(rng, shape):
    return rng.integers(-3, 4, size=shape).astype(np.int64)


# ------------------------------------------------------------------ Mamba-2 / SSD
class SSDNewZeros(nn.Module):
    """h_t = a_t h_{t-1} + B_t v_t^T (state from x.new_zeros), y_t = C_t^T h_t."""

    def __init__(self, d, S, decay):
        super().__init__()
        self.B = nn.Linear(d, S, bias=False)
        self.C = nn.Linear(d, S, bias=False)
        self.V = nn.Linear(d, d, bias=False)
        self.register_buffer("a", torch.tensor(decay, dtype=torch.float64))

    def forward(self, x):
        b, c, v = self.B(x), self.C(x), self.V(x)
        h = x.new_zeros(x.shape[0], self.B.out_features, x.shape[2])
        ys = []
        for t in range(x.shape[1]):
            h = self.a[t] * h + b[:, t, :, None] * v[:, t, None, :]
            ys.append((c[:, t, :, None] * h).sum(1))
        return torch.stack(ys, 1)


class SSDCumprod(nn.Module):
    """The SSD quadratic form: L[t, s] = prod_{s < r <= t} A_r by cumprod over a where-masked
    matrix of the (trainable) decays, y = (C B^T * L) V."""

    def __init__(self, d, S, N):
        super().__init__()
        self.B = nn.Linear(d, S, bias=False)
        self.C = nn.Linear(d, S, bias=False)
        self.V = nn.Linear(d, d, bias=False)
        self.A = nn.Parameter(torch.ones(N))
        self.register_buffer("after", torch.triu(torch.ones(N, N, dtype=torch.bool), 1))
        self.register_buffer("lower", torch.tril(torch.ones(N, N, dtype=torch.bool)))

    def forward(self, x):
        N = x.shape[1]
        G = torch.where(self.after, self.A.expand(N, N), torch.ones_like(self.A).expand(N, N))
        P = torch.cumprod(G, dim=1)  # P[s, t] = prod_{s < r <= t} A_r
        L = torch.where(self.lower, P.transpose(0, 1), torch.zeros_like(P))
        scores = self.C(x) @ self.B(x).transpose(1, 2)
        return (scores * L) @ self.V(x)


def _ssd_truth(W, decay, N, d, A):
    X, _ = inputs(N, d)
    b = [lin(W["B.weight"], X[n]) for n in range(N)]
    c = [lin(W["C.weight"], X[n]) for n in range(N)]
    v = [lin(W["V.weight"], X[n]) for n in range(N)]
    T = N - 1
    f = Q(0) * X[0][0]
    for s in range(T + 1):
        g = Q(1)
        for r in range(s + 1, T + 1):
            g *= Q(decay[r])
        f += g * dot(c[T], b[s]) * v[s][0]
    return rank_over_q(f, A)


@pytest.mark.parametrize("A", [(0, 1), (0, 2)])
def test_mamba2_ssd_with_new_zeros(A):
    N, d, S = 4, 2, 2
    decay = [0.5, 0.75, 1.0, 0.625]
    rng = np.random.default_rng(1)
    W = {"B.weight": _ints(rng, (S, d)), "C.weight": _ints(rng, (S, d)),
         "V.weight": _ints(rng, (d, d))}
    net = seprank.from_torch(SSDNewZeros(d, S, decay), seq_len=N, width=d, output=(N - 1, 0))
    m = seprank.measure(net, A, weights=W)
    assert m.rank == _ssd_truth(W, decay, N, d, A) and m.saturated, m.saturation_reason


@pytest.mark.parametrize("A", [(0, 1), (1, 3)])
def test_mamba2_ssd_with_cumprod_and_where(A):
    N, d, S = 4, 2, 2
    rng = np.random.default_rng(2)
    W = {"B.weight": _ints(rng, (S, d)), "C.weight": _ints(rng, (S, d)),
         "V.weight": _ints(rng, (d, d)), "A": np.array([2, 3, -1, 5])}
    net = seprank.from_torch(SSDCumprod(d, S, N), seq_len=N, width=d, output=(N - 1, 0))
    assert net.polynomial, net.polynomial_reason
    m = seprank.measure(net, A, weights=W)
    assert m.rank == _ssd_truth(W, W["A"], N, d, A) and m.saturated, m.saturation_reason


# ------------------------------------------------------------------ Hyena
class HyenaDepthwise(nn.Module):
    """y = (W_q x) * causal depthwise long convolution of (W_v x) (nn.Conv1d, groups=d)."""

    def __init__(self, d, N):
        super().__init__()
        self.q = nn.Linear(d, d, bias=False)
        self.v = nn.Linear(d, d, bias=False)
        self.conv = nn.Conv1d(d, d, N, groups=d, padding=N - 1, bias=False)

    def forward(self, x):
        u = self.v(x).transpose(1, 2)
        c = self.conv(u)[..., : x.shape[1]].transpose(1, 2)
        return self.q(x) * c


@pytest.mark.parametrize("A", [(0, 1), (0, 3)])
def test_hyena_with_a_depthwise_conv1d(A):
    N, d = 4, 2
    rng = np.random.default_rng(3)
    W = {"q.weight": _ints(rng, (d, d)), "v.weight": _ints(rng, (d, d)),
         "conv.weight": _ints(rng, (d, 1, N))}
    net = seprank.from_torch(HyenaDepthwise(d, N), seq_len=N, width=d, output=(N - 1, 0))
    m = seprank.measure(net, A, weights=W)
    X, _ = inputs(N, d)
    T = N - 1
    u = [lin(W["v.weight"], X[n]) for n in range(N)]
    conv = sum((Q(W["conv.weight"][0, 0, k]) * u[k][0] for k in range(N)), Q(0) * X[0][0])
    truth = rank_over_q(lin(W["q.weight"], X[T])[0] * conv, A)
    assert m.rank == truth and m.saturated, m.saturation_reason


# ------------------------------------------------------------------ RetNet
class Retention(nn.Module):
    """RetNet's parallel retention: ((Q K^T) * D) V with D[t, s] = gamma^(t - s), s <= t."""

    def __init__(self, d, N, gamma):
        super().__init__()
        self.q = nn.Linear(d, d, bias=False)
        self.k = nn.Linear(d, d, bias=False)
        self.v = nn.Linear(d, d, bias=False)
        D = [[gamma ** (t - s) if s <= t else 0.0 for s in range(N)] for t in range(N)]
        self.register_buffer("D", torch.tensor(D, dtype=torch.float64))

    def forward(self, x):
        return ((self.q(x) @ self.k(x).transpose(1, 2)) * self.D) @ self.v(x)


@pytest.mark.parametrize("A", [(0, 1, 2), (0, 2, 4)])
def test_retnet_real_decay_at_n6(A):
    N, d, gamma = 6, 2, 1 - 2**-6
    rng = np.random.default_rng(4)
    W = {k: _ints(rng, (d, d)) for k in ("q.weight", "k.weight", "v.weight")}
    net = seprank.from_torch(Retention(d, N, gamma), seq_len=N, width=d, output=(N - 1, 0))
    m = seprank.measure(net, A, weights=W)
    X, _ = inputs(N, d)
    T = N - 1
    q = lin(W["q.weight"], X[T])
    f = Q(0) * X[0][0]
    for s in range(N):
        f += Q(Fraction(63, 64) ** (T - s)) * dot(q, lin(W["k.weight"], X[s])) * \
            lin(W["v.weight"], X[s])[0]
    assert m.rank == rank_over_q(f, A) and m.saturated, m.saturation_reason


# ------------------------------------------------------------------ float32 trained weights
class Pairs(nn.Module):
    """y = o(p_0 * p_1 + p_2 * p_3) with p_n = a(x_n), a Linear with a bias."""

    def __init__(self, d, h):
        super().__init__()
        self.a = nn.Linear(d, h)
        self.o = nn.Linear(h, 1, bias=False)

    def forward(self, x):
        p = self.a(x)
        return self.o(p[:, 0] * p[:, 1] + p[:, 2] * p[:, 3])


@pytest.mark.parametrize("A", [(0, 1), (0, 2)])
def test_float32_weights_from_a_state_dict_are_measured_exactly(A):
    N, d, h = 4, 2, 3
    gen = torch.Generator().manual_seed(5)
    state = {"a.weight": torch.randn(h, d, generator=gen), "a.bias": torch.randn(h, generator=gen),
             "o.weight": torch.randn(1, h, generator=gen)}
    assert all(t.dtype == torch.float32 for t in state.values())
    module = Pairs(d, h)
    module.load_state_dict(state)
    module.requires_grad_(False)  # the trained weights are the module's constants
    net = seprank.from_torch(module, seq_len=N, width=d, output=lambda y: y[:, 0])
    m = seprank.measure(net, A)
    W = {k: v.double().numpy() for k, v in state.items()}  # float32 -> float64: exact
    X, _ = inputs(N, d)
    p = [[u + Q(W["a.bias"][j]) for j, u in enumerate(lin(W["a.weight"], X[n]))]
         for n in range(N)]
    pair = [p[0][j] * p[1][j] + p[2][j] * p[3][j] for j in range(h)]
    truth = rank_over_q(lin(W["o.weight"], pair)[0], A)
    assert m.rank == truth and m.saturated, m.saturation_reason
    assert "kept as the module's constants" in m.strategy_reason
