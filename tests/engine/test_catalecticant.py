"""The catalecticant strategy: equal to the grid strategies (block by block) where both
sides have at least width positions, independent of N there, refused elsewhere."""

import numpy as np
import pytest

from seprank import measure
from seprank.algebra.domains import ModP
from seprank.errors import ConfigError
from seprank.nets import LinearSelfAttention


def _blocks(m):
    return {b["degree"]: b["rank"] for b in m.blocks}


@pytest.mark.parametrize("L,d,H,N", [(2, 2, 1, 4), (3, 2, 1, 4), (2, 3, 1, 6), (2, 2, 2, 4)])
def test_equal_to_graded_block_by_block(L, d, H, N):
    net = LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N)
    c = measure(net, strategy="catalecticant")
    g = measure(net, strategy="graded")
    assert c.strategy == "catalecticant" and g.strategy == "graded"
    assert c.rank == g.rank
    assert _blocks(c) == {k: r for k, r in _blocks(g).items() if r}
    for b in c.blocks:  # the proved bound is beside the rank, never above it
        assert b["rank"] <= b["bound"] and len(b["shape"]) == 2 and b["seconds"] >= 0


def test_equal_to_graded_two_heads_width_four():  # about 2 s
    net = LinearSelfAttention(depth=2, width=4, heads=2, seq_len=8)
    c = measure(net, strategy="catalecticant")
    assert _blocks(c) == {k: r for k, r in _blocks(measure(net, strategy="graded")).items() if r}


def test_residual_full_matrix_equal_to_direct():
    net = LinearSelfAttention(depth=2, width=2, seq_len=4, residual=True)
    c = measure(net, strategy="catalecticant")
    assert len(c.blocks) == 1 and c.blocks[0]["degree"] is None
    assert c.rank == measure(net, strategy="direct").rank == 18  # residual bound 20


def test_query_on_side_B_same_rank():
    net = LinearSelfAttention(depth=2, width=2, seq_len=4)
    a = measure(net, (0, 1), strategy="catalecticant")
    b = measure(net, (2, 3), strategy="catalecticant")
    assert a.rank == b.rank == measure(net, (2, 3), strategy="graded").rank
    assert _blocks(b) == {k: r for k, r in _blocks(measure(net, (2, 3), strategy="graded"))
                          .items() if r}


@pytest.mark.parametrize("L,d,H", [(2, 2, 1), (2, 3, 1), (3, 2, 1), (2, 2, 2)])
def test_independent_of_seq_len(L, d, H):
    """The N-independence, checked by the grid (the graded strategy, which does not use
    the reduction): the same block ranks at N = 2 d and N = 2 d + 2, equal to the
    catalecticant's (which never sees N beyond its refusal)."""
    grid = []
    for N in (2 * d, 2 * d + 2):
        net = LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N)
        g = measure(net, strategy="graded")
        assert g.strategy == "graded"
        grid.append({k: r for k, r in _blocks(g).items() if r})
    assert grid[0] == grid[1]
    assert _blocks(measure(net, strategy="catalecticant")) == grid[1]


@pytest.mark.parametrize("N,A", [(2, (0,)), (4, (0,)), (4, (0, 1, 2))])
def test_refuses_a_side_with_fewer_than_width_positions(N, A):
    d = 2 if N == 2 else 3
    with pytest.raises(ConfigError, match="at least width"):
        measure(LinearSelfAttention(depth=2, width=d, seq_len=N), A, strategy="catalecticant")


def test_refusal_is_needed_the_reduction_fails_with_short_sides():
    """(L2, d3, N4, A={0}): the grid gives 39, the coefficient matrices (whose ranks do not
    depend on N) give 49, the value at N = 6; with sides of one position at d = 2 (N = 2)
    the grid gives 15 against 18. The balanced (L2, d3, N4) (two positions a side, d - 1)
    happens to give 49 both ways: the hypothesis is sufficient, not necessary."""
    for d, N, A, grid in [(3, 4, (0,), 39), (2, 2, (0,), 15)]:
        net = LinearSelfAttention(depth=2, width=d, seq_len=N)
        assert measure(net, A, strategy="graded").rank == grid
        big = LinearSelfAttention(depth=2, width=d, seq_len=2 * d)
        assert measure(big, strategy="catalecticant").rank == {3: 49, 2: 18}[d] > grid


def test_refuses_other_methods_and_small_primes():
    net = LinearSelfAttention(depth=2, width=2, seq_len=4)
    with pytest.raises(ConfigError, match="modular"):
        measure(net, method="float", strategy="catalecticant")
    with pytest.raises(ConfigError, match="modular"):
        measure(LinearSelfAttention(depth=1, width=1, seq_len=2), method="symbolic",
                strategy="catalecticant")
    with pytest.raises(ConfigError, match="prime > D"):
        measure(net, prime=3, strategy="catalecticant")


def test_labels_weights_only():
    m = measure(LinearSelfAttention(depth=2, width=2, seq_len=4), strategy="catalecticant")
    assert m.saturated and m.sampler == "coefficients"
    assert m.saturation_bound == pytest.approx(18 * 2 * 8 / m.prime)  # rank = bound here
    assert all(b["saturated"] for b in m.blocks)
    assert "lower bound" in m.certified
    w = LinearSelfAttention(depth=2, width=2, seq_len=4).init(np.random.default_rng(0),
                                                             ModP(m.prime))
    given = measure(LinearSelfAttention(depth=2, width=2, seq_len=4), strategy="catalecticant",
                    weights={k: v for k, v in w.items()})
    assert given.rank == 18 and not given.saturated and given.saturation_bound is None



def test_cli_strategy_catalecticant(capsys):
    import json

    from seprank.cli import main

    assert main(["measure", "--depth", "2", "--width", "2", "--seq-len", "4", "--strategy",
                 "catalecticant", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rank"] == 18 and out["strategy"] == "catalecticant"
    assert [b["rank"] for b in out["blocks"]] == [2, 6, 6, 3, 1]
    assert all({"degree", "rank", "shape", "bound", "seconds"} <= set(b) for b in out["blocks"])
    assert main(["measure", "--depth", "2", "--width", "3", "--seq-len", "4", "--partition",
                 "0", "--strategy", "catalecticant"]) == 2
    assert "at least width" in capsys.readouterr().err


def test_other_query_position_and_output_coordinate():
    net = LinearSelfAttention(depth=2, width=3, seq_len=6, query_position=4, output_coord=2)
    c = measure(net, (0, 1, 2), strategy="catalecticant")
    g = measure(net, (0, 1, 2), strategy="graded")
    assert c.detail.query_side == "B"
    assert _blocks(c) == {k: r for k, r in _blocks(g).items() if r}


def _rank_one_queries(net, seed=0):
    """Integer weights with every W^Q of rank one: many blocks fall below their short side."""
    from seprank.algebra.domains import Symbolic

    w = {k: np.array(v, dtype=object) for k, v in net.init(np.random.default_rng(seed),
                                                            Symbolic()).items()}
    for idx in np.ndindex(w["Wq"].shape[:2]):
        M = w["Wq"][idx]
        M[:] = np.outer(M[:, 0], np.ones(M.shape[1], dtype=object))
    return w


@pytest.mark.parametrize("L,d,N", [(2, 2, 4), (3, 2, 4), (2, 3, 6)])
def test_deficient_blocks_through_the_left_kernel(L, d, N, monkeypatch):
    """A block whose subset falls short goes on through the subset's left kernel (BLAS
    engine): block by block equal to ranking whole blocks (flint) and to the graded grid.
    MARGIN = 0 makes every block with a long side go through a subset first."""
    from seprank.engine.strategies import catalecticant as cat

    net = LinearSelfAttention(depth=L, width=d, seq_len=N)
    w = _rank_one_queries(net)
    calls = []
    real = cat._rest_through_kernel
    monkeypatch.setattr(cat, "MARGIN", 0)
    monkeypatch.setattr(cat, "_rest_through_kernel", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(cat, "measure_small_blocks", lambda *a: {})  # block by block
    blas = measure(net, weights=w, strategy="catalecticant", rank_engine="blas")
    whole = measure(net, weights=w, strategy="catalecticant", rank_engine="flint")
    assert calls, "no block went through the left kernel"
    assert _blocks(blas) == _blocks(whole)
    assert blas.rank == whole.rank == measure(net, weights=w, strategy="graded").rank
    assert any(b["rank"] < min(b["shape"]) for b in blas.blocks)  # deficient blocks indeed


@pytest.mark.parametrize("margin", [0, 8])
@pytest.mark.parametrize("L,d,N", [(2, 2, 4), (3, 2, 4), (2, 3, 6)])
def test_small_blocks_in_a_batch_equal_block_by_block(L, d, N, margin, monkeypatch):
    """The small blocks ranked together (one compiled call per try) give the blocks that
    ranking each alone gives: ranks, shapes and the shape ranked; deficient blocks (whose
    subset falls short, MARGIN = 0) are ranked whole in the second batch."""
    from seprank.engine.strategies import catalecticant as cat

    net = LinearSelfAttention(depth=L, width=d, seq_len=N)
    w = _rank_one_queries(net)
    monkeypatch.setattr(cat, "MARGIN", margin)
    batched = []
    real = cat.measure_small_blocks
    monkeypatch.setattr(cat, "measure_small_blocks",
                        lambda *a: batched.append(real(*a)) or batched[-1])
    together = measure(net, weights=w, strategy="catalecticant", rank_engine="blas")
    assert len(batched) == 1 and len(batched[0]) == len(together.blocks)  # all small
    monkeypatch.setattr(cat, "measure_small_blocks", lambda *a: {})
    alone = measure(net, weights=w, strategy="catalecticant", rank_engine="blas")

    def strip(m):
        return [{k: v for k, v in b.items() if k != "seconds"} for b in m.blocks]

    assert strip(together) == strip(alone)
    assert together.rank == alone.rank
    monkeypatch.setattr(cat, "measure_small_blocks", real)
    monkeypatch.setattr(cat, "BATCH_ENTRIES", 50)  # many groups, some of one matrix
    assert strip(measure(net, weights=w, strategy="catalecticant", rank_engine="blas")) \
        == strip(alone)
    if margin == 0:  # some subset fell short: the second batch ranked whole blocks
        assert any(b["rank"] < min(b["shape"]) and b["ranked_shape"] == b["shape"]
                   for b in together.blocks)


def test_auto_takes_catalecticant_and_its_prime_only_for_large_blocks(monkeypatch):
    from seprank.engine.strategies import catalecticant as cat
    from seprank.engine.strategies import catalecticant_sizes as cat_sizes

    net = LinearSelfAttention(depth=2, width=2, seq_len=4)
    m = measure(net)
    assert m.strategy == "catalecticant" and m.prime == 67108859  # small blocks: default p
    monkeypatch.setattr(cat_sizes, "FAST_FROM", 2)
    m2 = measure(net)
    assert m2.prime == cat.FAST_PRIME and "8388593" in m2.strategy_reason
    assert m2.rank == m.rank and _blocks(m2) == _blocks(m)
    assert measure(net, prime=101).prime == 101  # the caller's prime stands


def test_refused_before_F_is_built_when_its_smallest_matrix_cannot_fit(monkeypatch):
    from seprank.engine.strategies import catalecticant as cat
    from seprank.engine.strategies import catalecticant_sizes as cat_sizes
    from seprank.errors import TooBigError

    built = []
    monkeypatch.setattr(cat.sp, "build_F", lambda *a: built.append(1))
    for module in (cat, cat_sizes):  # 20 cells allowed
        monkeypatch.setattr(module, "available_memory", lambda: 4 * 8 * 20)
    with pytest.raises(TooBigError, match=r"must rank a 6x\d+ matrix for its largest block"):
        measure(LinearSelfAttention(depth=2, width=2, seq_len=4), strategy="catalecticant")
    assert not built
    m = measure(LinearSelfAttention(depth=2, width=2, seq_len=4))  # auto: the grid instead
    assert m.strategy == "graded" and "catalecticant not taken: its largest matrix" in \
        m.strategy_reason


def test_a_small_prime_says_what_it_costs_the_bound():
    """Below the default prime, a bound over the threshold says by how much the prime
    weakened it and how to confirm (issue 41: labels do not weaken silently)."""
    from seprank.algebra.domains import DEFAULT_PRIME

    net = LinearSelfAttention(depth=2, width=2, seq_len=4)
    small = measure(net, strategy="catalecticant", prime=101)
    assert not small.saturated
    assert f"{DEFAULT_PRIME / 101:.0f}x what the default prime" in small.saturation_reason
    assert "--confirm K" in small.saturation_reason
    default = measure(net, strategy="catalecticant")
    assert "what the default prime" not in default.saturation_reason
