"""What a strategy records beside the rank: one typed :class:`Detail` per strategy, defined
in the strategy's own module (``GradedDetail`` in :mod:`seprank.engine.strategies.graded`,
...), carried by :attr:`seprank.engine.result.Measurement.detail`.

A detail says how it is written (:meth:`Detail.to_dict`, under its ``key`` in the
measurement's dict: JSON, the result store) and what ``seprank measure`` prints of it
(:meth:`Detail.lines`). Nothing outside its strategy reads its fields by the strategy's
name.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar


@dataclass(frozen=True)
class Detail:
    """A strategy's own record of one measurement (subclass it as a frozen dataclass).

    Attributes
    ----------
    key : str
        The key :meth:`to_dict`'s dict is written under in ``Measurement.to_dict``.
    after : str
        The measurement field that key follows in that dict (the order JSON keeps).
    null_when_absent : bool
        Write ``key: null`` in every measurement a detail of another class records (the
        keys of 0.2's format, kept: ``graded``, ``catalecticant``, ``expand``).
    shows_blocks : bool
        Whether the measurement's blocks are the strategy's blocks of one sum (its HTML
        table then lists their ranks).
    """

    key: ClassVar[str] = ""
    after: ClassVar[str] = "considered"
    null_when_absent: ClassVar[bool] = False
    shows_blocks: ClassVar[bool] = False

    def to_dict(self) -> dict:
        """The detail as a JSON-friendly dict (its fields, in their order).

        Returns
        -------
        dict
            Field name -> value (lists, not tuples).
        """
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}

    def lines(self, m: Any) -> list[str]:
        """What ``seprank measure`` prints of it, below the strategy (none by default).

        Parameters
        ----------
        m : Measurement
            The measurement it belongs to (its blocks).

        Returns
        -------
        list of str
            The lines, indented by two spaces.
        """
        return []


def _plain(v: Any) -> Any:
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


def detail_keys(detail: Detail | None) -> dict[str, list[tuple[str, dict | None]]]:
    """The keys a measurement's dict gets from its detail, by the field they follow:
    ``detail``'s own (its dict) and the kept 0.2 keys of the other built-in details (null).

    Parameters
    ----------
    detail : Detail or None
        The measurement's detail.

    Returns
    -------
    dict
        field -> [(key, dict or None), ...] in order.
    """
    out: dict[str, list] = {}
    seen = set()
    for cls in _subclasses(Detail):
        if cls.key and cls.null_when_absent and cls.key not in seen:
            seen.add(cls.key)
            own = detail is not None and detail.key == cls.key
            out.setdefault(cls.after, []).append((cls.key, detail.to_dict() if own else None))
    if detail is not None and detail.key and detail.key not in seen:
        out.setdefault(detail.after, []).append((detail.key, detail.to_dict()))
    return out


def _subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found.append(sub)
        found.extend(_subclasses(sub))
    return found
