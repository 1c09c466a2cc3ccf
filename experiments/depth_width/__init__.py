"""The torch side experiment: depth vs width at fixed parameter budgets (byte-level LM)."""
