"""Architectures: frozen configs with ``init(rng, domain)`` and ``apply(params, X, domain)``.

The protocol is documented in :mod:`seprank.nets.base`. ``ARCHITECTURES`` maps each CLI
name (``seprank measure --arch NAME``, ``seprank archs``) to its class.
"""

from seprank.nets.attention import LinearSelfAttention, SoftmaxSelfAttention, head_counts
from seprank.nets.base import Architecture, config_of
from seprank.nets.convac import ConvACDeep, ConvACShallow
from seprank.nets.embedded_attention import EmbeddedAttention
from seprank.nets.gnn import GNN
from seprank.nets.rac import RAC
from seprank.nets.tensor_network import MPS
from seprank.nets.torch_module import TorchModule, from_torch

#: name -> architecture class (one file per family in seprank/nets/).
ARCHITECTURES = {
    "attention": LinearSelfAttention,
    "softmax-attention": SoftmaxSelfAttention,
    "embedded-attention": EmbeddedAttention,
    "convac-shallow": ConvACShallow,
    "convac-deep": ConvACDeep,
    "mps": MPS,
    "rac": RAC,
    "gnn": GNN,
}

__all__ = ["ARCHITECTURES", "GNN", "MPS", "RAC", "Architecture", "ConvACDeep", "ConvACShallow",
           "EmbeddedAttention", "LinearSelfAttention", "SoftmaxSelfAttention", "TorchModule",
           "config_of", "from_torch", "head_counts"]  # fmt: skip
