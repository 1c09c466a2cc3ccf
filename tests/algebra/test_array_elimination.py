"""The array-backend GF(p) elimination: numpy, torch CPU (and CUDA if present) vs flint."""

import subprocess
import sys

import flint
import numpy as np
import pytest

from seprank.algebra import array_elimination
from seprank.algebra.domains import DEFAULT_PRIME
from seprank.algebra.rank import rank_modp
from seprank.errors import ConfigError

PRIMES = [3, 31, 257, DEFAULT_PRIME]


@pytest.fixture(params=["numpy", "torch-cpu", "torch-cuda"])
def xp(request):
    if request.param == "numpy":
        return array_elimination.get_backend("numpy")
    torch = pytest.importorskip("torch")
    device = request.param.split("-")[1]
    if device == "cuda" and not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    return array_elimination.get_backend("torch", device)


def flint_rank(F, p):
    F = np.asarray(F, dtype=np.int64)
    if F.size == 0:
        return 0
    return int(flint.nmod_mat(F.shape[0], F.shape[1], (F % p).ravel().tolist(), p).rank())


def low_rank(seed, n, m, k, p, entries=None):
    """An n x m matrix of rank <= k mod p: U @ V with U, V entries below ``entries``
    (default p; products in Python ints when int64 could overflow, so exact)."""
    rng = np.random.default_rng(seed)
    hi = p if entries is None else entries
    kind = object if hi * hi * max(k, 1) >= 2**62 else np.int64
    U = rng.integers(0, hi, (n, k)).astype(kind)
    V = rng.integers(0, hi, (k, m)).astype(kind)
    return np.asarray((U @ V) % p, dtype=np.int64) if k else np.zeros((n, m), np.int64)


def with_swaps(seed, n, m, k, p):
    """Low rank with zero leading columns, a zero first row, duplicated rows, zero columns."""
    F = low_rank(seed, n, m, k, p)
    F[:, :3] = 0
    F[0] = 0
    F[n // 2] = F[1]
    F[-1] = F[2]
    F[:, m // 2] = 0
    return F


def worst_residues(seed, n, m, k, p):
    """Entries in {p-1, p-2, p-3} (no collapse mod p) plus an all-(p-1) row; rank >= 1."""
    rng = np.random.default_rng(seed)
    F = p - 1 - rng.integers(0, min(3, p - 1), (n, m))
    F[0] = p - 1
    return F


CASES = {  # name: (matrix builder, n, m, k)
    "square-low-rank": (low_rank, 40, 40, 25),
    "tall": (low_rank, 70, 20, 15),
    "wide": (low_rank, 15, 90, 12),
    "full-rank": (low_rank, 30, 30, 30),
    "rank-0": (low_rank, 6, 9, 0),
    "row-swaps": (with_swaps, 50, 45, 30),
    "worst-residues": (worst_residues, 35, 40, None),
    "one-row": (low_rank, 1, 17, 1),
    "one-column": (low_rank, 17, 1, 1),
}


@pytest.mark.parametrize("p", PRIMES)
@pytest.mark.parametrize("case", CASES)
def test_rank_and_pivots_equal_flint(xp, case, p):
    build, n, m, k = CASES[case]
    F = build(sum(map(ord, case)) + p, n, m, k, p)
    want = flint_rank(F, p)
    rows, cols = array_elimination.pivots(F, p, xp)
    assert len(rows) == len(cols) == want
    assert flint_rank(F[rows][:, cols], p) == want  # the pivots select an invertible block


@pytest.mark.parametrize("widths", [(5, 2, 1), (3, 1), (1,)])
@pytest.mark.parametrize("case", ["square-low-rank", "row-swaps", "wide", "tall"])
def test_other_strip_widths_and_chunks(xp, case, widths, monkeypatch):
    # more recursion levels on small inputs
    monkeypatch.setattr(array_elimination, "WIDTHS", widths)
    monkeypatch.setattr(array_elimination, "CHUNK", 7)  # the update products in many column chunks
    build, n, m, k = CASES[case]
    F = build(1, n, m, k, 31)
    assert array_elimination.rank(F, 31, xp) == flint_rank(F, 31)


def test_larger_than_one_block(xp):
    """Crosses the 256-column strip in both shapes; entries past p and negative too."""
    p = DEFAULT_PRIME
    F = low_rank(7, 300, 280, 270, p, entries=1000)
    assert array_elimination.rank(F, p, xp) == flint_rank(F, p) == 270
    G = low_rank(8, 120, 600, 110, p, entries=1000) + p * np.arange(-2, 3).repeat(120)[:120, None]
    assert array_elimination.rank(G, p, xp) == flint_rank(G, p) == 110


@pytest.mark.parametrize("shape", [(0, 0), (0, 5), (5, 0)])
def test_empty_matrix(xp, shape):
    assert array_elimination.rank(np.zeros(shape, dtype=np.int64), 7, xp) == 0


def test_worst_case_strip_update_is_exact(xp):
    array_elimination.check_exact(xp)  # all entries p-1, p = 2**26 - 5, inner dimension 2**12


def test_torch_and_numpy_find_the_same_pivots():
    pytest.importorskip("torch")
    torch_cpu = array_elimination.get_backend("torch", "cpu")
    F = with_swaps(3, 90, 300, 60, DEFAULT_PRIME)
    a = array_elimination.pivots(F, DEFAULT_PRIME, array_elimination.get_backend("numpy"))
    b = array_elimination.pivots(F, DEFAULT_PRIME, torch_cpu)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize("engine", ["array-numpy", "array-torch"])
def test_rank_modp_array_engines(engine):
    if engine == "array-torch":
        pytest.importorskip("torch")
    F = with_swaps(5, 40, 30, 20, DEFAULT_PRIME)
    assert rank_modp(F, DEFAULT_PRIME, engine=engine) == rank_modp(F, DEFAULT_PRIME, "flint")


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"device": "tpu"}, "device='tpu'"),
        ({"engine": "blas", "device": "cuda"}, "device='cuda' needs engine="),
        ({"engine": "array-numpy", "p": 2**31 - 1}, "engine='array-numpy' needs prime"),
    ],
)
def test_rank_modp_refuses_bad_device_or_prime(kwargs, match):
    p = kwargs.pop("p", 7)
    with pytest.raises(ConfigError, match=match):
        rank_modp(np.eye(3, dtype=np.int64), p, **kwargs)


def test_cuda_missing_is_a_one_line_config_error(monkeypatch):
    monkeypatch.setattr(array_elimination, "cuda_problem",
                        lambda: "torch.cuda.is_available() is False")
    with pytest.raises(ConfigError, match="device='cuda' is unavailable") as e:
        rank_modp(np.eye(3, dtype=np.int64), 7, device="cuda")
    assert "\n" not in str(e.value)


def test_without_torch(monkeypatch):
    """torch absent: the numpy engine works, torch and cuda are one-line ConfigErrors."""
    monkeypatch.setitem(sys.modules, "torch", None)  # makes `import torch` fail
    assert array_elimination.cuda_problem() == "torch is not installed"
    with pytest.raises(ConfigError, match="device='cuda' is unavailable: torch is not"):
        rank_modp(np.eye(3, dtype=np.int64), 7, device="cuda")
    with pytest.raises(ConfigError, match="engine='array-torch' needs torch"):
        rank_modp(np.eye(3, dtype=np.int64), 7, engine="array-torch")
    assert rank_modp(np.eye(3, dtype=np.int64), 7, engine="array-numpy") == 3


def test_package_imports_without_importing_torch():
    code = ("import sys, seprank, seprank.algebra.rank, seprank.algebra.array_elimination; "
            "assert 'torch' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_cuda_device_end_to_end_when_present():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    F = with_swaps(9, 500, 700, 400, DEFAULT_PRIME)
    assert rank_modp(F, DEFAULT_PRIME, device="cuda") == flint_rank(F, DEFAULT_PRIME) == 400
