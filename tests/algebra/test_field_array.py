"""Field arrays: plain numpy code is exact in GF(p), or refused naming the operation."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seprank.algebra.degree import DEGREES
from seprank.algebra.field_array import GF, FieldArray, field, max_terms
from seprank.errors import DomainError

P = 67108859
BIG = 2**31 - 1  # max_terms(BIG) == 2: every contraction longer than 2 is split


def ref(a):
    return np.array(a, dtype=object)


def same(F, R, p=P):
    assert isinstance(F, FieldArray)
    R = np.asarray(np.asarray(R, dtype=object) % p, dtype=object)
    assert F.raw.tolist() == R.tolist()


arrays = st.integers(1, 4).flatmap(
    lambda n: st.lists(st.integers(0, P - 1), min_size=n * 3, max_size=n * 3).map(
        lambda v: np.array(v, dtype=np.int64).reshape(n, 3)))


@settings(max_examples=40, deadline=None)
@given(a=arrays, b=st.lists(st.integers(0, P - 1), min_size=9, max_size=9))
def test_arithmetic_matches_python_integers(a, b):
    w = np.array(b, dtype=np.int64).reshape(3, 3)
    A, W = field(a, P), field(w, P)
    same(A @ W, ref(a) @ ref(w))
    same(A * A - 3 * A + 1, ref(a) * ref(a) - 3 * ref(a) + 1)
    same(-A, -ref(a))
    same(A**5, ref(a) ** 5)
    same(np.einsum("nc,cd,nd->n", A, W, A), np.einsum("nc,cd,nd->n", ref(a), ref(w), ref(a)))
    same(np.einsum("nc,nc", A, A), np.einsum("nc,nc", ref(a), ref(a)))
    same(A.sum(axis=0), ref(a).sum(axis=0))
    same(np.cumsum(A, axis=1), np.cumsum(ref(a), axis=1))
    same(np.prod(A, axis=1), np.prod(ref(a), axis=1))
    same(np.cumprod(A, axis=1), np.cumprod(ref(a), axis=1))
    same(A.mean(axis=1) * 3, ref(a).sum(axis=1))
    same(A / 4 * 4, ref(a))
    same(Fraction(2, 3) * A * 3, 2 * ref(a))
    same(0.375 * A * 8, 3 * ref(a))
    same(np.dot(A, W), ref(a) @ ref(w))
    same(np.tensordot(A, W, axes=1), ref(a) @ ref(w))
    same(np.trace(W), sum(ref(w)[i, i] for i in range(3)))


def test_long_contractions_are_split_and_exact():
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, BIG, (3, 7)), rng.integers(0, BIG, (7, 2))
    A, B = field(a, BIG), field(b, BIG)
    assert max_terms(BIG) < 7
    same(A @ B, ref(a) @ ref(b), BIG)
    same(np.einsum("ij,jk->ik", A, B), ref(a) @ ref(b), BIG)
    same(np.einsum("ij,jk,k->i", A, B, field([1, 1], BIG)), (ref(a) @ ref(b)).sum(axis=1), BIG)


def test_structure_scalars_and_assignment_stay_in_the_field():
    A = field(np.arange(12).reshape(3, 4) % 7, 7)  # residues: a multiple of 7 is refused
    assert isinstance(A[0, 0], FieldArray) and A[0, 0].shape == ()
    for obj in (np.tril(A), np.triu(A), np.concatenate([A, np.ones((1, 4))]), np.stack([A, A]),
                A.T, A.reshape(4, 3), np.where(np.eye(3, 4, dtype=bool), A, 0), A[:, ::2],
                np.broadcast_to(A[0], (2, 4)), np.zeros_like(A), sum(A)):
        assert isinstance(obj, FieldArray) and obj.p == 7
    prod = A[1, 1] * A[1, 2] * A[1, 3]  # scalars: exact, not int64 overflow
    assert prod.raw == (5 * 6 * 0) % 7
    A[0, 0] = Fraction(1, 2)
    assert A.raw[0, 0] == 4  # 1/2 = 4 mod 7
    assert [int(r.raw.sum()) % 7 == int(r.sum().raw) for r in A] == [True] * 3


@pytest.mark.parametrize("what, op", [
    ("exp", lambda A: np.exp(A)),
    ("tanh", lambda A: np.tanh(A)),
    ("greater", lambda A: A > 1),
    ("equal", lambda A: A == A),
    ("maximum", lambda A: np.maximum(A, 2)),
    ("astype(float64)", lambda A: A.astype(float)),
    ("float()", lambda A: float(A[0, 0])),
    ("truth value", lambda A: bool(A[0, 0])),
    ("division by a non-constant", lambda A: A / A),
    ("division by a non-constant", lambda A: 1 / A),
    ("nan", lambda A: A * float("nan")),
    ("inf", lambda A: A * float("inf")),
    ("exponent", lambda A: A**0.5),
    ("exponent", lambda A: A**-1),
    ("order-based", lambda A: A.max()),
    ("numpy.sort", lambda A: np.sort(A)),
    ("numpy.det", lambda A: np.linalg.det(A)),
    ("numpy.sqrt", lambda A: np.sqrt(A)),
    ("different number systems", lambda A: A + field([1], 5)),
    ("complex", lambda A: A * 1j),
])
def test_operations_leaving_the_field_are_refused(what, op):
    A = field(np.arange(1, 10).reshape(3, 3) % 7, 7)
    with pytest.raises(DomainError, match=what.replace("(", r"\(").replace(")", r"\)")):
        op(A)


def test_modular_constants_are_exact_rationals():
    ops = GF(7)
    assert ops.constant([Fraction(1, 3), 0.5, True, -1, 2**70]).tolist() == [5, 4, 1, 6, 2**70 % 7]
    with pytest.raises(DomainError, match="divisible by p"):
        ops.constant(Fraction(1, 7))


def test_degree_arrays_bound_plain_numpy_code():
    W, X = DEGREES.wrap(np.ones((2, 2), np.int64)), DEGREES.wrap(np.ones((3, 2), np.int64))
    assert ((X @ W) ** 2 * 0.5 + 1).raw.max() == 4
    assert np.einsum("nc,cd,nd->n", X, W, X).raw.tolist() == [3, 3, 3]
    assert np.cumsum(X * X, axis=0).raw.max() == 2 and np.prod(X, axis=0).raw.max() == 3
    assert np.tril(np.ones((2, 2)) * W).raw.tolist() == [[1, 0], [1, 1]]
    with pytest.raises(DomainError, match="exp"):
        np.exp(X)


def test_the_domain_einsum_takes_any_number_of_operands():
    from seprank.algebra.degree import DegreeDomain
    from seprank.algebra.domains import Float64, ModP

    a, b, c = np.arange(6).reshape(2, 3), np.arange(12).reshape(3, 4), np.arange(4)
    want = np.einsum("ij,jk,k->i", a, b, c)
    assert ModP(13).einsum("ij,jk,k->i", a, b, c).raw.tolist() == (want % 13).tolist()
    assert Float64().einsum("ij,jk,k->i", a, b, c).tolist() == want.tolist()
    da, db, dc = (DEGREES.wrap(x) for x in (a, b, c))  # read as degrees
    assert DegreeDomain().einsum("ij,jk,k->i", da, db, dc).raw.max() == 5 + 11 + 3
    assert DegreeDomain().einsum("ij,jk,k->i", da, b, dc).raw.max() == 5 + 3  # b: a constant


@pytest.mark.parametrize("what, op", [
    ("sum with where", lambda A: np.sum(A, where=np.eye(3, dtype=bool))),
    ("prod with where", lambda A: np.prod(A, where=np.eye(3, dtype=bool))),
    ("mean with where", lambda A: np.mean(A, where=np.eye(3, dtype=bool))),
    ("axes", lambda A: np.matmul(A, A, axes=[(0, 1), (0, 1), (0, 1)])),
    ("indexing by array values", lambda A: A[0, A[0, :1]]),
    ("flat", lambda A: A.flat),
    ("order-based", lambda A: A.choose([A, A])),
    ("not read exactly", lambda A: A * np.longdouble(0.5)),
])
def test_more_ways_out_of_the_field_are_refused(what, op):
    A = field(np.arange(1, 10).reshape(3, 3) % 7, 7)
    with pytest.raises(DomainError, match=what):
        op(A)


def test_outputs_nested_blocks_and_put_are_exact():
    A = field(np.arange(4).reshape(2, 2), 7)
    C = field(np.zeros((2, 2), dtype=np.int64), 7)
    np.einsum("ij,jk->ik", A, A, out=C)
    same(C, ref(A.raw) @ ref(A.raw), 7)
    assert np.block([[A, A]]).shape == (2, 4) and isinstance(np.block([[A, A]]), FieldArray)
    A.put([0], [0.5])
    assert A.raw[0, 0] == 4  # 1/2 mod 7


def test_domain_operations_and_wrapped_weights_read_constants_exactly():
    from seprank.algebra.degree import DegreeDomain
    from seprank.algebra.domains import ModP

    x = field([1, 2], 101)
    assert ModP(101).mul(x, 0.5).raw.tolist() == [51, 1]  # 1/2 and 2/2 mod 101
    w = ModP(101).wrap({"avg": np.full(2, 0.25), "big": np.array([2**40])})
    assert w["avg"].raw.tolist() == [pow(4, -1, 101)] * 2 and w["big"].raw[0] == 2**40 % 101
    d = DegreeDomain().wrap({"c": np.arange(3) - 8})  # constants: degree 0, never negative
    assert d["c"].raw.tolist() == [0, 0, 0]
    from fractions import Fraction

    tenth = Fraction(0.1)  # the float 0.1 is this binary fraction, read exactly
    assert tenth.denominator == 2**55
    got = ModP(101).wrap({"c": np.array([0.1])})["c"].raw[0]
    assert got == tenth.numerator * pow(tenth.denominator, -1, 101) % 101
    with pytest.raises(DomainError, match="inf"):
        ModP(101).wrap({"c": np.array([np.inf])})
