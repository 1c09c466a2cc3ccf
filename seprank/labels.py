"""The words seprank puts on a number, in one place (docs/explanation/labels.md).

Every label a measurement, a certificate, a bound, ``verify``, a sweep row or a figure
prints comes from here, so each word means one thing everywhere:

- ``lower bound, saturated``: a GF(p) rank (a certified lower bound) that stopped below
  its sample with a Schwartz-Zippel bound on a false stop at most the threshold
  (:data:`SATURATED`);
- ``lower bound, not saturated``: a certified lower bound only;
- ``exact, proved``: a certified lower bound equal to a bound with a proof in proofs/;
- ``exact, given the ... bound (SOURCE)``: equal to a bound seprank did not prove (recalled
  from the literature, stated by the architecture, or stated by the user);
- ``exact for these weights`` (:data:`EXACT_FOR_WEIGHTS`): the symbolic method's rank
  over Q of the coefficient matrix (the ``coefficients`` and ``expand`` strategies): the
  separation rank of f for the weights drawn (or given), nothing sampled, no probability;
  another draw may give another rank;
- ``float estimate, trusted`` / ``untrusted``: a float rank of a polynomial network, never
  saturated; of a non-polynomial network it is ``float rank of a non-polynomial`` (no
  finite separation rank is known to exist: the number estimates nothing finite).
"""

from __future__ import annotations

#: The one definition of *saturated* (help texts quote it).
SATURATED = ("saturated: a GF(p) rank that stopped strictly below its sample size, with "
             "the Schwartz-Zippel bound on a false stop at most the threshold; it equals the "
             "separation rank except with that probability (modular method only)")

#: The statuses of an upper bound, and what a rank meeting it is called.
PROVED, RECALLED, ARCHITECTURE, USER = "proved", "recalled", "architecture", "user"
BOUND_STATUSES = (PROVED, RECALLED, ARCHITECTURE, USER)

#: Tags of a bound -> its status: [P] a proof in proofs/; [M] recalled, [V]/[V2] read in a
#: primary or secondary source (not proved here); [D] derived in the architecture's module
#: docstring, "user" the architecture's own ``upper_bound`` (both stated by the architecture).
TAG_STATUS = {"P": PROVED, "M": RECALLED, "V": RECALLED, "V2": RECALLED,
              "D": ARCHITECTURE, "user": ARCHITECTURE}

#: What a rank over Q of f's coefficient matrix is: exact, for the weights of that network
#: (another draw may give another rank; no sampling, no probability).
EXACT_FOR_WEIGHTS = "exact for these weights"

NOT_POLYNOMIAL = "float rank of a non-polynomial (estimates no finite separation rank)"


def bound_status(tag) -> str:
    """Return the status of a bound from its tag.

    Parameters
    ----------
    tag : str or None
        A key of :data:`TAG_STATUS` (``P``, ``M``, ``V``, ``V2``, ``D``, ``user``).

    Returns
    -------
    str
        Its status; an unknown tag (or None) is the architecture's word, never proved.
    """
    return TAG_STATUS.get(tag, ARCHITECTURE)


def exact_label(status: str, source=None) -> str:
    """What a certified lower bound equal to an upper bound of ``status`` is called.

    Parameters
    ----------
    status : str
        One of :data:`BOUND_STATUSES`.
    source : str, optional
        Where the bound comes from (quoted unless it is proved).

    Returns
    -------
    str
        ``"exact, proved"`` only for a proved bound; otherwise ``"exact, given the recalled
        literature bound (SOURCE)"``, ``"exact, given the architecture's stated bound
        (SOURCE)"`` or ``"exact, given the stated bound (SOURCE)"``.
    """
    return "exact, proved" if status == PROVED else f"exact, given {_which(status, source)}"


def _which(status: str, source) -> str:
    what = {RECALLED: "the recalled literature bound", ARCHITECTURE:
            "the architecture's stated bound", USER: "the stated bound"}[status]
    return f"{what} ({source})"


def above_label(status: str, source=None) -> str:
    """Return the label of a certified lower bound above an upper bound.

    Parameters
    ----------
    status : str
        The bound's status (:data:`BOUND_STATUSES`).
    source : str, optional
        Where the bound comes from.

    Returns
    -------
    str
        Above a proved bound, a bug in seprank; above another, that bound is false.
    """
    if status == PROVED:
        return "lower bound ABOVE the proved bound: a bug in seprank, please report it"
    return f"lower bound, above {_which(status, source)}: that bound is false"


def grid_label(saturated: bool, budget_hit: bool) -> str:
    """Return a GF(p) rank's label without a bound to meet.

    Parameters
    ----------
    saturated : bool
        Whether the rank is saturated (:data:`SATURATED`).
    budget_hit : bool
        Whether the sample reached its cap before the rank stopped below it.

    Returns
    -------
    str
        ``lower bound, saturated`` or ``lower bound, not saturated`` (``, budget hit``).
    """
    s = "lower bound, " + ("saturated" if saturated else "not saturated")
    return s + (", budget hit" if budget_hit and not saturated else "")


def float_label(trusted: bool, polynomial: bool = True) -> str:
    """Return a float rank's label (a float rank is never saturated).

    Parameters
    ----------
    trusted : bool
        Whether its spectrum passed the trust criteria.
    polynomial : bool, default True
        Whether the network is a polynomial.

    Returns
    -------
    str
        ``float estimate, trusted`` / ``untrusted``; of a non-polynomial,
        :data:`NOT_POLYNOMIAL` (it estimates no finite separation rank).
    """
    if not polynomial:
        return NOT_POLYNOMIAL
    return "float estimate, " + ("trusted" if trusted else "untrusted")


#: The rungs of the verdict ladder (:func:`rung`): a GF(p) rank meets its upper bound, is
#: above it, or is below it (or has none) and saturated, or not.
MEETS, ABOVE, BELOW_SATURATED, BELOW = "meets", "above", "below, saturated", "below"


def rung(rank, saturated, upper=None) -> str:
    """Return where a GF(p) rank stands on the verdict ladder: the one place it is decided.

    Every verdict (a label, ``verify``'s verdict, a certification's status) reads its
    rung here and says it in its own words.

    Parameters
    ----------
    rank : int or str
        The measured rank (a certified lower bound).
    saturated : bool or str
        As recorded (``True`` / ``False``, or its CSV text).
    upper : int, str or None, default None
        The upper bound it is compared with (None or ``""``: none).

    Returns
    -------
    str
        :data:`MEETS` (rank equals upper), :data:`ABOVE` (rank exceeds it), else
        :data:`BELOW_SATURATED` or :data:`BELOW`.

    Examples
    --------
    >>> rung(18, False, 18), rung(19, True, 18), rung("17", "True", ""), rung(17, False)
    ('meets', 'above', 'below, saturated', 'below')
    """
    if upper is not None and str(upper).strip() != "":
        r, u = int(rank), int(upper)
        if r == u:
            return MEETS
        if r > u:
            return ABOVE
    return BELOW_SATURATED if truthy(saturated) else BELOW


def truthy(v) -> bool:
    """Return whether a recorded bool is true.

    Parameters
    ----------
    v : object
        A bool, an int, or a CSV cell.

    Returns
    -------
    bool
        True for True, 1, and the texts ``True``, ``true``, ``1``.
    """
    return v is True or (not isinstance(v, bool) and str(v).strip().lower() in ("true", "1"))


def rank_label(rank, saturated, budget_hit=False, upper=None, status=ARCHITECTURE,
               source=None) -> str:
    """Return a GF(p) rank's label from its own recorded fields (a table's row, a CSV's).

    Parameters
    ----------
    rank : int or str
        The measured rank (a certified lower bound).
    saturated : bool or str
        As recorded (``True`` / ``False``, or its CSV text).
    budget_hit : bool or str, default False
        As recorded.
    upper : int, str or None, default None
        The upper bound it is compared with (None or ``""``: none).
    status : str, default "architecture"
        The bound's status (:data:`BOUND_STATUSES`); "proved" only when the caller knows the
        bound has a proof in proofs/ (the default claims nothing more than the bound's word).
    source : str, optional
        Where the bound comes from.

    Returns
    -------
    str
        :func:`exact_label` when the rank meets ``upper``, :func:`above_label` above it,
        else :func:`grid_label`.

    Examples
    --------
    >>> rank_label(18, True, upper=18, status=PROVED)
    'exact, proved'
    >>> rank_label("17", "True", upper="18")
    'lower bound, saturated'
    """
    step = rung(rank, saturated, upper)
    if step in (MEETS, ABOVE):
        return (exact_label if step == MEETS else above_label)(status, source)
    return grid_label(step == BELOW_SATURATED, truthy(budget_hit))


def label_of(m: dict) -> str:
    """Return the label of a measurement from its recorded fields.

    The fields are those of ``Measurement.to_dict()``, or of the ``measurement`` a result
    store holds (older ones included).

    Parameters
    ----------
    m : dict
        ``method``, ``rank``, ``saturated``, ``budget_hit``, ``trusted``, ``polynomial``
        and ``bound`` (those missing read as absent: False, no bound).

    Returns
    -------
    str
        The words of :attr:`seprank.engine.result.Measurement.label`.
    """
    if m.get("method") == "symbolic":
        return EXACT_FOR_WEIGHTS
    if m.get("method") == "float":
        return float_label(truthy(m.get("trusted")), m.get("polynomial", True) is not False)
    b = m.get("bound") or {}
    return rank_label(m["rank"], m.get("saturated"), m.get("budget_hit"), b.get("upper"),
                      b.get("status", ARCHITECTURE), b.get("source"))
