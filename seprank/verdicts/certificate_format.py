"""The certificate format, whatever the kind: its constants, its file name, and what checking
and writing share (the network a certificate names, the weights' digest, the claim)."""

from __future__ import annotations

import hashlib
import json
import numbers
import re

import numpy as np

from seprank.errors import ConfigError
from seprank.nets.base import config_of
from seprank.nets.registry import API_HOW, import_fields, resolve, resolve_from_file

FORMAT = "seprank-certificate/1"

WEIGHTS_RULE = "net.init(numpy.random.default_rng(seed), ModP(prime)) (integers in [0, p))"


def architecture_for(name: str, config: dict, cls=None, allow_import=False,
                     how: str = API_HOW):
    """What a certificate's network is built from, with every module it needs imported
    here and only with permission: ``cls`` (the user's word: a class, a name resolved as
    ``--arch`` is, or the architecture itself), else the class the certificate's
    ``architecture`` names
    (:func:`~seprank.nets.registry.resolve_from_file`: a ``module:Class`` or a torch
    ``factory`` only if ``allow_import`` allows it).

    Raises ConfigError (refused, not importable, no such architecture): not a verdict on
    the certificate, so the checker raises it instead of answering "invalid"."""
    if cls is not None and not isinstance(cls, (type, str)):
        return cls  # the architecture itself: nothing to import
    if cls is None:
        return resolve_from_file(name, config, allow_import=allow_import,
                                 source="the certificate", how=how)
    cls = resolve(cls)  # a class, or a name in your words (resolved as --arch is)
    import_fields(cls, config, allow_import, "the certificate", how)
    return cls


def net_from(name: str, config: dict, cls=None, allow_import=False):
    """The network of a certificate: ``cls`` if given (a class, built from ``config``),
    else the class ``name`` names, resolved as a name read from a file
    (:func:`architecture_for`: a module is imported only if ``allow_import`` allows it).
    ``cls`` may also be the architecture itself (one its config cannot rebuild, such as
    ``from_torch`` on a module object): then its config must be the certificate's."""
    cls = architecture_for(name, config, cls, allow_import)
    if not isinstance(cls, type):
        own = {k: v for k, v in config_of(cls).items() if k != "architecture"}
        want = {k: v for k, v in config.items() if k != "architecture"}
        if json.loads(json.dumps(own, default=str)) != json.loads(json.dumps(want, default=str)):
            raise ConfigError(f"the architecture given has config {own}, the certificate "
                              f"{want}")
        return cls
    kw = {k: _tuples(v) for k, v in config.items() if k != "architecture"}
    return cls(**kw)


def _tuples(v):
    return tuple(_tuples(x) for x in v) if isinstance(v, list) else v


def weights_digest(params) -> str:
    """sha256 of the weights: a dict (sorted keys), a list/tuple (in order) or an array."""
    h = hashlib.sha256()

    def feed(x, key=""):
        if isinstance(x, dict):
            for k in sorted(x):
                feed(x[k], f"{key}{k}" if not key else f"{key}.{k}")
        elif isinstance(x, (list, tuple)):
            for i, v in enumerate(x):
                feed(v, f"{key}[{i}]")
        else:
            a = np.ascontiguousarray(np.asarray(x, dtype=np.int64))
            h.update(key.encode())
            h.update(repr(a.shape).encode())
            h.update(a.tobytes())

    feed(params)
    return h.hexdigest()


def dumps(cert: dict) -> str:
    """The certificate as JSON, one top-level key per line (index lists stay on one line)."""
    return "{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in cert.items()) \
        + "\n}\n"


#: Short names of common config fields in certificate file names.
SHORT = {"depth": "L", "width": "d", "heads": "H", "seq_len": "N", "residual": "res",
         "query_position": "q", "output_coord": "o"}


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.-]+", "-", text).strip("-")


def _item(key: str, v) -> str:
    """One config item of a file name; "" for False, None and 0 (within an architecture
    the keys are fixed, so leaving those out is unambiguous)."""
    if v is None or v is False or (isinstance(v, numbers.Integral) and v == 0):
        return ""
    k = SHORT.get(key, key)
    if v is True:
        return k
    if isinstance(v, (list, tuple)):
        v = "-".join(_safe(str(x)) for x in v)
    return f"{k}{_safe(str(v))}"


def certificate_name(cert: dict) -> str:
    """A short, filesystem-safe, deterministic file name from the architecture, its config
    items (in order), the partition, seed and prime; a hash of the config if too long."""
    arch = _safe(cert["architecture"].replace(":", "."))
    items = "_".join(x for k, v in cert["config"].items() if (x := _item(k, v)))
    if len(items) > 80:
        text = json.dumps(cert["config"], sort_keys=True, default=str)
        items = "cfg" + hashlib.sha256(text.encode()).hexdigest()[:12]
    A = "-".join(str(a) for a in cert["partition"])
    return "_".join(x for x in (arch, items, f"A{A}", f"seed{cert['seed']}",
                                f"p{cert['prime']}") if x) + ".json"


def claim_text(rank: int, upper, given: bool, recalled: bool = False,
               stated: bool = False) -> str:
    """The certificate's ``claim``, generated from its fields (the checker regenerates it
    from the verified ones and compares). ``recalled``: the bound is recalled from the
    literature; ``stated``: the architecture states it (its own ``upper_bound``, or derived
    in its module docstring [D]); neither: proved in proofs/."""
    text = ("sep(f; A, B) >= rank for the integer-weight network regenerated from the seed, "
            "hence for the architecture maximised over weights (and at generic weights)")
    if upper is None or int(rank) != int(upper):
        return text
    if given:
        return text + ("; rank equals the stated upper bound, so the separation rank is "
                       "exactly rank if that bound holds")
    if recalled:
        return text + ("; rank equals the upper bound recalled from the literature, so the "
                       "separation rank is exactly rank if that bound holds")
    if stated:
        return text + ("; rank equals the upper bound the architecture states, so the "
                       "separation rank is exactly rank if that bound holds")
    return text + "; rank equals the proved upper bound, so the separation rank is exactly rank"
