"""Tables a paper can take: booktabs LaTeX and Markdown, from rows of labelled ranks.

One writer for ``seprank results --format latex|markdown``,
:meth:`Measurement.to_latex <seprank.engine.result.Measurement.to_latex>` and
:meth:`VerifyReport.to_latex <seprank.studies.verify.VerifyReport.to_latex>`, in plain
Python (no pandas, no jinja2): the same rows give the same table everywhere. A cell is
text; the writer escapes it for LaTeX, except the cells :func:`math_cell` made, which are
already LaTeX. Numbers are right-aligned.

>>> print(markdown_table(["rank", "label"], [[49, "exact, proved"]]))
| rank | label |
| ---: | :--- |
| 49 | exact, proved |
"""

from __future__ import annotations

from collections.abc import Sequence

#: LaTeX's special characters and what stands for each in text.
_LATEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}"}

#: The attention network's parameters, as the paper writes them.
SYMBOLS = {"depth": "L", "width": "d_x", "heads": "H", "seq_len": "N"}


class MathCell(str):
    """A cell that is already LaTeX mathematics (not escaped by :func:`latex_table`).

    Parameters
    ----------
    text : str
        The LaTeX (with its ``$`` delimiters).
    """


def math_cell(text: str) -> MathCell:
    """Mark ``text`` as LaTeX, written into a LaTeX table as it is.

    Parameters
    ----------
    text : str
        LaTeX, e.g. ``"$L=2,\\ d_x=3$"``.

    Returns
    -------
    MathCell
        The same text, marked.
    """
    return MathCell(text)


def latex_escape(text: object) -> str:
    """``text`` as LaTeX text: its special characters escaped.

    Parameters
    ----------
    text : object
        Shown with ``str``; a :class:`MathCell` is returned as it is.

    Returns
    -------
    str
        Text that LaTeX typesets as ``str(text)`` reads.
    """
    if isinstance(text, MathCell):
        return str(text)
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in str(text))


def _numeric(column: Sequence[object]) -> bool:
    vals = [v for v in column if v not in (None, "-", "")]
    return bool(vals) and all(isinstance(v, int) and not isinstance(v, bool) for v in vals)


def latex_table(header: Sequence[object], rows: Sequence[Sequence[object]],
                comment: str | None = None) -> str:
    """A booktabs ``tabular`` (``\\toprule``, ``\\midrule``, ``\\bottomrule``).

    Parameters
    ----------
    header : sequence
        The column titles (text, or :func:`math_cell`).
    rows : sequence of sequences
        The cells, one sequence per row, as long as ``header``; ``None`` is shown as ``-``.
        A column of ints is right-aligned, any other left-aligned.
    comment : str, optional
        A ``%`` comment line written first (what the table is and where it came from).

    Returns
    -------
    str
        The ``tabular`` environment; a document needs ``\\usepackage{booktabs}``.
    """
    cols = list(zip(*rows)) if rows else [() for _ in header]
    align = "".join("r" if _numeric(c) else "l" for c in cols)
    out = [f"% {line}" for line in (comment or "").splitlines()]
    out += [f"\\begin{{tabular}}{{{align}}}", r"\toprule",
            " & ".join(latex_escape(h) for h in header) + r" \\", r"\midrule"]
    out += [" & ".join(latex_escape("-" if v is None else v) for v in r) + r" \\" for r in rows]
    out += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(out)


def markdown_table(header: Sequence[object], rows: Sequence[Sequence[object]]) -> str:
    """A pipe table (GitHub, MyST, pandoc): a column of ints right-aligned.

    Parameters
    ----------
    header : sequence
        The column titles.
    rows : sequence of sequences
        The cells, one sequence per row; ``None`` is shown as ``-``, and ``|`` in a cell
        is escaped.

    Returns
    -------
    str
        The table, one line a row.
    """
    cols = list(zip(*rows)) if rows else [() for _ in header]

    def cell(v):
        return ("-" if v is None else str(v)).replace("|", r"\|")

    rule = ["---:" if _numeric(c) else ":---" for c in cols]
    lines = [header, rule] + [list(r) for r in rows]
    return "\n".join("| " + " | ".join(cell(v) for v in line) + " |" for line in lines)


def _config_parts(cfg: dict) -> tuple[list[str], list[str]]:
    skip = {"architecture", "query_position", "output_coord"}
    maths = [f"{SYMBOLS[k]}={cfg[k]}" for k in SYMBOLS if cfg.get(k) is not None]
    rest = [("residual" if k == "residual" else f"{k}={v}") for k, v in cfg.items()
            if not (k in SYMBOLS or k in skip or v is None or (k == "residual" and not v))]
    return maths, rest


def config_math(cfg: dict | None) -> MathCell | str:
    """A configuration as LaTeX: the attention parameters in the paper's symbols.

    Parameters
    ----------
    cfg : dict or None
        A network's configuration (``depth``, ``width``, ... and other fields).

    Returns
    -------
    MathCell or str
        E.g. ``$L=2,\\ d_x=3,\\ H=1,\\ N=4$``, other fields after it as escaped text
        (``residual`` only when true); ``"-"`` for none.
    """
    if not cfg:
        return "-"
    maths, rest = _config_parts(cfg)
    text = ("$" + r",\ ".join(maths) + "$") if maths else ""
    return math_cell(", ".join([text] * bool(text) + [latex_escape(r) for r in rest]))


def config_text(cfg: dict | None) -> str:
    """A configuration as plain text in the paper's symbols, e.g. ``L=2, d_x=3, H=1, N=4``.

    Parameters
    ----------
    cfg : dict or None
        A network's configuration.

    Returns
    -------
    str
        The same fields as :func:`config_math`, without LaTeX; ``"-"`` for none.
    """
    if not cfg:
        return "-"
    maths, rest = _config_parts(cfg)
    return ", ".join(maths + rest)


def partition_math(part: Sequence[int] | None) -> MathCell | str:
    """A partition's side A as a LaTeX set, e.g. ``$\\{0,1\\}$``.

    Parameters
    ----------
    part : sequence of int or None
        The positions of side A; None is the network's default partition.

    Returns
    -------
    MathCell or str
        The set, or ``"default"``.
    """
    if part is None:
        return "default"
    return math_cell(r"$\{" + ",".join(str(int(a)) for a in part) + r"\}$")
