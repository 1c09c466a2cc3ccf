"""Issue 24, item 5: seprank imports and runs with HOME and the numba cache folder
unwritable: the compiled kernels are then compiled uncached, said once on stderr.

The folders are made read-only with chmod, as the same user. Root ignores file modes,
and numba would then still write its cache next to the sources; as root the child also
removes numba's cache locators, which is what numba sees as a user who can write neither
HOME, NUMBA_CACHE_DIR nor the package folder ("cannot cache function ...: no locator
available")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import os, sys
if os.geteuid() == 0:  # root writes through chmod: remove the locators instead
    import numba.core.caching as c
    c.CacheImpl._locator_classes = []
import seprank
from seprank.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _run(tmp_path, *argv, timeout=300):
    ro = tmp_path / "ro"
    (ro / "home").mkdir(parents=True)
    (ro / "cache").mkdir()
    for d in (ro / "home", ro / "cache", ro):
        d.chmod(0o555)
    env = dict(os.environ, HOME=str(ro / "home"), NUMBA_CACHE_DIR=str(ro / "cache"),
               XDG_CACHE_HOME=str(ro / "home"), PYTHONPATH=str(ROOT))
    try:
        return subprocess.run([sys.executable, "-c", CHILD, *argv], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=timeout)
    finally:
        for d in (ro, ro / "home", ro / "cache"):
            d.chmod(0o755)


def test_imports_and_measures_by_float_without_a_writable_cache(tmp_path):
    r = _run(tmp_path, "measure", "--depth", "1", "--width", "2", "--seq-len", "4",
             "--method", "float", "--quiet")
    assert r.returncode == 0, r.stderr
    assert "separation rank (measured, float)" in r.stdout
    assert r.stderr.count("no writable cache folder") == 1 and "Traceback" not in r.stderr


@pytest.mark.slow
def test_modular_measurement_compiles_uncached(tmp_path):
    r = _run(tmp_path, "measure", "--depth", "2", "--width", "2", "--seq-len", "4", "--quiet")
    assert r.returncode == 0, r.stderr
    assert "separation rank (measured, modular): 18  [exact, proved]" in r.stdout
    assert r.stderr.count("no writable cache folder") == 1 and "Traceback" not in r.stderr
