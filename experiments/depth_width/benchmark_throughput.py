"""Training throughput (tokens/s): our GPT block vs a torch.nn.TransformerEncoderLayer
equivalent of the same size (pre-norm, GELU, 4x MLP, causal mask), measured in one run.

Run: ``python -m experiments.depth_width.benchmark_throughput [--depth 4 --width 128]``.
Prints median tokens/s over interleaved rounds for both and the ratio ours / reference
(>= 1 means ours is not slower), with the range of per-round ratios as the noise level.
"""

from __future__ import annotations

import statistics
import time

import torch
from torch import nn

from experiments.script_args import Parser, int_at_least
from seprank.engine.sample_grid import available_memory

from .model import GPT


class Reference(nn.Module):
    def __init__(self, depth, width, heads, ctx, vocab=256):
        super().__init__()
        self.tok = nn.Embedding(vocab, width)
        self.pos = nn.Embedding(ctx, width)
        layer = nn.TransformerEncoderLayer(width, heads, 4 * width, dropout=0.0,
                                           activation="gelu", batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.ln_f = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        self.head.weight = self.tok.weight
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(ctx))

    def forward(self, idx, targets):
        T = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(T))
        x = self.enc(x, mask=self.mask[:T, :T], is_causal=True)
        logits = self.head(self.ln_f(x))
        flat = logits.reshape(-1, logits.shape[-1])
        return nn.functional.cross_entropy(flat, targets.reshape(-1))


def tokens_per_s(model, batch, ctx, steps, warmup=3):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randint(0, 256, (batch, ctx))
    y = torch.randint(0, 256, (batch, ctx))
    for i in range(warmup + steps):
        if i == warmup:
            t = time.perf_counter()
        loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return steps * batch * ctx / (time.perf_counter() - t)


def main(argv=None):
    ap = Parser()
    for flag, default, most in (("--depth", 4, 64), ("--width", 128, 8192), ("--heads", 8, 1024),
                                ("--batch", 32, 4096), ("--ctx", 128, 8192),
                                ("--steps", 10, 10_000)):
        ap.add_argument(flag, type=int_at_least(1, most), default=default,
                        help=f"1..{most} (default {default})")
    ap.add_argument("--rounds", type=int_at_least(1, 100), default=5,
                    help="interleaved timing rounds")
    a = ap.parse_args(argv)
    if a.width % a.heads:
        ap.error(f"--heads: {a.heads} must divide --width {a.width}")
    # two models of about 12 L d^2 weights, each with its gradient and two Adam moments
    need, have = 2 * 16 * 12 * a.depth * a.width**2, available_memory()
    if need > have // 2:
        ap.error(f"--width {a.width} --depth {a.depth}: the two models need about "
                 f"{need / 2**30:,.1f} GiB, over half the {have / 2**30:,.1f} GiB available")
    torch.manual_seed(0)
    ours = GPT(a.depth, a.width, a.heads, a.ctx)
    ref = Reference(a.depth, a.width, a.heads, a.ctx)
    n_ours = sum(p.numel() for p in ours.parameters())
    n_ref = sum(p.numel() for p in ref.parameters())
    rs, os_ = [], []
    for _ in range(a.rounds):  # interleaved, so both share the machine's noise
        rs.append(tokens_per_s(ref, a.batch, a.ctx, a.steps))
        os_.append(tokens_per_s(ours, a.batch, a.ctx, a.steps))
    o, r = statistics.median(os_), statistics.median(rs)
    ratios = sorted(x / y for x, y in zip(os_, rs))
    print(f"config depth {a.depth} width {a.width} heads {a.heads} batch {a.batch} ctx {a.ctx}, "
          f"{a.rounds} rounds of {a.steps} steps, torch threads {torch.get_num_threads()}")
    print(f"params ours {n_ours:,}  reference {n_ref:,}")
    print(f"ours      {o:,.0f} tokens/s (median)")
    print(f"reference {r:,.0f} tokens/s (median; nn.TransformerEncoderLayer)")
    print(f"ratio ours/reference {o / r:.3f} "
          f"(per-round ratios {ratios[0]:.3f} .. {ratios[-1]:.3f})")


if __name__ == "__main__":
    main()
