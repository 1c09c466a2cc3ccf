"""Notebook display of results: a short ``repr``, a small HTML table and pandas frames.

Shared by :class:`~seprank.engine.result.Measurement`,
:class:`~seprank.verdicts.certificates.Certification`, the verify report
(:class:`~seprank.studies.verify.VerifyReport`) and
:meth:`seprank.sweeps.store.Store.to_dataframe`. pandas is an optional extra
(``pip install seprank[pandas]``), imported only by :func:`require_pandas`.
"""

from __future__ import annotations

import html

from seprank.errors import ConfigError

#: The attention network's parameters, shortened in a one-line configuration.
SHORT = {"depth": "L", "width": "d", "heads": "H", "seq_len": "N"}
#: Configuration keys left out of the one-line form (defaults a reader rarely needs).
QUIET_KEYS = ("architecture", "query_position", "output_coord")
#: The longest configuration text a repr shows (the rest is cut with "...").
MAX_CONFIG_CHARS = 80


def short_config(cfg: dict | None) -> str:
    """A configuration dict as one short line, e.g. ``LinearSelfAttention L=2 d=2 H=1 N=4``.

    Parameters
    ----------
    cfg : dict or None
        A network's configuration (:func:`seprank.nets.base.config_of`).

    Returns
    -------
    str
        The architecture name followed by ``key=value`` pairs (attention's keys
        shortened, ``residual`` shown only when true), at most ``MAX_CONFIG_CHARS``
        characters; ``"-"`` for an empty configuration.
    """
    if not cfg:
        return "-"
    keys = [k for k in SHORT if k in cfg] + [k for k in cfg if k not in SHORT]
    parts = [str(cfg["architecture"])] if cfg.get("architecture") else []
    for k in keys:
        v = cfg[k]
        if k in QUIET_KEYS or v is None or (k == "residual" and not v):
            continue
        parts.append("residual" if k == "residual" else f"{SHORT.get(k, k)}={v}")
    text = " ".join(parts)
    return text if len(text) <= MAX_CONFIG_CHARS else text[: MAX_CONFIG_CHARS - 3] + "..."


def html_table(title: str, rows: list[tuple[str, object]]) -> str:
    """A two-column HTML table (field, value) with a caption, every cell escaped.

    Parameters
    ----------
    title : str
        The caption.
    rows : list of (str, object)
        Field names and values; a value is shown with ``str``.

    Returns
    -------
    str
        ``<table>...</table>``.
    """
    body = "".join(f"<tr><th style=\"text-align:left\">{html.escape(str(k))}</th>"
                   f"<td style=\"text-align:left\">{html.escape(str(v))}</td></tr>"
                   for k, v in rows)
    return f"<table><caption>{html.escape(title)}</caption>{body}</table>"


def require_pandas():
    """Import pandas, or raise a one-line error naming the extra that installs it.

    Returns
    -------
    module
        The ``pandas`` module.

    Raises
    ------
    ConfigError
        When pandas is not installed.
    """
    try:
        import pandas
    except ImportError:
        raise ConfigError("a DataFrame needs pandas: pip install 'seprank[pandas]'") from None
    return pandas


def block_ranks(blocks: list | None) -> list[int]:
    """The rank of each block of a measurement, as a list of Python ints.

    Parameters
    ----------
    blocks : list of dict or None
        :attr:`Measurement.blocks` (each with a ``rank``).

    Returns
    -------
    list of int
        One rank per block, in order (empty for none).
    """
    return [int(b["rank"]) for b in (blocks or [])]


def tidy_frame(records: list[dict], bool_columns=(), list_columns=()):
    """A pandas DataFrame of ``records`` with bool columns as bool and lists kept as lists.

    Parameters
    ----------
    records : list of dict
        One dict per row.
    bool_columns : iterable of str
        Columns converted to ``bool`` (pandas' nullable ``boolean`` where a value is
        missing); 0/1 and True/False are accepted.
    list_columns : iterable of str
        Columns whose cells are lists (a tuple becomes a list; ``None`` stays None).

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ConfigError
        When pandas is not installed.
    """
    pd = require_pandas()
    df = pd.DataFrame.from_records(records)
    for c in bool_columns:
        if c in df.columns:
            col = df[c]
            if col.isna().any():
                df[c] = pd.array([None if pd.isna(v) else bool(v) for v in col], dtype="boolean")
            else:
                df[c] = col.map(bool).astype(bool)
    for c in list_columns:
        if c in df.columns:
            df[c] = pd.Series([None if v is None else list(v) for v in df[c]], index=df.index,
                              dtype=object)
    return df
