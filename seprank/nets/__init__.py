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
from seprank.nets.hyena import Hyena
from seprank.nets.mixers_attention import GLA, LinearAttention, Retention
from seprank.nets.mlp_mixer import MLPMixer
from seprank.nets.rac import RAC
from seprank.nets.registry import ARCHITECTURES, name_of, resolve
from seprank.nets.ssm import S4, S6
from seprank.nets.tensor_network import MPS
from seprank.nets.torch_module import TorchModule, from_torch

__all__ = ["ARCHITECTURES", "GLA", "GNN", "MPS", "RAC", "S4", "S6", "Architecture", "ConvACDeep",
           "ConvACShallow", "EmbeddedAttention", "Hyena", "LinearAttention", "MLPMixer",
           "Retention", "LinearSelfAttention", "SoftmaxSelfAttention", "TorchModule",
           "config_of", "from_torch", "head_counts", "name_of", "resolve"]
