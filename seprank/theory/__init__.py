"""Theory: proved bounds (exact ints), the paper's regimes, depth-width guidelines."""

from seprank.theory.bounds import block_bound, generic_block_bound, monomial_bound, upper_bound

__all__ = ["block_bound", "generic_block_bound", "monomial_bound", "upper_bound"]
