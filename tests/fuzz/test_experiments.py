"""The experiment scripts keep the CLI's contract: --out '' refused (it is not the default
folder, which is in the checkout), a foreign results.csv refused by its columns before any
training (not a KeyError), and exit 2 even when stderr cannot be written."""

import pytest

pytest.importorskip("torch")

SCRIPTS = ["depth_width", "teacher_student"]


def _main(script):
    import importlib

    return importlib.import_module(f"experiments.{script}.run").main


@pytest.mark.parametrize("script", SCRIPTS)
def test_an_empty_out_is_refused(script, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert _main(script)(["--out", ""]) == 2
    assert "is empty" in capsys.readouterr().err and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_foreign_results_csv_is_refused_before_training(script, capsys, tmp_path):
    (tmp_path / "results.csv").write_text("colour,size\nred,3\n")
    assert _main(script)(["--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "is not this script's CSV" in err and len(err.strip().splitlines()) == 1


def test_exit_2_when_stderr_cannot_be_written(tmp_path, monkeypatch):
    import sys

    class Closed:
        def write(self, _):
            raise OSError(5, "Input/output error")

        def flush(self):
            raise OSError(5, "Input/output error")

    monkeypatch.setattr(sys, "stderr", Closed())
    assert _main("depth_width")(["--out", ""]) == 2


def test_a_bad_flag_exits_2_when_stderr_cannot_be_written(monkeypatch):
    import sys

    class Closed:
        def write(self, _):
            raise OSError(5, "Input/output error")

        def flush(self):
            raise OSError(5, "Input/output error")

    monkeypatch.setattr(sys, "stderr", Closed())
    with pytest.raises(SystemExit) as e:
        _main("depth_width")(["--preset", "no-such-preset"])
    assert e.value.code == 2
