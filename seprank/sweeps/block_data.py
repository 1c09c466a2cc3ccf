"""A catalecticant measurement's finished blocks as committed data: one JSON line per block.

The result store keys a block by the code that ranked it (:mod:`seprank.sweeps.block_tasks`),
so a store does not outlive a checkout. A block's rank, though, is a fact about one matrix:
the block k of the network's coefficient matrix, for the weights drawn from the seed, over
GF(p). A data file keeps each finished block under that identity (architecture, parameters,
partition, seed, prime, k) with its rank, shape and times, the proved one-head term it is
compared with, the seprank version and the date that ranked it. ``seprank blocks --data
FILE`` appends each block as it finishes (written whole and synced: a killed run loses
only the block in flight) and, on a new machine or a new checkout, takes the blocks the
file holds as done, so a measurement of many hours is committed and resumed in parts.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path

from seprank import _version
from seprank.errors import ConfigError, SeprankError
from seprank.paths import atomic_write
from seprank.theory.architecture_bounds import block_bounds

#: The fields that name a block (its identity); everything else in a line is its result.
IDENTITY = ("arch", "params", "partition", "seed", "prime", "block")


def identity(spec: dict) -> str:
    """The block's identity as canonical JSON (a dict key)."""
    return json.dumps({k: spec[k] for k in IDENTITY}, sort_keys=True)


def read(path: Path) -> dict[str, dict]:
    """identity -> line of the data file (empty where the file does not exist yet).

    Raises
    ------
    ConfigError
        A line that is not a block record, naming the file and the line.
    """
    out: dict[str, dict] = {}
    if not path.exists():
        return out
    with open(path, encoding="utf-8") as fh:
        for no, text in enumerate(fh, 1):
            if not text.strip():
                continue
            try:
                line = json.loads(text)
                key = identity(line)
                block = line["result"]["block"]
                ok = isinstance(block["rank"], int) and 0 <= block["rank"] <= min(block["shape"])
            except (ValueError, KeyError, TypeError):
                ok = False
            if not ok:
                raise ConfigError(f"--data {path}:{no}: not a block record of seprank blocks")
            if key in out and out[key]["result"]["block"]["rank"] != block["rank"]:
                raise ConfigError(f"--data {path}:{no}: block {line['block']} recorded twice "
                                  "with different ranks")
            out[key] = line
    return out


def proved_terms(net, partition) -> dict:
    """other_s_degree -> the proved one-head term min(b_k, a_{D-k}) the block is compared
    with (:func:`seprank.theory.architecture_bounds.block_bounds`; empty where not known)."""
    try:
        return block_bounds(net, partition)
    except SeprankError:
        return {}


def append(path: Path, spec: dict, extra: dict, engine: str, term=None) -> None:
    """Append one finished block as a line (:func:`seprank.paths.atomic_write`: synced,
    never through a link, nothing partial on an error), with the proved term
    ``term`` it is compared with (None: not known). The term is written beside the result,
    never read back as part of it: the label step computes its own."""
    line = {k: spec[k] for k in IDENTITY}
    line["result"] = extra
    line["proved_term"] = None if term is None else int(term)
    line["ranked_by"] = {"seprank": _version.__version__, "engine": engine,
                         "date": datetime.date.today().isoformat()}
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path, "a") as fh:
        fh.write(json.dumps(line, sort_keys=True) + "\n")


def take_into(store, specs: list[dict], lines: dict[str, dict], path: Path) -> int:
    """Store, as done, each block of ``specs`` that the file holds and the store lacks.

    Returns
    -------
    int
        How many blocks were taken from the file.
    """
    status = store.status_of(s["key"] for s in specs)
    taken = 0
    for s in specs:
        line = lines.get(identity(s))
        if line is None or status.get(s["key"]) == "done":
            continue
        store.put(s, {"status": "done", "measurement": None, "extra": line["result"],
                      "seconds": float(line["result"]["block"].get("seconds", 0.0)),
                      "host": f"data:{path.name}"})
        taken += 1
    return taken
