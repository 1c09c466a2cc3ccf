"""Sphinx configuration of seprank's documentation site (built with -W: no warning)."""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from pathlib import Path

import seprank

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # experiments/ and the tutorials' imports resolve from a checkout
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))  # seprank_cli (below)

project = "seprank"
author = "The seprank developers"
copyright = "2026, the seprank developers"
release = seprank.__version__
version = release

extensions = [
    "myst_nb",  # Markdown pages and executed Markdown notebooks (myst-parser included)
    "sphinx.ext.autodoc",
    "sphinx.ext.viewcode",  # a [source] link on every object's page (offline: pages of the site)
    "numpydoc",  # the docstring format of the API reference (validated by the tests)
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax 3 bundled into _static: math renders offline, no CDN
    "sphinx_copybutton",  # a copy button on every code block (prompts and outputs not copied)
    "sphinx_design",  # the front page's cards (the four kinds of page)
    "seprank_cli",  # docs/_ext: the CLI reference, one section per sub-command, from argparse
    "seprank_files",  # docs/_ext: every repository file a page names is a link (page or text)
    "seprank_api",  # docs/_ext: the API reference, a summary page per part, a page per object
]

source_suffix = {".md": "myst-nb", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "**/.ipynb_checkpoints"]
root_doc = "index"

# executed tutorials: every code cell runs at build time; an error fails the build
nb_execution_mode = os.environ.get("SEPRANK_DOCS_EXECUTE", "force")
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_execution_in_temp = True  # files a tutorial writes go to a scratch folder
nb_execution_show_tb = True
nb_merge_streams = True

myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

html_theme = "furo"
html_title = f"seprank {release}"
html_static_path = ["_static"]
html_css_files = ["seprank.css"]  # output blocks wrap, wide tables scroll (nothing clipped)
html_js_files = ["seprank-search.js"]  # search snippets in plain text, not TeX source

# copy buttons: the shell prompt and Python's >>> are not copied
copybutton_prompt_text = r"\$ |>>> |\.\.\. "
copybutton_prompt_is_regexp = True
copybutton_exclude = ".linenos, .gp, .go"

# The notebook kernels the build starts talk to it over local TCP; ipykernel warns about
# that on every start ("Kernel is running over TCP without encryption"), once per executed
# page. The kernels are the build's own, on this machine, and nothing else connects to
# them: this filter drops that one message (every other kernel warning is kept). It lives
# in a scratch IPython profile (IPYTHONDIR), so no file is written into the sources.
_ipython_dir = Path(tempfile.mkdtemp(prefix="seprank-docs-ipython-"))
(_ipython_dir / "profile_default").mkdir()
(_ipython_dir / "profile_default" / "ipython_kernel_config.py").write_text(
    "import logging\n\n\n"
    "class _NoTcpNote(logging.Filter):\n"
    "    def filter(self, record):\n"
    "        return 'without encryption' not in record.getMessage()\n\n\n"
    "logging.getLogger('IPKernelApp').addFilter(_NoTcpNote())\n"
)
os.environ["IPYTHONDIR"] = str(_ipython_dir)

suppress_warnings = ["myst.header"]  # proofs keep their own heading levels
autosummary_generate = False  # docs/_ext/seprank_api.py writes the object pages itself

# A quiet build log: myst and myst-nb print their whole configuration (two lines of about
# 850 characters) and autosummary the list of every page it looked at; the rest is kept.
_NOISE = ("myst v", "myst-nb v", "[autosummary] generating autosummary for")


class _Quiet(logging.Filter):
    def filter(self, record):
        return not str(record.msg).startswith(_NOISE)


for _handler in logging.getLogger("sphinx").handlers:
    _handler.addFilter(_Quiet())



def setup(app):
    """Remove the scratch IPython profile when the build ends."""
    import shutil

    app.connect("build-finished", lambda app, exc: shutil.rmtree(_ipython_dir, ignore_errors=True))
