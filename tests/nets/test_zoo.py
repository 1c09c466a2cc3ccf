"""The architecture zoo, each checked against its published (or derived) result.

Tags used in every test's docstring (the source of the number it checks):
[V] read in the primary text or the authors' code; [V2] read in a secondary source
(lecture notes); [D] derived here from the definitions (the derivation is in the
architecture's module docstring); [M] recalled, not seen in the primary text: such a test
says so and checks the derivable part, or checks the measurement against it as a
comparison only.

Sources:
- ConvACs: Cohen, Sharir, Shashua, "On the expressive power of deep learning: a tensor
  analysis", COLT 2016 (via lecture notes [V2]; Thm 1 recalled [M]).
- MPS / tensor networks: Levine, Yakira, Cohen, Shashua, ICLR 2018 [M]; Cui, Freedman,
  Sattath, Stong, Minton, J. Math. Phys. 2016 [V abstract]; Gesmundo, Landsberg, Walter
  2018 [V abstract].
- RAC: Levine, Sharir, Shashua, "Benefits of depth for long-term memory of recurrent
  networks", 2018 [M].
- GNN: Razin, Verbin, Cohen, NeurIPS 2023 [M] (walk index: the authors' code [V, recalled]).
- Embedded attention: Wies, Levine, Jannai, Shashua, ICML 2021 [M, rough].
"""

import itertools
import json

import numpy as np
import pytest

from seprank import measure
from seprank.algebra.domains import ModP
from seprank.cli import main
from seprank.engine.homogeneity import homogeneity
from seprank.errors import ConfigError
from seprank.nets import (
    ARCHITECTURES,
    GNN,
    MPS,
    RAC,
    ConvACDeep,
    ConvACShallow,
    EmbeddedAttention,
    LinearSelfAttention,
    SoftmaxSelfAttention,
)
from seprank.nets.base import build
from seprank.nets.gnn import cycle, path, star
from seprank.nets.rac import recalled_deep_lower_bound
from seprank.testing import assert_engines_agree


def rank(net, A, **kw):
    m = measure(net, A, **kw)
    assert m.saturated, (net, A, m)
    return m.rank


# ------------------------------------------------------------------ generic properties
#: One small exactly-measurable instance per polynomial architecture with random inputs.
SMALL = {
    "attention": LinearSelfAttention(depth=1, width=2, seq_len=4),
    "convac-shallow": ConvACShallow(seq_len=4, in_dim=2, channels=3),
    "convac-deep": ConvACDeep(seq_len=4, in_dim=2, channels=(2, 3)),
    "mps": MPS(seq_len=4, phys_dim=2, bond=2),
    "mps-periodic": MPS(seq_len=4, phys_dim=2, bond=2, periodic=True),
    "rac": RAC(seq_len=4, in_dim=2, hidden=2),
    "rac-deep": RAC(seq_len=4, in_dim=2, hidden=2, depth=2),
    "gnn-graph": GNN(edges=path(4), depth=1, width=2),
    "gnn-vertex": GNN(edges=star(4), depth=2, width=2, target=0),
}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_engines_agree(name):
    """[D] One integer network: GF(p) rank of the grid == exact rank over Q of the
    coefficient matrix (sympy) == float SVD rank where its spectrum is trustworthy."""
    net = SMALL[name]
    assert assert_engines_agree(net, (0, 1), float_check="trusted") >= 1


@pytest.mark.parametrize("name", sorted(SMALL))
def test_partition_and_its_complement_agree(name):
    """[D] sep(f; A, B) = sep(f; B, A): the grid matrix is transposed."""
    net = SMALL[name]
    assert rank(net, (0, 2)) == rank(net, (1, 3))


@pytest.mark.parametrize("name", sorted(SMALL))
def test_declared_degree_is_checked_true(name):
    """Every declared (degree, homogeneous) survives seprank's check at random points."""
    net = SMALL[name]
    F = ModP()
    h = homogeneity(net, net.init(np.random.default_rng(0), F), F, np.random.default_rng(1))
    assert h.homogeneous and h.degree == net.degree


def test_wrong_declaration_is_refused():
    """A declared degree that is false is a ConfigError, not a wrong rank."""

    class Lying(ConvACShallow):
        @property
        def degree(self):
            return 3

    with pytest.raises(ConfigError, match="declares homogeneous of degree=3"):
        measure(Lying(seq_len=4, in_dim=2, channels=2))


@pytest.mark.parametrize(
    "cls, kwargs, arg",
    [
        (ConvACShallow, dict(seq_len=1, in_dim=2, channels=2), "seq_len=1"),
        (ConvACShallow, dict(seq_len=4, in_dim=0, channels=2), "in_dim=0"),
        (ConvACDeep, dict(seq_len=6, in_dim=2, channels=(2, 2)), "seq_len=6 must be a power"),
        (ConvACDeep, dict(seq_len=4, in_dim=2, channels=(2,)), "log2"),
        (ConvACDeep, dict(seq_len=4, in_dim=2, channels=(2, 0)), r"channels\[1\]=0"),
        (MPS, dict(seq_len=4, phys_dim=2, bond=0), "bond=0"),
        (MPS, dict(seq_len=4, phys_dim=2, bond=2, periodic=2), "periodic=2"),
        (RAC, dict(seq_len=4, in_dim=2, hidden=2, depth=3), "depth=3 must be 1 or 2"),
        (GNN, dict(edges="0-1,1-x", depth=1, width=2), "edges="),
        (GNN, dict(edges="0-1", depth=1, width=2, target=5), "target=5"),
        (EmbeddedAttention, dict(vocab=4, embed_rank=2, width=3, heads=2), "heads=2"),
        (EmbeddedAttention, dict(vocab=0, embed_rank=2, width=3), "vocab=0"),
    ],
)
def test_bad_configs_name_the_argument(cls, kwargs, arg):
    with pytest.raises(ConfigError, match=arg):
        cls(**kwargs)


def test_registry_builds_every_architecture_from_strings():
    """Each registered name builds from KEY=VALUE strings (the CLI's --param)."""
    given = {
        "attention": ["depth=1", "width=2", "seq_len=4"],
        "softmax-attention": ["depth=1", "width=2", "seq_len=4"],
        "embedded-attention": ["vocab=3", "embed_rank=2", "width=2"],
        "convac-shallow": ["seq_len=4", "in_dim=3", "channels=5"],
        "convac-deep": ["seq_len=4", "in_dim=2", "channels=2,4"],
        "mps": ["seq_len=6", "phys_dim=2", "bond=2", "periodic=1"],
        "rac": ["seq_len=4", "in_dim=2", "hidden=3", "depth=2"],
        "gnn": ["edges=0-1,1-2,2-3", "depth=2", "width=2", "target=none"],
        "linear-attention": ["depth=1", "width=2", "causal=1", "feature=square"],
        "retention": ["depth=1", "width=2", "heads=2", "gamma_num=1,3", "gamma_den=4"],
        "gla": ["depth=1", "width=2", "query_position=2"],
        "s6": ["depth=1", "width=2", "state=3"],
        "s4": ["depth=1", "width=2", "state=3", "product=1"],
        "hyena": ["depth=2", "width=2", "seq_len=6"],
        "mixer": ["depth=1", "width=2", "token_hidden=3", "channel_hidden=none"],
    }
    assert set(given) == set(ARCHITECTURES)
    for name, pairs in given.items():
        assert isinstance(build(ARCHITECTURES[name], pairs, name), ARCHITECTURES[name])
    assert build(ARCHITECTURES["convac-deep"], given["convac-deep"]).channels == (2, 4)
    assert build(ARCHITECTURES["mps"], given["mps"]).periodic is True


def test_softmax_is_float_only_and_said_so():
    """softmax-attention is not a polynomial: measured beside attention by the float engine
    only (method='auto' says so); the exact engines refuse it."""
    soft = SoftmaxSelfAttention(depth=1, width=2, seq_len=4)
    m = measure(soft, method="auto", max_samples=40)
    assert m.method == "float" and "not a polynomial" in m.strategy_reason
    assert m.certified.startswith("none")
    exact = measure(LinearSelfAttention(depth=1, width=2, seq_len=4), method="auto")
    assert exact.method == "modular" and exact.rank == 3 and m.rank > exact.rank
    with pytest.raises(ConfigError, match="not a polynomial"):
        measure(soft, method="modular")


# ------------------------------------------------------------------ convac-shallow
SHALLOW = [  # (N, M, Z, A): min(Z, M^|A|, M^|B|)
    (4, 3, 5, (0,)), (4, 3, 5, (0, 1)), (4, 3, 5, (0, 2)), (4, 2, 3, (0, 1)),
    (6, 2, 5, (0, 1, 2)), (6, 2, 5, (0,)), (6, 2, 9, (0, 2, 4)), (5, 3, 4, (1, 3)),
]


@pytest.mark.parametrize("N, M, Z, A", SHALLOW)
def test_convac_shallow_rank_is_min_of_channels_and_sides(N, M, Z, A):
    """[V2] sep <= Z for every partition; [D] = min(Z, M^|A|, M^|B|) for generic weights."""
    net = ConvACShallow(seq_len=N, in_dim=M, channels=Z)
    assert rank(net, A) == min(Z, M ** len(A), M ** (N - len(A))) == net.bound(A)


# ------------------------------------------------------------------ convac-deep
def test_convac_deep_example_interleaved_4_halving_2():
    """[V2] N = 4, M = 2, channels 2,4: odd/even partition 4 (= M^{N/2}, r_0 >= M), halving
    2 (<= r_{L-1} = 4 [V2]; here also <= r_0 = 2, the HT tree's min-cut [D])."""
    net = ConvACDeep(seq_len=4, in_dim=2, channels=(2, 4))
    assert rank(net, (0, 2)) == 4 and rank(net, (0, 1)) == 2
    assert net.min_cut((0, 2)) == 4 and net.min_cut((0, 1)) == 2


@pytest.mark.parametrize("N, M, channels", [(4, 2, (2, 2)), (4, 3, (3, 2)), (8, 2, (2, 2, 2)),
                                            (8, 2, (2, 4, 4)), (16, 2, (2, 2, 2, 2))])
def test_convac_deep_halving_bounded_interleaved_exponential(N, M, channels):
    """[V2] halving <= r_{L-1} for every weight; interleaved = M^{N/2} a.e. when r_0 >= M
    ([M] Cohen-Sharir-Shashua 2016 Thm 1 states >= min(r_0, M)^{N/2}: the derivable part,
    the [V2] equality, is what is asserted)."""
    net = ConvACDeep(seq_len=N, in_dim=M, channels=channels)
    half, inter = tuple(range(N // 2)), tuple(range(0, N, 2))
    assert rank(net, half) <= channels[-1]
    assert rank(net, inter) == M ** (N // 2) >= min(channels[0], M) ** (N // 2)


@pytest.mark.parametrize("channels", [(2, 2), (2, 4), (4, 2), (1, 4)])
def test_convac_deep_rank_equals_tree_min_cut_on_every_partition(channels):
    """[D] the HT min-cut bounds every partition; with power-of-2 dimensions it is attained
    here (the tensor-network analogue of Cui et al. [V abstract])."""
    net = ConvACDeep(seq_len=4, in_dim=2, channels=channels)
    for A in [(0,), (0, 1), (0, 2), (0, 3)]:
        assert rank(net, A) == net.min_cut(A)


# ------------------------------------------------------------------ mps
def test_mps_example_contiguous_2_interleaved_8():
    """[M] Levine et al. 2018 min-cut, example N = 6, d = 2, bond 2: {0,1,2} = 2,
    {0,2,4} = 8 (equality by Cui et al. [V abstract], bond a power of 2)."""
    net = MPS(seq_len=6, phys_dim=2, bond=2)
    assert rank(net, (0, 1, 2)) == 2 == net.min_cut((0, 1, 2))
    assert rank(net, (0, 2, 4)) == 8 == net.min_cut((0, 2, 4))


@pytest.mark.parametrize("N, d, bond", [(4, 2, 2), (4, 2, 4), (5, 2, 2), (6, 2, 2), (6, 3, 2),
                                        (6, 2, 4)])
def test_open_mps_rank_equals_min_cut_contiguous_and_interleaved(N, d, bond):
    """[V abstract] Cui et al. 2016: rank = min-cut for almost all weights when bond
    dimensions are powers of one integer; checked on contiguous and interleaved cuts."""
    net = MPS(seq_len=N, phys_dim=d, bond=bond)
    for A in (tuple(range(N // 2)), tuple(range(0, N, 2)), (0, N - 1)):
        assert rank(net, A) == net.min_cut(A)


PERIODIC = [  # (N, d, A, measured, min-cut): measured here, seed 0 (docs/architectures.md)
    (4, 2, (0, 1), 4, 4), (4, 2, (0, 2), 4, 4), (4, 3, (0, 1), 4, 4), (4, 3, (0, 2), 8, 9),
    (4, 4, (0, 2), 16, 16), (5, 3, (0, 2, 4), 9, 9), (6, 2, (0, 2, 4), 8, 8),
    (6, 3, (0, 1, 2), 4, 4),
]


@pytest.mark.parametrize("N, d, A, measured, cut", PERIODIC)
def test_periodic_mps_table(N, d, A, measured, cut):
    """[V abstract] Gesmundo-Landsberg-Walter 2018: periodic chains with bond 2 can fall
    below the min-cut. Measured: ring of 4 sites, d = 3, interleaved: 8 < min-cut 9."""
    net = MPS(seq_len=N, phys_dim=d, bond=2, periodic=True)
    assert net.min_cut(A) == cut
    assert rank(net, A) == measured <= cut


def test_periodic_gap_is_exact_not_an_unlucky_prime():
    """The gap 8 < 9 holds for another seed and prime, and over Q (symbolic)."""
    net = MPS(seq_len=4, phys_dim=3, bond=2, periodic=True)
    assert rank(net, (0, 2), seed=5, prime=1000003) == 8
    assert assert_engines_agree(net, (0, 2), float_check="never") == 8


# ------------------------------------------------------------------ rac
@pytest.mark.parametrize("M, R", [(2, 2), (2, 3), (3, 2)])
def test_shallow_rac_start_end_rank_independent_of_length(M, R):
    """[D] sep <= R for every T (Start-End); [M] = R for generic weights: measured R for
    every T with M^{T/2} >= R."""
    ranks = [rank(RAC(seq_len=T, in_dim=M, hidden=R), tuple(range(T // 2)))
             for T in (4, 6, 8)]
    assert ranks == [R] * 3


def test_deep_rac_start_end_rank_grows_with_length():
    """[M] depth 2: sep >= C(T/2 + min(M,R) - 1, T/2) (recalled, so only compared): the
    measured rank grows with T and is at least the recalled bound at every T."""
    M = R = 2
    ranks = [rank(RAC(seq_len=T, in_dim=M, hidden=R, depth=2), tuple(range(T // 2)))
             for T in (2, 4, 6, 8)]
    assert ranks == sorted(set(ranks)) and ranks == [2, 6, 8, 10]
    assert all(r >= recalled_deep_lower_bound(T, M, R) for r, T in zip(ranks, (2, 4, 6, 8)))


# ------------------------------------------------------------------ gnn
GRAPHS = {"path": path, "star": star, "cycle": cycle}


@pytest.mark.parametrize("graph", sorted(GRAPHS))
@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize("target", [None, 0])
def test_gnn_rank_within_walk_index_bound(graph, n, depth, target):
    """[M] Razin-Verbin-Cohen 2023: sep <= width^(4 WI + 1), WI computed by seprank
    (recalled statement: the measured rank is checked against it)."""
    net = GNN(edges=GRAPHS[graph](n), depth=depth, width=2, target=target)
    A = tuple(range(n // 2))
    assert rank(net, A) <= net.bound(A)


def test_walk_index_by_hand():
    """[V, recalled] path 0-1-2-3, depth 2, A = {0,1}: boundary {1, 2}; 1-step walks with
    self-loops: 3 from each, so WI = 6 (graph); ending at vertex 0: 1 (from 1)."""
    assert GNN(edges=path(4), depth=2, width=2).walk_index((0, 1)) == 6
    assert GNN(edges=path(4), depth=2, width=2, target=0).walk_index((0, 1)) == 1


@pytest.mark.parametrize("full", [cycle(4), star(4), "0-1,1-2,2-3,3-0,0-2"])
@pytest.mark.parametrize("target", [None, 0, 2])
def test_removing_edges_never_raises_the_bound(full, target):
    """[D] walks in a subgraph are walks in the graph, and the boundary can only shrink:
    WI, so the bound, never rises when edges are removed (every subset checked)."""
    g = GNN(edges=full, depth=3, width=2, target=target)
    for A in [(0,), (0, 1), (0, 2)]:
        for k in range(len(g.edges)):
            for sub in itertools.combinations(g.edges, k):
                h = GNN(edges=sub, depth=3, width=2, target=target, n_vertices=4)
                assert h.walk_index(A) <= g.walk_index(A)


def test_measured_gnn_rank_can_rise_when_edges_are_removed():
    """Measured (not a literature claim): the bound is monotone, the rank is not. With
    product aggregation (depth 2, width 2, graph output), the graph 0-1, 2-3, 3-0, 0-2 has
    rank 11 across {0,1}, while its subgraph 0-1, 0-3 has 12."""
    big = GNN(edges="0-1,2-3,3-0,0-2", depth=2, width=2, n_vertices=4)
    small = GNN(edges="0-1,3-0", depth=2, width=2, n_vertices=4)
    assert rank(big, (0, 1)) == 11 and rank(small, (0, 1)) == 12
    assert small.bound((0, 1)) <= big.bound((0, 1))


# ------------------------------------------------------------------ embedded attention
@pytest.mark.parametrize("depth, r, expected", [(1, 2, [2, 3, 3, 3]), (2, 2, [5, 15, 15, 15])])
def test_embedded_attention_width_stops_adding_rank_at_embed_rank(depth, r, expected):
    """[M, rough] Wies et al. 2021: width-dependence saturates once d_x >= r. Measured on the
    complete grid over a 5-token vocabulary, N = 4: flat from d_x = r on."""
    ranks = [measure(EmbeddedAttention(vocab=5, embed_rank=r, width=d, depth=depth,
                                       seq_len=4), (0, 1)).rank for d in (1, 2, 3, 4)]
    assert ranks == expected


def test_embedded_attention_grid_is_the_complete_token_grid():
    """The alphabet sampler ranks the whole V^|A| x V^|B| matricisation (nothing sampled);
    modular and float ranks of one integer network agree on it."""
    net = EmbeddedAttention(vocab=4, embed_rank=2, width=3, depth=1, seq_len=4)
    m = measure(net, (0, 1))
    assert m.sampler == "alphabet" and m.samples == (16, 16) and m.saturated
    from seprank.algebra.domains import Symbolic

    w = {k: np.asarray(v, dtype=np.int64) for k, v in
         net.init(np.random.default_rng(0), Symbolic()).items()}
    assert measure(net, (0, 1), weights=w).rank == measure(net, (0, 1), weights=w,
                                                           method="float").rank
    with pytest.raises(ConfigError, match="alphabet"):
        measure(net, (0, 1), method="symbolic")


# ------------------------------------------------------------------ CLI (the must-holds)
def cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def measure_json(capsys, *args):
    code, out, err = cli(capsys, "measure", *args, "--json", "--quiet")
    assert code == 0, err
    return json.loads(out)


def test_cli_convac_shallow(capsys):
    base = ["--arch", "convac-shallow", "--param", "seq_len=4", "--param", "in_dim=3",
            "--param", "channels=5"]
    assert measure_json(capsys, *base, "--partition", "0")["rank"] == 3
    assert measure_json(capsys, *base, "--partition", "0,1")["rank"] == 5


def test_cli_convac_deep(capsys):
    base = ["--arch", "convac-deep", "--param", "seq_len=4", "--param", "in_dim=2",
            "--param", "channels=2,4"]
    assert measure_json(capsys, *base, "--partition", "0,2")["rank"] == 4
    assert measure_json(capsys, *base, "--partition", "0,1")["rank"] == 2


def test_cli_mps(capsys):
    base = ["--arch", "mps", "--param", "seq_len=6", "--param", "phys_dim=2", "--param",
            "bond=2", "--param", "periodic=0"]
    assert measure_json(capsys, *base, "--partition", "0,1,2")["rank"] == 2
    assert measure_json(capsys, *base, "--partition", "0,2,4")["rank"] == 8


@pytest.mark.parametrize(
    "args, names",
    [
        (["measure", "--arch", "transformer-xl"], ["transformer-xl", "convac-deep", "gnn"]),
        (["measure", "--arch", "mps", "--param", "seq_len=6", "--param", "colour=2"],
         ["colour", "phys_dim", "bond", "periodic"]),
        (["bounds", "--arch", "nope"], ["nope", "mps"]),
        (["measure", "--arch", "rac", "--param", "seq_len=4"], ["in_dim"]),
        (["measure", "--arch", "rac", "--param", "seq_len=x"], ["seq_len='x'"]),
        (["measure", "--arch", "rac", "--param", "seq_len"], ["KEY=VALUE"]),
        (["measure", "--arch", "mps", "--depth", "2"], ["--depth"]),
    ],
)
def test_cli_unknown_arch_or_param_exits_2_naming_it(capsys, args, names):
    code, out, err = cli(capsys, *args)
    lines = [x for x in err.strip().splitlines() if x]
    assert code == 2 and len(lines) == 1 and out == ""
    assert all(n in lines[0] for n in names), lines[0]


def test_cli_attention_default_keeps_todays_flags(capsys):
    d = measure_json(capsys, "--depth", "1", "--width", "2", "--seq-len", "4")
    assert d["rank"] == 3 and d["config"]["architecture"] == "LinearSelfAttention"
    code, _, err = cli(capsys, "measure", "--width", "2")
    assert code == 2 and "--depth" in err and "--seq-len" in err


def test_cli_archs_lists_every_architecture(capsys):
    code, out, _ = cli(capsys, "archs", "--json")
    rows = {r["name"]: r for r in json.loads(out)["architectures"]}
    assert code == 0 and set(rows) == set(ARCHITECTURES)
    assert [p["name"] for p in rows["mps"]["params"]] == ["seq_len", "phys_dim", "bond",
                                                           "periodic"]
    assert rows["softmax-attention"]["measured_by"] == "float only"
    assert all(r["description"] for r in rows.values())
    code, out, _ = cli(capsys, "archs")
    assert code == 0 and "convac-deep" in out and "channels" in out


@pytest.mark.parametrize(
    "args, upper, words",
    [
        (["--arch", "mps", "--param", "seq_len=6", "--param", "phys_dim=2", "--param", "bond=2",
          "--partition", "0,2,4"], 8, "Levine, Yakira"),
        (["--arch", "convac-shallow", "--param", "seq_len=4", "--param", "in_dim=3", "--param",
          "channels=5", "--partition", "0"], 3, "V2"),
        (["--arch", "convac-deep", "--param", "seq_len=4", "--param", "in_dim=2", "--param",
          "channels=2,4", "--partition", "0,1"], 2, "r_{L-1}"),
        (["--arch", "gnn", "--param", "edges=0-1,1-2,2-3", "--param", "depth=2", "--param",
          "width=2"], 2**25, "Razin-Verbin-Cohen"),
        (["--arch", "rac", "--param", "seq_len=4", "--param", "in_dim=2", "--param",
          "hidden=3"], 3, "[D]"),
    ],
)
def test_cli_bounds_labelled_with_source(capsys, args, upper, words):
    code, out, _ = cli(capsys, "bounds", *args, "--json")
    d = json.loads(out)
    assert code == 0 and d["upper"] == upper and words in d["source"] and d["tag"]


# ------------------------------------------------------------------ figure 9 (vocab bottleneck)
def test_vocab_bottleneck_command_quick(tmp_path):
    """`python -m seprank.figures.vocab_bottleneck --quick` writes CSV, PNG and PDF; flat from
    d_x = r."""
    from seprank.figures import vocab_bottleneck as vb

    assert vb.main(["--quick", "--out", str(tmp_path)]) == 0
    for ext in ("csv", "png", "pdf"):
        assert (tmp_path / f"{vb.NAME}.{ext}").stat().st_size > 100


def test_committed_figure9_csv_shows_saturation_at_embed_rank():
    """[M, rough] Wies et al. 2021, measured: in paper_figures/fig9 every curve is flat for
    d_x >= r and strictly rising before (r >= 2), at both depths."""
    import csv
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "paper_figures" / "fig9_vocab_bottleneck.csv"
    rows = list(csv.DictReader(path.open()))
    curves: dict = {}
    for r in rows:
        curves.setdefault((int(r["depth"]), int(r["embed_rank"])), {})[int(r["width"])] = \
            int(r["measured"])
    for (L, er), pts in curves.items():
        assert len({v for d, v in pts.items() if d >= er}) == 1, (L, er, pts)
        before = [pts[d] for d in sorted(pts) if d <= er]
        assert before == sorted(set(before)), (L, er, pts)


def test_embedded_attention_within_its_derived_bound_flat_in_width():
    """[D] sep <= the attention block bound at width min(d_x, r) (and <= V^min(|A|,|B|)):
    the bound itself stops growing at d_x = r; the measured ranks stay below it."""
    from seprank.theory.architecture_bounds import bound_of

    for d in (1, 2, 3, 4):
        net = EmbeddedAttention(vocab=5, embed_rank=2, width=d, depth=2, seq_len=4)
        ub = bound_of(net, (0, 1)).value
        assert measure(net, (0, 1)).rank <= ub
        at_r = EmbeddedAttention(vocab=5, embed_rank=2, width=2, depth=2, seq_len=4)
        assert ub == (bound_of(at_r, (0, 1)).value if d >= 2 else ub)
