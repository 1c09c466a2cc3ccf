"""The BLAS GF(p) rank engine against flint, and worst-case exactness of both fast paths."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seprank.algebra import blas_elimination, lu_rank
from seprank.algebra.domains import DEFAULT_PRIME, MAX_MODULUS, ModP, Symbolic
from seprank.algebra.limits import FLOAT64_PRIME_LIMIT
from seprank.algebra.rank import rank_modp
from seprank.nets import LinearSelfAttention
from seprank.nets.attention_kernel import grid_modp

PRIMES = [2, 3, 7, 65521, DEFAULT_PRIME]


def low_rank(rng, n, m, k, p, entries=None):
    """An n x m matrix of rank <= k mod p: U @ V with U, V entries below ``entries``
    (default p; products in Python ints, so exact)."""
    hi = p if entries is None else entries
    kind = object if hi * hi * max(k, 1) >= 2**62 else np.int64
    U = rng.integers(0, hi, (n, k)).astype(kind)
    V = rng.integers(0, hi, (k, m)).astype(kind)
    return np.asarray((U @ V) % p, dtype=np.int64) if k else np.zeros((n, m), np.int64)


@settings(deadline=None)
@given(n=st.integers(1, 60), m=st.integers(1, 60), k=st.integers(0, 60),
       block=st.integers(1, 40), p=st.sampled_from(PRIMES), seed=st.integers(0, 2**16),
       dup=st.booleans())
def test_blas_rank_equals_flint(n, m, k, block, p, seed, dup):
    rng = np.random.default_rng(seed)
    F = low_rank(rng, n, m, min(k, n, m), p)
    if dup and n > 2 and m > 2:  # repeated rows and a zero column: pivot search corner cases
        F[1] = F[0]
        F[:, -1] = 0
    assert blas_elimination.rank_blocked(F, p, block=block) == rank_modp(F, p, engine="flint")


@pytest.mark.parametrize("chunk", [blas_elimination.CHUNK, 100])
def test_blas_rank_larger_than_one_block_and_rectangular(chunk, monkeypatch):
    monkeypatch.setattr(blas_elimination, "CHUNK", chunk)  # 100: the trailing update in many pieces
    rng = np.random.default_rng(1)
    p = DEFAULT_PRIME
    for n, m, k in [(700, 450, 300), (450, 700, 449), (600, 600, 600)]:
        F = low_rank(rng, n, m, k, p, entries=50) if k < min(n, m) else rng.integers(0, p, (n, m))
        assert blas_elimination.rank_blocked(F, p) == rank_modp(F, p, engine="flint") == k


def test_matmul_mod_worst_case_all_p_minus_1():
    """Largest accepted prime, every entry p-1, longest allowed inner dimension: exact."""
    p = max(q for q in range(FLOAT64_PRIME_LIMIT - 100, FLOAT64_PRIME_LIMIT)
            if all(q % d for d in range(2, int(q**0.5) + 1)))
    k = 1 << 13
    A = np.full((3, k), p - 1, dtype=np.float64)
    B = np.full((k, 2), p - 1, dtype=np.float64)
    assert blas_elimination.matmul_mod(A, B, p).tolist() == [[float(k * (p - 1) ** 2 % p)] * 2] * 3
    # past 2**13 the float64 split is not exact: int64 then, still exact
    assert blas_elimination.matmul_mod(np.ones((1, k + 1)), np.ones((k + 1, 1)), p) == k + 1
    with pytest.raises(ValueError, match="inner dimension"):
        blas_elimination.split_products(np.ones((1, k + 1)), np.ones((k + 1, 1)))


def test_rank_engines_refuse_or_fall_back_by_prime():
    F = np.full((4, 4), MAX_MODULUS - 1, dtype=np.int64)
    with pytest.raises(ValueError, match="p="):
        blas_elimination.rank_blocked(F, MAX_MODULUS)
    assert rank_modp(F, MAX_MODULUS) == 1  # auto: flint for primes >= 2**26
    with pytest.raises(ValueError, match="engine="):
        rank_modp(F, 7, engine="gpu")


@pytest.mark.parametrize("p,shape", [(MAX_MODULUS, (2, 2, 1, 2)), (DEFAULT_PRIME, (2, 4, 2, 3)),
                                     (3, (3, 3, 1, 4))])
def test_kernel_worst_case_all_p_minus_1(p, shape):
    """The compiled grid kernel on all-(p-1) weights and inputs equals Python integers."""
    L, d, H, N = shape
    net = LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N, residual=True)
    F = ModP(p)
    params = {k: np.full(v.shape, p - 1, dtype=np.int64)
              for k, v in net.init(np.random.default_rng(0), F).items()}
    A, B = (0,), tuple(range(1, N))
    Ap = np.full((2, 1, d), p - 1, dtype=np.int64)
    Bp = np.full((3, N - 1, d), p - 1, dtype=np.int64)
    got = grid_modp(net, params, Ap, Bp, A, B, p)
    assert got is not None
    X = np.full((1, N, d), p - 1, dtype=object)
    exact = net.apply({k: v.astype(object) for k, v in params.items()}, X, Symbolic())[0]
    assert got.tolist() == [[int(exact) % p] * 3] * 2


# ----------------------------------------------------------------- deterministic corner cases
# Each case below is a fixed input, so a wrong reduction, a skipped row swap or a lost
# pivot fails on every run (hypothesis above explores; these pin the corners down).

SMALL_PRIMES = [2, 3, 5, 7, 65521]


@pytest.mark.parametrize(
    "x, p",
    [
        (65521, 65521),  # x * (1/p) rounds below 1: the quotient guess is one short
        (2 * 65521, 65521),
        (6 * 65521, 65521),
        (5 * 1426319540981635 - 1, 5),  # x * (1/p) rounds up to an integer: one too many
        (1000003 * 8870837654 - 1, 1000003),
        (0, 7),
        (2**53 - 1, DEFAULT_PRIME),
        ((DEFAULT_PRIME - 1) ** 2, DEFAULT_PRIME),
    ],
)
def test_mod_corrects_the_quotient_guess_both_ways(x, p):
    assert x < 2**53  # exact in float64
    r = blas_elimination._mod(float(x), float(p), 1.0 / p)
    assert r == x % p and 0 <= r < p


def _structured(name, p, rng):
    """Matrices whose elimination needs row swaps, skips rows or finds no pivot."""
    if name == "zeros":
        return np.zeros((9, 13), dtype=np.int64)
    if name == "anti_diagonal":  # every pivot of column c sits in row n-1-c
        return np.eye(70, dtype=np.int64)[::-1].copy()
    if name == "cyclic_shift_times_3":
        return (3 * np.roll(np.eye(45, dtype=np.int64), 1, axis=0)) % p
    if name == "leading_zero_rows":
        F = low_rank(rng, 80, 60, 25, p)
        F[:40] = 0
        return F
    if name == "duplicated_rows":
        row = rng.integers(1, p, 50)
        F = np.tile(row, (40, 1))
        F[7] = (2 * row) % p
        F[30] = rng.integers(0, p, 50)
        return F
    if name == "zero_columns":
        F = rng.integers(0, p, (50, 90))
        F[:, ::2] = 0
        F[:, :35] = 0
        return F
    if name == "upper_staircase":  # rank-deficient, pivots only in late rows
        F = np.triu(rng.integers(1, p, (66, 66)), 3)
        return F[::-1].copy()
    if name == "random_small_entries":
        return rng.integers(0, min(p, 3), (75, 68))
    raise AssertionError(name)


STRUCTURED = ["zeros", "anti_diagonal", "cyclic_shift_times_3", "leading_zero_rows",
              "duplicated_rows", "zero_columns", "upper_staircase", "random_small_entries"]


@pytest.mark.parametrize("block", [1, 7, 32, 33, 256])
@pytest.mark.parametrize("p", SMALL_PRIMES + [DEFAULT_PRIME])
@pytest.mark.parametrize("name", STRUCTURED)
def test_structured_matrices_rank_and_pivots(name, p, block):
    rng = np.random.default_rng(17)
    F = _structured(name, p, rng)
    want = rank_modp(F, p, engine="flint")
    assert blas_elimination.rank_blocked(F, p, block=block) == want
    rows, cols = blas_elimination.pivots(np.asarray(F % p, dtype=np.float64), p, block)
    assert len(rows) == want and len(set(rows.tolist())) == want
    assert len(set(cols.tolist())) == want
    assert rank_modp(F[np.ix_(rows, cols)], p, engine="flint") == want  # really pivots


def test_known_ranks_of_structured_matrices():
    rng = np.random.default_rng(17)
    known = {"zeros": 0, "anti_diagonal": 70, "cyclic_shift_times_3": 45, "upper_staircase": 63,
             "duplicated_rows": 2}
    for name, r in known.items():
        assert blas_elimination.rank_blocked(_structured(name, 65521, rng), 65521) == r, name
    assert blas_elimination.rank_blocked(_structured("cyclic_shift_times_3", 3, rng), 3) == 0


@pytest.mark.parametrize("chunk", [1, 5])
def test_chunked_trailing_update_on_a_matrix_needing_swaps(chunk, monkeypatch):
    monkeypatch.setattr(blas_elimination, "CHUNK", chunk)
    rng = np.random.default_rng(3)
    for p in (2, 7, DEFAULT_PRIME):
        F = _structured("leading_zero_rows", p, rng)
        assert blas_elimination.rank_blocked(F, p, block=8) == rank_modp(F, p, engine="flint")


def _is_inverse(S, inv, p):
    prod = (S.astype(np.int64).astype(object) @ inv.astype(np.int64).astype(object)) % p
    return (prod == np.eye(S.shape[0], dtype=np.int64)).all() and inv.min() >= 0 and \
        inv.max() < p


def _unit_lu(rng, k, p):
    """A random k x k matrix with every leading principal minor nonzero mod p."""
    L = np.tril(rng.integers(0, p, (k, k)), -1) + np.eye(k, dtype=np.int64)
    U = np.triu(rng.integers(0, p, (k, k)), 1) + np.diag(rng.integers(1, p, k))
    return ((L.astype(object) @ U.astype(object)) % p).astype(np.float64)


@pytest.mark.parametrize("k", [1, 2, 5, blas_elimination.LEAF, blas_elimination.LEAF + 1, 150])
@pytest.mark.parametrize("p", [3, 65521, DEFAULT_PRIME])
def test_inverse_mod_is_an_inverse(k, p):
    S = _unit_lu(np.random.default_rng(k), k, p)
    assert _is_inverse(S, blas_elimination.inverse_mod(S, p), p)


@pytest.mark.parametrize("k", [2, 9, blas_elimination.LEAF])
def test_gauss_jordan_swaps_rows_for_a_zero_diagonal(k):
    p = 7
    S = (5 * np.roll(np.eye(k), 1, axis=0)) % p  # invertible, every diagonal entry zero
    assert _is_inverse(S, blas_elimination.inverse_mod(S, p), p)


@pytest.mark.parametrize("k", [3, blas_elimination.LEAF + 6])
def test_singular_pivot_block_raises_instead_of_crashing(k):
    from seprank.errors import EliminationError, SeprankError

    S = _unit_lu(np.random.default_rng(0), k, 65521)
    S[:, -1] = S[:, 0]  # singular: the search for a pivot runs off the last row
    with pytest.raises(EliminationError, match="singular") as info:
        blas_elimination.inverse_mod(S, 65521)
    assert isinstance(info.value, SeprankError)


@pytest.mark.parametrize("rel, r, j0, rows", [([5], 0, 0, 3), ([3], 0, 0, 3), ([2], 1, 0, 3),
                                              ([0, 0], 0, 0, 3), ([-1], 0, 0, 3),
                                              ([0, 1, 2, 0], 0, 0, 3), ([0], -1, 0, 3),
                                              ([0], 0, -1, 3), ([0], 0, 0, 2)])
def test_row_move_out_of_range_raises_instead_of_writing_past_the_matrix(rel, r, j0, rows):
    from seprank.errors import EliminationError

    A, order = np.zeros((3, 4)), np.arange(rows)
    with pytest.raises(EliminationError):
        blas_elimination._move_rows(A, order, r, np.array(rel, dtype=np.int64), j0)
    assert not A.any() and order.tolist() == list(range(rows))


def test_row_move_brings_rows_up_and_permutes_order():
    A = np.arange(20, dtype=np.float64).reshape(5, 4)
    order = np.arange(5)
    blas_elimination._move_rows(A, order, 1, np.array([3, 0, 2], dtype=np.int64), 0)
    # rows 1 + (3, 0, 2) = 4, 1, 3 move to positions 1, 2, 3
    assert order.tolist()[:4] == [0, 4, 1, 3]
    assert A[:, 0].tolist() == [4 * v for v in order.tolist()]


def _high_residues(rng, shape, p):
    """Residues in the top quarter whose low 13 bits are often 8191: the largest split
    halves, and products that do not collapse mod p (unlike (p-1)**2 = 1)."""
    x = rng.integers(p - p // 4, p, shape)
    top = (p - 1) - ((p - 1) % 8192) - 1  # largest residue below p with low bits 8191
    x[..., ::3] = top
    return x


@pytest.mark.parametrize("p", [DEFAULT_PRIME, 65521, 8191])
def test_matmul_mod_high_residues_equal_python_ints(p):
    rng = np.random.default_rng(5)
    k = 1 << 13
    A, B = _high_residues(rng, (4, k), p), _high_residues(rng, (k, 3), p)
    want = (A.astype(object) @ B.astype(object)) % p
    got = blas_elimination.matmul_mod(A.astype(np.float64), B.astype(np.float64), p)
    assert got.min() >= 0 and got.max() < p
    assert got.astype(np.int64).tolist() == want.tolist()


# ------------------------------------------------------- compiled kernel at small primes
@pytest.mark.parametrize("p", [2, 3, 5, 7, 101])
@pytest.mark.parametrize("residual", [False, True])
@pytest.mark.parametrize("shape", [(2, 2, 1, 3), (3, 4, 2, 4)])
def test_kernel_matches_generic_path_at_small_primes(p, residual, shape):
    """0 <= output < p and equal to the reference ModP path, over two column tiles."""
    from seprank.engine.sample_grid import evaluate_grid

    L, d, H, N = shape
    net = LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N, residual=residual,
                              query_position=1, output_coord=d - 1)
    F = ModP(p)
    rng = np.random.default_rng(11)
    params = net.init(rng, F)
    A, B = (1,), tuple(i for i in range(N) if i != 1)
    Ap, Bp = F.random(rng, (9, 1, d)), F.random(rng, (70, N - 1, d))  # 70: a partial tile
    got = grid_modp(net, params, Ap, Bp, A, B, p)
    assert got.min() >= 0 and got.max() < p
    assert np.array_equal(got, evaluate_grid(net, params, F, Ap, Bp, A, B))


@pytest.mark.parametrize("p", [3, 65521, DEFAULT_PRIME, MAX_MODULUS])
def test_kernel_rem_is_exact_at_multiples_of_p(p):
    from seprank.nets.attention_kernel import _rem

    for x in [0, p - 1, p, p + 1, 2 * p - 1, 2 * p, 5 * p, (p - 1) ** 2,
              2 * (p - 1) ** 2 if 2 * (p - 1) ** 2 < 2**63 else p * p - 2]:
        r = _rem(np.int64(x), np.int64(p), 1.0 / p)
        assert r == x % p, (x, p)


@pytest.mark.parametrize("x, p, off", [
    (65521, 65521, -1),  # x * (1/p) rounds below 1: r = x - 0 * p = p, one p too many
    (8870864266512961, 1000003, 1),  # rounds up to x // p + 1: r = -1, one p short
    (95842799947359492, 101, 1),
    (2880299230861569979, 65521, 1),
    (7555730239663412592, DEFAULT_PRIME, 1),
    (4434906691467220919, MAX_MODULUS, 1),
])
def test_kernel_rem_corrects_the_quotient_guess_both_ways(x, p, off):
    """The kernel's division-free reduction where its float quotient guess is one off
    (x < 2**63, x / p < 2**50: its contract), so each correction branch is needed."""
    from seprank.nets.attention_kernel import _rem

    assert x < 2**63 and x // p < 2**50
    assert int(np.int64(np.float64(x) * (1.0 / p))) == x // p + off
    assert _rem(np.int64(x), np.int64(p), 1.0 / p) == x % p


@pytest.mark.parametrize("p,shape", [(DEFAULT_PRIME, (2, 4, 2, 3)), (65521, (3, 2, 1, 3))])
def test_kernel_high_residues_equal_python_ints(p, shape):
    """Weights and inputs in the top quarter of the residues: exact against Python ints."""
    L, d, H, N = shape
    net = LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N, residual=True)
    rng = np.random.default_rng(2)
    params = {k: _high_residues(rng, v.shape, p)
              for k, v in net.init(rng, ModP(p)).items()}
    Ap, Bp = _high_residues(rng, (3, 1, d), p), _high_residues(rng, (4, N - 1, d), p)
    got = grid_modp(net, params, Ap, Bp, (0,), tuple(range(1, N)), p)
    obj = {k: v.astype(object) for k, v in params.items()}
    for r in range(3):
        for c in range(4):
            X = np.concatenate([Ap[r], Bp[c]])[None].astype(object)
            assert got[r, c] == int(net.apply(obj, X, Symbolic())[0]) % p


def test_rank_blocked_argument_limits_and_empty_matrices():
    F = np.eye(3, dtype=np.int64)
    assert blas_elimination.rank_blocked(F, 7, block=1 << 13) == 3
    for block in (0, (1 << 13) + 1):
        with pytest.raises(ValueError, match="block="):
            blas_elimination.rank_blocked(F, 7, block=block)
    for p in (1, 0):
        with pytest.raises(ValueError, match="p="):
            blas_elimination.rank_blocked(F, p)
    assert blas_elimination.rank_blocked(np.zeros((0, 3), dtype=np.int64), 7) == 0
    assert blas_elimination.rank_blocked(np.zeros((3, 0), dtype=np.int64), 7) == 0
    assert blas_elimination.rank_blocked(np.array([[-1, 7], [6, 14]]), 7) == 1  # reduced first
    assert blas_elimination.available()


@pytest.mark.parametrize("p", [7, 101])
def test_rank_blocked_reduces_entries_outside_the_residues(p):
    """Integers >= p or < 0 are reduced first: p itself is 0 (not a pivot), -1 is p - 1."""
    assert blas_elimination.rank_blocked(np.array([[p, 0], [0, 1]]), p) == 1  # max == p, min == 0
    assert blas_elimination.rank_blocked(np.array([[p, 2 * p], [3 * p, 1]]), p) == 1
    assert blas_elimination.rank_blocked(np.array([[-1, 1], [1, -1]]), p) == 1  # min < 0, max < p
    assert blas_elimination.rank_blocked(np.array([[-p, 0], [0, 0]]), p) == 0
    assert blas_elimination.rank_blocked(np.array([[p + 1, 1], [1, 1 - p]]), p) == 1


# ------------------------------------------------ rank.py: cases the mutation run found
def test_rank_modp_dispatches_by_engine(monkeypatch):
    """auto uses the BLAS engine below 2**26; flint never does (both exact: only the
    dispatch can tell them apart)."""
    F = np.array([[1, 2], [2, 4]])
    calls = []

    def spy(M, p, overwrite=False):
        calls.append(p)
        return 1

    monkeypatch.setattr(lu_rank, "rank", spy)
    assert rank_modp(F, 101, engine="flint") == 1 and calls == []
    assert rank_modp(F, 101, engine="auto") == 1 and calls == [101]


def test_rank_modp_array_torch_when_torch_is_installed():
    pytest.importorskip("torch")
    assert rank_modp(np.array([[1, 2], [2, 4], [0, 3]]), 101, engine="array-torch") == 2


def test_rank_float_edges():
    import dataclasses

    from seprank.algebra.float_rank import rank_float

    bad = rank_float(np.array([[1.0, np.nan], [0.0, 1.0]]))
    assert bad.rank == -1 and np.isnan(bad.tolerance) and np.isnan(bad.spectrum).all()
    with pytest.raises(dataclasses.FrozenInstanceError):
        bad.rank = 2
    one = rank_float(np.array([[5.0]]))
    assert one.rank == 1 and one.tolerance == pytest.approx(5.0 * np.finfo(float).eps)
    empty = rank_float(np.zeros((0, 3)))
    assert (empty.rank, empty.tolerance, empty.spectrum.size) == (0, 0.0, 0)


def test_rank_coefficients_with_one_row_or_column():
    """A polynomial in the B variables only has one row (the monomial 1 on side A)."""
    from sympy import ZZ, ring

    from seprank.algebra.coefficients import rank_coefficients

    R, x0, x1 = ring("x0,x1", ZZ)
    assert rank_coefficients(x1 + x1**2, {0}) == (1, (1, 2))
    assert rank_coefficients(x0 * x1 + x0, {0}) == (1, (1, 2))
    assert rank_coefficients(R(0), {0}) == (0, (0, 0))
    assert rank_coefficients(x0 + x0**2, {0}) == (1, (2, 1))  # one column


def test_rank_coefficients_refuses_past_max_cells():
    """2001 x 2001 = 4,004,001 cells (> 4e6) with only 2001 terms: refused before the
    matrix is built (the cell count is rows times columns, not their sum)."""
    from sympy import ZZ, ring

    from seprank.algebra.coefficients import rank_coefficients
    from seprank.errors import TooBigError

    R, x0, x1 = ring("x0,x1", ZZ)
    poly = sum((x0**i * x1**i for i in range(2001)), R(0))
    with pytest.raises(TooBigError, match="2001x2001"):
        rank_coefficients(poly, {0})


def test_float_trustworthy_rank_one_and_missing_rank():
    from types import SimpleNamespace as M

    from seprank.algebra.float_rank import float_trustworthy

    s = np.array([10.0, 1e-9, 5e-10, 2e-10])
    assert float_trustworthy(M(spectrum=s, rank=1, tolerance=1e-8, saturated=True, scaled_rank=1))
    assert not float_trustworthy(M(spectrum=s, tolerance=1e-8, saturated=True))  # no rank


# -------------------------------- found by the mutation run on blas_elimination.py (part 2)
def test_largest_prime_and_the_first_refused_modulus():
    """2**26 - 5 is the largest prime accepted; 2**26 and the first prime above it are
    refused (their products of residues no longer split exactly)."""
    F = np.array([[1, 2], [3, 4]])
    assert blas_elimination.rank_blocked(F, (1 << 26) - 5) == 2
    for p in (1 << 26, (1 << 26) + 15):
        with pytest.raises(ValueError, match="p="):
            blas_elimination.rank_blocked(F, p)


def test_matmul_mod_largest_low_halves_with_a_high_remainder():
    """B's low 13 bits 8191 with a carry into bit 13 (16383 = 2**14 - 1), A all p - 1,
    inner dimension 2**13: the low-half product is the largest the split allows, and the
    high half reduces to p - 1. A split at 2**14 would round here (the sum passes 2**53)."""
    p = (1 << 26) - 5
    k = 1 << 13
    B = np.full((k, 3), 16383.0)
    B[-1, 0] += 16384  # the high parts sum to 1: (p - 1) * 1 reduces to p - 1
    B[:, 2] = (p - 1) - ((p - 1) % 16384) - 1  # the largest residue with low 14 bits set
    A = np.full((2, k), p - 1.0)
    want = (A.astype(np.int64).astype(object) @ B.astype(np.int64).astype(object)) % p
    assert blas_elimination.matmul_mod(A, B, p).astype(np.int64).tolist() == want.tolist()


def _swap_probe(m, c_piv, c_amb):
    """3 x m: column c_piv's only nonzero is in row 2, column c_amb's are in rows 0 and 1.

    Inside one scalar panel the search for c_amb's pivot goes in row order and meets row 0
    first. Across a panel boundary the panel's pivot row 2 has been swapped to the top
    (positions: rows 2, 1, 0), so the search meets row 1 first. The pivot rows thus show
    whether c_piv and c_amb lie in one panel."""
    A = np.zeros((3, m))
    A[2, c_piv] = 1.0
    A[0, c_amb] = A[1, c_amb] = 1.0
    return A


@pytest.mark.parametrize(
    "m, c_piv, c_amb, block, rows",
    [
        (40, 31, 32, None, [2, 1]),  # INNER = 32: columns 31 and 32 in different panels
        (40, 32, 33, None, [2, 0]),  # columns 32 and 33 in one panel
        (40, 31, 32, 64, [2, 1]),
        (40, 0, 1, 32, [2, 0]),  # block <= INNER: one scalar pass, no recursion
        (300, 255, 256, None, [2, 1]),  # BLOCK = 256: 255 | 256 is a block boundary
        (300, 256, 257, None, [2, 0]),  # 256 and 257 in one panel of the second block
    ],
)
def test_panel_boundaries_and_the_row_order_of_the_pivot_search(m, c_piv, c_amb, block, rows):
    A = _swap_probe(m, c_piv, c_amb)
    got_rows, cols = (blas_elimination.pivots(A, 7) if block is None
                      else blas_elimination.pivots(A, 7, block))
    assert (got_rows.tolist(), cols.tolist()) == (rows, [c_piv, c_amb])


def test_pivot_search_takes_the_first_nonzero_row():
    """Column 0: rows 1 and 2 qualify, row 1 is taken; column 1 then has row 2 alone
    (row 1 is used, row 0 is zero)."""
    W = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]])
    rows, cols = blas_elimination._panel(W, 7.0, 1.0 / 7)
    assert rows.tolist() == [1, 2] and cols.tolist() == [0, 1]


def _zero_diagonal(k, p=7):
    return (5 * np.roll(np.eye(k), 1, axis=0)) % p  # invertible, every diagonal entry zero


def test_leaf_size_decides_between_gauss_jordan_and_blocks():
    """Up to LEAF = 64 Gauss-Jordan with row swaps inverts any invertible matrix; past it
    the block inversion needs an invertible leading half (the half sizes are k // 2) and
    refuses one that is singular instead of returning a wrong inverse."""
    from seprank.errors import EliminationError

    p = 7
    S = _zero_diagonal(64, p)
    assert _is_inverse(S, blas_elimination.inverse_mod(S, p), p)
    D = np.zeros((128, 128))  # halves of 64: each one Gauss-Jordan
    D[:64, :64] = D[64:, 64:] = S
    assert _is_inverse(D, blas_elimination.inverse_mod(D, p), p)
    with pytest.raises(EliminationError, match="singular"):
        blas_elimination.inverse_mod(_zero_diagonal(65, p), p)  # leading 32 x 32 half is singular


@pytest.mark.parametrize("rel, r, j0, rows, message", [
    ([0, 1, 2, 0], 0, 0, 3, "more pivot rows than rows left"),
    ([0], -1, 0, 3, "more pivot rows"), ([0], 0, -1, 3, "more pivot rows"),
    ([0], 0, 0, 2, "more pivot rows"), ([5], 0, 0, 3, "out of range or repeated"),
    ([3], 0, 0, 3, "out of range"), ([0, 0], 0, 0, 3, "repeated"),
    ([-1], 0, 0, 3, "out of range")])
@pytest.mark.parametrize("compiled", [True, False])
def test_row_move_refusals_name_the_reason(rel, r, j0, rows, message, compiled):
    """Each refusal says which check failed; the Python body (numpy checks every index)
    refuses the same way before touching anything."""
    from seprank.errors import EliminationError

    move = blas_elimination._move_rows if compiled else blas_elimination._move_rows_body
    A, order = np.zeros((3, 4)), np.arange(rows)
    with pytest.raises(EliminationError, match=message):
        move(A, order, r, np.array(rel, dtype=np.int64), j0)
    assert not A.any() and order.tolist() == list(range(rows))


def test_python_bodies_match_the_compiled_routines_with_index_checks():
    """The compiled routines do no bounds checks; their Python bodies run under numpy's,
    so an index past an array's end raises here instead of reading or writing memory."""
    from seprank.errors import EliminationError

    rng = np.random.default_rng(23)
    for p in (2, 7, 65521):
        pf, pinv = float(p), 1.0 / p
        for shape in [(5, 3), (3, 5), (6, 6)]:
            W = rng.integers(0, p, shape).astype(np.float64)
            W[1] = W[0]
            got = blas_elimination._panel_pivots_body(W.copy(), pf, pinv)
            want = blas_elimination._panel(W.copy(), pf, pinv)
            assert [a.tolist() for a in got] == [a.tolist() for a in want]
        for k in (1, 2, 5):
            S = _unit_lu(rng, k, p)
            S = S[::-1].copy()  # reversed rows: the search for a pivot swaps rows
            inv = blas_elimination._gj_inverse_body(S, pf, pinv)
            direct = blas_elimination._gj_inverse(S, pf, pinv)
            assert _is_inverse(S, inv, p) and np.array_equal(inv, direct)
        singular = np.array([[1.0, 2.0, 1.0], [0.0, 1.0, 0.0], [1.0, 3.0, 1.0]])
        with pytest.raises(EliminationError, match="singular"):
            blas_elimination._gj_inverse_body(singular, pf, pinv)
    A = np.arange(20, dtype=np.float64).reshape(4, 5)
    order = np.arange(4)
    blas_elimination._move_rows_body(A, order, 1, np.array([2, 0], dtype=np.int64), 1)
    assert order.tolist() == [0, 3, 1, 2]
    assert A[:, 1:].tolist() == [[5.0 * o + c for c in range(1, 5)] for o in order.tolist()]
    assert A[:, 0].tolist() == [0.0, 5.0, 10.0, 15.0]  # columns before j0 never move
    H, Lo = np.array([[3.0, 9000.0], [0.0, 6.0]]), np.array([[5.0, 1.0], [8191.0, 0.0]])
    C = np.array([[1.0, 0.0], [2.0, 4.0]])
    blas_elimination._subtract_body(C, H.copy(), Lo, pf, pinv)
    blas_elimination._combine_body(H, Lo, pf, pinv)
    want = (np.array([[3, 9000], [0, 6]]) * 8192 + np.array([[5, 1], [8191, 0]])) % p
    assert H.astype(np.int64).tolist() == want.tolist()
    assert C.astype(np.int64).tolist() == ((np.array([[1, 0], [2, 4]]) - want) % p).tolist()


def test_rank_of_one_by_one_matrices():
    assert blas_elimination.rank_blocked(np.array([[3]]), 7) == 1
    assert blas_elimination.rank_blocked(np.array([[7]]), 7) == 0
    assert blas_elimination.rank_blocked(np.array([[0]]), 2) == 0


@pytest.mark.parametrize("p", [7, 65521])
def test_fused_subtract_and_combine_return_residues(p):
    """Every difference C - (H * 2**13 + Lo) in (-p, p), -1 and 0 among them, comes back
    as its residue in [0, p) (-1 as p - 1, never -1 or p)."""
    vals = np.array([0, 1, 2, p - 2, p - 1], dtype=np.float64)
    C, Lo = (a.ravel().copy() for a in np.meshgrid(vals, vals))
    H = np.zeros_like(C)
    C, H, Lo = C[None], H[None], Lo[None]
    want = ((C - Lo) % p).astype(np.int64).tolist()
    blas_elimination.subtract_products(C, H, Lo, float(p), 1.0 / p)
    assert C.astype(np.int64).tolist() == want
    H2 = np.full_like(Lo, p - 1.0)
    blas_elimination._combine(H2, Lo, float(p), 1.0 / p)
    assert H2.astype(np.int64).tolist() == (((p - 1) * 8192 + Lo) % p).astype(np.int64).tolist()


@pytest.mark.parametrize("p, k, exact", [(DEFAULT_PRIME, 1 << 13, True), (MAX_MODULUS, 4, True),
                                         (MAX_MODULUS, 65, False), (536870909, 256, True),
                                         (536870909, 257, False)])
def test_split_exact_is_the_float64_limit_of_two_products(p, k, exact):
    assert blas_elimination.split_exact(p, k) is exact


@pytest.mark.parametrize("p, k", [(MAX_MODULUS, 65), (536870909, 300), (DEFAULT_PRIME, 9000)])
def test_matmul_mod_is_exact_past_the_split_limit(p, k):
    """Primes above 2**26 reach matmul_mod from the graded strategy; past split_exact (and
    past the 2**13 inner dimension) it computes in int64, not in float64 that rounds."""
    A = np.full((3, k), p - 1, dtype=np.float64)
    B = np.full((k, 2), p - 1, dtype=np.float64)
    rng = np.random.default_rng(k)
    A[1] = rng.integers(0, p, k)
    want = [[sum(int(a) * int(b) for a, b in zip(A[i], B[:, j])) % p for j in range(2)]
            for i in range(3)]
    assert blas_elimination.matmul_mod(A, B, p).tolist() == want
