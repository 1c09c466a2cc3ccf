"""Hypothesis generators and assertions for property-based tests of rank bounds.

(Hypothesis calls its generators "search strategies"; in seprank "strategy" means a
measurement strategy, :mod:`seprank.engine.strategies`.)

For seprank's own suite and for users testing their own architectures:

>>> from seprank.nets import LinearSelfAttention
>>> net = LinearSelfAttention(depth=1, width=2, seq_len=4)
>>> m = assert_rank_within_bounds(net, lower=3, upper=3)

Every assertion failure message holds the config, the seed and a command (or Python
snippet) that reproduces the case. :func:`configs_of` builds configs of any architecture
class from its dataclass fields. It needs hypothesis (``pip install 'seprank[test]'``).
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np

try:
    import hypothesis  # noqa: F401  (the guard: a one-line message when it is missing)
except ImportError:
    raise ImportError("seprank.testing needs hypothesis: pip install 'seprank[test]'") from None

from seprank.algebra.domains import Float64, ModP, Symbolic
from seprank.algebra.float_rank import float_trustworthy
from seprank.engine.measure import measure
from seprank.errors import ConfigError
from seprank.nets import LinearSelfAttention, head_counts
from seprank.nets.base import config_of
from seprank.nets.bound import LINEAR_ATTENTION, theorem_of
from seprank.nets.partitions import check_partition, default_partition
from seprank.theory.bounds import theorem_bound

__all__ = [
    "assert_engines_agree",
    "assert_partition_invariant",
    "assert_rank_within_bounds",
    "configs",
    "configs_of",
    "domains",
    "partitions",
    "register_profiles",
    "reproduce",
    "seeds",
]


# ----------------------------------------------------------------------------- generators
def configs(*, max_depth: int = 3, max_width: int = 4, max_seq_len: int = 6,
            max_bound: int = 400, heads=None, residual=None, min_seq_len: int = 2):
    """Strategy of LinearSelfAttention configs whose proved bound is at most ``max_bound``.

    The size budget keeps examples fast. The query position is drawn too; the bound is
    that of the default partition, its first position replaced by the query position
    when that is not in it.

    Parameters
    ----------
    max_depth : int, default 3
        Largest depth drawn (from 1).
    max_width : int, default 4
        Largest width drawn (from 1).
    max_seq_len : int, default 6
        Largest sequence length drawn.
    max_bound : int, default 400
        Configs whose proved upper bound exceeds this are rejected.
    heads : int, optional
        Fix the number of heads (default: any divisor of the width).
    residual : bool, optional
        Fix the residual flag (default: either).
    min_seq_len : int, default 2
        Smallest sequence length drawn.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        A strategy of :class:`~seprank.nets.LinearSelfAttention` instances.
    """
    from hypothesis import assume
    from hypothesis import strategies as st

    @st.composite
    def _cfg(draw):
        depth = draw(st.integers(1, max_depth))
        width = draw(st.integers(1, max_width))
        h = heads if heads is not None else draw(st.sampled_from(head_counts(width)))
        assume(width % h == 0)
        n = draw(st.integers(min_seq_len, max_seq_len))
        res = residual if residual is not None else draw(st.booleans())
        q = draw(st.integers(0, n - 1))
        net = LinearSelfAttention(depth=depth, width=width, heads=h, seq_len=n, residual=res,
                                  query_position=q)
        assume(theorem_bound(net, _side_with(net, q))["upper"] <= max_bound)
        return net

    return _cfg()


def configs_of(cls, /, **field_strategies):
    """Strategy of configs of the architecture class ``cls``, from its dataclass fields.

    Each field named here is drawn from its strategy (a plain value is fixed), every other
    field stays at its default; configs whose constructor raises ConfigError are rejected
    (hypothesis ``assume``: a strategy that is rejected too often fails its health check
    rather than looping).

    Parameters
    ----------
    **field_strategies : hypothesis.strategies.SearchStrategy or object
        A strategy, or a fixed value, for each field to set.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        A strategy of ``cls`` instances.

    Raises
    ------
    ConfigError
        If ``cls`` is not a dataclass, a name is not one of its fields, or a required field
        (no default) has no strategy.

    Examples
    --------
    >>> from hypothesis import strategies as st
    >>> from seprank.nets import MPS
    >>> s = configs_of(MPS, seq_len=st.integers(2, 4), phys_dim=2, bond=st.integers(1, 3))
    """
    from hypothesis import assume
    from hypothesis import strategies as st

    if not dataclasses.is_dataclass(cls):
        raise ConfigError(f"configs_of: {cls!r} is not a dataclass (an architecture config)")
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    for name in field_strategies:
        if name not in fields:
            raise ConfigError(f"configs_of: {name!r} is not a field of {cls.__name__}; "
                              f"fields: {', '.join(fields)}")
    for name, f in fields.items():
        if name not in field_strategies and f.default is dataclasses.MISSING \
                and f.default_factory is dataclasses.MISSING:
            raise ConfigError(f"configs_of: {cls.__name__}.{name} is required (no default): "
                              f"give it a strategy, e.g. {name}=st.integers(...)")
    strats = {k: v if isinstance(v, st.SearchStrategy) else st.just(v)
              for k, v in field_strategies.items()}

    @st.composite
    def _cfg(draw):
        kw = {k: draw(v) for k, v in strats.items()}
        try:
            return cls(**kw)
        except ConfigError:
            assume(False)

    return _cfg()


def _side_with(net, q):
    p = list(default_partition(net.seq_len))
    if q in p:
        return p
    return [q] + p[1:] if len(p) > 1 else [q]


def partitions(seq_len: int, *, balanced: bool | None = None, contains=None):
    """Strategy of A sides of the positions 0..seq_len-1.

    Parameters
    ----------
    seq_len : int
        Sequence length N.
    balanced : bool, optional
        If True, every side has ``N // 2`` positions; otherwise any size from 1 to N - 1.
    contains : int, optional
        ``contains=i`` makes every side contain position i; ``contains=-i-1`` makes every
        side avoid it.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        A strategy of sorted tuples of positions.
    """
    from hypothesis import strategies as st

    sizes = [seq_len // 2] if balanced else list(range(1, seq_len))

    @st.composite
    def _p(draw):
        k = draw(st.sampled_from(sizes))
        A = draw(st.lists(st.integers(0, seq_len - 1), min_size=k, max_size=k, unique=True))
        if contains is not None and contains >= 0 and contains not in A:
            A[0] = contains if contains not in A else A[0]
        if contains is not None and contains < 0:
            avoid = -contains - 1
            if avoid in A:
                A[A.index(avoid)] = next(i for i in range(seq_len) if i not in A)
        return tuple(sorted(set(A)))

    return _p()


def domains():
    """Strategy over the three domains (ModP with the default and a small prime).

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        Samples ``Float64()``, ``ModP()``, ``ModP(101)`` and ``Symbolic()``.
    """
    from hypothesis import strategies as st

    return st.sampled_from([Float64(), ModP(), ModP(101), Symbolic()])


def seeds():
    """Strategy of measurement seeds.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        Integers in :math:`[0, 2^{31} - 1]`.
    """
    from hypothesis import strategies as st

    return st.integers(0, 2**31 - 1)


def register_profiles() -> str:
    """Register hypothesis profiles 'fast' (default) and 'thorough' and load one.

    ``SEPRANK_THOROUGH=1`` selects 'thorough'. Failing examples are stored in the
    hypothesis example database (.hypothesis/) and replayed first on the next run.

    Returns
    -------
    str
        The name of the profile loaded.
    """
    from hypothesis import HealthCheck, settings

    common = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                        HealthCheck.filter_too_much])
    settings.register_profile("fast", max_examples=8, **common)
    settings.register_profile("thorough", max_examples=150, **common)
    name = "thorough" if os.environ.get("SEPRANK_THOROUGH") == "1" else "fast"
    settings.load_profile(name)
    return name


# ----------------------------------------------------------------------------- assertions
def reproduce(net, partition=None, seed: int = 0, method: str = "modular") -> str:
    """A shell command (for LinearSelfAttention) or Python snippet reproducing a case.

    Parameters
    ----------
    net : object
        The architecture instance.
    partition : iterable of int, optional
        The A side (default: the first ``seq_len // 2`` positions).
    seed : int, default 0
        The measurement seed.
    method : str, default "modular"
        The measurement method.

    Returns
    -------
    str
        A ``seprank measure ...`` command, or a ``seprank.measure(...)`` call.

    Examples
    --------
    >>> from seprank.nets import LinearSelfAttention
    >>> net = LinearSelfAttention(depth=1, width=2, seq_len=4)
    >>> reproduce(net, seed=3)  # doctest: +NORMALIZE_WHITESPACE
    'seprank measure --depth 1 --width 2 --heads 1 --seq-len 4 --query-position 0
     --output-coord 0 --partition 0,1 --method modular --seed 3'
    """
    part = default_partition(net.seq_len) if partition is None else tuple(partition)
    if theorem_of(net) == LINEAR_ATTENTION:  # the paper's network: the CLI's own flags
        return (
            f"seprank measure --depth {net.depth} --width {net.width} --heads {net.heads} "
            f"--seq-len {net.seq_len}{' --residual' if net.residual else ''} "
            f"--query-position {net.query_position} --output-coord {net.output_coord} "
            f"--partition {','.join(map(str, part))} --method {method} --seed {seed}"
        )
    return f"seprank.measure({net!r}, {list(part)}, method={method!r}, seed={seed})"


def _where(net, partition, seed, method) -> str:
    return (f"config={config_of(net)} partition={partition} seed={seed}; reproduce: "
            f"{reproduce(net, partition, seed, method)}")


def assert_rank_within_bounds(net, partition=None, *, lower=None, upper=None,
                              method: str = "modular", seed: int = 0, **kw):
    """Measure and assert ``lower <= rank <= upper``.

    An unsaturated modular measurement is still a certified lower bound, so it can
    only refute ``upper`` (and it proves ``lower`` when ``rank >= lower``); if it cannot
    confirm ``lower`` the assertion says so instead of passing silently.

    Parameters
    ----------
    net : object
        The architecture instance.
    partition : iterable of int, optional
        The A side (default: the first ``seq_len // 2`` positions).
    lower : int, optional
        The rank must be at least this (not checked if None).
    upper : int, optional
        The rank must be at most this (not checked if None).
    method : str, default "modular"
        The measurement method (:func:`seprank.measure`).
    seed : int, default 0
        The measurement seed.
    **kw
        Further keyword arguments of :func:`seprank.measure`.

    Returns
    -------
    Measurement
        The measurement.

    Raises
    ------
    AssertionError
        If the rank is outside the bounds; the message holds the config, the seed and a
        command that reproduces the case.
    ConfigError
        If the partition is invalid.
    """
    __tracebackhide__ = True  # pytest: the failure shows the assertion, not this code
    if partition is not None:
        check_partition(partition, net.seq_len)
    m = measure(net, partition, method=method, seed=seed, **kw)
    where = _where(net, partition, seed, method)
    if upper is not None and m.rank > upper:
        raise AssertionError(f"rank {m.rank} > upper bound {upper} (VIOLATED); {where}")
    if lower is not None and m.rank < lower:
        state = m.saturation_reason or ("saturated" if m.saturated else "NOT saturated")
        raise AssertionError(f"rank {m.rank} < lower bound {lower} ({state}); {where}")
    return m


def assert_partition_invariant(net, partitions_, *, method: str = "modular", seed: int = 0):
    """Assert that all given partitions give the same rank.

    Each measurement must stop below its sample size (``sample_saturated``; ``saturated``
    may be withheld by the probability bound, see :mod:`seprank.engine.saturation`, without
    making the ranks less comparable).

    Parameters
    ----------
    net : object
        The architecture instance.
    partitions_ : iterable of iterable of int
        The A sides compared.
    method : str, default "modular"
        The measurement method.
    seed : int, default 0
        The measurement seed.

    Returns
    -------
    dict
        The rank of each partition (a tuple).

    Raises
    ------
    AssertionError
        If a measurement is not sample-saturated or the ranks differ.
    """
    __tracebackhide__ = True  # pytest: the failure shows the assertion, not this code
    ranks = {}
    for p in partitions_:
        m = measure(net, p, method=method, seed=seed)
        if not m.sample_saturated:
            where = _where(net, p, seed, method)
            raise AssertionError(f"partition {tuple(p)} not saturated ({m.saturation_reason}); "
                                 f"{where}")
        ranks[tuple(p)] = m.rank
    if len(set(ranks.values())) > 1:
        first = next(iter(ranks))
        raise AssertionError(
            f"ranks differ across partitions {ranks}; {_where(net, first, seed, method)}"
        )
    return ranks


def assert_engines_agree(net, partition=None, *, seed: int = 0, float_check: str = "trusted"):
    """Assert that the modular and symbolic ranks agree exactly on one integer network.

    The float rank must agree too when its spectrum is trustworthy
    (``float_check='trusted'``), always (``'always'``), or it is not checked (``'never'``).

    Parameters
    ----------
    net : object
        The architecture instance (its weights are drawn once, in the symbolic domain, and
        used by every engine).
    partition : iterable of int, optional
        The A side (default: the first ``seq_len // 2`` positions).
    seed : int, default 0
        The weights' and the measurements' seed.
    float_check : {"trusted", "always", "never"}, default "trusted"
        When the float rank is compared.

    Returns
    -------
    int
        The exact (symbolic) rank.

    Raises
    ------
    AssertionError
        If the modular measurement is not sample-saturated, or two ranks compared differ.
    """
    __tracebackhide__ = True  # pytest: the failure shows the assertion, not this code
    weights = net.init(np.random.default_rng(seed), Symbolic())
    sym = measure(net, partition, method="symbolic", weights=weights)
    mod = measure(net, partition, method="modular", weights=weights, seed=seed)
    where = _where(net, partition, seed, "symbolic")
    if not mod.sample_saturated or mod.rank != sym.rank:
        raise AssertionError(f"modular {mod.rank} != symbolic {sym.rank}; {where}")
    if float_check != "never":
        flo = measure(net, partition, method="float", weights=weights, seed=seed)
        trusted = float_trustworthy(flo)
        if (float_check == "always" or trusted) and flo.rank != sym.rank:
            raise AssertionError(
                f"float {flo.rank} != exact {sym.rank} (trusted={trusted}, tol "
                f"{flo.tolerance:.3g}); {where}"
            )
    return sym.rank
