"""Limits on the modulus p, each defined once.

``FLOAT64_PRIME_LIMIT``: the float64 engines (the BLAS elimination, the array-backend
elimination, the incremental rank) need p < 2**26: residues then have at most 26 bits, a
residue times a 13-bit half of another is below 2**39, and a dot product of up to 2**13
such terms stays below 2**52, exact in float64 (the proofs are in those modules).

``MAX_MODULUS``: the largest modulus :class:`~seprank.algebra.domains.ModP` accepts,
2**31 - 1 (python-flint's nmod_mat works with word-size moduli; ``is_prime`` checks
primality by trial division up to its square root, 46340 divisions).
"""

FLOAT64_PRIME_LIMIT = 1 << 26
MAX_MODULUS = 2**31 - 1
