"""Graded strategy: the same ranks as the direct one and as the symbolic engine, its
strategy choice, its refusals and what it reports."""

from dataclasses import dataclass

import numpy as np
import pytest

from seprank import measure
from seprank.algebra.domains import MAX_MODULUS, ModP, Symbolic
from seprank.engine.homogeneity import homogeneity
from seprank.errors import ConfigError
from seprank.nets import LinearSelfAttention, MLPMixer

# (depth, width, heads, seq_len, partition): H = 1 and H > 1, N odd and even, the query
# position (0) on either side, unbalanced partitions.
BOTH = [
    (1, 3, 1, 4, (0, 1)),
    (2, 2, 1, 4, (0, 1)),
    (2, 2, 1, 4, (1, 2)),
    (2, 2, 2, 4, (0, 3)),
    (2, 3, 1, 3, (0,)),
    (2, 3, 1, 5, (1, 3)),
    (2, 4, 2, 3, (1,)),
    (2, 4, 4, 6, (0, 2, 4)),
    (3, 2, 1, 4, (0, 1)),
    (3, 2, 1, 4, (2, 3)),
    (3, 2, 2, 5, (0, 4)),
    (2, 3, 3, 7, (0, 1, 2)),
]


def _id(c):
    return "L{}d{}H{}N{}A{}".format(*c[:4], "".join(map(str, c[4])))


@pytest.mark.parametrize("cfg", BOTH, ids=_id)
def test_graded_equals_direct(cfg):
    L, d, H, N, A = cfg
    net = LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N)
    g = measure(net, A, strategy="graded", seed=3)
    r = measure(net, A, strategy="direct", seed=3)
    assert g.saturated and r.saturated
    assert g.strategy == "graded" and r.strategy == "direct"
    assert g.rank == r.rank
    assert g.rank == sum(b["rank"] for b in g.blocks)
    assert all(b["saturated"] and b["rank"] < b["samples"][0] for b in g.blocks)


@pytest.mark.parametrize("cfg", [(1, 2, 1, 2, (0,)), (2, 2, 1, 2, (0,)), (2, 2, 1, 4, (0, 1)),
                                 (2, 2, 1, 4, (1, 3)), (1, 3, 3, 4, (0, 1)),
                                 (3, 1, 1, 2, (1,))], ids=_id)
def test_graded_equals_symbolic_on_one_integer_network(cfg):
    L, d, H, N, A = cfg
    net = LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N)
    from seprank.algebra.domains import Symbolic

    w = net.init(np.random.default_rng(5), Symbolic())
    sym = measure(net, A, method="symbolic", weights=w)
    g = measure(net, A, strategy="graded", weights=w)
    assert g.saturated and g.rank == sym.rank


def test_degree_support_follows_the_query_side():
    """Query on side A: only odd A-degrees occur (x^i once, S_A an even number of times);
    query on side B: only even ones. Found by interpolation, not declared."""
    net = LinearSelfAttention(depth=2, width=2, seq_len=4)
    a = measure(net, (0, 1), strategy="graded")
    b = measure(net, (2, 3), strategy="graded")
    assert a.detail.support == (1, 3, 5, 7, 9)
    assert b.detail.support == (0, 2, 4, 6, 8)
    assert a.detail.support_miss_bound < 1e-15


def test_auto_picks_graded_when_homogeneous_and_direct_for_residual():
    """Where catalecticant does not apply (a side of 1 < width positions): graded for a
    homogeneous net, direct for the residual one; where it applies, catalecticant, but
    graded with given weights (nothing random in catalecticant to earn saturation)."""
    m = measure(LinearSelfAttention(depth=2, width=2, seq_len=2))
    assert m.strategy == "graded" and "catalecticant not taken: it needs at least width=2" \
        in m.strategy_reason
    m = measure(LinearSelfAttention(depth=2, width=2, seq_len=2, residual=True))
    assert m.strategy == "direct" and "not homogeneous" in m.strategy_reason
    for res in (False, True):
        net = LinearSelfAttention(depth=2, width=2, seq_len=4, residual=res)
        m = measure(net)
        assert m.strategy == "catalecticant" and m.strategy_reason.startswith("auto: catal")
        assert m.rank == measure(net, strategy="graded" if not res else "direct").rank
        w = net.init(np.random.default_rng(1), Symbolic())
        m = measure(net, weights=w)
        assert m.strategy == ("direct" if res else "graded") and "given weights" in \
            m.strategy_reason
    assert measure(LinearSelfAttention(depth=2, width=2, seq_len=4),
                   method="float").strategy == "direct"


def test_graded_refused_for_residual_and_non_modular():
    net = LinearSelfAttention(depth=2, width=2, seq_len=4, residual=True)
    with pytest.raises(ConfigError, match="strategy='graded' needs a homogeneous"):
        measure(net, strategy="graded")
    with pytest.raises(ConfigError, match="strategy='graded'"):
        measure(LinearSelfAttention(depth=1, width=2, seq_len=2), method="float",
                strategy="graded")
    with pytest.raises(ConfigError, match="strategy="):
        measure(LinearSelfAttention(depth=1, width=2, seq_len=2), strategy="fast")


def test_small_prime_too_small_for_the_degree():
    net = LinearSelfAttention(depth=4, width=1, seq_len=2)  # degree 81
    with pytest.raises(ConfigError, match="prime=31 is too small"):
        measure(net, prime=31, strategy="graded")
    m = measure(net, prime=31)
    assert m.strategy == "direct" and "too small" in m.strategy_reason


def test_a_block_can_stay_unsaturated_and_then_the_total_is_not_saturated():
    m = measure(LinearSelfAttention(depth=3, width=2, seq_len=4), strategy="graded",
                max_samples=30)
    assert not m.saturated and m.budget_hit
    assert any(not b["saturated"] for b in m.blocks)
    assert any(b["saturated"] for b in m.blocks)


@dataclass(frozen=True)
class Cubic:
    """f(X) = <w, x^0> * sum_j <u, x^j>^2: homogeneous of degree 3, degree undeclared."""

    width: int = 2
    seq_len: int = 3

    def init(self, rng, domain):
        return {"w": domain.random(rng, (self.width, 1)), "u": domain.random(rng, (self.width, 1))}

    def apply(self, params, X, domain):
        s = domain.einsum("bnc,ck->bnk", X, params["u"])[..., 0]
        sq = domain.einsum("bn,bn->b", s, s)
        g = domain.einsum("bc,ck->bk", X[:, 0], params["w"])[:, 0]
        return domain.mul(sq, g)


@dataclass(frozen=True)
class CubicPlusLinear(Cubic):
    """Cubic + <w, x^1>: not homogeneous, degree undeclared."""

    def apply(self, params, X, domain):
        lin = domain.einsum("bc,ck->bk", X[:, 1], params["w"])[:, 0]
        return domain.add(super().apply(params, X, domain), lin)


@dataclass(frozen=True)
class WronglyDeclared(Cubic):
    degree: int = 4
    homogeneous: bool = True


def test_homogeneity_detected_for_undeclared_architectures():
    rng = np.random.default_rng(0)
    dom = ModP()
    h = homogeneity(Cubic(), Cubic().init(rng, dom), dom, rng)
    assert h.homogeneous and h.degree == 3 and "detected" in h.source
    net = CubicPlusLinear()
    h = homogeneity(net, net.init(rng, dom), dom, rng)
    assert not h.homogeneous and "[1, 3]" in h.source
    m = measure(Cubic(), (0,))
    r = measure(Cubic(), (0,), strategy="direct")
    assert m.strategy == "graded" and m.rank == r.rank == 2
    assert measure(CubicPlusLinear(), (0,)).strategy == "direct"


def test_a_wrong_declaration_is_caught():
    with pytest.raises(ConfigError, match="declares homogeneous of degree=4"):
        measure(WronglyDeclared(), (0,))


@pytest.mark.parametrize("strategy", ["direct", "graded"])
def test_incremental_and_scratch_elimination_agree_at_every_step(strategy):
    net = LinearSelfAttention(depth=3, width=2, heads=2, seq_len=5)
    a = measure(net, (0, 3), strategy=strategy, incremental=True)
    b = measure(net, (0, 3), strategy=strategy, incremental=False)
    assert a.history == b.history and a.blocks == b.blocks and a.saturated


def _cli(*args):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "seprank", *args], capture_output=True,
                          text=True, timeout=300)


def test_cli_json_reports_strategy_and_blocks():
    import json

    r = _cli("measure", "--depth", "3", "--width", "2", "--seq-len", "4", "--strategy",
             "graded", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["strategy"] == "graded" and d["rank"] == 232 and d["saturated"]
    assert len(d["blocks"]) == 14 and sum(b["rank"] for b in d["blocks"]) == 232
    assert {"degree", "rank", "samples", "saturated"} <= set(d["blocks"][0])
    assert d["graded"]["total_degree"] == 27 and d["graded"]["support"][0] == 1
    r = _cli("measure", "--depth", "2", "--width", "2", "--seq-len", "2", "--residual",
             "--json")
    d = json.loads(r.stdout)
    assert d["strategy"] == "direct" and "not homogeneous" in d["strategy_reason"]


def test_cli_refuses_graded_for_residual_in_one_line():
    r = _cli("measure", "--depth", "2", "--width", "2", "--seq-len", "4", "--residual",
             "--strategy", "graded")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().count("\n") == 0 and "strategy='graded'" in r.stderr
    r = _cli("measure", "--depth", "2", "--width", "2", "--seq-len", "4", "--strategy", "x")
    assert r.returncode == 2 and "strategy=" in r.stderr


def test_graded_at_a_prime_near_2_31_agrees_with_the_default_prime():
    """The graded strategy's interpolation (65 points for this degree-64 mixer) was a
    float64 product that rounds for primes above 2**26; it is exact in int64 there now."""
    net = MLPMixer(3, 2, seq_len=4, token_hidden=1, channel_hidden=2)
    low = measure(net, (0, 2), strategy="graded")
    high = measure(net, (0, 2), strategy="graded", prime=MAX_MODULUS)
    assert high.sample_saturated and high.saturated and high.rank == low.rank == 1089
