"""Running the CLI in this process, and the refusal contract every fuzz case checks."""

from seprank.cli import main


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    """``seprank ARGV`` in this process: (exit code, stdout, stderr)."""
    try:
        rc = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's own refusals
        rc = exc.code
    out, err = capsys.readouterr()
    return rc, out, err


def assert_one_line(rc: int, err: str, code: int = 2, words: str | None = None) -> None:
    """The refusal contract: the documented exit code, one line on stderr, no traceback."""
    lines = err.strip().splitlines()
    assert rc == code, (rc, err)
    assert len(lines) == 1 and "Traceback" not in err, err
    if words is not None:
        assert words in lines[0], lines[0]
