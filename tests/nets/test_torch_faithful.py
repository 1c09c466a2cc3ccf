"""from_torch is faithful to eager torch: each problem a tester found, with the rank checked
against an independent truth (tests/_truth.py: the polynomial the module computes,
written by hand, ranked over Q)."""

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import seprank  # noqa: E402
from seprank.errors import ConfigError, DomainError  # noqa: E402
from seprank.nets import torch_ops  # noqa: E402
from seprank.nets.torch_module import from_torch  # noqa: E402
from tests._truth import inputs, rank_over_q  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def modular_rank(net, A):
    m = seprank.measure(net, A, method="modular")
    assert m.saturated, m.saturation_reason
    return m.rank


# ------------------------------------------------------------------ in-place writes
class AliasedSkip(nn.Module):
    """``skip = h; h += g``: eager torch reads the written h through skip as well."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(1, 1, bias=False), nn.Linear(1, 1, bias=False)

    def forward(self, x):
        h = self.a(x[:, :1])
        skip = h
        h += self.b(x[:, 1:])
        return skip * h


def test_an_inplace_write_through_an_alias_is_measured_as_eager_torch_computes_it():
    net = from_torch(AliasedSkip(), seq_len=2, width=1)
    X, _ = inputs(2, 1)
    wa, wb = 3, 5  # generic weights: f = (wa x0 + wb x1)^2, rank 3 (fx alone: rank 2)
    truth = rank_over_q((wa * X[0][0] + wb * X[1][0]) ** 2, [0])
    assert truth == 3
    assert modular_rank(net, (0,)) == truth
    W = {"a.weight": np.array([[2.0]]), "b.weight": np.array([[-1.0]])}
    x = np.array([[[1.5], [0.25]]])
    assert net.apply(W, x, seprank.Float64())[0] == pytest.approx((2 * 1.5 - 0.25) ** 2)


class SetItem(nn.Module):
    def forward(self, x):
        y = x * 1
        y[:, 0] = x[:, 1] * x[:, 1]
        return y * x


def test_setitem_and_inplace_methods_are_rewritten_out_of_place():
    net = from_torch(SetItem(), seq_len=2, width=1)  # f = x1^2 * x0
    X, _ = inputs(2, 1)
    assert modular_rank(net, (0,)) == rank_over_q(X[1][0] ** 2 * X[0][0], [0]) == 1

    class AddUnderscore(nn.Module):
        def forward(self, x):
            h = x[:, :1] * 1
            keep = h
            h.add_(x[:, 1:])
            return (keep * h).expand(-1, 2, -1)

    net = from_torch(AddUnderscore(), seq_len=2, width=1)  # f = (x0 + x1)^2
    assert modular_rank(net, (0,)) == rank_over_q((X[0][0] + X[1][0]) ** 2, [0]) == 3


def test_a_write_through_a_view_or_to_a_buffer_is_refused_naming_it():
    class ThroughView(nn.Module):
        def forward(self, x):
            h = x * 1
            v = h[:, :1]
            h += x
            return v * h

    with pytest.raises(ConfigError, match=r"in-place 'iadd' .*shares memory with node 'getitem'"
                                          r".*line \d+ of .*test_torch_faithful.py") as e:
        from_torch(ThroughView(), seq_len=2, width=1)
    assert "\n" not in str(e.value)

    class ToBuffer(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("acc", torch.zeros(1, 2, 1))

        def forward(self, x):
            self.acc.add_(x.sum(0, keepdim=True))
            return x * self.acc

    with pytest.raises(ConfigError, match="writes to the module's tensor 'acc'"):
        from_torch(ToBuffer(), seq_len=2, width=1)


# ------------------------------------------------------------------ kept and drawn tensors
class FrozenMask(nn.Module):
    """Causal linear attention whose mask is a frozen parameter, read at position 0."""

    def __init__(self, d, N):
        super().__init__()
        self.q, self.k = nn.Linear(d, d, bias=False), nn.Linear(d, d, bias=False)
        self.v = nn.Linear(d, d, bias=False)
        self.mask = nn.Parameter(torch.tril(torch.ones(N, N)), requires_grad=False)

    def forward(self, x):
        s = (self.q(x) @ self.k(x).transpose(1, 2)) * self.mask
        return s @ self.v(x)


def _attention_truth(N, d, rows, read=0, coord=0, seed=1):
    """sum_{j in rows} <Q x_read, K x_j> (V x_j)_coord with random integer weights."""
    X, _ = inputs(N, d)
    rng = random.Random(seed)
    Q, K, V = ([[rng.randint(-9, 9) for _ in range(d)] for _ in range(d)] for _ in range(3))

    def lin(M, n, r):
        return sum(M[r][c] * X[n][c] for c in range(d))

    return sum(sum(lin(Q, read, a) * lin(K, j, a) for a in range(d)) * lin(V, j, coord)
               for j in rows)


def test_a_frozen_parameter_is_kept_and_the_measurement_says_so():
    N, d = 3, 2
    net = from_torch(FrozenMask(d, N), seq_len=N, width=d)
    assert sorted(net.init(np.random.default_rng(0), seprank.Float64())) == [
        "k.weight", "q.weight", "v.weight"]
    f = _attention_truth(N, d, rows=[0])  # the query at 0 sees position 0 only
    for A in [(0,), (1,), (0, 2)]:
        m = seprank.measure(net, A, method="modular")
        assert m.rank == rank_over_q(f, A) == 1
    assert "kept as the module's constants: mask (parameter, requires_grad=False)" in \
        m.strategy_reason and "drew at random (draw='trainable'): q.weight" in m.strategy_reason
    every = from_torch(FrozenMask(d, N), seq_len=N, width=d, draw="all")
    assert "mask" in every.init(np.random.default_rng(0), seprank.Float64())
    m = seprank.measure(every, (0,), method="modular")
    assert "draw='all'" in m.strategy_reason and "kept" not in m.strategy_reason
    # a drawn mask is dense: every position counts (the truth with rows 0..N-1, read at 0
    # but the mask is random, so the rank is that of the unmasked sum)
    assert m.rank == rank_over_q(_attention_truth(N, d, rows=range(N)), (0,))


def test_a_kept_tensor_with_no_exact_value_is_refused_naming_it():
    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("scale", torch.tensor([float("nan")]))
            self.lin = nn.Linear(1, 1, bias=False)

        def forward(self, x):
            return self.lin(x) * x * self.scale

    net = from_torch(Scaled(), seq_len=2, width=1)
    with pytest.raises(DomainError, match=r"buffer 'scale' holds nan, not a finite number"):
        seprank.measure(net, method="modular")


# ------------------------------------------------------------------ concrete shapes
class NanoAttention(nn.Module):
    """nanoGPT's causal self-attention without the softmax: qkv by one Linear and split, a
    causal mask buffer sliced [:T, :T] with T = x.size(1), heads by view/transpose."""

    def __init__(self, d, heads, N):
        super().__init__()
        self.c_attn = nn.Linear(d, 3 * d, bias=False)
        self.c_proj = nn.Linear(d, d, bias=False)
        self.n_head, self.d = heads, d
        self.register_buffer("mask", torch.tril(torch.ones(N, N)).view(1, 1, N, N))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.d, dim=2)
        hs = C // self.n_head
        k = k.view(B, T, self.n_head, hs).transpose(1, 2)
        q = q.view(B, T, self.n_head, hs).transpose(1, 2)
        v = v.view(B, T, self.n_head, hs).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / hs)
        att = att * self.mask[:, :, :T, :T]
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


def _nano_truth(N, d, heads, read, seed=3):
    X, _ = inputs(N, d)
    rng = random.Random(seed)
    W = [[rng.randint(-9, 9) for _ in range(d)] for _ in range(3 * d)]
    P = [[rng.randint(-9, 9) for _ in range(d)] for _ in range(d)]
    hs = d // heads

    def row(r, n):
        return sum(W[r][c] * X[n][c] for c in range(d))

    f = 0
    for h in range(heads):
        for j in range(read + 1):  # causal
            s = sum(row(h * hs + a, read) * row(d + h * hs + a, j) for a in range(hs))
            f += s * sum(P[0][h * hs + a] * row(2 * d + h * hs + a, j) for a in range(hs))
    return f


def test_nanogpt_causal_linear_attention_measures_the_right_rank_on_three_partitions():
    N, d, H = 4, 4, 2  # head size 2: the scale 1/2 is kept exactly
    net = from_torch(NanoAttention(d, H, N), seq_len=N, width=d, output=(1, 0))
    f = _nano_truth(N, d, H, read=1)  # the query at 1 sees positions 0 and 1 only
    for A in [(1,), (0, 1), (1, 3)]:
        assert modular_rank(net, A) == rank_over_q(f, A)


def test_a_python_loop_over_the_sequence_length_traces():
    class Loop(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(1, 1, bias=False)

        def forward(self, x):
            out = 0
            for t in range(x.shape[1]):
                out = out + self.a(x[:, t : t + 1]) * x[:, t : t + 1]
            return out * x[:, :1]

    net = from_torch(Loop(), seq_len=3, width=1)  # f = w (x0^2 + x1^2 + x2^2) x0
    X, _ = inputs(3, 1)
    f = (X[0][0] ** 2 + X[1][0] ** 2 + X[2][0] ** 2) * X[0][0]
    for A in [(0,), (1,), (0, 2)]:
        assert modular_rank(net, A) == rank_over_q(f, A)


def test_the_batch_size_or_the_values_as_python_numbers_are_refused_naming_the_line():
    class PerSample(nn.Module):
        def forward(self, x):
            return torch.stack([x[b] for b in range(x.size(0))]) * x

    with pytest.raises(ConfigError, match=r"line \d+ of .*test_torch_faithful.py: "
                                          r"`return torch.stack.*batch size.*fix: ") as e:
        from_torch(PerSample(), seq_len=2, width=1)
    assert "\n" not in str(e.value) and "Proxy" not in str(e.value)

    class Quarter(nn.Module):  # B // 4 is 0 at batch 2 and 3, but not at 5
        def forward(self, x):
            for _ in range(x.size(0) // 4):
                x = x * x
            return x

    with pytest.raises(ConfigError, match="uses the batch size"):
        from_torch(Quarter(), seq_len=2, width=1)

    class ViaNumpy(nn.Module):
        def forward(self, x):
            return x * float(np.asarray(x).sum())

    with pytest.raises(ConfigError, match=r"cannot trace it at line \d+ of .*faithful.py: "
                                          r"`return x \* float\(np.asarray.*; fix: write"):
        from_torch(ViaNumpy(), seq_len=2, width=1)

    class Branchy(nn.Module):
        def forward(self, x):
            return x if x.sum() > 0 else -x

    with pytest.raises(ConfigError, match=r"line \d+ .*`return x if x.sum\(\) > 0.*data-dependent"):
        from_torch(Branchy(), seq_len=2, width=1)


class BufferFlag(nn.Module):
    """A branch on a kept buffer is a constant; on a drawn parameter it is not."""

    def __init__(self, on_weight=False):
        super().__init__()
        self.on_weight = on_weight
        self.register_buffer("on", torch.tensor(1.0))
        self.w = nn.Parameter(torch.ones(1))

    def forward(self, x):
        if (self.w.sum() if self.on_weight else self.on) > 0:
            x = x[:, :1] * x[:, 1:]
        return x


def test_a_branch_on_a_kept_buffer_traces_one_on_a_drawn_tensor_is_refused():
    net = from_torch(BufferFlag(), seq_len=2, width=1)  # f = x0 x1
    X, _ = inputs(2, 1)
    assert modular_rank(net, (0,)) == rank_over_q(X[0][0] * X[1][0], [0]) == 1
    for module, kw in ((BufferFlag(on_weight=True), {}), (BufferFlag(), {"draw": "all"})):
        with pytest.raises(ConfigError, match="tensor drawn at random.*data-dependent"):
            from_torch(module, seq_len=2, width=1, **kw)


# ------------------------------------------------------------------ operations
N_OPS = 4


class Op(nn.Module):
    """f = sum_k c_k g_k x_k with g = op(x) (width 1), c a kept buffer (1, 2, 3, 4)."""

    def __init__(self, op):
        super().__init__()
        self.op = op
        self.register_buffer("c", torch.arange(1.0, N_OPS + 1))
        self.register_buffer("idx", torch.tensor([2, 0, 3, 1]))
        self.register_buffer("odd", torch.tensor([False, True, False, True]))

    def forward(self, x):
        g = self.op(self, x)[..., 0]
        n = g.shape[1]
        return (self.c[:n] * g * x[:, :n, 0]).sum(1).reshape(-1, 1, 1)


OPS = {  # op(module, x) and g as a function of the positions' variables v (width 1)
    "flip": (lambda m, x: x.flip(1), lambda v: v[::-1]),
    "roll": (lambda m, x: torch.roll(x, 1, dims=1), lambda v: v[-1:] + v[:-1]),
    "chunk": (lambda m, x: torch.cat(x.chunk(2, dim=1)[::-1], 1), lambda v: v[2:] + v[:2]),
    "split": (lambda m, x: torch.cat(x.split([1, 3], dim=1)[::-1], 1),
              lambda v: v[1:] + v[:1]),
    "repeat": (lambda m, x: x[:, :2].repeat(1, 2, 1), lambda v: v[:2] * 2),
    "expand": (lambda m, x: x[:, 1:2].expand(-1, 4, -1), lambda v: [v[1]] * 4),
    "pad": (lambda m, x: F.pad(x[:, 1:], (0, 0, 0, 1)), lambda v: v[1:] + [0]),
    "diagonal": (lambda m, x: torch.diagonal(x @ x.transpose(1, 2), 1, 1, 2)[..., None],
                 lambda v: [v[i] * v[i + 1] for i in range(3)]),
    "pow": (lambda m, x: torch.pow(x, 2.0), lambda v: [u**2 for u in v]),
    "masked_fill": (lambda m, x: x.masked_fill(m.odd[None, :, None], 3),
                    lambda v: [v[0], 3, v[2], 3]),
    "index": (lambda m, x: x[:, m.idx], lambda v: [v[2], v[0], v[3], v[1]]),
    "bool_index": (lambda m, x: x[:, m.odd], lambda v: [v[1], v[3]]),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_an_operation_equals_its_hand_written_polynomial(name):
    op, g_of = OPS[name]
    net = from_torch(Op(op), seq_len=N_OPS, width=1)
    assert net.polynomial, net.polynomial_reason
    X, _ = inputs(N_OPS, 1)
    v = [X[n][0] for n in range(N_OPS)]
    f = sum((k + 1) * gk * v[k] for k, gk in enumerate(g_of(v)))
    for A in [(0,), (0, 1), (0, 2)]:
        assert modular_rank(net, A) == rank_over_q(f, A), A
    auto = seprank.measure(net, (0, 1), method="auto")
    assert auto.method == "modular"  # a polynomial: never the float engine behind one's back
    if "index" in name:  # the float engine once died here with an IndexError
        assert seprank.measure(net, (0, 1), method="float").rank == rank_over_q(f, (0, 1))


def test_an_unknown_operation_is_worded_apart_and_auto_does_not_fall_back_silently():
    class Sorted(nn.Module):
        def forward(self, x):
            return torch.sort(x, dim=1).values * x

    net = from_torch(Sorted(), seq_len=2, width=1)
    assert "not supported by seprank's torch interpreter" in net.polynomial_reason
    assert "not a polynomial" not in net.polynomial_reason
    with pytest.raises(ConfigError, match="may be a polynomial.*method='float'"):
        seprank.measure(net, method="auto")
    assert seprank.measure(net, method="float").method == "float"
    soft = from_torch(type("Soft", (nn.Module,), {"forward": lambda s, x: torch.softmax(x, 1)})(),
                      seq_len=2, width=1)
    assert "is not a polynomial" in soft.polynomial_reason
    m = seprank.measure(soft, max_samples=40, method="auto")  # known: auto says why
    assert m.method == "float" and "is not a polynomial" in m.strategy_reason


# ------------------------------------------------------------------ the trace-time check
def test_a_graph_that_computes_something_else_than_eager_torch_is_refused():
    class Noisy(nn.Module):
        def forward(self, x):
            return x * torch.randn(1)

    class Printed(nn.Module):  # fx bakes the length of the proxy's text into the graph
        def forward(self, x):
            return x * len(str(x))

    for module in (Noisy(), Printed()):
        with pytest.raises(ConfigError, match="computes something else than the module's eager"):
            from_torch(module, seq_len=2, width=1)


def test_an_interpretation_that_parts_from_torch_is_refused_naming_the_node(monkeypatch):
    monkeypatch.setitem(torch_ops.HANDLERS, "flip", lambda ar, x, *d, **kw: x)  # a wrong one
    with pytest.raises(ConfigError, match=r"differs from torch's first at node 'flip'.*line \d+"):
        from_torch(Op(OPS["flip"][0]), seq_len=N_OPS, width=1)


def test_an_interpreter_failure_is_refused_naming_the_node(monkeypatch):
    def broken(ar, x, *d, **kw):
        raise TypeError("a handler bug")

    monkeypatch.setitem(torch_ops.HANDLERS, "flip", broken)
    with pytest.raises(ConfigError, match=r"fails at node 'flip'.*TypeError: a handler bug"):
        from_torch(Op(OPS["flip"][0]), seq_len=N_OPS, width=1)


def test_an_inplace_module_is_measured_as_eager_torch_runs_it():
    class SkipRelu(nn.Module):
        def __init__(self):
            super().__init__()
            self.act = nn.ReLU(inplace=True)

        def forward(self, x):
            h = x * 1
            skip = h
            h = self.act(h)
            return skip + h  # eager: relu(x) + relu(x), the write seen through skip

    net = from_torch(SkipRelu(), seq_len=2, width=1)
    assert not net.polynomial and "ReLU" in net.polynomial_reason
    x = np.array([[[-1.0], [2.0]]])
    assert net.apply({}, x, seprank.Float64())[0] == 0.0  # not -1 + 0


# ------------------------------------------------------------------ certify --torch
NANO_FILE = '''
import torch
from torch import nn
''' + "\n".join(Path(__file__).read_text().split("class NanoAttention")[1:2]).join(
    ["class NanoAttention", ""]).split("\n\ndef _nano_truth")[0] + '''


def factory():
    return NanoAttention(4, 2, 4)
'''


def test_cli_certify_torch_and_check_certificate_on_the_nanogpt_block(tmp_path):
    (tmp_path / "nanomod.py").write_text(NANO_FILE)
    env = {"PYTHONPATH": f"{tmp_path}:{ROOT}", "OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"}
    run = [sys.executable, "-m", "seprank"]
    out = tmp_path / "certs"
    r = subprocess.run(run + ["certify", "--torch", "nanomod:factory", "--param", "seq_len=4",
                              "--param", "width=4", "--param", "position=1", "--partition",
                              "1,3", "--out", str(out)], capture_output=True, text=True,
                       env=env, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    f = _nano_truth(4, 4, 2, read=1)
    assert f"separation rank >= {rank_over_q(f, (1, 3))}" in r.stdout
    cert = next(out.glob("*.json"))
    doc = json.loads(cert.read_text())
    assert doc["architecture"] == "seprank.nets.torch_module:TorchModule"
    assert doc["config"]["factory"] == "nanomod:factory" and doc["config"]["position"] == 1
    assert f"re-check:    seprank check-certificate {cert} --torch nanomod:factory" in r.stdout
    check = run + ["check-certificate", str(cert)]
    for flags, code, said in (([], 2, "--torch nanomod:factory"), (["--torch", "other:f"], 2,
                              "names factory 'nanomod:factory'"), (["--torch",
                              "nanomod:factory"], 0, "valid")):
        r = subprocess.run(check + flags, capture_output=True, text=True, env=env,
                           cwd=tmp_path, timeout=300)
        assert r.returncode == code and said in r.stdout + r.stderr, r.stdout + r.stderr
    r = subprocess.run(run + ["bounds", "--torch", "nanomod:factory", "--param", "seq_len=4",
                              "--param", "width=4"], capture_output=True, text=True,
                       env=env, cwd=tmp_path, timeout=300)
    assert r.returncode == 2 and "no known bound" in r.stderr and r.stderr.count("\n") == 1
    r = subprocess.run(run + ["verify", "--torch", "nanomod:factory", "--param", "seq_len=4",
                              "--param", "width=4", "--param", "position=1", "--partition",
                              "1,3", "--json"], capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    row = json.loads(r.stdout)["rows"][0]
    assert (row["measured"], row["upper"]) == (rank_over_q(f, (1, 3)), None)
    r = subprocess.run(run + ["blocks", "--torch", "nanomod:factory", "--param", "seq_len=4",
                              "--param", "width=4"], capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=300)
    assert r.returncode == 2 and "catalecticant" in r.stderr and r.stderr.count("\n") == 1


def test_a_sweep_grid_names_a_torch_factory(tmp_path):
    (tmp_path / "nanomod.py").write_text(NANO_FILE)
    grid = tmp_path / "nano.toml"
    grid.write_text('[grid]\ntorch = "nanomod:factory"\npartitions = [[1, 3]]\n'
                    '[params]\nseq_len = [4]\nwidth = [4]\nposition = [1]\n')
    env = {"PYTHONPATH": f"{tmp_path}:{ROOT}", "OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"}
    run = [sys.executable, "-m", "seprank"]
    r = subprocess.run(run + ["sweep", str(grid), "--out", str(tmp_path / "sw"), "--executor",
                              "serial"], capture_output=True, text=True, env=env, cwd=tmp_path,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(run + ["results", "--db", str(tmp_path / "sw" / "results.sqlite"),
                              "--json"], capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    rows = rows["rows"] if isinstance(rows, dict) else rows
    assert [row["rank"] for row in rows] == [rank_over_q(_nano_truth(4, 4, 2, read=1), (1, 3))]
    assert rows[0]["config"]["factory"] == "nanomod:factory"


class BranchOnDrawn(nn.Module):
    """A branch on a drawn weight reached through a submodule call on a buffer."""

    def __init__(self, sign):
        super().__init__()
        self.a = nn.Linear(2, 1, bias=False)
        self.g = nn.Linear(1, 1, bias=False)
        self.register_buffer("one", torch.ones(1))
        with torch.no_grad():
            self.g.weight.fill_(sign)

    def forward(self, x):
        if self.g(self.one).sum() > 0:
            return self.a(x) * self.a(x)
        return self.a(x)


@pytest.mark.parametrize("sign", [-1.0, 1.0])
def test_a_branch_on_a_drawn_weight_through_a_submodule_is_refused(sign):
    with pytest.raises(ConfigError, match=r"values of its input or of a tensor drawn at "
                                          r"random .* as a bool"):
        from_torch(BranchOnDrawn(sign), seq_len=2, width=2)


class WritesItsInput(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2, bias=False)

    def forward(self, x):
        x.mul_(2)
        return self.lin(x) * self.lin(x)


def test_an_in_place_write_to_the_input_is_measured_as_eager_torch_computes_it():
    net = from_torch(WritesItsInput(), seq_len=2, width=2)  # the check ran on copies
    X, _ = inputs(2, 2)
    w = [[1, 2], [3, 4]]  # any weights: f = (2 <w_0, x_0>)^2 depends on position 0 only
    lin = 2 * (w[0][0] * X[0][0] + w[0][1] * X[0][1])
    assert modular_rank(net, (0,)) == rank_over_q(lin * lin, [0]) == 1
    Xs = np.ones((3, 2, 2))
    net.apply(net.init(np.random.default_rng(0), seprank.Float64()), Xs, seprank.Float64())
    assert (Xs == 1).all()  # the caller's inputs are not written
