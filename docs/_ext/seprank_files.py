"""Every file of the repository a page names in code (`seprank/engine/measure.py`,
`proofs/block_bound.py`, `fig1_rank_vs_depth.csv`) becomes a link: to its page where the
site has one (a proof, a docs page, the changelog), else to a plain-text copy of the file
in the built site (``_repo/PATH.txt``), so a reader can open it from the page.

A name is looked up relative to the repository root, then to ``paper_figures/`` and
``proofs/`` (where the figures' captions and the proofs name their files); short names
that match nothing there (``measure.py`` in a table of one folder) stay as they are.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform

ROOT = Path(__file__).resolve().parents[2]
SUFFIXES = {".py", ".md", ".csv", ".toml", ".json", ".cff", ".txt"}
LOOKUP = (ROOT, ROOT / "paper_figures", ROOT / "proofs")
#: Repository files that are pages of the site.
PAGES = {"CHANGELOG.md": "changelog", "CITATION.cff": "citation",
         "proofs/README.md": "proofs/index"}
REPO_DIR = "_repo"
_COPIES: dict[int, set[str]] = {}  # the files each build links to (copied when it ends)


def _tracked() -> set[str] | None:
    """The repository's tracked files (``git ls-files``), or None outside a git checkout
    (an unpacked release: every file there is the release's). A file a run wrote into the
    checkout (``seprank-results/results.md``) is not tracked, so no page links to it."""
    try:
        r = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return set(r.stdout.decode().split("\0")) - {""} if r.returncode == 0 else None


TRACKED = _tracked()


def _linkable(p: Path) -> bool:
    """A repository file (tracked, where git says) outside the build folder."""
    if not (p.is_file() and ROOT in p.parents and "_build" not in p.parts):
        return False
    return TRACKED is None or p.relative_to(ROOT).as_posix() in TRACKED


def _resolve(text: str) -> Path | None:
    text = text.strip().removeprefix("./")
    if not text or " " in text or Path(text).suffix not in SUFFIXES or ".." in text:
        return None
    for base in LOOKUP:
        p = (base / text).resolve()
        if _linkable(p):
            return p
    return None


def _page_of(rel: str, found_docs) -> str | None:
    if rel in PAGES:
        return PAGES[rel]
    if rel.startswith("docs/") and rel.endswith(".md") and rel[5:-3] in found_docs:
        return rel[5:-3]
    if rel.startswith("proofs/") and rel.endswith(".md") and rel[:-3] in found_docs:
        return rel[:-3]
    return None


def link_files(app, doctree, docname) -> None:
    if app.builder.format != "html":
        return
    copies = _COPIES.setdefault(id(app), set())
    page_uri = app.builder.get_target_uri(docname)
    up = "../" * page_uri.count("/")
    for node in list(doctree.findall(nodes.literal)):
        if isinstance(node.parent, nodes.reference) or isinstance(node, nodes.literal_block):
            continue
        path = _resolve(node.astext())
        if path is None:
            continue
        rel = path.relative_to(ROOT).as_posix()
        target = _page_of(rel, app.env.found_docs)
        if target == docname:
            continue
        if target is not None:
            uri = app.builder.get_relative_uri(docname, target)
        else:
            copies.add(rel)
            uri = f"{up}{REPO_DIR}/{rel}.txt"
        ref = nodes.reference("", "", internal=True, refuri=uri, classes=["seprank-file"])
        node.replace_self(ref)
        ref += node


class LinkRepoFiles(SphinxPostTransform):
    """A Markdown link to a repository file that is no page (``[L1_d2](certificates/X.json)``
    in a proof's table) links to its plain-text copy, as a file named in code does. Runs
    before MyST's resolver (priority 9), which would warn that no page has that name."""

    default_priority = 8

    def run(self, **kwargs) -> None:
        if self.app.builder.format != "html":
            return
        for node in list(self.document.findall(addnodes.pending_xref)):
            target = node.get("reftarget", "")
            if node.get("reftype") != "myst" or Path(target).suffix not in SUFFIXES:
                continue
            path = (Path(node.source or ROOT).parent / target).resolve()
            if not _linkable(path):
                continue
            rel = path.relative_to(ROOT).as_posix()
            _COPIES.setdefault(id(self.app), set()).add(rel)
            up = "../" * self.app.builder.get_target_uri(self.env.docname).count("/")
            ref = nodes.reference("", "", internal=True, refuri=f"{up}{REPO_DIR}/{rel}.txt",
                                  classes=["seprank-file"])
            ref += node[0].deepcopy()
            node.replace_self(ref)


def copy_files(app, exc) -> None:
    if exc is not None or app.builder.format != "html":
        return
    for rel in sorted(_COPIES.get(id(app), ())):
        dest = Path(app.outdir) / REPO_DIR / f"{rel}.txt"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, dest)


def setup(app):
    app.connect("doctree-resolved", link_files)
    app.add_post_transform(LinkRepoFiles)
    app.connect("build-finished", copy_files)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": False}
