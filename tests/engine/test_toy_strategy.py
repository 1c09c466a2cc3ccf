"""A new strategy is its module and its registration line, nothing else (issue 43).

The toy below is written the way a contributor writes one, in this file only: it measures
on the direct grid, records its own typed detail, says what its rank may be called (its
own ground) and declares that a certificate kind certifies it. The shipped code labels it,
certifies it, writes its JSON and prints it, with no edit anywhere else.
"""

import json
from dataclasses import dataclass, replace
from typing import ClassVar

import pytest

from seprank import certify, check_certificate, measure
from seprank.cli.measure import print_measurement
from seprank.engine.detail import Detail
from seprank.engine.saturation import Ground, grid_ground
from seprank.engine.strategies import registry
from seprank.engine.strategies.direct import run as run_direct
from seprank.nets import LinearSelfAttention
from seprank.verdicts import kinds
from seprank.verdicts.kinds import grid_minors

NET = LinearSelfAttention(depth=1, width=2, seq_len=4)


@dataclass(frozen=True)
class ToyDetail(Detail):
    """What the toy records: how many steps its grid grew."""

    key: ClassVar[str] = "toy"
    steps: int

    def lines(self, m) -> list[str]:
        return [f"  toy: {self.steps} steps to rank {m.rank}"]


class Toy(registry.Strategy):
    """The direct grid under another name, first in the planner's order."""

    name = "toy"
    order = 1
    certifies = True

    def applies(self, req):
        if req.method != "modular" or req.sampler != "random":
            return "needs method='modular' and sampler='random'"
        return None if req.net.width == 2 else "needs width 2"

    def run(self, mp):
        raw = run_direct(mp.run, mp.reason)
        return replace(raw, strategy=self.name, detail=ToyDetail(steps=len(raw.history)))

    def ground(self, raw, ctx) -> Ground:
        g = grid_ground(raw, ctx)
        return replace(g, reason=f"toy ground: {g.reason}")


@pytest.fixture
def toy():
    registry.register(Toy())
    kind = kinds.register(kinds.CertificateKind(
        name="toy minors", strategies=("toy",), schema=grid_minors.schema,
        check=grid_minors.check, write=grid_minors.write, certifies=grid_minors.certifies,
        grid=True))
    try:
        yield
    finally:
        kinds.unregister(kind.name)
        registry.unregister("toy")


def test_the_toy_is_planned_measured_and_labelled_by_its_own_ground(toy):
    m = measure(NET)
    ref = measure(NET, strategy="direct")
    assert m.strategy == "toy" and ["toy", None] in m.considered
    assert (m.rank, m.history, m.sample_saturated) == (ref.rank, ref.history, True)
    assert m.saturated and m.saturation_bound == ref.saturation_bound
    assert m.saturation_reason == f"toy ground: {ref.saturation_reason}"
    assert m.detail == ToyDetail(steps=len(m.history)) and m.label == ref.label
    with pytest.raises(AttributeError):  # frozen: nothing writes to it afterwards
        m.rank = 0


def test_the_toy_is_written_and_printed_through_its_detail(toy, capsys):
    m = measure(NET)
    d = json.loads(json.dumps(m.to_dict()))
    assert d["toy"] == {"steps": len(m.history)} and list(d)[-3:] == ["toy", "kind", "label"]
    assert d["graded"] is d["catalecticant"] is d["expand"] is None  # the kept keys
    print_measurement(m, as_json=False)
    out = capsys.readouterr().out
    assert f"  toy: {len(m.history)} steps to rank {m.rank}\n" in out
    assert "  ground: toy ground: probability bound" in out


def test_the_toy_is_certified_by_the_kind_it_declares(toy):
    c = certify(NET)
    assert c.measurement.strategy == c.certificate["strategy"] == "toy"
    r = check_certificate(json.loads(json.dumps(c.certificate)))
    assert r.ok and r.rank == c.measurement.rank, r.reasons
    bad = dict(c.certificate, blocks=[dict(c.certificate["blocks"][0], rank=1)], rank=1)
    assert not check_certificate(bad).ok
