"""The strict schema of a certificate (``seprank-certificate/1``), checked before anything
in it is trusted or allocated.

:func:`load` reads a certificate file: its size and its JSON nesting are bounded before
``json`` parses it (a deeply nested file cannot exhaust the recursion), then
:func:`validate` checks it. :func:`validate` checks every field's type and range (a bool
is not an int, an int is not a float or a string; unknown keys are refused; ``prime``
and ``seed`` by their rows of :mod:`seprank.engine.parameters`), and the work
the check would do: the memory of the points the draws regenerate (count * positions *
width * 8 bytes, summed, plus the ``choice`` draws' ``arange(1, prime)``), of the grid of
the minors' rows and columns, and the side of the graded Vandermonde matrix (T + 1, with
T = 3^depth), each against a limit, from the numbers alone. The first bad field raises
:class:`CertificateSchemaError`, one line naming it. Whether the values are *true* (the
minors nonsingular, the bound right) is :func:`seprank.verdicts.certificates.check_certificate`'s.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np

from seprank.engine import parameters
from seprank.errors import ConfigError, SeprankError

#: A certificate file larger than this is refused unread (a depth-8 one is a few MB).
MAX_FILE_BYTES = 64 * 2**20
#: JSON nesting (a certificate needs 4: config -> edges -> pair); refused before parsing.
MAX_NESTING = 8
#: Memory the check may allocate: regenerated points, the minors' grid, arange(1, p).
MAX_BYTES = 2 * 2**30
#: Largest side T + 1 of the graded Vandermonde inverse (T = 3^L): depth 7 (2188) takes
#: seconds with python-flint; depth 8 (6562) minutes, depth 9 (19684: ~7.6e12 operations,
#: 3 GB) would not finish.
MAX_VANDERMONDE = 2188
MAX_INDEX = 2**31

REQUIRED = ("format", "architecture", "config", "partition", "prime", "seed", "weights",
            "weights_sha256", "points", "draws", "strategy", "total_degree", "rank", "blocks",
            "upper_bound", "exact", "claim", "created_by", "numpy")  # fmt: skip
OPTIONAL = ("upper_source", "upper_given", "keys", "key_radix")
STRATEGIES = ("direct", "graded", "catalecticant")
#: A catalecticant certificate's check rebuilds F (at most this many coefficients, d
#: C(D + m, m) for D = (3^L - 1)/2, m = d(d+1)/2) and its minors' entries (at most this
#: many, summed over the blocks).
MAX_REFERENCE_TERMS = 2 * 10**7
MAX_MINOR_ENTRIES = 5 * 10**7
#: Largest monomial key of a catalecticant certificate (the keys are int64).
MAX_KEY = 2**62
_ARCH = re.compile(r"[A-Za-z_][\w.-]*(:[A-Za-z_][\w.]*)?\Z")
_SHA = re.compile(r"[0-9a-f]{64}\Z")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)


class CertificateSchemaError(ConfigError):
    """A certificate that is unreadable or malformed (not merely false)."""


def _bad(field: str, why: str):
    raise CertificateSchemaError(f"certificate: {field} {why}")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _int(field: str, v, lo: int = 0, hi: int = MAX_INDEX, null: bool = False):
    if v is None and null:
        return
    if not _is_int(v):
        _bad(field, f"must be an integer{' or null' if null else ''}, got {_show(v)}")
    if not lo <= v <= hi:
        _bad(field, f"must be in [{lo}, {hi}], got {_show(v)}")


def _param(name: str, v) -> None:
    """A field that is the measurement's parameter ``name`` (:mod:`seprank.engine.parameters`),
    refused with the message the API and the CLI give."""
    try:
        parameters.validate(name, v, required=True)
    except SeprankError as exc:
        raise CertificateSchemaError(f"certificate: {exc}") from None


def _str(field: str, v, limit: int = 10_000) -> None:
    if not isinstance(v, str):
        _bad(field, f"must be a string, got {_show(v)}")
    if len(v) > limit:
        _bad(field, f"is {len(v)} characters, at most {limit}")


def _show(v) -> str:
    return f"{type(v).__name__} {json.dumps(v)[:40] if _jsonable(v) else repr(v)[:40]}"


def _jsonable(v) -> bool:
    try:
        json.dumps(v)
        return True
    except (TypeError, ValueError):
        return False


def _ints(field: str, v, hi: int = MAX_INDEX, limit: int = 10**7) -> list:
    if not isinstance(v, list):
        _bad(field, f"must be a list of integers, got {_show(v)}")
    if len(v) > limit:
        _bad(field, f"has {len(v)} entries, at most {limit}")
    for i, x in enumerate(v):
        _int(f"{field}[{i}]", x, 0, hi)
    return v


def load(path) -> dict:
    """Read and :func:`validate` a certificate file (CertificateSchemaError otherwise)."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if not p.is_file():
            _bad("file", f"{str(path)!r} is not a file")
        if size > MAX_FILE_BYTES:
            _bad("file", f"{str(path)!r} is {size:,} bytes, at most {MAX_FILE_BYTES:,}")
        raw = p.read_bytes()
    except OSError as exc:
        _bad("file", f"{str(path)!r} cannot be read ({exc.strerror or exc})")
    check_nesting(raw)
    try:
        cert = json.loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:  # JSONDecodeError is a ValueError
        _bad("file", f"{str(path)!r} is not JSON ({str(exc)[:80]})")
    validate(cert)
    return cert


def check_nesting(raw: bytes) -> None:
    """Refuse JSON nested deeper than MAX_NESTING, counting brackets outside strings."""
    text = _STRING.sub(b'""', raw)
    b = np.frombuffer(text, dtype=np.uint8)
    step = (np.isin(b, (ord("["), ord("{"))).astype(np.int64)
            - np.isin(b, (ord("]"), ord("}"))).astype(np.int64))  # fmt: skip
    depth = int(np.cumsum(step).max()) if len(step) else 0
    if depth > MAX_NESTING:
        _bad("file", f"nests {depth} levels deep, at most {MAX_NESTING}")


def validate(cert) -> None:
    """Raise CertificateSchemaError naming the first field that breaks the schema."""
    if not isinstance(cert, dict):
        _bad("top level", f"must be a JSON object, got {type(cert).__name__}")
    unknown = sorted(set(cert) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        _bad(str(unknown[0]), "is not a certificate field")
    missing = [k for k in REQUIRED if k not in cert]
    if missing:
        _bad(missing[0], "is missing")
    for k in ("format", "weights", "points", "claim", "created_by", "numpy"):
        _str(k, cert[k])
    _str("architecture", cert["architecture"], 200)
    if not _ARCH.match(cert["architecture"]):
        _bad("architecture", f"must be a registry name or module:Class, got "
             f"{cert['architecture']!r:.60}")
    if not isinstance(cert["weights_sha256"], str) or not _SHA.match(cert["weights_sha256"]):
        _bad("weights_sha256", f"must be 64 lowercase hex digits, got "
             f"{_show(cert['weights_sha256'])}")
    _config(cert["config"])
    part = _ints("partition", cert["partition"], 10**6, 10**6)
    if len(set(part)) != len(part):
        _bad("partition", f"repeats a position: {part[:20]}")
    for r in parameters.PARAMETERS.values():  # the measurement's parameters: the table's
        if r.certificate is not None:
            _param(r.name, cert[r.certificate])
    if cert["strategy"] not in STRATEGIES:
        _bad("strategy", f"must be one of {', '.join(STRATEGIES)}, got {_show(cert['strategy'])}")
    _int("total_degree", cert["total_degree"], 0, 3**40, null=True)
    _int("rank", cert["rank"], 0)
    _int("upper_bound", cert["upper_bound"], 0, 10**4000, null=True)
    if cert.get("upper_source") is not None:
        _str("upper_source", cert["upper_source"])
    for k in ("exact", "upper_given"):
        if k in cert and not isinstance(cert[k], bool):
            _bad(k, f"must be true or false, got {_show(cert[k])}")
    _blocks(cert["blocks"], cert["strategy"] == "catalecticant")
    if cert["strategy"] == "catalecticant":
        _catalecticant(cert)
    else:
        for k in ("keys", "key_radix"):
            if k in cert:
                _bad(k, "belongs to a catalecticant certificate only")
    _work(cert)


def _config(cfg) -> None:
    if not isinstance(cfg, dict):
        _bad("config", f"must be an object, got {type(cfg).__name__}")
    for k, v in cfg.items():
        f = f"config.{k}"
        if v is None or isinstance(v, (bool, str)):
            if isinstance(v, str):
                _str(f, v, 200)
            continue
        if _is_int(v):
            _int(f, v, -(2**63), 2**63 - 1)
        elif isinstance(v, list):
            if len(v) > 10**5:
                _bad(f, f"has {len(v)} entries, at most 100000")
            for i, x in enumerate(v):
                if isinstance(x, list):
                    if len(x) != 2 or not all(_is_int(y) for y in x):
                        _bad(f"{f}[{i}]", f"must be an [int, int] pair, got {_show(x)}")
                elif not _is_int(x):
                    _bad(f"{f}[{i}]", f"must be an integer or an [int, int] pair, got {_show(x)}")
        else:
            _bad(f, f"must be an integer, true/false, a string, null or a list, got {_show(v)}")


def _blocks(blocks, cat: bool = False) -> None:
    if not isinstance(blocks, list) or not blocks:
        _bad("blocks", f"must be a non-empty list, got {_show(blocks)}")
    if len(blocks) > MAX_VANDERMONDE:
        _bad("blocks", f"has {len(blocks)} blocks, at most {MAX_VANDERMONDE}")
    for i, b in enumerate(blocks):
        f = f"blocks[{i}]"
        keys = ("degree", "other_s_degree", "rank", "rows", "cols", "coords") if cat else \
            ("degree", "rank", "rows", "cols")  # fmt: skip
        if not isinstance(b, dict) or set(b) != set(keys):
            _bad(f, f"must be an object with exactly {', '.join(keys)}")
        _int(f"{f}.degree", b["degree"], 0, 3**40, null=True)
        _int(f"{f}.rank", b["rank"], 0)
        _ints(f"{f}.rows", b["rows"], MAX_KEY if cat else MAX_INDEX)
        _ints(f"{f}.cols", b["cols"], MAX_KEY if cat else MAX_INDEX)
        if cat:
            _int(f"{f}.other_s_degree", b["other_s_degree"], 0, 3**40, null=True)
            _ints(f"{f}.coords", b["coords"], 10**6)


def _catalecticant(cert: dict) -> None:
    """The catalecticant fields, and the size of F and of the minors the check builds."""
    for k in ("keys", "key_radix"):
        if k not in cert:
            _bad(k, "is missing (a catalecticant certificate needs it)")
    _str("keys", cert["keys"])
    _int("key_radix", cert["key_radix"], 2, 2**40)
    cfg = cert["config"]
    L, d = cfg.get("depth"), cfg.get("width")
    if not (_is_int(L) and 1 <= L <= 40 and _is_int(d) and 1 <= d <= 10**4):
        _bad("config", "needs integer depth (1..40) and width for a catalecticant certificate")
    D, m = (3**L - 1) // 2, d * (d + 1) // 2
    terms = d * math.comb(D + m, m)
    if terms > MAX_REFERENCE_TERMS:
        _bad("config", f"depth {L}, width {d}: F has up to {terms:.2e} coefficients to "
             f"rebuild, at most {MAX_REFERENCE_TERMS:.0e}")
    cells = sum(len(b["rows"]) * len(b["cols"]) for b in cert["blocks"])
    if cells > MAX_MINOR_ENTRIES:
        _bad("blocks", f"the minors have {cells:,} entries, at most {MAX_MINOR_ENTRIES:,}")


def _width(cfg: dict) -> int:
    w = cfg.get("width", cfg.get("dim", 1))
    return w if _is_int(w) and w > 0 else 1


def check_work(cert: dict, width: int) -> None:
    """The allocation limits again with the architecture's own input width (known once
    its class is resolved; :func:`validate` reads it from the config)."""
    _work(cert, int(width))


def _work(cert: dict, width: int | None = None) -> None:
    """What the check would allocate and compute, from the numbers alone."""
    draws, p = cert["draws"], cert["prime"]
    width = _width(cert["config"]) if width is None else width
    if not isinstance(draws, list) or len(draws) > 10**5:
        _bad("draws", "must be a list of at most 100000 draws")
    need, rows, cols = 0, 0, 0
    for i, d in enumerate(draws):
        f = f"draws[{i}]"
        if isinstance(d, list) and len(d) == 2 and d[0] == "choice":
            _int(f"{f}[1]", d[1], 0, p - 1)
            need = max(need, 16 * p)  # arange(1, p) and its permutation
            continue
        if not (isinstance(d, list) and len(d) == 3 and d[0] in ("A", "B", "probe")):
            _bad(f, f"must be [tag, count, positions] with tag A, B or probe, or ['choice', m], "
                 f"got {_show(d)}")
        _int(f"{f}[1]", d[1], 0, MAX_INDEX)
        _int(f"{f}[2]", d[2], 0, 10**6)
        need += d[1] * d[2] * width * 8
        rows += d[1] if d[0] == "A" else 0
        cols += d[1] if d[0] == "B" else 0
    R = len({i for b in cert["blocks"] for i in b["rows"]})
    C = len({j for b in cert["blocks"] for j in b["cols"]})
    for what, n in (("the regenerated points and arange(1, prime)", need),
                    ("the grid of the minors' rows and columns", R * C * 8)):  # fmt: skip
        if n > MAX_BYTES:
            _bad("draws" if "points" in what else "blocks", f"ask for {n / 2**30:,.1f} GiB "
                 f"({what}), over the {MAX_BYTES / 2**30:.0f} GiB limit")
    if cert["strategy"] == "graded":
        _graded(cert, p)


def _graded(cert: dict, p: int) -> None:
    depth = cert["config"].get("depth")
    T = cert["total_degree"]
    if T is None and _is_int(depth) and 0 <= depth <= 40:
        T = 3**depth
    if T is None:
        return
    if T + 1 > MAX_VANDERMONDE:
        L = f" (depth {depth})" if _is_int(depth) else ""
        _bad("strategy", f"graded with T = {T}{L}: the check inverts a {T + 1} x {T + 1} "
             f"Vandermonde matrix over GF(p) (~{float(T + 1) ** 3:.1e} operations, "
             f"{(T + 1) ** 2 * 8 / 2**30:,.1f} GiB); at most side {MAX_VANDERMONDE} (depth 7)")
    if p <= T + 1:
        _bad("prime", f"{p} is too small for a graded certificate of degree T = {T}: the "
             f"interpolation at t = 0..T needs p > T + 1 = {T + 1}")
    for i, b in enumerate(cert["blocks"]):
        if b["degree"] is not None and b["degree"] > T:
            _bad(f"blocks[{i}].degree", f"{b['degree']} exceeds T = {T}")
