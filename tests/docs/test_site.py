"""The documentation site: every page has a heading; the proofs' statements are written
in rendered math (no ASCII math); and, on a built site (SEPRANK_DOCS_SITE=FOLDER, the
output folder of sphinx-build: docs/dev/testing.md), every local link and anchor
resolves, every page has a heading and MathJax is served from the site itself."""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PROOFS = ROOT / "proofs"

PAGES = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)


def _body(text: str) -> str:
    """The page without its YAML front matter."""
    if text.startswith("---\n"):
        return text.split("\n---\n", 1)[1]
    return text


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(DOCS)) for p in PAGES])
def test_every_page_has_a_title(page):
    """A page's first content line is its title: a `# ` heading, or an include of a file
    whose first line is one (the proofs' pages)."""
    first = next(line for line in _body(page.read_text()).splitlines() if line.strip())
    if first.startswith("```{include}"):
        target = (page.parent / first.split("}", 1)[1].strip()).resolve()
        first = target.read_text().splitlines()[0]
    assert first.startswith("# "), f"{page.relative_to(DOCS)} starts with {first!r}"


# ------------------------------------------------------------- ASCII math in the proofs
#: What ASCII math looks like outside $...$ and `code`: sub- and superscripts, sums,
#: comparisons, binomials and products written as code would write them.
ASCII_MATH = re.compile(
    r"\b[A-Za-z]\w*_\{|\^\{|\^\(|\b[A-Za-z]\^[\w(]|\b[A-Za-z]_[A-Za-z0-9]\b|\bsum_|<=|>=|"
    r"\bC\(\w|\bmin_|\bmax_|\brank_[A-Za-z]|\b[a-z]\w* x [a-z]\w*\b|^ {4}\S",
    re.M,
)


def _prose(text: str) -> str:
    """``text`` without display math, inline math, code spans and code blocks (inline
    math must open and close on one line: across lines it is left in, and fails)."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"\$\$.*?\$\$", "", text, flags=re.S)
    text = re.sub(r"\$[^$\n]+\$", "\u00a7", text)  # a placeholder: indentation stays as it was
    text = re.sub(r"`[^`\n]+`", "\u00a7", text)
    return text


def _statement(path: Path) -> str:
    text = path.read_text()
    m = re.search(r"^## Statement\n(.*?)(?=^## )", text, flags=re.S | re.M)
    return m.group(1) if m else text


def ascii_math(text: str) -> list[str]:
    """The ASCII-math fragments of ``text`` (outside math and code)."""
    return [m.group(0) for m in ASCII_MATH.finditer(_prose(text))]


#: The proofs whose statements still read as code: each is expected to fail the check
#: below (strict: once one is rewritten, its entry must go).
NOT_YET_REWRITTEN: set[str] = set()

PROOF_PAGES = sorted(p for p in PROOFS.glob("*.md") if p.name != "README.md")


def test_the_ascii_math_check_can_fail():
    assert ascii_math("Then sep <= sum_k min(b_k, a_{D-k}).")
    assert ascii_math("    y^{L,i} = P_L(S) x^i\n")
    assert not ascii_math(r"Then $\operatorname{sep} \le \sum_k \min(b_k, a_{D-k})$.")
    assert not ascii_math("Run `pytest tests/docs/test_proofs.py -k block_bound`.")


@pytest.mark.parametrize("proof", PROOF_PAGES, ids=[p.stem for p in PROOF_PAGES])
def test_proof_statements_are_rendered_math(proof, request):
    if proof.stem in NOT_YET_REWRITTEN:
        request.applymarker(pytest.mark.xfail(strict=True, reason="statement not rewritten"))
    found = ascii_math(_statement(proof))
    assert not found, f"{proof.name}: ASCII math in the statement: {found[:5]}"


# ------------------------------------------------------------------- the built site
SITE = os.environ.get("SEPRANK_DOCS_SITE")
needs_site = pytest.mark.skipif(
    not SITE, reason="set SEPRANK_DOCS_SITE to a built site (docs/dev/testing.md)")


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.scripts: list[str] = []
        self.headings = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key):
                self.ids.add(a[key])
        if tag in ("a", "link") and a.get("href"):
            self.links.append(a["href"])
        if tag in ("img", "script", "source") and a.get("src"):
            self.links.append(a["src"])
            if tag == "script":
                self.scripts.append(a["src"])
        if tag == "h1":
            self.headings += 1


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(errors="replace"))
    return page


def _site_pages(site: Path) -> dict[Path, _Page]:
    skip = ("_static", "_sources", "_images", "_downloads", "_modules")
    return {p: _parse(p) for p in sorted(site.rglob("*.html"))
            if not any(part in skip for part in p.relative_to(site).parts)}


def broken_links(site: Path) -> list[str]:
    """Every local link or anchor of the site that does not resolve, as 'PAGE -> LINK'."""
    pages = _site_pages(site)
    cache: dict[Path, _Page] = dict(pages)
    broken = []
    for path, page in pages.items():
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:")):
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{path.relative_to(site)} -> {link}")
                continue
            if parts.fragment and target.suffix == ".html":
                if target not in cache:
                    cache[target] = _parse(target)
                if unquote(parts.fragment) not in cache[target].ids:
                    broken.append(f"{path.relative_to(site)} -> {link} (no such anchor)")
    return broken


def test_the_crawl_finds_a_broken_link_and_anchor(tmp_path):
    (tmp_path / "index.html").write_text(
        '<h1 id="top">t</h1><a href="a.html">a</a><a href="index.html#top">ok</a>'
        '<a href="index.html#nowhere">x</a><a href="https://example.org/y">ext</a>')
    assert broken_links(tmp_path) == ["index.html -> a.html",
                                      "index.html -> index.html#nowhere (no such anchor)"]


@needs_site
def test_built_site_has_no_broken_local_link_or_anchor():
    broken = broken_links(Path(SITE))
    assert not broken, f"{len(broken)} broken: {broken[:20]}"


@needs_site
def test_built_site_every_page_has_a_heading():
    site = Path(SITE)
    no_heading = [str(p.relative_to(site)) for p, page in _site_pages(site).items()
                  if page.headings == 0 and p.name not in ("genindex.html", "search.html")]
    assert not no_heading


@needs_site
def test_built_site_serves_mathjax_itself():
    """Math renders offline: MathJax is in the site, and no page loads a script from
    another host."""
    site = Path(SITE)
    assert (site / "_static" / "mathjax" / "tex-chtml.js").exists()
    remote = sorted({s for page in _site_pages(site).values() for s in page.scripts
                     if urlsplit(s).scheme or s.startswith("//")})
    assert not remote, remote
    primer = _parse(site / "explanation" / "primer.html")
    assert any("mathjax/tex-chtml.js" in s for s in primer.scripts)


@needs_site
def test_built_site_cli_reference_has_a_section_per_sub_command():
    import argparse

    from seprank.cli import _build_parser

    sub = next(a for a in _build_parser()._actions
               if isinstance(a, argparse._SubParsersAction))
    ids = _parse(Path(SITE) / "reference" / "cli.html").ids
    missing = [name for name in sub.choices if f"seprank-{name}" not in ids]
    assert not missing


MATH_PAGES = PROOF_PAGES + [PROOFS / "README.md", DOCS / "faq.md", DOCS / "worked_example.md"] + [
    DOCS / "explanation" / f"{name}.md" for name in ("primer", "glossary", "theory", "measurement")]


def unbalanced_math_lines(text: str) -> list[int]:
    """Lines (1-based) whose inline math does not close on the line (outside code)."""
    bad, in_code = [], False
    for i, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        bare = re.sub(r"`[^`]*`", "", line).replace("$$", "")
        if not in_code and bare.count("$") % 2:
            bad.append(i)
    return bad


def test_the_math_balance_check_can_fail():
    assert unbalanced_math_lines("a $x\ny$ b") == [1, 2]
    assert unbalanced_math_lines("a $x$ `$` b\n$$\nx\n$$") == []


@pytest.mark.parametrize("page", MATH_PAGES, ids=[p.name for p in MATH_PAGES])
def test_inline_math_opens_and_closes_on_one_line(page):
    """GitHub and MyST both render these pages; inline math kept on one line renders the
    same in both (and keeps the ASCII-math check above honest)."""
    assert not unbalanced_math_lines(page.read_text())
