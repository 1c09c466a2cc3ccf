"""Naming architectures: the registry, import paths ``module:Class`` and entry points.

:func:`resolve` turns a name into a class, in this order: a registry name
(:data:`ARCHITECTURES`, the names ``seprank archs`` lists), a registry class's own name
(``MPS``: what certificates record), an import path ``module:Class`` (the module must be
importable, e.g. on PYTHONPATH), an entry point of an installed package in the group
``seprank.architectures``. :func:`name_of` is the inverse: the registry name, or the
import path of any other class (what store keys and certificates record).
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import sys

from seprank.errors import ConfigError
from seprank.nets.attention import LinearSelfAttention, SoftmaxSelfAttention
from seprank.nets.convac import ConvACDeep, ConvACShallow
from seprank.nets.embedded_attention import EmbeddedAttention
from seprank.nets.gnn import GNN
from seprank.nets.hyena import Hyena
from seprank.nets.mixers_attention import GLA, LinearAttention, Retention
from seprank.nets.mlp_mixer import MLPMixer
from seprank.nets.rac import RAC
from seprank.nets.ssm import S4, S6
from seprank.nets.tensor_network import MPS

#: name -> architecture class (one file per family in seprank/nets/).
ARCHITECTURES = {
    "attention": LinearSelfAttention,
    "softmax-attention": SoftmaxSelfAttention,
    "embedded-attention": EmbeddedAttention,
    "convac-shallow": ConvACShallow,
    "convac-deep": ConvACDeep,
    "mps": MPS,
    "rac": RAC,
    "gnn": GNN,
    "linear-attention": LinearAttention,
    "retention": Retention,
    "gla": GLA,
    "s6": S6,
    "s4": S4,
    "hyena": Hyena,
    "mixer": MLPMixer,
}
#: The entry-point group an installed package registers its architectures in.
ENTRY_POINT_GROUP = "seprank.architectures"


def check_class(obj, name: str):
    """``obj`` if it is an architecture class (init, apply, seq_len), else ConfigError."""
    fields = {f.name for f in dataclasses.fields(obj)} if dataclasses.is_dataclass(obj) else set()
    has_len = "seq_len" in fields or hasattr(obj, "seq_len") or \
        "seq_len" in getattr(obj, "__annotations__", {})  # fmt: skip
    if not isinstance(obj, type) or not callable(getattr(obj, "init", None)) or \
            not callable(getattr(obj, "apply", None)) or not has_len:  # fmt: skip
        raise ConfigError(f"arch={name!r} is {obj!r}, not an architecture class (a class "
                          "with init, apply and seq_len: seprank.nets.base)")  # fmt: skip
    return obj


def _import_module(mod: str):
    """``importlib.import_module``, with the working directory on the path as a last try
    (as ``python -m`` has it; the ``seprank`` script does not), so that a sweep's workers,
    started in the same directory, find the same module."""
    try:
        return importlib.import_module(mod)
    except ModuleNotFoundError as exc:
        if exc.name != mod.split(".")[0] or os.getcwd() in sys.path:
            raise
        sys.path.append(os.getcwd())
        return importlib.import_module(mod)


def _import(name: str):
    mod, _, attr = name.partition(":")
    try:
        obj = _import_module(mod)
    except ImportError as exc:
        raise ConfigError(f"arch={name!r}: module {mod!r} cannot be imported ({exc}); is it "
                          "on PYTHONPATH?") from None  # fmt: skip
    except Exception as exc:  # the user's module itself fails: say so in one line
        raise ConfigError(f"arch={name!r}: importing module {mod!r} raised "
                          f"{type(exc).__name__}: {exc}") from None  # fmt: skip
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ConfigError(f"arch={name!r}: module {mod!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


def _entry_point(name: str):
    from importlib.metadata import entry_points

    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if not found:
        return None
    try:
        return found[0].load()
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"arch={name!r}: its entry point {found[0].value!r} "
                          f"cannot be loaded ({exc})") from None  # fmt: skip


def resolve(name) -> type:
    """The architecture class ``name`` stands for (a class is returned as it is).

    Parameters
    ----------
    name : str or type
        A registry name (``ARCHITECTURES``, e.g. ``"attention"``), a registered class's name,
        ``module:Class``, or the name of an entry point in the group
        ``seprank.architectures``; or a class.

    Returns
    -------
    type
        The architecture class.

    Raises
    ------
    ConfigError
        If ``name`` names no architecture, cannot be imported, or is not an architecture
        class.

    Examples
    --------
    >>> resolve("LinearSelfAttention").__name__
    'LinearSelfAttention'
    """
    if isinstance(name, type):
        return check_class(name, getattr(name, "__name__", str(name)))
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"arch={name!r} must be a registry name, module:Class or an "
                          "entry point name")  # fmt: skip
    name = name.strip()
    if name in ARCHITECTURES:
        return ARCHITECTURES[name]
    by_class = {cls.__name__: cls for cls in ARCHITECTURES.values()}
    if name in by_class:
        return by_class[name]
    if ":" in name:
        return check_class(_import(name), name)
    found = _entry_point(name)
    if found is None:
        raise ConfigError(f"arch={name!r} is not an architecture; valid: "
                          f"{', '.join(ARCHITECTURES)}, module:Class, or an entry point of "
                          f"the group {ENTRY_POINT_GROUP}")  # fmt: skip
    return check_class(found, name)


def import_path(cls) -> str:
    """``module:Qualname`` of a class (what :func:`resolve` imports back)."""
    return f"{cls.__module__}:{cls.__qualname__}"


def name_of(cls) -> str:
    """The registry name of the architecture class ``cls``, else its import path.

    Returns
    -------
    str
        Its ``ARCHITECTURES`` name, or ``module:Qualname`` (what :func:`resolve` imports back).
    """
    for name, known in ARCHITECTURES.items():
        if cls is known:
            return name
    return import_path(cls)


def label_of(cls) -> str:
    """What a certificate records: a registered class's own name (``MPS``, as before),
    else the import path."""
    return cls.__name__ if cls in ARCHITECTURES.values() else import_path(cls)
