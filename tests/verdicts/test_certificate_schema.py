"""Issue 24, item 4 (the schema part): a certificate whose fields have the wrong type,
unknown keys, or sizes that would allocate or compute too much is refused before anything
is regenerated: CertificateSchemaError naming the first bad field; check-certificate exits
2 with one line. The unedited certificate passes. (Whether its values are *true*, e.g. an
upper bound below the rank, is check_certificate's: tests/verdicts/ and the CLI tests.)"""

from __future__ import annotations

import copy
import json
import time

import pytest

from seprank.cli import main
from seprank.verdicts.certificate_schema import (
    MAX_FILE_BYTES,
    CertificateSchemaError,
    check_nesting,
    load,
    validate,
)


@pytest.fixture(scope="module")
def cert(tmp_path_factory):
    from seprank.nets import LinearSelfAttention
    from seprank.verdicts.certificates import certify

    c = certify(LinearSelfAttention(depth=2, width=2, seq_len=4), grid=True)
    assert c.exact and c.certificate["strategy"] == "graded"
    return c.certificate


def _set(path, value):
    def edit(c):
        *head, last = path
        d = c
        for k in head:
            d = d[k]
        d[last] = value
        return c

    return edit


def _drop(key):
    def edit(c):
        del c[key]
        return c

    return edit


EDITS = [
    ("prime float", _set(["prime"], 67108859.9), "prime=67108859.9 must be a prime in"),
    ("prime string", _set(["prime"], "67108859"), "prime='67108859' must be a prime in"),
    ("prime 2", _set(["prime"], 2), "prime 2 is too small for a graded certificate"),
    ("prime 7", _set(["prime"], 7), "needs p > T + 1 = 10"),
    ("prime composite", _set(["prime"], 15), "prime=15 must be a prime in"),
    ("prime too large", _set(["prime"], 2**31 + 11), "prime=2147483659 must be a prime in"),
    ("seed float", _set(["seed"], 0.7), "seed=0.7 must be an integer in"),
    ("seed false", _set(["seed"], False), "seed=False must be an integer in"),
    ("seed negative", _set(["seed"], -1), "seed=-1 must be an integer in"),
    ("exact string", _set(["exact"], "no"), "exact must be true or false"),
    ("exact int", _set(["exact"], 1), "exact must be true or false"),
    ("upper banana", _set(["upper_bound"], "banana"), "upper_bound must be an integer"),
    ("upper float", _set(["upper_bound"], 18.0), "upper_bound must be an integer"),
    ("upper_given str", _set(["upper_given"], "yes"), "upper_given must be true or false"),
    ("upper_source int", _set(["upper_source"], 3), "upper_source must be a string"),
    ("block rank str", _set(["blocks", 0, "rank"], "2"), "blocks[0].rank must be an integer"),
    ("bool row", _set(["blocks", 0, "rows"], [True, False]), "blocks[0].rows[0]"),
    ("negative col", _set(["blocks", 0, "cols"], [-1]), "blocks[0].cols[0] must be in"),
    ("block extra key", _set(["blocks", 0, "note"], "x"), "blocks[0] must be an object"),
    ("block degree big", _set(["blocks", 0, "degree"], 50), "blocks[0].degree"),
    ("rank bool", _set(["rank"], True), "rank must be an integer"),
    ("unknown key", _set(["comment"], "trust me"), "comment is not a certificate field"),
    ("claim not str", _set(["claim"], ["sep = 18"]), "claim must be a string"),
    ("created_by int", _set(["created_by"], 7), "created_by must be a string"),
    ("no hash", _drop("weights_sha256"), "weights_sha256 is missing"),
    ("bad hash", _set(["weights_sha256"], "zz" * 32), "weights_sha256 must be 64"),
    ("config list", _set(["config"], [2, 2]), "config must be an object"),
    ("config float", _set(["config", "depth"], 2.0), "config.depth must be an integer"),
    ("config nested", _set(["config", "depth"], {"a": 1}), "config.depth must be"),
    ("partition dup", _set(["partition"], [0, 0]), "partition repeats"),
    ("partition str", _set(["partition"], "0,1"), "partition must be a list"),
    ("strategy", _set(["strategy"], "magic"), "strategy must be one of"),
    ("architecture", _set(["architecture"], "../../etc/passwd"), "architecture must be"),
    ("draw 10^12", _set(["draws", 0], ["A", 10**12, 2]), "draws[0][1] must be in"),
    ("draw 3.2 GB", _set(["draws", 0], ["A", 10**8, 2]), "over the 2 GiB limit"),
    ("draw tag", _set(["draws", 0], ["C", 1, 2]), "draws[0] must be [tag, count, positions]"),
    ("choice m", _set(["draws", 0], ["choice", 10**9]), "draws[0][1] must be in"),
    ("depth 9", lambda c: _set(["total_degree"], None)(_set(["config", "depth"], 9)(c)),
     "19684 x 19684 Vandermonde"),
    ("total degree 3^9", _set(["total_degree"], 3**9), "19684 x 19684 Vandermonde"),
]


def test_the_unedited_certificate_passes(cert, tmp_path, capsys):
    validate(copy.deepcopy(cert))
    p = tmp_path / "c.json"
    p.write_text(json.dumps(cert))
    assert load(p) == cert
    assert main(["check-certificate", str(p)]) == 0
    assert "valid: separation rank = 18" in capsys.readouterr().out


@pytest.mark.parametrize("name, edit, words", EDITS, ids=[e[0] for e in EDITS])
def test_an_edited_field_is_refused(name, edit, words, cert, tmp_path, capsys):
    bad = edit(copy.deepcopy(cert))
    with pytest.raises(CertificateSchemaError, match="^certificate: ") as e:
        validate(bad)
    assert words in str(e.value), str(e.value)
    p = tmp_path / "c.json"
    p.write_text(json.dumps(bad))
    t0 = time.monotonic()
    assert main(["check-certificate", str(p)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0] and time.monotonic() - t0 < 10


@pytest.mark.parametrize("text, words", [
    ("[1, 2, 3]", "top level must be a JSON object"),
    ('{"prime": 1e400}', "format is missing"),
    ("[" * 100_000 + "]" * 100_000, "nests 100000 levels deep"),
    ("{" + '"a":' * 5, "is not JSON"),
    ("", "is not JSON"),
    ("\udcff", "is not JSON"),
])
def test_unreadable_or_malformed_files(text, words, tmp_path, capsys):
    p = tmp_path / "c.json"
    p.write_bytes(text.encode("utf-8", "surrogateescape"))
    assert main(["check-certificate", str(p)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0] and "Traceback" not in err[0], err


def test_prime_1e400_is_not_an_integer(cert):
    bad = json.loads(json.dumps(cert).replace('"prime": 67108859', '"prime": 1e400'))
    with pytest.raises(CertificateSchemaError, match="prime=inf must be a prime in"):
        validate(bad)


def test_missing_file_and_size_limit(tmp_path, capsys):
    assert main(["check-certificate", str(tmp_path / "none.json")]) == 2
    assert "cannot be read" in capsys.readouterr().err
    big = tmp_path / "big.json"
    with big.open("wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)
    assert main(["check-certificate", str(big)]) == 2
    assert "at most" in capsys.readouterr().err


def test_nesting_counts_brackets_outside_strings_only():
    check_nesting(b'{"claim": "' + b"[" * 1000 + b'"}')
    with pytest.raises(CertificateSchemaError):
        check_nesting(b"[" * 9 + b"]" * 9)


def test_the_allocation_limit_uses_the_architectures_own_width():
    from seprank.nets import MPS
    from seprank.verdicts.certificate_schema import CertificateSchemaError, check_work
    from seprank.verdicts.certificates import certify

    cert = certify(MPS(seq_len=4, phys_dim=2, bond=2), (0, 1)).certificate
    check_work(cert, 2)
    cert["draws"] = [["A", 10**6, 2]]  # 10^6 points of 2 positions
    check_work(cert, 2)  # 32 MB: fine
    with pytest.raises(CertificateSchemaError, match="GiB"):
        check_work(cert, 2000)  # phys_dim 2000: 32 GB, refused before anything is drawn
