"""Verdicts: certificates (write, check by re-deriving) and the verdict row of one network."""
