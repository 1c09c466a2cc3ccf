"""Every sub-command that prints results takes --json and --quiet; --help lists each
option's choices and quotes no time that was not measured; results takes --json (and
--format as a deprecated alias)."""

from __future__ import annotations

import argparse
import json
import re

import pytest

from seprank.algebra.rank import DEVICES, RANK_ENGINES
from seprank.cli import _build_parser, main
from seprank.engine.options import METHODS, SAMPLERS
from seprank.engine.strategies import STRATEGIES

#: Sub-commands that print no results of their own, with the reason (a new sub-command
#: is held to --json and --quiet unless it is added here).
NO_RESULTS: dict[str, str] = {}


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    ap = _build_parser()
    action = next(a for a in ap._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


SUBCOMMANDS = sorted(_subparsers())


def test_the_parser_has_the_sub_commands_expected():
    assert len(SUBCOMMANDS) >= 12 and "results" in SUBCOMMANDS and "measure" in SUBCOMMANDS


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_every_sub_command_that_prints_results_takes_json_and_quiet(name):
    if name in NO_RESULTS:
        pytest.skip(NO_RESULTS[name])
    flags = {s for a in _subparsers()[name]._actions for s in a.option_strings}
    assert {"--json", "--quiet"} <= flags, name


@pytest.mark.parametrize("option, values", [
    ("--method", ("auto", *METHODS)), ("--sampler", SAMPLERS), ("--rank-engine", RANK_ENGINES),
    ("--device", DEVICES), ("--strategy", STRATEGIES),
])
def test_measure_help_lists_the_choices(option, values):
    text = " ".join(_subparsers()["measure"].format_help().split())
    m = re.search(re.escape(option) + r" \{([^}]*)\}", text)
    assert m, option
    assert set(m.group(1).split(",")) == set(values)


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_help_lists_the_choices_of_every_option_that_has_some(name):
    for a in _subparsers()[name]._actions:
        if a.choices is not None and a.option_strings:
            metavar = a.metavar or "{" + ",".join(map(str, a.choices)) + "}"
            assert all(str(c) in metavar for c in a.choices), (name, a.option_strings)
        if a.help and " | " in a.help:  # an enumeration left in the help text
            pytest.fail(f"{name} {a.option_strings}: choices in the help text, not the "
                        f"metavar: {a.help!r}")


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_help_quotes_no_unmeasured_time(name):
    for a in _subparsers()[name]._actions:
        h = a.help or ""
        assert not re.search(r"minute|\bhours?\b|\bseconds?\b|\d s\)|\d+ s\b", h), \
            (name, a.option_strings, h)


@pytest.mark.parametrize("argv", [
    ["bounds", "--depth", "2", "--width", "2", "--seq-len", "4"],
    ["guide", "--params", "1e9"],
    ["archs"],
])
def test_json_and_quiet_print_one_object_and_nothing_on_stderr(argv, capsys):
    assert main([*argv, "--json", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert isinstance(json.loads(out), dict) and err == ""


@pytest.fixture
def store(tmp_path):
    g = tmp_path / "g.toml"
    g.write_text('[grid]\nname = "one"\nmethods = ["modular"]\nseeds = [0]\n[params]\n'
                 "depth = [1]\nwidth = [2]\nseq_len = [4]\n")
    db = tmp_path / "r.sqlite"
    assert main(["sweep", str(g), "--db", str(db), "--executor", "serial", "--quiet"]) == 0
    return str(db)


def test_results_json_and_the_deprecated_format(store, capsys):
    capsys.readouterr()
    assert main(["results", "--db", store, "--json"]) == 0
    new, err = capsys.readouterr()
    assert err == "" and json.loads(new)[0]["rank"] == 3
    assert main(["results", "--db", store, "--format", "json"]) == 0
    old, err = capsys.readouterr()
    assert old == new and "--format is deprecated: use --json or --csv" in err
    assert main(["results", "--db", store, "--format", "json", "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["results", "--db", store, "--csv"]) == 0
    assert capsys.readouterr().out.startswith("key,status,task")


@pytest.mark.parametrize("argv, text", [
    (["--json", "--csv"], "json: give --json or --csv, not both"),
    (["--format", "csv", "--json"], "format='csv': conflicts with --json"),
])
def test_results_conflicting_formats_one_line_exit_2(store, argv, text, capsys):
    capsys.readouterr()
    assert main(["results", "--db", store, *argv, "--quiet"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip().splitlines() == [f"seprank: error: {text}"]


def test_transition_plot_only_json_prints_the_rows(tmp_path, capsys):
    """--json on transition (here --plot-only: the committed CSV, nothing measured)."""
    import shutil
    from pathlib import Path

    from seprank.studies.transition import CSV_NAME

    root = Path(__file__).resolve().parents[2]
    shutil.copy(root / "paper_figures" / CSV_NAME, tmp_path / CSV_NAME)
    assert main(["transition", "--plot-only", "--out", str(tmp_path), "--json",
                 "--quiet"]) == 0
    out, err = capsys.readouterr()
    d = json.loads(out)
    assert d["rows"] and d["csv"].endswith(CSV_NAME) and d["not_measured"] == 0
    assert Path(d["figure"]).exists() and err == ""
