"""What a certificate kind is: the strategies whose measurements it certifies, the fields it
writes, its schema and its checker (:class:`CertificateKind`), and what the common check
hands the checker (:class:`CheckContext`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from seprank.registry import deprecated


def _nothing(plan) -> None:
    """The default ``prepare``: nothing (the planner's ``purpose="certify"`` asks the run to
    record what a certificate needs)."""


#: A kind's own ``prepare`` (writing into the plan) is read still, with a warning.
PREPARE = deprecated("CertificateKind(prepare=...)", since="0.2.0",
                     instead="certify plans with purpose='certify', and the run records "
                     "what the certificate needs (RunInputs.minors)")


def _always(m) -> bool:
    """The default ``certifies``: every modular measurement with minors."""
    return True


@dataclass(frozen=True)
class CertificateKind:
    """A kind of certificate, registered by name (:func:`seprank.verdicts.kinds.register`).

    A certificate names its kind by its ``strategy`` field: the kind whose ``strategies``
    hold it writes, validates and checks it. The fields every kind shares (the network,
    the seed, the prime, the rank, the bound and the claim) are written and checked by
    :mod:`seprank.verdicts.certificates` and :mod:`seprank.verdicts.certificate_check`.

    Parameters
    ----------
    name : str
        The kind's name (``"grid minors"``).
    strategies : tuple of str
        The values of a certificate's ``strategy`` field that are this kind.
    schema : callable
        ``schema(cert)``: raises CertificateSchemaError naming the first of the kind's
        fields that breaks its schema (its ``blocks``, each a dict with ``rank``, ``rows``
        and ``cols`` at least, and its own fields); run after the common fields are valid.
    check : callable
        ``check(cert, ctx)`` re-derives the kind's claims from the seed (``ctx``: a
        :class:`CheckContext`): a failed CheckResult, or None when they hold (the bound is
        checked next, by the common code).
    write : callable, optional
        ``write(net, m)``: the kind's fields of a certificate of Measurement ``m``: its
        ``points``, ``draws``, ``total_degree`` and ``blocks``, and the kind's own fields
        (``fields``) in the order written.
    fields : tuple of str, default ()
        The top-level fields only this kind writes (refused in a certificate of another).
    prepare : callable, optional
        Deprecated: ``prepare(plan)`` wrote into the planned measurement; the planner's
        ``purpose="certify"`` now asks the run to record what a certificate needs.
    certifies : callable, optional
        ``certifies(m)``: whether this modular Measurement with minors can be certified.
    grid : bool, default False
        Whether its minors are of sampled grid matrices.

    Notes
    -----
    Which strategy ``certify`` measures with is the planner's choice
    (:func:`seprank.engine.planner.plan` with ``purpose="certify"``: the strategies that
    declare they can be certified, in the registry's order), not the kinds'.
    """

    name: str
    strategies: tuple
    schema: Callable
    check: Callable
    write: Callable | None = None
    fields: tuple = ()
    prepare: Callable = _nothing
    certifies: Callable = _always
    grid: bool = False

    def __post_init__(self) -> None:
        if self.prepare is not _nothing:
            PREPARE.warn(stacklevel=3)


@dataclass
class CheckContext:
    """What the common check rebuilt from a certificate and found, for a kind's checker.

    Parameters
    ----------
    net : Architecture
        The network the certificate names.
    params : object
        Its weights, regenerated from the seed over GF(prime).
    dom : ModP
        The field GF(prime).
    A, B : tuple of int
        The partition's two sides.
    total : int
        The sum of the block ranks.
    kernel : bool, default False
        Evaluate the network with the compiled kernel instead of its reference code.
    bad : list of str, default []
        The reasons found so far (the weights' digest, the total).
    """

    net: object
    params: object
    dom: object
    A: tuple
    B: tuple
    total: int
    kernel: bool = False
    bad: list = field(default_factory=list)
