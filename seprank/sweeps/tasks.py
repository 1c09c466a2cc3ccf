"""One task of a sweep: a plain dict (``spec``) that names a network and how to measure it.

:func:`make_spec` builds it and its key (a hash of everything that decides the result,
the package version included); :func:`plan` adds the cost and memory estimates (from
:mod:`seprank.engine.estimate`); :func:`run_task` runs it, on whatever process or host it lands,
and returns a JSON-friendly outcome instead of raising (a Ctrl-C still stops it).
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import time
import traceback

from seprank import _version
from seprank.engine.measure import measure
from seprank.engine.options import MeasureOptions
from seprank.engine.planner import plan as plan_measurement
from seprank.engine.strategies.base import BASE_BYTES
from seprank.errors import ConfigError, MeasurementInterrupted, SeprankError, TooBigError
from seprank.nets.base import config_of
from seprank.nets.registry import name_of, resolve
from seprank.sweeps.fingerprint import fingerprint
from seprank.verdicts import verdict
from seprank.verdicts.verdict import DEFAULT_BUDGET

#: Task kinds: ``measure`` (one Measurement) and ``verify`` (a row of ``seprank verify``:
#: the measurement, the proved bound and the other balanced partitions).
KINDS = ("measure", "verify")


def arch_name(net) -> str:
    """The registry name of ``net``'s class, else its import path ``module:Class``."""
    return name_of(type(net))


def make_spec(kind: str, arch: str, params: dict, *, partition=None, method: str = "auto",
              strategy: str = "auto", seed: int = 0, prime: int | None = None,
              max_samples: int | None = None, grid: str | None = None) -> dict:
    """The task as a dict, with ``key``: sha256 of (kind, architecture, config, partition,
    method, strategy, seed, prime, max_samples, package version, code fingerprint).
    ``arch`` is recorded as its registry name, else as the resolved import path
    ``module:Class``."""
    try:
        arch = name_of(resolve(arch))
    except SeprankError:  # a name that resolves to nothing: its task fails when it runs
        pass
    params = _canonical(arch, params)
    spec = {"task": kind, "arch": arch, "params": dict(params),
            "partition": None if partition is None else [int(p) for p in partition],
            "method": method, "strategy": strategy, "seed": int(seed), "prime": prime,
            "max_samples": max_samples, "version": _version.__version__,
            "code": fingerprint()}
    text = json.dumps(spec, sort_keys=True, default=str)
    spec["key"] = hashlib.sha256(text.encode()).hexdigest()[:32]
    spec["grid"] = grid
    return spec


def _canonical(arch: str, params: dict) -> dict:
    """The network's full config (defaults filled in), so that one configuration has one
    key however it was listed; the raw params where they build no network (the task then
    fails, and is stored, when it runs)."""
    try:
        full = config_of(build_net({"arch": arch, "params": params}))
    except Exception:
        return dict(params)
    full.pop("architecture", None)
    return json.loads(json.dumps(full, default=list))  # tuples as the JSON lists they become


def spec_for_net(kind: str, net, **kw) -> dict:
    params = config_of(net)
    params.pop("architecture", None)
    return make_spec(kind, arch_name(net), params, **kw)


def build_net(spec: dict):
    """The network a spec names (JSON lists back to the tuples a config holds)."""
    cls = resolve(spec["arch"])
    params = {k: _tuples(v) for k, v in spec["params"].items()}
    return cls(**params)


def _tuples(v):
    return tuple(_tuples(x) for x in v) if isinstance(v, list) else v


def options_of(spec: dict) -> MeasureOptions:
    """The options the task's (first) measurement runs with: what ``seprank measure``
    would be given for it (verify: its seed and budget, the rest measure's defaults)."""
    if spec["task"] == "verify":
        return MeasureOptions(seed=spec["seed"],
                              max_samples=spec["max_samples"] or DEFAULT_BUDGET)
    return MeasureOptions(method=spec["method"], strategy=spec["strategy"], seed=spec["seed"],
                          prime=spec["prime"], max_samples=spec["max_samples"])


def plan(spec: dict) -> dict:
    """Plan the task with the planner ``seprank measure`` uses
    (:func:`seprank.engine.planner.plan`): ``plan`` (strategy, prime, budget, method,
    sampler), ``est_seconds`` (expected, from the strategy's cost model) and ``est_bytes``
    (its estimated peak memory, with a worker's own); both are estimates, not measured."""
    try:
        net = build_net(spec)
    except SeprankError:
        raise
    except Exception as exc:  # e.g. a parameter the class does not take: the config's fault
        raise ConfigError(f"{type(exc).__name__}: {exc}") from None
    mp = plan_measurement(net, spec["partition"], options_of(spec), inputs=False)
    runs = 3 if spec["task"] == "verify" else 1  # verify also measures two other partitions
    cost = mp.estimate
    spec["plan"] = mp.summary()
    spec["est_bytes"] = int(BASE_BYTES if cost is None or cost.peak_bytes is None
                            else cost.peak_bytes)
    spec["est_seconds"] = float(0.0 if cost is None or cost.seconds is None
                                else cost.seconds) * runs
    return spec


def memory_refusal(spec: dict, worker_bytes: int | None) -> str | None:
    """The refusal message when the task's estimated peak exceeds a worker's memory."""
    need = spec.get("est_bytes")
    if worker_bytes is None or need is None or need <= worker_bytes:
        return None
    gib = 2**30
    return (
        f"refused: estimated peak memory {need / gib:,.2f} GiB exceeds the worker's "
        f"{worker_bytes / gib:,.2f} GiB (lower max_samples or the sizes, or use workers "
        "with more memory: --workers fewer, or --worker-memory)"
    )


def _host() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def run_guarded(work) -> dict:
    """``work()``'s dict with status ``done``, or the error as ``failed`` / ``refused``
    (``retry``: whether another attempt could help, False for a SeprankError: the input
    is refused, deterministically); with ``seconds`` and ``host``. Ctrl-C propagates."""
    t0 = time.perf_counter()
    try:
        out = work()
        out.update(status="done")
    except MeasurementInterrupted:
        raise KeyboardInterrupt from None
    except TooBigError as exc:
        out = {"status": "refused", "error": f"refused: {exc}", "retry": False}
    except SeprankError as exc:
        out = {"status": "failed", "error": f"{type(exc).__name__}: {exc}", "retry": False}
    except Exception as exc:  # recorded, and retried a bounded number of times
        tb = traceback.format_exc(limit=-3).strip().splitlines()
        out = {"status": "failed", "error": f"{type(exc).__name__}: {exc}", "retry": True,
               "traceback": tb[-6:]}
    out["seconds"] = round(time.perf_counter() - t0, 4)
    out["host"] = _host()
    return out


def run_task(spec: dict) -> dict:
    """Run one task; return ``{"status": done | failed | refused, ...}``.

    ``done`` carries ``measurement`` (Measurement.to_dict()) and, for verify, ``extra``
    (the verify row). An error is returned, not raised (:func:`run_guarded`).
    KeyboardInterrupt propagates.
    """
    return run_guarded(lambda: _run(spec))


def _run(spec: dict) -> dict:
    """The work of one task (:func:`run_task` catches what it raises)."""
    net = build_net(spec)
    if spec["task"] == "verify":
        row, m = verdict.verify_one(net, seed=spec["seed"], with_measurement=True,
                                   max_samples=options_of(spec).max_samples)
        out = {"measurement": m.to_dict(), "extra": row}
    elif spec["task"] == "measure":
        m = measure(net, spec["partition"], method=spec["method"], seed=spec["seed"],
                    prime=spec["prime"], strategy=spec["strategy"],
                    max_samples=spec["max_samples"])
        out = {"measurement": m.to_dict(), "extra": None}
    else:
        raise ValueError(f"task={spec['task']!r} must be one of {', '.join(KINDS)}")
    return out
