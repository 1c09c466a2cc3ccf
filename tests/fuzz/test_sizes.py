"""Sizes checked before anything is built, in one line naming the argument: partitions and
ranges by their size first, every size any integral number (numpy integers included) and
nothing else (bools, floats, strings refused, never coerced), bounds answered in bounded
time or refused with their cost, and the API's misuse a SeprankError."""

import time

import numpy as np
import pytest

import seprank
from seprank import LinearSelfAttention as LSA
from seprank.errors import SeprankError
from seprank.theory.bounds import theorem_bound
from tests.fuzz._cli import assert_one_line, run_cli

NET = dict(depth=1, width=2, seq_len=4)

#: name -> (call, words of the one-line refusal)
REFUSED = {
    "measure range(10**9)": (lambda: seprank.measure(LSA(**NET), range(10**9)),
                             "more than seq_len=4"),
    "partition [0.5]": (lambda: seprank.measure(LSA(**NET), [0.5]),
                        "list of positions (integers), got"),
    "partition '01'": (lambda: seprank.measure(LSA(**NET), "01"), "list of positions"),
    "partition [True]": (lambda: seprank.measure(LSA(**NET), [True]),
                         "list of positions (integers), got"),
    "partition None items": (lambda: seprank.measure(LSA(**NET), [None]),
                             "list of positions (integers), got"),
    "partition an int": (lambda: seprank.measure(LSA(**NET), 3), "list of positions"),
    "residual 'no'": (lambda: LSA(**NET, residual="no"), "residual='no' must be true or false"),
    "depth a float": (lambda: LSA(depth=1.0, width=2, seq_len=4), "depth=1.0"),
    "depth a bool": (lambda: LSA(depth=True, width=2, seq_len=4), "depth=True"),
    "width a numpy float": (lambda: LSA(depth=1, width=np.float64(2), seq_len=4), "width="),
    "seq_len a string": (lambda: LSA(depth=1, width=2, seq_len="4"), "seq_len='4'"),
    "MPS bond 2**40": (lambda: seprank.measure(seprank.nets.MPS(seq_len=4, phys_dim=2,
                                                                bond=2**40)), "weights of shape"),
    "theorem_bound seq_len 2**62": (lambda: theorem_bound(LSA(depth=1, width=2, seq_len=2**62)),
                                  "seq_len=4611686018427387904"),
    "theorem_bound depth 10**6": (lambda: theorem_bound(LSA(depth=10**6, width=4, seq_len=8)),
                                "too deep for the exact bound"),
    "theorem_bound depth 10**6 residual": (
        lambda: theorem_bound(LSA(depth=10**6, width=4, seq_len=8, residual=True)), "too deep"),
    "theorem_bound a string": (lambda: theorem_bound("attention"), "net=str"),
    "certify None": (lambda: seprank.certify(None), "net=None is not an architecture"),
    "upper_bound name": (lambda: seprank.upper_bound("attention"),
                         "net='attention' is not an architecture instance"),
    "upper_bound None": (lambda: seprank.upper_bound(None), "net=None is not an architecture"),
    "measure None": (lambda: seprank.measure(None), "not an architecture"),
    "Store(123)": (lambda: __import__("seprank.sweeps.store", fromlist=["Store"]).Store(123),
                   "db=123"),
    "check_certificate None": (lambda: _check_none(), "certificate"),
}


def _check_none():
    r = seprank.check_certificate(None)
    if not r.ok:
        raise SeprankError("certificate: " + r.reasons[0])


@pytest.mark.parametrize("name", list(REFUSED))
def test_refused_in_one_line_before_anything_is_built(name):
    call, words = REFUSED[name]
    t = time.perf_counter()
    with pytest.raises(SeprankError) as exc:
        call()
    assert words in str(exc.value) and "\n" not in str(exc.value)
    assert time.perf_counter() - t < 20


def test_query_with_a_bad_filter(tmp_path):
    from seprank.sweeps.store import Store

    with Store(tmp_path / "r.sqlite") as s:
        with pytest.raises(SeprankError, match=r"where=\[5\]"):
            s.query([5])
        assert s.query("depth>=2") == []  # one filter as a string: not its letters


INTEGRAL = [np.int64, np.int32, np.uint16, int]


@pytest.mark.parametrize("kind", INTEGRAL, ids=lambda k: k.__name__)
def test_any_integral_number_is_a_size(kind):
    net = LSA(depth=kind(2), width=kind(2), seq_len=kind(4), heads=kind(1))
    assert type(net.depth) is int and net == LSA(depth=2, width=2, seq_len=4)
    assert theorem_bound(net)["upper"] == theorem_bound(LSA(depth=2, width=2, seq_len=4))["upper"]
    m = seprank.measure(net, [np.int64(0), np.int64(1)])
    assert m.partition == (0, 1)


def test_numpy_sizes_through_flint(tmp_path):
    """python-flint takes Python ints only: a numpy depth reaches the graded strategy."""
    m = seprank.measure(LSA(depth=np.int64(1), width=np.int64(2), seq_len=np.int64(4)),
                        strategy="graded")
    assert m.rank == seprank.measure(LSA(depth=1, width=2, seq_len=4), strategy="graded").rank


@pytest.mark.parametrize("argv, words", [
    (["bounds", "--depth", "2", "--width", "3", "--seq-len", str(2**63 - 1)], "seq_len="),
    (["bounds", "--depth", "1000000", "--width", "4", "--seq-len", "8"], "too deep"),
    (["measure", "--depth", "1", "--width", "2", "--seq-len", "4", "--partition", "0,9"],
     "out of range"),
])
def test_cli_sizes_refused_in_one_line(argv, words, capsys):
    t = time.perf_counter()
    rc, out, err = run_cli(capsys, *argv)
    assert_one_line(rc, err, 2, words)
    assert time.perf_counter() - t < 20


@pytest.mark.parametrize("depth", [100, 3000, 10_000])
def test_bounds_answer_deep_networks_in_bounded_time(depth):
    t = time.perf_counter()
    ub = theorem_bound(LSA(depth=depth, width=4, seq_len=8, residual=True))
    assert ub["log10_upper"] > 0 and time.perf_counter() - t < 20
