"""Certify any architecture: generic names, the architecture's own bound re-derived by the
checker, a bound the user states (labelled as such), edits caught."""

import json

import pytest
from _user_module import install

from seprank.cli import main
from seprank.errors import ConfigError
from seprank.nets import MPS
from seprank.nets.registry import resolve
from seprank.verdicts.certificate_format import claim_text
from seprank.verdicts.certificates import certificate_name, certify, check_certificate

MPS_ARGS = ["--arch", "mps", "--param", "seq_len=6", "--param", "phys_dim=2", "--param",
            "bond=2", "--partition", "0,2,4"]


@pytest.fixture(scope="module")
def mps_cert(tmp_path_factory):
    """``seprank certify --arch mps ...`` once: (its stdout, the certificate's path)."""
    import contextlib
    import io

    out = tmp_path_factory.mktemp("certs")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["certify", *MPS_ARGS, "--out", str(out), "--quiet"]) == 0
    (path,) = out.glob("*.json")
    return buf.getvalue(), path


MIN_CUT = ("exact, given the architecture's stated bound (tensor-network min-cut bound "
           "(Levine, Yakira, Cohen, Shashua, ICLR 2018 [M]; the bound itself is elementary "
           "[D]))")  # the min-cut bound is derived [D], not proved in proofs/: labels.md


def test_mps_certify_is_exact_given_the_min_cut(mps_cert, capsys):
    text, path = mps_cert
    assert text.splitlines()[0] == f"separation rank: 8  [{MIN_CUT}]"
    assert "min-cut" in text
    assert path.name == "MPS_N6_phys_dim2_bond2_A0-2-4_seed0_p67108859.json"
    cert = json.loads(path.read_text())
    assert (cert["architecture"], cert["upper_bound"], cert["upper_given"]) == ("MPS", 8, False)
    assert cert["upper_source"].startswith("tensor-network min-cut bound")
    assert main(["check-certificate", str(path)]) == 0
    assert capsys.readouterr().out == f"valid: separation rank = 8; {MIN_CUT}\n"


@pytest.mark.parametrize("field, value, code, words", [
    ("upper_bound", 9, 1, "upper_bound 9 != rank 8"),
    ("upper_bound", 7, 1, "upper_bound 7 is below the certified rank 8"),
    ("rank", 9, 1, "claimed rank 9 != sum of the block ranks 8"),
    ("upper_source", "my lemma", 1, "upper_source 'my lemma' is not the architecture's"),
    # a wrong type is a malformed certificate (exit 2), not a false one (exit 1)
    ("upper_bound", 8.0, 2, "upper_bound must be"),
    ("upper_bound", "8", 2, "upper_bound must be"),
    ("upper_given", "yes", 2, "upper_given must be true or false"),
])
def test_an_edited_certificate_is_refused_naming_the_field(mps_cert, tmp_path, capsys, field,
                                                           value, code, words):
    cert = json.loads(mps_cert[1].read_text())
    cert[field] = value
    bad = tmp_path / "edited.json"
    bad.write_text(json.dumps(cert))
    assert main(["check-certificate", str(bad)]) == code
    assert words in capsys.readouterr().err


def test_a_non_exact_certificate_with_a_wrong_bound_fails(mps_cert):
    cert = json.loads(mps_cert[1].read_text())
    cert.update(upper_bound=12, exact=False)
    r = check_certificate(cert)
    assert not r.ok and "upper_bound 12 is not the architecture's proved bound (8;" in \
        r.reasons[0]
    cert.update(upper_bound=None, upper_source=None)  # no bound, but the claim says exact
    r = check_certificate(cert)
    assert not r.ok and "is not what the verified fields give" in r.reasons[0]
    cert["claim"] = claim_text(8, None, False)  # no bound claimed: a lower bound
    r = check_certificate(cert)
    assert r.ok and not r.exact and r.status == "lower bound"


@pytest.mark.parametrize("edit, words", [
    ({"exact": False}, "exact=False, but the rank 8 meets upper_bound 8"),
    ({"claim": "sep = 8, trust me"}, "is not what the verified fields give"),
])
def test_exactness_and_the_claim_are_re_derived(mps_cert, edit, words):
    cert = json.loads(mps_cert[1].read_text())
    cert.update(edit)
    r = check_certificate(cert)
    assert not r.ok and words in r.reasons[0]


def test_a_stated_bound_is_labelled_and_checked_as_stated(tmp_path, capsys):
    net = MPS(seq_len=4, phys_dim=2, bond=2, periodic=True)  # no exact claim without a bound
    c = certify(net, (0, 1), upper=4, upper_source="Lemma 3 of my notes")
    assert (c.exact, c.status, c.upper_given) == (
        True, "exact, given the stated bound (Lemma 3 of my notes)", True)
    assert c.certificate["upper_given"] is True
    path = c.write(tmp_path)
    assert main(["check-certificate", str(path)]) == 0
    assert capsys.readouterr().out == ("valid: separation rank = 4; exact, given the stated "
                                       "bound (Lemma 3 of my notes)\n")
    low = certify(net, (0, 1), upper=3, upper_source="a wrong lemma")
    assert not low.exact and low.status == "lower bound" and "it is FALSE" in low.ground
    with pytest.raises(ConfigError, match="upper=-1 must be a non-negative integer"):
        certify(net, (0, 1), upper=-1)
    with pytest.raises(ConfigError, match="upper_source needs upper=U"):
        certify(net, (0, 1), upper_source="x")


def test_certify_cli_stated_bound_and_its_refusals(tmp_path, capsys):
    base = ["certify", "--arch", "mps", "--param", "seq_len=4", "--param", "phys_dim=2",
            "--param", "bond=2", "--param", "periodic=1", "--out", str(tmp_path),
            "--quiet"]
    assert main(base + ["--upper", "4", "--upper-source", "Lemma 3", "--check"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "separation rank: 4  [exact, given the stated bound (Lemma 3)]"
    assert out.splitlines()[-1] == "  check: valid"
    assert main(base + ["--upper-source", "Lemma 3"]) == 2
    assert "--upper-source needs --upper U" in capsys.readouterr().err
    assert main(base + ["--depth", "2"]) == 2
    assert "--depth: belongs to --arch attention" in capsys.readouterr().err


def test_certificate_names_are_generic_short_and_safe():
    def name(arch, config, part=(0, 1)):
        return certificate_name({"architecture": arch, "config": config,
                                 "partition": list(part), "seed": 1, "prime": 7})

    att = {"depth": 2, "width": 2, "heads": 1, "seq_len": 4, "residual": True,
           "query_position": 1, "output_coord": 0}
    assert name("LinearSelfAttention", att) == "LinearSelfAttention_L2_d2_H1_N4_res_q1_A0-1_" \
        "seed1_p7.json"
    assert name("pkg.mod:My Net", {"edges": [[0, 1], [1, 2]], "flag": False}) == \
        "pkg.mod.My-Net_edges0-1-1-2_A0-1_seed1_p7.json"
    long = name("X", {f"field_number_{i}": i + 1 for i in range(9)})
    assert long.startswith("X_cfg") and len(long) < 60
    assert long == name("X", {f"field_number_{i}": i + 1 for i in range(9)})  # deterministic


def test_check_certificate_accepts_the_class(tmp_path, monkeypatch):
    install(tmp_path, monkeypatch)
    cls = resolve("mymod:MyNet")
    c = certify(cls(seq_len=4, terms=3), (0, 1))
    assert c.status.startswith("exact, given the architecture's stated bound (")
    assert c.certificate["architecture"] == "mymod:MyNet"
    assert check_certificate(c.certificate, allow_import="mymod:MyNet").ok  # by its name
    cert = dict(c.certificate, architecture="elsewhere:MyNet")  # not importable by its name
    with pytest.raises(ConfigError, match="architecture='elsewhere:MyNet': module "
                                          "'elsewhere' cannot be imported"):
        check_certificate(cert, allow_import=True)  # not "invalid": it cannot be checked
    r = check_certificate(cert, cls=cls)  # the class, in your words: nothing imported
    assert r.ok and r.exact and r.status == c.status


def test_a_recalled_literature_bound_is_not_called_proved():
    from seprank.nets import GNN

    net = GNN(edges=((0, 1), (1, 2), (2, 3)), depth=1, width=2)
    c = certify(net, (0, 1))
    assert "[M]" in c.upper_why
    if c.exact:  # meeting a recalled bound is exact only given that bound
        assert c.status.startswith("exact, given the recalled literature bound")
        assert check_certificate(c.certificate).status == c.status
    assert c.status != "exact, proved"


def test_exact_labels_say_what_the_bound_rests_on():
    from seprank.theory.architecture_bounds import exact_label

    assert exact_label(False, "Lemma 1", "P") == "exact, proved"
    assert exact_label(False, "min-cut [D]", "D") == \
        "exact, given the architecture's stated bound (min-cut [D])"
    assert exact_label(False, "my class", "user") == \
        "exact, given the architecture's stated bound (my class)"
    assert exact_label(False, "block bound", "P") == "exact, proved"
    assert exact_label(True, "mine", "P") == "exact, given the stated bound (mine)"
    assert exact_label(False, "RVC 2023 [M]", "M") == \
        "exact, given the recalled literature bound (RVC 2023 [M])"
    assert exact_label(True, "Lemma 2", "user") == "exact, given the stated bound (Lemma 2)"


def test_check_certificate_takes_the_architecture_itself():
    net = MPS(seq_len=4, phys_dim=2, bond=2)
    cert = certify(net, (0, 1)).certificate
    assert check_certificate(cert, cls=net).ok
    other = check_certificate(cert, cls=MPS(seq_len=4, phys_dim=2, bond=3))
    assert not other.ok and "config" in other.reasons[0]


def test_a_subclass_that_changes_apply_does_not_inherit_the_bound():
    from seprank.theory.architecture_bounds import bound_of, has_architecture_bound

    class Squared(MPS):
        def apply(self, params, X, domain):
            y = super().apply(params, X, domain)
            return y * y

    class Renamed(MPS):
        pass

    assert bound_of(Squared(seq_len=4, phys_dim=2, bond=2), (0, 1)) is None
    assert not has_architecture_bound(Squared(seq_len=4, phys_dim=2, bond=2))
    assert bound_of(Renamed(seq_len=4, phys_dim=2, bond=2), (0, 1)).value == 2


def test_without_a_recheck_the_status_says_so():
    cert = certify(MPS(seq_len=4, phys_dim=2, bond=2), (0, 1)).certificate
    r = check_certificate(cert, recheck_upper=False)
    assert r.ok and r.status == "exact, bound not rechecked"
    assert check_certificate(cert).status == MIN_CUT
