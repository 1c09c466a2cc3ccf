"""The trace-time check of ``from_torch``: eager torch, the traced graph and seprank agree.

Always on, once per traced module: with weights drawn at random (standard normal, a fixed
seed) and two random float inputs (one batch of 2), three numbers per input are compared,

1. the module's own eager forward (the float64 evaluation-mode copy),
2. the traced (and functionalised, :mod:`seprank.nets.torch_trace`) fx graph run by torch,
3. seprank's interpretation of that graph (:func:`seprank.nets.torch_graph.run`, numpy
   arithmetic in float64: the code every exact engine runs, on other arrays),

and must agree to a relative tolerance :data:`RTOL` (of the largest magnitude compared).
When 1 and 2 part, the graph torch.fx recorded computes something else than the module
(randomness in the forward, a Python side effect, an in-place write fx lost); when 2 and
3 part, the interpreter is wrong at some node, and the message names the first live node
whose values differ (its operation and source line). Either way the module is refused: a
graph that computes something else is never measured. A graph that is not a polynomial is
measured by its eager forward (the float engine), so only 1 and 2 are compared for it; an
interpretation that raises DomainError (an integer cast, an inexact constant) raises the
same in every exact engine, so nothing is compared with it.
"""

from __future__ import annotations

import numpy as np

from seprank.errors import ConfigError, DomainError
from seprank.nets.torch_graph import run
from seprank.nets.torch_ops import NumpyArith
from seprank.nets.torch_trace import float64, where

#: Relative tolerance of the check (float64 round-off of small graphs is ~1e-15).
RTOL = 1e-9
#: Seed of the check's weights and inputs.
SEED = 20240601


class _Float:
    """The float64 arithmetic the check interprets the graph in (nets cannot import
    seprank.algebra: the layers contract)."""

    name = "float64"

    @staticmethod
    def constant(x):
        return np.asarray(x, dtype=np.float64)


def _close(a, b) -> bool:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return False
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        return bool(np.array_equal(a, b, equal_nan=True))
    scale = max(float(np.max(np.abs(a), initial=0.0)), float(np.max(np.abs(b), initial=0.0)))
    return float(np.max(np.abs(a - b), initial=0.0)) <= RTOL * scale


def _gap(a, b) -> str:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return f"shapes {a.shape} and {b.shape}"
    return f"largest difference {float(np.max(np.abs(a - b))):.3g}, magnitude " \
           f"{float(np.max(np.abs(b), initial=0.0)):.3g}"


def check_trace(net) -> None:
    """Refuse ``net`` (a ConfigError) unless eager, traced and interpreted outputs agree."""
    t = net.traced
    rng = np.random.default_rng(SEED)
    params = {n: rng.standard_normal(shape) for n, shape in t.shapes}
    X = rng.standard_normal((2, net.seq_len, net.width))
    name = type(t.work).__name__
    eager = net._read(net._forward(params, X))
    graph = net._read(net._forward(params, X, module=t.gm))
    if not _close(graph, eager):
        raise ConfigError(
            f"module={name}: the graph torch.fx traced computes something else than the "
            f"module's eager forward at two random inputs ({_gap(graph, eager)}; relative "
            f"tolerance {RTOL:g}): randomness or a Python side effect in forward? seprank "
            f"does not measure a graph that computes something else")
    if t.reason is not None:
        return
    ar = NumpyArith(_Float())
    ours_env: dict = {}
    try:
        ours = net._read(run(t.gm, t.live, X, params, t.alias, ar, record=ours_env))
    except DomainError:
        return  # every exact engine raises it too: nothing is measured with it
    except Exception as exc:  # noqa: BLE001 - an interpreter failure: refused, named
        node = next((n for n in t.gm.graph.nodes if n not in ours_env), None)
        at = f" at node '{node.name}'{where(node)}" if node is not None else ""
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise ConfigError(f"module={name}: seprank's interpretation of the traced graph fails"
                          f"{at}: {type(exc).__name__}: {first}; seprank does not measure "
                          "it: please report the operation") from None
    if _close(ours, graph):
        return
    node = _first_parting(net, params, X, ours_env)
    at = (f"first at node '{node.name}' ({node.op} {getattr(node.target, '__name__', node.target)})"
          f"{where(node)}" if node is not None else "at the output read")
    raise ConfigError(
        f"module={name}: seprank's interpretation of the traced graph differs from torch's "
        f"{at} ({_gap(ours, graph)}; relative tolerance {RTOL:g}); seprank does not measure "
        f"it: please report the operation")


def _first_parting(net, params, X, ours_env):
    """The first live node whose value in seprank's interpretation differs from torch's."""
    import torch
    from torch import fx

    t = net.traced
    theirs: dict = {}

    class Recorder(fx.Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            theirs[n] = out
            return out

    with torch.no_grad(), float64():
        Recorder(t.gm).run(torch.tensor(X))  # a copy, as every run of the check gets
    for node in t.gm.graph.nodes:
        if node not in t.live or node not in ours_env or node.op == "get_attr":
            continue
        a, b = ours_env[node], theirs.get(node)
        if hasattr(b, "detach"):
            if not _close(np.asarray(a, dtype=np.float64), b.detach().numpy()):
                return node
    return None


def inexact_constant(kept) -> str | None:
    """Why the first kept tensor ((name, kind, tensor) triples) has no exact value in the
    exact engines (an entry that is not finite), or None if every entry converts exactly:
    every finite float16/32/64 entry is the exact binary fraction it holds."""
    for name, kind, tensor in kept:
        if not tensor.is_floating_point():
            continue
        a = tensor.detach().cpu().double().numpy().ravel()
        bad = ~np.isfinite(a)
        if bad.any():
            v = float(a[np.argmax(bad)])
            return (f"{kind} '{name}' holds {v}, not a finite number: the exact engines keep "
                    "the module's constants exactly; make it a trainable parameter to draw "
                    "it at random, or pass draw='all'")
    return None


__all__ = ["RTOL", "check_trace", "inexact_constant"]
