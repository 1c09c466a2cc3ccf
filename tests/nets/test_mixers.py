"""The sequence mixers (linear attention, retention, gla, s6, s4, hyena, mixer).

Tags (as in test_zoo.py): [D] derived from the definitions, the argument in the
architecture module's docstring (seprank/nets/mixers_attention.py, ssm.py, hyena.py,
mlp_mixer.py); every such test is a measured rank against the derived value.
"""

import inspect

import numpy as np
import pytest

from seprank import certify, measure, upper_bound
from seprank.algebra.domains import ModP
from seprank.algebra.vandermonde import interpolate
from seprank.cli import main
from seprank.engine.evaluate import evaluate
from seprank.engine.homogeneity import homogeneity
from seprank.errors import ConfigError
from seprank.nets import (
    ARCHITECTURES,
    GLA,
    S4,
    S6,
    Hyena,
    LinearAttention,
    LinearSelfAttention,
    MLPMixer,
    Retention,
    hyena,
    mixers_attention,
    mlp_mixer,
    ssm,
)
from seprank.nets.base import build
from seprank.testing import assert_engines_agree


def rank(net, A, **kw):
    m = measure(net, A, **kw)
    assert m.saturated, (net, A, m)
    return m.rank


#: One tiny instance per mixer (and variant).
SMALL = {
    "la": LinearAttention(depth=1, width=2, seq_len=4),
    "la-causal": LinearAttention(depth=1, width=2, seq_len=4, causal=True),
    "la-square": LinearAttention(depth=1, width=2, seq_len=4, feature="square"),
    "la-causal-square-h2": LinearAttention(depth=1, width=2, heads=2, seq_len=4, causal=True,
                                           feature="square"),
    "retention": Retention(depth=1, width=2, seq_len=4, gamma_num=(1,), gamma_den=3),
    "retention-h2": Retention(depth=1, width=2, heads=2, seq_len=4, gamma_num=(1, -2)),
    "gla": GLA(depth=1, width=2, seq_len=4),
    "s6": S6(depth=1, width=2, state=2, seq_len=4),
    "s6-deep": S6(depth=2, width=1, state=1, seq_len=3),
    "s4": S4(depth=2, width=2, state=2, seq_len=4),
    "s4-product": S4(depth=2, width=1, state=2, seq_len=4, product=True),
    "hyena": Hyena(depth=1, width=2, seq_len=4),
    "hyena-deep": Hyena(depth=2, width=1, seq_len=4),
    "mixer": MLPMixer(depth=1, width=2, seq_len=4, token_hidden=2),
}
NEW = {"linear-attention", "retention", "gla", "s6", "s4", "hyena", "mixer"}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_engines_agree(name):
    """[D] GF(p) rank == exact rank over Q (symbolic) == float rank where trustworthy."""
    assert assert_engines_agree(SMALL[name], (0, 1), float_check="trusted") >= 1


@pytest.mark.parametrize("name", sorted(SMALL))
def test_partition_and_its_complement_agree(name):
    """[D] sep(f; A, B) = sep(f; B, A)."""
    net = SMALL[name]
    for A in [(0, 2), (0, 1)]:
        B = tuple(n for n in range(net.seq_len) if n not in A)
        assert rank(net, A) == rank(net, B)


def _top_degree(net, bound, seed=0):
    """The degree of t -> f(tX) at a random X (interpolation at bound + 2 points)."""
    F, rng = ModP(), np.random.default_rng(seed)
    params = net.init(rng, F)
    X = F.random(rng, (1, net.seq_len, net.width))
    ts = list(range(bound + 2))
    vals = np.concatenate([np.asarray(evaluate(net, params, (t * X) % F.p, F), dtype=np.int64)
                           for t in ts]) % F.p
    c = interpolate(ts, vals, F.p)
    return int(np.nonzero(c)[0][-1]), sorted(int(k) for k in np.nonzero(c)[0])


@pytest.mark.parametrize("name", sorted(SMALL))
def test_declared_degree_is_true(name):
    """[D] the declared degree: homogeneous ones pass seprank's check at random points; the
    others (gla, s6) have exactly the declared top degree (interpolation of f(tX))."""
    net = SMALL[name]
    if net.homogeneous:
        F = ModP()
        h = homogeneity(net, net.init(np.random.default_rng(0), F), F, np.random.default_rng(1))
        assert h.homogeneous and h.degree == net.degree
    else:
        top, powers = _top_degree(net, net.degree + 2)
        assert top == net.degree and len(powers) > 1  # not homogeneous


def test_degrees_per_layer():
    """[D] degree per layer: 3 (linear attention, retention, hyena), 5 (square feature map),
    2 (s4 product read-out), 1 (linear s4), 4 (mixer); gla and s6 grow with the position:
    one layer at query i has top degree 3 + i (gla) and 4 + i (s6), lowest 3 and 4."""
    assert [LinearAttention(L, 2).degree for L in (1, 2, 3)] == [3, 9, 27]
    assert LinearAttention(2, 2, feature="square").degree == 25
    assert Retention(3, 2).degree == Hyena(3, 2).degree == 27
    assert S4(3, 2, product=True).degree == 8 and S4(3, 2).degree == 1
    assert MLPMixer(2, 2).degree == 16
    assert [GLA(1, 1, seq_len=N).degree for N in (2, 3, 4)] == [4, 5, 6]
    assert [S6(1, 1, seq_len=N).degree for N in (2, 3, 4)] == [5, 6, 7]
    top, powers = _top_degree(S6(1, 1, state=1, seq_len=3), 8)
    assert top == 6 and powers[0] == 4
    top, powers = _top_degree(GLA(1, 1, seq_len=3), 8)
    assert top == 5 and powers[0] == 3


def test_linear_attention_is_the_papers_network():
    """[D] non-causal identity linear attention == LinearSelfAttention (same weights, same
    values); the issue's ranks: (L2,d2,N4) 18, (L3,d2,N4) 232, (L2,d3,N4) 49."""
    F, rng = ModP(), np.random.default_rng(3)
    for L, d, H in [(2, 2, 1), (2, 4, 2)]:
        new, old = LinearAttention(L, d, heads=H, seq_len=4), LinearSelfAttention(L, d, H, 4)
        pa, pb = new.init(np.random.default_rng(0), F), old.init(np.random.default_rng(0), F)
        X = F.random(rng, (5, 4, d))
        assert np.array_equal(np.asarray(evaluate(new, pa, X, F)),
                              np.asarray(evaluate(old, pb, X, F)))
    for (L, d), want in {(2, 2): 18, (3, 2): 232, (2, 3): 49}.items():
        assert rank(LinearAttention(L, d, seq_len=4), (0, 1)) == want
        assert rank(LinearSelfAttention(L, d, 1, 4), (0, 1)) == want


def test_causal_linear_attention_is_retention_with_gamma_one():
    """[D] gamma = 1 removes the decay: the two compute the same function."""
    F, rng = ModP(), np.random.default_rng(4)
    la = LinearAttention(2, 2, heads=2, seq_len=4, causal=True)
    rt = Retention(2, 2, heads=2, seq_len=4, gamma_num=(1,), gamma_den=1)
    X = F.random(rng, (5, 4, 2))
    pa, pb = la.init(np.random.default_rng(0), F), rt.init(np.random.default_rng(0), F)
    assert np.array_equal(np.asarray(evaluate(la, pa, X, F)), np.asarray(evaluate(rt, pb, X, F)))


def test_retention_decay_is_exact():
    """[D] with one position before the query, y = q_1.(gamma k_0 v_0 + k_1 v_1): the decay
    1/3 is applied exactly (f(X) with gamma = 1/3 equals its hand-expanded value)."""
    F = ModP()
    net = Retention(1, 1, seq_len=2, gamma_num=(1,), gamma_den=3)
    p = net.init(np.random.default_rng(0), F)
    X = F.random(np.random.default_rng(1), (3, 2, 1))
    q, k, v, o = (int(np.asarray(p[w]).ravel()[0]) for w in ("Wq", "Wk", "Wv", "Wo"))
    x0, x1 = np.asarray(X[:, 0, 0], dtype=object), np.asarray(X[:, 1, 0], dtype=object)
    third = pow(3, -1, F.p)
    want = (o * q * x1 * (third * k * v * x0 * x0 + k * v * x1 * x1)) % F.p
    assert [int(v) for v in np.asarray(evaluate(net, p, X, F))] == [int(w) for w in want]


@pytest.mark.parametrize("depth", [1, 2])
def test_linear_s4_has_rank_at_most_two(depth):
    """[D] a linear s4 is l_A + l_B: sep = 2 for every partition (generic weights)."""
    net = S4(depth=depth, width=2, state=3, seq_len=5)
    for A in [(0,), (0, 1), (1, 3), (0, 2, 4), (4,)]:
        assert rank(net, A) == 2


def test_one_s4_layer_with_product_readout_has_rank_at_most_two():
    """[D] f = (l_A + l_B) e(x_query): sep <= 2 for every partition (= 2 here)."""
    net = S4(depth=1, width=2, state=3, seq_len=5, product=True)
    assert {rank(net, A) for A in [(0,), (0, 1), (1, 3), (0, 2, 4), (4,)]} == {2}


@pytest.mark.parametrize("N", [4, 6])
def test_one_s6_layer_prefix_rank_is_state_plus_one(N):
    """[D] one s6 layer, prefix/suffix: sep <= n + 1 for every N (measured: equal)."""
    for n in (1, 2, 3):
        assert rank(S6(1, 2, state=n, seq_len=N), tuple(range(N // 2))) <= n + 1
    assert rank(S6(1, 2, state=2, seq_len=N), tuple(range(N // 2))) == 3


@pytest.mark.parametrize("make", [
    lambda N: LinearAttention(1, 2, seq_len=N, causal=True),
    lambda N: LinearAttention(1, 4, heads=2, seq_len=N, causal=True),
    lambda N: Retention(1, 2, seq_len=N, gamma_num=(2,), gamma_den=3),
    lambda N: GLA(1, 2, seq_len=N),
])
def test_one_causal_attention_layer_prefix_rank_at_most_width_plus_one(make):
    """[D] one causal layer, prefix/suffix, query last: A enters through H d_a numbers:
    sep <= width + 1, for every N."""
    for N in (4, 6):
        net = make(N)
        assert rank(net, tuple(range(N // 2))) <= net.width + 1


def test_one_hyena_layer_rank_at_most_width_plus_one_for_every_partition():
    """[D] one Hyena layer: the side without the query enters through d sums: sep <= d + 1."""
    net = Hyena(1, 2, seq_len=5)
    assert all(rank(net, A) <= 3 for A in [(0,), (0, 1), (1, 3), (0, 2, 4), (4,)])


def test_one_mixer_block_with_one_hidden_token_and_channel_has_rank_five():
    """[D] f = c (a + b)^4: sep = 5 for every partition."""
    net = MLPMixer(1, 1, seq_len=5, token_hidden=1)
    assert {rank(net, A) for A in [(0,), (0, 1), (1, 3), (0, 2, 4)]} == {5}


@pytest.mark.parametrize("depth, width, A, bound", [
    (1, 2, (0, 2), 9), (2, 2, (0, 1), 81), (3, 2, (0, 2), 1089), (1, 3, (0, 2), 14),
    (2, 3, (0,), 285), (1, 1, (1, 3), 5)])
def test_a_mixer_with_one_hidden_token_meets_its_form_bound(depth, width, A, bound):
    """[D] N_h = 1: f = P(T1[0] X), a form of degree 4^L in d numbers, so sep <= sum_k
    min(C(k+d-1, d-1), C(4^L-k+d-1, d-1)) ((2^(2L-1) + 1)^2 for d = 2) for every
    partition; measured equal (generic weights; a prime near 2^29 keeps the false-stop
    bound of the degree-64 case under the threshold)."""
    net = MLPMixer(depth, width, seq_len=4, token_hidden=1, channel_hidden=2)
    m = measure(net, A, prime=536870909)
    assert m.saturated and net.upper_bound(A).value == bound == m.rank
    assert MLPMixer(depth, width, seq_len=4, token_hidden=2).upper_bound(A).value is None


@pytest.mark.parametrize("cls", [LinearAttention, Retention, GLA, S6, S4, Hyena])
def test_causal_models_ignore_positions_after_the_query(cls):
    """[D] causal: positions after the query do not enter f, so a partition made of them
    has sep = 1 (f is a function of the other side alone)."""
    net = cls(depth=2, width=1, seq_len=4, query_position=1,
              **({"causal": True} if cls is LinearAttention else {}))
    assert rank(net, (2, 3)) == 1
    assert rank(net, (0,)) > 1


@pytest.mark.parametrize("cls, kwargs, arg", [
    (LinearAttention, dict(depth=0, width=2), "depth=0"),
    (LinearAttention, dict(depth=1, width=3, heads=2), "heads=2 must divide width=3"),
    (LinearAttention, dict(depth=1, width=2, feature="relu"), "feature='relu'"),
    (LinearAttention, dict(depth=1, width=2, causal=2), "causal=2"),
    (LinearAttention, dict(depth=1, width=2, seq_len=4, query_position=4), "query_position=4"),
    (Retention, dict(depth=1, width=2, gamma_den=0), "gamma_den=0"),
    (Retention, dict(depth=1, width=2, heads=2, gamma_num=(1, 2, 3)), "gamma_num="),
    (Retention, dict(depth=1, width=2, gamma_num=(0.5,)), r"gamma_num\[0\]=0.5"),
    (GLA, dict(depth=1, width=2, output_coord=2), "output_coord=2"),
    (S6, dict(depth=1, width=2, state=0), "state=0"),
    (S4, dict(depth=1, width=2, product=3), "product=3"),
    (Hyena, dict(depth=1, width=2, seq_len=1), "seq_len=1"),
    (MLPMixer, dict(depth=1, width=2, token_hidden=0), "token_hidden=0"),
])
def test_bad_configs_are_refused_in_one_line(cls, kwargs, arg):
    with pytest.raises(ConfigError, match=arg) as e:
        cls(**kwargs)
    assert "\n" not in str(e.value)


def test_registered_with_cli_names_and_parameters(capsys):
    assert NEW <= set(ARCHITECTURES)
    net = build(ARCHITECTURES["retention"], ["depth=1", "width=2", "gamma_num=1,2",
                                              "heads=2", "gamma_den=3"])
    assert [str(g) for g in net.gammas()] == ["1/3", "2/3"]
    assert build(ARCHITECTURES["linear-attention"], ["depth=1", "width=2", "feature=square",
                                                     "query_position=none"]).query == 0
    code = main(["measure", "--arch", "s6", "--param", "depth=1", "--param", "width=2",
                 "--param", "seq_len=4", "--json"])
    assert code == 0 and '"rank": 3' in capsys.readouterr().out


def test_mixers_are_written_without_domain_operations():
    """The architectures are plain numpy: their source uses the domain only to draw weights."""
    for mod in (mixers_attention, ssm, hyena, mlp_mixer):
        src = inspect.getsource(mod)
        calls = {w.split("(")[0] for w in src.split("domain.")[1:]}
        assert calls == {"random"}, (mod.__name__, calls)


@pytest.mark.parametrize("net, A, bound", [
    (S4(2, 2, state=2, seq_len=4), (0, 2), 2),
    (S4(1, 2, state=2, seq_len=4, product=True), (1,), 2),
    (Hyena(1, 2, seq_len=4), (0, 2), 3),
    (S6(1, 2, state=2, seq_len=4), (0, 1), 3),
    (GLA(1, 2, seq_len=4), (2, 3), 3),
    (LinearAttention(1, 2, seq_len=4, causal=True, feature="square"), (1, 3), 3),
    (LinearAttention(1, 2, seq_len=4), (0, 3), 3),
    (Retention(1, 2, seq_len=4, gamma_num=(2,), gamma_den=3), (0, 2), 3),
    (MLPMixer(2, 2, seq_len=4, token_hidden=1, channel_hidden=2), (0, 2), 81),
    (MLPMixer(1, 3, seq_len=4, token_hidden=1), (1,), 14),
])
def test_derived_bounds_certify_exact(net, A, bound):
    """[D] the upper_bound of each mixer is met: certify says exact, given the architecture's
    stated bound (derived in the module docstring, not proved in proofs/: labels.md)."""
    c = certify(net, A)
    assert c.upper == bound and c.lower == bound
    assert c.status.startswith("exact, given the architecture's stated bound (")
    assert c.status.endswith("[D])") and c.status != "exact, proved"


def test_derived_bounds_stop_where_the_argument_stops():
    """[D] no bound is claimed beyond the derivation, and the measurement shows why: gla and
    s6 on the interleaved partition exceed width + 1 and state + 1 (a gate between two
    positions of one side reads the other side); deeper layers have none."""
    for net in (GLA(1, 2, seq_len=4), S6(1, 2, state=2, seq_len=4), Hyena(2, 2),
                S4(2, 2, product=True), LinearAttention(2, 2), MLPMixer(1, 2)):
        with pytest.raises(ConfigError, match="no proved upper bound"):
            upper_bound(net, (0, 2))
    assert rank(GLA(1, 2, seq_len=4), (0, 2)) == 7 > 3
    assert rank(S6(1, 2, state=2, seq_len=4), (0, 2)) == 6 > 3
