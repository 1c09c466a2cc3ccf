import numpy as np
import pytest

from seprank.algebra.domains import Float64, ModP, Symbolic, symbolic_inputs
from seprank.errors import ConfigError, DomainError
from seprank.nets import LinearSelfAttention, SoftmaxSelfAttention
from seprank.nets.attention_kernel import grid_modp


@pytest.mark.parametrize(
    "kwargs, arg",
    [
        (dict(depth=0, width=2, seq_len=2), "depth"),
        (dict(depth=1, width=3, heads=2, seq_len=2), "heads=2 must divide width=3"),
        (dict(depth=1, width=2, seq_len=1), "seq_len"),
        (dict(depth=1, width=2, seq_len=2, query_position=2), "query_position"),
        (dict(depth=1, width=2, seq_len=2, output_coord=5), "output_coord"),
        (dict(depth=1.5, width=2, seq_len=2), "depth"),
    ],
)
def test_bad_configs(kwargs, arg):
    with pytest.raises(ConfigError, match=arg):
        LinearSelfAttention(**kwargs)


def test_same_function_in_every_domain():
    """One code path: integer weights give the same values in all three domains."""
    net = LinearSelfAttention(depth=2, width=4, heads=2, seq_len=3, residual=True)
    rng = np.random.default_rng(0)
    w = {k: rng.integers(-3, 4, size=v.shape) for k, v in net.init(rng, Float64()).items()}
    X = rng.integers(-2, 3, size=(5, 3, 4))
    sym_w = {k: Symbolic().from_ints(v) for k, v in w.items()}
    exact = net.apply(sym_w, X.astype(object), Symbolic())
    fl = net.apply({k: Float64().from_ints(v) for k, v in w.items()}, X.astype(float), Float64())
    F = ModP(101)
    md = net.apply({k: F.from_ints(v) for k, v in w.items()}, F.from_ints(X), F)
    assert [int(e) for e in exact] == [int(round(v)) for v in fl]
    assert [int(e) % 101 for e in exact] == md.tolist()


def test_polynomial_degree_is_3_to_the_L():
    net = LinearSelfAttention(depth=2, width=2, heads=1, seq_len=2)
    R, X = symbolic_inputs(2, 2)
    poly = net.apply(net.init(np.random.default_rng(1), Symbolic()), X, Symbolic())[0]
    assert R(poly).degree() == 9 or max(sum(m) for m in R(poly).monoms()) == 9


@pytest.mark.parametrize("residual", [False, True])
@pytest.mark.parametrize("shape", [(3, 4, 2, 4), (2, 2, 1, 3), (1, 6, 3, 5)])
def test_compiled_kernel_matches_generic_path(residual, shape):
    L, d, H, N = shape
    net = LinearSelfAttention(depth=L, width=d, heads=H, seq_len=N, residual=residual,
                              query_position=N - 1, output_coord=d - 1)
    F = ModP()
    rng = np.random.default_rng(5)
    params = net.init(rng, F)
    A, B = (0, 2), tuple(i for i in range(N) if i not in (0, 2))
    Ap = F.random(rng, (7, 2, d))
    Bp = F.random(rng, (5, len(B), d))
    from seprank.engine.sample_grid import evaluate_grid
    assert np.array_equal(grid_modp(net, params, Ap, Bp, A, B, F.p),
                          evaluate_grid(net, params, F, Ap, Bp, A, B, chunk=8))


def test_softmax_is_float_only():
    net = SoftmaxSelfAttention(depth=1, width=2, heads=1, seq_len=2)
    with pytest.raises(DomainError, match="float64"):
        net.apply(net.init(np.random.default_rng(0), ModP()), np.zeros((1, 2, 2), np.int64), ModP())
    out = net.apply(net.init(np.random.default_rng(0), Float64()), np.ones((2, 2, 2)), Float64())
    assert out.shape == (2,) and np.all(np.isfinite(out))


def test_compiled_kernel_is_available():
    """numba is a dependency: measurements of LinearSelfAttention in GF(p) use the kernel."""
    from seprank.nets import attention_kernel

    assert attention_kernel.available()


def _reporting_width(net, m):
    """The attributes grid_modp reads from a net, with max(width, seq_len) reported as m:
    its refusal rule sees m while the kernel computes on the real (small) weights."""
    from types import SimpleNamespace

    return SimpleNamespace(width=m, seq_len=net.seq_len, query_position=net.query_position,
                           output_coord=net.output_coord, residual=net.residual)


# m = max(width, seq_len), p: grid_modp accepts when m * (p-1)**2 <= 2**63 - 1 and
# m * p < 2**50, on both sides of each limit (715827883 and 506166751 are the primes just
# above sqrt((2**63-1)/m) for m = 18 and 36: there m*(p-1)**2 and m*p**2, or m*(p-2)**2
# and m*(p-1)**2, fall on either side of 2**63 - 1).
@pytest.mark.parametrize("m, p, accepted", [
    (2, 2**31 - 1, True), (3, 2**31 - 1, False),
    (18, 715827883, True), (36, 506166751, False),
    (2**31, 65537, False),  # m*(p-1)**2 == 2**63: one past the int64 range
    (2**49 - 1, 2, True), (2**49, 2, False),  # m*p == 2**50 - 2, then 2**50
])
def test_kernel_refuses_exactly_beyond_its_overflow_limits(m, p, accepted):
    """Refused (None: the caller falls back to the generic path) exactly where an int64
    accumulator could overflow or the division-free reduction could be off; accepted
    just inside, where it equals the generic ModP path."""
    from seprank.engine.sample_grid import evaluate_grid

    net = LinearSelfAttention(depth=2, width=2, heads=1, seq_len=2, residual=True)  # m = 2
    F = ModP(p)
    rng = np.random.default_rng(3)
    params = net.init(rng, F)
    A, B = (0,), (1,)
    Ap, Bp = F.random(rng, (3, 1, 2)), F.random(rng, (4, 1, 2))
    got = grid_modp(_reporting_width(net, m), params, Ap, Bp, A, B, p)
    if not accepted:
        assert got is None
    else:
        assert np.array_equal(got, evaluate_grid(net, params, F, Ap, Bp, A, B))


_BOUNDS_SCRIPT = """
import numpy as np
from seprank.algebra.domains import ModP
from seprank.engine.sample_grid import evaluate_grid
from seprank.nets import LinearSelfAttention
from seprank.nets.attention_kernel import grid_modp

for residual in (False, True):
    net = LinearSelfAttention(depth=2, width=2, heads=1, seq_len=3, residual=residual,
                              query_position=1, output_coord=1)
    F = ModP(101)
    rng = np.random.default_rng(0)
    params = net.init(rng, F)
    Ap, Bp = F.random(rng, (3, 1, 2)), F.random(rng, (70, 2, 2))  # 70: a partial tile
    got = grid_modp(net, params, Ap, Bp, (1,), (0, 2), F.p)
    assert np.array_equal(got, evaluate_grid(net, params, F, Ap, Bp, (1,), (0, 2)))
print("ok")
"""


def test_kernel_stays_within_its_arrays(tmp_path):
    """Compiled with numba's bounds checking (a fresh process and cache): no index leaves
    its array, the last partial tile included (an out-of-range read would not change the
    output, only crash now and then)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import seprank

    root = str(Path(seprank.__file__).resolve().parents[1])
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path),
               PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    run = subprocess.run([sys.executable, "-c", _BOUNDS_SCRIPT], env=env, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-2000:]
