"""Exact upper bounds on the separation rank of the linearised attention network.

All bounds are proved (see proofs/) and returned as exact Python ints; ``log10``
companions handle sizes too large to write down.

Notation (proofs/structural_lemma.py, proofs/block_bound.py): width d, m = d(d+1)/2,
D = (3**L - 1)/2. The query side Q of the partition holds the query position and n_q
positions; the other side holds n_o positions. With S_Q, S_O the Gram sums of each side,

    sep <= sum_{k=0..D} min(b_k, a_{D-k})                  (no residual)
    sep <= sum_{k=0..D} min(b_k, a_0 + ... + a_{D-k})      (residual: degree <= D)

b_k = dim of degree-k polynomials in S_O, a_j = dim of span{x^i_c g(S_Q): deg g = j}.
By the first fundamental theorem for O(n) (Cauchy decomposition of Sym(C^d (x) C^n)):

    b_k = sum over mu |- k with at most min(d, n_o) parts of dim S_{2 mu}(C^d)
    a_j = sum over lambda |- 2j+1 with exactly one odd part and at most min(d, n_q)
          parts of dim S_lambda(C^d)

which reduce to C(m+k-1, k) and d C(m+j-1, j) when n >= d (proofs/bounded_rank_dims.py;
tests check them against exact ranks of evaluation matrices).

>>> block_bound(depth=1, width=3, n_query=2, n_other=2)
4
>>> block_bound(depth=4, width=2, n_query=2, n_other=2)
4538
"""

from __future__ import annotations

import math
from functools import cache

from seprank.errors import ConfigError, TooBigError
from seprank.nets.bound import LINEAR_ATTENTION, theorem_of
from seprank.nets.partitions import check_partition, default_partition
from seprank.registry import deprecated, old_names
from seprank.theory import sequences as _seq
from seprank.theory.combinatorics import log_comb


def output_degree(depth: int) -> int:
    """Degree of the network output in the inputs, ``3**depth``.

    Parameters
    ----------
    depth : int
        Number of attention layers :math:`L`.

    Returns
    -------
    int
        ``3**depth``.
    """
    return 3**depth


def matrix_degree(depth: int) -> int:
    r"""Degree :math:`D = (3^L - 1)/2` of :math:`P_L(S)` in the entries of S (structural lemma).

    Parameters
    ----------
    depth : int
        Number of attention layers :math:`L`.

    Returns
    -------
    int
        ``(3**depth - 1) // 2``.
    """
    return (3**depth - 1) // 2


def partitions(k: int, max_parts: int, max_part: int | None = None):
    """Generate the partitions of ``k`` with at most ``max_parts`` parts.

    Parameters
    ----------
    k : int
        The integer partitioned (>= 0).
    max_parts : int
        Most parts a partition may have.
    max_part : int, optional
        Largest part allowed (default: ``k``, no limit).

    Yields
    ------
    tuple of int
        Each partition, as a non-increasing tuple (``()`` for ``k = 0``).

    Examples
    --------
    >>> list(partitions(4, 2))
    [(4,), (3, 1), (2, 2)]
    """
    if max_part is None:
        max_part = k
    if k == 0:
        yield ()
        return
    if max_parts == 0:
        return
    for first in range(min(k, max_part), 0, -1):
        for rest in partitions(k - first, max_parts - 1, first):
            yield (first, *rest)


def schur_dim(lam: tuple[int, ...], d: int) -> int:
    r"""Dimension of the Schur module :math:`S_\lambda(\mathbb{C}^d)` (hook-content formula).

    Parameters
    ----------
    lam : tuple of int
        The partition :math:`\lambda` (non-increasing parts).
    d : int
        Dimension of the underlying space :math:`\mathbb{C}^d`.

    Returns
    -------
    int
        :math:`\dim S_\lambda(\mathbb{C}^d)`, exact (0 when :math:`\lambda` has more than
        ``d`` parts).
    """
    if len(lam) > d:
        return 0
    num, den = 1, 1
    conj = [sum(1 for p in lam if p > j) for j in range(lam[0])] if lam else []
    for i, row in enumerate(lam):
        for j in range(row):
            num *= d + j - i
            den *= (row - j - 1) + (conj[j] - i - 1) + 1
    return num // den


@cache
def b_dim(k: int, d: int, n: int) -> int:
    r"""Dimension :math:`b_k` of the polynomials of degree :math:`k` in a generic :math:`S`.

    :math:`S = \sum_{j=1}^{n} x^j x^{j\top}`, a sum of :math:`n` generic rank-one
    :math:`d \times d` matrices.

    Parameters
    ----------
    k : int
        Polynomial degree.
    d : int
        Width (:math:`S` is :math:`d \times d`).
    n : int
        Number of positions summed in S.

    Returns
    -------
    int
        :math:`b_k = \binom{m+k-1}{k}` with :math:`m = d(d+1)/2` when :math:`n \ge d`, else
        a sum of Schur dimensions.
    """
    if n >= d:
        m = d * (d + 1) // 2
        return math.comb(m + k - 1, k)
    return sum(schur_dim(tuple(2 * p for p in mu), d) for mu in partitions(k, min(d, n)))


@cache
def a_dim(j: int, d: int, n: int) -> int:
    r"""Dimension :math:`a_j` of :math:`\operatorname{span}\{x_c\, g(S) : \deg g = j\}`.

    :math:`S = x x^\top` plus :math:`n - 1` more generic terms :math:`x^j x^{j\top}`.

    Parameters
    ----------
    j : int
        Degree of g.
    d : int
        Width (:math:`x` has :math:`d` entries).
    n : int
        Number of positions of the side (the query position included).

    Returns
    -------
    int
        :math:`a_j = d \binom{m+j-1}{j}` with :math:`m = d(d+1)/2` when :math:`n \ge d`, else
        a sum of Schur dimensions.
    """
    if n >= d:
        m = d * (d + 1) // 2
        return d * math.comb(m + j - 1, j)
    return sum(
        schur_dim(lam, d)
        for lam in partitions(2 * j + 1, min(d, n))
        if sum(p % 2 for p in lam) == 1
    )


def _check(depth, width, n_query, n_other):
    for name, v, lo in (("depth", depth, 1), ("width", width, 1), ("n_query", n_query, 1),
                        ("n_other", n_other, 1)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise ConfigError(f"{name}={v!r} must be an integer >= {lo}")


#: Exact integers with more decimal digits than this are not computed (log10 only); Python
#: itself refuses to print an int of more than 4300 digits.
MAX_DIGITS = 4_000
#: The deepest network :func:`theorem_bound` computes a bound for: its bisection over
#: D = (3^L - 1)/2 on exact L-digit integers takes about 2 s at L = 10,000 and grows as
#: L^2 (``seprank bounds`` allows one less: it also bounds the next depth).
MAX_DEPTH = 10_001
#: Most Schur dimensions summed to build the dimensions of a side with n < d_x positions.
MAX_PARTITION_TERMS = 200_000


def _side(kind: str, width: int, n: int):
    """b (kind 'b') or a (kind 'a') of a side with n positions, as an exact sequence."""
    m = width * (width + 1) // 2
    if n >= width:
        return _seq.Generic(m, 1 if kind == "b" else width)
    terms = _seq.bounded_rank_terms(width, n, MAX_PARTITION_TERMS)
    if terms > MAX_PARTITION_TERMS:
        raise TooBigError(
            f"seq_len: a side of {n} positions (< width={width}) needs more than "
            f"{MAX_PARTITION_TERMS:,} Schur dimensions (the limit) for its bounded-rank "
            "dimensions; "
            f"use at least {width} positions per side (seq_len >= {2 * width}) for the closed "
            "form"
        )
    e = _seq.hilbert_degree(width, n)
    dim = b_dim if kind == "b" else a_dim
    vals = [dim(k, width, n) for k in range(e + 2)]
    seq = _seq.Newton(vals[:-1])
    if seq.value(e + 1) != vals[-1]:  # pragma: no cover - guards the polynomiality claim
        raise AssertionError(f"{kind}_dim is not a degree-{e} polynomial for d={width}, n={n}")
    return seq


def block_bound(depth: int, width: int, n_query: int, n_other: int, residual: bool = False) -> int:
    r"""Block bound :math:`\sum_k \min(b_k, a_{D-k})` (or its residual form), exact.

    Computed in O(log D) exact evaluations (crossover by bisection, cumulative sums in
    closed form; :mod:`seprank.theory.sequences`).

    Parameters
    ----------
    depth : int
        Number of attention layers :math:`L \ge 1`.
    width : int
        Embedding width :math:`d \ge 1`.
    n_query : int
        Positions on the side of the partition that holds the query position (at least 1).
    n_other : int
        Positions on the other side (at least 1).
    residual : bool, default False
        Whether the layers have residual connections (the bound's residual form).

    Returns
    -------
    int
        The block bound.

    Raises
    ------
    ConfigError
        If an argument is not a positive integer.
    TooBigError
        If the integer would have more than ``MAX_DIGITS`` digits (with a side of fewer
        positions than the width: by an upper estimate, the sum of that side's dimensions),
        or a side needs too many Schur dimensions.

    Examples
    --------
    >>> block_bound(depth=2, width=2, n_query=2, n_other=2)
    18
    """
    _check(depth, width, n_query, n_other)
    D = matrix_degree(depth)
    if n_query >= width and n_other >= width and not residual:
        return generic_block_bound(depth, width)
    b, a = _side("b", width, n_other), _side("a", width, n_query)
    r = 1 if residual else 0
    _refuse_digits("block bound", _block_digits(b, a, D, r))
    return _seq.min_sum(b, a, D, r)


def block_terms(depth: int, width: int, n_query: int, n_other: int,
                limit: int = 100_000) -> list[int] | None:
    r"""Return the terms :math:`\min(b_k, a_{D-k})`, :math:`k = 0, \dots, D`, of the block bound.

    Each term is the proved bound of one A-degree block that the graded strategy measures.

    Parameters
    ----------
    depth : int
        Number of attention layers :math:`L`.
    width : int
        Embedding width :math:`d`.
    n_query : int
        Positions on the side holding the query position.
    n_other : int
        Positions on the other side.
    limit : int, default 100_000
        Most terms returned.

    Returns
    -------
    list of int or None
        The D + 1 terms, or None when ``D + 1 > limit``.

    Raises
    ------
    ConfigError
        If an argument is not a positive integer.
    TooBigError
        If a side needs too many Schur dimensions.
    """
    _check(depth, width, n_query, n_other)
    D = matrix_degree(depth)
    if D + 1 > limit:
        return None
    b, a = _side("b", width, n_other), _side("a", width, n_query)
    return [min(b.value(k), a.value(D - k)) for k in range(D + 1)]


def _block_digits(b, a, D, r) -> float:
    """log10 of the block bound min_sum(b, a, D, r), or an upper estimate (cheap for every
    case). Generic sides: the log10 itself, the number theorem_bound compares with
    MAX_DIGITS (an estimate larger than it refused bounds theorem_bound asked for)."""
    if isinstance(b, _seq.Generic) and isinstance(a, _seq.Generic):
        return _seq.min_sum_log10(b, a, D, r)
    # bounded side(s): the bound is at most the sum of the bounded side's terms
    side = b if isinstance(b, _seq.Newton) else a
    return math.log10(max(1, side.value(D, r + 1)))


def _refuse_digits(what: str, log10_value: float) -> None:
    if log10_value > MAX_DIGITS:
        raise TooBigError(
            f"depth: the {what} has about {log10_value:,.0f} decimal digits (limit "
            f"{MAX_DIGITS:,}); use its log10 (block_bound_log10, seprank bounds prints it)"
        )


def block_bound_log10(depth: int, width: int, n_query: int, n_other: int,
                      residual: bool = False) -> float:
    """Compute log10 of :func:`block_bound`, for any depth.

    Parameters
    ----------
    depth : int
        Number of attention layers :math:`L`.
    width : int
        Embedding width :math:`d`.
    n_query : int
        Positions on the side holding the query position.
    n_other : int
        Positions on the other side.
    residual : bool, default False
        Whether the layers have residual connections.

    Returns
    -------
    float
        log10 of the block bound (computed in floating point when the integer is huge).

    Raises
    ------
    ConfigError
        If an argument is not a positive integer.
    TooBigError
        If a side with fewer positions than the width is too costly (see :func:`block_bound`).
    """
    _check(depth, width, n_query, n_other)
    if n_query >= width and n_other >= width and not residual:
        return generic_block_bound_log10(depth, width)
    if n_query >= width and n_other >= width:  # residual, generic sides: log space
        b, a = _side("b", width, n_other), _side("a", width, n_query)
        return _seq.min_sum_log10(b, a, matrix_degree(depth), 1)
    return math.log10(block_bound(depth, width, n_query, n_other, residual))


def _crossover(D: int, d: int) -> int:
    """Largest k in [-1, D] with b_k <= a_{D-k} (generic sides), by bisection."""
    m = d * (d + 1) // 2

    def lb(k):  # log of b_k = C(m+k-1, k)
        return log_comb(m + k - 1, k)

    def la(j):
        return math.log(d) + lb(j)

    lo, hi = -1, D  # predicate true at lo (vacuous), find last true
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if lb(mid) <= la(D - mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def generic_block_bound(depth: int, width: int) -> int:
    r"""Closed form of the block bound for generic sides (both sides >= width positions).

    The bound is :math:`\binom{m+K}{K} + d \binom{m+D-K-1}{D-K-1}`, K the crossover (found
    by exact bisection); the hockey stick gives
    :math:`\sum_{k \le K} \binom{m-1+k}{k} = \binom{m+K}{K}`.

    Parameters
    ----------
    depth : int
        Number of attention layers :math:`L`.
    width : int
        Embedding width :math:`d`.

    Returns
    -------
    int
        The block bound (no residual).

    Raises
    ------
    TooBigError
        If the integer would have more than ``MAX_DIGITS`` digits.
    """
    _refuse_digits("block bound", generic_block_bound_log10(depth, width))
    m = width * (width + 1) // 2
    return _seq.min_sum(_seq.Generic(m), _seq.Generic(m, width), matrix_degree(depth))


def generic_block_bound_log10(depth: int, width: int) -> float:
    """Compute log10 of :func:`generic_block_bound` in floating point, for any size.

    Parameters
    ----------
    depth : int
        Number of attention layers :math:`L`.
    width : int
        Embedding width :math:`d`.

    Returns
    -------
    float
        log10 of the generic block bound.
    """
    D, d = matrix_degree(depth), width
    m = d * (d + 1) // 2
    K = _crossover(D, d)

    def lc(n, k):
        return log_comb(n, k) / math.log(10)

    terms = []
    if K >= 0:
        terms.append(lc(m + K, K))
    if K < D:
        terms.append(math.log10(d) + lc(m + D - K - 1, D - K - 1))
    top = max(terms)
    return top + math.log10(sum(10 ** (t - top) for t in terms))


def monomial_bound(
    depth: int, width: int, n_query: int, n_other: int, residual: bool = False
) -> int:
    r"""Trivial bound: split by degree t on the query side, count monomials on each side.

    No residual: :math:`f` is homogeneous of degree :math:`3^L`, so

    .. math:: \operatorname{sep}(f) \le \sum_t \min\bigl(M_Q(t),\, M_O(3^L - t)\bigr),

    with :math:`M(t) = \binom{v + t - 1}{t}` monomials of degree :math:`t` in
    :math:`v = d n` variables. With residual the degrees are at most :math:`3^L` and each
    side counts monomials of degree at most its share.
    Computed in closed form (crossover by bisection, hockey-stick sums).

    Parameters
    ----------
    depth : int
        Number of attention layers :math:`L`.
    width : int
        Embedding width :math:`d`.
    n_query : int
        Positions on the side holding the query position.
    n_other : int
        Positions on the other side.
    residual : bool, default False
        Whether the layers have residual connections.

    Returns
    -------
    int
        The monomial bound.

    Raises
    ------
    ConfigError
        If an argument is not a positive integer.
    TooBigError
        If the integer would have more than ``MAX_DIGITS`` digits.
    """
    _refuse_digits("monomial bound", monomial_bound_log10(depth, width, n_query, n_other,
                                                          residual))
    deg = output_degree(depth)
    q, o = _seq.Generic(width * n_query), _seq.Generic(width * n_other)
    if residual:
        return min(q.value(deg, 1), o.value(deg, 1))
    return _seq.min_sum(q, o, deg)


def monomial_bound_log10(
    depth: int, width: int, n_query: int, n_other: int, residual: bool = False
) -> float:
    """Compute log10 of :func:`monomial_bound`, in floating point, for any size.

    Parameters
    ----------
    depth : int
        Number of attention layers :math:`L`.
    width : int
        Embedding width :math:`d`.
    n_query : int
        Positions on the side holding the query position.
    n_other : int
        Positions on the other side.
    residual : bool, default False
        Whether the layers have residual connections.

    Returns
    -------
    float
        log10 of the monomial bound.

    Raises
    ------
    ConfigError
        If an argument is not a positive integer.
    """
    _check(depth, width, n_query, n_other)
    deg = output_degree(depth)
    q, o = _seq.Generic(width * n_query), _seq.Generic(width * n_other)
    if residual:
        return min(q.log10(deg, 1), o.log10(deg, 1))
    return _seq.min_sum_log10(q, o, deg)


def sides(seq_len: int, partition, query_position: int) -> tuple[int, int]:
    """Return the sizes of the query's side of a partition and of the other side.

    Parameters
    ----------
    seq_len : int
        Sequence length N.
    partition : iterable of int
        The positions of side A.
    query_position : int
        The position whose output is measured.

    Returns
    -------
    tuple of (int, int)
        ``(n_query, n_other)``.

    Examples
    --------
    >>> sides(6, (0, 1), query_position=5)
    (4, 2)
    """
    A = set(partition)
    nA, nB = len(A), seq_len - len(A)
    return (nA, nB) if query_position in A else (nB, nA)


def check_has_theorem(net) -> None:
    """Raise ConfigError unless the bounds here are theorems for ``net``.

    They are for exactly the LinearSelfAttention network (polynomial attention over all
    positions, no softmax, no biases or positional terms; residual or not): a class that
    declares ``bound_theorem = "linear_attention"`` in its own body
    (:func:`seprank.nets.bound.theorem_of`). Subclasses that do not declare it (the
    softmax variant) and other architectures are refused rather than given a number no
    theorem covers.

    Parameters
    ----------
    net : object
        The network.

    Raises
    ------
    ConfigError
        If ``net``'s class does not declare the theorem.
    """
    if theorem_of(net) != LINEAR_ATTENTION:
        raise ConfigError(
            f"net={type(net).__name__}: no proved upper bound (the theorems cover "
            "LinearSelfAttention only: polynomial attention without softmax, biases or "
            "positional terms)"
        )


def theorem_bound(net, partition=None) -> dict:
    """Best proved upper bound for a LinearSelfAttention net and partition, with reasons.

    The theorems' own answer, a dict of their figures; ``seprank.upper_bound`` (any
    architecture's bound, a :class:`~seprank.nets.bound.Bound`) reads it for this network.
    Called ``upper_bound`` before (that name still answers, deprecated).

    When a side with fewer positions than the width is too costly for the block bound, the
    monomial bound is used and ``why`` says so.

    Parameters
    ----------
    net : LinearSelfAttention
        The network (any other type is refused, :func:`check_has_theorem`).
    partition : iterable of int, optional
        The positions of side A (default: the first half, ``default_partition``).

    Returns
    -------
    dict
        ``upper`` (the exact integer, or None when it has more than ``MAX_DIGITS`` digits),
        ``log10_upper`` (its log10, always set), ``block`` and ``monomial`` (each bound, None
        when not computed), ``which`` (``"block"`` or ``"monomial"``), ``why``,
        ``n_query_side``, ``n_other_side`` and ``kind`` (``"proved"``).

    Raises
    ------
    ConfigError
        For any network other than LinearSelfAttention, or an invalid partition.
    TooBigError
        For a depth over MAX_DEPTH (the message gives the estimated time).

    Examples
    --------
    >>> from seprank import LinearSelfAttention
    >>> theorem_bound(LinearSelfAttention(depth=1, width=3, heads=1, seq_len=4))["upper"]
    4
    """
    check_has_theorem(net)
    if net.depth > MAX_DEPTH:  # refused with its cost, before any bisection starts
        raise TooBigError(f"depth={net.depth} is too deep for the exact bound: its bisection "
                          f"over D = (3^L-1)/2 takes ~1.6 L steps on L-digit integers (about "
                          f"{2 * (net.depth / 10_000) ** 2:,.0f} s here, 2 s at L = 10,000, "
                          f"growing as L^2); at most {MAX_DEPTH:,}")
    if partition is None:
        partition = default_partition(net.seq_len)
    A, _ = check_partition(partition, net.seq_len)
    nq, no = sides(net.seq_len, A, net.query_position)
    args = (net.depth, net.width, nq, no, net.residual)
    generic = nq >= net.width and no >= net.width
    mono_log = monomial_bound_log10(*args)
    try:
        blk_log = block_bound_log10(*args)
        skipped = ""
    except TooBigError as exc:
        blk_log, skipped = math.inf, str(exc)
    if blk_log <= mono_log:
        which, log10_upper = "block", blk_log
        why = (
            "block bound sum_k min(b_k, a_{D-k}) from y^L = P_L(S) x^i"
            + (" (residual form)" if net.residual else "")
            + ("; generic sides: closed form" if generic else "; bounded-rank side dimensions")
        )
    else:
        which, log10_upper = "monomial", mono_log
        why = "monomial count per side beats the block bound here"
        if skipped:
            why = "monomial count per side (block bound not computed: " + skipped + ")"

    def exact(f, lg):
        return f(*args) if lg <= MAX_DIGITS else None

    blk = exact(block_bound, blk_log) if not skipped else None
    mono = exact(monomial_bound, mono_log)
    upper = blk if which == "block" else mono
    if upper is not None:
        log10_upper = math.log10(upper)  # both bounds are >= 1
    return {
        "upper": upper,
        "log10_upper": log10_upper,
        "block": blk,
        "monomial": mono,
        "which": which,
        "why": why,
        "n_query_side": nq,
        "n_other_side": no,
        "kind": "proved",
    }


#: The theorems' bound's name before "upper_bound" meant an architecture's Bound only.
OLD_NAME = deprecated("seprank.theory.bounds.upper_bound", since="0.2.0",
                      instead="use theorem_bound (the theorems' dict), or seprank.upper_bound "
                      "(any architecture's Bound)")


#: ``upper_bound``, :func:`theorem_bound`'s old name, with a DeprecationWarning.
__getattr__ = old_names(__name__, {"upper_bound": (theorem_bound, OLD_NAME)})
