"""Nonsingular minors of the catalecticant strategy's matrices, recorded only when a
certificate is wanted (``inputs.minors`` a dict; None, the default, records nothing).

A block is named by its first row key and first column key: for the homogeneous block k
these are k and D - k (the smallest key of degree k is k s_0), for the residual's one
matrix 0 and 0. A minor is the block's ``rows`` (keys of gamma), ``cols`` (keys of delta)
and ``coords`` (the coordinate c of each column) of an r x r submatrix of
H[gamma, (delta, c)] that is nonsingular mod p, r the rank found. The pivots of a
submatrix whose rank reaches the block's short side are pivots of the block.
"""

from __future__ import annotations

import numpy as np


def recording(inputs) -> bool:
    """Whether this measurement records its minors (a certificate was asked for)."""
    return getattr(inputs, "minors", None) is not None


def pivots_of(inputs, H, r_keys, c_keys, flip: bool, d: int) -> tuple[int, dict]:
    """(rank, minor) of H = catalecticant(keys, values, r_keys, c_keys, transpose=flip),
    its pivots mapped back to keys (H is overwritten)."""
    rows, cols = inputs.engine.pivots(H, overwrite=True)
    rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    if flip:  # H^T: its rows are the block's (delta, c) columns
        rows, cols = cols, rows
    return int(rows.size), {"rows": np.asarray(r_keys)[rows].tolist(),
                            "cols": np.asarray(c_keys)[cols // d].tolist(),
                            "coords": (cols % d).tolist()}


def keep(inputs, rows, cols, minor: dict) -> None:
    """Record the block's minor, under the block's first row and column keys."""
    inputs.minors[(int(rows[0]), int(cols[0]))] = minor


def collect(inputs, blocks: list, D: int) -> list | None:
    """Each block's minor with its degrees and rank, in the blocks' order (None when not
    recording)."""
    if not recording(inputs):
        return None
    out = []
    for b in blocks:
        k = b["other_s_degree"]
        minor = inputs.minors[(0, 0) if k is None else (k, D - k)]
        out.append({"degree": b["degree"], "other_s_degree": k, "rank": int(b["rank"]),
                    **minor})
    return out
