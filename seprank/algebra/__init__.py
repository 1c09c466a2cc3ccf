"""Exact and float linear algebra over the domains: the field (GF(p), Q, float64, symbolic),
the rank engines, elimination, interpolation. Imports nothing of seprank above errors."""
