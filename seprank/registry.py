"""Named plug-in points and deprecations, written once.

:class:`Registry` is the one registry shape seprank's four variants share: measurement
strategies (``seprank.engine.strategies``), GF(p) rank engines
(``seprank.algebra.rank_engines``), certificate kinds (``seprank.verdicts.kinds``) and
architectures (``seprank.nets.ARCHITECTURES``). Each maps a name to an object, with
``register``, ``unregister``, ``get`` and ``names``, an optional entry-point group, and
one form for every message: ``<what>=<name> must be one of ...``, ``<what>=<name> is
registered already``, ``<what>=<obj> must be a <Kind> instance`` (or ``subclass``).

:func:`deprecated` declares one deprecation (what, since which version, what to do
instead) once, where the old form is still read; :data:`DEPRECATIONS` lists the live ones
(``tests/test_deprecations.py`` keeps that list exact).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Generic, TypeVar

from seprank.errors import ConfigError

T = TypeVar("T")
_MISSING = object()


class Registry(Mapping, Generic[T]):
    """Name -> object, for one kind of plug-in; a read-only mapping besides its methods.

    Parameters
    ----------
    what : str
        The argument a name is given as (``"strategy"``, ``"rank_engine"``, ``"kind"``,
        ``"arch"``): every message starts ``what=...``.
    kind : type
        What a registered object must be (an instance of it, or with ``classes`` a
        subclass).
    classes : bool, default False
        Register classes (subclasses of ``kind``) instead of instances.
    group : str or None, default None
        The entry-point group third parties register under (None: none).
    listed : tuple of str, default ()
        Names listed before the registered ones in the unknown-name message (``"auto"``);
        none of them may be registered.
    autoload : bool, default True
        Register the group's objects on first use of :meth:`names` or a missed
        :meth:`get` (False: only :meth:`entry_point` reads the group, one name at a time).

    Examples
    --------
    >>> reg = Registry("colour", str)
    >>> reg.register("red", name="r")
    'red'
    >>> reg.get("r"), reg.names()
    ('red', ('r',))
    """

    def __init__(self, what: str, kind: type, *, classes: bool = False,
                 group: str | None = None, listed: tuple[str, ...] = (),
                 autoload: bool = True) -> None:
        self.what, self.kind, self.classes = what, kind, classes
        self.group, self.listed, self.autoload = group, tuple(listed), autoload
        self._items: dict[str, T] = {}
        self._loaded = group is None or not autoload

    # -- the mapping (read-only view; monkeypatch.setitem in tests replaces an entry)
    def __getitem__(self, name: str) -> T:
        return self._items[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __setitem__(self, name: str, obj: T) -> None:
        self.register(obj, name=name, replace=True)

    def __delitem__(self, name: str) -> None:
        del self._items[name]

    def __repr__(self) -> str:
        return f"Registry({self.what!r}: {', '.join(self._items)})"

    # -- the registry
    def register(self, obj: T, *, name: str | None = None, replace: bool = False) -> T:
        """Add ``obj`` under ``name`` (default its ``name`` attribute); returns ``obj``.

        Parameters
        ----------
        obj : object
            An instance (or, for a registry of classes, a subclass) of ``kind``.
        name : str or None, default None
            The name; None reads ``obj.name``.
        replace : bool, default False
            Replace another object of that name instead of refusing (registering the
            same object again is always allowed).

        Returns
        -------
        object
            ``obj``.

        Raises
        ------
        ConfigError
            If ``obj`` is not a ``kind``, its name is empty or one of ``listed``, or
            another object holds the name.
        """
        ok = (isinstance(obj, type) and issubclass(obj, self.kind)) if self.classes \
            else isinstance(obj, self.kind)
        if not ok:
            what = "subclass" if self.classes else "instance"
            raise ConfigError(f"{self.what}={obj!r} must be a {self.kind.__name__} {what}")
        name = getattr(obj, "name", None) if name is None else name
        if not isinstance(name, str) or not name or name in self.listed:
            others = " or ".join(repr(n) for n in ("", *self.listed))
            raise ConfigError(f"{self.what}={name!r} must be a name other than {others}")
        held = self._items.get(name, _MISSING)
        if held is not _MISSING and held is not obj and not replace:
            raise ConfigError(f"{self.what}={name!r} is registered already ({_short(held)})")
        self._items[name] = obj
        return obj

    def unregister(self, name: str) -> T | None:
        """Remove the object registered as ``name`` and return it (None: there was none).

        Parameters
        ----------
        name : str
            Its name.

        Returns
        -------
        object or None
            The object removed.
        """
        return self._items.pop(name, None)

    def names(self, plugins: bool = True) -> tuple[str, ...]:
        """The registered names, in registration order.

        Parameters
        ----------
        plugins : bool, default True
            Load the entry-point group's objects first.

        Returns
        -------
        tuple of str
            The names.
        """
        if plugins:
            self.load_entry_points()
        return tuple(self._items)

    def get(self, name: str, default: Any = _MISSING) -> T:
        """The object registered as ``name`` (loading the entry points on a miss).

        Parameters
        ----------
        name : str
            Its name.
        default : object, optional
            Returned when no object has that name (else ConfigError).

        Returns
        -------
        object
            The registered object, or ``default``.

        Raises
        ------
        ConfigError
            If no object has that name and no default is given: ``what=name must be one
            of ...`` (the listed and registered names).
        """
        if name not in self._items:
            self.load_entry_points()
        if isinstance(name, str) and name in self._items:
            return self._items[name]
        if default is not _MISSING:
            return default
        raise ConfigError(self.unknown(name))

    def unknown(self, name: Any) -> str:
        """The one message for a name that is not registered.

        Parameters
        ----------
        name : object
            What was given.

        Returns
        -------
        str
            ``what=name must be one of a, b, ...``.
        """
        return f"{self.what}={name!r} must be one of {', '.join((*self.listed, *self._items))}"

    # -- entry points
    def entry_point(self, name: str) -> Any:
        """Load the object the group's entry point ``name`` names (not registered).

        Parameters
        ----------
        name : str
            The entry point's name.

        Returns
        -------
        object or None
            The loaded object; None when the group has no entry point of that name.

        Raises
        ------
        ConfigError
            If the entry point exists but cannot be loaded.
        """
        found = [ep for ep in _entry_points(self.group) if ep.name == name]
        if not found:
            return None
        try:
            return found[0].load()
        except (ImportError, AttributeError) as exc:
            raise ConfigError(f"{self.what}={name!r}: its entry point {found[0].value!r} "
                              f"cannot be loaded ({exc})") from None

    def load_entry_points(self) -> None:
        """Register every object of the entry-point group, once.

        A broken one, or one whose name is taken, is skipped with a warning (a plugin never
        breaks seprank).
        """
        if self._loaded:
            return
        self._loaded = True
        for ep in _entry_points(self.group):
            try:
                obj = ep.load()
                name = getattr(obj, "name", None)
                if name in self._items:
                    warnings.warn(f"{self.what} entry point {ep.name!r} ({self.group}) "
                                  f"skipped: {self.what}={name!r} is registered already",
                                  stacklevel=3)
                else:
                    self.register(obj)
            except Exception as exc:  # a broken plugin must not break seprank: skipped
                warnings.warn(f"{self.what} entry point {ep.name!r} ({self.group}) skipped: "
                              f"{exc}", stacklevel=3)

    def reload_entry_points(self) -> None:
        """Forget that the entry points were loaded (the next use loads them again)."""
        self._loaded = self.group is None or not self.autoload


def _entry_points(group: str | None) -> list:
    return [] if group is None else list(metadata.entry_points(group=group))


def _short(obj: Any) -> str:
    return getattr(obj, "__name__", None) or type(obj).__name__


# ---------------------------------------------------------------- deprecations
@dataclass(frozen=True)
class Deprecation:
    """One old form seprank still reads (:func:`deprecated`).

    Parameters
    ----------
    what : str
        The old form, as the message names it (``".known_bound"``, ``"--format"``).
    since : str
        The version that deprecated it.
    instead : str
        What to do instead.
    """

    what: str
    since: str
    instead: str

    @property
    def name(self) -> str:
        """Its key in :data:`DEPRECATIONS` (``what``)."""
        return self.what

    def message(self, subject: str = "") -> str:
        """The one message of a deprecation.

        Parameters
        ----------
        subject : str, default ""
            Who uses the old form (a class name), written before ``what``.

        Returns
        -------
        str
            ``<subject><what> is deprecated: <instead> (since <since>)``.
        """
        return f"{subject}{self.what} is deprecated: {self.instead} (since {self.since})"

    def warn(self, subject: str = "", stacklevel: int = 2) -> None:
        """Emit the DeprecationWarning with :meth:`message`.

        Parameters
        ----------
        subject : str, default ""
            Who uses the old form (a class name).
        stacklevel : int, default 2
            As ``warnings.warn``'s, counted from the caller of :meth:`warn`.
        """
        warnings.warn(self.message(subject), DeprecationWarning, stacklevel=stacklevel + 1)


#: The live deprecations, by their ``what``.
DEPRECATIONS: Registry[Deprecation] = Registry("deprecation", Deprecation)


def old_names(module: str, names: dict):
    """A module's ``__getattr__`` for its deprecated names: ``names`` maps an old name to
    (the object it now is, its :class:`Deprecation`); reading one warns and returns it.

    Parameters
    ----------
    module : str
        The module's ``__name__`` (for the AttributeError of any other name).
    names : dict
        Old name -> (object, Deprecation).

    Returns
    -------
    callable
        The module-level ``__getattr__`` (PEP 562).
    """

    def __getattr__(name: str):
        if name in names:
            new, note = names[name]
            note.warn(stacklevel=2)
            return new
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__


def deprecated(what: str, *, since: str, instead: str) -> Deprecation:
    """Declare a deprecation once (listed in :data:`DEPRECATIONS`); warn with its ``warn``.

    Parameters
    ----------
    what : str
        The old form (``".known_bound"``: a message prefixes the user's class name).
    since : str
        The version that deprecated it.
    instead : str
        What to do instead.

    Returns
    -------
    Deprecation
        The registered deprecation.

    Examples
    --------
    >>> d = deprecated("old_name", since="0.2.0", instead="use new_name")
    >>> d.message()
    'old_name is deprecated: use new_name (since 0.2.0)'
    >>> _ = DEPRECATIONS.unregister("old_name")
    """
    return DEPRECATIONS.register(Deprecation(what, since, instead), replace=True)
