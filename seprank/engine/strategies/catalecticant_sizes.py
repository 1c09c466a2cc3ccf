"""The catalecticant strategy's sizes and applicability: which networks it measures, its
prime, and the shapes of its matrices before any is built
(:mod:`seprank.engine.strategies.catalecticant` declares the strategy).

The strategy reads only the structural form a network declares (the capability
``structural_polynomial``, :mod:`seprank.nets.capabilities`), never its type.
"""

from __future__ import annotations

import math

from seprank.algebra.domains import DEFAULT_PRIME
from seprank.engine.sample_grid import available_memory
from seprank.errors import TooBigError
from seprank.nets.capabilities import structural_form as form_of

#: Extra entries of the long side kept in the first, sub-matrix attempt at a block.
MARGIN = 16


def fits(rows: int, cols: int) -> bool:
    """Whether a block matrix (float64, eliminated in place) fits in a quarter of the
    available memory."""
    return rows * cols * 8 <= available_memory() // 4


def check_fits(rows: int, cols: int) -> None:
    """Refuse a block matrix over a quarter of the available memory, before it is
    allocated."""
    if not fits(rows, cols):
        raise TooBigError(f"catalecticant: a {rows}x{cols} block needs "
                          f"{rows * cols * 8 / 2**30:.1f} GiB, over the "
                          f"{available_memory() // 4 / 2**30:.1f} GiB allowed")


def _size_refusal(net) -> str | None:
    """Why F is too large to tabulate (None: it is not), from sizes alone."""
    d = net.width
    m = d * (d + 1) // 2
    if net.depth > 40:  # D = (3^L - 1)/2 over 10^19: no table of F is possible
        return f"needs depth <= 40 (got {net.depth}): F has degree (3^L - 1)/2"
    D = net.matrix_degree
    if D + 1 > MAX_BLOCKS:
        return f"needs at most {MAX_BLOCKS} blocks (D + 1 = {D + 1} at depth {net.depth})"
    log_terms = math.lgamma(D + m) - math.lgamma(D + 1) - math.lgamma(m)  # ln C(D+m-1, D)
    if log_terms > math.log(MAX_MONOMIALS):
        return (f"needs F to have at most {MAX_MONOMIALS:.0e} coefficients (its degree-{D} "
                f"part alone has about 10^{log_terms / math.log(10):.0f})")
    radix = 2 * D + 1 if net.residual else D + 1
    if m * math.log2(radix) >= 62:
        return f"needs radix^m < 2^62 for its monomial keys (radix {radix}, m = {m})"
    return None


def refusal(net, A, method: str, sampler: str, p: int | None) -> str | None:
    """Why the catalecticant strategy does not apply (None: it applies)."""
    form = form_of(net)
    if form is None:
        return (f"needs a network that declares its structural form (the capability "
                f"structural_polynomial; {type(net).__name__} does not)")
    net = form
    if method != "modular":
        return f"needs method='modular' (got method={method!r})"
    if sampler not in ("random", "auto"):
        return f"samples nothing; sampler={sampler!r} has no meaning for it"
    nq, no = net.sides(A)
    if min(nq, no) < net.width:
        return (f"needs at least width={net.width} positions on each side (query side {nq}, "
                f"other side {no}): with fewer, S on that side does not fill the symmetric "
                "matrices and the coefficient reduction does not hold; use 'graded' or "
                "'direct'")
    too_big = _size_refusal(net)
    if too_big is not None:
        return too_big
    D = net.matrix_degree
    if p is None or p <= D:
        return f"needs prime > D = {D} (the factorials up to D! must be invertible mod p)"
    return None


#: Most coefficients of F the strategy tabulates (a refusal above: the table is int64).
MAX_MONOMIALS = 10**8
#: Most blocks (D + 1) of one measurement (width 1 has D + 1 blocks of one entry each).
MAX_BLOCKS = 100_000
#: The largest prime below 2**23: the BLAS elimination needs one float64 product per step
#: instead of two (seprank.algebra.blas_elimination.single_product), about 1.6 times faster.
FAST_PRIME = 8388593
#: Short side of the largest block from which the strategy, left to choose its prime,
#: takes FAST_PRIME (below it the default prime's smaller Schwartz-Zippel bound is free).
FAST_FROM = 2048


def block_shapes(net) -> list[tuple[int, int]]:
    """(rows, columns) of every matrix the strategy forms, before any is built: block k
    is C(k+m-1, k) x d C(D-k+m-1, D-k) (exponents of degree k and D - k in m = d(d+1)/2
    variables); with the residual one matrix over all degrees <= D."""
    net = form_of(net)
    d, D = net.width, net.matrix_degree
    m = d * (d + 1) // 2
    if net.residual:
        n = math.comb(D + m, m)
        return [(n, n * d)]
    return [(math.comb(k + m - 1, k), d * math.comb(D - k + m - 1, D - k)) for k in range(D + 1)]


def check_sizes(net) -> None:
    """TooBigError, before F is built, when the smallest matrix the strategy must rank for
    some block (its short side by s + MARGIN entries of the long one) does not fit in a
    quarter of the available memory (:func:`rank_block` forms nothing smaller)."""
    net = form_of(net)
    if _size_refusal(net) is not None:
        return  # refused with its own reason
    d = net.width

    def smallest(r, c):  # what rank_block forms first: the subset, or the whole block
        if net.residual:
            return r, c
        s = min(r, c)
        if c > s + MARGIN * d:  # a subset of whole deltas (d columns each)
            return s, min(c, -(-(s + MARGIN) // d) * d)
        if r > s + MARGIN:  # a subset of the rows
            return s, s + MARGIN
        return r, c  # the whole block

    need = max((smallest(r, c) for r, c in block_shapes(net)), key=lambda rc: rc[0] * rc[1])
    if not fits(*need):
        raise TooBigError(
            f"depth/width: the catalecticant strategy must rank a {need[0]}x{need[1]} "
            f"matrix for its largest block, {need[0] * need[1] * 8 / 2**30:.1f} GiB, over the "
            f"{available_memory() // 4 / 2**30:.1f} GiB allowed (a quarter of the available "
            "memory): lower the sizes, or use a machine with more memory")


def choose_prime(net, prime: int | None, blas: bool = True) -> tuple[int, str]:
    """The modulus and why: the caller's; else FAST_PRIME when the blocks are ranked by
    the BLAS engine (``blas``: rank_engine auto or blas, on the CPU), the largest block's
    short side is at least FAST_FROM and D < FAST_PRIME; else the default prime."""
    if prime is not None:
        return int(prime), ""
    net = form_of(net)
    if not blas:  # the one-product speed-up is the BLAS engine's: nothing to gain
        return DEFAULT_PRIME, ""
    if _size_refusal(net) is not None:  # refused later, with that reason
        return DEFAULT_PRIME, ""
    short = max(min(r, c) for r, c in block_shapes(net))
    if short >= FAST_FROM and net.matrix_degree < FAST_PRIME:
        return FAST_PRIME, (f"; prime {FAST_PRIME}, the largest below 2^23 (its largest "
                            f"block has a short side of {short}: the GF(p) elimination "
                            "needs one float64 product per step there, not two; the "
                            f"Schwartz-Zippel bounds are {DEFAULT_PRIME / FAST_PRIME:.0f}x "
                            f"those at the default prime {DEFAULT_PRIME}: pass prime= "
                            "for another)")
    return DEFAULT_PRIME, ""
