"""An independent path for the tensor-shaped architectures (tensorly, a test extra).

From the same integer weights, tensorly builds the coefficient tensor T[m_1..m_N] of
f(x^1..x^N) = <x^1 (x) ... (x) x^N, T> (cp_to_tensor for the shallow ConvAC, tt_to_tensor
and tr_to_tensor for open and periodic MPS, khatri_rao + mode products for the deep
ConvAC). T is unfolded over the partition and ranked exactly over Q (python-flint's
fmpz_mat); for multilinear f that rank is the separation rank ([V2] grid-tensor
principle, attained on the standard-basis grid), and it must equal seprank's GF(p)
measurement of the same integer network on random points.
"""

import numpy as np
import pytest

from seprank import measure
from seprank.nets import MPS, ConvACDeep, ConvACShallow

tl = pytest.importorskip("tensorly")
flint = pytest.importorskip("flint")


def exact_unfold_rank(T: np.ndarray, A) -> int:
    """Rank over Q of the (A, B) unfolding of an integer tensor."""
    N = T.ndim
    B = [n for n in range(N) if n not in A]
    M = np.transpose(T, list(A) + B).reshape(int(np.prod([T.shape[a] for a in A])), -1)
    ints = np.rint(M).astype(np.int64)
    assert np.array_equal(ints, M) and np.abs(ints).max() < 2**52  # exact in float64
    return flint.fmpz_mat(ints.tolist()).rank()


def small_ints(net, seed):
    """Integer weights in [-3, 3] with the shapes of ``net.init``."""
    rng = np.random.default_rng(seed)
    from seprank.algebra.domains import Float64

    return {k: rng.integers(-3, 4, size=np.shape(v))
            for k, v in net.init(rng, Float64()).items()}  # fmpz-friendly


def seprank_rank(net, A, w):
    m = measure(net, A, weights=w, seed=1)
    assert m.saturated
    return m.rank


def shallow_tensor(net, w):
    # CP: T = sum_z a_z W[0, z] (x) ... (x) W[N-1, z]; tensorly factors are (M, Z).
    cp = (w["a"].astype(float), [w["W"][n].T.astype(float) for n in range(net.seq_len)])
    return tl.to_numpy(tl.cp_to_tensor(cp))


def mps_tensor(net, w):
    G = w["G"].astype(float)  # (N, d, chi, chi) -> cores (chi_left, d, chi_right)
    cores = [np.transpose(G[n], (1, 0, 2)) for n in range(net.seq_len)]
    if net.periodic:
        return tl.to_numpy(tl.tr_to_tensor(cores))
    cores[0], cores[-1] = cores[0][:1], cores[-1][:, :, :1]
    return tl.to_numpy(tl.tt_to_tensor(cores))


def deep_tensor(net, w):
    """Hierarchical Tucker by explicit contractions: phi (channels x M^k) per node; pooling
    is the column-wise Kronecker product (tensorly's khatri_rao), a convolution a mode-0
    product (tensorly's mode_dot)."""
    N, M = net.seq_len, net.in_dim
    phis = [w["a0"][n].astype(float) for n in range(N)]  # (r0, M)
    for lvl in range(1, net.levels):
        pooled = [tl.tenalg.khatri_rao([phis[2 * j].T, phis[2 * j + 1].T]).T
                  for j in range(len(phis) // 2)]
        phis = [tl.tenalg.mode_dot(p, w[f"a{lvl}"][j].astype(float), 0)
                for j, p in enumerate(pooled)]
    top = tl.tenalg.khatri_rao([phis[0].T, phis[1].T]).T  # (r_{L-1}, M^N)
    return tl.to_numpy(w["out"].astype(float) @ top).reshape((M,) * N)


def check_tensor_matches_apply(net, w, T):
    """The tensor is f's: f(e_{i_1}, ..., e_{i_N}) = T[i_1..i_N] at a few basis points."""
    from seprank.algebra.domains import Float64

    F = Float64()
    rng = np.random.default_rng(0)
    idx = rng.integers(0, T.shape[0], size=(6, net.seq_len))
    X = np.eye(T.shape[0])[idx]
    vals = net.apply({k: F.from_ints(v) for k, v in w.items()}, X, F)
    assert np.allclose(vals, [T[tuple(i)] for i in idx])


CASES = [
    (ConvACShallow(seq_len=4, in_dim=3, channels=5), shallow_tensor, [(0,), (0, 1), (0, 2)]),
    (ConvACShallow(seq_len=5, in_dim=2, channels=3), shallow_tensor, [(0, 1), (1, 3)]),
    (ConvACDeep(seq_len=4, in_dim=2, channels=(2, 4)), deep_tensor, [(0, 1), (0, 2), (0,)]),
    (ConvACDeep(seq_len=8, in_dim=2, channels=(2, 2, 2)), deep_tensor,
     [(0, 1, 2, 3), (0, 2, 4, 6), (0, 1, 4, 5)]),
    (MPS(seq_len=6, phys_dim=2, bond=2), mps_tensor, [(0, 1, 2), (0, 2, 4), (0, 5)]),
    (MPS(seq_len=5, phys_dim=3, bond=2), mps_tensor, [(0, 1), (0, 2, 4)]),
    (MPS(seq_len=4, phys_dim=3, bond=2, periodic=True), mps_tensor, [(0, 1), (0, 2)]),
    (MPS(seq_len=6, phys_dim=2, bond=2, periodic=True), mps_tensor, [(0, 1, 2), (0, 2, 4)]),
]


@pytest.mark.parametrize("net, build, parts", CASES, ids=[repr(c[0]) for c in CASES])
def test_tensorly_unfolding_rank_equals_seprank_measurement(net, build, parts):
    """[V2] grid-tensor principle: rank of the unfolded coefficient tensor = sep(f)."""
    w = small_ints(net, seed=7)
    T = build(net, w)
    check_tensor_matches_apply(net, w, T)
    for A in parts:
        assert exact_unfold_rank(T, A) == seprank_rank(net, A, w), A
