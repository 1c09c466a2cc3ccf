"""The sketch strategy: the catalecticant's block ranks from random sketches built from
evaluations of F; equal to the catalecticant strategy block by block, to an independent
truth over Q on a tiny case, never saturated when a sketch is too small, refused where
the reduction does not hold or the estimate is over the limits."""

import numpy as np
import pytest

from seprank import measure
from seprank.algebra.domains import DEFAULT_PRIME, ModP
from seprank.algebra.vandermonde import vandermonde_inverse
from seprank.engine.strategies import sketch
from seprank.engine.strategies.base import params_for
from seprank.errors import ConfigError, TooBigError
from seprank.nets import LinearSelfAttention
from tests._truth import inputs, rank_mod_p, rank_over_q


def _ranks(m):
    return {b["other_s_degree"]: b["rank"] for b in m.blocks}


@pytest.mark.parametrize("L,d,H", [(2, 3, 3), (3, 3, 3), (2, 4, 2), (3, 2, 2), (2, 2, 1),
                                   (2, 3, 1), (1, 3, 1)])
def test_equal_to_the_catalecticant_block_by_block(L, d, H):
    net = LinearSelfAttention(depth=L, width=d, heads=H, seq_len=2 * d)
    c = measure(net, strategy="catalecticant")
    s = measure(net, strategy="sketch")
    assert s.strategy == "sketch"
    assert _ranks(s) == _ranks(c) and s.rank == c.rank
    assert s.saturated and not s.budget_hit and "sketch" in s.saturation_reason
    for b in s.blocks:  # each block stopped below its last sketch size, or at its short side
        assert b["stopped"] and b["rank"] <= b["bound"]
        assert b["rank"] < b["sketch"][-1] <= min(b["shape"]) + 1


def test_the_query_on_b_gives_the_same_blocks():
    net = LinearSelfAttention(depth=2, width=2, heads=2, seq_len=4)
    A = (2, 3)  # the query (position 0) on B
    c, s = measure(net, A, strategy="catalecticant"), measure(net, A, strategy="sketch")
    assert {b["degree"]: b["rank"] for b in s.blocks} == {b["degree"]: b["rank"] for b in c.blocks}


def _attention_truth(net, params):
    """f written out over Q from the definition of linearised attention (position 0,
    coordinate 0), with the integer weights ``params``."""
    X, _ = inputs(net.seq_len, net.width)
    Y = X
    for layer in range(net.depth):
        out = [[0] * net.width for _ in range(net.seq_len)]
        for h in range(net.heads):
            W = {k: np.asarray(params[k][layer, h]).tolist() for k in ("Wq", "Wk", "Wv", "Wo")}

            def lin(M, y):
                return [sum(int(M[a][c]) * y[c] for c in range(len(y))) for a in range(len(M))]

            q = [lin(W["Wq"], y) for y in Y]
            k = [lin(W["Wk"], y) for y in Y]
            v = [lin(W["Wv"], y) for y in Y]
            for i in range(net.seq_len):
                z = [sum(sum(qa * ka for qa, ka in zip(q[i], k[j])) * v[j][a]
                         for j in range(net.seq_len)) for a in range(len(v[0]))]
                o = lin(W["Wo"], z)
                out[i] = [x + y for x, y in zip(out[i], o)]
        Y = out
    return Y[net.query_position][net.output_coord]


def test_equal_to_the_rank_over_q_of_f_written_out():  # about 2 s
    net = LinearSelfAttention(depth=2, width=2, heads=2, seq_len=4)
    s = measure(net, strategy="sketch", seed=3)
    params = params_for(net, ModP(s.prime), 3, None)  # the run's integer weights
    assert s.rank == rank_over_q(_attention_truth(net, params), (0, 1)) == 17


def test_a_sketch_is_the_catalecticant_block_between_random_vectors():
    """R_k = Omega H_k Psi, entry by entry, with H_k built from F's coefficients and
    Omega, Psi from the same points (the module docstring's identity)."""
    import math

    from seprank.engine import structural_poly as sp
    net = LinearSelfAttention(depth=2, width=2, heads=2, seq_len=4)
    p = 1009
    params = params_for(net, ModP(p), 0, None)
    D, m, d = 4, 3, 2
    _, F = sp.build_F(net, params, p)
    keys, values = sp.coefficient_table(F, m, D, p, D + 1)
    K = sketch.layer_maps(net, params, p)
    Vinv = vandermonde_inverse(list(range(D + 1)), list(range(D + 1)), p)
    rng = np.random.default_rng(5)
    Y, Z, U = (rng.integers(0, p, (3, m)), rng.integers(0, p, (4, m)),
               rng.integers(0, p, (4, d)))
    R = sketch.sketch_entries(Y, Z, U, K, Vinv, net.output_coord, p)

    def exps(k):
        return [e for e in np.ndindex(*(k + 1,) * m) if sum(e) == k]

    def veronese(pt, k):
        return [math.prod(pow(int(x), int(a), p) * pow(math.factorial(a), -1, p)
                          for x, a in zip(pt, e)) % p for e in exps(k)]

    def key(e):
        return sum(a * (D + 1) ** i for i, a in enumerate(e))

    for k in range(D + 1):
        rows = np.array(sorted(key(e) for e in exps(k)))
        cols = np.array(sorted(key(e) for e in exps(D - k)))
        H = sp.catalecticant(keys, values, rows, cols).astype(np.int64)
        order_r = [key(e) for e in exps(k)]
        order_c = [key(e) for e in exps(D - k)]
        Om = np.zeros((3, rows.size), dtype=object)
        for i in range(3):
            for e_key, v in zip(order_r, veronese(Y[i], k)):
                Om[i, np.searchsorted(rows, e_key)] = v
        Ps = np.zeros((cols.size * d, 4), dtype=object)
        for j in range(4):
            for e_key, v in zip(order_c, veronese(Z[j], D - k)):
                for c in range(d):
                    Ps[np.searchsorted(cols, e_key) * d + c, j] = v * int(U[j, c])
        assert ((Om @ H.astype(object) @ Ps) % p == R[k]).all()
        assert rank_mod_p(R[k], p) <= rank_mod_p(H, p)


def test_a_too_small_sketch_is_a_lower_bound_never_saturated():
    net = LinearSelfAttention(depth=2, width=3, heads=3, seq_len=6)
    full = measure(net, strategy="catalecticant")
    capped = measure(net, strategy="sketch", max_samples=8)
    assert capped.budget_hit and not capped.saturated and "lower bound" in capped.label
    assert capped.rank < full.rank
    hit = [b for b in capped.blocks if not b["stopped"]]
    assert hit and all(b["rank"] == 8 and b["saturated"] is False for b in hit)
    assert capped.saturation_bound is None and "labelled on their own" in capped.saturation_reason
    stopped = [b for b in capped.blocks if b["stopped"]]  # labelled each by its own bound
    assert stopped and all(b["saturated"] for b in stopped)
    for b, c in zip(capped.blocks, full.blocks):  # every block still a lower bound
        assert b["rank"] <= c["rank"]


def test_a_small_prime_stops_but_its_bound_is_not_saturated():
    net = LinearSelfAttention(depth=2, width=2, heads=2, seq_len=4)
    m = measure(net, strategy="sketch", prime=101)
    assert m.prime == 101 and not m.budget_hit and not m.saturated
    assert m.saturation_bound == 1.0 and "threshold" in m.saturation_reason


def test_the_bound_adds_the_sketch_draws_to_the_weights():
    net = LinearSelfAttention(depth=2, width=3, heads=3, seq_len=6)
    m = measure(net, strategy="sketch")
    w = 2 * (3**2 - 1)
    total = 0.0
    for b in m.blocks:
        upper = min(b["bound"], *b["shape"])
        own = upper * w / m.prime
        if b["rank"] < min(b["shape"]):
            own += sum(min(s, upper) for s in b["sketch"]) * (4 + 1) / m.prime
        assert b["saturation_bound"] == pytest.approx(own)
        total += own
    assert m.saturation_bound == pytest.approx(total) and m.prime == DEFAULT_PRIME
    c = measure(net, strategy="catalecticant")
    assert m.saturation_bound > c.saturation_bound  # the draws cost something


@pytest.mark.parametrize("net,kw,words", [
    (LinearSelfAttention(depth=2, width=2, seq_len=4, residual=True), {}, "residual"),
    (LinearSelfAttention(depth=2, width=2, seq_len=3), {}, "positions on each side"),
    (LinearSelfAttention(depth=2, width=2, seq_len=4), {"method": "float"}, "modular"),
])
def test_what_it_cannot_measure_is_refused_in_one_line(net, kw, words):
    with pytest.raises(ConfigError, match=words):
        measure(net, strategy="sketch", **kw)


def test_given_weights_are_refused():
    net = LinearSelfAttention(depth=1, width=2, seq_len=4)
    w = net.init(np.random.default_rng(0), ModP(DEFAULT_PRIME))
    with pytest.raises(ConfigError, match="random weights"):
        measure(net, strategy="sketch", weights=w)


def test_too_big_is_refused_with_its_estimate_and_a_cap_makes_it_fit():
    net = LinearSelfAttention(depth=3, width=5, heads=5, seq_len=10)
    with pytest.raises(TooBigError, match="GiB.*max_samples"):
        measure(net, strategy="sketch")
    est = sketch.estimate(net, tuple(range(5)), cap=1000)
    assert max(est["sizes"]) == 1000 and est["expected_seconds"] > 0


def test_auto_never_takes_it():
    from seprank.engine.options import MeasureOptions
    from seprank.engine.planner import plan

    mp = plan(LinearSelfAttention(depth=2, width=2, heads=2, seq_len=3), options=MeasureOptions(),
              inputs=False)  # catalecticant refused: auto asks the later ones
    assert mp.strategy == "graded"
    assert ("sketch", "taken only when requested (strategy='sketch')") in mp.considered


def test_the_kernels_reduction_is_exact_up_to_2_62():
    sketch._kernel()  # compiled (where numba is): the reduction the kernel inlines
    p = DEFAULT_PRIME
    xs = np.random.default_rng(0).integers(0, 2**62, 2000).tolist()
    xs += [0, p - 1, p, 2 * p, 2**62 - 1, (2**62 // p) * p, (2**62 // p) * p - 1]
    assert all(sketch._red(x, p, 1.0 / p) == x % p for x in xs)
