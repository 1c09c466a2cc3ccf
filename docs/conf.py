"""Sphinx configuration of seprank's documentation site (built with -W: no warning)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import seprank

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # experiments/ and the tutorials' imports resolve from a checkout

project = "seprank"
author = "The seprank developers"
copyright = "2026, the seprank developers"
release = seprank.__version__
version = release

extensions = [
    "myst_nb",  # Markdown pages and executed Markdown notebooks (myst-parser included)
    "sphinx.ext.autodoc",
    "numpydoc",  # the docstring format of the API reference (validated by the tests)
    "sphinx.ext.mathjax",
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
html_static_path: list[str] = []

suppress_warnings = ["myst.header"]  # proofs keep their own heading levels
