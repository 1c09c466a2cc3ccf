"""Every experiment script refuses bad arguments in one line naming the argument, exit 2,
before it measures, trains or writes anything (experiments/script_args.py)."""

import importlib
from pathlib import Path

import pytest

CASES = [
    ("deficit_kernel", ["--depth", "0"], "--depth: must be >= 1"),
    ("deficit_kernel", ["--prime", "4"], "--prime: prime=4 must be a prime in"),
    ("deficit_kernel", ["--depth", "1", "--width", "2", "--seq-len", "4", "--degree", "2"],
     "--degree: the blocks' A-degrees are odd"),
    ("benchmark_sweep", ["--workers", "0"], "--workers: must be >= 1"),
    ("benchmark_field_arrays", ["--repeats", "0"], "--repeats: must be >= 1"),
    ("benchmark_field_arrays", ["--batch", "x"], "--batch: expected an integer"),
    ("benchmark_xpelim", ["--sizes", "0"], "--sizes: must be >= 2"),
    ("benchmark_xpelim", ["--sizes", "50", "--deficit", "60"], "--deficit: 60 must be below"),
    ("benchmark_xpelim", ["--prime", "9"], "--prime: prime=9 must be a prime in"),
    ("benchmark_elimination", ["--sizes", "1"], "--sizes: expected a comma list"),
    ("benchmark_elimination", ["--sizes", "10000000"], "--sizes: expected a comma list"),
    ("benchmark_elimination", ["--repeats", "0"], "--repeats: must be >= 1"),
    ("benchmark_xpelim", ["--torch-threads", "1000000000"], "--torch-threads: must be <= 1024"),
    ("deficit_kernel", ["--width", "1000000"], "--width: must be <= 16"),
    ("deficit_kernel", ["--depth", "40"], "--depth: must be <= 5"),
    ("deficit_kernel", ["--degree", "2", "--depth", "1", "--width", "2", "--seq-len", "4",
                        "--out", "new/k.json"], "--degree: the blocks' A-degrees are odd"),
    ("deficit_kernel", ["--out", ""], "--out: empty"),
    ("mixers_length", ["--depths", "1000000000000"], "--depths: expected a comma list"),
    ("mixers_compare", ["--out", ""], "--out: empty"),
    ("mixers_compare", ["--plot-only", "--out", "new"], "no mixers_compare.csv rows"),
    ("depth_width.run", ["--name", "teacher-student"], "unrecognized arguments: --name"),
    ("depth_width.run", ["--preset", "huge"], "--preset: invalid choice: 'huge'"),
    ("teacher_student.run", ["--preset", "huge"], "--preset: invalid choice: 'huge'"),
    ("teacher_student.run", ["--device", "tpu"], "--device: invalid choice: 'tpu'"),
    ("depth_width.run", ["--threads", "1000000000"], "--threads: must be <= 1024"),
    ("depth_width.run", ["--threads", "-1"], "--threads: must be >= 1"),
    ("teacher_student.run", ["--threads", "0"], "--threads: must be >= 1"),
    ("depth_width.benchmark_throughput", ["--depth", "0"], "--depth: must be >= 1"),
    ("depth_width.benchmark_throughput", ["--heads", "3"], "--heads: 3 must divide"),
    ("depth_width.benchmark_throughput", ["--width", "8192", "--depth", "64", "--heads", "1"],
     "the two models need about"),
    ("heads_deficits", ["no-such.jsonl", "out.md"], "data='no-such.jsonl' is not a file"),
    ("heads_cells", ["cells.jsonl", "--only", "3,3"], "--only: ['3,3'] must be cells"),
    ("heads_cells", ["cells.jsonl", "--budget", "0"], "--budget:"),
]


@pytest.mark.parametrize("name, argv, words", CASES,
                         ids=[f"{c[0]} {' '.join(c[1])}" for c in CASES])
def test_scripts_refuse_bad_arguments_in_one_line(name, argv, words, capsys, tmp_path,
                                                 monkeypatch):
    if name.startswith(("depth_width", "teacher_student")):
        pytest.importorskip("torch")
    monkeypatch.chdir(tmp_path)
    script = importlib.import_module(f"experiments.{name}")
    with pytest.raises(SystemExit) as e:
        script.main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and words in err and len(err.strip().splitlines()) == 1, err
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_an_output_file_in_an_unwritable_place_is_refused_before_the_work(tmp_path, capsys):
    from experiments import deficit_kernel

    (tmp_path / "file").write_text("")
    for out, words in ((tmp_path / "file" / "k.json", "not a writable folder"),
                       (tmp_path, "is a folder, not a file")):
        with pytest.raises(SystemExit) as e:
            deficit_kernel.main(["--out", str(out)])
        assert e.value.code == 2 and words in capsys.readouterr().err


def test_a_kernel_file_that_cannot_be_written_is_one_line_after_the_printed_result(capsys):
    from experiments import deficit_kernel

    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    with pytest.raises(SystemExit) as e:
        deficit_kernel.main(["--depth", "1", "--width", "2", "--seq-len", "4", "--degree", "1",
                             "--seeds", "0", "--out", "/dev/full"])
    out, err = capsys.readouterr()
    assert e.value.code == 2 and "seed 0: block" in out  # the result was printed first
    # /dev/full is a device: the atomic writer never replaces one (nothing is written)
    assert err.strip().splitlines()[-1].endswith("--out: /dev/full: cannot be written (not a "
                                                 "regular file); nothing was left there")


def test_cuda_without_a_gpu_is_refused_before_the_folder_is_made(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a GPU is here")
    from experiments.teacher_student import run

    assert run.main(["--device", "cuda", "--preset", "smoke", "--out", str(tmp_path / "new")]) == 2
    assert "no GPU is available" in capsys.readouterr().err
    assert not (tmp_path / "new").exists()
