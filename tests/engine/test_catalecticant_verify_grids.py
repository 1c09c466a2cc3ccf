"""The catalecticant strategy equals the grid strategies (graded, or direct for the
residual) on every configuration of ``seprank verify``'s grids where it applies (both
sides at least d_x positions): the quick grid in the default run, the default grid behind
the slow marker."""

import pytest

from seprank import measure
from seprank.engine.strategies import catalecticant
from seprank.nets.partitions import default_partition
from seprank.studies.verify import configs


def _applicable(grid):
    nets, _ = configs(grid)
    return [n for n in nets if catalecticant.refusal(n, default_partition(n.seq_len),
                                                      "modular", "random", 67108859) is None]


def _ident(net):
    return "L{}d{}H{}N{}{}".format(net.depth, net.width, net.heads, net.seq_len,
                                   "r" if net.residual else "")


def _same(net):
    c = measure(net, strategy="catalecticant")
    g = measure(net, strategy="direct" if net.residual else "graded")
    assert c.strategy == "catalecticant" and g.strategy != "catalecticant"
    assert c.rank == g.rank, (c.rank, g.rank)
    if not net.residual:
        assert {b["degree"]: b["rank"] for b in c.blocks if b["rank"]} == \
            {b["degree"]: b["rank"] for b in g.blocks if b["rank"]}


QUICK = _applicable("quick")


def test_the_quick_grid_has_configurations_where_catalecticant_applies():
    assert len(QUICK) >= 20  # 28 today: the comparison below is not vacuous


@pytest.mark.parametrize("net", QUICK, ids=_ident)
def test_equal_on_the_quick_verify_grid(net):
    _same(net)


@pytest.mark.slow
@pytest.mark.parametrize("net", [n for n in _applicable("default") if n not in QUICK],
                         ids=_ident)
def test_equal_on_the_default_verify_grid(net):
    _same(net)
