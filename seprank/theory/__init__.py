"""Theory: proved bounds (exact ints), the paper's regimes, depth-width guidelines."""

from seprank.registry import old_names
from seprank.theory import bounds as _bounds
from seprank.theory.bounds import block_bound, generic_block_bound, monomial_bound, theorem_bound

__all__ = ["block_bound", "generic_block_bound", "monomial_bound", "theorem_bound"]


#: ``upper_bound``, :func:`theorem_bound`'s old name (deprecated).
__getattr__ = old_names(__name__, {"upper_bound": (theorem_bound, _bounds.OLD_NAME)})
