import numpy as np
import pytest

from seprank.domains import DEFAULT_PRIME, MAX_PRIME, ModP, parse_domain
from seprank.errors import DomainError
from seprank.nets import LinearSelfAttention


def test_modp_worst_case_all_residues_p_minus_1():
    """Every operand p-1 with the largest allowed prime and a long contraction: exact."""
    p = MAX_PRIME
    F = ModP(p)
    n = 4096  # far beyond max_terms (== 2) for this prime: exercises the chunking
    a = np.full((3, n), p - 1, dtype=np.int64)
    b = np.full((n, 2), p - 1, dtype=np.int64)
    got = F.einsum("ik,kj->ij", a, b)
    want = (n * (p - 1) ** 2) % p  # Python ints: exact
    assert got.tolist() == [[want] * 2] * 3
    assert F.mul(a[:, :1], b[:1, :1].T).tolist() == [[(p - 1) ** 2 % p]] * 3
    assert F.add(a, a)[0, 0] == (2 * (p - 1)) % p


def test_default_prime_is_prime_and_contraction_budget():
    F = ModP()
    assert F.p == DEFAULT_PRIME
    assert F.max_terms * (F.p - 1) ** 2 <= 2**63 - 1
    assert F.max_terms >= 2**11


def test_network_worst_case_weights_and_inputs_p_minus_1():
    """The whole network on all-(p-1) weights and inputs equals a Python-int evaluation."""
    p = DEFAULT_PRIME
    net = LinearSelfAttention(depth=2, width=4, heads=2, seq_len=3, residual=True)
    F = ModP(p)
    params = {k: np.full(v.shape, p - 1, dtype=np.int64) for k, v in
              net.init(np.random.default_rng(0), F).items()}
    X = np.full((1, 3, 4), p - 1, dtype=np.int64)
    got = int(net.apply(params, X, F)[0])
    obj = {k: v.astype(object) for k, v in params.items()}
    from seprank.domains import Symbolic
    exact = net.apply(obj, X.astype(object), Symbolic())[0]
    assert got == int(exact) % p


@pytest.mark.parametrize("bad", [1, 100, 2**31 + 11, 2**61 - 1, -7])
def test_modp_rejects_bad_modulus(bad):
    with pytest.raises(DomainError, match="prime="):
        ModP(bad)


def test_parse_domain():
    assert parse_domain("modp", 7).p == 7
    with pytest.raises(DomainError, match="domain="):
        parse_domain("complex")


def test_domain_laws_against_python_ints(domain, rng):
    """add/mul/einsum agree with Python integer arithmetic (mod p where relevant)."""
    ints = rng.integers(-50, 50, size=(3, 4))
    ints2 = rng.integers(-50, 50, size=(4, 2))
    a, b = domain.from_ints(ints), domain.from_ints(ints2)
    want = ints.astype(object) @ ints2.astype(object)
    got = domain.einsum("ik,kj->ij", a, b)
    mod = getattr(domain, "p", None)
    for g, w in zip(np.asarray(got).ravel(), want.ravel()):
        if mod:
            assert int(g) == int(w) % mod
        else:
            assert float(g) == float(w)
