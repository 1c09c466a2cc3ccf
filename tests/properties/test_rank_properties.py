"""Property suite: measured ranks against proved bounds, conjectures and invariances."""

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from seprank import measure
from seprank.engine.sample_grid import evaluate_grid
from seprank.errors import SeprankError
from seprank.nets import LinearSelfAttention, head_counts
from seprank.testing import (
    assert_engines_agree,
    assert_partition_invariant,
    assert_rank_within_bounds,
    configs,
    partitions,
)
from seprank.theory.bounds import block_bound, theorem_bound


@given(net=configs(max_bound=600), data=st.data())
def test_measured_rank_never_exceeds_proven_bound(net, data):
    part = data.draw(partitions(net.seq_len))
    ub = theorem_bound(net, part)["upper"]
    assert_rank_within_bounds(net, part, upper=ub)


@st.composite
def _h1_enough_positions(draw):
    """H = 1, no residual, at least ``width`` positions on both sides of the default
    partition (the conjecture's regime): built directly, so every draw asserts."""
    width = draw(st.integers(1, 4))
    seq_len = draw(st.integers(2 * width, 8))
    depth = draw(st.integers(1, 3))
    q = draw(st.integers(0, seq_len - 1))
    net = LinearSelfAttention(depth=depth, width=width, heads=1, seq_len=seq_len,
                              query_position=q)
    half = seq_len // 2
    assume(block_bound(depth, width, half, seq_len - half) <= 1200)
    return net


@given(net=_h1_enough_positions())
def test_h1_block_formula_is_exact_conjecture(net):
    """Conjecture (SCIENCE.md section 4): for H = 1, enough positions on both sides and
    no residual, the block formula is the exact separation rank. A failure is a FINDING."""
    part = list(range(net.seq_len // 2))
    if net.query_position not in part:
        part = [net.query_position] + part[1:]
    nq, no = len(part), net.seq_len - len(part)
    assert min(nq, no) >= net.width  # the strategy only draws the conjecture's regime
    formula = block_bound(net.depth, net.width, nq, no)
    m = measure(net, part)
    assert m.saturated, f"not saturated: raise max_samples ({m.samples})"
    assert m.rank == formula, (
        f"FINDING: H=1 conjecture fails: measured {m.rank} != block formula {formula} "
        f"for {m.config}, partition {part}, seed 0"
    )


@settings(max_examples=6)
@given(net=configs(max_depth=2, max_width=3, max_seq_len=3, max_bound=60))
def test_modular_equals_symbolic_and_trusted_float(net):
    assert_engines_agree(net, seed=1)


@given(net=configs(max_seq_len=6, max_bound=300), seed=st.integers(0, 1000))
def test_permutations_keeping_query_side_preserve_rank(net, seed):
    N = net.seq_len
    rng = np.random.default_rng(seed)
    half = list(range(max(1, N // 2)))
    base = half if net.query_position in half else [net.query_position] + half[1:]
    perm = rng.permutation(N)
    # A permutation maps partition A to perm[A] and the query to perm[q]; relabel so the
    # query stays put: compose with the transposition (perm[q], q).
    q = net.query_position
    image = [int(perm[a]) for a in base]
    pq = int(perm[q])
    swap = {pq: q, q: pq}
    moved = sorted({swap.get(a, a) for a in image})
    assert q in moved
    assert measure(net, moved, seed=seed).rank == measure(net, base, seed=seed).rank


@pytest.mark.parametrize("N", [4, 6])
def test_every_balanced_partition_gives_the_same_rank(N):
    net = LinearSelfAttention(depth=2, width=2, heads=1, seq_len=N)
    parts = list(itertools.combinations(range(N), N // 2))
    assert_partition_invariant(net, parts)


@settings(max_examples=5)
@given(width=st.integers(1, 3), depth=st.integers(1, 2), N=st.sampled_from([2, 4]))
def test_rank_monotone_in_depth_and_width_for_one_head(width, depth, N):
    def r(L, d):
        return measure(LinearSelfAttention(depth=L, width=d, heads=1, seq_len=N)).rank

    base = r(depth, width)
    assert r(depth + 1, width) >= base
    assert r(depth, width + 1) >= base


@settings(max_examples=5)
@given(width=st.sampled_from([2, 4, 6]), depth=st.integers(1, 2), N=st.sampled_from([2, 4]))
def test_rank_does_not_increase_with_heads_conjecture(width, depth, N):
    """Conjecture: at fixed width, more heads never raise the rank (H | H')."""
    ranks = {}
    for H in head_counts(width):
        ranks[H] = measure(LinearSelfAttention(depth=depth, width=width, heads=H, seq_len=N)).rank
    for h1, h2 in itertools.combinations(sorted(ranks), 2):
        if h2 % h1 == 0:
            assert ranks[h2] <= ranks[h1], f"FINDING: heads conjecture fails: {ranks}"


@given(vals=st.lists(st.integers(0, 2**40), min_size=4, max_size=4),
       p=st.sampled_from([2, 3, 101, 67108859, 2**31 - 1]))
def test_modp_agrees_with_python_ints_including_p_minus_1(vals, p):
    from seprank.algebra.domains import ModP

    F = ModP(p)
    xs = [v % p for v in vals] + [p - 1, p - 1]
    a = F.from_ints(np.array(xs[:3], dtype=object).reshape(1, 3))
    b = F.from_ints(np.array(xs[3:], dtype=object).reshape(3, 1))
    got = int(F.einsum("ik,kj->ij", a, b)[0, 0])
    assert got == sum(x * y for x, y in zip(xs[:3], xs[3:])) % p
    assert int(F.mul(a, a)[0, 2]) == (xs[2] * xs[2]) % p
    assert int(F.add(a, a)[0, 1]) == (2 * xs[1]) % p


@settings(max_examples=5)
@given(net=configs(max_depth=2, max_bound=200), chunk=st.integers(1, 50))
def test_grid_independent_of_chunk_size(net, chunk):
    from seprank.algebra.domains import ModP

    F = ModP()
    rng = np.random.default_rng(0)
    params = net.init(rng, F)
    A = tuple(range(net.seq_len // 2))
    B = tuple(range(net.seq_len // 2, net.seq_len))
    Ap, Bp = F.random(rng, (5, len(A), net.width)), F.random(rng, (4, len(B), net.width))
    ref = evaluate_grid(net, params, F, Ap, Bp, A, B, chunk=10**6)
    assert np.array_equal(evaluate_grid(net, params, F, Ap, Bp, A, B, chunk=chunk), ref)


def _valid_inputs(depth, width, heads, seq_len, part, method, prime) -> bool:
    """Whether measure() must accept these inputs (the package's documented contract)."""
    from seprank.algebra.domains import MAX_MODULUS, is_prime

    def is_int(v):
        return isinstance(v, int) and not isinstance(v, bool)

    if not (is_int(depth) and depth >= 1 and width >= 1 and heads >= 1 and seq_len >= 2):
        return False
    if width % heads:
        return False
    if not part or len(set(part)) != len(part) or any(not 0 <= a < seq_len for a in part):
        return False
    if len(part) == seq_len or method != "modular":
        return False
    return prime is None or (prime <= MAX_MODULUS and is_prime(prime))


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    depth=st.one_of(st.integers(-3, 3), st.floats(allow_nan=True), st.none(), st.text(max_size=2)),
    width=st.integers(-2, 5), heads=st.integers(-1, 5), seq_len=st.integers(-1, 5),
    part=st.lists(st.integers(-2, 6), max_size=5), method=st.sampled_from(["modular", "x", ""]),
    prime=st.one_of(st.none(), st.integers(-5, 2**33), st.sampled_from([2, 3, 101, 65521])),
)
def test_bad_inputs_give_the_package_error(depth, width, heads, seq_len, part, method, prime):
    """Invalid inputs raise SeprankError (nothing else); valid ones give a measurement."""
    def run():
        net = LinearSelfAttention(depth=depth, width=width, heads=heads, seq_len=seq_len)
        return measure(net, part, method=method, prime=prime, max_samples=8)

    if _valid_inputs(depth, width, heads, seq_len, part, method, prime):
        m = run()
        assert 0 <= m.rank <= 8 and m.partition == tuple(sorted(part))
    else:
        with pytest.raises(SeprankError):
            run()
