"""``seprank bounds`` prints an architecture's Bound as it always did: the value and its
kind, the facts beside it (lower bound, halving bound, walk index, equality) and the
source; a user's class declares a Bound of any status, or the older (bound, source)."""

import json
import math
import sys
import textwrap

from seprank.cli import main


def _bounds(capsys, arch, params, partition, *more):
    argv = ["bounds", "--arch", arch, "--partition", partition, *more]
    rc = main(argv + [x for p in params for x in ("--param", p)])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out


def test_gnn_prints_its_walk_index(capsys):
    out = _bounds(capsys, "gnn", ["edges=0-1,1-2", "depth=2", "width=2"], "0")
    wi = 2 + 3  # one-step walks (self-loops added) from the boundary {0, 1} of the path
    assert out.splitlines()[1:] == [
        f"  upper bound: {2 ** (4 * wi + 1)}  (upper bound (every weight), recalled)",
        f"  walk index: {wi}",
        f"  source: Razin-Verbin-Cohen 2023: sep <= D_h^(4 WI + 1) with walk index WI = {wi} [M]",
    ]


def test_deep_rac_prints_its_recalled_lower_bound_only(capsys):
    out = _bounds(capsys, "rac", ["seq_len=4", "in_dim=2", "hidden=3", "depth=2"], "0,1")
    assert out.splitlines()[1:] == [
        f"  lower bound: {math.comb(2 + 2 - 1, 2)}",
        "  source: deep RAC, Start-End: sep >= C(T/2 + min(M,R) - 1, T/2) "
        "(Levine-Sharir-Shashua 2018) [M]",
    ]
    d = json.loads(_bounds(capsys, "rac", ["seq_len=4", "in_dim=2", "hidden=3", "depth=2"],
                           "0,1", "--json"))
    assert (d["upper"], d["lower"], d["tag"]) == (None, 3, "M")


def test_deep_convac_prints_its_halving_bound(capsys):
    out = _bounds(capsys, "convac-deep", ["seq_len=4", "in_dim=2", "channels=3,2"], "0,1")
    lines = out.splitlines()
    assert lines[1:3] == ["  upper bound: 2  (min-cut of the HT tree (every weight))",
                          "  halving bound: 2"]
    assert lines[3].endswith("; halving partition: sep <= r_{L-1} = 2 for all weights [V2]")


def test_mps_prints_its_equality_statement(capsys):
    out = _bounds(capsys, "mps", ["seq_len=6", "phys_dim=2", "bond=2"], "0,1,2")
    assert out.splitlines()[1:3] == [
        f"  upper bound: {min(2, 2**3)}  (min-cut upper bound (every weight))",
        "  equality: open chain: equality for almost all weights when bond dimensions are "
        "powers of one integer (Cui et al. 2016 [V abstract])",
    ]


def test_a_mixer_beyond_its_derivation_prints_only_the_source(capsys):
    out = _bounds(capsys, "hyena", ["depth=2", "width=2"], "0,1")
    assert out.splitlines()[1:] == [
        "  source: no bound for this depth and partition known to seprank"]


SOURCE = textwrap.dedent('''
    from dataclasses import dataclass

    from seprank.nets.bound import Bound


    @dataclass(frozen=True)
    class Stated:
        """A sum of R products (CP rank R), with its bound as a Bound."""

        seq_len: int = 4
        width: int = 2
        terms: int = 2

        def init(self, rng, domain):
            return {"W": domain.random(rng, (self.seq_len, self.terms, self.width))}

        def apply(self, params, X, domain):
            return X[:, 0, 0]

        def upper_bound(self, partition):
            return Bound(self.terms, "CP rank R [M]", "recalled", "cp bound")
''')


def test_a_users_bound_is_printed_with_its_kind(tmp_path, monkeypatch, capsys):
    (tmp_path / "statedmod.py").write_text(SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "statedmod", raising=False)
    out = _bounds(capsys, "statedmod:Stated", ["terms=3"], "0,1")
    assert out.splitlines()[1:] == ["  upper bound: 3  (cp bound)", "  source: CP rank R [M]"]
    d = json.loads(_bounds(capsys, "statedmod:Stated", ["terms=3"], "0,1", "--json"))
    assert (d["upper"], d["kind"], d["tag"], d["source"]) == (3, "cp bound", None, "CP rank R [M]")
