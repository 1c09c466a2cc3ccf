"""seprank: separation-rank analysis of (linearised) self-attention networks.

Measure the separation rank of a network exactly (grid tensors, rank over GF(p)),
compare it with the bounds of "The Depth-to-Width Interplay in Self-Attention"
(Levine et al., 2020) and with our own block bound.

>>> import seprank
>>> net = seprank.nets.LinearSelfAttention(depth=1, width=2, heads=1, seq_len=2)
>>> seprank.measure(net).rank
3
"""

from seprank import errors, nets, theory
from seprank._version import __version__
from seprank.algebra import domains
from seprank.algebra.domains import DEFAULT_PRIME, Float64, ModP, Symbolic
from seprank.engine.measure import Measurement, measure
from seprank.errors import ConfigError, DomainError, SamplingError, SeprankError
from seprank.nets import LinearSelfAttention, SoftmaxSelfAttention
from seprank.nets.torch_module import from_torch  # torch itself is imported when used
from seprank.studies.study import Study, study
from seprank.theory.architecture_bounds import proved_upper_bound as upper_bound
from seprank.verdicts.certificates import Certification, certify, check_certificate

__all__ = [
    "Certification",
    "DEFAULT_PRIME",
    "ConfigError",
    "DomainError",
    "Float64",
    "LinearSelfAttention",
    "Measurement",
    "ModP",
    "SamplingError",
    "SeprankError",
    "SoftmaxSelfAttention",
    "Study",
    "__version__",
    "Symbolic",
    "certify",
    "check_certificate",
    "domains",
    "errors",
    "from_torch",
    "measure",
    "nets",
    "study",
    "theory",
    "upper_bound",
]
