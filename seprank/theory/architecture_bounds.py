"""The proved upper bound each architecture comes with, in one place: :func:`architecture_bound`.

It answers for every architecture, in this order:

- :class:`~seprank.nets.attention.LinearSelfAttention`: this package's theorems
  (:func:`seprank.theory.bounds.upper_bound`);
- :class:`~seprank.nets.embedded_attention.EmbeddedAttention`: the attention block bound
  at width min(d_x, r) (it rests on those theorems, so it lives here: nets/ never imports
  theory/);
- an architecture's own ``upper_bound(partition) -> (bound, source)`` (the protocol for
  users' classes: an int and a one-line statement of where it comes from; seprank has not
  proved it, so a rank meeting it is "exact, given the architecture's stated bound");
- an architecture's own ``known_bound(partition) -> dict`` (keys ``upper``, ``kind``,
  ``tag``, ``source``: the zoo's mps min-cut, convac channel bounds, gnn walk index).

``seprank.upper_bound``, ``seprank bounds`` and ``seprank certify`` all read it.
"""

from __future__ import annotations

import numbers

from seprank import labels
from seprank.errors import ConfigError
from seprank.nets.attention import LinearSelfAttention
from seprank.nets.embedded_attention import EmbeddedAttention
from seprank.nets.partitions import check_partition, default_partition
from seprank.theory.bounds import upper_bound

#: The ``kind`` of a bound given by an architecture's own ``upper_bound`` method.
OWN_KIND = "upper bound, the architecture's own upper_bound method"


def embedded_attention_bound(net: EmbeddedAttention, partition) -> dict:
    """Proved bound of an EmbeddedAttention network on a partition.

    It is the attention block bound at width min(d_x, r) (one head: it bounds every H),
    capped by the token grid's size ``V^min(|A|, |B|)`` [D].

    Parameters
    ----------
    net : EmbeddedAttention
        The network.
    partition : iterable of int
        The positions of side A.

    Returns
    -------
    dict
        ``upper``, ``kind``, ``tag`` (``"D"``) and ``source``.
    """
    k = min(len(set(partition)), net.seq_len - len(set(partition)))
    eff = min(net.width, net.embed_rank)
    ub = upper_bound(LinearSelfAttention(depth=net.depth, width=eff, heads=1,
                                         seq_len=net.seq_len), partition)["upper"]  # fmt: skip
    return {"upper": min(ub, net.vocab**k), "kind": "upper bound (every weight) [D]",
            "tag": "D", "source": f"attention block bound at width min(d_x, r) = {eff} "
            "(the embedding has rank r; structural lemma) and the token grid size "
            f"V^{k} [D]; saturation in d_x at r: Wies-Levine-Jannai-Shashua 2021 [M]"}  # fmt: skip


#: Tags of bounds recalled from the literature, not proved in seprank: a rank meeting one
#: is "exact, given the recalled bound", never "exact, proved".
RECALLED_TAGS = frozenset(t for t, s in labels.TAG_STATUS.items() if s == labels.RECALLED)


def exact_label(given: bool, source, tag) -> str:
    """Return the status label of a certified rank that meets its upper bound.

    Parameters
    ----------
    given : bool
        Whether the bound was stated by the user (``certify(..., upper=U)``).
    source : str or None
        Where the bound comes from (quoted in the label).
    tag : str or None
        The bound's tag (:data:`seprank.labels.TAG_STATUS`): ``P`` proved in proofs/,
        ``M``/``V``/``V2`` recalled, ``D``/``user`` stated by the architecture.

    Returns
    -------
    str
        ``"exact, proved"`` only for a bound with a proof in proofs/; otherwise
        ``"exact, given the stated bound (SOURCE)"``, ``"exact, given the recalled
        literature bound (SOURCE)"`` or ``"exact, given the architecture's stated bound
        (SOURCE)"`` (:func:`seprank.labels.exact_label`).
    """
    return labels.exact_label(labels.USER if given else labels.bound_status(tag), source)


def has_architecture_bound(net) -> bool:
    """Whether :func:`architecture_bound` can answer for ``net`` (before any partition).

    Parameters
    ----------
    net : object
        The network.

    Returns
    -------
    bool
        True for LinearSelfAttention, EmbeddedAttention (unless a subclass replaces its
        ``apply`` or ``init``), and a class with an ``upper_bound`` method or an unmodified
        ``known_bound`` method.
    """
    return (type(net) is LinearSelfAttention or callable(getattr(net, "upper_bound", None))
            or isinstance(net, EmbeddedAttention) and _same_function(net, EmbeddedAttention)
            or callable(getattr(net, "known_bound", None))
            and _same_function(net, _owner(type(net), "known_bound")))  # fmt: skip


def _own(net, A) -> dict:
    got = net.upper_bound(A)
    name = type(net).__name__
    if not (isinstance(got, tuple) and len(got) == 2):
        raise ConfigError(f"{name}.upper_bound returned {got!r}; expected (bound, source)")
    bound, source = got
    if isinstance(bound, bool) or not isinstance(bound, numbers.Integral) or bound < 0:
        raise ConfigError(f"{name}.upper_bound: bound={bound!r} must be a non-negative int")
    if not isinstance(source, str) or not source.strip():
        raise ConfigError(f"{name}.upper_bound: source={source!r} must say where it is proved")
    return {"upper": int(bound), "kind": OWN_KIND, "tag": "user", "source": source.strip()}


def architecture_bound(net, partition=None) -> dict | None:
    """The architecture's own proved bound for a partition, or None when seprank knows none.

    Parameters
    ----------
    net : object
        The network (an architecture instance).
    partition : iterable of int, optional
        The positions of side A (default: the first ``seq_len // 2``).

    Returns
    -------
    dict or None
        At least ``upper`` (an int, or None when too large to write or not known), ``kind``
        and ``source``; None when seprank knows no bound for ``net``.

    Raises
    ------
    ConfigError
        If the partition is invalid, or the class's own ``upper_bound`` returns something
        other than ``(bound, source)`` with a non-negative int and a non-empty source.
    """
    A, _ = check_partition(default_partition(net.seq_len) if partition is None else partition,
                           net.seq_len)  # fmt: skip
    if type(net) is LinearSelfAttention:
        ub = upper_bound(net, A)
        return dict(ub, kind="proved upper bound (every weight)", tag="P", source=ub["why"])
    if isinstance(net, EmbeddedAttention) and _same_function(net, EmbeddedAttention):
        return embedded_attention_bound(net, A)
    if callable(getattr(net, "upper_bound", None)):
        return _own(net, A)
    own = getattr(net, "known_bound", None)
    if not callable(own) or not _same_function(net, _owner(type(net), "known_bound")):
        return None
    return own(A)


def _owner(cls, attr: str):
    """The class in ``cls``'s MRO that defines ``attr``."""
    return next((c for c in cls.__mro__ if attr in vars(c)), None)


def _same_function(net, cls) -> bool:
    """Whether ``net`` computes what ``cls`` does: a subclass that replaces ``apply`` or
    ``init`` does not inherit ``cls``'s bound (it bounds another function)."""
    return all(_owner(type(net), a) is _owner(cls, a) for a in ("apply", "init"))


def proved_upper_bound(net, partition=None) -> dict:
    """The architecture's proved upper bound (``seprank.upper_bound``).

    :func:`architecture_bound`, but refusing a network without one.

    Parameters
    ----------
    net : object
        The network (an architecture instance).
    partition : iterable of int, optional
        The positions of side A (default: the first ``seq_len // 2``).

    Returns
    -------
    dict
        As :func:`architecture_bound`: ``upper``, ``kind``, ``source`` (and ``log10_upper``,
        ``why`` ... for LinearSelfAttention).

    Raises
    ------
    ConfigError
        If seprank knows no bound for ``net`` (nor its log10), or the partition is invalid.

    Examples
    --------
    >>> import seprank
    >>> net = seprank.LinearSelfAttention(depth=1, width=3, heads=1, seq_len=4)
    >>> seprank.upper_bound(net)["upper"]
    4
    """
    out = architecture_bound(net, partition)
    if out is None or out.get("upper") is None and out.get("log10_upper") is None:
        raise ConfigError(f"net={type(net).__name__}: no proved upper bound in seprank (give "
                          "the class an upper_bound(partition) -> (bound, source) method, or "
                          "certify(..., upper=U, upper_source=...))")  # fmt: skip
    return out


#: The names of 0.2.0's first layout, kept: they now answer for every architecture.
known_bound = architecture_bound
has_known_bound = has_architecture_bound
