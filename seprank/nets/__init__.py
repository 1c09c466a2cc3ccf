"""Architectures: frozen configs with ``init(rng, domain)`` and ``apply(params, X, domain)``.

The protocol is documented in :mod:`seprank.nets.base`. ``ARCHITECTURES`` maps each CLI
name (``seprank measure --arch NAME``, ``seprank archs``) to its class; :func:`resolve`
also takes ``module:Class`` and entry points (:mod:`seprank.nets.registry`).
"""

from seprank.nets.attention import LinearSelfAttention, SoftmaxSelfAttention, head_counts
from seprank.nets.base import Architecture, config_of
from seprank.nets.convac import ConvACDeep, ConvACShallow
from seprank.nets.embedded_attention import EmbeddedAttention
from seprank.nets.gnn import GNN
from seprank.nets.rac import RAC
from seprank.nets.registry import ARCHITECTURES, name_of, resolve
from seprank.nets.tensor_network import MPS
from seprank.nets.torch_module import TorchModule, from_torch

__all__ = ["ARCHITECTURES", "GNN", "MPS", "RAC", "Architecture", "ConvACDeep", "ConvACShallow",
           "EmbeddedAttention", "LinearSelfAttention", "SoftmaxSelfAttention", "TorchModule",
           "config_of", "from_torch", "head_counts", "name_of", "resolve"]  # fmt: skip
