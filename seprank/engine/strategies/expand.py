"""The ``expand`` strategy: f's exact coefficients, from the network's own ``apply`` run on
sparse multivariate polynomials (python-flint), and the exact rank of its coefficient
matrix (rows: monomials in x_A, columns: monomials in x_B; f = sum coef m_A m_B).

Any polynomial architecture small enough to expand, with nothing declared but its degree
(for the cost model; else traced). The inputs are the variables x{n}_{c} (position n,
coordinate c); the weights are drawn as ``ModP(p).random`` draws them for the seed (the
same integers as the modular measurement's, p the measurement's prime), or given.

- ``method="symbolic"``: f over Q (``fmpq_mpoly``), the weights the integers in [0, p)
  that GF(p)'s draw gives. The rank over Q is the separation rank of f for these weights:
  nothing sampled, no probability ("exact for these weights").
- ``method="modular"``: f over GF(p) (``nmod_mpoly``), ranked over GF(p): a certified lower
  bound on the rank over Q of that integer network, as every modular result.

The matrix is block diagonal after permuting its rows and columns: the connected components
of its (row, column) support are ranked apart and summed. Over Q a component's rank is
certified without fraction-free elimination: r = its rank mod a 62-bit prime is a lower
bound (a nonzero minor mod q is nonzero over Z); r = its short side ends it; otherwise
more primes are taken until their product exceeds the Hadamard bound on the (r + 1)-minors
(each prime with rank <= r divides every such minor, so all are 0: rank <= r), r rising
to the largest rank seen.
"""

from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

import numpy as np

from seprank import labels
from seprank.algebra.domains import DEFAULT_PRIME, Domain, Float64, ModP
from seprank.algebra.field_array import GF, exact_float, multiple_of_p
from seprank.engine import line_check, row_check
from seprank.engine.detail import Detail
from seprank.engine.estimate import Cost
from seprank.engine.evaluate import evaluate
from seprank.engine.result import Measurement
from seprank.engine.sample_grid import available_memory
from seprank.engine.saturation import (
    Ground,
    GroundContext,
    constants_cover,
    entry_degree,
    given_weights,
    traced_degree,
    uncovered,
    unstopped,
)
from seprank.engine.strategies.base import BASE_BYTES, params_for
from seprank.engine.strategies.registry import Strategy, register
from seprank.errors import DomainError, SeprankError, TooBigError
from seprank.nets.base import config_of, input_dim, is_polynomial


def _flint():
    """python-flint, imported on first use (a heavy import ``seprank`` does not pay)."""
    import flint

    return flint

#: The most monomials f may have (from its degree and variable count) for ``expand``.
EXPAND_MAX_MONOMIALS = 5_000_000
#: The most entries one connected component's dense matrix may have.
EXPAND_MAX_BLOCK_ENTRIES = 16_000_000
#: Bits of the primes that certify a rank over Q (nmod_mat holds word-size moduli).
PRIME_BITS = 62

CERTIFIED_Q = (f"{labels.EXACT_FOR_WEIGHTS} (rank over Q of the coefficient matrix of f, "
               "expanded from apply with these integer weights: nothing sampled, no "
               "probability)")
CERTIFIED_P = ("lower bound (exact rank over GF(p) of the coefficient matrix of an "
               "integer-weight network's f, expanded from apply)")


# ------------------------------------------------------------------ polynomial elements
class Poly:
    """One polynomial of an object array: a flint mpoly, with the arithmetic numpy's
    object loops call (``+ - *``, ``**`` by an integer, ``/`` by a constant); constants
    (ints, Fractions, exact floats) are converted by ``field``; a branch on a value or a
    comparison is refused (DomainError), never read as a number."""

    __slots__ = ("v", "field")

    def __init__(self, v, field):
        self.v, self.field = v, field

    def _of(self, o):
        return o.v if isinstance(o, Poly) else self.field.scalar(o)

    def __add__(self, o):
        return Poly(self.v + self._of(o), self.field)

    __radd__ = __add__

    def __sub__(self, o):
        return Poly(self.v - self._of(o), self.field)

    def __rsub__(self, o):
        return Poly(self._of(o) - self.v, self.field)

    def __mul__(self, o):
        return Poly(self.v * self._of(o), self.field)

    __rmul__ = __mul__

    def __neg__(self):
        return Poly(-self.v, self.field)

    def __pos__(self):
        return self

    def __pow__(self, k):
        if isinstance(k, (float, np.floating)) and float(k).is_integer():
            k = int(k)  # 2.0, as torch writes it
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 0:
            raise self.field.refuse(f"a power {k!r} (not a non-negative integer)")
        return Poly(self.v ** int(k), self.field)

    def __truediv__(self, o):
        if isinstance(o, Poly):
            raise self.field.refuse("division by a polynomial")
        return Poly(self.v * self.field.inverse(o), self.field)

    def _refused(self, *_):
        raise self.field.refuse("a comparison or truth value (a branch on values)")

    __bool__ = __lt__ = __le__ = __gt__ = __ge__ = __float__ = __int__ = _refused

    def __eq__(self, o):
        if isinstance(o, (Poly, numbers.Number, Fraction)):  # a mask from values: refused
            self._refused()
        return NotImplemented  # None, a string...: never equal

    __ne__ = __eq__
    __hash__ = object.__hash__

    def __repr__(self):
        return f"Poly({self.v})"


class PolyField:
    """The coefficients: Q (``p`` None) or GF(p); the polynomial ring in ``names``."""

    def __init__(self, names, p: int | None):
        self.p = p
        self.ctx = _flint().fmpq_mpoly_ctx.get(names) if p is None else \
            _flint().nmod_mpoly_ctx.get(names, modulus=p)
        self.one = self.ctx.constant(1)

    def refuse(self, what: str) -> DomainError:
        where = "Q" if self.p is None else f"GF({self.p})"
        return DomainError(f"{what} on a polynomial over {where}: not a polynomial "
                           "operation seprank can expand")

    def scalar(self, v):
        """A constant as flint reads it: an int (a residue mod p) or an fmpq."""
        if isinstance(v, (bool, np.bool_, int, np.integer)):
            v = int(v)
            if self.p is None:
                return v
            if v % self.p == 0 and v != 0:
                raise multiple_of_p(v, self.p)
            return v % self.p
        if self.p is not None:
            if isinstance(v, (_flint().fmpq, _flint().fmpz)):
                v = Fraction(int(v.p), int(v.q)) if isinstance(v, _flint().fmpq) else int(v)
            return int(GF(self.p).constant(np.array([v], dtype=object))[0])
        if isinstance(v, (_flint().fmpq, _flint().fmpz)):
            return v
        if isinstance(v, (float, np.floating)):
            q = exact_float(v)
            if q is None:
                raise DomainError(f"the float constant {v!r} is not read exactly (wider than "
                                  "float64, or not finite): write fractions.Fraction")
            v = q
        if isinstance(v, Fraction):
            return _flint().fmpq(v.numerator, v.denominator)
        raise DomainError(f"a {type(v).__name__} constant ({v!r}) is not a rational number")

    def inverse(self, v):
        c = self.scalar(v)
        if c == 0:
            raise DomainError("division by a constant that is 0" +
                              ("" if self.p is None else f" mod p={self.p}"))
        return pow(int(c), -1, self.p) if self.p is not None else 1 / _flint().fmpq(c)

    def const(self, v) -> Poly:
        return Poly(self.one * self.scalar(v), self)


class PolyDomain(Domain):
    """Object arrays of :class:`Poly` (flint sparse polynomials over Q or GF(p)); the
    weights drawn as ``ModP(draw_prime).random`` draws them (the same integers)."""

    name = "symbolic"
    exact = True

    def __init__(self, field: PolyField, draw_prime: int):
        self.field, self.draw_prime = field, int(draw_prime)

    def _polys(self, values) -> np.ndarray:
        a = np.asarray(values, dtype=object)
        out = np.empty(a.shape, dtype=object)
        out.ravel()[:] = [v if isinstance(v, Poly) else self.field.const(v) for v in a.ravel()]
        return out

    def einsum(self, spec, *operands):
        return np.einsum(spec, *(np.asarray(x, dtype=object) for x in operands))

    def add(self, a, b):
        return a + b

    def mul(self, a, b):
        return a * b

    def random(self, rng, shape):
        return self._polys(rng.integers(0, self.draw_prime, size=shape, dtype=np.int64))

    def from_ints(self, arr):
        return self._polys(arr)

    def constant(self, x):
        return self._polys(x)

    def inputs(self, seq_len: int, width: int) -> np.ndarray:
        """The input array (1, seq_len, width) of the variables x{n}_{c}."""
        X = np.empty((1, seq_len, width), dtype=object)
        X.ravel()[:] = [Poly(g, self.field) for g in self.field.ctx.gens()]
        return X


def expand(net, seed: int, weights, p: int | None, draw_prime: int):
    """f as a flint polynomial (over Q if ``p`` is None, else GF(p)) and the seconds taken:
    ``apply`` on the variables, the weights drawn in [0, draw_prime) (or given)."""
    d, N = input_dim(net), net.seq_len
    field = PolyField([f"x{n}_{c}" for n in range(N) for c in range(d)], p)
    dom = PolyDomain(field, draw_prime)
    t0 = time.perf_counter()
    params = params_for(net, dom, seed, weights)
    try:
        out = evaluate(net, params, dom.inputs(N, d), dom)[0]
    except (SeprankError, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001 - an operation polynomials do not have
        raise DomainError(f"{type(net).__name__}.apply does not run on polynomials "
                          f"({type(exc).__name__}: {exc}); expand needs plain polynomial "
                          "arithmetic (strategy='auto' measures on a grid)") from None
    poly = out.v if isinstance(out, Poly) else field.const(out).v
    return poly, time.perf_counter() - t0


# ------------------------------------------------------------------ the coefficient matrix
def _monomial_index(exps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(total degree of each distinct monomial, each term's monomial index) of the exponent
    rows ``exps``: one int64 key per row (mixed radix) where it fits, else the rows."""
    base = exps.max(axis=0) + 1 if exps.size else np.ones(exps.shape[1], dtype=np.int64)
    if float(np.sum(np.log2(base.astype(np.float64)))) < 62:
        radix = np.concatenate([[1], np.cumprod(base[:-1])]).astype(np.int64)
        _, first, index = np.unique(exps @ radix, return_index=True, return_inverse=True)
    else:
        _, first, index = np.unique(exps, axis=0, return_index=True, return_inverse=True)
    return exps[first].sum(axis=1), index.ravel()


def coefficient_blocks(poly, A, seq_len: int, d: int):
    """The coefficient matrix's connected components: (shape, [(A-degree or None, rows,
    cols, entries)]), rows and cols local indices of each component's matrix."""
    terms = len(poly)
    if terms == 0:
        return (0, 0), []
    mons = np.array(poly.monoms(), dtype=np.int64).reshape(terms, seq_len * d)
    coeffs = poly.coeffs()
    a_vars = [n * d + c for n in A for c in range(d)]
    b_vars = [n * d + c for n in range(seq_len) if n not in set(A) for c in range(d)]
    rdeg, ri = _monomial_index(mons[:, a_vars])
    _, ci = _monomial_index(mons[:, b_vars])
    R, C = len(rdeg), int(ci.max()) + 1
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(terms), (ri, ci + R)), shape=(R + C, R + C))
    count, comp = connected_components(graph, directed=False)
    term_comp = comp[ri]
    order = np.argsort(term_comp, kind="stable")
    cuts = np.searchsorted(term_comp[order], np.arange(count + 1))
    blocks = []
    for k in range(count):
        idx = order[cuts[k]:cuts[k + 1]]
        if not len(idx):
            continue
        rows, rloc = np.unique(ri[idx], return_inverse=True)
        cols, cloc = np.unique(ci[idx], return_inverse=True)
        degs = np.unique(rdeg[rows])
        blocks.append((int(degs[0]) if len(degs) == 1 else None, len(rows), len(cols),
                       list(zip(rloc.ravel().tolist(), cloc.ravel().tolist(),
                                (coeffs[t] for t in idx.tolist())))))
    return (R, C), blocks


_PRIMES: list[int] = []


def _prime(i: int) -> int:
    """The i-th largest prime below 2**PRIME_BITS (flint's proved primality test), kept."""
    n = _PRIMES[-1] - 2 if _PRIMES else (1 << PRIME_BITS) - 1
    while len(_PRIMES) <= i:
        if _flint().fmpz(n).is_prime():
            _PRIMES.append(n)
        n -= 2
    return _PRIMES[i]


def _integer_rows(r: int, c: int, entries) -> list:
    """A component's entries as a dense integer matrix (row-major), each row scaled by its
    denominators' lcm (the rank is unchanged)."""
    dense = [0] * (r * c)
    lcm = [1] * r
    for i, _, v in entries:
        q = int(v.q) if isinstance(v, _flint().fmpq) else 1
        lcm[i] = lcm[i] * q // math.gcd(lcm[i], q)
    for i, j, v in entries:
        dense[i * c + j] = int(v.p) * (lcm[i] // int(v.q)) if isinstance(v, _flint().fmpq) \
            else int(v) * lcm[i]
    return dense


def _hadamard_bits(dense: list, r: int, c: int, k: int) -> float:
    """log2 of a bound on every k x k minor: the product of the k largest row (or column)
    norms, the smaller of the two; each norm bounded by its largest entry and count."""
    def norms(lines):
        return sorted((max(abs(v) for v in ln).bit_length() + 0.5 * math.log2(nz)
                       for ln in lines if (nz := sum(1 for v in ln if v))), reverse=True)
    rows = [dense[i * c:(i + 1) * c] for i in range(r)]
    cols = [dense[j::c] for j in range(c)]
    return min(sum(norms(rows)[:k]), sum(norms(cols)[:k]))


def _check_block(r: int, c: int) -> None:
    if r * c > EXPAND_MAX_BLOCK_ENTRIES:
        raise TooBigError(f"strategy='expand': a block of f's coefficient matrix is {r}x{c}, "
                          f"over the {EXPAND_MAX_BLOCK_ENTRIES} entries allowed; measure on a "
                          "grid (strategy='auto', method='modular')")


def rank_over_q(r: int, c: int, entries) -> tuple[int, int]:
    """(rank over Q of one component, primes used): exact (module docstring)."""
    if min(r, c) == 1:
        return 1, 0  # every row holds a nonzero coefficient
    _check_block(r, c)
    dense = _integer_rows(r, c, entries)
    Z = _flint().fmpz_mat(r, c, dense)
    short, rank, bits, need, used = min(r, c), -1, 0.0, 0.0, 0
    while True:
        q = _prime(used)
        used += 1
        got = _flint().nmod_mat(Z, q).rank()  # a lower bound over Q
        if got > rank:  # every prime so far has rank <= got: they all still count
            rank = got
            need = 0.0 if rank == short else _hadamard_bits(dense, r, c, rank + 1)
        bits += math.log2(q)
        if rank == short or bits > need + 1:  # their product divides every (rank+1)-minor
            return rank, used


def rank_mod_p(r: int, c: int, entries, p: int) -> int:
    """The rank over GF(p) of one component (entries are residues)."""
    if min(r, c) == 1:
        return 1
    _check_block(r, c)
    M = _flint().nmod_mat(r, c, p)
    for i, j, v in entries:
        M[i, j] = int(v)
    return M.rank()


# ------------------------------------------------------------------ the cost model
def degree_of(net) -> int | None:
    """f's total degree in the inputs: declared (``degree``), else traced by running
    ``apply`` on degree arrays (a proved upper bound); None when neither is known."""
    T = getattr(net, "degree", None)
    if isinstance(T, numbers.Integral) and not isinstance(T, bool) and T >= 0:
        return int(T)
    return traced_degree(net, random_weights=False)


def expand_cost(net, A) -> dict:
    """The most monomials f, and its coefficient matrix's rows and columns, may have (from
    the degree T and the variable counts: C(n + T, T) monomials in n variables)."""
    T, d = degree_of(net), input_dim(net)
    if T is None:
        return {"strategy": "expand", "degree": None, "monomials": None,
                "note": "f's degree is neither declared nor traceable"}
    nA, n = len(A) * d, net.seq_len * d
    mono = math.comb(n + T, T)
    rows, cols = math.comb(nA + T, T), math.comb(n - nA + T, T)
    return {"strategy": "expand", "degree": T, "monomials": mono,
            "rows": min(rows, mono), "cols": min(cols, mono),
            "peak_bytes": int(BASE_BYTES + mono * (8 * n + 96)),
            "note": "monomials of f and sides of its coefficient matrix at most, from the "
                    "degree; the matrix is ranked by connected components"}


class Expand(Strategy):
    """f expanded from ``apply`` on sparse polynomials, its coefficient matrix ranked exactly
    over Q (method symbolic) or GF(p) (modular); only when requested."""

    name = "expand"
    order = 15
    auto = False
    budget = None
    grid = False
    needs_run = False

    def applies(self, req) -> str | None:
        net = req.net
        if not is_polynomial(net) or getattr(net, "polynomial_unknown", False) is True:
            return f"needs a polynomial network ({type(net).__name__} is not known to be one)"
        if req.method not in ("symbolic", "modular"):
            return f"needs method='symbolic' or 'modular' (got method={req.method!r})"
        if req.sampler == "alphabet":
            return (f"expands {type(net).__name__} as a polynomial of its inputs, not its "
                    "tensor over the alphabet: use strategy='direct' (the complete grid) or "
                    "sampler='random'")
        cost = expand_cost(net, req.A)
        if cost["monomials"] is None:
            return (f"needs f's degree: {type(net).__name__} declares no degree and its apply "
                    "does not run on degree arrays")
        return None

    def confirm(self, req) -> str | None:
        """TooBigError (one line) for what will not fit: too many monomials, or more memory
        than a quarter of what is available."""
        cost = expand_cost(req.net, req.A)
        if cost["monomials"] > EXPAND_MAX_MONOMIALS:
            raise TooBigError(f"strategy='expand' would expand up to {cost['monomials']} "
                              f"monomials of f (limit {EXPAND_MAX_MONOMIALS}): lower seq_len, "
                              "width or depth, or measure on a grid (strategy='auto', "
                              "method='modular')")
        limit = available_memory() // 4
        if cost["peak_bytes"] > limit:
            raise TooBigError(f"strategy='expand' needs about {cost['peak_bytes'] / 2**30:.1f} "
                              f"GiB for f's monomials, over the {limit / 2**30:.1f} GiB "
                              "allowed: lower seq_len, width or depth")
        return None

    def prime(self, req) -> tuple[int | None, str]:
        """GF(p) for modular (the request's prime); none for symbolic (rank over Q)."""
        return (req.modulus, "") if req.method == "modular" else (None, "")

    def reason(self, req) -> str:
        over = "Q" if req.method == "symbolic" else "GF(p)"
        if req.weights is not None:
            drawn = "the given weights"
        else:
            p, seed = _draw_prime(req.options, req.modulus), int(req.options.seed)
            drawn = f"the weights ModP({p}) draws for seed {seed}" + (
                ", read as integers in [0, p)" if over == "Q" else "")
        return (f"requested: f expanded from apply on sparse polynomials over {over} "
                f"(python-flint), {drawn}; its coefficient matrix ranked exactly over {over}")

    def cost(self, req, budget) -> Cost:
        est = expand_cost(req.net, req.A)
        return Cost(None, est.get("peak_bytes"), est["note"], est)

    def run(self, mp) -> Measurement:
        return run(mp)

    def ground(self, raw, ctx: GroundContext) -> Ground:
        """f's coefficient matrix over GF(p), expanded (nothing sampled): its rank is below
        the rank over Q only if p divides every maximal minor; with random weights, a
        nonzero R x R minor of the generic matrix (R at most s, the most monomials on the
        short side, from the degree: the detail's ``side_bound``, which no draw can shrink,
        unlike the reduced matrix's shape) has degree <= R e in them (e the entry degree):
        probability <= s e / p."""
        if not raw.saturated:
            return unstopped(raw)
        if not ctx.random_weights:
            return given_weights("coefficient matrix", "the rank over Q")
        e, side = entry_degree(ctx.net, ctx.random_weights), raw.detail.side_bound
        b = 1.0 if e is None or side is None else min(1.0, side * e / raw.prime)
        cover = constants_cover(raw, ctx, [side or 0], rows=False)
        if cover is None:
            return uncovered(raw.prime, ctx.prime_drawn)
        b = min(1.0, b + cover[0])
        return Ground(b <= ctx.threshold, b, (
            f"coefficient matrix (nothing sampled; only the weights random): its GF(p) rank "
            f"is below the rank over Q only if the weights hit a minor's zero set (short "
            f"side's monomials x entry degree / p) or p divides what the constants produce: "
            f"probability <= {b:.1e}, covering the weights, {cover[1]}" + (
                "" if b <= ctx.threshold else f" > threshold {ctx.threshold:g}")))


def _draw_prime(opts, modulus: int | None) -> int:
    """The prime whose draw gives the weights: the measurement's (or the default)."""
    p = modulus if modulus is not None else (DEFAULT_PRIME if opts.prime is None else opts.prime)
    return ModP(p).p  # a bad prime: DomainError naming it


def run(mp) -> Measurement:
    """Expand f, rank its coefficient matrix component by component, and record it."""
    net, seed, over_q = mp.net, int(mp.options.seed), mp.method == "symbolic"
    draw = _draw_prime(mp.options, mp.prime)
    if over_q and line_check.needs_check(net):  # a class seprank does not ship (modular:
        row_check.check_rows(net, Float64(), seed)  # the planner checked it)
    poly, t_eval = expand(net, seed, mp.weights, None if over_q else mp.prime, draw)
    t0 = time.perf_counter()
    shape, comps = coefficient_blocks(poly, mp.A, net.seq_len, input_dim(net))
    by_degree: dict = {}
    for deg, r, c, entries in comps:
        k = rank_over_q(r, c, entries)[0] if over_q else rank_mod_p(r, c, entries, mp.prime)
        b = by_degree.setdefault(deg, {"degree": deg, "rank": 0, "shape": [0, 0],
                                       "components": 0})
        b["rank"] += k
        b["shape"][0] += r
        b["shape"][1] += c
        b["components"] += 1
    blocks = sorted(by_degree.values(), key=lambda b: (b["degree"] is None, b["degree"] or 0))
    rank = sum(b["rank"] for b in blocks)
    return Measurement(
        rank=int(rank), saturated=True, certified=CERTIFIED_Q if over_q else CERTIFIED_P,
        method=mp.method, prime=None if over_q else int(mp.prime),
        samples=(int(shape[0]), int(shape[1])), seconds=time.perf_counter() - mp.t_start,
        seed=seed, config=config_of(net), partition=mp.A, sampler="coefficients",
        eval_seconds=t_eval, rank_seconds=time.perf_counter() - t0,
        history=[(int(shape[0]), int(shape[1]), int(rank))], strategy="expand",
        strategy_reason=mp.reason, blocks=blocks,
        detail=ExpandDetail(side_bound=_side_bound(mp), components=len(comps)),
    )


@dataclass(frozen=True)
class ExpandDetail(Detail):
    """What the expand strategy records of f's coefficient matrix.

    Parameters
    ----------
    side_bound : int or None
        The most monomials its short side may have, from the degree (whatever the weights:
        what its saturation bound reads).
    components : int
        The matrix's connected components (ranked one by one).
    """

    key: ClassVar[str] = "expand"
    null_when_absent: ClassVar[bool] = True

    side_bound: int | None
    components: int


def _side_bound(mp) -> int | None:
    """The most monomials the coefficient matrix's short side may have (from the degree,
    whatever the weights): the rank over Q is at most this."""
    cost = mp.estimate.model if mp.estimate is not None else expand_cost(mp.net, mp.A)
    rows, cols = cost.get("rows"), cost.get("cols")
    return None if rows is None or cols is None else int(min(rows, cols))


STRATEGY = register(Expand())
