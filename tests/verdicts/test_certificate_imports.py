"""A certificate is data: check_certificate imports no module a certificate names unless
the caller says so (cls=, allow_import=); registry names, seprank's own classes and
installed entry points need no permission; a module that cannot be imported is an error
raised, never an "invalid" verdict."""

import sys

import pytest
from _tripwire import TORCH_SOURCE, forget, tripwire
from _user_module import install

from seprank.errors import ConfigError
from seprank.nets import registry
from seprank.nets.registry import resolve
from seprank.verdicts.certificates import certify, check_certificate


@pytest.fixture
def sent(tmp_path, monkeypatch):
    """A certificate of tripmod:MyNet (tripmod importable from sys.path, as anything on
    PYTHONPATH or in the working directory is), the module then forgotten: (certificate,
    its path, the mark tripmod's import writes)."""
    folder = tmp_path / "code"
    folder.mkdir()
    mark = tripwire(folder, tmp_path / "marks")
    monkeypatch.syspath_prepend(str(folder))
    c = certify(resolve("tripmod:MyNet")(seq_len=4, terms=3), (0, 1))
    assert c.certificate["architecture"] == "tripmod:MyNet" and mark.exists()
    path = c.write(tmp_path / "certs")
    forget("tripmod", mark)
    yield c.certificate, path, mark
    forget("tripmod", mark)


@pytest.mark.parametrize("as_path", [False, True], ids=["dict", "file"])
def test_a_module_the_certificate_names_is_not_imported(sent, as_path):
    cert, path, mark = sent
    with pytest.raises(ConfigError, match=r"the certificate names the module 'tripmod' "
                       r"\(architecture 'tripmod:MyNet'\).*allow_import=True"):
        check_certificate(path if as_path else cert)
    assert not mark.exists() and "tripmod" not in sys.modules


@pytest.mark.parametrize("allow", [True, "tripmod:MyNet", ["tripmod:MyNet", "x:Y"]])
def test_with_permission_it_imports_and_checks(sent, allow):
    cert, path, mark = sent
    r = check_certificate(path, allow_import=allow)
    assert r.ok and r.exact and r.rank == 3 and mark.exists()


@pytest.mark.parametrize("allow", [False, None, "tripmod:Other", ["other:MyNet"], ()])
def test_permission_for_something_else_is_no_permission(sent, allow):
    cert, _, mark = sent
    with pytest.raises(ConfigError, match="names the module 'tripmod'"):
        check_certificate(cert, allow_import=allow)
    assert not mark.exists()


def test_allow_import_must_be_a_flag_or_import_paths(sent):
    with pytest.raises(ConfigError, match="allow_import=3 must be True, False, or the import"):
        check_certificate(sent[0], allow_import=3)
    with pytest.raises(ConfigError, match="allow_import=.* must be True, False"):
        check_certificate(sent[0], allow_import=[1])


def test_your_class_is_your_word_and_the_named_module_stays_unimported(sent, tmp_path,
                                                                      monkeypatch):
    cert, _, mark = sent
    install(tmp_path, monkeypatch)  # the same class, as mymod: your own copy
    r = check_certificate(cert, cls=resolve("mymod:MyNet"))
    assert r.ok and r.exact and not mark.exists()
    r = check_certificate(cert, cls=resolve("mymod:MyNet")(seq_len=4, terms=3))
    assert r.ok and not mark.exists()
    r = check_certificate(cert, cls="mymod:MyNet")  # a name in your words: imported
    assert r.ok and not mark.exists()


def test_a_module_that_cannot_be_imported_raises_and_is_never_invalid(sent, tmp_path,
                                                                     monkeypatch):
    cert = dict(sent[0], architecture="gone_module_xyz:MyNet")
    with pytest.raises(ConfigError, match="architecture='gone_module_xyz:MyNet': module "
                                          "'gone_module_xyz' cannot be imported"):
        check_certificate(cert, allow_import=True)
    (tmp_path / "boom.py").write_text("raise RuntimeError('boom at import')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ConfigError, match="importing module 'boom' raised RuntimeError: boom"):
        check_certificate(dict(cert, architecture="boom:MyNet"), allow_import=True)
    with pytest.raises(ConfigError, match="module 'tripmod' has no attribute 'Nope'"):
        check_certificate(dict(cert, architecture="tripmod:Nope"), allow_import=True)
    with pytest.raises(ConfigError, match="'NoSuchArchitecture' is not an architecture"):
        check_certificate(dict(cert, architecture="NoSuchArchitecture"))


def test_an_installed_entry_point_needs_no_permission(sent, monkeypatch):
    from importlib import metadata

    cert, _, mark = sent
    ep = metadata.EntryPoint("tripnet", "tripmod:MyNet", registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(metadata, "entry_points",
                        lambda group=None: [ep] if group == ep.group else [])
    r = check_certificate(dict(cert, architecture="tripnet"))  # an installed package's name
    assert r.ok and mark.exists()


def test_seprank_own_classes_by_name_or_import_path_need_no_permission():
    from seprank.nets import MPS

    cert = certify(MPS(seq_len=4, phys_dim=2, bond=2), (0, 1)).certificate
    for name in ("MPS", "mps", "seprank.nets.tensor_network:MPS"):
        assert check_certificate(dict(cert, architecture=name)).ok


@pytest.fixture
def torch_sent(tmp_path, monkeypatch):
    """A certificate of a torch factory module (TorchModule, factory tripfac:make)."""
    pytest.importorskip("torch")
    from seprank.nets.torch_module import TorchModule

    folder = tmp_path / "code"
    folder.mkdir()
    mark = tripwire(folder, tmp_path / "marks", "tripfac", TORCH_SOURCE)
    monkeypatch.syspath_prepend(str(folder))
    net = TorchModule(factory="tripfac:make", seq_len=2, width=2)
    c = certify(net, (0,), upper=2, upper_source="w . (x_0 * x_1): a sum of 2 products")
    assert c.exact and c.certificate["config"]["factory"] == "tripfac:make"
    forget("tripfac", mark)
    yield c.certificate, mark
    forget("tripfac", mark)


@pytest.mark.parametrize("label", [None, "TorchModule"])
def test_a_torch_factory_the_certificate_names_is_not_imported(torch_sent, label):
    from seprank.nets.torch_module import TorchModule

    cert, mark = torch_sent
    cert = dict(cert, architecture=label or cert["architecture"])
    for kw in ({}, {"cls": TorchModule}, {"allow_import": "tripfac:other"}):
        with pytest.raises(ConfigError, match=r"names the module 'tripfac' \(factory "
                                              r"'tripfac:make'\)"):
            check_certificate(cert, **kw)
        assert not mark.exists() and "tripfac" not in sys.modules
    r = check_certificate(cert, allow_import="tripfac:make")
    assert r.ok and r.status.startswith("exact, given the stated bound") and mark.exists()


def test_an_allowed_torch_factory_that_cannot_be_imported_raises(torch_sent):
    cert = dict(torch_sent[0], config=dict(torch_sent[0]["config"], factory="gone_xyz:make"))
    with pytest.raises(ConfigError, match="factory='gone_xyz:make': module 'gone_xyz' cannot"):
        check_certificate(cert, allow_import=True)
    cert["config"]["factory"] = "tripfac:nothing"
    with pytest.raises(ConfigError, match="module 'tripfac' has no attribute 'nothing'"):
        check_certificate(cert, allow_import=True)
