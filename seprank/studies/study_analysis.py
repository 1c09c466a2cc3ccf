"""What a study's measured cells answer: growth ratios, regimes, transitions, budgets.

Everything here reads rows (dicts: the cell's keys, ``rank``, ``label``, ``kind``,
``degree``, ``params``, ``upper``) and computes; nothing is measured.

**A step** joins two measured depths L < L' of one series (the other keys fixed). Its
growth ratio is log r(L') / log r(L), labelled by what its two ends are:

- ``measured``: both ranks exact or saturated (each is the separation rank);
- ``lower bound``: r(L) exact or saturated, r(L') a certified lower bound only: the true
  ratio is at least the one printed;
- ``none``: r(L) a lower bound only (the true log r(L) may be larger, so the ratio may be
  smaller: no claim), a float estimate at either end, or r(L) = 1.

**Its regime** is read against the two laws it sits between
(:func:`seprank.theory.regimes.step_regime`): the degree law (log r grows like f's degree,
ratio deg f(L') / deg f(L), 3 a layer for attention) and the linear law (log r grows like
L, ratio L'/L). A ratio nearer the degree law on a log scale is *depth-efficient*, nearer
the linear law *depth-inefficient*; equal ranks are *no gain*. The midpoint between the
two laws is the only threshold, and it comes from the laws themselves. f's degree is
measured by interpolation at random points over GF(p) (:func:`f_degree`).
"""

from __future__ import annotations

import math
from collections import defaultdict

from seprank.theory.regimes import EFFICIENT, INEFFICIENT, NO_GAIN, UNDETERMINED, step_regime

#: Rank kinds a row may have (from its measurement's label and method).
EXACT, SATURATED, LOWER, ESTIMATE = "exact", "saturated", "lower bound", "float estimate"


def rank_kind(m: dict) -> str:
    """What a measurement's rank is: ``exact`` (its label says exact), ``saturated``,
    ``lower bound`` (a certified lower bound only) or ``float estimate``.

    Parameters
    ----------
    m : dict
        A Measurement as ``to_dict()`` makes it.

    Returns
    -------
    str
    """
    if m.get("method") == "float":
        return ESTIMATE
    if str(m.get("label", "")).startswith("exact"):
        return EXACT
    return SATURATED if m.get("saturated") else LOWER


def settled(row: dict) -> bool:
    """Whether a row's rank is the separation rank (exact, or saturated)."""
    return row.get("kind") in (EXACT, SATURATED)


def series_of(rows: list[dict], depth_key: str) -> dict:
    """Rows grouped by every varied key but the depth: ``{(k, v), ...}: [rows by depth]``."""
    groups = defaultdict(list)
    for r in rows:
        key = tuple((k, r["values"][k]) for k in r["varied"] if k != depth_key)
        groups[key].append(r)
    for g in groups.values():
        g.sort(key=lambda r: r["values"][depth_key])
    return dict(groups)


def _ratio(lo: int, hi: int) -> float | None:
    return None if lo is None or hi is None or lo <= 1 or hi <= 0 else math.log(hi) / math.log(lo)


def step(a: dict, b: dict, depth_key: str) -> dict:
    """The step from row ``a`` (depth L) to row ``b`` (depth L' > L) of one series.

    Parameters
    ----------
    a, b : dict
        Two rows of one series (see the module docstring).
    depth_key : str
        The key that is the depth.

    Returns
    -------
    dict
        ``from``, ``to`` (depths), ``ratio`` (or None), ``ratio_label`` (measured, lower bound,
        none), ``degree_law``, ``linear_law``, ``regime`` and ``why``; ``bound_ratio`` and
        ``bound_regime`` where both ends have a proved upper bound.
    """
    L0, L1 = a["values"][depth_key], b["values"][depth_key]
    out = {"from": L0, "to": L1, "ratio": None, "ratio_label": "none",
           "linear_law": L1 / L0 if L0 > 0 else None, "degree_law": None,
           "regime": UNDETERMINED, "why": ""}
    if a.get("degree") and b.get("degree"):
        out["degree_law"] = b["degree"] / a["degree"]
    if a.get("rank") is None or b.get("rank") is None:
        out["why"] = "a cell was not measured"
    elif ESTIMATE in (a.get("kind"), b.get("kind")):
        out["why"] = "a float estimate is neither exact nor a bound"
    elif a["rank"] <= 1:
        out["why"] = f"rank {a['rank']} at {depth_key}={L0}: log r = 0"
    elif not settled(a):
        out["why"] = (f"the rank at {depth_key}={L0} is a lower bound only: the true ratio may "
                      "be smaller")
    else:
        out["ratio"] = _ratio(a["rank"], b["rank"])
        out["ratio_label"] = "measured" if settled(b) else "lower bound"
    if out["ratio"] is not None:
        out["regime"], out["why"] = step_regime(out["ratio"], out["degree_law"],
                                                out["linear_law"],
                                                lower_bound=out["ratio_label"] == "lower bound")
    if a.get("upper") and b.get("upper") and a["upper"] > 1:
        out["bound_ratio"] = _ratio(a["upper"], b["upper"])
        out["bound_regime"] = step_regime(out["bound_ratio"], out["degree_law"],
                                          out["linear_law"])[0]
    return out


def steps_of(rows: list[dict], depth_key: str) -> list[dict]:
    """Every step of every series (consecutive measured depths), with the series' keys."""
    out = []
    for key, group in series_of(rows, depth_key).items():
        done = [r for r in group if r.get("rank") is not None]
        for a, b in zip(done, done[1:]):
            s = step(a, b, depth_key)
            s["series"] = dict(key)
            out.append(s)
    return out


def transition(steps: list[dict]) -> dict:
    """Where one series' steps change from depth-efficient to depth-inefficient.

    Parameters
    ----------
    steps : list of dict
        The steps of one series, in depth order (:func:`steps_of`).

    Returns
    -------
    dict
        ``status``: ``bracketed`` (``between`` [L, L']: the last depth-efficient step ends
        at L, the first depth-inefficient one after it ends at L'), ``before`` (the first
        step is already inefficient: ``at_or_before``), ``not reached`` (``up_to``: no
        inefficient step measured) or ``unknown`` (no step with a regime); ``text``.
    """
    known = [s for s in steps if s["regime"] in (EFFICIENT, INEFFICIENT, NO_GAIN)]
    if not known:
        return {"status": "unknown", "text": "no step with a measured regime"}
    first_bad = next((s for s in known if s["regime"] != EFFICIENT), None)
    if first_bad is None:
        top = known[-1]["to"]
        return {"status": "not reached", "up_to": top,
                "text": f"not reached in the measured range (depth-efficient up to {top})"}
    good = [s for s in known if s["regime"] == EFFICIENT and s["to"] <= first_bad["from"]]
    if not good:
        return {"status": "before", "at_or_before": first_bad["from"],
                "text": f"at or before depth {first_bad['from']} (the first step with a "
                        f"regime, {first_bad['from']}->{first_bad['to']}, is already "
                        f"{first_bad['regime']})"}
    lo, hi = good[-1]["to"], first_bad["to"]
    return {"status": "bracketed", "between": [lo, hi],
            "text": f"between depths {lo} and {hi} (step {good[-1]['from']}->{lo} "
                    f"depth-efficient, {first_bad['from']}->{hi} {first_bad['regime']})"}


def depth_width_map(steps: list[dict], width_key: str) -> list[dict]:
    """The depth-width map: per step L -> L', the widths where it pays and where it stops.

    For each step (and each setting of the other keys): the widths at which it is
    depth-efficient, those at which it is not, and the widest at which it stops paying.

    Parameters
    ----------
    steps : list of dict
        All steps (:func:`steps_of`).
    width_key : str
        The key that is the width.

    Returns
    -------
    list of dict
        ``from``, ``to``, ``others`` (the other keys), ``efficient``, ``inefficient``,
        ``undetermined`` (widths), ``stops_paying_up_to`` (the largest width at which the
        step is measured depth-inefficient or no gain, None if none).
    """
    groups = defaultdict(lambda: {"efficient": [], "inefficient": [], "undetermined": []})
    for s in steps:
        if width_key not in s["series"]:
            continue
        others = tuple((k, v) for k, v in s["series"].items() if k != width_key)
        g = groups[(s["from"], s["to"], others)]
        w = s["series"][width_key]
        bucket = {EFFICIENT: "efficient", INEFFICIENT: "inefficient", NO_GAIN: "inefficient"}
        g[bucket.get(s["regime"], "undetermined")].append(w)
    out = []
    for (L0, L1, others), g in sorted(groups.items(), key=lambda kv: (kv[0][2], kv[0][:2])):
        out.append({"from": L0, "to": L1, "others": dict(others),
                    **{k: sorted(v) for k, v in g.items()},
                    "stops_paying_up_to": max(g["inefficient"], default=None)})
    return out


def budgets(rows: list[dict]) -> list[dict]:
    """The winner at each parameter budget: the cell of largest measured rank within it.

    The budgets are the measured cells' counts; a new line only where the winner or its
    certainty changes.

    The winner is ``certain`` when every other cell within the budget has a settled rank
    (exact or saturated): the winner's rank, a lower bound at worst, then beats their true
    ranks. Otherwise a cell with a lower bound only might be larger.

    Parameters
    ----------
    rows : list of dict
        The study's rows (with ``params``).

    Returns
    -------
    list of dict
        ``budget``, ``winner`` (its keys), ``rank``, ``kind``, ``certain``, ``within``
        (how many cells fit the budget).
    """
    done = [r for r in rows if r.get("rank") is not None and r.get("params") is not None
            and r.get("kind") != ESTIMATE]
    out, last = [], None
    for budget in sorted({r["params"] for r in done}):
        within = [r for r in done if r["params"] <= budget]
        best = max(within, key=lambda r: (r["rank"], -r["params"]))
        certain = all(settled(r) for r in within if r is not best)
        if last == (id(best), certain):
            continue
        out.append({"budget": budget, "winner": best["values"], "rank": best["rank"],
                    "kind": best["kind"], "certain": certain, "within": len(within)})
        last = (id(best), certain)
    return out


def _cell(r: dict, depth_key: str) -> str:
    return f"{depth_key}={r['values'][depth_key]}: {r['rank']} [{r['label']}]"


def verdict(rows: list[dict], steps: list[dict], depth_key: str, width_key: str) -> list[str]:
    """The study's conclusion in words.

    One line per series and a summary, each saying which cells and labels it rests on.

    Parameters
    ----------
    rows, steps : list of dict
        The study's rows and steps.
    depth_key, width_key : str
        Which keys are depth and width.

    Returns
    -------
    list of str
        The lines of the verdict.
    """
    lines = []
    by_series = defaultdict(list)
    for s in steps:
        by_series[tuple(s["series"].items())].append(s)
    for key, group in series_of(rows, depth_key).items():
        name = ", ".join(f"{k}={v}" for k, v in key) or "the series"
        ss = by_series.get(key, [])
        done = [r for r in group if r.get("rank") is not None]
        if len(done) < 2:
            lines.append(f"{name}: fewer than two measured depths, no step")
            continue
        t = transition(ss)
        parts = [f"{s['from']}->{s['to']} {s['regime']}"
                 + (f" (ratio {s['ratio']:.3f}, {s['ratio_label']})" if s["ratio"] else
                    f" ({s['why']})") for s in ss]
        lines.append(f"{name}: transition {t['text']}; steps: {'; '.join(parts)}; rests on "
                     + ", ".join(_cell(r, depth_key) for r in done))
    known = [s for s in steps if s["regime"] != UNDETERMINED]
    eff = sum(s["regime"] == EFFICIENT for s in known)
    und = len(steps) - len(known)
    lines.append(f"summary: {eff} of {len(known)} steps with a regime are depth-efficient, "
                 f"{len(known) - eff} not; {und} step{'' if und == 1 else 's'} undetermined")
    return lines
