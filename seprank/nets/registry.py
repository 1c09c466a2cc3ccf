"""Naming architectures: the registry, import paths ``module:Class`` and entry points.

:func:`resolve` turns a name into a class, in this order: a registry name
(:data:`ARCHITECTURES`, the names ``seprank archs`` lists), a registry class's own name
(``MPS``: what certificates record), an import path ``module:Class`` (the module must be
importable, e.g. on PYTHONPATH), an entry point of an installed package in the group
``seprank.architectures``. :func:`name_of` is the inverse: the registry name, or the
import path of any other class (what store keys and certificates record).

:func:`resolve` is for the user's own words (``--arch`` on the command line, a grid file
named on it, a name passed to the API). A name read from a file someone else may have
written (a certificate) goes through :func:`resolve_from_file` instead: registry names,
seprank's own classes and installed entry points resolve as before, but a
``module:Class`` (and a torch factory ``module:function`` in a config) is imported only
with the user's explicit permission (:func:`allows`); otherwise a ConfigError says which
module the file names and how to allow it. Importing a module runs its top-level code.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import sys

from seprank.errors import ConfigError
from seprank.nets.attention import LinearSelfAttention, SoftmaxSelfAttention
from seprank.nets.capabilities import own_methods
from seprank.nets.convac import ConvACDeep, ConvACShallow
from seprank.nets.embedded_attention import EmbeddedAttention
from seprank.nets.gnn import GNN
from seprank.nets.hyena import Hyena
from seprank.nets.mixers_attention import GLA, LinearAttention, Retention
from seprank.nets.mlp_mixer import MLPMixer
from seprank.nets.rac import RAC
from seprank.nets.ssm import S4, S6
from seprank.nets.tensor_network import MPS
from seprank.nets.torch_module import TorchModule
from seprank.registry import Registry

#: The entry-point group an installed package registers its architectures in.
ENTRY_POINT_GROUP = "seprank.architectures"
#: name -> architecture class (one file per family in seprank/nets/; a
#: :class:`seprank.registry.Registry`, read as a mapping).
ARCHITECTURES: Registry[type] = Registry("arch", object, classes=True, group=ENTRY_POINT_GROUP,
                                         autoload=False)
for _name, _cls in (("attention", LinearSelfAttention),
                    ("softmax-attention", SoftmaxSelfAttention),
                    ("embedded-attention", EmbeddedAttention),
                    ("convac-shallow", ConvACShallow),
                    ("convac-deep", ConvACDeep),
                    ("mps", MPS),
                    ("rac", RAC),
                    ("gnn", GNN),
                    ("linear-attention", LinearAttention),
                    ("retention", Retention),
                    ("gla", GLA),
                    ("s6", S6),
                    ("s4", S4),
                    ("hyena", Hyena),
                    ("mixer", MLPMixer)):
    ARCHITECTURES.register(_cls, name=_name)


def check_class(obj, name: str):
    """``obj`` if it is an architecture class (init, apply, seq_len), else ConfigError."""
    fields = {f.name for f in dataclasses.fields(obj)} if dataclasses.is_dataclass(obj) else set()
    has_len = "seq_len" in fields or hasattr(obj, "seq_len") or \
        "seq_len" in getattr(obj, "__annotations__", {})
    if not isinstance(obj, type) or not callable(getattr(obj, "init", None)) or \
            not callable(getattr(obj, "apply", None)) or not has_len:
        raise ConfigError(f"arch={name!r} is {obj!r}, not an architecture class (a class "
                          "with init, apply and seq_len: seprank.nets.base)")
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


def import_object(name: str, what: str = "arch"):
    """The object ``module:attr`` names, imported (ConfigError in one line, naming
    ``what``, if the module cannot be imported, raises, or lacks the attribute)."""
    mod, _, attr = name.partition(":")
    try:
        obj = _import_module(mod)
    except ImportError as exc:
        raise ConfigError(f"{what}={name!r}: module {mod!r} cannot be imported ({exc}); is "
                          "it on PYTHONPATH?") from None
    except Exception as exc:  # the user's module itself fails: say so in one line
        raise ConfigError(f"{what}={name!r}: importing module {mod!r} raised "
                          f"{type(exc).__name__}: {exc}") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ConfigError(f"{what}={name!r}: module {mod!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


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
                          "entry point name")
    name = name.strip()
    if name in ARCHITECTURES:
        return ARCHITECTURES[name]
    by_class = {cls.__name__: cls for cls in ARCHITECTURES.values()}
    if name in by_class:
        return by_class[name]
    if ":" in name:
        return check_class(import_object(name), name)
    found = ARCHITECTURES.entry_point(name)
    if found is None:
        raise ConfigError(f"arch={name!r} is not an architecture; valid: "
                          f"{', '.join(ARCHITECTURES)}, module:Class, or an entry point of "
                          f"the group {ENTRY_POINT_GROUP}")
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


# ---------------------------------------------------------------- names read from files
#: Config fields that name a ``module:function`` to import, per class (TorchModule's
#: ``factory``): gated like a ``module:Class`` name when they come from a file.
IMPORT_FIELDS = {TorchModule: ("factory",)}


def own_classes() -> dict:
    """seprank's own classes by the names a file may give them (class name or import
    path): the registry's and TorchModule. Resolving one imports no user code."""
    out = {}
    for cls in (*ARCHITECTURES.values(), TorchModule):
        out[cls.__name__] = cls
        out[import_path(cls)] = cls
    return out


def check_allow_import(allow_import):
    """``allow_import`` as given if it is True, False (or None) or import paths (a string or
    an iterable of strings); ConfigError otherwise."""
    if allow_import is None or isinstance(allow_import, (bool, str)):
        return allow_import
    try:
        paths = tuple(allow_import)
    except TypeError:
        paths = None
    if paths is None or not all(isinstance(p, str) for p in paths):
        raise ConfigError(f"allow_import={allow_import!r} must be True, False, or the "
                          "import paths (module:Class, module:function) allowed")
    return paths


def allows(allow_import, path: str) -> bool:
    """Whether ``allow_import`` (True, False/None, an import path or several) permits
    importing ``path``."""
    allow_import = check_allow_import(allow_import)
    if allow_import is True:
        return True
    if not allow_import:
        return False
    return path in ((allow_import,) if isinstance(allow_import, str) else allow_import)


def file_imports(name: str, config: dict | None = None, cls=None) -> list[tuple[str, str]]:
    """What using the architecture a file names would import, as ``(what, path)`` pairs:
    ``("architecture", "mod:Class")`` for a ``module:Class`` that is not seprank's own
    (unless ``cls``, the user's own class, replaces it), and ``("factory", "mod:fn")``
    for an import field of the class (:data:`IMPORT_FIELDS`) set in ``config``. Registry
    names, seprank's classes and entry points (installed packages) import nothing the
    file brings: ``[]``."""
    out = []
    if cls is None:
        cls = own_classes().get(name) if isinstance(name, str) else None
        if cls is None and isinstance(name, str) and ":" in name:
            out.append(("architecture", name.strip()))
    fields = [f for base, fs in IMPORT_FIELDS.items()
              if isinstance(cls, type) and issubclass(cls, base) for f in fs]  # subclasses too
    for f in fields:
        v = (config or {}).get(f)
        if isinstance(v, str):
            out.append((f, v))
    return out


def refusal(what: str, path: str, source: str, how: str) -> ConfigError:
    """The one-line ConfigError for a module a file names and nothing allowed."""
    mod = path.partition(":")[0]
    return ConfigError(f"{source} names the module {mod!r} ({what} {path!r}); a module a "
                       f"file names is not imported without your word (importing runs its "
                       f"code): {how}")


API_HOW = "pass cls=the class, or allow_import=True (or the import path) if you trust it"


def resolve_from_file(name, config: dict | None = None, *, allow_import=False,
                      source: str = "the file", how: str = API_HOW) -> type:
    """The architecture class a name read from a file stands for, importing only what the
    user allows.

    Parameters
    ----------
    name : str
        The name the file gives (a certificate's ``architecture``).
    config : dict, optional
        The configuration the file gives with it (a torch ``factory`` in it is a
        ``module:function`` to import, gated the same way).
    allow_import : bool or str or iterable of str, default False
        The user's permission: True (any module), or the import paths allowed.
    source : str, default "the file"
        How the error names the file.
    how : str
        How the error says to give permission.

    Returns
    -------
    type
        The class; every module it needs is imported (a torch factory's included).

    Raises
    ------
    ConfigError
        If the file names a module that ``allow_import`` does not allow (nothing is
        imported), or an allowed one cannot be imported, or the name names no
        architecture.

    Examples
    --------
    >>> resolve_from_file("MPS").__name__
    'MPS'
    """
    check_allow_import(allow_import)
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"architecture={name!r} must be a registry name, module:Class or an "
                          "entry point name")
    name = name.strip()
    cls = ARCHITECTURES.get(name, None) or own_classes().get(name)
    if cls is None and ":" in name:
        if not allows(allow_import, name):
            raise refusal("architecture", name, source, how)
        cls = check_class(import_object(name, "architecture"), name)
    elif cls is None:
        cls = resolve(name)  # an entry point of an installed package
    import_fields(cls, config, allow_import, source, how)
    return cls


def import_fields(cls, config: dict | None, allow_import=False, source: str = "the file",
                  how: str = API_HOW) -> None:
    """Import what ``cls``'s import fields in ``config`` name (a torch factory's module and
    function), if allowed; ConfigError (nothing imported) if not, or if it cannot be."""
    for what, path in file_imports(None, config, cls):
        if not allows(allow_import, path):
            raise refusal(what, path, source, how)
        if not isinstance(path, str) or path.count(":") != 1 or not all(path.split(":")):
            raise ConfigError(f"{what}={path!r} must be module:function")
        if not callable(import_object(path, what)):
            raise ConfigError(f"{what}={path!r} is not a function")


def shipped_function(cls) -> bool:
    """Whether ``cls`` computes the function of a class seprank ships (whose code and
    declarations are tested): it is one, or it reaches one in its MRO without defining a
    method of its own on the way.

    Parameters
    ----------
    cls : type
        The network's class.

    Returns
    -------
    bool
        False for a class outside seprank, or a subclass that defines a method.
    """
    shipped = set(ARCHITECTURES.values())
    for owner in cls.__mro__:
        if owner in shipped:
            return True
        if own_methods(owner):  # it may compute another function
            return False
    return False

