"""The proved bound of each catalecticant block is put beside its measured rank by the label
step (engine/bound_compare.py, from theory/), never by the strategy that measures it."""

import inspect
from types import SimpleNamespace

import pytest

from seprank import measure
from seprank.engine import bound_compare
from seprank.engine.strategies import catalecticant
from seprank.nets import LinearSelfAttention
from seprank.theory import bounds
from seprank.theory.architecture_bounds import block_bounds

#: The keys of a catalecticant block, in the order measure has always printed them.
ORDER = ["degree", "other_s_degree", "rank", "shape", "ranked_shape", "bound", "seconds",
         "saturation_bound", "saturated"]


@pytest.mark.parametrize("L, d, N, A", [(2, 2, 4, (0, 1)), (1, 3, 6, (1, 2, 4)),
                                        (2, 2, 5, (2, 3))])
def test_each_block_carries_its_proved_bound_in_its_place(L, d, N, A):
    net = LinearSelfAttention(depth=L, width=d, seq_len=N)
    m = measure(net, A, strategy="catalecticant")
    nq, no = bounds.sides(N, A, net.query_position)
    terms = bounds.block_terms(L, d, nq, no)
    assert [b["bound"] for b in m.blocks] == [terms[b["other_s_degree"]] for b in m.blocks]
    assert all(list(b) == ORDER for b in m.blocks)
    assert sum(terms) == bounds.theorem_bound(net, A)["block"] == m.bound.value


def test_the_residual_matrix_carries_the_residual_bound():
    net = LinearSelfAttention(depth=2, width=2, seq_len=4, residual=True)
    m = measure(net, (0, 1), strategy="catalecticant")
    want = bounds.block_bound(2, 2, 2, 2, residual=True)
    assert [b["bound"] for b in m.blocks] == [want] == [20]
    assert list(m.blocks[0]) == [k for k in ORDER if k != "ranked_shape"]


def test_the_strategy_computes_no_bound():
    """The strategy's module names no bound formula: the blocks are measured only (its
    ground reads the bound the label step placed beside a block, never writes one)."""
    src = inspect.getsource(catalecticant)
    assert "block_terms" not in src and "block_bound(" not in src and "block_bounds" not in src
    assert '"bound":' not in src and '["bound"] =' not in src


def test_attach_blocks_keeps_a_stored_bound_in_place_and_leaves_other_blocks():
    net = LinearSelfAttention(depth=1, width=2, seq_len=4)
    m = SimpleNamespace(partition=(0, 1), blocks=[
        {"degree": 1, "other_s_degree": 1, "rank": 2, "seconds": 0.1},
        {"degree": 3, "other_s_degree": 0, "rank": 1, "bound": 99, "seconds": 0.1}])
    m.blocks = bound_compare.with_block_bounds(m.blocks, net, m.partition)
    per = block_bounds(net, (0, 1))
    assert m.blocks == [{"degree": 1, "other_s_degree": 1, "rank": 2, "bound": per[1],
                         "seconds": 0.1},
                        {"degree": 3, "other_s_degree": 0, "rank": 1, "bound": per[0],
                         "seconds": 0.1}]
    assert list(m.blocks[0]) == ["degree", "other_s_degree", "rank", "bound", "seconds"]
    graded = SimpleNamespace(partition=(0, 1), blocks=[{"degree": 3, "rank": 1}])
    graded.blocks = bound_compare.with_block_bounds(graded.blocks, net, graded.partition)
    assert graded.blocks == [{"degree": 3, "rank": 1}]


def test_no_theorem_no_block_bounds():
    from seprank.nets import SoftmaxSelfAttention

    assert block_bounds(SoftmaxSelfAttention(1, 2, seq_len=4), (0, 1)) == {}
