"""The version of seprank, written here only (pyproject reads it)."""

__version__ = "0.2.0"
