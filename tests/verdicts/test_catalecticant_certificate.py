"""Catalecticant certificates: certify records a nonsingular minor of each coefficient
block, check_certificate rebuilds F's coefficients by an independent route
(seprank.verdicts.reference_poly) and accepts a true certificate, refuses each tampered
field with one reason, and the rebuild agrees with the builder and with the network."""

import copy
import json

import numpy as np
import pytest

from seprank import certify, check_certificate, measure
from seprank.algebra.domains import DEFAULT_PRIME, ModP
from seprank.cli import main
from seprank.engine import structural_poly as sp
from seprank.nets import LinearSelfAttention
from seprank.theory import bounds
from seprank.verdicts import reference_poly


def _cat(**kw):
    c = certify(LinearSelfAttention(**kw))
    assert c.measurement.strategy == "catalecticant"
    assert c.certificate is not None and c.certificate["strategy"] == "catalecticant"
    return c


@pytest.fixture(scope="module")
def exact_cert():
    c = _cat(depth=2, width=2, seq_len=4)
    assert c.exact and c.status == "exact, proved" and c.lower == 18
    return c.certificate


@pytest.fixture(scope="module")
def residual_cert():
    c = _cat(depth=2, width=2, seq_len=4, residual=True)
    assert not c.exact and c.lower == 18 and c.upper == 20  # deficient: 18 of 35 x 70
    return c.certificate


@pytest.mark.parametrize("kw", [
    dict(depth=1, width=2, seq_len=4), dict(depth=2, width=2, seq_len=4),
    dict(depth=1, width=3, seq_len=6), dict(depth=2, width=3, seq_len=6),
    dict(depth=2, width=2, heads=2, seq_len=4), dict(depth=1, width=2, heads=2, seq_len=5),
    dict(depth=1, width=2, seq_len=4, residual=True),
    dict(depth=2, width=2, heads=2, seq_len=4, residual=True),
    dict(depth=2, width=2, seq_len=5, query_position=4, output_coord=1),  # query on B
])
def test_round_trip(kw):
    c = _cat(**kw)
    r = check_certificate(json.loads(json.dumps(c.certificate)))
    assert r.ok, r.reasons
    assert r.rank == c.lower == sum(b["rank"] for b in c.certificate["blocks"])
    assert r.status == c.status and r.exact == c.exact
    assert c.exact == (c.lower == c.upper)  # "exact, proved" only where the bounds meet
    for b in c.certificate["blocks"]:
        assert len(b["rows"]) == len(b["cols"]) == len(b["coords"]) == b["rank"]


def test_plain_measurement_records_no_minors():
    m = measure(LinearSelfAttention(depth=2, width=2, seq_len=4), strategy="catalecticant")
    assert m.minors is None


def test_grid_keyword_keeps_the_grid_strategies():
    c = certify(LinearSelfAttention(depth=2, width=2, seq_len=4), grid=True)
    assert c.certificate["strategy"] == "graded" and check_certificate(c.certificate).ok


def _edit(cert, f):
    bad = copy.deepcopy(cert)
    f(bad)
    return check_certificate(bad)


def _big(c):
    return max(c["blocks"], key=lambda b: b["rank"])


def _raise_rank(c):  # one more row and column in a deficient matrix: singular
    b = _big(c)
    keys = sp.keys_up_to(4, 3, c["key_radix"]).tolist()  # degree <= D = 4 in 3 variables
    b["rows"].append(next(k for k in keys if k not in b["rows"]))
    b["cols"].append(next(k for k in keys if k not in b["cols"]))
    b["coords"].append(0)
    b["rank"] += 1
    c["rank"] += 1


def _duplicate(c):  # a block counted twice, the total raised to match
    c["blocks"].append(copy.deepcopy(c["blocks"][0]))
    c["rank"] += c["blocks"][0]["rank"]


def _set(path, value):
    def f(c):
        *head, last = path
        for k in head:
            c = c[k]
        c[last] = value(c[last]) if callable(value) else value
    return f


TAMPER = {  # name: (certificate, edit, a word of the one reason)
    "total": ("exact", _set(["rank"], lambda r: r + 1), "sum of the block ranks"),
    "repeated row": ("exact", lambda c: _big(c)["rows"].__setitem__(1, _big(c)["rows"][0]),
                     "repeat an index"),
    "singular minor": ("residual", _raise_rank, "singular"),
    "row key out of range": ("exact", _set(["blocks", 2, "rows", 0], 10**6), "outside"),
    "row key of another degree": ("exact", _set(["blocks", 2, "rows", 0], 1), "degree"),
    "coordinate": ("exact", _set(["blocks", 2, "coords", 0], 2), "coordinate"),
    "lengths": ("exact", lambda c: c["blocks"][2]["cols"].pop(), "columns"),
    "prime": ("exact", _set(["prime"], 1000003), "other weights"),
    "seed": ("exact", _set(["seed"], 1), "other weights"),
    "key radix": ("exact", _set(["key_radix"], 9), "key_radix"),
    "total degree": ("exact", _set(["total_degree"], 9), "total_degree"),
    "draws": ("exact", _set(["draws"], [["A", 1, 2]]), "draws"),
    "short side": ("exact", _set(["partition"], [0]), "at least width"),
    "block degree": ("exact", _set(["blocks", 0, "degree"], 3), "A-degree"),
    "duplicate block": ("exact", _duplicate, "distinct"),
    "residual flipped": ("residual", _set(["config", "residual"], False), "key_radix"),
    "residual block": ("residual", _set(["blocks", 0, "other_s_degree"], 2), "exactly one"),
    "upper below": ("residual", _set(["upper_bound"], 17), "below the certified rank"),
    "exact flag": ("exact", _set(["exact"], False), "meets"),
    "upper not proved": ("residual", _set(["upper_bound"], 21), "proved bound"),
    "architecture": ("exact", _set(["architecture"], "SoftmaxSelfAttention"),
                     "SoftmaxSelfAttention does not"),
}


@pytest.mark.parametrize("name", sorted(TAMPER))
def test_tampered_certificate_is_refused_with_one_reason(name, exact_cert, residual_cert):
    which, edit, word = TAMPER[name]
    r = _edit(exact_cert if which == "exact" else residual_cert, edit)
    assert not r.ok and r.status == "invalid"
    assert len(r.reasons) == 1 and word in r.reasons[0], r.reasons


@pytest.mark.parametrize("edit,word", [
    (lambda c: c.pop("keys"), "keys is missing"),
    (_set(["blocks", 0, "coords"], "0"), "coords"),
    (lambda c: c["blocks"][0].pop("other_s_degree"), "exactly"),
    (_set(["blocks", 0, "rows", 0], 2**63), "rows"),
    (_set(["config", "depth"], 30), "coefficients to rebuild"),
])
def test_malformed_catalecticant_fields_are_refused(edit, word, exact_cert):
    r = _edit(exact_cert, edit)
    assert not r.ok and len(r.reasons) == 1 and word in r.reasons[0], r.reasons


NETS = [dict(depth=1, width=2), dict(depth=2, width=2), dict(depth=3, width=2),
        dict(depth=2, width=3), dict(depth=2, width=4, heads=2),
        dict(depth=2, width=2, heads=2, residual=True), dict(depth=2, width=3, residual=True),
        dict(depth=2, width=3, output_coord=2)]


@pytest.mark.parametrize("kw", NETS)
def test_reference_rebuild_agrees_with_build_F(kw):
    net = LinearSelfAttention(seq_len=2 * kw["width"], **kw)
    p = DEFAULT_PRIME
    params = net.init(np.random.default_rng(7), ModP(p))
    d, D = net.width, bounds.matrix_degree(net.depth)
    m, radix = d * (d + 1) // 2, 2 * D + 1 if net.residual else D + 1
    keys, values = sp.coefficient_table(sp.build_F(net, params, p)[1], m, D, p, radix)
    F = reference_poly.reference_F(net, params, p, radix)
    assert sorted(set(np.concatenate([k for k, _ in F]).tolist())) == keys.tolist()
    got = reference_poly.entries(F, np.repeat(keys, d)[:, None].reshape(-1, d),
                                 np.arange(d)[None, :], p, m, radix)
    assert np.array_equal(got.astype(np.int64), values)


@pytest.mark.parametrize("kw", NETS[:3] + NETS[5:7])
def test_reference_rebuild_is_the_network(kw):
    """F(S) x^i from the rebuild equals the network's output at random inputs mod p."""
    net = LinearSelfAttention(seq_len=3, **kw)
    p = 10007
    dom = ModP(p)
    params = net.init(np.random.default_rng(1), dom)
    d, D = net.width, bounds.matrix_degree(net.depth)
    m, radix = d * (d + 1) // 2, 2 * D + 1 if net.residual else D + 1
    F = reference_poly.reference_F(net, params, p, radix)
    X = np.random.default_rng(2).integers(0, p, size=(4, net.seq_len, d))
    want = np.asarray(net.apply(params, dom.from_ints(X), dom), dtype=np.int64) % p
    for x, w in zip(X.tolist(), want.tolist()):
        S = [sum(x[j][a] * x[j][b] for j in range(net.seq_len)) % p
             for a in range(d) for b in range(a, d)]
        y = 0
        for c, (k, v) in enumerate(F):
            for alpha, coef in zip(reference_poly.digits(k, m, radix).tolist(), v.tolist()):
                term = int(coef)
                for s, e in zip(S, alpha):
                    term = term * pow(s, e, p) % p
                y += term * x[net.query_position][c]
        assert y % p == w


def test_cli_certify_and_check_catalecticant(tmp_path, capsys):
    out = tmp_path / "certs"
    assert main(["certify", "--depth", "2", "--width", "2", "--seq-len", "4", "--out", str(out),
                 "--quiet", "--check"]) == 0
    text = capsys.readouterr().out
    assert "separation rank: 18  [exact, proved]" in text and "check: valid" in text
    (path,) = out.glob("*.json")
    assert json.loads(path.read_text())["strategy"] == "catalecticant"
    assert main(["check-certificate", str(path)]) == 0
    assert "valid: separation rank = 18; exact, proved" in capsys.readouterr().out
    cert = json.loads(path.read_text())
    cert["blocks"][1]["rows"][0] = cert["blocks"][1]["rows"][1]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(cert))
    assert main(["check-certificate", str(bad)]) == 1
