"""The jobs: ``verify`` (measured against proved, over a grid) and ``transition``."""
