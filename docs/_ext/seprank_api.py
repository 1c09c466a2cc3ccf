"""The API reference laid out as numpy's and scikit-learn's are: a summary page per part of
the API (what it is for, then its objects in a table with their one-line summaries) and a
page per public object, with a link to its source (``sphinx.ext.viewcode``).

``docs/reference/api.md`` stays the one list of the public API: its ``auto*`` directives
are what tests/docs/test_docstrings.py validates, and what this extension lays out. When a
build starts it writes, under ``docs/reference/api/`` (generated, not tracked):

- ``<section>.md`` for each ``## section`` of api.md: the section's prose, and in place of
  each block of directives an ``autosummary`` table of those objects (linked to their
  pages) with a hidden toctree of the pages;
- ``<dotted.name>.md`` for each object: its directive, options included, exactly as listed.

api.md itself is read as its introduction followed by the table of the sections.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

API_DOC = "reference/api"
DIRECTIVE = re.compile(
    r"^\.\. (autofunction|autoclass|autoexception|automethod|autodata|automodule):: (\S+)"
    r"((?:\n {3}:\S+:.*)*)",
    re.M,
)
BLOCK = re.compile(r"```\{eval-rst\}\n(.*?)```", re.S)
#: What each kind of directive documents, said in the object page's first line.
KINDS = {"autofunction": "function", "autoclass": "class", "autoexception": "exception",
         "automethod": "method", "autodata": "data", "automodule": "module"}


def slug(title: str) -> str:
    """A section title as a file name: ``Sweeps and store`` -> ``sweeps-and-store``."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def sections(text: str) -> tuple[str, list[tuple[str, str]]]:
    """api.md's introduction (its title left out) and its ``## `` sections (title, body)."""
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    intro = parts[0].split("\n", 1)[1] if parts[0].startswith("# ") else parts[0]
    return intro.strip(), [(parts[i].strip(), parts[i + 1].strip())
                           for i in range(1, len(parts), 2)]


def _summary_block(block: str) -> tuple[str, list[tuple[str, str, str]]]:
    found = [m.groups() for m in DIRECTIVE.finditer(block)]
    names = "\n".join(f"   {name}" for _, name, _ in found)
    toc = "\n".join(f"   {name}" for _, name, _ in found)
    rst = (f"```{{eval-rst}}\n.. autosummary::\n   :nosignatures:\n\n{names}\n\n"
           f".. toctree::\n   :hidden:\n\n{toc}\n```")
    return rst, found


def _object_page(kind: str, name: str, options: str, section: str) -> str:
    title = name.replace("_", "\\_")  # seprank.__version__: no emphasis
    return (f"# {title}\n\n"
            f"A {KINDS[kind]} of the public API, in [{section}]({slug(section)}.md) "
            f"([the API reference](../api.md)).\n\n"
            f"```{{eval-rst}}\n.. {kind}:: {name}{options}\n```\n")


def write_pages(srcdir: Path) -> None:
    """Write the section pages and the object pages."""
    api = srcdir / f"{API_DOC}.md"
    out = srcdir / API_DOC
    if out.exists():
        shutil.rmtree(out)
    out.mkdir()
    _, secs = sections(api.read_text())
    for title, body in secs:
        objects = []

        def table(m, objects=objects):
            rst, found = _summary_block(m.group(1))
            objects.extend(found)
            return rst

        page = BLOCK.sub(table, body)
        page = re.sub(r"\]\(\.\./", "](../../", page)  # prose links: one folder deeper
        page = re.sub(r"\]\((?!\.\./|https?:|#)([^)]+\.md)", r"](../\1", page)
        (out / f"{slug(title)}.md").write_text(f"# {title}\n\n{page}\n")
        for kind, name, options in objects:
            (out / f"{name}.md").write_text(_object_page(kind, name, options, title))


def _first_sentence(body: str) -> str:
    prose = BLOCK.sub("", body).strip()
    if not prose:
        return ""
    para = " ".join(prose.split("\n\n", 1)[0].split())
    return para.split(". ")[0].rstrip(".") + "."


def generate(app) -> None:
    """builder-inited: write the pages before Sphinx reads the sources."""
    write_pages(Path(app.srcdir))


def api_page(app, docname: str, source: list[str]) -> None:
    """source-read of api.md: its introduction, then a table of its sections."""
    if docname != API_DOC:
        return
    intro, secs = sections(source[0])
    rows = [f"| [{t}](api/{slug(t)}.md) | {_first_sentence(b) or '-'} | "
            f"{len(DIRECTIVE.findall(b))} |" for t, b in secs]
    toc = "\n".join(f"api/{slug(t)}" for t, _ in secs)
    source[0] = ("# API reference\n\n" + intro + "\n\n| part | what it is for | objects |\n"
                 "|---|---|---|\n" + "\n".join(rows) + "\n\n```{toctree}\n:hidden:\n\n"
                 + toc + "\n```\n")


def setup(app):
    app.setup_extension("sphinx.ext.autosummary")
    app.connect("builder-inited", generate)
    app.connect("source-read", api_page)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
