"""The literature checks of docs/mixers.md that fit in tests (small sizes).

- Ghodsi 2025 (arXiv 2512.15115) [V abstract]: representing a linear SSM whose lag
  operators span a k-dimensional subspace needs (and is achievable with) H = k heads.
  Setting built here [D]: the interaction tensor W[i, j, c, e] = d y_i[c] / d x_j[e] as the
  multilinear form f(u, v, a, b) = sum u_i v_j a_c b_e W[i, j, c, e] (four "positions":
  u, v one-hot-like position probes, a, b channel probes). Its separation rank across
  {u, v} | {a, b} is dim span_{i,j} W[i, j] (grid-tensor principle for multilinear f):
  for a linear SSM, W[i, j] = K_{i-j} = C A^(i-j) B, so the rank is the lag span k
  (= min(n, N, d^2) for generic weights, Cayley-Hamilton); for H heads of linear attention
  whose queries and keys read positional encodings, W[i, j] = sum_h s_h(i, j) W^O_h W^V_h,
  so the rank is <= H. Hence W_ssm = W_attn needs H >= k (the necessity half); and
  k = n heads built from the Cayley-Hamilton coefficients of A reproduce W_ssm exactly
  (the sufficiency half, when the lag span is n); when the lag span k = d^2 is below n,
  k heads built on a basis of the lag space do (the minimal construction).
- Cohen-Karlik et al. 2025 (arXiv 2502.02209) [V abstract]: S6 expresses high-degree
  polynomials with fewer layers than linear attention: total degree and separation rank at
  equal depth and (nearly) equal parameters.
"""

from dataclasses import dataclass

import numpy as np
import pytest

from seprank import measure
from seprank.algebra.domains import ModP
from seprank.engine.evaluate import evaluate
from seprank.nets import S4, S6, LinearAttention


def rank(net, A):
    m = measure(net, A)
    assert m.saturated, (net, A, m)
    return m.rank


@dataclass(frozen=True)
class _Interaction:
    """An interaction tensor read as a 4-linear function of four input rows (u, v, a, b)."""

    positions: int
    channels: int
    seq_len = 4
    degree = 4
    homogeneous = True

    @property
    def width(self):
        return max(self.positions, self.channels)


@dataclass(frozen=True)
class SSMInteraction(_Interaction):
    """The interaction tensor of a linear s4 (N positions, d channels, state n), 4-linear."""

    state: int

    def _s4(self, i=None, c=0):
        return S4(1, self.channels, self.state, self.positions, query_position=i, output_coord=c)

    def init(self, rng, domain):
        return self._s4().init(rng, domain)

    def apply(self, params, X, domain):
        N, d = self.positions, self.channels
        u, v, a, b = X[:, 0, :N], X[:, 1, :N], X[:, 2, :d], X[:, 3, :d]
        inputs = v[:, :, None] * b[:, None, :]  # position j carries v_j b
        f = 0
        for i in range(N):
            for c in range(d):
                f = f + u[:, i] * a[:, c] * self._s4(i, c).apply(params, inputs, domain)
        return f


@dataclass(frozen=True)
class AttentionInteraction(_Interaction):
    """The interaction tensor of H causal linear-attention heads whose queries and keys read
    positional encodings (one-hot) and whose values read the content."""

    heads: int

    def init(self, rng, domain):
        H, N, d = self.heads, self.positions, self.channels
        return {
            "Wq": domain.random(rng, (H, N, N)),
            "Wk": domain.random(rng, (H, N, N)),
            "Wv": domain.random(rng, (H, d, d)),
            "Wo": domain.random(rng, (H, d, d)),
        }

    def apply(self, params, X, domain):
        N, d = self.positions, self.channels
        u, v, a, b = X[:, 0, :N], X[:, 1, :N], X[:, 2, :d], X[:, 3, :d]
        mask = np.tril(np.ones((N, N), dtype=np.int64))
        f = 0
        for h in range(self.heads):
            scores = (params["Wq"][h].T @ params["Wk"][h]) * mask  # s_h(i, j), j <= i
            M = params["Wo"][h] @ params["Wv"][h]
            f = f + np.einsum("bi,ij,bj->b", u, scores, v) * np.einsum("bc,ce,be->b", a, M, b)
        return f


CUT = (0, 1)  # {u, v} | {a, b}: positions against channels


@pytest.mark.parametrize("n, want", [(1, 1), (2, 2), (3, 3), (5, 4)])
def test_ssm_interaction_rank_is_its_lag_span(n, want):
    """[D] rank = dim span{C A^l B : l < N} = min(n, N, d^2): N = 4, d = 2."""
    assert rank(SSMInteraction(4, 2, n), CUT) == want


@pytest.mark.parametrize("H", [1, 2, 3, 4])
def test_h_attention_heads_have_interaction_rank_h(H):
    """[D] rank <= H for every weight (= H, generic, while H <= d^2 = 4): H heads reach
    an SSM of lag span k only if H >= k (Ghodsi's necessity half, in this setting)."""
    assert rank(AttentionInteraction(4, 2, H), CUT) == H


def test_scalar_output_rank_does_not_see_the_lag_span():
    """[D] why the comparison needs the interaction tensor: on one scalar output a linear s4
    has sep 2 whatever its lag span, and one causal linear-attention layer sep <= width + 1
    whatever its heads (measured: = width + 1)."""
    assert {rank(S4(1, 2, state=n, seq_len=4), (0, 1)) for n in (1, 2, 3)} == {2}
    assert {rank(LinearAttention(1, 4, heads=H, seq_len=4, causal=True), (0, 1))
            for H in (1, 2, 4)} == {5}


def test_s6_against_linear_attention_at_equal_depth():
    """Cohen-Karlik et al. [V abstract], measured at N = 4, d = 2, state 2 (s6: 14
    parameters a layer, linear attention 16): at depth 1 s6 has degree 7 against 3 and
    sep 6 against 3 on the interleaved partition, equal (3) on the prefix partition, where
    both are one-layer bounded by a state read through one coordinate [D]; at depth 2
    degree 37 against 9 and sep 182 against 18 on the prefix partition."""
    la = [LinearAttention(L, 2, seq_len=4, causal=True) for L in (1, 2)]
    s6 = [S6(L, 2, state=2, seq_len=4) for L in (1, 2)]
    assert [n.degree for n in la] == [3, 9] and [n.degree for n in s6] == [7, 37]
    assert [n.parameters() for n in la] == [16, 32] and [n.parameters() for n in s6] == [14, 28]
    assert rank(s6[0], (0, 2)) == 6 and rank(la[0], (0, 2)) == 3
    assert rank(s6[0], (0, 1)) == rank(la[0], (0, 1)) == 3
    assert rank(s6[1], (0, 1)) == 182 and rank(la[1], (0, 1)) == 18


def _lag_coefficients(A, N):
    """c[l, h] with A^l = sum_{h<n} c[l, h] A^h for l < N (x^l mod the characteristic
    polynomial, monic with integer coefficients: Cayley-Hamilton)."""
    sympy = pytest.importorskip("sympy")
    n = A.shape[0]
    p = [int(v) for v in sympy.Matrix(A.tolist()).charpoly().all_coeffs()]  # x^n + ...
    r, out = [1] + [0] * (n - 1), []
    for _ in range(N):
        out.append(r)
        top = r[-1]  # x * r has x^n coefficient top: replace x^n by -(p[1] x^(n-1) + ...)
        r = [0] + r[:-1]
        r = [r[h] - top * p[n - h] for h in range(n)]
    return np.array(out, dtype=object)


def test_k_positional_heads_reproduce_an_ssm_of_lag_span_k():
    """[D] the sufficiency half, in this setting: with k = n heads, scores s_h(i, j) =
    c[i - j, h] (j <= i) and W^O_h W^V_h = C A^h B, the attention interaction tensor equals
    the linear SSM's (checked at random points over GF(p), exact integer weights)."""
    N, d, n = 4, 2, 3
    F, rng = ModP(), np.random.default_rng(5)
    ssm = SSMInteraction(N, d, n)
    ps = ssm.init(rng, F)
    A, B, C = (np.asarray(ps[w][0], dtype=object) for w in ("A", "B", "C"))
    c = _lag_coefficients(A, N)
    lag = np.subtract.outer(np.arange(N), np.arange(N))
    heads = AttentionInteraction(N, d, n)
    pa = {"Wq": np.array([np.eye(N, dtype=np.int64)] * n, dtype=object),
          "Wk": np.array([np.where(lag >= 0, c[np.maximum(lag, 0), h], 0) for h in range(n)]),
          "Wv": np.array([np.eye(d, dtype=np.int64)] * n, dtype=object),
          "Wo": np.array([C.dot(np.linalg.matrix_power(A, h)).dot(B) for h in range(n)])}
    ints = {k: np.asarray(v.astype(object) % F.p, dtype=np.int64) for k, v in pa.items()}
    X = F.random(rng, (6, 4, ssm.width))
    want = np.asarray(evaluate(ssm, ps, X, F))
    assert np.any(want != 0)
    assert np.array_equal(want, np.asarray(evaluate(heads, {k: F.wrap(v) for k, v in ints.items()},
                                                    X, F)))
    m = measure(heads, CUT, weights=ints)  # the constructed heads: rank k (n - 1 heads: n - 1)
    assert m.saturated and m.rank == n


def _span_coefficients(K, p):
    """(basis lags b, c mod p) with K[l] = sum_h c[l, h] K[b[h]] for every lag l: the
    earliest lags that raise the rank of span{K[l]} over Q, and each K[l]'s exact rational
    coordinates in them, reduced mod p."""
    sympy = pytest.importorskip("sympy")
    vecs = [sympy.Matrix(np.asarray(k, dtype=object).reshape(-1).tolist()) for k in K]
    basis = []
    for lag, v in enumerate(vecs):
        if sympy.Matrix.hstack(*[vecs[b] for b in basis], v).rank() > len(basis):
            basis.append(lag)
    M = sympy.Matrix.hstack(*[vecs[b] for b in basis])
    rows = []
    for v in vecs:
        sol = (M.T * M).solve(M.T * v)  # exact: v is in the column span of M
        assert M * sol == v
        rows.append([int(x.p) * pow(int(x.q), -1, p) % p for x in sol])
    return basis, np.array(rows, dtype=np.int64)


def test_k_heads_reproduce_an_ssm_whose_lag_span_is_below_its_state():
    """[D] the sufficiency half when the lag span k = d^2 is below the state n (N = 6,
    d = 2, n = 5: k = 4): k heads, not n, with W^O_h W^V_h = K_{b_h} for k lags b_h whose
    K_l = C A^l B span the lag space and scores s_h(i, j) = c[i - j, h], the coordinates of
    K_{i-j} in that basis, equal the SSM's interaction tensor (random points over GF(p)),
    and measure rank k, as the SSM does."""
    N, d, n = 6, 2, 5
    F, rng = ModP(), np.random.default_rng(7)
    ssm = SSMInteraction(N, d, n)
    ps = ssm.init(rng, F)
    A, B, C = (np.asarray(ps[w][0], dtype=object) for w in ("A", "B", "C"))
    K = [C.dot(np.linalg.matrix_power(A, lag) if lag else np.eye(n, dtype=object)).dot(B)
         for lag in range(N)]
    basis, c = _span_coefficients(K, F.p)
    k = len(basis)
    assert k == d * d < n
    assert rank(ssm, CUT) == k
    lag = np.subtract.outer(np.arange(N), np.arange(N))
    pa = {"Wq": np.array([np.eye(N, dtype=np.int64)] * k),
          "Wk": np.array([np.where(lag >= 0, c[np.maximum(lag, 0), h], 0) for h in range(k)]),
          "Wv": np.array([np.eye(d, dtype=np.int64)] * k),
          "Wo": np.array([np.asarray(K[b] % F.p, dtype=np.int64) for b in basis])}
    heads = AttentionInteraction(N, d, k)
    X = F.random(rng, (6, 4, ssm.width))
    want = np.asarray(evaluate(ssm, ps, X, F))
    assert np.any(want != 0)
    got = evaluate(heads, {key: F.wrap(v) for key, v in pa.items()}, X, F)
    assert np.array_equal(want, np.asarray(got))
    m = measure(heads, CUT, weights=pa)
    assert m.saturated and m.rank == k
