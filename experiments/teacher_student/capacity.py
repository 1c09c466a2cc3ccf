"""Separation-rank capacity of the students across the balanced partition.

Proved (linear student; inputs u_i in R^p, per-position affine map x_i = E u_i + c_i):

- L = 1: the readout of x_i + s sum_j <Wq x_i, Wk x_j> Wv x_j splits into terms of side A
  alone (one function) and sum_{j in B} x_i^T M x_j w^T x_j = sum_a x_{i,a} k_a(u_B):
  bilinear in the affine functions of u_i, which span at most p + 1 dimensions. So
  sep <= p + 2, whatever the width. (The same expansion shows that at depth 1 the output
  is a sum over j of functions of (u_i, u_j): it holds no exact product of functions of
  two positions other than i, whatever its rank.)
- Any L: the output is a polynomial of degree <= 3^L in the n p inputs of either side,
  so sep <= C(n p + 3^L, n p) (monomials on the smaller side); and the proved bound of
  seprank.theory for LinearSelfAttention of width d (residual) applies, since
  per-position maps do not raise a separation rank. The capacity is the least of these.

Measured (either student): the float SVD rank of a grid matrix of the network's output,
M[i, j] = f(u_A^i, u_B^j), numpy's default tolerance; capped by the grid size.
"""

from __future__ import annotations

import math

import numpy as np


def linear_capacity(depth: int, width: int, seq_len: int, dim: int) -> tuple[float, str]:
    """(log10 of the proved upper bound, which bound) for the linear student."""
    from seprank.nets import LinearSelfAttention
    from seprank.theory.bounds import theorem_bound

    n = min(seq_len // 2, seq_len - seq_len // 2) * dim
    cands = {"polynomial degree": math.log10(math.comb(n + 3**depth, n))}
    if depth == 1:
        cands["depth-1 bilinear (p + 2)"] = math.log10(dim + 2)
    net = LinearSelfAttention(depth=depth, width=width, seq_len=seq_len, residual=True)
    cands[f"seprank {theorem_bound(net)['which']} bound, width {width}"] = theorem_bound(net)[
        "log10_upper"
    ]
    which = min(cands, key=cands.get)
    return cands[which], which


def student_grid_rank(model, seq_len: int, dim: int, grid: int = 256, seed: int = 0) -> int:
    """Float SVD rank of the model's grid matrix across the balanced partition (float64)."""
    import copy

    import torch

    rng = np.random.default_rng(seed)
    half = seq_len // 2
    ua = rng.uniform(-1, 1, size=(grid, half, dim))
    ub = rng.uniform(-1, 1, size=(grid, seq_len - half, dim))
    m64 = copy.deepcopy(model).double().eval()
    rows = []
    with torch.no_grad():
        tb = torch.as_tensor(ub)
        for i in range(grid):
            ta = torch.as_tensor(ua[i : i + 1]).expand(grid, -1, -1)
            rows.append(m64(torch.cat([ta, tb], dim=1)).numpy())
    return int(np.linalg.matrix_rank(np.stack(rows)))
