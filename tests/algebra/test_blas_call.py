"""One BLAS call updates a block where it lies: views, overlap and refusals."""

import numpy as np
import pytest

from seprank.algebra import blas_call


def test_subtract_product_on_views_of_a_larger_matrix():
    rng = np.random.default_rng(0)
    M = rng.integers(-9, 9, (60, 70)).astype(np.float64)
    want = M.copy()
    want[20:50, 30:65] -= M[20:50, 0:7] @ M[3:10, 30:65]
    blas_call.subtract_product(M[20:50, 30:65], M[20:50, 0:7].copy(), M[3:10, 30:65].copy())
    assert M.tolist() == want.tolist()
    assert blas_call.available()


def test_overlapping_operand_is_read_before_it_is_written():
    M = np.arange(36, dtype=np.float64).reshape(6, 6)
    want = M.copy()
    want[:, 2:] -= M[:, :2] @ M[:2, 2:]
    blas_call.subtract_product(M[:, 2:], M[:, :2], M[:2, 2:])  # C's rows include B's
    assert M.tolist() == want.tolist()


@pytest.mark.parametrize("shape", [(0, 3, 4), (3, 0, 4), (3, 4, 0)])
def test_empty_products_change_nothing(shape):
    m, k, n = shape
    C = np.ones((m, n))
    blas_call.subtract_product(C, np.ones((m, k)), np.ones((k, n)))
    assert (C == 1).all()


def test_refusals_name_the_argument():
    C = np.zeros((4, 4))
    with pytest.raises(ValueError, match="do not match"):
        blas_call.subtract_product(C, np.ones((4, 2)), np.ones((3, 4)))
    with pytest.raises(ValueError, match="C must be a 2-d float64"):
        blas_call.subtract_product(C.astype(np.float32), np.ones((4, 2)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="C must have contiguous"):
        blas_call.subtract_product(np.zeros((4, 8))[:, ::2], np.ones((4, 2)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="A must have contiguous"):
        blas_call.subtract_product(C, np.ones((2, 4)).T, np.ones((2, 4)))
    C.flags.writeable = False
    with pytest.raises(ValueError, match="writeable"):
        blas_call.subtract_product(C, np.ones((4, 2)), np.ones((2, 4)))
