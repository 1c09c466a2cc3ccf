"""The built site as a reader sees it at 1280 px, in headless Chromium: on the proofs, the
findings and the API reference pages no table is wider than the column it sits in, no
displayed equation is cut, and MathJax reports no error; on those and the other key pages
(front page, tutorials, how-tos, explanations, proofs) no code block is wider than its
frame, and the front page's figure is shown at the column's width. Skipped without a built site
(SEPRANK_DOCS_SITE=FOLDER, docs/dev/testing.md) or without Chromium (``apt-get install
chromium``; .ci/run installs it where it can)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

SITE = os.environ.get("SEPRANK_DOCS_SITE")
CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(n)), None)
pytestmark = [
    pytest.mark.skipif(not SITE, reason="set SEPRANK_DOCS_SITE to a built site"),
    pytest.mark.skipif(CHROMIUM is None, reason="no Chromium (apt-get install chromium)"),
]

#: The pages checked: the proofs, the findings, the API reference's index and part pages,
#: and a few object pages (the largest docstrings).
FIXED = ["proofs/index.html", "proofs/exact_values.html", "proofs/transition.html",
         "proofs/heads_two.html", "proofs/block_bound.html", "results.html",
         "reference/api.html", "reference/api/seprank.Measurement.html",
         "reference/api/seprank.measure.html", "reference/api/seprank.sweeps.store.Store.html",
         "reference/api/seprank.ModP.html", "reference/api/seprank.LinearSelfAttention.html",
         "reference/api/seprank.nets.capabilities.StructuralForm.html",
         "reference/api/seprank.theory.bounds.monomial_bound.html",
         "reference/cli.html"]
#: More pages whose code blocks are checked (with FIXED): the pages a reader runs code from.
CODE_PAGES = ["index.html", "quickstart.html", "torch_example.html", "worked_example.html",
              "architectures.html", "mixers.html", "citation.html", "gallery.html",
              "benchmarks.html", "faq.html"]
CODE_FOLDERS = ["proofs", "tutorials", "howto", "explanation"]

#: Loads each page in a 1280-px frame, waits for MathJax, and measures.
PROBE = """<!DOCTYPE html><html><body><pre id="out">pending</pre>
<iframe id="f" style="width:1280px;height:900px;border:0"></iframe><script>
async function one(url) {
  const f = document.getElementById('f');
  await new Promise(r => { f.onload = r; f.src = url; });
  const w = f.contentWindow, d = f.contentDocument;
  if (w.MathJax && w.MathJax.startup && w.MathJax.startup.promise) {
    await w.MathJax.startup.promise; }
  await new Promise(r => setTimeout(r, 100));
  const art = d.querySelector('article');
  const frame = art ? art.clientWidth : 0;
  const wide = [...d.querySelectorAll('article table')]
    .map(t => [Math.round(t.getBoundingClientRect().width),
               (t.querySelector('th, td') || t).textContent.trim().slice(0, 30)])
    .filter(([w]) => w > frame + 1);
  const cut = [...d.querySelectorAll('mjx-container[display="true"]')]
    .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent.slice(0, 40));
  const code = [...d.querySelectorAll('article pre')]
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => [e.scrollWidth - e.clientWidth, e.textContent.split('\\n')
               .reduce((a, b) => a.length >= b.length ? a : b).trim().slice(0, 50)]);
  const figures = [...d.querySelectorAll('article figure img')]
    .map(e => Math.round(e.getBoundingClientRect().width));
  return {url, frame, wide, cut, code, figures,
          errors: d.querySelectorAll('mjx-merror').length, mathjax: !!w.MathJax};
}
(async () => { const out = [];
  for (const p of PAGES) { try { out.push(await one(p)); }
                           catch (e) { out.push({url: p, error: String(e)}); } }
  document.getElementById('out').textContent = 'RESULT' + JSON.stringify(out) + 'END';
})();
</script></body></html>"""


def _pages(site: Path) -> list[str]:
    parts = sorted(p.relative_to(site).as_posix() for p in (site / "reference" / "api").glob(
        "*.html") if not p.name.startswith("seprank"))  # the part pages
    folders = sorted(p.relative_to(site).as_posix() for f in CODE_FOLDERS
                     for p in (site / f).glob("*.html"))
    pages = dict.fromkeys(FIXED + parts + CODE_PAGES + folders)  # in order, once each
    return [p for p in pages if (site / p).exists()]


def _measure(site: Path, pages: list[str], tmp_path: Path) -> list[dict]:
    return _measure_urls([(site / p).resolve().as_uri() for p in pages], tmp_path)


def _measure_urls(urls: list[str], tmp_path: Path) -> list[dict]:
    probe = tmp_path / "probe.html"
    probe.write_text(PROBE.replace("PAGES", json.dumps(urls)))
    r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                        "--allow-file-access-from-files", "--window-size=1400,1000",
                        "--virtual-time-budget=120000", "--dump-dom", probe.as_uri()],
                       capture_output=True, text=True, timeout=300)
    m = re.search(r"RESULT(.*?)END", r.stdout, flags=re.S)
    assert m, f"no result from Chromium: {r.stderr[-2000:]}"
    return json.loads(m.group(1))


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    site = Path(SITE)
    pages = _pages(site)
    assert "proofs/exact_values.html" in pages and "results.html" in pages, pages
    return _measure(site, pages, tmp_path_factory.mktemp("chromium"))


def test_every_page_loaded_in_a_1280_px_frame(measured):
    bad = [r for r in measured if "error" in r or not r.get("frame")]
    assert not bad, bad
    assert all(600 < r["frame"] <= 1280 for r in measured), [r["frame"] for r in measured]


def test_no_table_is_wider_than_its_column(measured):
    wide = {r["url"].rsplit("/html/", 1)[-1]: r["wide"] for r in measured if r["wide"]}
    assert not wide, wide


def test_no_displayed_equation_is_cut(measured):
    cut = {r["url"].rsplit("/html/", 1)[-1]: r["cut"] for r in measured if r["cut"]}
    assert not cut, cut


def test_no_code_block_is_wider_than_its_frame(measured):
    """Python keeps its lines (at most 88 columns on the pages; a repository file shown
    whole is set smaller so its 100 columns fit); commands, output and data wrap
    (docs/_static/seprank.css)."""
    assert len(measured) > 40, len(measured)
    over = {r["url"].rsplit("/html/", 1)[-1]: r["code"] for r in measured if r["code"]}
    assert not over, over


def _with_block(site: Path, language: str, line: str, tmp_path: Path) -> str:
    """The built quickstart page with one more code block, holding ``line``, at the top of
    its article: a copy in ``tmp_path`` that loads the site's own styles."""
    page = (site / "quickstart.html").read_text()
    block = (f'<div class="highlight-{language} notranslate"><div class="highlight"><pre>'
             f"<span></span>{line}</pre></div></div>")
    page = page.replace("<head>", f'<head><base href="{site.resolve().as_uri()}/">', 1)
    page = re.sub(r"(<article[^>]*>)", lambda m: m.group(1) + block, page, count=1)
    out = tmp_path / f"with_{language}.html"
    out.write_text(page)
    return out.as_uri()


def test_the_code_block_check_can_fail(tmp_path):
    """A Python line of 120 columns overflows its frame and is reported; the same length
    of shell command wraps (the site's CSS) and is not."""
    site = Path(SITE)
    long_python = "total = " + " + ".join(f"x{i}" for i in range(28))
    long_bash = "seprank certify " + " ".join(f"--opt{i} {i}" for i in range(12))
    assert len(long_python) > 120 and len(long_bash) > 120
    r = _measure_urls([_with_block(site, "python", long_python, tmp_path),
                       _with_block(site, "bash", long_bash, tmp_path)], tmp_path)
    assert [len(x["code"]) for x in r] == [1, 0], r
    assert r[0]["code"][0][1].startswith("total = x0 + x1") and r[0]["code"][0][0] > 100


def test_the_front_page_figure_is_shown_at_the_column_width(measured):
    """docs/index.md's figure (paper_figures/fig8_overview.png) is drawn for the column:
    shown at least 700 px wide at 1280 px, its text reads at about 13 px or more
    (tests/figures/test_plots.py checks the font sizes for a 736-px column)."""
    index = [r for r in measured if r["url"].endswith("/html/index.html")]
    assert index and index[0]["figures"], index
    assert min(index[0]["figures"]) >= 700 and index[0]["frame"] <= 760, index[0]


def test_mathjax_renders_without_error(measured):
    assert any(r["mathjax"] for r in measured)
    errors = {r["url"]: r["errors"] for r in measured if r["errors"]}
    assert not errors, errors


def test_search_snippets_are_plain_text():
    """The search page's snippets show no TeX source (docs/_static/seprank-search.js)."""
    page = (Path(SITE) / "search.html").resolve().as_uri() + "?q=hockey"
    r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                        "--allow-file-access-from-files", "--virtual-time-budget=20000",
                        "--dump-dom", page],
                       capture_output=True, text=True, timeout=120)
    snippets = re.findall(r'<p class="context">(.*?)</p>', r.stdout, flags=re.S)
    assert snippets, "no search result for 'hockey' (the transition proof has the word)"
    tex = [s for s in snippets if re.search(r"\\[(\[]|\\[a-z]+\{|\$\$", s)]
    assert not tex, tex
