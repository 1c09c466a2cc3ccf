import importlib.util
from pathlib import Path

import pytest

PROOFS = Path(__file__).resolve().parents[2] / "proofs"


def load(name):
    spec = importlib.util.spec_from_file_location(name, PROOFS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("L, d, H, res", [(1, 2, 1, False), (2, 3, 1, True), (3, 2, 2, False),
                                          (2, 4, 2, True)])
def test_structural_lemma(L, d, H, res):
    assert load("structural_lemma").check(L, d, H, 4, res)


CLAIMS = ["structural_lemma", "block_bound", "bounded_rank_dims", "graded_decomposition",
          "transition_crossover", "catalecticant_reduction", "heads_two", "heads_depth_two"]


@pytest.mark.parametrize("name", CLAIMS)
def test_claim_checks(name):
    assert load(name).check()


@pytest.mark.parametrize("name", CLAIMS)
def test_each_check_fails_on_its_false_variant(name):
    assert load(name).false_variant_fails()


def test_every_claim_has_a_markdown_proof_listed_in_the_table():
    table = (PROOFS / "README.md").read_text()
    for name in CLAIMS:
        md = {"transition_crossover": "transition"}.get(name, name) + ".md"
        assert (PROOFS / md).exists() and md in table
