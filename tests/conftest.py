import os

import numpy as np
import pytest

from seprank.algebra.domains import Float64, ModP, Symbolic

THOROUGH = os.environ.get("SEPRANK_THOROUGH") == "1"


@pytest.fixture(params=["float64", "modp", "modp-small", "symbolic"])
def domain(request):
    return {
        "float64": Float64(),
        "modp": ModP(),
        "modp-small": ModP(101),
        "symbolic": Symbolic(),
    }[request.param]


def _engines():
    """Every registered GF(p) rank engine that runs here (its declared needs installed)."""
    from seprank.algebra.rank_engines import engine_class, engine_names

    return [n for n in engine_names() if engine_class(n).missing() is None]


@pytest.fixture(params=_engines())
def rank_engine(request):
    """Each GF(p) rank engine that runs here (p = 65521: every engine accepts it), chosen
    once as the package chooses it (:meth:`seprank.algebra.rank.RankEngine.choose`)."""
    from seprank.algebra.rank import RankEngine

    return RankEngine.choose(request.param, 65521)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def pytest_collection_modifyitems(config, items):
    if os.environ.get("SEPRANK_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow: set SEPRANK_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
