"""The fuzz suite's shared pieces (the CLI helpers are in ``_cli``): a valid certificate
made once, and the case count reported at the end of the run
(``seprank fuzz: N cases``; SEPRANK_THOROUGH=1 adds the hypothesis corpus)."""

import json
import os

import pytest

THOROUGH = os.environ.get("SEPRANK_THOROUGH") == "1"
_CASES: dict[str, int] = {}


@pytest.fixture(scope="session")
def mps_certificate(tmp_path_factory) -> dict:
    """A valid MPS certificate (seq_len 4, phys_dim 2, bond 2), made once."""
    import seprank

    c = seprank.certify(seprank.nets.MPS(seq_len=4, phys_dim=2, bond=2), (0, 1))
    return json.loads(json.dumps(c.certificate))


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "/fuzz/" in str(item.fspath).replace(os.sep, "/"):
            name = item.module.__name__.rpartition(".")[2]
            _CASES[name] = _CASES.get(name, 0) + 1
    config.seprank_fuzz_cases = sum(_CASES.values())  # read by the count test


def pytest_terminal_summary(terminalreporter):
    if _CASES:
        per = ", ".join(f"{k.removeprefix('test_')} {v}" for k, v in sorted(_CASES.items()))
        terminalreporter.write_line(f"seprank fuzz: {sum(_CASES.values())} cases ({per})"
                                    + ("; thorough corpus on" if THOROUGH else
                                       "; SEPRANK_THOROUGH=1 adds the hypothesis corpus"))
