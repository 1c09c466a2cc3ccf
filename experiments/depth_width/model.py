"""GPT-style decoder-only transformer: pre-norm, SDPA causal attention, 4x MLP."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self, width: int, heads: int, causal: bool = True):
        super().__init__()
        self.heads = heads
        self.causal = causal
        self.ln1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.ln2 = nn.LayerNorm(width)
        self.fc = nn.Linear(width, 4 * width)
        self.out = nn.Linear(4 * width, width)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        x = x + self.proj(y.transpose(1, 2).reshape(B, T, C))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    """Byte-level GPT. Embeddings (token, position) and the tied output head are the
    only embedding parameters; everything else counts as non-embedding."""

    def __init__(self, depth: int, width: int, heads: int, ctx: int, vocab: int = 256):
        super().__init__()
        self.tok = nn.Embedding(vocab, width)
        self.pos = nn.Embedding(ctx, width)
        self.blocks = nn.ModuleList(Block(width, heads) for _ in range(depth))
        self.ln_f = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        self.head.weight = self.tok.weight  # tied
        self.apply(self._init)

    @staticmethod
    def _init(m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=0.02)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, std=0.02)

    def forward(self, idx, targets=None):
        T = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(T, device=idx.device))
        for b in self.blocks:
            x = b(x)
        logits = self.head(self.ln_f(x))
        if targets is None:
            return logits
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))

    def non_embedding_params(self) -> int:
        """Parameters counted by torch, minus the (tied) token and position embeddings."""
        total = sum(p.numel() for p in self.parameters())  # tied weight counted once
        return total - self.tok.weight.numel() - self.pos.weight.numel()


def non_embedding_params(depth: int, width: int) -> int:
    """Exact count for our architecture: per block 12 d^2 + 13 d, plus the final norm 2d."""
    return depth * (12 * width * width + 13 * width) + 2 * width


def width_for_budget(budget: int, depth: int, head_dim: int) -> int:
    """The multiple of ``head_dim`` whose exact non-embedding count is closest to budget."""
    best, best_err = head_dim, None
    w = head_dim
    while True:
        err = abs(non_embedding_params(depth, w) - budget)
        if best_err is None or err < best_err:
            best, best_err = w, err
        if non_embedding_params(depth, w) > budget:
            return best
        w += head_dim
