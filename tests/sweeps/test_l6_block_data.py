"""The committed (L6, d2, H1, N4) block data (proofs/data/l6_d2_blocks.jsonl, written by
``seprank blocks --data``): well formed, each block's proved term the one theory gives, no
rank above it, and (slow) the small blocks ranked again by another engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from seprank.nets import LinearSelfAttention
from seprank.sweeps import block_data

DATA = Path(__file__).resolve().parents[2] / "proofs" / "data" / "l6_d2_blocks.jsonl"
NET = dict(depth=6, width=2, heads=1, seq_len=4)
#: Blocks with a short side up to this are ranked again by python-flint (slow test).
SMALL = 2000


@pytest.fixture(scope="module")
def lines():
    return list(block_data.read(DATA).values())


def test_the_blocks_are_the_measurements_and_below_their_terms(lines):
    assert lines, "no block committed"
    terms = block_data.proved_terms(LinearSelfAttention(**NET), (0, 1))
    assert len(terms) == 365 and sum(terms.values()) == 2_826_912  # the formula's total
    seen = set()
    for line in lines:
        assert line["arch"] == "attention" and line["seed"] == 0 and line["partition"] is None
        assert {k: line["params"][k] for k in NET} == NET and not line["params"]["residual"]
        b = line["result"]["block"]
        assert line["block"] not in seen and 0 <= line["block"] < 365
        seen.add(line["block"])
        assert line["proved_term"] == terms[b["other_s_degree"]]
        assert b["rank"] <= min(min(b["shape"]), line["proved_term"])


@pytest.mark.slow
def test_the_small_blocks_agree_with_flint(lines):
    """Each committed block with a short side up to SMALL, ranked again from the same
    network, seed and prime by python-flint's nmod_mat (not the BLAS engine that wrote it)."""
    from seprank.engine.strategies import catalecticant as cat
    from seprank.sweeps.block_tasks import measurement_plan

    small = [x for x in lines if min(x["result"]["block"]["shape"]) <= SMALL]
    if not small:
        pytest.skip(f"no committed block has a short side <= {SMALL} yet")
    mp = measurement_plan(LinearSelfAttention(**NET), seed=0, prime=small[0]["prime"],
                          rank_engine="flint")
    prep = cat.prepare(mp.run)
    for x in small:
        block, _, _ = cat.measure_block(mp.run, prep, x["block"])
        assert block["rank"] == x["result"]["block"]["rank"], x["block"]
