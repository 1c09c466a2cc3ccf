"""Progress through tqdm.auto: a bar on a terminal (or a notebook widget), plain lines
at most every `every` seconds in a log or a pipe (no carriage returns), nothing with
--quiet; the measurement's lines go through tqdm.write and its bar only where one can
be drawn."""

from __future__ import annotations

import io

import pytest

from seprank.cli import main
from seprank.engine import bars
from seprank.engine.measure import measure
from seprank.nets import LinearSelfAttention
from seprank.sweeps.progress import Progress


def _finish(p: Progress) -> None:
    p.done, p.failed, p.est_done, p.est_left = 2, 1, 3.0, 0.0
    p.update()
    p.close()


def test_disabled_shows_nothing():
    s = io.StringIO()
    p = Progress(4, 1, enabled=False, stream=s, bar=True)
    _finish(p)
    assert s.getvalue() == "" and p.bar is None


def test_a_log_gets_plain_lines_at_most_every_interval():
    s = io.StringIO()
    p = Progress(4, 1, stream=s, every=3600.0, label="sweep t")
    assert p.bar is None  # a StringIO is not a terminal and this is not a notebook
    p.update()  # the first line at once
    p.running = 1
    p.update()  # within the interval: nothing
    _finish(p)  # close always prints the last line
    lines = s.getvalue().splitlines()
    assert "\r" not in s.getvalue() and len(lines) == 2
    assert lines[0] == ("sweep t: 1/4 (0 done, 0 running, 0 failed, 0 refused, 1 skipped: "
                        "in the store)")
    assert lines[-1].startswith("sweep t: 4/4 (2 done, 1 running, 1 failed, 0 refused, "
                                "1 skipped: in the store")


def test_a_terminal_gets_a_tqdm_bar_with_the_counts():
    s = io.StringIO()
    p = Progress(4, 1, stream=s, label="sweep t", bar=True)
    assert p.bar is not None and p.bar.n == 1  # the skipped tasks count from the start
    _finish(p)
    out = s.getvalue()
    assert "\r" in out and "sweep t" in out and "4/4" in out  # tqdm redraws in place
    assert "2 done" in out.rsplit("\r", 1)[-1] and "1 failed" in out.rsplit("\r", 1)[-1]
    assert p.bar is None


def test_eta_from_the_estimated_costs():
    p = Progress(4, 0, enabled=False)
    assert p.eta() is None
    p.est_done, p.est_left = 1.0, 3.0
    assert p.eta() > 0 and "left (estimate)" in p.counts()
    p.t0 -= 3600.0  # an hour gone on tasks estimated at 1 s: the estimates as they are
    assert p.eta() == 3.0
    p.est_done = 1000.0  # done tasks that account for the elapsed time: scaled by them
    assert 3600 * 3 / 1000 <= p.eta() <= 3610 * 3 / 1000


def test_not_interactive_without_a_terminal():
    assert bars.interactive(io.StringIO()) is False and bars.in_notebook() is False
    assert bars.make_bar(10, "x", stream=io.StringIO()) is None


@pytest.fixture
def grid(tmp_path):
    g = tmp_path / "g.toml"
    g.write_text('[grid]\nname = "one"\nmethods = ["modular"]\nseeds = [0]\n[params]\n'
                 "depth = [1]\nwidth = [2]\nseq_len = [4]\n")
    return g


def test_sweep_quiet_prints_nothing_on_stderr(grid, tmp_path, capsys):
    assert main(["sweep", str(grid), "--db", str(tmp_path / "r.sqlite"), "--executor",
                 "serial", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_sweep_progress_goes_to_stderr_as_lines_in_a_pipe(grid, tmp_path, capsys):
    assert main(["sweep", str(grid), "--db", str(tmp_path / "r.sqlite"), "--executor",
                 "serial"]) == 0
    out, err = capsys.readouterr()
    assert "sweep one: 1 tasks, 0 already in the store" in err and "\r" not in err
    assert err.splitlines()[-1].startswith("sweep one: 1/1 (1 done, 0 running, 0 failed")
    assert "sweep one" not in out  # stdout holds the result only


def test_measurement_lines_on_stderr_and_a_bar_only_on_a_terminal(capsys, monkeypatch):
    net = LinearSelfAttention(depth=2, width=2, seq_len=4)
    measure(net, strategy="direct", progress=True)
    err = capsys.readouterr().err
    assert "samples 16x16: rank 16" in err and "\r" not in err  # a pipe: lines, no bar
    monkeypatch.setattr(bars, "interactive", lambda stream=None: True)
    measure(net, strategy="direct", progress=True)
    err = capsys.readouterr().err
    assert "samples 24x24: rank 18" in err
    assert "measure: samples 24 of at most 6000" in err and "rank 18" in err


def test_a_callable_progress_gets_the_lines_and_no_bar(capsys, monkeypatch):
    monkeypatch.setattr(bars, "interactive", lambda stream=None: True)
    lines = []
    measure(LinearSelfAttention(depth=2, width=2, seq_len=4), strategy="direct",
            progress=lines.append)
    assert any("rank 18" in x for x in lines) and capsys.readouterr().err == ""
