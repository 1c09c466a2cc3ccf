"""The "compiling kernels" notice is printed only when numba's compiler runs: not when
the kernels are in memory already (a second measurement in a notebook) or loaded from a
fresh on-disk cache; warm_up reports the compile time it measured."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from seprank.engine import kernels, warm_up
from seprank.engine.measure import measure
from seprank.nets import LinearSelfAttention


def _fake(overloads=(), index=None, cached=True, misses=0):
    """A stand-in for a numba dispatcher: compiled overloads, an on-disk index (None: the
    file is missing or stale, so numba's loader returns {}), or no cache at all."""
    cache_file = SimpleNamespace(_load_index=lambda: dict(index or {}))
    cache = SimpleNamespace(_cache_file=cache_file) if cached else SimpleNamespace()
    return SimpleNamespace(overloads=dict.fromkeys(overloads), _cache=cache,
                           _cache_misses={"sig": misses} if misses else {})


@pytest.mark.parametrize("ds, want", [
    ([_fake(overloads=["sig"])], False),          # in memory: nothing compiles
    ([_fake(index={"sig": 1})], False),           # fresh cache entry: loaded
    ([_fake()], True),                            # no (or a stale) index: compiles
    ([_fake(cached=False)], True),                # no cache folder: compiles every run
    ([_fake(overloads=["s"]), _fake()], True),    # any one kernel compiling is enough
    ([], False),
])
def test_will_compile(ds, want):
    assert kernels.will_compile(ds) is want


def test_compiling_message_says_when_nothing_is_cached():
    assert kernels.compiling_message([_fake()]) == kernels.COMPILING
    assert kernels.compiling_message([_fake(cached=False)]) == kernels.COMPILING_UNCACHED
    assert "about" not in kernels.COMPILING  # no time quoted that was not measured


def test_unexpected_numba_internals_say_nothing():
    assert kernels.will_compile([SimpleNamespace()]) is False


def test_compile_count_sums_the_cache_misses():
    assert kernels.compile_count([_fake(misses=2), _fake(misses=3), _fake()]) == 5


def test_real_kernels_in_memory_do_not_compile_again():
    """After one measurement in this process the kernels are in memory: a second one
    says nothing, and numba's compile count does not move."""
    net = LinearSelfAttention(depth=2, width=2, seq_len=4)
    measure(net)
    assert kernels.will_compile() is False
    lines, before = [], kernels.compile_count()
    measure(net, progress=lines.append)
    assert not any(x.startswith("compiling") for x in lines)
    assert kernels.compile_count() == before


def test_warm_up_says_nothing_when_nothing_compiles(monkeypatch):
    said = []
    monkeypatch.setattr(kernels, "will_compile", lambda ds=None: False)
    assert warm_up.warm_up(said.append) is False and said == []


def test_warm_up_says_so_and_reports_the_measured_time_when_it_compiles(monkeypatch):
    said, counts = [], iter([0, 7])
    monkeypatch.setattr(kernels, "will_compile", lambda ds=None: True)
    monkeypatch.setattr(kernels, "compile_count", lambda ds=None: next(counts))
    assert warm_up.warm_up(said.append) is True
    assert said[0] == kernels.compiling_message()
    assert said[1].startswith("compiled kernels in ") and said[1].endswith(" s")
    assert len(said) == 2


def test_warm_up_predicted_a_compile_that_did_not_happen_reports_no_time(monkeypatch):
    said = []
    monkeypatch.setattr(kernels, "will_compile", lambda ds=None: True)
    monkeypatch.setattr(kernels, "compile_count", lambda ds=None: 4)
    assert warm_up.warm_up(said.append) is False and len(said) == 1


def test_a_measurement_asks_only_about_the_kernels_it_runs(monkeypatch):
    """The flint engine runs no BLAS kernel: a BLAS kernel that would compile is no
    reason to say "compiling" there, but is with the blas engine."""
    blas = set(map(id, kernels._dispatchers())) - set(map(id, kernels._dispatchers(False)))
    assert blas  # the BLAS engine's dispatchers exist and are left out with blas=False

    def will(ds=None):
        return any(id(d) in blas for d in (ds or kernels._dispatchers()))

    monkeypatch.setattr(kernels, "will_compile", will)
    net = LinearSelfAttention(depth=1, width=2, seq_len=4)
    for engine, said in (("flint", False), ("blas", True)):
        lines = []
        measure(net, rank_engine=engine, progress=lines.append)
        assert any(x.startswith("compiling") for x in lines) is said, engine


def test_a_run_that_evaluates_no_grid_does_not_ask_about_the_attention_kernel(monkeypatch):
    """The catalecticant strategy builds no grid: the attention kernel is never called
    there (so never compiled, nor cached), and must not make it say "compiling"; a grid
    strategy does call it."""
    grid = set(map(id, kernels._dispatchers())) - set(map(id, kernels._dispatchers(grid=False)))
    assert len(grid) == 1  # the attention kernel, left out with grid=False
    monkeypatch.setattr(kernels, "will_compile",
                        lambda ds=None: any(id(d) in grid for d in ds or ()))
    net = LinearSelfAttention(depth=2, width=2, seq_len=4)
    for strategy, said in (("catalecticant", False), ("direct", True), ("graded", True)):
        lines = []
        m = measure(net, strategy=strategy, progress=lines.append)
        assert m.strategy == strategy
        assert any(x.startswith("compiling") for x in lines) is said, strategy


@pytest.mark.parametrize("depth,extra,rank", [("3", [], 232), ("3", ["--strategy", "direct"], 232),
                                              ("1", [], 3)])  # depth 1: matrices of one leaf
def test_the_notice_prints_on_a_first_run_and_not_on_the_second(tmp_path, depth, extra, rank):
    """With an empty numba cache the README's command compiles and says so; run again,
    it loads the cached kernels and says nothing (it said so on every run when it asked
    about a kernel the run never calls)."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    argv = [sys.executable, "-m", "seprank", "measure", "--depth", depth, "--width", "2",
            "--seq-len", "4", "--json", *extra]
    runs = [subprocess.run(argv, env=env, capture_output=True, text=True, timeout=240)
            for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0]
    assert kernels.COMPILING in runs[0].stderr
    assert "compiling" not in runs[1].stderr
    assert f'"rank": {rank}' in runs[1].stdout


def test_warm_up_leaves_no_kernel_to_compile(tmp_path):
    """From an empty numba cache, warm_up compiles every kernel, the attention kernel
    included (a measurement through the catalecticant strategy never calls it)."""
    import os
    import subprocess
    import sys

    code = ("from seprank.engine import kernels, warm_up; "
            "print(warm_up.warm_up(), kernels.will_compile())")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba")),
                       timeout=240)
    assert r.returncode == 0 and r.stdout.split() == ["True", "False"], r.stderr[-500:]
