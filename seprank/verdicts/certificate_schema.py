"""The strict schema of a certificate (``seprank-certificate/1``), checked before anything
in it is trusted or allocated.

:func:`load` reads a certificate file: its size and its JSON nesting are bounded before
``json`` parses it (a deeply nested file cannot exhaust the recursion), then
:func:`validate` checks it. :func:`validate` finds the certificate's kind by its
``strategy`` (:mod:`seprank.verdicts.kinds`; an unknown one is refused, naming the known
ones), checks every common field's type and range (a bool is not an int, an int is not a
float or a string; unknown keys are refused; ``prime`` and ``seed`` by their rows of
:mod:`seprank.engine.parameters`), then the kind's own schema (its blocks, its
fields, its limits: e.g. the side of the graded Vandermonde matrix), and the work the
check would do: the memory of the points the draws regenerate (count * positions * width
* 8 bytes, summed, plus the ``choice`` draws' ``arange(1, prime)``) and of the grid of the
minors' rows and columns, each against a limit, from the numbers alone. The first bad
field raises :class:`CertificateSchemaError`, one line naming it. Whether the values are
*true* (the minors nonsingular, the bound right) is
:func:`seprank.verdicts.certificates.check_certificate`'s.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import numpy as np

from seprank.engine import parameters
from seprank.errors import ConfigError, SeprankError
from seprank.paths import read_bounded
from seprank.verdicts import kinds
from seprank.verdicts.certificate_fields import (
    MAX_INDEX,
    MAX_VANDERMONDE,
    CertificateSchemaError,
    OverBudgetError,
    UnknownKindError,
    fail,
    integer,
    integers,
    is_int,
    show,
    string,
)

__all__ = ["MAX_FILE_BYTES", "MAX_VANDERMONDE", "Budget", "CertificateSchemaError",
           "OverBudgetError", "UnknownKindError", "check_nesting", "check_work", "load",
           "validate"]

#: A certificate file larger than this is refused unread (a depth-8 one is a few MB).
MAX_FILE_BYTES = 64 * 2**20
#: JSON nesting (a certificate needs 4: config -> edges -> pair); refused before parsing.
MAX_NESTING = 8
#: Memory the check may allocate: regenerated points, the minors' grid, arange(1, p).
MAX_BYTES = 2 * 2**30

#: Estimates of what checking a minor costs, measured with python-flint 0.7 on one core
#: (tests/verdicts: the 16384 x 16384 minor that took 61 s and 4.3 GB): each entry held as a
#: grid int64, a Python int in a list handed to python-flint and flint's own word (64
#: bytes, rounded up), built at ~5e6 entries a second; the determinant of a k x k minor
#: ~k**3 operations at 2e9 a second (measured 4e9 to 6e9 for k = 300..1000).
BYTES_PER_ENTRY = 64
ENTRIES_PER_SECOND = 5e6
DET_OPS_PER_SECOND = 2e9


@dataclass(frozen=True)
class Budget:
    """What checking one certificate may cost: memory and seconds.

    The estimate from its claimed sizes is compared with it before anything is drawn or
    built (over it: :class:`OverBudgetError`).

    Parameters
    ----------
    bytes : int, default MAX_BYTES (2 GiB)
        Memory: the regenerated points, the grid of the minors' rows and columns, and the
        largest minor as python-flint receives it.
    seconds : float, default 600
        Time: building every minor and its determinant (the network's evaluation, which
        the certificate's sizes do not bound, is not counted).
    """

    bytes: int = MAX_BYTES
    seconds: float = 600.0


#: The fields of every kind (a kind adds its own, :attr:`CertificateKind.fields`).
REQUIRED = ("format", "architecture", "config", "partition", "prime", "seed", "weights",
            "weights_sha256", "points", "draws", "strategy", "total_degree", "rank", "blocks",
            "upper_bound", "exact", "claim", "created_by", "numpy")
OPTIONAL = ("upper_source", "upper_given")
_ARCH = re.compile(r"[A-Za-z_][\w.-]*(:[A-Za-z_][\w.]*)?\Z")
_SHA = re.compile(r"[0-9a-f]{64}\Z")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)


def load(path, budget: Budget | None = None) -> dict:
    """Read and :func:`validate` a certificate file (CertificateSchemaError otherwise): a
    regular file only (a FIFO, a device or a folder is refused unread), its size and
    nesting bounded before parsing, a key repeated in an object refused."""
    try:
        raw = read_bounded(path, MAX_FILE_BYTES, "file")
    except ConfigError as exc:  # a FIFO, a device, a folder, too large, unreadable
        raise CertificateSchemaError(f"certificate: {exc}") from None
    check_nesting(raw)
    try:
        cert = json.loads(raw, object_pairs_hook=_no_repeats)
    except CertificateSchemaError:
        raise
    except (UnicodeDecodeError, ValueError) as exc:  # JSONDecodeError is a ValueError
        fail("file", f"{str(path)!r} is not JSON ({str(exc)[:80]})")
    validate(cert, budget)
    return cert


def _no_repeats(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            fail(str(k)[:60], "appears twice in one object (a JSON file with a repeated key "
                 "is ambiguous)")
        out[k] = v
    return out


def check_nesting(raw: bytes) -> None:
    """Refuse JSON nested deeper than MAX_NESTING, counting brackets outside strings."""
    text = _STRING.sub(b'""', raw)
    b = np.frombuffer(text, dtype=np.uint8)
    step = (np.isin(b, (ord("["), ord("{"))).astype(np.int64)
            - np.isin(b, (ord("]"), ord("}"))).astype(np.int64))
    depth = int(np.cumsum(step).max()) if len(step) else 0
    if depth > MAX_NESTING:
        fail("file", f"nests {depth} levels deep, at most {MAX_NESTING}")


def _param(name: str, v) -> None:
    """A field that is the measurement's parameter ``name`` (:mod:`seprank.engine.parameters`),
    refused with the message the API and the CLI give."""
    try:
        parameters.validate(name, v, required=True)
    except SeprankError as exc:
        raise CertificateSchemaError(f"certificate: {exc}") from None


def validate(cert, budget: Budget | None = None) -> None:
    """Raise CertificateSchemaError naming the first field that breaks the schema: the
    common fields here, then those of the certificate's kind (its ``strategy``:
    UnknownKindError, one line naming it and the known kinds, if none is registered), then
    the cost of its check against ``budget`` (default :class:`Budget`; OverBudgetError)."""
    if not isinstance(cert, dict):
        fail("top level", f"must be a JSON object, got {type(cert).__name__}")
    kind = kinds.kind_of(cert) if "strategy" in cert else None
    own = {f: k for k in kinds.kinds() for f in k.fields}
    unknown = sorted(set(cert) - set(REQUIRED) - set(OPTIONAL) - set(own))
    if unknown:
        fail(str(unknown[0]), "is not a certificate field")
    missing = [k for k in REQUIRED if k not in cert]
    if missing:
        fail(missing[0], "is missing")
    for k in ("format", "weights", "points", "claim", "created_by", "numpy"):
        string(k, cert[k])
    string("architecture", cert["architecture"], 200)
    if not _ARCH.match(cert["architecture"]):
        fail("architecture", f"must be a registry name or module:Class, got "
             f"{cert['architecture']!r:.60}")
    if not isinstance(cert["weights_sha256"], str) or not _SHA.match(cert["weights_sha256"]):
        fail("weights_sha256", f"must be 64 lowercase hex digits, got "
             f"{show(cert['weights_sha256'])}")
    _config(cert["config"])
    part = integers("partition", cert["partition"], 10**6, 10**6)
    if len(set(part)) != len(part):
        fail("partition", f"repeats a position: {part[:20]}")
    for r in parameters.PARAMETERS.values():  # the measurement's parameters: the table's
        if r.certificate is not None:
            _param(r.name, cert[r.certificate])
    integer("total_degree", cert["total_degree"], 0, 3**40, null=True)
    integer("rank", cert["rank"], 0)
    integer("upper_bound", cert["upper_bound"], 0, 10**4000, null=True)
    if cert.get("upper_source") is not None:
        string("upper_source", cert["upper_source"])
    for k in ("exact", "upper_given"):
        if k in cert and not isinstance(cert[k], bool):
            fail(k, f"must be true or false, got {show(cert[k])}")
    kind.schema(cert)  # its blocks, its own fields, its own limits
    for f, owner in own.items():
        if f in cert and owner is not kind:
            fail(f, f"belongs to a {' or '.join(owner.strategies)} certificate only")
    _work(cert, None, budget)


def _config(cfg) -> None:
    if not isinstance(cfg, dict):
        fail("config", f"must be an object, got {type(cfg).__name__}")
    for k, v in cfg.items():
        f = f"config.{k}"
        if v is None or isinstance(v, (bool, str)):
            if isinstance(v, str):
                string(f, v, 200)
            continue
        if is_int(v):
            integer(f, v, -(2**63), 2**63 - 1)
        elif isinstance(v, list):
            if len(v) > 10**5:
                fail(f, f"has {len(v)} entries, at most 100000")
            for i, x in enumerate(v):
                if k == "kwargs":  # a torch factory's (name, value) pairs (seprank study)
                    if not (isinstance(x, list) and len(x) == 2 and isinstance(x[0], str)
                            and (x[1] is None or isinstance(x[1], (bool, str)) or is_int(x[1]))):
                        fail(f"{f}[{i}]", f"must be a [name, value] pair, got {show(x)}")
                    string(f"{f}[{i}][0]", x[0], 200)
                    if isinstance(x[1], str):
                        string(f"{f}[{i}][1]", x[1], 200)
                elif isinstance(x, list):
                    if len(x) != 2 or not all(is_int(y) for y in x):
                        fail(f"{f}[{i}]", f"must be an [int, int] pair, got {show(x)}")
                elif not is_int(x):
                    fail(f"{f}[{i}]", f"must be an integer or an [int, int] pair, got {show(x)}")
        else:
            fail(f, f"must be an integer, true/false, a string, null or a list, got {show(v)}")


def _width(cfg: dict) -> int:
    w = cfg.get("width", cfg.get("dim", 1))
    return w if is_int(w) and w > 0 else 1


def check_work(cert: dict, width: int, budget: Budget | None = None) -> None:
    """The allocation limits again with the architecture's own input width (known once
    its class is resolved; :func:`validate` reads it from the config)."""
    _work(cert, int(width), budget)


def _work(cert: dict, width: int | None = None, budget: Budget | None = None) -> None:
    """What the check would allocate and compute, from the numbers alone."""
    draws, p = cert["draws"], cert["prime"]
    width = _width(cert["config"]) if width is None else width
    if not isinstance(draws, list) or len(draws) > 10**5:
        fail("draws", "must be a list of at most 100000 draws")
    need, rows, cols = 0, 0, 0
    for i, d in enumerate(draws):
        f = f"draws[{i}]"
        if isinstance(d, list) and len(d) == 2 and d[0] == "choice":
            integer(f"{f}[1]", d[1], 0, p - 1)
            need = max(need, 16 * p)  # arange(1, p) and its permutation
            continue
        if not (isinstance(d, list) and len(d) == 3 and d[0] in ("A", "B", "probe")):
            fail(f, f"must be [tag, count, positions] with tag A, B or probe, or ['choice', m], "
                 f"got {show(d)}")
        integer(f"{f}[1]", d[1], 0, MAX_INDEX)
        integer(f"{f}[2]", d[2], 0, 10**6)
        need += d[1] * d[2] * width * 8
        rows += d[1] if d[0] == "A" else 0
        cols += d[1] if d[0] == "B" else 0
    R = len({i for b in cert["blocks"] for i in b["rows"]})
    C = len({j for b in cert["blocks"] for j in b["cols"]})
    for what, n in (("the regenerated points and arange(1, prime)", need),
                    ("the grid of the minors' rows and columns", R * C * 8)):
        if n > MAX_BYTES:
            fail("draws" if "points" in what else "blocks", f"ask for {n / 2**30:,.1f} GiB "
                 f"({what}), over the {MAX_BYTES / 2**30:.0f} GiB limit")
    _budget(cert["blocks"], need + R * C * 8, budget or Budget())


def _budget(blocks, base: int, budget: Budget) -> None:
    """The minors' estimated memory and seconds against ``budget`` (OverBudgetError)."""
    sides = [max(len(b["rows"]), len(b["cols"])) for b in blocks]
    k = max(sides, default=0)
    need = base + k * k * BYTES_PER_ENTRY
    secs = sum(s * s / ENTRIES_PER_SECOND + float(s) ** 3 / DET_OPS_PER_SECOND for s in sides)
    if need > budget.bytes or secs > budget.seconds:
        raise OverBudgetError(
            f"certificate: blocks claim minors up to {k} x {k} ({len(sides)} blocks): checking "
            f"would take ~{need / 2**30:,.2f} GiB and ~{secs:,.0f} s (estimated), over the "
            f"budget of {budget.bytes / 2**30:,.2f} GiB and {budget.seconds:,.0f} s; not "
            "checked (raise it with --max-memory/--max-seconds, API: budget=Budget(...))")
