"""The open registry: registry names, module:Class import paths and entry points."""

import sys

import pytest
from _user_module import install

from seprank.errors import ConfigError
from seprank.nets import ARCHITECTURES, MPS, LinearSelfAttention
from seprank.nets.registry import ENTRY_POINT_GROUP, import_path, label_of, name_of, resolve


def test_registry_names_and_class_names_resolve():
    assert resolve("mps") is MPS and resolve("attention") is LinearSelfAttention
    assert resolve("MPS") is MPS  # what certificates record
    assert resolve("seprank.nets.tensor_network:MPS") is MPS
    assert resolve(MPS) is MPS
    assert name_of(MPS) == "mps" and label_of(MPS) == "MPS"
    assert import_path(MPS) == "seprank.nets.tensor_network:MPS"
    assert all(resolve(n) is c and name_of(c) == n for n, c in ARCHITECTURES.items())


def test_import_path_of_a_users_module(tmp_path, monkeypatch):
    install(tmp_path, monkeypatch)
    cls = resolve("mymod:MyNet")
    assert cls.__name__ == "MyNet" and cls.__module__ == "mymod"
    assert name_of(cls) == label_of(cls) == import_path(cls) == "mymod:MyNet"
    assert resolve(" mymod:MyNet ") is cls


@pytest.mark.parametrize("name, words", [
    ("nosuchmod_xyz:Net", "module 'nosuchmod_xyz' cannot be imported"),
    ("mymod:Missing", "module 'mymod' has no attribute 'Missing'"),
    ("mymod:not_a_class", "not an architecture class"),
    ("mymod:NoApply", "not an architecture class"),
    ("mymod:np", "not an architecture class"),
    ("nope", "arch='nope' is not an architecture; valid: attention"),
    ("", "must be a registry name"),
])
def test_bad_names_are_one_line_config_errors_naming_arch(tmp_path, monkeypatch, name, words):
    install(tmp_path, monkeypatch)
    with pytest.raises(ConfigError, match="arch=") as e:
        resolve(name)
    assert words in str(e.value) and "\n" not in str(e.value)


def _dist(tmp_path, value: str):
    """An installed distribution (a .dist-info folder on sys.path) with one entry point."""
    info = tmp_path / "myarchs-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: myarchs\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\ncpnet = {value}\n"
                                           "broken = mymod:Missing\n")


def test_entry_point_of_an_installed_package(tmp_path, monkeypatch):
    install(tmp_path, monkeypatch)
    _dist(tmp_path, "mymod:MyNet")
    cls = resolve("cpnet")
    assert cls is sys.modules["mymod"].MyNet
    assert name_of(cls) == "mymod:MyNet"  # store keys record the resolved import path
    with pytest.raises(ConfigError, match="arch='broken': its entry point 'mymod:Missing'"):
        resolve("broken")
    with pytest.raises(ConfigError, match="is not an architecture"):
        resolve("cpnet2")


def test_a_non_dataclass_is_refused_for_params(tmp_path, monkeypatch):
    from seprank.nets.base import build

    class Plain:
        seq_len = 2

        def init(self, rng, domain): ...

        def apply(self, params, X, domain): ...

    assert resolve(Plain) is Plain
    with pytest.raises(ConfigError, match="is not a dataclass"):
        build(Plain, ["seq_len=2"])


def test_annotations_as_types_are_read_like_strings(tmp_path, monkeypatch):
    from seprank.nets.base import param_specs

    install(tmp_path, monkeypatch)
    specs = {s["name"]: s["kind"] for s in param_specs(resolve("mymod:MyNet"))}
    assert specs == {"seq_len": "int", "width": "int", "terms": "int"}


def test_a_module_in_the_working_directory_resolves_and_a_failing_one_is_one_line(
        tmp_path, monkeypatch):


    (tmp_path / "cwd_arch_mod.py").write_text(
        "from seprank.nets import MPS\nclass Mine(MPS):\n    pass\n")
    (tmp_path / "cwd_broken_mod.py").write_text("raise RuntimeError('boom')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    assert resolve("cwd_arch_mod:Mine").__name__ == "Mine"
    with pytest.raises(ConfigError, match="raised RuntimeError: boom"):
        resolve("cwd_broken_mod:X")
