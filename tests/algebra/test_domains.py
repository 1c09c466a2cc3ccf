import numpy as np
import pytest

from seprank.algebra.domains import DEFAULT_PRIME, MAX_MODULUS, ModP, parse_domain
from seprank.errors import DomainError
from seprank.nets import LinearSelfAttention


def test_modp_worst_case_all_residues_p_minus_1():
    """Every operand p-1 with the largest allowed prime and a long contraction: exact."""
    p = MAX_MODULUS
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
    from seprank.algebra.domains import Symbolic
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


def _top_residues(rng, shape, p):
    """Residues in the top quarter: products near (p-1)**2 whose residues mod p are
    spread out, so a missing reduction shows (all p-1 would collapse: (p-1)**2 = 1)."""
    return rng.integers(p - max(p // 4, 1), p, size=shape, dtype=np.int64)


@pytest.mark.parametrize("p", [MAX_MODULUS, DEFAULT_PRIME, 65521])
@pytest.mark.parametrize("n", [1, 2, 3, 4096])
def test_modp_chunked_einsum_high_residues_equal_python_ints(p, n):
    """Chunked (MAX_MODULUS: 2 products per chunk) and unchunked contractions: exact,
    reduced into [0, p)."""
    rng = np.random.default_rng(n)
    F = ModP(p)
    a, b = _top_residues(rng, (3, n), p), _top_residues(rng, (n, 2), p)
    got = F.einsum("ik,kj->ij", a, b)
    want = (a.astype(object) @ b.astype(object)) % p
    assert got.dtype == np.int64 and got.min() >= 0 and got.max() < p
    assert got.tolist() == want.tolist()
    # two summed letters: the chunked letter is not the only one
    c = _top_residues(rng, (3, n, 2), p)
    got2 = F.einsum("ikl,kl->i", c, b)
    want2 = [sum(int(c[i, k, j]) * int(b[k, j]) for k in range(n) for j in range(2)) % p
             for i in range(3)]
    assert got2.tolist() == want2


def test_modp_refuses_a_contraction_it_cannot_make_exact():
    F = ModP(MAX_MODULUS)  # max_terms == 2: 16-bit limbs hold 2**16 + 1 terms a sum
    a = np.ones((1, 300, 300, 1), dtype=np.int64)  # summed k, l, m (m broadcast from b):
    b = np.ones((1, 1, 300), dtype=np.int64)  # split along one, 300 x 300 terms remain
    with pytest.raises(DomainError, match="too long"):
        F.einsum("iklm,klm->i", a, b)


def test_einsum_mod_p_broadcasts_a_summed_letter_of_size_1():
    """A summed letter of size 1 in one operand counts the other's size (numpy broadcasts
    it): four products near (p-1)**2 at p near 2**31 are chunked, not one overflowing sum;
    the longest summed letter is the one split."""
    p = MAX_MODULUS
    F = ModP(p)
    q = p - 1
    assert F.einsum("ij,ij->i", np.full((1, 4), q), np.full((1, 1), q)).tolist() == [4]
    assert F.einsum("ij,ij->i", np.full((1, 1), q), np.full((1, 4), q)).tolist() == [4]
    assert F.einsum("ikl,kl->i", np.full((2, 1, 3), q), np.full((1, 3), q)).tolist() == [3, 3]


def test_modp_long_contractions_near_2_31_are_exact_through_limbs():
    """max_terms(MAX_MODULUS) == 2; a 3 x 3 inner block and a length-5000 matmul are
    split into 16-bit limbs, not 2-term sums, and agree with Python integers."""
    p = MAX_MODULUS
    F, rng = ModP(p), np.random.default_rng(3)
    a, b = _top_residues(rng, (2, 3, 3), p), _top_residues(rng, (3, 3), p)
    want = [sum(int(x) * int(y) for x, y in zip(a[i].ravel(), b.ravel())) % p for i in range(2)]
    assert F.einsum("ikl,kl->i", a, b).tolist() == want
    from seprank.algebra.field_array import matmul_modp

    u, v = _top_residues(rng, (3, 5000), p), _top_residues(rng, (5000, 2), p)
    got = matmul_modp(u, v, p)
    assert got.tolist() == [[sum(int(x) * int(y) for x, y in zip(u[i], v[:, j])) % p
                             for j in range(2)] for i in range(3)]


@pytest.mark.parametrize("p", [2, 3, 101, DEFAULT_PRIME, MAX_MODULUS])
def test_modp_add_mul_from_ints_reduce_into_range(p):
    F = ModP(p)
    rng = np.random.default_rng(p % 1000)
    a, b = _top_residues(rng, (50,), p), _top_residues(rng, (50,), p)
    for got, want in ((F.add(a, b), [(int(x) + int(y)) % p for x, y in zip(a, b)]),
                      (F.mul(a, b), [int(x) * int(y) % p for x, y in zip(a, b)])):
        assert got.tolist() == want
    big = np.array([-(2**70) - 1, -1, 0, p + 1, 2**70 + 5], dtype=object)
    big = big[[int(v) % p != 0 or v == 0 for v in big]]  # a nonzero multiple is refused
    assert F.from_ints(big).tolist() == [int(v) % p for v in big]
    assert F.from_ints(np.array([-1, p + 1, 2 * p + 1])).tolist() == [p - 1, 1, 1]
    for multiple in (np.array([3, p]), np.array([-p], dtype=object)):  # 0 in GF(p): refused
        with pytest.raises(DomainError, match=f"nonzero multiple of the prime p={p}"):
            F.from_ints(multiple)
    r = F.random(np.random.default_rng(0), (2000,))
    assert r.dtype == np.int64 and r.min() >= 0 and r.max() < p
    assert F.zeros((2, 3)).tolist() == [[0] * 3] * 2
    assert F.describe() == {"domain": "modp", "prime": p}


@pytest.mark.parametrize("n, prime", [(2, True), (3, True), (4, False), (9, False), (91, False),
                                      (97, True), (561, False), (65521, True),
                                      (DEFAULT_PRIME, True), (MAX_MODULUS, True),
                                      (2147483629, True), (46337**2, False),
                                      (2047, False), (1373653, False), (25326001, False),
                                      (0, False), (-7, False)])
def test_is_prime_against_sympy(n, prime):
    """Near the top of the range too: the largest modulus, the prime below it, the square
    of the largest prime below isqrt(MAX_MODULUS), and strong pseudoprimes to the first one
    to three prime bases (a Miller-Rabin with too few bases would call them prime)."""
    from sympy import isprime

    from seprank.algebra.domains import is_prime

    assert is_prime(n) is prime and isprime(n) == prime


def test_is_prime_against_a_sieve():
    """Every integer below 20,000 (and a few negatives): the answer of a sieve."""
    from seprank.algebra.domains import is_prime

    n = 20000
    sieve = np.ones(n, dtype=bool)
    sieve[:2] = False
    for q in range(2, 142):
        if sieve[q]:
            sieve[q * q :: q] = False
    assert [is_prime(k) for k in range(-3, n)] == [False] * 3 + sieve.tolist()


@pytest.mark.parametrize("n", [MAX_MODULUS + 1, MAX_MODULUS + 2, 3215031751, 2**40 + 15])
def test_is_prime_refuses_beyond_the_largest_modulus(n):
    """Moduli are at most 2**31 - 1; a larger candidate is refused, prime or not
    (3215031751: the strong pseudoprime to bases 2, 3, 5 and 7), by name."""
    from seprank.algebra.domains import is_prime
    from seprank.engine.confirm import next_primes_below

    with pytest.raises(DomainError, match=rf"^prime={n} is too large: must be <= 2\*\*31-1 "):
        is_prime(n)
    with pytest.raises(DomainError, match=f"prime={n} is too large"):
        next_primes_below(n, 2)
    assert next_primes_below(MAX_MODULUS, 2) == [MAX_MODULUS, 2147483629]


def test_modp_rejects_non_integer_moduli():
    for bad in (7.0, "7", True, None):
        with pytest.raises(DomainError, match="must be an integer"):
            ModP(bad)
    assert ModP(np.int64(7)).p == 7


def test_float_and_symbolic_domains():
    from seprank.algebra.domains import Float64, Symbolic

    f = Float64(scale=0.5)
    x = f.random(np.random.default_rng(0), (4000,))
    assert x.dtype == np.float64 and 0.4 < x.std() < 0.6
    assert f.from_ints([1, 2]).dtype == np.float64 and f.describe() == {"domain": "float64"}
    s = Symbolic(weight_range=3)
    w = s.random(np.random.default_rng(0), (500,))
    vals = {int(v) for v in w}
    assert vals <= {-3, -2, -1, 1, 2, 3} and 0 not in vals and len(vals) == 6
    assert s.add(2, 3) == 5 and s.mul(2, 3) == 6
    assert s.einsum("i,i->", np.array([2, 3]), np.array([4, 5])) == 23


def test_symbolic_inputs_are_the_named_generators():
    from seprank.algebra.domains import symbolic_inputs

    R, X = symbolic_inputs(2, 3)
    assert X.shape == (1, 2, 3) and str(X[0, 1, 2]) == "x1_2" and len(R.gens) == 6


@pytest.mark.parametrize("p", [2, 3, 5, 17, 257, 65537, 101, DEFAULT_PRIME, MAX_MODULUS])
def test_max_terms_is_the_largest_safe_count(p):
    """max_terms products of (p-1)^2 fit int64 and one more does not: at Fermat primes
    (p - 1 a power of two) 2**63 // (p-1)^2 would be one too many."""
    F = ModP(p)
    assert F.max_terms * (p - 1) ** 2 <= 2**63 - 1 < (F.max_terms + 1) * (p - 1) ** 2


def test_domains_defaults_and_immutability():
    """The defaults (Float64 weights of unit scale, symbolic weights in [-9, 9] without
    0) and frozen, hashable instances whose name and exactness are not arguments."""
    import dataclasses

    from seprank.algebra.domains import Float64, Symbolic

    x = Float64().random(np.random.default_rng(0), (4000,))
    assert 0.95 < x.std() < 1.05
    assert Float64().mul(np.array([2.0, -3.0]), np.array([4.0, 0.5])).tolist() == [8.0, -1.5]
    assert Float64().add(np.array([2.0]), np.array([0.5])).tolist() == [2.5]
    ws = Symbolic().random(np.random.default_rng(0), (2000,))
    assert all(type(v) is int for v in ws)  # exact integers, not floats
    assert set(ws.tolist()) == set(range(-9, 10)) - {0}
    r = ModP(3).random(np.random.default_rng(0), (200,))  # every residue, 0 included
    assert r.dtype == np.int64 and set(r.tolist()) == {0, 1, 2}
    for dom in (Float64(), Symbolic(), ModP(101)):
        assert hash(dom) == hash(dataclasses.replace(dom))
        with pytest.raises(dataclasses.FrozenInstanceError):
            dom.name = "other"
    assert Symbolic().exact and ModP(101).exact and not Float64().exact
    for make in (Float64, Symbolic, lambda **kw: ModP(101, **kw)):
        for field in ("name", "exact"):
            with pytest.raises(TypeError):
                make(**{field: 1})
