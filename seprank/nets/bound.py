"""One bound protocol: an upper bound on a separation rank, and where it comes from.

Every upper bound seprank knows is a :class:`Bound` ``(value, source, status)``:

- ``proved``: a proof in proofs/ (the paper's theorems, owned by :mod:`seprank.theory`);
- ``recalled``: read or recalled from the literature, not proved here;
- ``architecture``: given by the architecture's code (derived in its module docstring, or
  its own ``upper_bound`` method);
- ``user``: given by the user (``certify(..., upper=U)``).

The statuses and the words a rank meeting one earns are :mod:`seprank.labels`'. An
architecture declares its own bound through one capability, ``upper_bound(partition) ->
Bound | None`` (the zoo's); one that is the paper's network declares instead which theorem
of :mod:`seprank.theory` covers it: ``bound_theorem = "linear_attention"`` in the class's
own body (:func:`theorem_of`; a subclass computes another function unless it says so
itself, so the declaration is not inherited). The older ``upper_bound(partition) ->
(bound, source)`` of users' classes still works (:func:`from_pair`, deprecated).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

from seprank import labels
from seprank.errors import ConfigError
from seprank.registry import deprecated

#: The ``kind`` of a bound given by an architecture's own ``(bound, source)`` method.
OWN_KIND = "upper bound, the architecture's own upper_bound method"

#: The theorem of :mod:`seprank.theory` that covers the paper's network (``bound_theorem``).
LINEAR_ATTENTION = "linear_attention"

#: The bound of the embedded network, resting on those theorems (``bound_theorem``).
EMBEDDED_ATTENTION = "embedded_attention"

#: The dict that ``seprank.upper_bound`` returned before it returned a :class:`Bound`: its
#: keys still read on a Bound (``b["upper"]``, ``b.get("source")``), with a warning.
MAPPING_VIEW = deprecated("Bound[key] (a bound read as the dict seprank.upper_bound returned)",
                          since="0.2.0", instead="read its fields: .value, .source, .status, "
                          ".kind, .tag, .fact(name); .as_dict() for the dict")


@dataclass(frozen=True)
class Bound:
    """An upper bound on the separation rank for one partition, with its source and status.

    Parameters
    ----------
    value : int or None
        The bound, a non-negative int; None when it is not known for this partition, or
        too large to write (``source`` says which; ``facts`` may hold a lower bound or
        its log10).
    source : str
        Where it comes from, one line (quoted in the labels).
    status : str
        ``"proved"``, ``"recalled"``, ``"architecture"`` or ``"user"``
        (:data:`seprank.labels.BOUND_STATUSES`).
    kind : str, default ""
        What kind of bound it is, as ``seprank bounds`` prints it.
    tag : str or None, default None
        Its source tag (:data:`seprank.labels.TAG_STATUS`), which must give ``status``.
    facts : tuple of (str, object), default ()
        Further facts printed beside it (``lower``, ``walk_index``, ``equality``...).

    Raises
    ------
    ConfigError
        In one line naming the field, for a bound that is not one of the above.

    Examples
    --------
    >>> Bound(4, "Theorem 1", "proved").as_dict()
    {'upper': 4, 'kind': '', 'tag': None, 'source': 'Theorem 1'}

    For old callers a Bound also reads as the dict ``seprank.upper_bound`` returned
    (``b["upper"]``, ``b.get("source")``, ``dict(b)``: the keys of :meth:`as_dict` and
    ``status``), with a DeprecationWarning.
    """

    value: int | None
    source: str
    status: str
    kind: str = ""
    tag: str | None = None
    facts: tuple = ()

    def __post_init__(self):
        v = self.value
        if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Integral)
                              or v < 0):
            raise ConfigError(f"Bound value={v!r} must be a non-negative int (None: not known)")
        if not isinstance(self.source, str) or not self.source.strip():
            raise ConfigError(f"Bound source={self.source!r} must say where it comes from")
        if self.status not in labels.BOUND_STATUSES:
            raise ConfigError(f"Bound status={self.status!r} must be one of "
                              f"{', '.join(labels.BOUND_STATUSES)}")
        if self.tag is not None and labels.TAG_STATUS.get(self.tag) != self.status:
            raise ConfigError(f"Bound tag={self.tag!r} does not give status={self.status!r}")
        if not isinstance(self.kind, str):
            raise ConfigError(f"Bound kind={self.kind!r} must be a str")
        facts = tuple(dict(self.facts).items())
        if any(not isinstance(k, str) or k in _KEYS for k, _ in facts):
            raise ConfigError(f"Bound facts={self.facts!r} must be named by other strs than "
                              f"{', '.join(_KEYS)}")
        object.__setattr__(self, "value", None if v is None else int(v))
        object.__setattr__(self, "source", self.source.strip())
        object.__setattr__(self, "facts", facts)

    def fact(self, name: str, default=None):
        """Return one of :attr:`facts` by name (``default`` when absent).

        Parameters
        ----------
        name : str
            The fact's name.
        default : object, optional
            Returned when the bound has no such fact.

        Returns
        -------
        object
            Its value.
        """
        return dict(self.facts).get(name, default)

    def as_dict(self) -> dict:
        """Return the bound as the dict ``seprank bounds --json`` and certificates print.

        Returns
        -------
        dict
            ``upper``, ``kind``, ``tag``, ``source``, then the facts.
        """
        return {"upper": self.value, "kind": self.kind, "tag": self.tag,
                "source": self.source, **dict(self.facts)}

    # the mapping view of old callers (deprecated: MAPPING_VIEW)
    def _view(self) -> dict:
        MAPPING_VIEW.warn(stacklevel=3)
        return {**self.as_dict(), "status": self.status}

    def __getitem__(self, key: str):
        """``b[key]``: the old dict's value (deprecated; read the fields)."""
        return self._view()[key]

    def get(self, key: str, default=None):
        """``b.get(key)``: the old dict's value (deprecated; read the fields)."""
        return self._view().get(key, default)

    def keys(self):
        """The old dict's keys (deprecated; read the fields)."""
        return self._view().keys()

    def __contains__(self, key) -> bool:
        """``key in b``: whether the old dict had it (deprecated; read the fields)."""
        return key in self._view()


#: The keys :meth:`Bound.as_dict` writes itself (no fact may take one).
_KEYS = ("upper", "kind", "tag", "source")


def tagged(value, source: str, tag: str, kind: str = "", **facts) -> Bound:
    """Return a bound whose status is its tag's (:func:`seprank.labels.bound_status`).

    Parameters
    ----------
    value : int or None
        The bound (None: not known for this partition).
    source : str
        Where it comes from.
    tag : str
        ``P``, ``M``, ``V``, ``V2``, ``D`` or ``user`` (:data:`seprank.labels.TAG_STATUS`).
    kind : str, default ""
        What kind of bound it is.
    **facts
        Further facts (:attr:`Bound.facts`).

    Returns
    -------
    Bound
        The bound.

    Examples
    --------
    >>> tagged(8, "min-cut [D]", "D").status
    'architecture'
    """
    if tag not in labels.TAG_STATUS:
        raise ConfigError(f"tag={tag!r} must be one of {', '.join(labels.TAG_STATUS)}")
    return Bound(value, source, labels.bound_status(tag), kind, tag, tuple(facts.items()))


def derived(value, source: str) -> Bound:
    """Return a bound derived in an architecture's module docstring [D] (the mixers').

    Parameters
    ----------
    value : int or None
        The bound; None: none known for this depth and partition.
    source : str
        The derivation, one line.

    Returns
    -------
    Bound
        Status ``architecture``, kind ``upper bound (every weight) [D]`` (``none known``
        without a value).
    """
    if value is None:
        return tagged(None, "no bound for this depth and partition known to seprank", "D",
                      "none known")
    return tagged(value, source, "D", "upper bound (every weight) [D]")


def from_pair(got, name: str) -> Bound:
    """Return the bound of a user's ``upper_bound(partition) -> (bound, source)`` (deprecated).

    Parameters
    ----------
    got : object
        What the method returned.
    name : str
        The class's name, for the messages.

    Returns
    -------
    Bound
        Status ``architecture`` (the class's word, not a proof), tag ``user``.

    Raises
    ------
    ConfigError
        Unless ``got`` is ``(bound, source)`` with a non-negative int and a non-empty str.
    """
    if not (isinstance(got, tuple) and len(got) == 2):
        raise ConfigError(f"{name}.upper_bound returned {got!r}; expected (bound, source) "
                          "or a seprank.nets.bound.Bound")
    bound, source = got
    if isinstance(bound, bool) or not isinstance(bound, numbers.Integral) or bound < 0:
        raise ConfigError(f"{name}.upper_bound: bound={bound!r} must be a non-negative int")
    if not isinstance(source, str) or not source.strip():
        raise ConfigError(f"{name}.upper_bound: source={source!r} must say where it is proved")
    return tagged(int(bound), source, "user", OWN_KIND)


def from_dict(d: dict) -> Bound:
    """Return the bound of the zoo's 0.2 ``{"upper", "kind", "tag", "source", ...}`` form.

    Parameters
    ----------
    d : dict
        ``upper``, ``kind``, ``tag``, ``source`` and any further facts.

    Returns
    -------
    Bound
        Its status is its tag's (an unknown tag: the architecture's word).
    """
    rest = {k: v for k, v in d.items() if k not in _KEYS}
    tag = d.get("tag")
    return Bound(d.get("upper"), d.get("source") or "stated by the architecture",
                 labels.bound_status(tag), d.get("kind") or "",
                 tag if tag in labels.TAG_STATUS else None, tuple(rest.items()))


def theorem_of(net) -> str | None:
    """Return the theorem of :mod:`seprank.theory` that ``net``'s class declares, if any.

    The declaration is the class attribute ``bound_theorem`` in the class's own body: it
    is not inherited (a subclass, such as the softmax network, computes another function
    unless it declares the theorem itself).

    Parameters
    ----------
    net : object
        The network, or its class.

    Returns
    -------
    str or None
        E.g. :data:`LINEAR_ATTENTION`; None without a declaration.

    Examples
    --------
    >>> from seprank.nets import LinearSelfAttention, SoftmaxSelfAttention
    >>> theorem_of(LinearSelfAttention(1, 2)), theorem_of(SoftmaxSelfAttention(1, 2))
    ('linear_attention', None)
    """
    return vars(net if isinstance(net, type) else type(net)).get("bound_theorem")
