"""The upper bound each architecture comes with, in one place: :func:`bound_of`.

Every bound is a :class:`seprank.nets.bound.Bound` (value, source, status). It answers
for every architecture, in this order:

- a class that declares a theorem of theory/ (``bound_theorem``, read by
  :func:`seprank.nets.bound.theorem_of`: in the class's own body, never inherited), from
  :data:`THEOREMS`: ``"linear_attention"`` (:class:`~seprank.nets.attention.LinearSelfAttention`:
  this package's theorems, :func:`seprank.theory.bounds.theorem_bound`, status proved) and
  ``"embedded_attention"`` (:class:`~seprank.nets.embedded_attention.EmbeddedAttention`:
  the attention block bound at width min(d_x, r); it rests on those theorems, so it lives
  here: nets/ never imports theory/);
- an architecture's own capability ``upper_bound(partition) -> Bound | None`` (the zoo's
  mps min-cut, convac channel bounds, gnn walk index..., and users' classes), for the
  class that defines it and its subclasses that keep its ``apply`` and ``init``; the
  older ``upper_bound(partition) -> (bound, source)`` of users' classes still works
  (deprecated: :func:`seprank.nets.bound.from_pair`, status architecture).

:func:`bound_of` is read by ``seprank.upper_bound`` (:func:`proved_upper_bound`, the same
Bound), the measurement's label, ``seprank certify``, ``seprank verify --arch`` and the
studies; :func:`architecture_bound`, the same bound as a dict, is deprecated.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field, replace

from seprank import labels
from seprank.errors import ConfigError, SeprankError
from seprank.nets.attention import LinearSelfAttention
from seprank.nets.bound import (
    EMBEDDED_ATTENTION,
    LINEAR_ATTENTION,
    Bound,
    from_dict,
    from_pair,
    tagged,
    theorem_of,
)
from seprank.nets.capabilities import inherited_past
from seprank.nets.partitions import check_partition, default_partition
from seprank.nets.registry import shipped_function
from seprank.registry import deprecated, old_names
from seprank.theory import sequences as _seq
from seprank.theory.bounds import (
    block_bound,
    block_bound_log10,
    block_terms,
    monomial_bound_log10,
    sides,
    theorem_bound,
)

#: The older protocols of a user's class, still read (with a DeprecationWarning).
KNOWN_BOUND_METHOD = deprecated(".known_bound", since="0.2.0",
                                instead="define upper_bound(partition) -> seprank.nets.bound.Bound")
PAIR_RETURNED = deprecated(".upper_bound returning (bound, source)", since="0.2.0",
                           instead="return a seprank.nets.bound.Bound")
#: The dict form of the architecture's bound (:func:`architecture_bound`).
AS_DICT = deprecated("seprank.theory.architecture_bounds.architecture_bound", since="0.2.0",
                     instead="use bound_of, a seprank.nets.bound.Bound (.as_dict() for the "
                     "dict)")


def attention_bound(net, partition) -> Bound:
    """The paper's network: this package's theorems (:func:`seprank.theory.bounds.theorem_bound`).

    Parameters
    ----------
    net : LinearSelfAttention
        The network.
    partition : iterable of int
        The positions of side A.

    Returns
    -------
    Bound
        Status proved (tag ``P``), ``source`` the theorem's ``why``; the facts are the rest
        of :func:`~seprank.theory.bounds.theorem_bound`'s answer (``log10_upper``, ``which``...).
    """
    ub = theorem_bound(net, partition)
    facts = {k: v for k, v in ub.items() if k not in ("upper", "kind")}
    return tagged(ub["upper"], ub["why"], "P", "proved upper bound (every weight)", **facts)


def _embedded(net, partition) -> Bound:
    k = min(len(set(partition)), net.seq_len - len(set(partition)))
    eff = min(net.width, net.embed_rank)
    ub = theorem_bound(LinearSelfAttention(depth=net.depth, width=eff, heads=1,
                                         seq_len=net.seq_len), partition)["upper"]
    return tagged(min(ub, net.vocab**k), f"attention block bound at width min(d_x, r) = "
                  f"{eff} (the embedding has rank r; structural lemma) and the token grid "
                  f"size V^{k} [D]; saturation in d_x at r: Wies-Levine-Jannai-Shashua "
                  "2021 [M]", "D", "upper bound (every weight) [D]")


def embedded_attention_bound(net, partition) -> dict:
    r"""Proved bound of an EmbeddedAttention network on a partition.

    It is the attention block bound at width :math:`\min(d_x, r)` (one head: it bounds
    every :math:`H`), capped by the token grid's size :math:`V^{\min(|A|, |B|)}` [D].

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
    return _embedded(net, partition).as_dict()


#: The theorems of theory/ a class can declare (``bound_theorem``) -> its bound.
THEOREMS = {LINEAR_ATTENTION: attention_bound, EMBEDDED_ATTENTION: _embedded}


def block_bounds(net, partition) -> dict:
    r"""The proved bound of each block of the paper's network's structural polynomial.

    The blocks are those the catalecticant strategy ranks (:math:`F = e_c^\top P_L(S)`): the
    block of :math:`S`-degree :math:`k` on the side without the query,
    :math:`k = 0, \dots, D`, or the residual network's one matrix (key None).

    Parameters
    ----------
    net : object
        The network.
    partition : iterable of int
        The positions of side A.

    Returns
    -------
    dict
        :math:`k` -> its proved bound :math:`\min(b_k, a_{D-k})` (``block_terms``), or
        None -> the residual bound; empty for a network the theorems do not cover (or too
        many blocks to list).
    """
    if theorem_of(net) != LINEAR_ATTENTION:
        return {}
    nq, no = sides(net.seq_len, partition, net.query_position)
    if net.residual:
        return {None: int(block_bound(net.depth, net.width, nq, no, residual=True))}
    terms = block_terms(net.depth, net.width, nq, no)
    return {} if terms is None else {k: int(t) for k, t in enumerate(terms)}


#: The most Schur-sum terms a side with fewer positions than the width may take for the
#: block bound to be computed for an estimate (:func:`form_bounds`).
CHEAP_TERMS = 20_000


@dataclass(frozen=True)
class FormBounds:
    r"""The proved bounds of a structural form on one partition, as a cost model reads them.

    Parameters
    ----------
    log10_upper : float
        log10 of the best proved bound cheap to compute (the monomial bound, and the block
        bound where its sides are cheap).
    terms : tuple of int or None
        The blocks' proved bounds :math:`\min(b_k, a_{D-k})`, :math:`k = 0, \dots, D`
        (None: the residual form, or too costly to list).
    blocks : dict
        The same by block key (the residual form's one matrix: key None); empty where
        not computed.
    """

    log10_upper: float
    terms: tuple | None = None
    blocks: dict = field(default_factory=dict)


def form_bounds(form, partition) -> FormBounds:
    r"""Every proved bound a cost model reads for a structural form, computed at once.

    The estimates' one question to theory/ (:class:`seprank.engine.estimate.TheoryFacts`):
    the bounds are the theorems' on the form's polynomial (proofs/structural_lemma.md),
    whatever class declares it; never used to measure.

    Parameters
    ----------
    form : seprank.nets.capabilities.StructuralForm
        The form a network declares.
    partition : iterable of int
        The positions of side A.

    Returns
    -------
    FormBounds
        The log10 of the bound, and the blocks' bounds where they are cheap to compute.
    """
    nq, no = form.sides(partition)
    args = (form.depth, form.width, nq, no, form.residual)
    lg = monomial_bound_log10(*args)
    cheap = all(n >= form.width or _seq.bounded_rank_terms(form.width, n, CHEAP_TERMS)
                <= CHEAP_TERMS for n in (nq, no))
    if not cheap:
        return FormBounds(lg)
    lg = min(lg, block_bound_log10(*args))
    try:
        if form.residual:
            return FormBounds(lg, None, {None: int(block_bound(*args[:4], residual=True))})
        terms = block_terms(*args[:4])
    except SeprankError:  # too costly to compute: the estimate has the log10 only
        return FormBounds(lg)
    if terms is None:
        return FormBounds(lg)
    terms = tuple(int(t) for t in terms)
    return FormBounds(lg, terms, dict(enumerate(terms)))


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
    """Whether :func:`bound_of` can answer for ``net`` (before any partition).

    Parameters
    ----------
    net : object
        The network.

    Returns
    -------
    bool
        True for a class declaring a theorem of :data:`THEOREMS`, and for one with its own
        ``upper_bound`` method (unless a subclass replaces its ``apply`` or ``init``).
    """
    return theorem_of(net) in THEOREMS or _method(net)[1] is not None


def _method(net) -> tuple:
    """(name, method): the class's own bound method, ``upper_bound`` (or the 0.2
    ``known_bound`` dict method of a class outside seprank, deprecated), for the class
    that defines it and its subclasses that compute the same function; (None, None)
    without one."""
    for attr in ("upper_bound", "known_bound"):
        own = getattr(net, attr, None)
        if callable(own):
            honoured = inherited_past(type(net), attr) is None  # not past a subclass's methods
            return (attr, own) if honoured else (None, None)
    return None, None


def bound_of(net, partition=None) -> Bound | None:
    """The architecture's own upper bound for a partition, or None when seprank knows none.

    Parameters
    ----------
    net : object
        The network (an architecture instance).
    partition : iterable of int, optional
        The positions of side A (default: the first ``seq_len // 2``).

    Returns
    -------
    Bound or None
        Its value may be None (not known for this partition, or too large to write: the
        source and facts say which).

    Raises
    ------
    ConfigError
        If the partition is invalid, or the class's own ``upper_bound`` returns something
        other than a Bound, None or ``(bound, source)`` with a non-negative int and a
        non-empty source, or a Bound of status proved (only a theorem of :data:`THEOREMS`
        is proved).
    """
    seq_len = getattr(net, "seq_len", None)
    if isinstance(net, (str, type)) or not isinstance(seq_len, numbers.Integral) or \
            isinstance(seq_len, bool):
        raise ConfigError(f"net={net!r:.60} is not an architecture instance (an object with "
                          "an integer seq_len, e.g. seprank.LinearSelfAttention(depth=2, "
                          "width=3, seq_len=6))")
    A, _ = check_partition(default_partition(net.seq_len) if partition is None else partition,
                           net.seq_len)
    theorem = THEOREMS.get(theorem_of(net))
    if theorem is not None:
        proved = theorem(net, A)
        if proved is None or shipped_function(type(net)):
            return proved
        # a class with methods of its own claims the theorem: its function may not be the
        # one the proof is about, so the bound is its own statement
        return replace(proved, status=labels.ARCHITECTURE, tag="user",
                       source=f"{proved.source}; claimed by {type(net).__name__} "
                              f"(bound_theorem={theorem_of(net)!r}), a class seprank does "
                              "not ship, with methods of its own: not proved for its "
                              "function")
    attr, own = _method(net)
    if own is None:
        return None
    got, name = own(A), type(net).__name__
    if isinstance(got, Bound) and got.status == labels.PROVED:
        raise ConfigError(f"{name}.{attr}: status='proved' is for the theorems of theory/ "
                          "(a proof in proofs/): declare bound_theorem, or state it as "
                          "'architecture' or 'recalled'")
    if got is None or isinstance(got, Bound):
        return got
    if isinstance(got, dict) and attr == "known_bound":
        KNOWN_BOUND_METHOD.warn(name, stacklevel=3)
        return from_dict(got)
    if isinstance(got, tuple):
        PAIR_RETURNED.warn(name, stacklevel=3)
    return from_pair(got, name)


def architecture_bound(net, partition=None) -> dict | None:
    """The architecture's own upper bound for a partition, as a dict (deprecated).

    :func:`bound_of`'s Bound as :meth:`seprank.nets.bound.Bound.as_dict` writes it; read
    the Bound instead (``bound_of(net, partition).value``).

    Parameters
    ----------
    net : object
        The network (an architecture instance).
    partition : iterable of int, optional
        The positions of side A (default: the first ``seq_len // 2``).

    Returns
    -------
    dict or None
        ``upper`` (an int, or None when too large to write or not known), ``kind``,
        ``tag``, ``source`` and the bound's facts; None when seprank knows no bound for
        ``net``.

    Raises
    ------
    ConfigError
        As :func:`bound_of`.
    """
    AS_DICT.warn(stacklevel=2)
    b = bound_of(net, partition)
    return None if b is None else b.as_dict()


def proved_upper_bound(net, partition=None) -> Bound:
    """The architecture's upper bound for a partition (``seprank.upper_bound``).

    :func:`bound_of`, but refusing a network without one. The Bound still reads as the
    dict this function returned before 0.2.0's Bound (``b["upper"]``: deprecated,
    :data:`seprank.nets.bound.MAPPING_VIEW`).

    Parameters
    ----------
    net : object
        The network (an architecture instance).
    partition : iterable of int, optional
        The positions of side A (default: the first ``seq_len // 2``).

    Returns
    -------
    Bound
        Its ``value`` (None when too large to write: then its fact ``log10_upper``),
        ``source``, ``status`` (proved only for a theorem of theory/), ``kind`` and facts
        (``log10_upper``, ``which`` ... for LinearSelfAttention).

    Raises
    ------
    ConfigError
        If seprank knows no bound for ``net`` (nor its log10), or the partition is invalid.

    Examples
    --------
    >>> import seprank
    >>> net = seprank.LinearSelfAttention(depth=1, width=3, heads=1, seq_len=4)
    >>> b = seprank.upper_bound(net)
    >>> b.value, b.status
    (4, 'proved')
    """
    b = bound_of(net, partition)
    if b is None or b.value is None and b.fact("log10_upper") is None:
        raise ConfigError(f"net={type(net).__name__}: no proved upper bound in seprank (give "
                          "the class an upper_bound(partition) -> Bound method, or "
                          "certify(..., upper=U, upper_source=...))")
    return b


#: The names of 0.2.0's first layout, kept (deprecated): they answer for every architecture.
_OLD_NAMES = {"known_bound": (architecture_bound, deprecated(
                  "seprank.theory.architecture_bounds.known_bound", since="0.2.0",
                  instead="use bound_of")),
              "has_known_bound": (has_architecture_bound, deprecated(
                  "seprank.theory.architecture_bounds.has_known_bound", since="0.2.0",
                  instead="use has_architecture_bound"))}


#: The deprecated names of 0.2.0's first layout, with a DeprecationWarning.
__getattr__ = old_names(__name__, _OLD_NAMES)
