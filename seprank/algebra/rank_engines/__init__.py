"""GF(p) rank engines: one class each, behind one interface and registered by name
(:mod:`seprank.algebra.rank_engines.base`). A new engine is one module here (or anywhere)
with one :class:`RankEngine` subclass and its :func:`register` call; importing this
package registers the built-in ones."""

from seprank.algebra.rank_engines import array_numpy, array_torch, blas, python_flint
from seprank.algebra.rank_engines.base import (
    DEVICES,
    RANK_ENGINES,
    RankEngine,
    check_rank_engine,
    engine_class,
    engine_names,
    register,
    unregister,
)
from seprank.algebra.rank_engines.growing import GrowingRank

BUILT_IN = (blas.BlasEngine, python_flint.FlintEngine, array_numpy.ArrayNumpyEngine,
            array_torch.ArrayTorchEngine)

__all__ = ["BUILT_IN", "DEVICES", "RANK_ENGINES", "GrowingRank", "RankEngine",
           "check_rank_engine", "engine_class", "engine_names", "register",
           "unregister"]
