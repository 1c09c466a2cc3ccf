"""Grid tensors: partition checks, samplers, the matricised grid and its memory guard."""

import numpy as np
import pytest

from seprank.algebra.domains import Float64, ModP
from seprank.engine import sample_grid as grid
from seprank.errors import ConfigError, SamplingError
from seprank.nets import LinearSelfAttention, partitions


@pytest.mark.parametrize(
    "partition, seq_len, A, B",
    [
        ([0], 2, (0,), (1,)),
        ([3], 4, (3,), (0, 1, 2)),  # the last position is a valid A side
        ((2, 0), 4, (0, 2), (1, 3)),
        (np.array([1, 4]), 5, (1, 4), (0, 2, 3)),
        ([np.int64(1)], 3, (1,), (0, 2)),  # any integral number is a position
    ],
)
def test_check_partition_returns_sorted_sides(partition, seq_len, A, B):
    assert partitions.check_partition(partition, seq_len) == (A, B)


@pytest.mark.parametrize(
    "partition, seq_len, text",
    [
        ([0, 4], 4, "out of range 0..3: [4]"),  # position N itself is out of range
        ([4], 4, "out of range"),
        ([-1], 4, "out of range 0..3: [-1]"),
        ([0, 9], 4, "out of range"),
        ([], 4, "empty"),
        ([1, 1], 4, "repeats"),
        ([0, 1, 2, 3], 4, "B side would be empty"),
        ([0, 1], 2, "B side would be empty"),
        (None, 4, "list of positions"),
        (["a"], 4, "list of positions"),
        (["1"], 3, "list of positions"),  # a string is not a position: never coerced
        ([0.5], 3, "list of positions"),  # nor is a float ([0.5] was once (0,))
        ("01", 3, "list of positions"),  # nor a string of digits (once (0, 1))
    ],
)
def test_check_partition_rejects(partition, seq_len, text):
    with pytest.raises(ConfigError, match=text.replace("[", r"\[").replace("]", r"\]")):
        partitions.check_partition(partition, seq_len)


def test_position_n_is_rejected_by_measure_and_bounds():
    from seprank import measure
    from seprank.theory.bounds import theorem_bound

    net = LinearSelfAttention(depth=1, width=2, heads=1, seq_len=4)
    for f in (lambda: measure(net, [0, 4]), lambda: theorem_bound(net, [0, 4])):
        with pytest.raises(ConfigError, match="out of range"):
            f()


@pytest.mark.parametrize("n, want", [(2, (0,)), (3, (0,)), (4, (0, 1)), (7, (0, 1, 2))])
def test_default_partition(n, want):
    assert partitions.default_partition(n) == want


def test_template_points_enumerate_every_assignment():
    T = np.arange(6).reshape(3, 2)
    P = grid.template_points(T, 2)
    assert P.shape == (9, 2, 2)
    assert [tuple(P[i, :, 0] // 2) for i in range(9)] == [(a, b) for a in range(3)
                                                          for b in range(3)]


@pytest.mark.parametrize("samples, positions, want", [(1, 1, 1), (9, 2, 3), (10, 2, 4),
                                                       (8, 3, 2), (27, 3, 3), (28, 3, 4),
                                                       (5, 1, 5), (1000, 3, 10)])
def test_templates_needed_is_the_smallest_m(samples, positions, want):
    m = grid.templates_needed(samples, positions)
    assert m == want and m**positions >= samples and (m - 1) ** positions < samples


@pytest.mark.parametrize("positions", [1, 2, 3])
def test_templates_needed_is_at_least_one(positions):
    """A template grid needs a template even for an empty sample (M = 0 has no rows)."""
    assert grid.templates_needed(0, positions) == 1


def test_random_points_shape_and_domain():
    pts = grid.random_points(ModP(7), np.random.default_rng(0), 5, 2, 3)
    assert pts.shape == (5, 2, 3) and pts.min() >= 0 and pts.max() < 7


@pytest.mark.parametrize("chunk", [1, 2, 7, 12, 13, 1000])
def test_evaluate_grid_cell_by_cell(chunk):
    """F[r, c] = f(A row r at positions A, B column c at positions B), any chunk."""
    net = LinearSelfAttention(depth=2, width=2, heads=1, seq_len=4, query_position=2)
    D = Float64()
    rng = np.random.default_rng(1)
    params = net.init(rng, D)
    A, B = (0, 2), (1, 3)
    Ap, Bp = D.random(rng, (5, 2, 2)), D.random(rng, (4, 2, 2))
    F = grid.evaluate_grid(net, params, D, Ap, Bp, A, B, chunk=chunk)
    assert F.shape == (5, 4)
    for r in range(5):
        for c in range(4):
            X = np.empty((1, 4, 2))
            X[0, list(A)], X[0, list(B)] = Ap[r], Bp[c]
            assert F[r, c] == pytest.approx(net.apply(params, X, D)[0], rel=1e-12)


def test_check_matrix_fits():
    grid.check_matrix_fits(10, 10, limit_bytes=800)  # exactly at the limit: fine
    with pytest.raises(SamplingError, match="max_samples: a 10x11 grid"):
        grid.check_matrix_fits(10, 11, limit_bytes=800)
    with pytest.raises(SamplingError):
        grid.check_matrix_fits(10, 10, itemsize=16, limit_bytes=800)
    grid.check_matrix_fits(100, 100)  # default: a quarter of RAM
    ram = grid.available_memory()
    assert ram > 2**28
    with pytest.raises(SamplingError):
        grid.check_matrix_fits(1, ram // 32 + 1)  # 8 bytes per cell: over a quarter


class _Spy(LinearSelfAttention):
    """Records the batch size of every apply call."""

    def apply(self, params, X, domain):
        object.__getattribute__(self, "batches").append(X.shape[0])
        return np.zeros(X.shape[0])


def _spy_batches(P, Q, **kw):
    net = _Spy(depth=1, width=1, heads=1, seq_len=2)
    object.__setattr__(net, "batches", [])
    D = Float64()
    F = grid.evaluate_grid(net, None, D, np.zeros((P, 1, 1)), np.zeros((Q, 1, 1)), (0,), (1,),
                           **kw)
    assert F.shape == (P, Q)
    return net.batches


@pytest.mark.parametrize("P, Q, chunk, want", [(5, 3, 7, [6, 6, 3]), (5, 4, 3, [4] * 5),
                                                (3, 1, 2, [2, 1]), (4, 2, 100, [8]),
                                                (2, 0, 5, [0])])
def test_evaluate_grid_batches_bound_memory(P, Q, chunk, want):
    """Whole rows per batch, as many as fit in ``chunk`` inputs (at least one row)."""
    assert _spy_batches(P, Q, chunk=chunk) == want


def test_default_chunk_is_16384_inputs():
    assert grid.DEFAULT_CHUNK == 1 << 14
    assert _spy_batches(5000, 7) == [16380, 16380, 2240]  # 2340 rows of 7 per batch


def test_memory_guard_message_and_default_limit(monkeypatch):
    with pytest.raises(SamplingError, match=r"32768x32768 grid needs 8\.0 GiB, over the 1\.0 GiB"):
        grid.check_matrix_fits(1 << 15, 1 << 15, limit_bytes=1 << 30)
    with pytest.raises(SamplingError, match=r"needs 1\.5 GiB, over the 0\.5 GiB allowed"):
        grid.check_matrix_fits(3 << 13, 1 << 13, limit_bytes=1 << 29)  # fractional GiB
    monkeypatch.setattr(grid, "available_memory", lambda: 4000)  # a quarter: 1000 bytes
    grid.check_matrix_fits(10, 12)  # 960 bytes
    with pytest.raises(SamplingError, match="over the 0.0 GiB allowed"):
        grid.check_matrix_fits(11, 12)  # 1056 bytes


def test_default_limit_is_a_whole_number_of_bytes(monkeypatch):
    """2**30 + 1 bytes of memory: the limit is 2**28 bytes (0.25 GiB, printed 0.2)."""
    monkeypatch.setattr(grid, "available_memory", lambda: 2**30 + 1)
    with pytest.raises(SamplingError, match=r"over the 0\.2 GiB allowed"):
        grid.check_matrix_fits(1 << 13, 1 << 13)  # 0.5 GiB


def test_available_memory_falls_back_to_8_gib(monkeypatch):
    import os

    assert grid.available_memory() == os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    for exc in (ValueError, OSError, AttributeError):
        def broken(name, exc=exc):
            raise exc(name)

        monkeypatch.setattr(os, "sysconf", broken)
        assert grid.available_memory() == 8 * 2**30


def test_make_evaluator_uses_the_kernel_only_where_it_applies(monkeypatch):
    """The compiled kernel by default for LinearSelfAttention over GF(p) (it declares the
    capability; not for other domains, a subclass with methods of its own, or
    use_kernel=False); the same grid as evaluate_grid, and evaluate_grid when the kernel
    declines (returns None)."""
    from seprank.nets import attention_kernel

    if not attention_kernel.available():
        pytest.skip("numba kernel not available")
    real, calls = attention_kernel.grid_modp, []

    def spy(*args):
        calls.append((args[0].depth, args[0].query_position))
        return real(*args)

    monkeypatch.setattr(attention_kernel, "grid_modp", spy)
    rng = np.random.default_rng(0)
    net, D = LinearSelfAttention(depth=2, width=2, seq_len=4), ModP(101)
    params = net.init(rng, D)
    Ap, Bp = D.random(rng, (3, 2, 2)), D.random(rng, (5, 2, 2))
    want = grid.evaluate_grid(net, params, D, Ap, Bp, (0, 1), (2, 3))
    F = grid.make_evaluator(net, params, D, (0, 1), (2, 3))(Ap, Bp)
    assert calls == [(2, 0)] and np.array_equal(F % 101, want % 101)
    calls.clear()
    grid.make_evaluator(net, params, D, (0, 1), (2, 3), use_kernel=False)(Ap, Bp)
    fp = net.init(rng, Float64())
    grid.make_evaluator(net, fp, Float64(), (0, 1), (2, 3))(Ap.astype(float), Bp.astype(float))
    class Subclass(LinearSelfAttention):  # another function: the kernel is not its own
        def _scores(self, q, k, domain):
            return super()._scores(q, k, domain)

    sub = Subclass(depth=2, width=2, seq_len=4)
    F = grid.make_evaluator(sub, params, D, (0, 1), (2, 3))(Ap, Bp)
    assert np.array_equal(F % 101, want % 101)
    assert calls == []
    with pytest.raises(TypeError):  # use_kernel and chunk are keyword-only
        grid.make_evaluator(net, params, D, (0, 1), (2, 3), False)
    monkeypatch.setattr(attention_kernel, "grid_modp", lambda *a: calls.append(1))  # declines
    F = grid.make_evaluator(net, params, D, (0, 1), (2, 3))(Ap, Bp)
    assert calls == [1] and np.array_equal(F % 101, want % 101)
