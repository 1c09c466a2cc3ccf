"""Mutation testing of seprank's core modules with cosmic-ray (not part of the test run).

    pip install -e '.[test,mutation]'
    nice python tests/mutation.py                          # every module in pyproject
    nice python tests/mutation.py seprank/algebra/blas_elimination.py         # one module
    nice python tests/mutation.py seprank/algebra/rank.py --minutes 20   # stop; rerun resumes
    nice python tests/mutation.py seprank/algebra/rank.py --recheck      # survivors, current tests
    python tests/mutation.py --count                       # how many mutants, no run

The modules, the tests that guard each one, the operators left out and the per-mutant
time limit are in pyproject.toml, ``[tool.seprank.mutation]``. For each module a scratch
copy of the working tree is made (cosmic-ray edits files in place: the checkout is never
touched), the module's tests run once under coverage (tests/_mutation_tests.py), and each
mutant runs only the tests that execute a line it changed (``-x``, fastest first, with a
per-test timeout; a mutant whose tests hang or crash the interpreter counts as killed).
The session is kept in ``mutation-results/`` and resumed by the next call unless the
module changed (``--fresh`` starts over). A report per module (score and every surviving
mutant's diff) is written there and a summary table printed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
SKIP = {".git", ".venv", ".hypothesis", "__pycache__", ".pytest_cache", "mutation-results",
        "seprank-results", "build"}


def load_config(root: Path = ROOT) -> dict:
    """The ``[tool.seprank.mutation]`` table of pyproject.toml."""
    with (root / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)["tool"]["seprank"]["mutation"]


def _copy_tree(dst: Path) -> None:
    shutil.copytree(ROOT, dst, ignore=lambda d, names: [n for n in names if n in SKIP])


def _pytest_args(cfg: dict) -> list[str]:
    return ["-x", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-o", "addopts=",
            f"--timeout={cfg['test-timeout']}", "--timeout-method=thread",
            *cfg.get("pytest-args", [])]


def _cr_config(module: str, tests: list[str], cfg: dict, scratch: Path, full: bool) -> str:
    run = [sys.executable, "tests/_mutation_tests.py", "run", module, str(scratch / "map.json"),
           str(scratch / "orig.py"), "--", *_pytest_args(cfg), *tests]
    if full:  # every test for every mutant (checks the selection)
        run = [sys.executable, "-m", "pytest", *_pytest_args(cfg), *tests]
    lines = [
        "[cosmic-ray]",
        f"module-path = {json.dumps(module)}",
        f"timeout = {float(cfg['mutant-timeout'])}",
        "excluded-modules = []",
        f"test-command = {json.dumps(shlex.join(run))}",
        "[cosmic-ray.distributor]",
        'name = "local"',
        "[cosmic-ray.filters.operators-filter]",
        f"exclude-operators = {json.dumps(cfg.get('exclude-operators', []))}",
    ]
    return "\n".join(lines) + "\n"


def _counts(db: Path) -> dict:
    con = sqlite3.connect(db)
    total = con.execute("select count(*) from mutation_specs").fetchone()[0]
    rows = con.execute("select worker_outcome, test_outcome from work_results").fetchall()
    con.close()
    out = {"mutants": total, "skipped": 0, "killed": 0, "survived": 0, "incompetent": 0,
           "errors": 0, "pending": 0}
    for worker, test in rows:
        w, t = worker.lower(), (test or "").lower()
        if w == "skipped":
            out["skipped"] += 1  # left out by the operator filter
        elif t == "survived":
            out["survived"] += 1
        elif t == "killed":  # a test failed, crashed the interpreter or timed out
            out["killed"] += 1
        elif t == "incompetent":
            out["incompetent"] += 1
        else:  # cosmic-ray's own worker failed (no test outcome): not counted
            out["errors"] += 1
    out["pending"] = total - len(rows)
    run = out["killed"] + out["survived"]
    out["score"] = round(100.0 * out["killed"] / run, 1) if run else None
    return out


def _survivors(db: Path) -> list[str]:
    con = sqlite3.connect(db)
    rows = con.execute(
        "select s.module_path, s.start_pos_row, s.operator_name, r.diff from work_results r "
        "join mutation_specs s on s.job_id = r.job_id where lower(r.test_outcome) = 'survived' "
        "order by s.start_pos_row"
    ).fetchall()
    con.close()
    return [f"line {row} {op}\n{diff}" for _, row, op, diff in rows]


def _source_hash(module: str) -> str:
    return hashlib.sha256((ROOT / module).read_bytes()).hexdigest()


def _exec(work: Path, env: dict, db: Path, minutes: float | None) -> str:
    """cosmic-ray exec on the pending mutants: 'done', or 'time' / 'interrupted' when
    stopped by the budget or Ctrl-C (what is done stays in the session; a rerun resumes)."""
    proc = subprocess.Popen(["cosmic-ray", "exec", "cr.toml", str(db)], cwd=work, env=env,
                            stdout=subprocess.DEVNULL, start_new_session=True)
    try:
        proc.wait(timeout=None if minutes is None else 60 * minutes)
    except (subprocess.TimeoutExpired, KeyboardInterrupt) as exc:
        os.killpg(proc.pid, signal.SIGTERM)  # cosmic-ray and the mutant's tests it started
        proc.wait()
        return "time" if isinstance(exc, subprocess.TimeoutExpired) else "interrupted"
    if proc.returncode:
        raise SystemExit(f"cosmic-ray exec failed (exit {proc.returncode})")
    return "done"


def run_module(module: str, tests: list[str], cfg: dict, out: Path, opts) -> dict:
    """Mutate one module; resumes the session in ``out`` when the module is unchanged."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    name = module.replace("/", "_").removesuffix(".py")
    out.mkdir(parents=True, exist_ok=True)
    db, meta_file = out / f"{name}.sqlite", out / f"{name}.json"
    meta = json.loads(meta_file.read_text()) if meta_file.exists() else {}
    resume = (db.exists() and meta.get("source") == _source_hash(module) and not opts.fresh
              and not opts.count)
    with tempfile.TemporaryDirectory(prefix="seprank-mut-") as tmp:
        scratch = Path(tmp)
        work = scratch / "tree"
        _copy_tree(work)
        shutil.copy(work / module, scratch / "orig.py")
        env["PYTHONPATH"] = str(work)  # the scratch copy's seprank, not the installed one
        env["NUMBA_CACHE_DIR"] = str(scratch / "numba-cache")
        (work / "cr.toml").write_text(_cr_config(module, tests, cfg, scratch, opts.full))

        def cr(*args):
            subprocess.run(["cosmic-ray", *args], cwd=work, env=env, check=True,
                           stdout=subprocess.DEVNULL)

        if opts.count:
            db = scratch / "count.sqlite"
        if not resume:
            db.unlink(missing_ok=True)
            cr("init", "cr.toml", str(db))
            subprocess.run(["cr-filter-operators", str(db), "cr.toml"], cwd=work, env=env,
                           check=True)
            meta = {"source": _source_hash(module), "seconds": 0}
            if not opts.count:
                meta_file.write_text(json.dumps(meta))  # a killed run resumes from here
        if opts.count:
            result = _counts(db)
            return {"module": module, "mutants": result["mutants"] - result["skipped"]}
        if opts.recheck:  # survivors run again (with the tests as they are now)
            con = sqlite3.connect(db)
            con.execute("delete from work_results where lower(test_outcome) = 'survived'")
            con.commit()
            con.close()
        t0 = time.time()
        # which tests execute which line: one run of the module's tests under coverage
        mapped = subprocess.run([sys.executable, "tests/_mutation_tests.py", "map", module,
                                 str(scratch / "map.json"), "--", *_pytest_args(cfg), *tests],
                                cwd=work, env=env, stdout=subprocess.DEVNULL)
        if mapped.returncode:
            raise SystemExit(f"{module}: its tests fail unmutated; fix them first")
        stopped = _exec(work, env, db, opts.minutes)
        meta["seconds"] = meta.get("seconds", 0) + round(time.time() - t0)
        meta_file.write_text(json.dumps(meta))
    result = _counts(db)
    result.update(module=module, seconds=meta["seconds"], tests=tests, run=stopped)
    survivors = _survivors(db)
    (out / f"{name}.txt").write_text(
        json.dumps(result, indent=1) + "\n\nSURVIVORS\n\n" + "\n".join(survivors)
    )
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("modules", nargs="*", help="modules to mutate (default: all configured)")
    ap.add_argument("--out", default=str(ROOT / "mutation-results"))
    ap.add_argument("--count", action="store_true", help="count the mutants, run nothing")
    ap.add_argument("--minutes", type=float, help="stop each module after this long (resume "
                    "later: the session in --out keeps what is done)")
    ap.add_argument("--fresh", action="store_true", help="start over, not resume")
    ap.add_argument("--recheck", action="store_true", help="run the survivors again")
    ap.add_argument("--tests", nargs="+", help="run these tests instead of the module's own "
                    "(with --recheck: a narrower set that kills a survivor counts)")
    ap.add_argument("--full", action="store_true", help="every test for every mutant, no "
                    "coverage-guided selection (with --recheck: checks the selection)")
    args = ap.parse_args(argv)
    cfg = load_config()
    table = cfg["modules"]
    modules = args.modules or list(table)
    unknown = [m for m in modules if m not in table]
    if unknown:
        ap.error(f"modules {unknown} are not in [tool.seprank.mutation.modules]")
    results = []
    for m in modules:
        r = run_module(m, args.tests or table[m], cfg, Path(args.out), args)
        results.append(r)
        print(json.dumps(r), flush=True)
        if r.get("run") == "interrupted":  # Ctrl-C: stop here, the session keeps the rest
            break
    if not args.count:
        killed = sum(r["killed"] for r in results)
        survived = sum(r["survived"] for r in results)
        print(f"total: {killed} killed, {survived} survived, "
              f"score {100.0 * killed / max(killed + survived, 1):.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
