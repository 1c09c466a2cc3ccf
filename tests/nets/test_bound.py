"""One bound protocol (seprank.nets.bound): Bound(value, source, status), validated in one
line; every zoo architecture declares its bound through ``upper_bound(partition) -> Bound``
with the value and source its module derives (computed here from the formulas)."""

import math
from dataclasses import dataclass

import numpy as np
import pytest

import seprank
from seprank import labels
from seprank.errors import ConfigError
from seprank.nets import (
    GLA,
    GNN,
    MPS,
    RAC,
    S4,
    S6,
    ConvACDeep,
    ConvACShallow,
    EmbeddedAttention,
    Hyena,
    LinearAttention,
    LinearSelfAttention,
    MLPMixer,
    Retention,
    SoftmaxSelfAttention,
)
from seprank.nets.bound import (
    OWN_KIND,
    Bound,
    derived,
    from_dict,
    from_pair,
    tagged,
    theorem_of,
)
from seprank.theory import bounds
from seprank.theory.architecture_bounds import architecture_bound, bound_of


@pytest.mark.parametrize("args, words", [
    ((-1, "x", "proved"), "value=-1 must be a non-negative int"),
    ((True, "x", "proved"), "value=True"),
    ((2.0, "x", "proved"), "value=2.0"),
    (("3", "x", "proved"), "value='3'"),
    ((3, "", "proved"), "source=''"),
    ((3, "  ", "recalled"), "source='  '"),
    ((3, None, "recalled"), "source=None"),
    ((3, "x", "exact"), "status='exact' must be one of proved, recalled, architecture, user"),
    ((3, "x", "proved", "k", "D"), "tag='D' does not give status='proved'"),
    ((3, "x", "architecture", "k", "Q"), "tag='Q'"),
    ((3, "x", "user", 5), "kind=5 must be a str"),
    ((3, "x", "user", "", None, (("upper", 4),)), "facts="),
    ((3, "x", "user", "", None, ((1, 4),)), "facts="),
])
def test_a_bad_bound_is_refused_in_one_line_naming_the_field(args, words):
    with pytest.raises(ConfigError) as e:
        Bound(*args)
    assert words in str(e.value) and "\n" not in str(e.value)


def test_a_bound_keeps_its_fields_and_normalises_them():
    b = Bound(np.int64(7), "  Lemma 2 ", "recalled", "upper bound", "M", {"lower": 3})
    assert (b.value, type(b.value), b.source, b.status) == (7, int, "Lemma 2", "recalled")
    assert b.facts == (("lower", 3),) and b.fact("lower") == 3 and b.fact("x", 0) == 0
    assert b.as_dict() == {"upper": 7, "kind": "upper bound", "tag": "M", "source": "Lemma 2",
                           "lower": 3}
    assert hash(b) == hash(Bound(7, "Lemma 2", "recalled", "upper bound", "M", {"lower": 3}))
    assert Bound(None, "none known", "architecture").value is None
    with pytest.raises(AttributeError):
        b.value = 8  # frozen


def test_each_status_keeps_its_label():
    """The statuses are labels.py's: the words of a rank meeting each are unchanged."""
    assert [tagged(1, "s", t).status for t in ("P", "M", "V", "V2", "D", "user")] == \
        ["proved", "recalled", "recalled", "recalled", "architecture", "architecture"]
    assert labels.exact_label(Bound(4, "Thm", "proved").status) == "exact, proved"
    assert labels.exact_label(Bound(4, "RVC [M]", "recalled").status, "RVC [M]") == \
        "exact, given the recalled literature bound (RVC [M])"
    assert labels.exact_label(Bound(4, "mine", "user").status, "mine") == \
        "exact, given the stated bound (mine)"
    with pytest.raises(ConfigError, match="tag='X' must be one of"):
        tagged(1, "s", "X")


def test_the_helpers():
    assert derived(None, "").as_dict() == {
        "upper": None, "kind": "none known", "tag": "D",
        "source": "no bound for this depth and partition known to seprank"}
    assert derived(3, "why [D]") == Bound(3, "why [D]", "architecture",
                                          "upper bound (every weight) [D]", "D")
    assert from_pair((3, " CP rank "), "Net") == Bound(3, "CP rank", "architecture", OWN_KIND,
                                                       "user")
    old = {"upper": 5, "walk_index": 1, "kind": "k", "tag": "M", "source": "RVC"}
    assert from_dict(old) == Bound(5, "RVC", "recalled", "k", "M", {"walk_index": 1})
    assert from_dict({"upper": 2, "tag": "??"}).status == "architecture"


def _prefix(k):
    return tuple(range(k))


def _case_rows():
    """(net, partition, value, source, status, facts): each zoo bound from its formula."""
    mps_src = ("tensor-network min-cut bound (Levine, Yakira, Cohen, Shashua, ICLR 2018 [M]; "
               "the bound itself is elementary [D])")
    open_eq = ("open chain: equality for almost all weights when bond dimensions are powers "
               "of one integer (Cui et al. 2016 [V abstract])")
    ring_eq = ("periodic: can fall below the min-cut (Gesmundo, Landsberg, Walter 2018 "
               "[V abstract]); measure it")
    conv_src = ("shallow ConvAC (CP form): sep <= Z for every partition [V2, Cohen-Sharir-"
                "Shashua via lecture notes]; min(Z, M^|A|, M^|B|) for generic weights [D]")
    rac1 = ("shallow RAC, prefix partition: sep <= R for every T [D] (= R for generic "
            "weights: Levine-Sharir-Shashua 2018 [M])")
    rac2 = ("deep RAC, Start-End: sep >= C(T/2 + min(M,R) - 1, T/2) (Levine-Sharir-Shashua "
            "2018) [M]")
    none = "no bound for this depth and partition known to seprank"
    mixer = ("mixer with one hidden token: f = P(T1 X), a form of degree 4^L in d numbers, "
             "sep <= sum_k min(C(k+d-1, d-1), C(4^L-k+d-1, d-1)) [D]")
    att = ("one linear-attention layer: the side without the query enters through H d_a "
           "numbers, sep <= width + 1 [D]")
    ret = ("one retention layer: the side without the query enters through H d_a numbers, "
           "sep <= width + 1 [D]")
    gla = ("one gla layer, prefix/suffix partition: the prefix enters through H d_a numbers, "
           "sep <= width + 1 [D]")
    s6 = ("one s6 layer, prefix/suffix partition: the prefix enters through the read "
          "channel's state, sep <= state + 1 [D]")
    s4 = "s4: f = l_A + l_B (linear) or (l_A + l_B) e(x_query) (one product layer), sep <= 2 [D]"
    hy = ("one hyena layer: the side without the query enters through d channel sums, "
          "sep <= width + 1 [D]")
    D, d = 4**2, 2
    form = sum(min(math.comb(k + d - 1, d - 1), math.comb(D - k + d - 1, d - 1))
               for k in range(D + 1))
    return [
        (MPS(seq_len=6, phys_dim=2, bond=3), _prefix(2), min(3, 2**2, 2**4), mps_src,
         "architecture", {"equality": open_eq, "bond_is_power": True}),
        (MPS(seq_len=6, phys_dim=3, bond=2, periodic=True), _prefix(3), min(2 * 2, 3**3),
         mps_src, "architecture", {"equality": ring_eq, "bond_is_power": True}),
        (MPS(seq_len=4, phys_dim=2, bond=1), _prefix(2), 1, mps_src, "architecture",
         {"equality": open_eq, "bond_is_power": False}),
        (ConvACShallow(seq_len=5, in_dim=3, channels=7), (0, 3), min(7, 3**2, 3**3),
         conv_src, "recalled", {}),
        (RAC(seq_len=6, in_dim=2, hidden=5), _prefix(2), min(5, 2**2, 2**4), rac1,
         "architecture", {}),
        (RAC(seq_len=6, in_dim=2, hidden=5), (1, 4), min(2**2, 2**4),
         "no published bound for this partition known to seprank", "architecture", {}),
        (RAC(seq_len=6, in_dim=2, hidden=3, depth=2), _prefix(3), None, rac2, "recalled",
         {"lower": math.comb(3 + 2 - 1, 3)}),
        (LinearAttention(1, 4, seq_len=4), (0, 2), 5, att, "architecture", {}),
        (LinearAttention(2, 4, seq_len=4), (0, 2), None, none, "architecture", {}),
        (Retention(1, 2, seq_len=4), (1,), 3, ret, "architecture", {}),
        (GLA(1, 2, seq_len=4), (2, 3), 3, gla, "architecture", {}),
        (GLA(1, 2, seq_len=4), (0, 2), None, none, "architecture", {}),
        (S6(1, 2, state=3, seq_len=4), (0, 1), 4, s6, "architecture", {}),
        (S4(3, 2), (0, 2), 2, s4, "architecture", {}),
        (S4(2, 2, product=True), (0, 2), None, none, "architecture", {}),
        (Hyena(1, 3), (1,), 4, hy, "architecture", {}),
        (MLPMixer(2, 2, seq_len=4, token_hidden=1), (0, 2), form, mixer, "architecture", {}),
        (MLPMixer(1, 2), (0, 2), None, none, "architecture", {}),
    ]


@pytest.mark.parametrize("net, A, value, source, status, facts", _case_rows())
def test_each_zoo_upper_bound_is_the_formula_of_its_module(net, A, value, source, status,
                                                           facts):
    b = net.upper_bound(A)
    assert isinstance(b, Bound)
    assert (b.value, b.source, b.status, dict(b.facts)) == (value, source, status, facts)
    assert bound_of(net, A) == b


def test_gnn_bound_from_its_walk_index():
    """[M] width^(4 WI + 1): on the path 0-1-2 (self-loops added) with A = {0}, the
    boundary is {0, 1} and its one-step walks number 2 + 3 = 5."""
    net = GNN(edges="0-1,1-2", depth=2, width=2)
    b = net.upper_bound((0,))
    adj = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]])
    wi = int(adj[[0, 1]].sum())
    assert (b.value, b.status, b.fact("walk_index")) == (2 ** (4 * wi + 1), "recalled", wi)
    assert b.source == ("Razin-Verbin-Cohen 2023: sep <= D_h^(4 WI + 1) with walk index "
                        f"WI = {wi} [M]")


def test_convac_deep_halving_and_interleaved():
    """[V2] halving: sep <= r_{L-1}; [M] interleaved: lower min(r_0, M)^(N/2)."""
    net = ConvACDeep(seq_len=4, in_dim=2, channels=(3, 2))
    half = net.upper_bound((0, 1))
    assert (half.value, half.fact("halving_bound"), half.status) == (2, 2, "architecture")
    assert half.source.endswith("; halving partition: sep <= r_{L-1} = 2 for all weights [V2]")
    inter = net.upper_bound((0, 2))
    assert inter.fact("lower") == min(3, 2) ** 2 and inter.fact("halving_bound") is None
    assert "interleaved: >= min(r_0, M)^(N/2) = 4" in inter.source
    big = ConvACDeep(seq_len=16, in_dim=2, channels=(2, 2, 2, 2)).upper_bound((0, 1, 2, 3, 4))
    assert (big.value, big.kind) == (2**5, "trivial (every weight)")


def test_the_papers_network_declares_its_theorem_and_theory_owns_the_bound():
    net = LinearSelfAttention(depth=2, width=2, seq_len=4)
    assert theorem_of(net) == "linear_attention" and not hasattr(net, "upper_bound")
    b = bound_of(net, (0, 1))
    ub = bounds.theorem_bound(net, (0, 1))
    assert (b.value, b.source, b.status, b.tag) == (ub["upper"], ub["why"], "proved", "P")
    assert b.fact("log10_upper") == ub["log10_upper"] and b.fact("which") == "block"
    emb = EmbeddedAttention(depth=1, width=3, seq_len=4, vocab=3, embed_rank=2)
    at_r = bounds.theorem_bound(LinearSelfAttention(depth=1, width=2, seq_len=4), (0, 1))
    assert bound_of(emb, (0, 1)).value == min(at_r["upper"], 3**2)
    assert bound_of(emb, (0, 1)).status == "architecture"


def test_softmax_attention_gets_no_proved_bound():
    net = SoftmaxSelfAttention(1, 2, 1, 4)
    assert theorem_of(net) is None and bound_of(net) is None
    with pytest.raises(ConfigError, match="SoftmaxSelfAttention: no proved upper bound"):
        bounds.theorem_bound(net)
    with pytest.raises(ConfigError, match="no proved upper bound in seprank"):
        seprank.upper_bound(net)


def test_a_declaration_of_a_theorem_is_not_inherited():
    @dataclass(frozen=True)
    class Sub(LinearSelfAttention):
        pass

    @dataclass(frozen=True)
    class Declared(LinearSelfAttention):
        bound_theorem = "linear_attention"

    @dataclass(frozen=True)
    class Other(LinearSelfAttention):  # another function claiming the paper's theorem
        bound_theorem = "linear_attention"

        def _scores(self, q, k, domain):
            s = super()._scores(q, k, domain)
            return domain.add(s, s)

    assert bound_of(Sub(1, 2, seq_len=4)) is None
    assert bound_of(Declared(1, 2, seq_len=4)) == bound_of(LinearSelfAttention(1, 2, seq_len=4))
    claimed = bound_of(Other(1, 2, seq_len=4))  # the value, but never "proved"
    assert claimed.value == bound_of(LinearSelfAttention(1, 2, seq_len=4)).value
    assert claimed.status == "architecture" and "not proved for its function" in claimed.source


@dataclass(frozen=True)
class _Plain:
    """A user's class: a sum of two products of linear forms (CP rank 2), no bound."""

    seq_len: int = 4
    width: int = 2

    def init(self, rng, domain):
        return {"W": domain.random(rng, (self.seq_len, 2, self.width))}

    def apply(self, params, X, domain):
        W = params["W"]
        P = domain.einsum("bd,rd->br", X[:, 0], W[0])
        for n in range(1, self.seq_len):
            P = domain.mul(P, domain.einsum("bd,rd->br", X[:, n], W[n]))
        return domain.einsum("br,r->b", P, domain.from_ints(np.ones(2, dtype=np.int64)))


def _own(returned):
    """An instance of a user's class whose upper_bound returns ``returned``."""

    @dataclass(frozen=True)
    class Own(_Plain):
        def upper_bound(self, partition):
            return returned

    return Own()


def test_a_users_bound_of_each_status_labels_the_measurement():
    for status, words in [("recalled", "exact, given the recalled literature bound (src)"),
                          ("architecture", "exact, given the architecture's stated bound (src)"),
                          ("user", "exact, given the stated bound (src)")]:
        m = seprank.measure(_own(Bound(2, "src", status)), (0, 1))
        assert (m.rank, m.bound, m.label) == (2, Bound(2, "src", status), words)
        assert m.to_dict()["bound"] == {"upper": 2, "status": status, "source": "src",
                                        "kind": None}
    assert seprank.measure(_own(None), (0, 1)).bound is None


def test_a_users_bound_claiming_proved_is_refused():
    net = _own(Bound(2, "my proof", "proved"))
    with pytest.raises(ConfigError, match="status='proved' is for the theorems of theory/"):
        bound_of(net)
    m = seprank.measure(net, (0, 1))
    assert m.bound.value is None and "status='proved'" in m.bound.source
    assert m.to_dict()["bound"] == {"upper": None, "note": m.bound.source}
    assert m.label == "lower bound, saturated"


def test_the_older_pair_protocol_still_works_deprecated():
    net = _own((2, "two products"))
    with pytest.warns(DeprecationWarning, match="upper_bound returning \\(bound, source\\)"):
        b = bound_of(net, (0, 1))
    assert b == Bound(2, "two products", "architecture", OWN_KIND, "user")
    with pytest.warns(DeprecationWarning):
        m = seprank.measure(net, (0, 1))
    assert m.label == "exact, given the architecture's stated bound (two products)"


def test_the_older_known_bound_dict_of_a_users_class_still_works_deprecated():
    @dataclass(frozen=True)
    class Old(_Plain):
        def known_bound(self, partition):
            return {"upper": 2, "kind": "mine", "tag": "M", "source": "a paper [M]"}

    with pytest.warns(DeprecationWarning, match="Old.known_bound is deprecated"):
        b = bound_of(Old(), (0, 1))
    assert b == Bound(2, "a paper [M]", "recalled", "mine", "M")
    with pytest.warns(DeprecationWarning, match="architecture_bounds.known_bound is deprecated"):
        from seprank.theory.architecture_bounds import known_bound
    assert known_bound is architecture_bound  # 0.2.0's function name
