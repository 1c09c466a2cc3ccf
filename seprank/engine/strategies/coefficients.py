"""The ``coefficients`` strategy of ``method="symbolic"``: f expanded with sympy and the
exact rank over Q of its coefficient matrix (monomials in x_A against monomials in x_B):
the exact separation rank of that integer-weight network (tiny cases only)."""

from __future__ import annotations

import math
import time

from seprank.algebra.coefficients import rank_coefficients
from seprank.algebra.domains import Float64, Symbolic, symbolic_inputs
from seprank.engine import line_check, row_check
from seprank.engine.evaluate import evaluate
from seprank.engine.result import CERTIFIED, Measurement
from seprank.engine.strategies.base import params_for
from seprank.engine.strategies.registry import Strategy, register
from seprank.errors import ConfigError, TooBigError
from seprank.nets.base import config_of, input_dim

#: Symbolic expansion is refused above this many possible monomials.
SYMBOLIC_MAX_MONOMIALS = 250_000


def symbolic_monomials(net) -> int:
    """How many monomials f may have (0: no degree declared)."""
    nvars = net.seq_len * input_dim(net)
    deg = getattr(net, "degree", None)
    if deg is None:
        return 0
    return math.comb(nvars + deg, deg)


def _measure(net, A, seed, weights):
    est = symbolic_monomials(net)
    if est > SYMBOLIC_MAX_MONOMIALS:
        raise TooBigError(
            f"method=symbolic: up to {est} monomials for depth/width/seq_len of this net "
            f"(limit {SYMBOLIC_MAX_MONOMIALS}); use method=modular"
        )
    if line_check.needs_check(net):  # a class seprank does not ship: one row per row
        row_check.check_rows(net, Float64(), int(seed))
    dom = Symbolic()
    params = params_for(net, dom, seed, weights)
    d = input_dim(net)
    R, X = symbolic_inputs(net.seq_len, d)
    t0 = time.perf_counter()
    poly = evaluate(net, params, X, dom)[0]
    t1 = time.perf_counter()
    a_vars = {n * d + c for n in A for c in range(d)}
    rank, shape = rank_coefficients(R(poly), a_vars)
    t2 = time.perf_counter()
    return rank, shape, t1 - t0, t2 - t1


class Coefficients(Strategy):
    """sympy's expansion and the rank over Q (the only strategy of method='symbolic')."""

    name = "coefficients"
    order = 10
    budget = None
    grid = False
    needs_run = False

    def applies(self, req) -> str | None:
        if req.method != "symbolic":
            return f"needs method='symbolic' (got method={req.method!r})"
        if req.sampler == "alphabet":
            raise ConfigError(f"method='symbolic' expands {type(req.net).__name__} as a "
                              "polynomial of its one-hot inputs, not its tensor over the "
                              "alphabet: use method='modular'")
        return None

    def reason(self, req) -> str:
        return "method='symbolic'"

    def cost(self, req, budget) -> None:
        return None

    def run(self, mp) -> Measurement:
        net = mp.net
        rank, shape, te, tr = _measure(net, mp.A, mp.options.seed, mp.weights)
        return Measurement(
            rank=rank, saturated=True, certified=CERTIFIED["symbolic"], method="symbolic",
            prime=None, samples=shape, seconds=time.perf_counter() - mp.t_start,
            seed=int(mp.options.seed), config=config_of(net), partition=mp.A,
            sampler="coefficients", eval_seconds=te, rank_seconds=tr,
            history=[(shape[0], shape[1], rank)], strategy="coefficients",
            strategy_reason=mp.reason,
        )


STRATEGY = register(Coefficients())
