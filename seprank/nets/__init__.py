"""Architectures: frozen configs with ``init(rng, domain)`` and ``apply(params, X, domain)``."""

from .attention import LinearSelfAttention, SoftmaxSelfAttention, head_counts
from .base import Architecture, config_of

__all__ = ["Architecture", "LinearSelfAttention", "SoftmaxSelfAttention", "config_of",
           "head_counts"]  # fmt: skip
