"""Progress through ``tqdm.auto``: a widget in a Jupyter notebook (with ipywidgets
installed; without it, plain lines as in a log), a bar on stderr in a terminal, and plain
lines (no carriage returns) in a log or a pipe.

:func:`make_bar` gives a tqdm bar where one can be drawn (a notebook, or a stream that is
a terminal) and None elsewhere; :func:`write` prints a line without breaking a bar that
is being drawn (``tqdm.write``). Ctrl-C is not caught here: a bar is closed by whoever
made it, in a ``finally``.
"""

from __future__ import annotations

import sys
import warnings

from tqdm import std as tqdm_std

with warnings.catch_warnings():
    # in a notebook without ipywidgets tqdm.auto warns once and falls back to text bars:
    # that fallback is what seprank wants there, so the warning is not passed on
    warnings.simplefilter("ignore", tqdm_std.TqdmWarning)
    from tqdm import autonotebook
    from tqdm.auto import tqdm as auto_tqdm


def in_notebook() -> bool:
    """Whether ``tqdm.auto`` picked the notebook widget (a Jupyter kernel with ipywidgets).

    Returns
    -------
    bool
    """
    return autonotebook.tqdm.__module__ == "tqdm.notebook"


def interactive(stream=None) -> bool:
    """Whether a live bar can be drawn: in a notebook, or when ``stream`` is a terminal.

    Parameters
    ----------
    stream : file-like, optional
        Where a bar would go (default: ``sys.stderr``, looked up at call time).

    Returns
    -------
    bool
    """
    stream = sys.stderr if stream is None else stream
    try:
        tty = bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # no isatty, or a closed stream
        tty = False
    return tty or in_notebook()


def make_bar(total: int | None, desc: str, *, unit: str = "it", initial: int = 0,
             stream=None, leave: bool = True, force: bool = False,
             bar_format: str | None = None):
    """A ``tqdm.auto`` bar, or None where none can be drawn (see :func:`interactive`).

    Parameters
    ----------
    total : int or None
        The bar's end (None: a counter with no end).
    desc : str
        The label before the bar.
    unit : str
        What is counted.
    initial : int
        The count the bar starts at (e.g. tasks already in the store).
    stream : file-like, optional
        Where the bar goes in a terminal (default: ``sys.stderr`` at call time).
    leave : bool
        Keep the final bar on screen when it is closed.
    force : bool
        Draw a bar even on a stream that is not a terminal (tests).
    bar_format : str, optional
        tqdm's ``bar_format`` (default: tqdm's own).

    Returns
    -------
    tqdm.tqdm or None
    """
    stream = sys.stderr if stream is None else stream
    if not (force or interactive(stream)):
        return None
    return auto_tqdm(total=total, desc=desc, unit=unit, initial=initial, file=stream,
                   leave=leave, dynamic_ncols=True, mininterval=0.2,
                   bar_format=bar_format)


def write(msg: str, stream=None) -> None:
    """Print one line on ``stream`` (default stderr) above any bar being drawn.

    Parameters
    ----------
    msg : str
        The line.
    stream : file-like, optional
        Default ``sys.stderr``, looked up at call time.
    """
    tqdm_std.tqdm.write(msg, file=sys.stderr if stream is None else stream)
    flush = getattr(sys.stderr if stream is None else stream, "flush", None)
    if flush is not None:
        flush()
