"""Theory: proved bounds (exact ints), the paper's regimes, depth-width guidelines."""

from seprank.theory import bounds as _bounds
from seprank.theory.bounds import block_bound, generic_block_bound, monomial_bound, theorem_bound

__all__ = ["block_bound", "generic_block_bound", "monomial_bound", "theorem_bound"]


def __getattr__(name: str):
    """``upper_bound``, :func:`theorem_bound`'s old name (deprecated)."""
    if name == "upper_bound":
        _bounds.OLD_NAME.warn(stacklevel=2)
        return theorem_bound
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
