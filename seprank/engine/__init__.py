"""The measurement engine: validated options -> plan -> strategy -> Measurement.

Grids (sample points and evaluation), estimates, saturation labels, homogeneity, the
compiled-kernel loader; strategies/ holds one file per measurement strategy."""
