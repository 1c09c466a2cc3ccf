"""The certificate kinds, registered by name: one module per kind, each a
:class:`~seprank.verdicts.kinds.base.CertificateKind` (its strategies, the fields it writes,
its schema and its checker).

A certificate names its kind by its ``strategy`` field; :func:`kind_of` finds the kind,
and ``certify``, the schema and ``check_certificate`` call it, never a branch on the name.
A new kind is one module here (a ``KIND``) and its line in ``BUILTIN``, or, from outside
seprank, one :func:`register` call.
"""

from __future__ import annotations

from seprank.errors import ConfigError
from seprank.registry import Registry
from seprank.verdicts.certificate_fields import UnknownKindError
from seprank.verdicts.kinds import catalecticant_minors, grid_minors
from seprank.verdicts.kinds.base import CertificateKind, CheckContext

__all__ = ["BUILTIN", "KINDS", "CertificateKind", "CheckContext", "for_strategy", "kind_of",
           "kinds", "register", "unregister"]

#: The kinds seprank ships, in registration order.
BUILTIN = (grid_minors.KIND, catalecticant_minors.KIND)

#: The registered kinds by name (:class:`seprank.registry.Registry`).
KINDS: Registry[CertificateKind] = Registry("kind", CertificateKind)


def register(kind: CertificateKind) -> CertificateKind:
    """Register a certificate kind (refused if its name or a strategy is taken).

    Parameters
    ----------
    kind : CertificateKind
        The kind.

    Returns
    -------
    CertificateKind
        ``kind``.

    Raises
    ------
    ConfigError
        If a registered kind has its name, or certifies one of its strategies.
    """
    for s in getattr(kind, "strategies", ()):
        other = for_strategy(s)
        if other is not None and other is not kind:
            raise ConfigError(f"kind={kind.name!r}: strategy {s!r} is certified by the kind "
                              f"{other.name!r} already")
    return KINDS.register(kind)


def unregister(name: str) -> CertificateKind | None:
    """Remove the kind registered as ``name``; return it.

    Parameters
    ----------
    name : str
        The kind's name.

    Returns
    -------
    CertificateKind or None
        The kind removed (None: no kind had that name).
    """
    return KINDS.unregister(name)


def kinds() -> tuple:
    """The registered kinds, in registration order.

    Returns
    -------
    tuple of CertificateKind
        Every registered kind.
    """
    return tuple(KINDS.values())


def for_strategy(strategy) -> CertificateKind | None:
    """The kind that certifies ``strategy``'s measurements (None: no kind does).

    Parameters
    ----------
    strategy : object
        A strategy's name (a certificate's ``strategy`` field).

    Returns
    -------
    CertificateKind or None
        The kind, or None.
    """
    return next((k for k in KINDS.values() if isinstance(strategy, str)
                 and strategy in k.strategies), None)


def kind_of(cert: dict) -> CertificateKind:
    """The kind of a certificate, by its ``strategy`` field.

    Parameters
    ----------
    cert : dict
        The certificate (a ``strategy`` field at least).

    Returns
    -------
    CertificateKind
        Its kind.

    Raises
    ------
    UnknownKindError
        One line naming the certificate's kind and the known ones, if no kind is
        registered for it (a CertificateSchemaError, a ConfigError).
    """
    s = cert["strategy"]
    kind = for_strategy(s)
    if kind is None:
        known = "; ".join(f"{', '.join(k.strategies)}: {k.name}" for k in KINDS.values())
        raise UnknownKindError(f"certificate: strategy {s!r:.60} is not a known certificate "
                               f"kind (strategy must be one of {known})")
    return kind


for _kind in BUILTIN:
    register(_kind)
