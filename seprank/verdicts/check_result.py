"""The outcome of checking a certificate (:func:`seprank.check_certificate`), whatever its kind."""

from __future__ import annotations

from dataclasses import dataclass, field

from seprank.theory.architecture_bounds import exact_label


@dataclass
class CheckResult:
    """Outcome of :func:`~seprank.check_certificate`; true when the certificate checks out.

    Parameters
    ----------
    ok : bool
        Whether every check passed.
    reasons : list, default []
        Why a check failed (one line each).
    exact : bool, default False
        Whether the certified rank meets the upper bound.
    rank : int or None, default None
        The certified rank (the sum over the blocks).
    given : bool, default False
        Whether the upper bound was stated by the user.
    source : str or None, default None
        The upper bound's source.
    tag : str or None, default None
        The architecture's tag of its bound (``"M"``: recalled from the literature).
    rechecked : bool, default True
        Whether the architecture's own bound was recomputed.
    malformed : bool, default False
        Whether it failed because the certificate is malformed or unreadable (not merely
        false): ``seprank check-certificate`` then exits 2, not 1.
    """
    ok: bool
    reasons: list = field(default_factory=list)
    exact: bool = False
    rank: int | None = None
    given: bool = False
    source: str | None = None
    tag: str | None = None
    rechecked: bool = True
    malformed: bool = False

    def __bool__(self) -> bool:
        return self.ok

    @property
    def status(self) -> str:
        """The verdict of the check, as :func:`seprank.certify` words it.

        ``"exact, proved"``, ``"exact, given the stated bound (SOURCE)"``, ``"exact, given
        the recalled literature bound (SOURCE)"``, ``"exact, bound not rechecked"`` (with
        ``recheck_upper=False``), ``"lower bound"`` or ``"invalid"``.
        """
        if not self.ok:
            return "invalid"
        if not self.exact:
            return "lower bound"
        if not self.given and not self.rechecked:
            return "exact, bound not rechecked"
        return exact_label(self.given, self.source, self.tag)
