"""Output never follows a link and never leaves a partial file: every writer of seprank
(certificates, CSVs, figures, text files, the experiments') goes through one atomic
writer; a link in the output folder is replaced, its target untouched; a write error is
one line, the documented exit code (1), and nothing partial left."""

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from seprank.errors import ConfigError, OutputError
from seprank.figures import csv_rows
from seprank.paths import atomic_write, check_out_dir, write_bytes, write_text
from tests.fuzz._cli import assert_one_line, run_cli

VICTIM = "precious: a file seprank has no business touching\n"


def _figure_save(path: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from seprank.figures.style import save

    fig, ax = plt.subplots(figsize=(1, 1))
    ax.plot([0, 1], [0, 1])
    save(fig, path.parent, path.stem)  # writes NAME.png and NAME.pdf


WRITERS = {
    "write_text": lambda p: write_text(p, "new"),
    "write_bytes": lambda p: write_bytes(p, b"new"),
    "atomic_write append": lambda p: atomic_write(p, "a").__enter__().write("x") and None,
    "csv write_rows": lambda p: csv_rows.write_rows(p, [{"a": 1}], ["a"]),
    "csv append_row": lambda p: csv_rows.append_row(p, {"a": 1}, ["a"]),
    "figure png": lambda p: _figure_save(p.with_suffix(".png")),
}
SUFFIX = {"figure png": ".png"}


def _linked(tmp_path: Path, name: str) -> tuple[Path, Path]:
    victim = tmp_path / "victim.txt"
    victim.write_text(VICTIM)
    out = tmp_path / "out"
    out.mkdir()
    link = out / name
    link.symlink_to(victim)
    return victim, link


@pytest.mark.parametrize("writer", [w for w in WRITERS if w != "atomic_write append"])
def test_a_link_at_the_target_is_replaced_never_written_through(writer, tmp_path):
    victim, link = _linked(tmp_path, "target" + SUFFIX.get(writer, ".csv"))
    WRITERS[writer](link)
    assert victim.read_text() == VICTIM
    assert link.exists() and not link.is_symlink()  # a regular file now, the link replaced
    assert not [p for p in link.parent.iterdir() if p.name.endswith(".tmp")]


def test_append_copies_the_old_rows_and_replaces_a_link(tmp_path):
    p = tmp_path / "rows.csv"
    csv_rows.append_row(p, {"a": 1}, ["a"])
    csv_rows.append_row(p, {"a": 2}, ["a"])
    assert p.read_text().split() == ["a", "1", "2"]
    victim, link = _linked(tmp_path, "rows.csv")
    csv_rows.append_row(link, {"a": 3}, ["a"])  # a link: its target is not appended to
    assert victim.read_text() == VICTIM and link.read_text().split() == ["a", "3"]


def test_the_out_folder_check_writes_nothing(tmp_path):
    victim, link = _linked(tmp_path, ".seprank-write-test")  # the old probe's name
    before = sorted(p.name for p in link.parent.iterdir())
    check_out_dir(link.parent)
    assert victim.read_text() == VICTIM
    assert sorted(p.name for p in link.parent.iterdir()) == before


@pytest.mark.parametrize("path", ["", "   "])
def test_an_empty_out_is_refused(path):
    with pytest.raises(ConfigError, match="is empty"):
        check_out_dir(path)


def test_certify_replaces_a_link_named_as_its_certificate(tmp_path, capsys, mps_certificate):
    from seprank.verdicts.certificate_format import certificate_name

    victim, link = _linked(tmp_path, certificate_name(mps_certificate))
    rc, out, err = run_cli(capsys, "certify", "--arch", "mps", "--param", "seq_len=4",
                           "--param", "phys_dim=2", "--param", "bond=2", "--partition", "0,1",
                           "--out", link.parent, "--quiet")
    assert rc == 0, err
    assert victim.read_text() == VICTIM and not link.is_symlink()
    assert run_cli(capsys, "check-certificate", link)[0] == 0


ERRORS = {"disk full": errno.ENOSPC, "quota": errno.EDQUOT, "I/O error": errno.EIO,
          "read-only file system": errno.EROFS}


@pytest.mark.parametrize("what", list(ERRORS))
def test_a_write_error_leaves_the_old_file_and_no_partial_one(what, tmp_path, monkeypatch):
    p = tmp_path / "c.json"
    p.write_text("old")

    def fail(fd):
        raise OSError(ERRORS[what], os.strerror(ERRORS[what]))

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(OutputError, match="c.json: cannot be written"):
        write_text(p, "new content")
    assert p.read_text() == "old" and [x.name for x in tmp_path.iterdir()] == ["c.json"]


def test_an_encoding_error_is_an_output_error(tmp_path):
    with pytest.raises(OutputError, match="cannot encode"):
        write_text(tmp_path / "x.txt", "\udcff", encoding="ascii")
    assert list(tmp_path.iterdir()) == []


def test_a_folder_at_the_target_is_refused(tmp_path):
    (tmp_path / "x").mkdir()
    with pytest.raises(OutputError, match="not a regular file"):
        write_text(tmp_path / "x", "new")


def _run(args, **kw):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.run([sys.executable, "-m", "seprank", *args], capture_output=True,
                          text=True, env={**env, **kw.pop("env", {})}, timeout=120, **kw)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_stdout_on_dev_full_is_one_line_exit_1():
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "seprank", "archs"], stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=120,
                           env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve()
                                                                 .parents[2])})
    assert_one_line(r.returncode, r.stderr, 1, "could not be written")


def test_a_closed_pipe_is_not_an_error():
    p = subprocess.Popen([sys.executable, "-m", "seprank", "archs"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve()
                                                               .parents[2])})
    p.stdout.close()
    err = p.stderr.read()
    assert p.wait(timeout=120) == 0 and "Traceback" not in err


def test_a_latin1_stdout_and_a_non_utf8_path_give_no_traceback(tmp_path):
    bad = os.fsdecode(b"cert-\xff.json")
    r = _run(["check-certificate", str(tmp_path / bad)], env={"PYTHONIOENCODING": "latin-1"})
    assert_one_line(r.returncode, r.stderr, 2, "cannot be read")


def _tmpfs(path: Path, size: str) -> bool:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                       capture_output=True)
    return r.returncode == 0


def test_a_full_disk_leaves_no_zero_byte_certificate(tmp_path, capsys, mps_certificate):
    disk = tmp_path / "small"
    disk.mkdir()
    if not _tmpfs(disk, "8k"):
        pytest.skip("needs root and a tmpfs mount (a small full disk)")
    try:
        fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
        try:  # fill the disk
            while os.write(fd, b"x" * 512):
                pass
        except OSError:
            pass
        finally:
            os.close(fd)
        rc, out, err = run_cli(capsys, "certify", "--arch", "mps", "--param", "seq_len=4",
                               "--param", "phys_dim=2", "--param", "bond=2", "--partition",
                               "0,1", "--out", disk, "--quiet")
        assert_one_line(rc, err, 1, "cannot be written")
        assert sorted(p.name for p in disk.iterdir()) == ["filler"]  # no 0-byte certificate
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)
