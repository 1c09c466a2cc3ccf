"""seprank.from_torch: a torch nn.Module traced with torch.fx and interpreted with numpy."""

import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import flint
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import seprank  # noqa: E402
from seprank.algebra.domains import Float64, ModP, Symbolic, raw, symbolic_inputs  # noqa: E402
from seprank.algebra.field_array import FieldArray  # noqa: E402
from seprank.engine.saturation import traced_degree  # noqa: E402
from seprank.errors import ConfigError, DomainError  # noqa: E402
from seprank.nets import LinearSelfAttention, SoftmaxSelfAttention, config_of  # noqa: E402
from seprank.nets.torch_module import TorchModule, from_torch  # noqa: E402
from tests._truth import inputs, rank_over_q  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

#: The paper's network as a user would write it in torch (the CLI test writes this file).
PAPER_SOURCE = '''
import torch
from torch import nn


class Layer(nn.Module):
    """y^i <- sum_h O_h sum_j <Q_h y^i, K_h y^j> V_h y^j (softmax: the usual attention)."""

    def __init__(self, d, heads, softmax=False):
        super().__init__()
        a = d // heads
        self.softmax, self.a = softmax, a
        self.q = nn.ModuleList(nn.Linear(d, a, bias=False) for _ in range(heads))
        self.k = nn.ModuleList(nn.Linear(d, a, bias=False) for _ in range(heads))
        self.v = nn.ModuleList(nn.Linear(d, a, bias=False) for _ in range(heads))
        self.o = nn.ModuleList(nn.Linear(a, d, bias=False) for _ in range(heads))

    def forward(self, y):
        out = 0
        for q, k, v, o in zip(self.q, self.k, self.v, self.o):
            s = q(y) @ k(y).transpose(-1, -2)
            if self.softmax:
                s = torch.softmax(s / self.a ** 0.5, dim=-1)
            out = out + o(s @ v(y))
        return out


class Paper(nn.Module):
    def __init__(self, depth, d, heads=1, softmax=False):
        super().__init__()
        self.layers = nn.ModuleList(Layer(d, heads, softmax) for _ in range(depth))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def factory():
    return Paper(2, 2, 1)
'''
_ns: dict = {}
exec(compile(PAPER_SOURCE, "paper_module", "exec"), _ns)
Paper = _ns["Paper"]


def paper(depth, width, heads, seq_len, softmax=False):
    return from_torch(Paper(depth, width, heads, softmax), seq_len=seq_len, width=width)


def torch_names(native: dict, depth: int, heads: int) -> dict:
    """The native LinearSelfAttention weights under the torch module's parameter names."""
    return {f"layers.{i}.{n}.{h}.weight": native[k][i, h] for i in range(depth)
            for h in range(heads) for k, n in (("Wq", "q"), ("Wk", "k"), ("Wv", "v"),
                                               ("Wo", "o"))}


# ------------------------------------------------------------------ the paper's network
@pytest.mark.parametrize("L,d,H,N", [(1, 2, 1, 3), (2, 2, 1, 4), (2, 4, 2, 3)])
def test_paper_module_is_the_native_network_value_for_value(L, d, H, N):
    """Same weights, same function: float64 values and the exact symbolic expansion."""
    native = LinearSelfAttention(L, d, H, N)
    net = paper(L, d, H, N)
    W = native.init(np.random.default_rng(0), Float64())
    X = np.random.default_rng(1).standard_normal((5, N, d))
    want = native.apply(W, X, Float64())
    assert np.allclose(net.apply(torch_names(W, L, H), X, Float64()), want, rtol=1e-12)
    assert np.allclose(net._forward(torch_names(W, L, H), X)[:, 0, 0], want, rtol=1e-12)
    if L == 1:
        S = Symbolic()
        Ws = native.init(np.random.default_rng(2), S)
        _, Xs = symbolic_inputs(N, d)
        assert net.apply(torch_names(Ws, L, H), Xs, S)[0] == native.apply(Ws, Xs, S)[0]


def test_paper_module_weights_are_keyed_by_parameter_name_and_config_rebuilds(
    tmp_path, monkeypatch
):
    net = paper(2, 2, 1, 4)
    W = net.init(np.random.default_rng(0), Float64())
    assert sorted(W) == sorted(n for n, _ in Paper(2, 2).named_parameters())
    assert config_of(net) == {"factory": None, "seq_len": 4, "width": 2, "position": 0,
                              "coordinate": 0, "draw": "trainable", "kwargs": (),
                              "architecture": "TorchModule"}
    (tmp_path / "usermod.py").write_text(PAPER_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    built = TorchModule(factory="usermod:factory", seq_len=4, width=2)
    cfg = config_of(built)
    assert cfg["factory"] == "usermod:factory"
    again = TorchModule(**{k: v for k, v in cfg.items() if k != "architecture"})
    assert again == built and hash(again) == hash(built) and again != net
    assert sorted(again.init(np.random.default_rng(0), Float64())) == sorted(W)


def test_entry_degree_traced_through_the_graph_equals_the_native_one():
    assert traced_degree(paper(2, 2, 1, 3)) == traced_degree(LinearSelfAttention(2, 2, 1, 3))
    assert traced_degree(paper(2, 2, 1, 3), random_weights=False) == 9


def test_paper_module_measured_in_float_and_symbolic_equals_native():
    m = seprank.measure(paper(2, 2, 1, 4), method="float")
    assert m.rank == 18 == seprank.measure(LinearSelfAttention(2, 2, 1, 4), method="float").rank
    m = seprank.measure(paper(1, 2, 2, 4), method="symbolic")
    assert m.rank == seprank.measure(LinearSelfAttention(1, 2, 2, 4), method="symbolic").rank


@pytest.mark.parametrize(
    "L,d,H,N,rank", [(2, 2, 1, 4, 18), (3, 2, 1, 4, 232), (2, 3, 1, 4, 49), (2, 4, 2, 4, 107)]
)
def test_paper_module_modular_rank_equals_native_graded(L, d, H, N, rank):
    """The native LinearSelfAttention ranks (tests/nets/test_attention.py), with the graded
    strategy chosen because homogeneity was found (nothing is declared); the ranks are the
    native network's, e.g. tests/verdicts/test_certificates.py (232)."""
    m = seprank.measure(paper(L, d, H, N), method="auto")
    assert (m.rank, m.method, m.strategy, m.saturated) == (rank, "modular", "graded", True)
    assert "homogeneous" in m.strategy_reason and "detected degree" in m.strategy_reason


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("L,d,H,N,rank", [(4, 2, 1, 4, 4538)])
def test_paper_module_modular_rank_equals_native_graded_deeper(L, d, H, N, rank):
    """About 20 s. The rank stops below the sample size; like the native network's, the
    label is 'not saturated' at the default prime (Schwartz-Zippel bound 0.08 at entry
    degree 241), the same blocks and the same words."""
    m = seprank.measure(paper(L, d, H, N), method="auto")
    assert (m.rank, m.method, m.strategy, m.sample_saturated) == (rank, "modular", "graded", True)
    # the native network's grid strategy (auto takes catalecticant there, which samples no
    # grid and so has another saturation bound)
    native = seprank.measure(LinearSelfAttention(L, d, H, N), strategy="graded")
    assert [b["rank"] for b in m.blocks] == [b["rank"] for b in native.blocks]
    assert m.saturated == native.saturated
    assert m.saturation_bound == pytest.approx(native.saturation_bound, rel=1e-6)


def test_modp_apply_is_exact_also_on_plain_residues():
    """Called directly with int64 residues, apply wraps them as field arrays itself."""
    native, net, F = LinearSelfAttention(2, 2, 1, 3), paper(2, 2, 1, 3), ModP(101)
    rng = np.random.default_rng(0)
    W, X = native.init(rng, F), F.random(rng, (4, 3, 2))
    got = net.apply(torch_names(W, 2, 1), X, F)
    assert isinstance(got, FieldArray) and (raw(got) == raw(native.apply(W, X, F))).all()


def test_a_float_constant_is_read_as_the_binary_fraction_it_holds():
    class Tenth(nn.Module):
        def forward(self, x):
            return (0.1 * x) * x

    net = from_torch(Tenth(), seq_len=2, width=2)
    X, _ = inputs(2, 2)
    tenth = flint.fmpq(*Fraction(0.1).as_integer_ratio())
    truth = rank_over_q(tenth * X[0][0] * X[0][0], [0])
    assert seprank.measure(net, [0]).rank == truth == 1
    with pytest.raises(DomainError, match="not a polynomial|inf|not read"):
        class Inf(nn.Module):
            def forward(self, x):
                return (float("inf") * x) * x

        seprank.measure(from_torch(Inf(), seq_len=2, width=2), method="modular")
    half = from_torch(Paper(1, 2), seq_len=2, width=2, output=lambda y: 0.5 * y[:, 0, 0])
    assert seprank.measure(half).rank == seprank.measure(LinearSelfAttention(1, 2, 1, 2)).rank


# ------------------------------------------------------------------ non-polynomial graphs
def test_softmax_module_float_only_labelled_and_refused_by_exact_engines():
    net = paper(1, 2, 1, 3, softmax=True)
    assert net.polynomial is False
    assert "softmax at node 'softmax'" in net.polynomial_reason
    m = seprank.measure(net, method="auto", max_samples=120)
    assert m.method == "float" and "softmax" in m.strategy_reason
    with pytest.raises(ConfigError, match="softmax"):
        seprank.measure(net, method="modular")
    with pytest.raises(DomainError, match="softmax at node 'softmax' is not a polynomial"):
        net.apply(net.init(np.random.default_rng(0), ModP(101)), None, ModP(101))
    # the module's own forward, with the drawn weights: the native softmax network
    native = SoftmaxSelfAttention(1, 2, 1, 3)
    W = native.init(np.random.default_rng(0), Float64())
    X = np.random.default_rng(1).standard_normal((4, 3, 2))
    assert np.allclose(net.apply(torch_names(W, 1, 1), X, Float64()),
                       native.apply(W, X, Float64()), rtol=1e-12)


class _Act(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.kind, self.lin, self.norm = kind, nn.Linear(2, 2), nn.LayerNorm(2)

    def forward(self, x):
        y = self.lin(x)
        if self.kind == "relu":
            return torch.relu(y)
        if self.kind == "gelu":
            return nn.functional.gelu(y)
        if self.kind == "exp":
            return y.exp()
        if self.kind == "norm":
            return self.norm(y)
        if self.kind == "div":
            return y / (x + 1)
        return y**0.5


@pytest.mark.parametrize("kind,op", [("relu", "relu"), ("gelu", "gelu"), ("exp", "exp"),
                                     ("norm", "LayerNorm"),
                                     ("div", "division by a computed tensor"),
                                     ("pow", "pow by a non-integer")])
def test_non_polynomial_operations_name_the_operation_and_node(kind, op):
    net = from_torch(_Act(kind), seq_len=2, width=2)
    why = net.polynomial_reason
    assert not net.polynomial and op in why and "at node '" in why and "not a polynomial" in why
    W = net.init(np.random.default_rng(0), Float64())
    X = np.random.default_rng(1).random((3, 2, 2))
    assert net.apply(W, X, Float64()).shape == (3,)
    assert traced_degree(net) is None


def test_an_operation_the_interpreter_does_not_know_is_named_so():
    class Sorted(nn.Module):
        def forward(self, x):
            return torch.sort(x, dim=-1).values

    net = from_torch(Sorted(), seq_len=2, width=2)
    assert net.polynomial_reason.startswith("sort at node 'sort' is not supported by seprank")
    assert not net.polynomial


def test_data_dependent_control_flow_refused_in_one_line():
    class Branchy(nn.Module):
        def forward(self, x):
            return x if x.sum() > 0 else -x

    with pytest.raises(ConfigError, match="data-dependent control flow") as e:
        from_torch(Branchy(), seq_len=2, width=2)
    assert "\n" not in str(e.value)


def test_bad_inputs_refused_in_one_line():
    with pytest.raises(ConfigError, match="torch.nn.Module"):
        from_torch(lambda x: x, seq_len=2, width=2)
    with pytest.raises(ConfigError, match="does not run on inputs"):
        from_torch(nn.Linear(3, 3), seq_len=2, width=2)
    with pytest.raises(ConfigError, match="pass output=callable"):
        from_torch(nn.Flatten(), seq_len=2, width=2)
    with pytest.raises(ConfigError, match="position=2 must be < seq_len=2"):
        from_torch(nn.Identity(), seq_len=2, width=2, output=(2, 0))
    with pytest.raises(ConfigError, match="must be module:function"):
        TorchModule(factory="nocolon", seq_len=2, width=2)
    with pytest.raises(ConfigError, match="from_torch"):
        TorchModule(factory=None, seq_len=2, width=2)


# ------------------------------------------------------------------ other operations
class Causal(nn.Module):
    """A causal linear attention behind a zero-padded Conv1d (a tril mask buffer)."""

    def __init__(self, d, N):
        super().__init__()
        self.conv = nn.Conv1d(d, d, 3, padding=1)
        self.q, self.k = nn.Linear(d, d, bias=False), nn.Linear(d, d, bias=False)
        self.v = nn.Linear(d, d, bias=False)
        self.register_buffer("mask", torch.tril(torch.ones(N, N)))

    def forward(self, x):
        h = self.conv(x.transpose(1, 2)).transpose(1, 2)
        s = (self.q(h) @ self.k(h).transpose(1, 2)) * self.mask
        return s @ self.v(h)


class CausalReference:
    """The same network written by hand (a window per position), with numpy operators."""

    seq_len, width = 4, 2

    def init(self, rng, domain):
        d = self.width
        return {"conv.weight": domain.random(rng, (d, d, 3)), "conv.bias": domain.random(rng, (d,)),
                "q.weight": domain.random(rng, (d, d)), "k.weight": domain.random(rng, (d, d)),
                "v.weight": domain.random(rng, (d, d))}

    def apply(self, p, X, domain):
        N = X.shape[1]
        W, b = p["conv.weight"], p["conv.bias"]
        Z = 0 * X[:, :1]  # a zero position, in the domain's arithmetic
        P = np.concatenate([Z, X, Z], axis=1)  # padding 1 on both sides
        h = np.stack([np.einsum("bkc,ock->bo", P[:, t : t + 3], W) for t in range(N)], axis=1)
        h = h + b
        q, k, v = (np.einsum("bnc,ac->bna", h, p[f"{n}.weight"]) for n in "qkv")
        s = np.einsum("bia,bja->bij", q, k) * np.tril(np.ones((N, N), dtype=np.int64))
        return np.einsum("bij,bja->bia", s, v)[:, N - 1, 0]


def test_conv1d_and_tril_mask_equal_a_hand_written_reference():
    net = from_torch(Causal(2, 4), seq_len=4, width=2, output=(3, 0))
    ref = CausalReference()
    W = ref.init(np.random.default_rng(0), Float64())
    X = np.random.default_rng(1).standard_normal((6, 4, 2))
    assert np.allclose(net.apply(W, X, Float64()), ref.apply(W, X, Float64()), rtol=1e-10)
    S = Symbolic()
    Ws = ref.init(np.random.default_rng(2), S)
    _, Xs = symbolic_inputs(4, 2)
    assert net.apply(Ws, Xs, S)[0] == ref.apply(Ws, Xs, S)[0]
    for A in ((0, 1), (0, 2)):
        want = seprank.measure(ref, A, method="float").rank
        assert seprank.measure(net, A, method="float").rank == want


def test_conv1d_and_tril_mask_modular_rank_equals_the_reference():
    net = from_torch(Causal(2, 4), seq_len=4, width=2, output=(3, 0))
    for A in ((0, 1), (0, 2), (3,)):
        m, want = seprank.measure(net, A), seprank.measure(CausalReference(), A)
        assert m.rank == want.rank and m.saturated and m.method == "modular"


class Ops(nn.Module):
    """Most of the operations the interpreter knows, in one forward."""

    def __init__(self):
        super().__init__()
        self.lin, self.W = nn.Linear(2, 3), nn.Parameter(torch.randn(3, 3))
        self.drop, self.idt = nn.Dropout(0.5), nn.Identity()
        self.register_buffer("scale", torch.tensor([1.0, 2.0, 3.0]))

    def forward(self, x):
        B, N, _ = x.shape
        h = self.drop(self.idt(self.lin(x)))
        h = h * self.scale - 0.5 * h + torch.tensor(1.0)
        g = torch.einsum("bnc,cd,bmd->bnm", h, self.W, h)
        g = g.tril() + torch.triu(g, 1).transpose(1, 2) / 2
        c = torch.cumsum(g, dim=-1) - g.mean(dim=1, keepdim=True) + x.size(1)
        p = c.permute(0, 2, 1).reshape(B, N * N).view(B, N, N)
        f = p.flatten(1).unsqueeze(-1).squeeze(-1)
        s = torch.cat([f[:, :3], -(f[:, 3:6] ** 2), (1 - f[:, 6:]).neg()], dim=1)
        t = torch.stack([s, s.sum(-1, keepdim=True).expand(B, 9)], dim=2)
        hh = torch.bmm(h, h.transpose(1, 2)).sum(1)[:, :1, None]
        return torch.matmul(t, torch.ones(2, 1)) + hh


def test_interpreter_equals_the_module_forward_on_many_operations():
    net = from_torch(Ops(), seq_len=3, width=2)
    assert net.polynomial, net.polynomial_reason
    W = net.init(np.random.default_rng(0), Float64())
    X = np.random.default_rng(1).standard_normal((4, 3, 2))
    want = net._forward(W, X)
    assert np.allclose(net.apply(W, X, Float64()), want[:, 0, 0], rtol=1e-10)
    read = from_torch(Ops(), seq_len=3, width=2, output=lambda y: y[:, :, 0].sum(-1))
    assert config_of(read)["position"] is None
    assert np.allclose(read.apply(W, X, Float64()), want[:, :, 0].sum(-1), rtol=1e-10)
    assert traced_degree(net) is not None


# ------------------------------------------------------------------ the CLI and the API
def test_cli_measures_a_factory_on_pythonpath(tmp_path):
    (tmp_path / "mymod.py").write_text(PAPER_SOURCE)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    cmd = [sys.executable, "-m", "seprank", "measure", "--torch", "mymod:factory",
           "--param", "seq_len=4", "--param", "width=2", "--json", "--quiet"]
    r = subprocess.run(cmd + ["--method", "float"], capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    import json

    out = json.loads(r.stdout)
    assert out["rank"] == 18 and out["method"] == "float"
    assert out["config"]["factory"] == "mymod:factory"
    # the default method: modular, graded (homogeneity found)
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    out = json.loads(r.stdout)
    assert (out["rank"], out["method"], out["strategy"]) == (18, "modular", "graded")
    r = subprocess.run(cmd[:-4] + ["--param", "seq_len=4"], capture_output=True, text=True,
                       env=env, cwd=tmp_path, timeout=120)
    assert r.returncode == 2 and "width" in r.stderr and r.stderr.count("\n") == 1


def test_import_seprank_does_not_import_torch():
    code = ("import sys, seprank; assert callable(seprank.from_torch); "
            "print('torch' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and r.stdout.strip() == "False", r.stderr


def test_certify_and_check_certificate_rebuild_a_factory_module(tmp_path, monkeypatch):
    (tmp_path / "usercert.py").write_text(PAPER_SOURCE.replace("Paper(2, 2, 1)", "Paper(1, 2, 1)"))
    monkeypatch.syspath_prepend(str(tmp_path))
    net = TorchModule(factory="usercert:factory", seq_len=4, width=2)
    c = seprank.certify(net, upper=3, upper_source="stated in this test")
    assert c.status == "exact, given the stated bound (stated in this test)"
    path = c.write(tmp_path / "certs")
    with pytest.raises(ConfigError, match="names the module 'usercert' .factory "
                                          "'usercert:factory'.*allow_import"):
        seprank.check_certificate(path)  # the certificate's word is not enough
    r = seprank.check_certificate(path, allow_import="usercert:factory")
    assert r.ok, r.reasons


def test_without_torch_from_torch_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    with pytest.raises(ConfigError, match=r"pip install 'seprank\[torch\]'"):
        from_torch(object(), seq_len=2, width=2)


def test_integer_casts_are_refused_and_empty_dims_sum_everything():
    from torch import nn

    class Cast(nn.Module):
        def forward(self, x):
            return x.to(torch.int64).to(torch.float64) * x

    class SumAll(nn.Module):
        def forward(self, x):
            return x * torch.sum(x, dim=())

    net = from_torch(Cast(), seq_len=2, width=2)
    X = np.arange(8).reshape(2, 2, 2) % 7  # residues (7 itself is refused mod 7)
    with pytest.raises(DomainError, match="cast to torch.int64"):
        net.apply(net.init(np.random.default_rng(0), ModP(7)), X, ModP(7))
    s = from_torch(SumAll(), seq_len=2, width=2)
    got = s.apply(s.init(np.random.default_rng(0), Float64()), X.astype(float), Float64())
    assert np.allclose(got, X[:, 0, 0] * X.sum())


def test_division_by_a_float_is_exact():
    from torch import nn

    class Tenth(nn.Module):
        def forward(self, x):
            return x / 0.1

    net = from_torch(Tenth(), seq_len=2, width=2)
    got = net.apply({}, np.ones((1, 2, 2), dtype=np.int64), ModP(7))
    q = 1 / Fraction(0.1)
    assert int(raw(got)[0]) == q.numerator * pow(q.denominator, -1, 7) % 7
