"""The ``seprank`` command: a thin layer over the Python API, one module per sub-command
(``_common`` holds what they share; none imports this package, so there is no cycle).

Errors from the package become one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys

from seprank._version import __version__
from seprank.cli import (
    archs,
    blocks,
    bounds,
    certify,
    figures,
    guide,
    measure,
    results,
    study,
    sweep,
    transition,
    verify,
)
from seprank.cli._common import _Parser, one_line
from seprank.errors import RunAborted, SeprankError


def _build_parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="seprank", description="Separation-rank analysis of self-attention.",
                 epilog="exit codes: 0 done, 1 verify found a proved bound violated, or "
                 "sweep/verify/transition stored a failed or refused task, or the store "
                 "could not be written or no Dask worker was left mid-run (finished tasks "
                 "kept), or an output could not be written (no partial file left), or "
                 "check-certificate found a certificate false, 2 bad input or "
                 "refused (one line on stderr), 130 interrupted")
    ap.add_argument("--version", action="version", version=f"seprank {__version__}")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=_Parser)

    measure.add_parser(sub)
    bounds.add_parser(sub)
    guide.add_parser(sub)
    verify.add_parser(sub)
    figures.add_parser(sub)
    transition.add_parser(sub)
    study.add_parser(sub)
    archs.add_parser(sub)
    certify.add_parsers(sub)
    sweep.add_parser(sub)
    blocks.add_parser(sub)
    results.add_parser(sub)
    return ap


COMMANDS = {
    "measure": measure.cmd_measure,
    "archs": archs.cmd_archs,
    "certify": certify.cmd_certify,
    "check-certificate": certify.cmd_check,
    "transition": transition.cmd,
    "study": study.cmd,
    "bounds": bounds.cmd,
    "guide": guide.cmd_guide,
    "verify": verify.cmd_verify,
    "figures": figures.cmd_figures,
    "sweep": sweep.cmd,
    "blocks": blocks.cmd,
    "results": results.cmd,
}


def _say(line: str) -> None:
    """One line on stderr; nothing if stderr itself cannot be written."""
    try:
        print(one_line(line), file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


#: errno values that mean an output stream could not be written (not an input error).
_OUTPUT_ERRNO = {errno.ENOSPC, errno.EIO, errno.EBADF, errno.EDQUOT, errno.EROFS,
                 errno.EFBIG}


def _readable_streams() -> None:
    """stdout and stderr escape what their encoding cannot write (a Latin-1 terminal and a
    non-UTF-8 file name) instead of failing mid-line."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):
            pass


def main(argv=None) -> int:
    _readable_streams()
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        code = int(COMMANDS[args.command](args) or 0)
        sys.stdout.flush()  # a full or closed stdout is said here, not at exit
        return code
    except RunAborted as exc:  # mid-run (store unwritable, no worker): what finished is kept
        _say(f"seprank: error: {exc}")
        return 1
    except SeprankError as exc:
        _say(f"seprank: error: {exc}")
        return 2
    except KeyboardInterrupt:
        _say("seprank: interrupted")
        return 130
    except BrokenPipeError:  # e.g. `seprank archs | head`: the reader left; not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except UnicodeEncodeError as exc:
        _say(f"seprank: error: the output cannot be written in {exc.encoding} "
             f"({exc.reason}); set PYTHONIOENCODING=utf-8")
        return 1
    except OSError as exc:
        if exc.errno not in _OUTPUT_ERRNO:
            raise
        _say(f"seprank: error: the output could not be written ({exc.strerror})")
        _quiet_stdout()
        return 1


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's last flush cannot fail again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
