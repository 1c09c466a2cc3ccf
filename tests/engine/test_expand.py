"""The ``expand`` strategy: f's coefficients from apply on sparse polynomials (python-flint),
ranked exactly over Q (method symbolic) or GF(p) (modular).

Every rank here is compared with another route: the default strategy's saturated GF(p)
rank on the same seed (the same integer weights), the modular grid, or the independent
truth of tests/_truth.py (f written by hand as an fmpq_mpoly, ranked over Q).
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np
import pytest

import seprank
from seprank import labels
from seprank.cli import main
from seprank.engine.options import MeasureOptions
from seprank.engine.planner import plan
from seprank.engine.strategies import expand as ex
from seprank.engine.strategies import names
from seprank.errors import ConfigError, DomainError
from seprank.nets import S4, EmbeddedAttention, Hyena, LinearSelfAttention, MLPMixer
from tests._truth import inputs, rank_over_q


@dataclass(frozen=True)
class SumProduct:
    """The worked example (docs/worked_example.md): f(X) = prod_k <w_k, sum_n x^n>."""

    seq_len: int
    width: int
    factors: int
    homogeneous = True

    @property
    def degree(self):
        return self.factors

    def init(self, rng, domain):
        return {"w": domain.random(rng, (self.factors, self.width))}

    def apply(self, params, X, domain):
        s = X.sum(axis=1)
        r = s @ params["w"].T
        return np.prod(r, axis=1)


def _torch_example():
    """The torch example (docs/torch_example.md): causal linear attention, read at N - 1."""
    torch = pytest.importorskip("torch")
    from torch import nn

    class CausalLinearAttention(nn.Module):
        def __init__(self, width, seq_len):
            super().__init__()
            self.q = nn.Linear(width, width, bias=False)
            self.k = nn.Linear(width, width, bias=False)
            self.v = nn.Linear(width, width, bias=False)
            self.register_buffer("mask", torch.tril(torch.ones(seq_len, seq_len)))

        def forward(self, x):
            scores = self.q(x) @ self.k(x).transpose(1, 2)
            return (scores * self.mask) @ self.v(x)

    return seprank.from_torch(CausalLinearAttention(2, 5), seq_len=5, width=2, output=(4, 0))


#: (name, network factory, partition): the worked example, three zoo architectures and a
#: two-layer mixer whose blocks are rank-deficient (the multi-prime certificate runs).
CASES = [
    ("worked example", lambda: SumProduct(6, 2, 4), (0, 2, 4)),
    ("torch example", _torch_example, (1, 2, 4)),
    ("hyena", lambda: Hyena(depth=2, width=2, seq_len=4), (0, 1)),
    ("s4", lambda: S4(depth=2, width=1, state=2, seq_len=4, product=True), (0, 2)),
    ("mixer", lambda: MLPMixer(depth=1, width=3, seq_len=6, token_hidden=3), (0, 1, 2)),
    ("attention", lambda: LinearSelfAttention(depth=2, width=2, seq_len=4), (0, 1)),
]


@pytest.mark.parametrize("name, make, A", CASES, ids=[c[0] for c in CASES])
def test_expand_over_q_equals_the_saturated_default_and_gf_p_the_grid(name, make, A):
    net = make()
    default = seprank.measure(net, A)
    assert default.saturated, default.saturation_reason
    q = seprank.measure(net, A, strategy="expand", method="symbolic")
    assert q.rank == default.rank and q.strategy == "expand" and q.method == "symbolic"
    assert q.certified.startswith(labels.EXACT_FOR_WEIGHTS) and q.label == labels.EXACT_FOR_WEIGHTS
    assert q.saturated and q.saturation_bound == 0.0 and q.prime is None
    assert sum(b["rank"] for b in q.blocks) == q.rank
    p = seprank.measure(net, A, strategy="expand", method="modular", prime=default.prime)
    grid = seprank.measure(net, A, strategy="direct", prime=default.prime)
    assert p.rank == grid.rank == q.rank and p.prime == grid.prime
    assert p.certified.startswith("lower bound") and p.sampler == "coefficients"


def test_gf_p_expand_equals_the_grid_at_another_prime_and_seed():
    net = MLPMixer(depth=1, width=2, seq_len=4, token_hidden=2)
    for seed, prime in ((3, 1000003), (5, 2**31 - 1)):
        p = seprank.measure(net, (0, 2), strategy="expand", seed=seed, prime=prime)
        grid = seprank.measure(net, (0, 2), strategy="direct", seed=seed, prime=prime)
        assert p.rank == grid.rank and p.prime == prime


def _sum_product_truth(w, N):
    """f = prod_k <w_k, sum_n x^n> written by hand (tests/_truth.py's variables)."""
    X, _ = inputs(N, len(w[0]))
    f = 1
    for wk in w:
        f *= sum(int(wk[c]) * X[n][c] for n in range(N) for c in range(len(wk)))
    return f


def test_worked_example_matches_the_hand_written_truth_drawn_and_given():
    net, A = SumProduct(5, 2, 3), (0, 3)
    drawn = np.random.default_rng(7).integers(0, seprank.ModP().p, size=(3, 2))  # ModP's draw
    m = seprank.measure(net, A, strategy="expand", method="symbolic", seed=7)
    assert m.rank == rank_over_q(_sum_product_truth(drawn.tolist(), 5), A) == 6
    # given weights with three equal factors (f = <w, s>^3): a lower rank, exact for them
    w = [[1, 2], [1, 2], [1, 2]]
    given = seprank.measure(net, A, strategy="expand", method="symbolic", weights={"w": w})
    assert given.rank == rank_over_q(_sum_product_truth(w, 5), A) == 4 < m.rank
    assert "given weights" in given.strategy_reason


def test_torch_example_matches_the_hand_written_truth():
    net = _torch_example()
    rng = random.Random(2)
    w = {k: [[rng.randint(-9, 9) for _ in range(2)] for _ in range(2)]
         for k in ("q.weight", "k.weight", "v.weight")}
    X, _ = inputs(5, 2)

    def lin(M, n, r):  # (M x^n)_r: nn.Linear computes x W^T
        return sum(M[r][c] * X[n][c] for c in range(2))

    f = sum(sum(lin(w["q.weight"], 4, a) * lin(w["k.weight"], j, a) for a in range(2))
            * lin(w["v.weight"], j, 0) for j in range(5))  # the causal mask keeps j <= 4
    for A in [(4,), (0, 4), (1, 2)]:
        m = seprank.measure(net, A, strategy="expand", method="symbolic", weights=w)
        assert m.rank == rank_over_q(f, A)


def test_a_fraction_constant_and_exact_floats_are_exact_over_q_and_mod_p():
    @dataclass(frozen=True)
    class Halves(SumProduct):
        def apply(self, params, X, domain):
            return super().apply(params, X, domain) * Fraction(1, 3) + 0.5 * X[:, 0, 0] ** 2

    net = Halves(4, 2, 2)
    q = seprank.measure(net, (0, 1), strategy="expand", method="symbolic")
    p = seprank.measure(net, (0, 1), strategy="expand", method="modular")
    assert q.rank == p.rank == seprank.measure(net, (0, 1), strategy="direct").rank


@pytest.mark.parametrize("expr, words", [
    (lambda s: s * np.longdouble(0.5), "not read exactly"),
    (lambda s: np.where(s > 0, s, 0), "comparison"),
    (lambda s: s / s, "division by a polynomial"),
    (lambda s: s ** -1, "not a non-negative integer"),
    (lambda s: np.exp(s), "does not run on polynomials"),
])
def test_an_operation_with_no_exact_meaning_is_refused_naming_it(expr, words):
    @dataclass(frozen=True)
    class Bad(SumProduct):
        def apply(self, params, X, domain):
            return expr(super().apply(params, X, domain))

    with pytest.raises(DomainError, match=words):
        seprank.measure(Bad(4, 2, 2), (0, 1), strategy="expand", method="symbolic")


def test_constants_are_read_exactly_or_refused():
    dom = ex.PolyDomain(ex.PolyField(["x0_0"], 7), 7)
    with pytest.raises(DomainError, match="multiple of the prime"):
        dom.constant([14])
    with pytest.raises(DomainError, match="divisible by p=7"):
        dom.constant([Fraction(1, 7)])
    half = dom.constant(Fraction(1, 2))[()]
    assert (half * 2).v == dom.field.one and (dom.inputs(1, 1)[0, 0, 0] ** 2.0).v.degrees() == (2,)
    over_q = ex.PolyDomain(ex.PolyField(["x0_0"], None), 7)
    assert over_q.constant(0.375)[()].v == over_q.field.one * flint.fmpq(3, 8)
    assert (over_q.constant(3)[()] / 4).v == over_q.field.one * flint.fmpq(3, 4)


def test_an_empty_matrix_mod_p_is_never_saturated():
    """The bound reads the most monomials the short side may have, which no draw shrinks:
    mod 2 the coefficients of a one-layer net vanish for some seeds (a 0 x 0 matrix), and
    that rank 0 is a lower bound, not a saturated one (the bound was 0 there)."""
    net = LinearSelfAttention(depth=1, width=1, seq_len=2)
    zero = [m for m in (seprank.measure(net, strategy="expand", prime=2, seed=s)
                        for s in range(6)) if m.rank == 0]
    assert zero and all(not m.saturated and m.saturation_bound == 1.0 for m in zero)
    assert all(m.label == "lower bound, not saturated" for m in zero)


def test_saturation_is_never_the_sampling_rule():
    net = LinearSelfAttention(depth=2, width=2, seq_len=4)
    m = seprank.measure(net, (0, 1), strategy="expand")
    e = 3**2 + 2 * (3**2 - 1)  # the entry degree in weights and inputs
    side = min(ex.expand_cost(net, (0, 1))[k] for k in ("rows", "cols"))  # from the degree
    assert m.detail.side_bound == side >= min(m.samples)
    assert m.saturation_bound == pytest.approx(side * e / m.prime)
    assert m.saturated and m.saturation_reason.startswith("coefficient matrix (nothing sampled")
    assert m.history == [(m.samples[0], m.samples[1], m.rank)]
    w = net.init(np.random.default_rng(0), seprank.ModP())
    given = seprank.measure(net, (0, 1), strategy="expand", weights=w)
    assert given.rank == m.rank and not given.saturated and given.saturation_bound is None
    assert "nothing random" in given.saturation_reason


def test_auto_never_takes_expand_and_says_so():
    mp = plan(LinearSelfAttention(1, 2, 1, 4), None, MeasureOptions(method="symbolic"))
    assert mp.strategy == "coefficients"
    assert "expand" in names()
    mp = plan(LinearSelfAttention(1, 2, 1, 4), None, MeasureOptions())
    assert ("expand", "taken only when requested (strategy='expand')") in mp.considered
    mp = plan(LinearSelfAttention(2, 2, 1, 4), None, MeasureOptions(strategy="expand"))
    assert mp.strategy == "expand" and mp.run is None and mp.estimate.model["monomials"] == \
        math.comb(8 + 9, 9)


@pytest.mark.parametrize("net, kw, words", [
    (LinearSelfAttention(3, 2, 1, 4), {"method": "symbolic"},
     f"up to {math.comb(8 + 27, 27)} monomials of f (limit {ex.EXPAND_MAX_MONOMIALS})"),
    (LinearSelfAttention(1, 2, 1, 4), {"method": "float"}, "needs method='symbolic' or"),
    (seprank.SoftmaxSelfAttention(1, 2, 1, 4), {"method": "auto"}, "polynomial"),
    (EmbeddedAttention(width=2, vocab=3, embed_rank=2), {"method": "symbolic"}, "alphabet"),
])
def test_what_expand_cannot_measure_is_refused_in_one_line(net, kw, words):
    """Bad input is a ConfigError; what will not fit a TooBigError (both one line)."""
    from seprank.errors import TooBigError

    kind = TooBigError if "monomials" in words else ConfigError
    with pytest.raises(kind, match="strategy='expand'") as exc:
        seprank.measure(net, strategy="expand", **kw)
    assert words in str(exc.value) and "\n" not in str(exc.value)


def test_a_network_on_tokens_is_expanded_in_its_one_hot_inputs_when_asked():
    net = EmbeddedAttention(width=2, vocab=3, embed_rank=2)
    m = seprank.measure(net, strategy="expand", method="symbolic", sampler="random")
    assert m.rank == seprank.measure(net, sampler="random").rank


def _low_rank(r, c, k, seed, scale):
    rng = random.Random(seed)
    U = [[rng.randint(-scale, scale) for _ in range(k)] for _ in range(r)]
    V = [[rng.randint(-scale, scale) for _ in range(c)] for _ in range(k)]
    return [[sum(U[i][t] * V[t][j] for t in range(k)) for j in range(c)] for i in range(r)]


@pytest.mark.parametrize("r, c, k", [(6, 9, 3), (12, 12, 7), (5, 30, 5), (20, 8, 8)])
def test_the_multi_prime_rank_over_q_is_exact(r, c, k):
    M = _low_rank(r, c, k, seed=r * c + k, scale=2**200)
    entries = [(i, j, flint.fmpq(M[i][j])) for i in range(r) for j in range(c) if M[i][j]]
    rank, used = ex.rank_over_q(r, c, entries)
    assert rank == flint.fmpq_mat(M).rank() == k
    assert used >= (1 if k == min(r, c) else 2)  # deficient: the Hadamard certificate


def test_a_rank_hidden_mod_the_first_prime_is_found():
    """A row that is 0 mod the first prime drops the rank there: more primes find it."""
    q0 = ex._prime(0)
    M = _low_rank(6, 6, 4, seed=1, scale=50)
    M[0] = [q0 * (v + 1) for v in range(6)]  # rank 5 over Q, its row 0 vanishes mod q0
    entries = [(i, j, flint.fmpq(M[i][j])) for i in range(6) for j in range(6) if M[i][j]]
    assert flint.nmod_mat(flint.fmpz_mat(M), q0).rank() == 4
    assert ex.rank_over_q(6, 6, entries)[0] == flint.fmpq_mat(M).rank() == 5


def test_rows_with_fractions_are_scaled_not_rounded():
    M = [[Fraction(1, 2), Fraction(1, 3)], [Fraction(3, 2), 1]]  # row 1 = 3 x row 0
    entries = [(i, j, flint.fmpq(v.numerator, v.denominator)) for i in range(2)
               for j, v in enumerate(M[i])]
    assert ex.rank_over_q(2, 2, entries)[0] == 1


def _cli(argv, capsys):
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_measures_with_expand_and_refuses_in_one_line(capsys):
    net = ["--depth", "2", "--width", "2", "--seq-len", "4"]
    rc, out, _ = _cli(["measure", *net, "--strategy", "expand", "--method", "symbolic",
                       "--json"], capsys)
    d = json.loads(out)
    assert rc == 0 and d["rank"] == 18 and d["strategy"] == "expand"
    assert d["label"] == labels.EXACT_FOR_WEIGHTS
    assert d["certified"].startswith("exact for these weights")
    rc, out, _ = _cli(["measure", *net, "--strategy", "expand", "--method", "symbolic"], capsys)
    assert rc == 0 and "[exact for these weights]" in out
    assert "certified: exact for these weights" in out
    rc, _, err = _cli(["measure", "--depth", "3", "--width", "2", "--seq-len", "4",
                       "--strategy", "expand", "--method", "symbolic"], capsys)
    lines = err.strip().splitlines()
    assert rc == 2 and len(lines) == 1 and "monomials of f (limit" in lines[0]


@pytest.mark.slow
def test_the_readme_network_over_q():
    """The README's (L2, d3, N6): 49 over Q, as the proved bound the default meets."""
    net = LinearSelfAttention(depth=2, width=3, heads=1, seq_len=6)
    m = seprank.measure(net, strategy="expand", method="symbolic")
    assert m.rank == seprank.measure(net).rank == 49
