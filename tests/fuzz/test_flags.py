"""One rule for contradicting and empty flags: exit 2, one line naming both flags (or the
empty one), before anything is measured or written."""

import pytest

from tests.fuzz._cli import assert_one_line, run_cli

NET = ["--depth", "1", "--width", "2", "--seq-len", "4"]

CASES = {
    "--param depth with --depth": (["measure", *NET, "--param", "depth=3"],
                                   "--param depth=3 and --depth 1"),
    "--param residual with --residual": (["measure", *NET, "--residual", "--param",
                                          "residual=0"], "and --residual both give"),
    "--param seq-len with --seq-len": (["bounds", *NET, "--param", "seq-len=6"],
                                       "--param seq-len=6 and --seq-len 4"),
    "certify --out ''": (["certify", *NET, "--out", ""], "is empty"),
    "verify --out ''": (["verify", "--quick", "--out", ""], "is empty"),
    "sweep --out ''": (["sweep", "example", "--out", ""], "is empty"),
    "sweep --db ''": (["sweep", "example", "--db", ""], "is empty"),
    "transition --out ''": (["transition", "--quick", "--out", ""], "is empty"),
    "figures --out ''": (["figures", "--quick", "--out", ""], "is empty"),
    "sweep --worker-timeout without dask": (["sweep", "example", "--worker-timeout", "5",
                                             "--executor", "serial"], "needs --executor dask"),
    "blocks --worker-timeout without dask": (["blocks", *NET, "--worker-timeout", "5"],
                                             "needs --executor dask"),
    "verify --scheduler without dask": (["verify", "--quick", "--scheduler", "tcp://x:1"],
                                        "needs --executor dask"),
    "sweep unreachable scheduler": (["sweep", "example", "--executor", "dask", "--scheduler",
                                     "tcp://127.0.0.1:1"], "no TCP connection"),
    "check-certificate --max-memory 0": (["check-certificate", "x.json", "--max-memory", "0"],
                                         "--max-memory"),
    "check-certificate --max-seconds nan": (["check-certificate", "x.json", "--max-seconds",
                                             "nan"], "--max-seconds"),
    "--upper-source without --upper": (["certify", *NET, "--upper-source", "x"],
                                       "--upper-source needs --upper"),
    "a control character echoed": (["archs", "--depth", "\x1e0"], "\\x1e0"),
    "a newline echoed": (["measure", *NET, "--partition", "0\n1"], "\\n"),
    "a lone surrogate echoed": (["measure", "--arch", "\udcff"], "\\udcff"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_contradicting_or_empty_flags_exit_2_naming_them(name, capsys, tmp_path,
                                                         monkeypatch):
    monkeypatch.chdir(tmp_path)  # nothing may be written here either
    argv, words = CASES[name]
    rc, out, err = run_cli(capsys, *argv)
    assert_one_line(rc, err, 2, words)
    assert list(tmp_path.iterdir()) == []


def test_the_fuzz_suite_counts_its_cases(request):
    # the cases collected (the whole suite; this file's at least when run alone), also
    # printed at the end of the run: "seprank fuzz: N cases (...)"
    assert getattr(request.config, "seprank_fuzz_cases", 0) >= len(CASES) + 1
