"""Grid tensors: sample A-side and B-side inputs and assemble the matricised grid.

Two samplers produce the row points (inputs of the A positions) and column points
(inputs of the B positions):

- ``random``: independent random points for each row and each column;
- ``templates``: the classic grid tensor of Cohen, Sharir and Shashua: ``M`` template
  vectors, every assignment of templates to the positions. Row r is an assignment to
  the A positions, column c one to the B positions, so the matrix is the (A, B)
  matricisation of the order-N tensor; the tensor itself is never materialised.

``evaluate_grid`` then fills F[r, c] = f(row r on A, column c on B) in vectorised,
memory-bounded batches (plan once, evaluate many).
"""

from __future__ import annotations

import itertools
import math
import os

import numpy as np

from seprank.algebra.domains import ModP
from seprank.engine import row_check
from seprank.engine.evaluate import evaluate
from seprank.errors import SamplingError
from seprank.nets.base import input_dim
from seprank.nets.capabilities import capability

#: Network evaluations per vectorised batch (bounds the memory of the generic path).
DEFAULT_CHUNK = 1 << 14


def random_points(domain, rng, count: int, positions: int, width: int) -> np.ndarray:
    """``count`` independent random inputs on ``positions`` positions.

    Shape (count, positions, width)."""
    return domain.random(rng, (count, positions, width))


def template_points(templates: np.ndarray, positions: int) -> np.ndarray:
    """Every assignment of the M templates (M, width) to ``positions`` positions."""
    M = templates.shape[0]
    idx = np.array(list(itertools.product(range(M), repeat=positions)), dtype=np.int64)
    return templates[idx]  # (M**positions, positions, width)


def evaluate_grid(net, params, domain, A_pts, B_pts, A, B, chunk: int = DEFAULT_CHUNK,
                  spot=None):
    """F[r, c] = f(A_pts[r] at positions A, B_pts[c] at positions B), generic path.

    Rows are processed in blocks so that at most about ``chunk`` network inputs exist
    at once. Works in every domain. With ``spot`` (a
    :class:`~seprank.engine.row_check.SpotChecker`), every batch is evaluated with copies
    of a sentinel row at random positions, checked for the one-row property (a class
    seprank does not ship).
    """
    P, Q = A_pts.shape[0], B_pts.shape[0]

    N, d = net.seq_len, input_dim(net)
    dtype = A_pts.dtype
    rows_per_block = max(1, chunk // max(Q, 1))
    F = np.empty((P, Q), dtype=dtype)
    for r0 in range(0, P, rows_per_block):
        r1 = min(P, r0 + rows_per_block)
        nr = r1 - r0
        X = np.empty((nr * Q, N, d), dtype=dtype)
        X[:, list(A)] = np.repeat(A_pts[r0:r1], Q, axis=0)
        X[:, list(B)] = np.tile(B_pts, (nr, 1, 1))
        out = evaluate(net, params, X, domain) if spot is None else \
            spot.evaluate(net, params, domain, X)
        F[r0:r1] = out.reshape(nr, Q)
    return F


def uses_kernel(net, modular: bool, use_kernel: bool = True) -> bool:
    """Whether the grid of ``net`` (over GF(p) when ``modular``) is evaluated by a compiled
    kernel the network declares (the capability ``kernel``), as :func:`make_evaluator`
    decides (the compile notice and the time estimate ask it too)."""
    declared = capability(net, "kernel") if use_kernel and modular else None
    return declared is not None and declared() is not None


def make_evaluator(net, params, domain, A, B, *, use_kernel=True, chunk=DEFAULT_CHUNK,
                   spot_seed: int | None = None, sentinel=None):
    """Plan the grid evaluation once: ``evaluate(A_pts, B_pts) -> F`` for this net.

    Uses the compiled GF(p) evaluator the architecture declares (the capability
    ``kernel``, :mod:`seprank.nets.capabilities`) where there is one, else
    :func:`evaluate_grid` (every domain). With ``spot_seed``, the batches the generic path
    evaluates are checked for the one-row property
    (:class:`seprank.engine.row_check.SpotChecker`, stream ``default_rng([spot_seed, 8])``,
    its ``sentinel`` where one was evaluated alone already).
    """
    spot = None if spot_seed is None else \
        row_check.SpotChecker(np.random.default_rng([int(spot_seed), 8]), sentinel)
    declared = capability(net, "kernel") if use_kernel and isinstance(domain, ModP) else None
    kernel = None if declared is None else declared()

    def evaluate(A_pts, B_pts):
        if kernel is not None:
            F = kernel(params, A_pts, B_pts, A, B, domain.p)
            if F is not None:
                return F
        return evaluate_grid(net, params, domain, A_pts, B_pts, A, B, chunk=chunk, spot=spot)

    return evaluate


def check_matrix_fits(rows: int, cols: int, itemsize: int = 8, limit_bytes: int | None = None):
    """Refuse a grid matrix that would not fit in memory (a quarter of RAM by default).

    A quarter, because the measurement holds about two matrix-sized arrays at once (the
    grid and the rank engine's float64 working copy) plus bounded temporaries.
    """
    if limit_bytes is None:
        limit_bytes = available_memory() // 4
    need = rows * cols * itemsize
    if need > limit_bytes:
        raise SamplingError(
            f"max_samples: a {rows}x{cols} grid needs {need / 2**30:.1f} GiB, "
            f"over the {limit_bytes / 2**30:.1f} GiB allowed"
        )


def available_memory() -> int:
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover
        return 8 * 2**30


def templates_needed(samples: int, positions: int) -> int:
    """Smallest M with M**positions >= samples."""
    m = max(1, int(math.floor(samples ** (1.0 / positions))))
    while m**positions < samples:
        m += 1
    return m
