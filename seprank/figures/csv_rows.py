"""The one CSV reader and writer of the figures and the repository's scripts.

A CSV here is a header line of column names and one row per line, read as a list of
dicts. :func:`write_rows` writes the columns named, in that order (a missing value
empty, a key not among them left out); :func:`read_rows` reads them back, each value a
string unless ``types`` names a conversion; :func:`read_table` also gives the header (to
write a file back with the columns it had); :func:`append_row` adds one row, the header
first when the file is new.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from seprank.paths import atomic_write


def _cell(v, empty_nan: bool, digits: int | None):
    if isinstance(v, float):
        if empty_nan and math.isnan(v):
            return ""
        if digits is not None:
            return round(v, digits)
    return v


def write_rows(path, rows, fields, *, empty_nan: bool = False, digits: int | None = None,
               append: bool = False) -> Path:
    """Write ``rows`` under the header ``fields``.

    Parameters
    ----------
    path : str or Path
        The CSV.
    rows : iterable of dict
        The rows; a key not in ``fields`` is left out, a missing one written empty.
    fields : sequence of str
        The columns, in order.
    empty_nan : bool, default False
        Write a float NaN as an empty cell (else as ``nan``).
    digits : int or None
        Round every float to this many digits (None: as it is).
    append : bool, default False
        Add the rows to the end of the file, the header first only if it is new.

    Returns
    -------
    Path
        ``path``.
    """
    path = Path(path)
    fresh = not append or path.is_symlink() or not path.is_file()  # a link: replaced
    # a temporary file, then a rename (appending: the old rows copied first); never
    # written through a link
    with atomic_write(path, "a" if append else "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(fields), extrasaction="ignore", restval="")
        if fresh:
            w.writeheader()
        w.writerows({k: _cell(v, empty_nan, digits) for k, v in r.items()} for r in rows)
    return path


def append_row(path, row: dict, fields) -> Path:
    """Add one row to the end of a CSV (:func:`write_rows` with ``append=True``).

    Parameters
    ----------
    path : str or Path
        The CSV; made with its header if it does not exist.
    row : dict
        The row.
    fields : sequence of str
        The columns, in order.

    Returns
    -------
    Path
        ``path``.
    """
    return write_rows(path, [row], fields, append=True)


def read_table(path) -> tuple[list[str], list[dict]]:
    """The header and the rows of a CSV, every value a string.

    Parameters
    ----------
    path : str or Path
        The CSV.

    Returns
    -------
    tuple of (list of str, list of dict)
        The column names in the file's order, and the rows.
    """
    with Path(path).open(newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
        return list(reader.fieldnames or []), rows


def read_rows(path, types=None, *, missing_ok: bool = False) -> list[dict]:
    """The rows of a CSV.

    Parameters
    ----------
    path : str or Path
        The CSV.
    types : dict, optional
        Column -> conversion (``int``, ``float``, ...) applied to its non-empty values;
        every other value stays a string.
    missing_ok : bool, default False
        Return [] for a file that does not exist (else FileNotFoundError).

    Returns
    -------
    list of dict
        One dict per row, keyed by the header's names.
    """
    if missing_ok and not Path(path).exists():
        return []
    rows = read_table(path)[1]
    if types:
        for r in rows:
            for k, conv in types.items():
                if r.get(k) not in (None, ""):
                    r[k] = conv(r[k])
    return rows
