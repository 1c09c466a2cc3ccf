"""README.md stays short and true to the repository: its length, its links, the test
command CI runs, and the citation metadata."""

import re
from pathlib import Path

import seprank

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def test_readme_fits_on_a_few_screens():
    assert len(README.splitlines()) <= 200


def test_every_relative_link_and_image_exists():
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    local = [t for t in targets if not re.match(r"[a-z]+://", t)]
    assert len(local) >= 10
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, missing


def test_ci_runs_the_readme_test_command():
    blocks = re.findall(r"```bash\n(.*?)```", README, flags=re.S)
    test_cmd = next(b.strip() for b in blocks if "pytest" in b)
    inner = test_cmd.split("&& ", 2)[2]  # after creating and activating the venv
    assert inner in (ROOT / ".ci" / "run").read_text()


def test_readme_docs_command_is_the_one_ci_builds():
    build = re.search(r"sphinx-build [^\n]*", README).group(0)
    assert build in (ROOT / ".ci" / "run").read_text()


def test_citation_and_license_match_the_package():
    cff = (ROOT / "CITATION.cff").read_text()
    assert re.search(rf"^version: {re.escape(seprank.__version__)}$", cff, flags=re.M)
    assert re.search(r"^license: MIT$", cff, flags=re.M)
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert (ROOT / "seprank" / "py.typed").exists()
