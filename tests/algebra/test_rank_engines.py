"""The rank engine interface and its registry: every registered engine agrees on rank and
pivots mod several primes, the declared limits refuse in one line, ``auto`` reads the
declarations, and an engine registered from outside is used by ``measure``."""

from typing import ClassVar

import numpy as np
import pytest

from seprank import measure
from seprank.algebra import blas_elimination
from seprank.algebra.rank import RANK_ENGINES, RankEngine, check_rank_engine, register, unregister
from seprank.algebra.rank_engines import BUILT_IN, engine_class, engine_names
from seprank.errors import ConfigError
from seprank.nets import LinearSelfAttention
from tests._truth import rank_mod_p

#: Primes from the smallest to the largest modulus ModP accepts (2**26 - 5: the largest
#: the float64 engines take; 2**31 - 1: flint's only).
PRIMES = [2, 7, 65521, (1 << 26) - 5, 2**31 - 1]


def _matrices(p: int, seed: int = 0):
    """Low-rank, sparse (pivots off the diagonal) and zero-column matrices mod p."""
    rng = np.random.default_rng([seed, p])
    low = (rng.integers(0, p, (14, 4), dtype=np.int64) % 46340
           @ (rng.integers(0, p, (4, 11), dtype=np.int64) % 46340)) % p
    sparse = rng.integers(0, p, (12, 15)) * (rng.random((12, 15)) < 0.15)
    sparse[:, [0, 4]] = 0
    return [low, sparse, np.vstack([sparse[:3], sparse[:3] * 2 % p])]


def _running(p: int) -> list[str]:
    return [n for n in engine_names() if engine_class(n).missing() is None
            and engine_class(n).fits(p)]


@pytest.mark.parametrize("p", PRIMES)
def test_every_registered_engine_agrees_on_rank_and_pivots(p):
    names = _running(p)
    assert "flint" in names and ("blas" in names) == (p < 1 << 26)
    for M in _matrices(p):
        want = rank_mod_p(M, p)
        pivots = {n: RankEngine.choose(n, p).pivots(M) for n in names}
        for n in names:
            eng = RankEngine.choose(n, p)
            assert eng.name == n and eng.rank(M) == want, n
            rows, cols = pivots[n]
            assert len(rows) == len(cols) == want and rank_mod_p(M[np.ix_(rows, cols)], p) == want
        assert len({str(v) for v in pivots.values()}) == 1  # the same minor from every engine


@pytest.mark.parametrize("p", [7, 65521])
def test_left_kernel_and_matmul_through_the_interface(p):
    for n in _running(p):
        eng = RankEngine.choose(n, p)
        M = _matrices(p)[0]
        A, B = M[:, :5].astype(np.float64), M[:5].astype(np.float64)
        want = (M[:, :5].astype(object) @ M[:5].astype(object)) % p
        assert (eng.matmul(A, B).astype(np.int64) == want).all(), n
        if not eng.has_left_kernel:
            with pytest.raises(ConfigError, match=rf"^rank_engine={n!r} has no left kernel$"):
                eng.left_kernel(M)
            continue
        K = eng.left_kernel(M).astype(np.int64)
        assert K.shape == (M.shape[0] - rank_mod_p(M, p), M.shape[0])
        assert not ((K.astype(object) @ M.astype(object)) % p).any()  # every row kills M
        assert rank_mod_p(K, p) == K.shape[0]  # a basis


@pytest.mark.parametrize("cls", [c for c in BUILT_IN if c.prime_limit is not None])
def test_a_prime_over_an_engines_limit_is_refused_in_one_line(cls):
    p = 2**31 - 1
    with pytest.raises(ConfigError) as e:
        RankEngine.choose(cls.name, p, arg="rank_engine")
    assert str(e.value) == (f"rank_engine={cls.name!r} needs prime < 2**26 (got prime={p}); "
                            "use auto or flint")
    with pytest.raises(ConfigError, match=rf"^rank_engine={cls.name!r} needs prime < 2\*\*26"):
        measure(LinearSelfAttention(depth=1, width=2, seq_len=2), rank_engine=cls.name, prime=p)
    assert RankEngine.choose(cls.name, cls.prime_limit - 5).p == cls.prime_limit - 5


def test_the_declared_limits_are_the_ones_checked():
    for cls in BUILT_IN:
        assert cls.fits(cls.prime_limit - 1 if cls.prime_limit else 2**31 - 1)
        assert cls.prime_limit is None or not cls.fits(cls.prime_limit)
        assert "cpu" in cls.devices and set(cls.auto_on) <= set(cls.devices)
    assert [c.name for c in BUILT_IN if "cuda" in c.devices] == ["array-torch"]
    assert tuple(RANK_ENGINES) == ("auto", "blas", "flint", "array-numpy", "array-torch")


def test_auto_falls_back_when_blas_is_missing(monkeypatch):
    monkeypatch.setattr(blas_elimination, "available", lambda: False)
    assert RankEngine.choose("auto", 65521).name == "flint"
    with pytest.raises(ConfigError, match=r"^rank_engine='blas' needs numba"):
        RankEngine.choose("blas", 65521, arg="rank_engine")


class Toy(RankEngine):
    """A toy engine wrapping flint, counting its calls (registered by the tests only)."""

    name = "toy"
    calls: ClassVar[list] = []

    def _rank(self, M, overwrite):
        Toy.calls.append(M.shape)
        return RankEngine.choose("flint", self.p).rank(M)


class Preferred(Toy):
    """The toy declared for auto on the CPU, ahead of every engine, for primes below 100."""

    name = "preferred-toy"
    prime_limit = 100
    auto_on = ("cpu",)
    preference = -1


@pytest.fixture
def toy():
    Toy.calls.clear()
    register(Toy)
    yield Toy
    unregister("toy")


def test_a_registered_engine_is_one_class_that_measure_uses(toy):
    assert RANK_ENGINES[-1] == "toy" and "toy" in RANK_ENGINES
    check_rank_engine("toy", 65521, name="rank_engine")
    assert RankEngine.choose("auto", 65521).name != "toy"  # auto never takes it: not auto_on
    net = LinearSelfAttention(depth=1, width=2, seq_len=4)
    for strategy in ("direct", "catalecticant"):
        toy.calls.clear()
        m = measure(net, rank_engine="toy", strategy=strategy)
        ref = measure(net, rank_engine="flint", strategy=strategy)
        assert toy.calls, strategy  # the toy engine ranked the matrices
        assert (m.rank, m.history, m.saturated) == (ref.rank, ref.history, ref.saturated)
    unregister("toy")
    assert "toy" not in RANK_ENGINES
    with pytest.raises(ConfigError, match=r"^rank_engine='toy' must be one of auto, blas, "):
        measure(net, rank_engine="toy")


def test_auto_reads_the_declarations_not_the_names():
    register(Preferred)
    try:
        assert RankEngine.choose("auto", 97).name == "preferred-toy"  # fits, preferred
        assert RankEngine.choose("auto", 65521).name == "blas"  # over its prime limit
        assert engine_names()[0] == "preferred-toy"
    finally:
        unregister("preferred-toy")
    assert RankEngine.choose("auto", 97).name == "blas"


@pytest.mark.parametrize("bad, match", [
    (int, r"^rank_engine=<class 'int'> must be a RankEngine subclass$"),
    (type("Auto", (Toy,), {"name": "auto"}),
     r"^rank_engine='auto' must be a name other than '' or 'auto'$"),
    (type("Blas2", (Toy,), {"name": "blas"}),
     r"^rank_engine='blas' is registered already \(BlasEngine\)$"),
])
def test_register_refuses_in_one_line(bad, match):
    with pytest.raises(ConfigError, match=match):
        register(bad)
    assert tuple(RANK_ENGINES) == ("auto", *(c.name for c in BUILT_IN))


def test_an_engine_on_another_array_library_is_one_class():
    """An array engine for another library overrides ``array_backend`` only (here numpy
    again, counting its products): registered, it ranks as the others do."""
    from seprank.algebra.array_elimination import NumpyBackend
    from seprank.algebra.rank_engines.array_numpy import ArrayNumpyEngine

    products = []

    class Counting(NumpyBackend):
        def matmul(self, a, b):
            products.append(a.shape)
            return a @ b

    class Again(ArrayNumpyEngine):
        name = "array-again"

        def array_backend(self):
            return Counting()

    register(Again)
    try:
        M = _matrices(65521)[0]
        eng = RankEngine.choose("array-again", 65521, arg="rank_engine")
        assert eng.rank(M) == rank_mod_p(M, 65521) == 4 and products
        with pytest.raises(ConfigError, match=r"^rank_engine='array-again' needs prime < 2\*\*26"):
            RankEngine.choose("array-again", 2**31 - 1, arg="rank_engine")  # inherited limit
    finally:
        unregister("array-again")
