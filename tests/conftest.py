import os

import numpy as np
import pytest

from seprank.domains import Float64, ModP, Symbolic

THOROUGH = os.environ.get("SEPRANK_THOROUGH") == "1"


@pytest.fixture(params=["float64", "modp", "modp-small", "symbolic"])
def domain(request):
    return {
        "float64": Float64(),
        "modp": ModP(),
        "modp-small": ModP(101),
        "symbolic": Symbolic(),
    }[request.param]


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
