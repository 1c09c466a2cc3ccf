"""Torch students at a fixed non-embedding parameter budget.

- ``LinearAttention``: the paper's linearised self-attention (seprank.nets.attention,
  same weight layout Wq, Wk, Wv (L, H, d_a, d) and Wo (L, H, d, d_a)), optionally with
  the skip connection and a constant score scale. Non-embedding parameters: 4 L d^2.
- ``LinearStudent``: affine per-position input map (shared E, bias, learned positions),
  the linearised network with residual, scores scaled by 1/N, no norms, and a linear
  readout (no bias) of position 0. Every per-position map keeps the separation rank at
  most that of the core network, so the proved block bound (width d, H = 1) bounds it.
- ``SoftmaxStudent``: the depth_width experiment's block (pre-norm, softmax attention,
  4x GELU MLP, layer norm), non-causal, with the same input map and readout.
  Non-embedding parameters: L (12 d^2 + 13 d) + 2 d (blocks and final norm).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from ..depth_width.model import Block, width_for_budget
from ..depth_width.model import non_embedding_params as softmax_params

SOFTMAX_HEAD_DIM = 2  # widths are tiny at CPU budgets: multiples of 2 spend them closely


class LinearAttention(nn.Module):
    """y^{l+1,i} = [y^{l,i}] + s sum_h Wo sum_j <Wq y^i, Wk y^j> Wv y^j (s = score_scale)."""

    def __init__(self, depth, width, heads=1, residual=False, score_scale=1.0, init_std=None):
        super().__init__()
        a = width // heads
        self.depth, self.width, self.heads = depth, width, heads
        self.residual, self.score_scale = residual, score_scale
        std = init_std if init_std is not None else 1.0 / math.sqrt(width)
        self.Wq = nn.Parameter(torch.randn(depth, heads, a, width) * std)
        self.Wk = nn.Parameter(torch.randn(depth, heads, a, width) * std)
        self.Wv = nn.Parameter(torch.randn(depth, heads, a, width) * std)
        # Output maps start small: with the skip connection every layer starts near identity.
        wo_std = std * (0.1 if residual else 1.0)
        self.Wo = nn.Parameter(torch.randn(depth, heads, width, a) * wo_std)

    def forward(self, y):
        """(B, N, d) -> (B, N, d): every position (seprank reads position 0 of the last)."""
        for layer in range(self.depth):
            q = torch.einsum("bnc,hac->bhna", y, self.Wq[layer])
            k = torch.einsum("bnc,hac->bhna", y, self.Wk[layer])
            v = torch.einsum("bnc,hac->bhna", y, self.Wv[layer])
            s = torch.einsum("bhia,bhja->bhij", q, k) * self.score_scale
            z = torch.einsum("bhij,bhja->bhia", s, v)
            out = torch.einsum("bhia,hca->bic", z, self.Wo[layer])
            y = y + out if self.residual else out
        return y


class _Student(nn.Module):
    """Input map u (B, N, p) -> (B, N, d), a core, readout of position 0."""

    def __init__(self, core, width, seq_len, in_dim):
        super().__init__()
        self.embed = nn.Linear(in_dim, width)
        self.pos = nn.Parameter(torch.randn(seq_len, width) * 0.1)
        self.core = core
        self.head = nn.Linear(width, 1, bias=False)

    def features(self, u):
        return self.core(self.embed(u) + self.pos)[:, 0]

    def forward(self, u):
        return self.head(self.features(u)).squeeze(-1)

    def non_embedding_params(self) -> int:
        """Torch's count minus the input map, positions and readout."""
        emb = sum(p.numel() for p in self.embed.parameters()) + self.pos.numel()
        emb += sum(p.numel() for p in self.head.parameters())
        return sum(p.numel() for p in self.parameters()) - emb


class LinearStudent(_Student):
    def __init__(self, depth, width, seq_len, in_dim):
        core = LinearAttention(depth, width, heads=1, residual=True, score_scale=1.0 / seq_len)
        super().__init__(core, width, seq_len, in_dim)


class _SoftmaxCore(nn.Module):
    def __init__(self, depth, width, heads):
        super().__init__()
        self.blocks = nn.ModuleList(Block(width, heads, causal=False) for _ in range(depth))
        self.ln_f = nn.LayerNorm(width)

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.ln_f(x)


class SoftmaxStudent(_Student):
    def __init__(self, depth, width, seq_len, in_dim):
        core = _SoftmaxCore(depth, width, width // SOFTMAX_HEAD_DIM)
        super().__init__(core, width, seq_len, in_dim)
        self.apply(_gpt_init)


def _gpt_init(m):
    if isinstance(m, nn.Linear):  # the depth_width experiment's initialisation
        nn.init.normal_(m.weight, std=0.02)
        if m.bias is not None:
            nn.init.zeros_(m.bias)


def linear_params(depth: int, width: int) -> int:
    """Exact non-embedding count of the linearised core: 4 L d^2 (H = 1, no biases)."""
    return 4 * depth * width * width


def linear_width(budget: int, depth: int) -> int:
    """The width whose exact count 4 L d^2 is closest to ``budget``."""
    d = max(1, int(math.sqrt(budget / (4 * depth))))
    return min((d, d + 1), key=lambda w: abs(linear_params(depth, w) - budget))


STUDENTS = {
    "softmax": dict(cls=SoftmaxStudent, params=softmax_params,
                    width=lambda b, L: width_for_budget(b, L, SOFTMAX_HEAD_DIM)),
    "linear": dict(cls=LinearStudent, params=linear_params, width=linear_width),
}


def heads_of(student: str, width: int) -> int:
    return width // SOFTMAX_HEAD_DIM if student == "softmax" else 1


def build(student: str, depth: int, width: int, seq_len: int, in_dim: int) -> _Student:
    return STUDENTS[student]["cls"](depth, width, seq_len, in_dim)
