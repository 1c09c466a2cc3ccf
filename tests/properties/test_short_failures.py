"""A failing seprank.testing assertion reads short under pytest: the AssertionError and its
reproducing command come first, with no library source (``__tracebackhide__``)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FAILING = '''
import seprank
from seprank.testing import assert_rank_within_bounds


def test_wrong_bound():
    net = seprank.LinearSelfAttention(depth=1, width=2, heads=1, seq_len=4)
    assert_rank_within_bounds(net, upper=2)
'''


def test_a_failing_rank_bound_shows_the_assertion_not_library_source(tmp_path):
    (tmp_path / "test_user.py").write_text(FAILING)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "test_user.py"], cwd=tmp_path, capture_output=True, text=True,
                       env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=120)
    out = r.stdout
    assert r.returncode == 1, out
    assert "AssertionError: rank 3 > upper bound 2 (VIOLATED)" in out
    assert "raise AssertionError" not in out and "testing.py" not in out.split("short test")[0]
    failure = out[out.index("test_wrong_bound _"):out.index("short test summary")]
    assert len(failure.splitlines()) < 15, failure
