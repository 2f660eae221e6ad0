"""Unit tests of the Optuna-free pieces: PSO maths, encoding, records, hashing."""

from __future__ import annotations

import json
import math

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import numpy as np
from optuna.distributions import CategoricalDistribution
from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution
import pytest

from optuna_psms.samplers import _records
from optuna_psms.samplers import _space
from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.base import Record
from optuna_psms.samplers.core.pso import inertia_weight
from optuna_psms.samplers.core.pso import move
from optuna_psms.samplers.core.pso import PSOSettings
from optuna_psms.samplers.core.pso import PSOStrategy
from optuna_psms.samplers.core.pso import velocity_update
from optuna_psms.samplers.core.rng import hash_uniform
from optuna_psms.samplers.core.rng import trial_rng
from optuna_psms.samplers.core.rng import TrialRng


#: First draws of two trial streams and one hashed coordinate (see the stream test).
GOLDEN_00 = 0.03664578397134277
GOLDEN_123 = 0.5629481623912056
GOLDEN_HASH = 0.8327613800581347


# --------------------------------------------------------------------------- PSO maths
def test_inertia_schedule_matches_paper() -> None:
    # W = (1.2, 0.5, 0.4) over I = 50: w_dec = 0.8 / 25 = 0.032 per iteration from t = 1.
    assert inertia_weight(1, 50, 1.2, 0.5, 0.4) == pytest.approx(1.2)
    assert inertia_weight(2, 50, 1.2, 0.5, 0.4) == pytest.approx(1.2 - 0.032)
    assert inertia_weight(26, 50, 1.2, 0.5, 0.4) == pytest.approx(0.4)
    assert inertia_weight(13, 50, 1.2, 0.5, 0.4) == pytest.approx(1.2 - 12 * 0.032)
    assert inertia_weight(40, 50, 1.2, 0.5, 0.4) == pytest.approx(0.4)
    assert inertia_weight(500, 50, 1.2, 0.5, 0.4) == pytest.approx(0.4)
    # w_fraction = 0 means constant w_end.
    assert inertia_weight(1, 50, 1.2, 0.0, 0.4) == pytest.approx(0.4)


def test_velocity_update_formula_and_clamp() -> None:
    x = np.array([0.5, 0.5])
    v = np.array([0.1, -0.1])
    p = np.array([0.7, 0.4])
    g = np.array([0.9, 0.1])
    r1 = np.array([0.5, 1.0])
    r2 = np.array([0.25, 0.0])
    out = velocity_update(x, v, p, g, w=0.9, c1=2.0, c2=2.0, r1=r1, r2=r2, v_max=1.0)
    expected = 0.9 * v + 2 * r1 * (p - x) + 2 * r2 * (g - x)
    np.testing.assert_allclose(out, expected)
    clamped = velocity_update(x, v, p, g, w=0.9, c1=2.0, c2=2.0, r1=r1, r2=r2, v_max=0.1)
    assert np.all(np.abs(clamped) <= 0.1)


def test_absorbing_walls() -> None:
    x, v = move(np.array([0.9, 0.1, 0.5]), np.array([0.3, -0.3, 0.2]))
    np.testing.assert_allclose(x, [1.0, 0.0, 0.7])
    np.testing.assert_allclose(v, [0.0, 0.0, 0.2])


def _rec(number: int, member: int, gen: int, x: list[float], loss: float | None) -> Record:
    return Record(number, member, gen, np.array(x), {"v": np.zeros(len(x))}, loss=loss)


def test_pso_assignment_is_round_robin_by_trial_number() -> None:
    s = PSOStrategy(2, run_start=0, settings=PSOSettings(swarm_size=3, boundary="absorb"))
    rng = np.random.default_rng(0)
    got = [(s.ask(n, rng).member, s.ask(n, rng).generation) for n in range(7)]
    assert got == [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1), (0, 2)]
    s2 = PSOStrategy(2, run_start=10, settings=PSOSettings(swarm_size=3, boundary="absorb"))
    assert (s2.ask(14, rng).member, s2.ask(14, rng).generation) == (1, 1)


def test_pso_global_best_is_synchronous() -> None:
    # Iteration 1 of particle 1 must not use particle 0's iteration-1 result.
    s = PSOStrategy(
        1,
        run_start=0,
        settings=PSOSettings(swarm_size=2, c1=0.0, c2=1.0, inertia=(0, 0, 0), boundary="absorb"),
    )
    s.tell(_rec(0, 0, 0, [0.2], 5.0))
    s.tell(_rec(1, 1, 0, [0.8], 4.0))
    s.tell(_rec(2, 0, 1, [0.0], 0.0))  # best so far, but iteration 1
    assert (best := s._best_before(1)) is not None and best.number == 1
    assert (best := s._best_before(2)) is not None and best.number == 2


def test_pso_failed_trial_keeps_previous_state() -> None:
    s = PSOStrategy(
        1,
        run_start=0,
        settings=PSOSettings(
            swarm_size=1, c1=0.0, c2=0.0, inertia=(1.0, 0.0, 1.0), boundary="absorb"
        ),
    )
    good = Record(0, 0, 0, np.array([0.3]), {"v": np.array([0.1])}, loss=1.0)
    bad = Record(1, 0, 1, np.array([0.4]), {"v": np.array([0.1])}, loss=math.inf)
    s.tell(good)
    s.tell(bad)
    prop = s.ask(2, np.random.default_rng(0))
    # Continues from the good trial (x=0.3, v=0.1), not from the failed one (x=0.4).
    assert prop.x[0] == pytest.approx(0.4)


def test_pso_state_is_order_insensitive() -> None:
    rng = np.random.default_rng(1)
    recs = [
        _rec(n, n % 3, n // 3, list(rng.uniform(size=4)), float(rng.uniform())) for n in range(12)
    ]
    recs[5].loss = math.inf
    a = PSOStrategy(4, 0, settings=PSOSettings(swarm_size=3, boundary="absorb"))
    b = PSOStrategy(4, 0, settings=PSOSettings(swarm_size=3, boundary="absorb"))
    for r in recs:
        a.tell(r)
    for r in reversed(recs):
        b.tell(r)
    for n in (12, 13, 14):
        pa, pb = a.ask(n, np.random.default_rng(n)), b.ask(n, np.random.default_rng(n))
        np.testing.assert_array_equal(pa.x, pb.x)
        np.testing.assert_array_equal(pa.vectors["v"], pb.vectors["v"])


# --------------------------------------------------------------------------- encoding
DISTRIBUTIONS = st.one_of(
    st.builds(
        lambda lo, w: FloatDistribution(lo, lo + w),
        st.floats(-1e6, 1e6),
        st.floats(1e-6, 1e6),
    ),
    st.builds(
        lambda lo, w: FloatDistribution(lo, lo * w, log=True),
        st.floats(1e-8, 1e3),
        st.floats(1.0, 1e6),
    ),
    st.builds(
        lambda lo, k, step: FloatDistribution(lo, lo + k * step, step=step),
        st.floats(-100, 100).map(lambda v: round(v, 2)),
        st.integers(0, 50),
        st.sampled_from([0.1, 0.25, 0.5, 1.0, 3.0]),
    ),
    st.builds(
        lambda lo, k, step: IntDistribution(lo, lo + k * step, step=step),
        st.integers(-100, 100),
        st.integers(0, 50),
        st.integers(1, 5),
    ),
    st.builds(
        lambda lo, k: IntDistribution(lo, lo + k, log=True),
        st.integers(1, 100),
        st.integers(0, 1000),
    ),
    st.builds(lambda k: CategoricalDistribution(list(range(k))), st.integers(1, 8)),
    st.just(CategoricalDistribution(["a", None, 1.5, True])),
)


@settings(max_examples=300, deadline=None)
@given(DISTRIBUTIONS, st.floats(-0.5, 1.5))
def test_decode_is_always_inside_the_distribution(dist, u: float) -> None:  # type: ignore[no-untyped-def]
    value = _space.decode(u, dist)
    assert dist._contains(dist.to_internal_repr(value))
    if isinstance(dist, IntDistribution):
        assert type(value) is int
    elif isinstance(dist, FloatDistribution):
        assert type(value) is float
    # Encoding a decoded value and decoding again is the identity.
    assert _space.decode(_space.encode(value, dist), dist) == value or (
        isinstance(dist, FloatDistribution)
        and dist.step is None
        and math.isclose(_space.decode(_space.encode(value, dist), dist), value, rel_tol=1e-9)
    )


def test_discrete_cells_are_equal_width() -> None:
    dist = IntDistribution(0, 3)
    values = [_space.decode(u, dist) for u in np.linspace(0, 1, 4001)]
    counts = np.bincount(values)
    assert counts.min() >= 990 and counts.max() <= 1010
    cat = CategoricalDistribution(["x", "y", "z"])
    assert [_space.decode(u, cat) for u in (0.0, 0.34, 0.99, 1.0)] == ["x", "y", "z", "z"]


def test_encode_clips_values_outside_a_changed_range() -> None:
    assert _space.encode(20.0, FloatDistribution(0.0, 10.0)) == 1.0
    assert _space.encode(-3, IntDistribution(0, 10)) == pytest.approx(0.5 / 11)


# --------------------------------------------------------------------------- records
def test_record_roundtrip_small_and_chunked() -> None:
    small = {"x": {"a": 0.5}}
    attrs = _records.dump(small)
    assert list(attrs) == [_records.KEY]
    assert _records.load(attrs) == small
    big = {"x": {f"feature_{i:05d}": i / 10001 for i in range(10_000)}}
    attrs = _records.dump(big)
    assert len(attrs) > 2 and list(attrs)[-1] == f"{_records.KEY}:n"
    for value in attrs.values():
        assert len(json.dumps(value).encode()) < 65_535  # as Optuna stores it (MySQL TEXT)
    assert _records.load(attrs) == big
    # A half-written record (count missing, or a chunk missing) reads as absent.
    partial = dict(attrs)
    del partial[f"{_records.KEY}:n"]
    assert _records.load(partial) is None
    partial = dict(attrs)
    del partial[f"{_records.KEY}:1"]
    assert _records.load(partial) is None


def test_record_refuses_nan() -> None:
    with pytest.raises(ValueError):
        _records.dump({"x": {"a": float("nan")}})


# --------------------------------------------------------------------------- hashing
def test_hash_uniform_is_deterministic_and_uniform() -> None:
    names = [f"p{i}" for i in range(20_000)]
    a = hash_uniform(3, 7, names)
    b = hash_uniform(3, 7, list(reversed(names)))[::-1]
    np.testing.assert_array_equal(a, b)  # keyed by name, not position
    assert np.all((a >= 0) & (a < 1))
    assert abs(a.mean() - 0.5) < 0.01
    assert not np.array_equal(a, hash_uniform(3, 8, names))
    assert not np.array_equal(a, hash_uniform(4, 7, names))
    hist = np.histogram(a, bins=10, range=(0, 1))[0]
    assert hist.min() > 1800


@given(
    names=st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=40, unique=True),
    seed=st.integers(0, 2**40),
    number=st.integers(0, 2**33),
)
def test_hash_uniform_small_and_large_paths_agree(
    names: list[str], seed: int, number: int
) -> None:
    from optuna_psms.samplers.core import rng

    small = hash_uniform(seed, number, names[: rng._SMALL - 1])
    large = hash_uniform(seed, number, (names * rng._SMALL)[: rng._SMALL * len(names)])
    np.testing.assert_array_equal(small, large[: len(small)])


def test_trial_streams_are_fixed_reusable_and_distinct() -> None:
    # A study continued by another process or another release of this package must see the
    # same draws: these values pin the derivation of a trial's generator.
    assert trial_rng(0, 0).random() == GOLDEN_00
    assert trial_rng(123, 4567, 1).random() == GOLDEN_123
    assert float(hash_uniform(3, 7, ["x"])[0]) == GOLDEN_HASH
    rngs = TrialRng()
    for key in [(0, 0, 0), (5, 9, 0), (5, 9, 1), (2**31 - 1, 10**6, 0)]:
        reused = rngs.at(*key).random(4)
        np.testing.assert_array_equal(reused, trial_rng(*key).random(4))
    firsts = {trial_rng(s, n, k).random() for s in range(4) for n in range(50) for k in range(2)}
    assert len(firsts) == 4 * 50 * 2


def test_algorithm_cores_do_not_import_optuna() -> None:
    import ast
    import pathlib

    import optuna_psms.samplers.core

    folder = pathlib.Path(optuna_psms.samplers.core.__file__).parent
    modules = sorted(folder.glob("*.py"))
    assert len(modules) >= 5
    for path in modules:
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] != "optuna", f"{path.name} imports {name}"


@pytest.mark.parametrize("name", ["pattern", "dfgs", "afgs"])
def test_space_changed_makes_grid_proposals_follow_the_new_cells(name: str) -> None:
    from optuna_psms.samplers.core.grid import AFGSStrategy
    from optuna_psms.samplers.core.grid import DFGSStrategy
    from optuna_psms.samplers.core.pattern import PatternStrategy

    cls = {"pattern": PatternStrategy, "dfgs": DFGSStrategy, "afgs": AFGSStrategy}[name]
    s = cls(1, 0, dims=(Dim("k", "float", 0),))
    s.space_changed((Dim("k", "int", 3),))  # the range became three integers
    for n in range(1, 12):
        p = s.ask(n, np.random.default_rng(n))
        assert abs((p.x[0] * 3) % 1 - 0.5) < 1e-9, (n, p.x)  # a cell centre
        s.tell(Record(n, p.member, p.generation, p.x, p.vectors, p.info, loss=float(p.x[0])))
