"""The fixed training protocol (one function, the same for every run of a preset).

Data: n_train / n_val / n_test inputs uniform on [-1, 1]^(N x p) drawn from the run's
seed; targets divided by their standard deviation on the training split. Optimiser:
AdamW (lr, weight decay 0), minibatches of ``batch``, gradient norm clipped to 1.
After every epoch the validation MSE is computed; training stops after ``patience``
epochs without a new best, but not before ``min_epochs`` (deep students sit on a
plateau first), or at ``max_epochs``; the best-validation weights are
restored (the initial weights count as epoch 0, so a diverging run keeps a finite
checkpoint). With ``lr_factor`` < 1 (protocol v2) the rate is multiplied by it after
``lr_patience`` epochs without a new best validation error (ReduceLROnPlateau).
With ``arm_below`` set (protocol v3), neither early stopping nor the rate decay counts
until the best validation FVU has fallen below it: a run that sits on the plateau at the
mean (FVU ~ 1) trains on at the full rate to ``max_epochs`` instead of stopping there.
Reported errors are fractions of variance unexplained, FVU = MSE / Var(y) on each split
(1 = no better than the mean).
"""

from __future__ import annotations

import copy
import time

import numpy as np

from .targets import sample_inputs


def make_data(target, seed: int, n: tuple[int, int, int], seq_len: int, dim: int):
    """{'train'|'val'|'test': (u, y)} with y scaled by 1 / std(y_train)."""
    rng = np.random.default_rng([seed, 4])
    out = {}
    for name, size in zip(("train", "val", "test"), n):
        u = sample_inputs(rng, size, seq_len, dim)
        out[name] = (u, target(u))
    s = float(np.std(out["train"][1])) or 1.0
    return {k: (u, y / s) for k, (u, y) in out.items()}


def fvu(model, u, y, batch: int = 4096) -> float:
    import torch

    with torch.no_grad():
        pred = torch.cat([model(u[i : i + batch]) for i in range(0, len(u), batch)])
        mse = float(torch.mean((pred - y) ** 2))
    var = float(torch.var(y, unbiased=False))
    return mse / var if np.isfinite(mse) else float("inf")


def train(model, data, *, lr: float, batch: int, max_epochs: int, patience: int,
          seed: int, min_epochs: int = 0, lr_factor: float = 1.0, lr_patience: int = 0,
          arm_below: float | None = None, on_epoch=None) -> dict:
    """Train with early stopping on validation; returns errors and epoch counts."""
    import torch

    dev = next(model.parameters()).device
    t = {k: (torch.as_tensor(u, dtype=torch.float32, device=dev),
             torch.as_tensor(y, dtype=torch.float32, device=dev))
         for k, (u, y) in data.items()}
    ut, yt = t["train"]
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    sched = None
    if lr_factor < 1.0:  # halve (say) the rate after lr_patience epochs without a new best
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(
            opt, factor=lr_factor, patience=lr_patience, threshold=0.0
        )
    gen = torch.Generator().manual_seed(seed)  # permutations drawn on the CPU
    model.eval()
    best = fvu(model, *t["val"])
    best_state, best_epoch, diverged = copy.deepcopy(model.state_dict()), 0, False
    t0 = time.perf_counter()
    epoch = 0
    for epoch in range(1, max_epochs + 1):
        model.train()
        perm = torch.randperm(len(ut), generator=gen).to(dev)
        for i in range(0, len(ut), batch):
            idx = perm[i : i + batch]
            loss = torch.mean((model(ut[idx]) - yt[idx]) ** 2)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
        model.eval()
        v = fvu(model, *t["val"])
        if not np.isfinite(v):
            diverged = True
            break
        if v < best:
            best, best_state, best_epoch = v, copy.deepcopy(model.state_dict()), epoch
        armed = arm_below is None or best < arm_below  # off the plateau at the mean
        if sched is not None and armed:
            sched.step(v)
        if on_epoch is not None:
            on_epoch(epoch, v, best)
        if armed and epoch >= min_epochs and epoch - best_epoch >= patience:
            break
    model.load_state_dict(best_state)
    model.eval()
    return dict(
        train_fvu=fvu(model, *t["train"]), val_fvu=best, test_fvu=fvu(model, *t["test"]),
        epochs=epoch, best_epoch=best_epoch, diverged=int(diverged),
        seconds=time.perf_counter() - t0,
    )
