"""How a rank is measured: one registered strategy per module, asked in order by the
planner (:mod:`seprank.engine.planner`).

- ``coefficients`` (method symbolic): sympy's expansion, rank over Q;
- ``expand``: f's exact coefficients from sparse polynomials (python-flint), rank over Q
  or GF(p); only when requested;
- ``catalecticant``: no grid, the blocks from the coefficients of the structural lemma's
  polynomial, for a network that declares its structural form with at least d_x positions
  on each side;
- ``sketch``: the catalecticant's blocks through random sketches built from evaluations
  of that polynomial (cost in the ranks, not the block sizes); only when requested;
- ``graded``: one grid matrix per A-degree of a homogeneous f (modular, random points);
- ``direct``: one grid matrix (anything else).

For ``strategy="auto"`` the planner takes the first that applies (and whose cost check
passes), and records for every strategy why it was or was not taken. A new strategy is
one new module that subclasses :class:`~seprank.engine.strategies.registry.Strategy` and
registers an instance (or an entry point in the group ``seprank.strategies``).
"""

from __future__ import annotations

from seprank.engine.strategies import base as _base
from seprank.engine.strategies import catalecticant, coefficients, direct, expand, graded, sketch
from seprank.engine.strategies.base import RunInputs
from seprank.engine.strategies.registry import Request, Strategy, get, names, ordered, register
from seprank.registry import old_names

#: ``"auto"`` and the strategies shipped with seprank (:func:`names` adds plugins).
STRATEGIES = names(plugins=False)

__all__ = ["STRATEGIES", "Request", "RunInputs", "Strategy", "catalecticant", "coefficients",
           "direct", "expand", "get", "graded", "names", "ordered", "register", "sketch"]


#: ``Plan``, the run inputs' old name (deprecated: :class:`RunInputs`).
__getattr__ = old_names(__name__, {"Plan": (RunInputs, _base.PLAN_CLASS)})
