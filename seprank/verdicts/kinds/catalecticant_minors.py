"""Certificates of catalecticant measurements (strategy ``catalecticant``): per block, a
nonsingular minor of the coefficient matrix H[gamma, (delta, c)] = coef_c(gamma + delta)
(gamma + delta)!, and its check from F's coefficients rebuilt from the seed by
:mod:`seprank.verdicts.reference_poly` (not the measurement's builder).

Why a nonsingular minor mod p certifies ``sep >= rank``: H's entries are integers (the
coefficients of the integer-weight network's F, times factorials) reduced mod p, so an
r x r minor nonzero mod p is a nonzero integer minor, rank_Q H >= r, and sep(f; A, B) =
rank_Q H when both sides have at least d positions (proofs/catalecticant_reduction.md).
Without the residual H is block diagonal (block k: gamma of degree k, delta of degree
D - k), so minors of distinct blocks together form one minor of H and their ranks add.
"""

from __future__ import annotations

import math

import numpy as np

from seprank.nets.capabilities import structural_form
from seprank.theory import bounds
from seprank.verdicts import certificate_fields as cf
from seprank.verdicts import reference_poly
from seprank.verdicts.check_result import CheckResult
from seprank.verdicts.kinds.base import CertificateKind

POINTS = "none: the catalecticant strategy samples no points (draws is empty)"
KEYS_RULE = (
    "F(S) = e_c^T P_L(S) over GF(prime) (the structural lemma, proofs/structural_lemma.md) "
    "for the weights above, in the m = d(d+1)/2 variables s_ab (a <= b, row-major) of S; "
    "key(alpha) = sum_e alpha_e key_radix^e; a block's minor has rows gamma = rows[i], "
    "columns (delta, c) = (cols[j], coords[j]) and entries coef_c(gamma + delta) "
    "(gamma + delta)! mod prime; other_s_degree is |gamma| (null: the residual's one "
    "matrix over all degrees), degree the A-side degree in x")
FIELDS = ("keys", "key_radix")
BLOCK_FIELDS = ("degree", "other_s_degree", "rank", "rows", "cols", "coords")
#: The check rebuilds F (at most this many coefficients, d C(D + m, m) for
#: D = (3^L - 1)/2, m = d(d+1)/2) and its minors' entries (at most this many, summed over
#: the blocks).
MAX_REFERENCE_TERMS = 2 * 10**7
MAX_MINOR_ENTRIES = 5 * 10**7
#: Largest monomial key (the keys are int64).
MAX_KEY = 2**62


def radix(net) -> int:
    """The key radix: D + 1 for the homogeneous blocks, 2D + 1 with the residual."""
    D = bounds.matrix_degree(net.depth)
    return 2 * D + 1 if net.residual else D + 1


def write(net, m) -> dict:
    """The catalecticant fields of a certificate of ``m``: no points, no draws, the key
    convention (``keys``, ``key_radix``) and the blocks."""
    return {"points": POINTS, "draws": [], "total_degree": getattr(m.detail, "total_degree", None),
            "keys": KEYS_RULE, "key_radix": radix(structural_form(net)),
            "blocks": blocks(m.minors)}


def blocks(minors: list) -> list:
    """The certificate's blocks from a Measurement's catalecticant minors."""
    return [{"degree": b["degree"], "other_s_degree": b["other_s_degree"],
             "rank": int(b["rank"]), "rows": [int(x) for x in b["rows"]],
             "cols": [int(x) for x in b["cols"]], "coords": [int(x) for x in b["coords"]]}
            for b in minors]


def _block_fields(f: str, b: dict) -> None:
    cf.integer(f"{f}.other_s_degree", b["other_s_degree"], 0, 3**40, null=True)
    cf.integers(f"{f}.coords", b["coords"], 10**6)


def schema(cert: dict) -> None:
    """The blocks (with other_s_degree and coords, keys for rows and cols), the key fields,
    and the size of F and of the minors the check builds."""
    cf.blocks(cert["blocks"], BLOCK_FIELDS, MAX_KEY, _block_fields)
    for k in FIELDS:
        if k not in cert:
            cf.fail(k, "is missing (a catalecticant certificate needs it)")
    cf.string("keys", cert["keys"])
    cf.integer("key_radix", cert["key_radix"], 2, 2**40)
    cfg = cert["config"]
    L, d = cfg.get("depth"), cfg.get("width")
    if not (cf.is_int(L) and 1 <= L <= 40 and cf.is_int(d) and 1 <= d <= 10**4):
        cf.fail("config", "needs integer depth (1..40) and width for a catalecticant "
                "certificate")
    D, m = (3**L - 1) // 2, d * (d + 1) // 2
    terms = d * math.comb(D + m, m)
    if terms > MAX_REFERENCE_TERMS:
        cf.fail("config", f"depth {L}, width {d}: F has up to {terms:.2e} coefficients to "
                f"rebuild, at most {MAX_REFERENCE_TERMS:.0e}")
    cells = sum(len(b["rows"]) * len(b["cols"]) for b in cert["blocks"])
    if cells > MAX_MINOR_ENTRIES:
        cf.fail("blocks", f"the minors have {cells:,} entries, at most {MAX_MINOR_ENTRIES:,}")


def _applies(cert, net, A, p: int) -> list:
    """Why the reduction or the key convention does not hold here (empty: they do)."""
    bad = []
    d, D = net.width, bounds.matrix_degree(net.depth)
    nq, no = bounds.sides(net.seq_len, A, net.query_position)
    if min(nq, no) < d:
        bad.append(f"the partition leaves {nq} and {no} positions on the query's and the "
                   f"other side: the catalecticant reduction needs at least width = {d}")
    if p <= D:
        bad.append(f"prime {p} must exceed D = {D} (the factorials must be invertible)")
    if cert.get("key_radix") != radix(net):
        bad.append(f"key_radix {cert.get('key_radix')!r} is not {radix(net)} "
                   f"({'2D + 1' if net.residual else 'D + 1'}, D = {D})")
    elif radix(net) ** (d * (d + 1) // 2) >= 2**62:
        bad.append(f"keys in base {radix(net)} of {d * (d + 1) // 2} digits overflow 2^62")
    if cert.get("total_degree") is not None:
        bad.append("total_degree must be null in a catalecticant certificate")
    if cert.get("draws"):
        bad.append("a catalecticant certificate samples nothing: draws must be empty")
    return bad


def _layout(cert, net, A) -> list:
    """The blocks' degrees: the residual's one matrix, or distinct homogeneous blocks
    whose A-degree matches their other_s_degree."""
    D, bs = bounds.matrix_degree(net.depth), cert["blocks"]
    if net.residual:
        if len(bs) != 1 or bs[0]["degree"] is not None or bs[0]["other_s_degree"] is not None:
            return ["with the residual a catalecticant certificate has exactly one block, "
                    "of degree and other_s_degree null"]
        return []
    ks = [b["other_s_degree"] for b in bs]
    if len(set(ks)) != len(ks) or not all(isinstance(k, int) and 0 <= k <= D for k in ks):
        return [f"block other_s_degrees {ks} must be distinct integers in 0..{D}"]
    on_A = net.query_position in set(A)
    for b in bs:
        k = b["other_s_degree"]
        want = 2 * (D - k) + 1 if on_A else 2 * k
        if b["degree"] != want:
            return [f"block of other_s_degree {k}: degree {b['degree']!r} is not its "
                    f"A-degree {want}"]
    return []


def _where(b) -> str:
    k = b["other_s_degree"]
    return "the residual's block" if k is None else f"block of other_s_degree {k}"


def _indices(b, net) -> str | None:
    """Why a block's minor indices are bad (None: they are good)."""
    d, D, R = net.width, bounds.matrix_degree(net.depth), radix(net)
    m = d * (d + 1) // 2
    r, rows, cols, cs = int(b["rank"]), b["rows"], b["cols"], b["coords"]
    if not len(rows) == len(cols) == len(cs) == r:
        return (f"rank {r} but {len(rows)} rows, {len(cols)} columns and {len(cs)} "
                "coordinates")
    if any(not 0 <= c < d for c in cs):
        return f"a coordinate is outside 0..{d - 1}"
    k = b["other_s_degree"]
    for what, keys, deg in (("row", rows, k), ("column", cols, None if k is None else D - k)):
        if any(not 0 <= x < R**m for x in keys):
            return f"a {what} key is outside 0..{R}^{m} - 1"
        sums = reference_poly.digits(keys, m, R).sum(axis=1)
        if (sums > D).any() if deg is None else (sums != deg).any():
            return (f"a {what} key is not an exponent of degree "
                    f"{'<= ' + str(D) if deg is None else deg}")
    if len(set(rows)) < r or len(set(zip(cols, cs))) < r:
        return "its rows or columns repeat an index"
    return None


def check(cert: dict, ctx) -> CheckResult | None:
    """Rebuild F's coefficients from the seed and check every block's minor over GF(p)
    (after the reduction's conditions and the blocks' layout); the bound is checked next."""
    bad = ctx.bad or _check_blocks(cert, ctx.net, ctx.params, ctx.A, ctx.dom.p)
    return CheckResult(False, bad, rank=ctx.total) if bad else None


def _check_blocks(cert, net, params, A, p: int) -> list:
    """Why a catalecticant certificate's blocks fail (empty: every minor is nonsingular
    over GF(p) and the reduction applies)."""
    import flint

    form = structural_form(net)
    if form is None:
        return [f"a catalecticant certificate needs a network that declares its structural "
                f"form (the capability structural_polynomial; {type(net).__name__} does "
                "not)"]
    net = form
    bad = _applies(cert, net, A, p) or _layout(cert, net, A)
    if bad:
        return bad
    bad = [f"{_where(b)}: {why}" for b in cert["blocks"] if (why := _indices(b, net))]
    if bad:
        return bad
    d, R = net.width, radix(net)
    F = reference_poly.reference_F(net, params, p, R)
    for b in cert["blocks"]:
        r = int(b["rank"])
        if r == 0:
            continue
        alpha = np.asarray(b["rows"], dtype=np.int64)[:, None] + \
            np.asarray(b["cols"], dtype=np.int64)[None, :]
        H = reference_poly.entries(F, alpha, np.asarray(b["coords"])[None, :], p,
                                   d * (d + 1) // 2, R)
        if int(flint.nmod_mat(r, r, [int(v) for v in H.ravel()], p).det()) == 0:
            bad.append(f"{_where(b)}: the {r} x {r} minor is singular over GF({p})")
    return bad


KIND = CertificateKind(name="catalecticant minors", strategies=("catalecticant",),
                       schema=schema, check=check, write=write, fields=FIELDS)
