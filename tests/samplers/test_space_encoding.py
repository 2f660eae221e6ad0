"""Extreme ranges: every encoded coordinate decodes to a value inside its distribution.

The distributions Optuna accepts span the whole float range: ``[-1e308, 1e308]`` (its width
overflows a float), log ranges ``[1e-300, 1e300]``, integers up to ``10**12`` and more, and
steps as small as ``1e-9`` (where the float nearest ``low + i * step`` is often not on Optuna's
grid). A sampler that proposes a value outside its distribution breaks the trial, so the
codec is checked over such ranges with Hypothesis, and every sampler end to end.
"""

from __future__ import annotations

from collections.abc import Callable
import logging
import math
from typing import Any
import warnings

from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import optuna
from optuna.distributions import BaseDistribution
from optuna.distributions import CategoricalDistribution
from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution
import pytest

import optuna_psms
from optuna_psms.samplers import _space


EXTREME: dict[str, BaseDistribution] = {
    "float_log": FloatDistribution(1e-300, 1e300, log=True),
    "int_log": IntDistribution(1, 10**12, log=True),
    "int_wide": IntDistribution(0, 10**12),
    "float_step": FloatDistribution(0.0, 1.0, step=1e-9),
    "float_wide": FloatDistribution(-1e308, 1e308),
}

finite = st.floats(allow_nan=False, allow_infinity=False)
unit = st.floats(0.0, 1.0)


def contained(value: Any, dist: BaseDistribution) -> bool:
    """Optuna's own membership test (what ``suggest_*`` enforces)."""
    if isinstance(value, float) and math.isnan(value):
        return False
    return bool(dist._contains(dist.to_internal_repr(value)))


@st.composite
def float_dists(draw: st.DrawFn) -> FloatDistribution:
    low, high = sorted((draw(finite), draw(finite)))
    return FloatDistribution(low, high)


@st.composite
def log_dists(draw: st.DrawFn) -> FloatDistribution:
    positive = st.floats(1e-308, 1.7e308, allow_nan=False, allow_infinity=False)
    low, high = sorted((draw(positive), draw(positive)))
    return FloatDistribution(low, high, log=True)


@st.composite
def step_dists(draw: st.DrawFn) -> FloatDistribution:
    step = draw(st.sampled_from([1e-9, 1e-7, 0.001, 0.1, 0.25, 3.0, 1e6]))
    low = draw(st.floats(-1e3, 1e3)) if step < 1e6 else 0.0
    n = draw(st.integers(0, 10**9 if step <= 1e-7 else 10**4))
    return FloatDistribution(low, low + n * step, step=step)


@st.composite
def int_dists(draw: st.DrawFn) -> IntDistribution:
    if draw(st.booleans()):
        low, high = sorted((draw(st.integers(1, 10**15)), draw(st.integers(1, 10**15))))
        return IntDistribution(low, high, log=True)
    low, high = sorted(
        (draw(st.integers(-(10**15), 10**15)), draw(st.integers(-(10**15), 10**15)))
    )
    step = draw(st.sampled_from([1, 1, 2, 7, 10**6]))
    return IntDistribution(low, low + (high - low) // step * step, step=step)


any_dist = st.one_of(float_dists(), log_dists(), step_dists(), int_dists())


@pytest.mark.filterwarnings("ignore:.*no float within")
@settings(max_examples=300, deadline=None)
@given(any_dist, unit)
def test_decode_is_always_inside_the_distribution(dist: BaseDistribution, u: float) -> None:
    assert contained(_space.decode(u, dist), dist)


@pytest.mark.filterwarnings("ignore:.*no float within")
@settings(max_examples=300, deadline=None)
@given(any_dist, unit)
# Found by Hypothesis on 26 Nov 2026: log(low - 0.5) == log(high + 0.5) divided by zero.
@example(IntDistribution(999999999999996, 999999999999997, log=True), 0.0)
def test_encode_of_a_decoded_value_is_a_finite_unit_coordinate(
    dist: BaseDistribution, u: float
) -> None:
    value = _space.decode(u, dist)
    x = _space.encode(value, dist)
    assert math.isfinite(x) and 0.0 <= x <= 1.0
    if isinstance(dist, IntDistribution) and not dist.log:
        assert _space.decode(x, dist) == value  # a discrete value round-trips exactly


@pytest.mark.parametrize("name", sorted(EXTREME))
@pytest.mark.parametrize("u", [0.0, 1e-12, 0.25, 0.5, 0.999999, 1.0])
def test_the_extreme_ranges_of_the_issue(name: str, u: float) -> None:
    dist = EXTREME[name]
    value = _space.decode(u, dist)
    assert contained(value, dist), (name, u, value)
    assert 0.0 <= _space.encode(value, dist) <= 1.0


def test_the_widest_float_range_is_not_nan_at_either_end() -> None:
    dist = EXTREME["float_wide"]
    assert _space.decode(0.0, dist) == -1e308 and _space.decode(1.0, dist) == 1e308
    assert _space.decode(0.5, dist) == 0.0
    assert _space.encode(0.0, dist) == 0.5 and _space.encode(1e308, dist) == 1.0


def test_a_tiny_step_keeps_ordinary_values_exact() -> None:
    """The search for a value Optuna accepts leaves ordinary grids untouched."""
    dist = FloatDistribution(0.0, 1.0, step=0.1)
    assert [_space.decode((i + 0.5) / 11, dist) for i in range(11)] == [
        0.0 + i * 0.1 for i in range(11)
    ]
    cat = CategoricalDistribution(["a", "b"])
    assert _space.decode(0.9, cat) == "b"


def test_an_unrepresentable_step_grid_is_said_once_and_stays_valid() -> None:
    # Floats near 859 are 1.1e-13 apart: almost no value low + i * 1e-9 passes Optuna's check.
    dist = FloatDistribution(-859.7223698831824, -859.7223681271824, step=1e-09)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        values = [_space.decode(u / 50, dist) for u in range(51)]
    assert all(contained(v, dist) for v in values)
    said = [str(w.message) for w in caught if "no float within" in str(w.message)]
    assert len(said) == 1 and "step" in said[0] and repr(dist) in said[0]


SAMPLERS: dict[str, Callable[[], optuna.samplers.BaseSampler]] = {
    "PSOSampler": lambda: optuna_psms.PSOSampler(swarm_size=4, seed=0),
    "PatternSearchSampler": lambda: optuna_psms.PatternSearchSampler(seed=0),
    "FocusedGridSampler-deterministic": lambda: optuna_psms.FocusedGridSampler(
        mode="deterministic", seed=0
    ),
    "FocusedGridSampler-annealed": lambda: optuna_psms.FocusedGridSampler(mode="annealed", seed=0),
    "UMDASampler": lambda: optuna_psms.UMDASampler(population_size=6, seed=0),
    "BUMDASampler": lambda: optuna_psms.BUMDASampler(population_size=6, seed=0),
    "DynamicRandomSampler": lambda: optuna_psms.DynamicRandomSampler(batch_size=6, seed=0),
}


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_every_sampler_stays_inside_extreme_ranges(name: str) -> None:
    """Regression: in 60 trials the grid sampler gave 30 values outside these ranges."""
    handler = _Records()
    logger = logging.getLogger("optuna_psms")
    logger.addHandler(handler)
    study = optuna.create_study(sampler=SAMPLERS[name]())

    def objective(trial: optuna.Trial) -> float:
        total = 0.0
        for key, dist in EXTREME.items():
            if isinstance(dist, IntDistribution):
                v: float = trial.suggest_int(key, dist.low, dist.high, log=dist.log)
            else:
                assert isinstance(dist, FloatDistribution)
                v = trial.suggest_float(key, dist.low, dist.high, log=dist.log, step=dist.step)
            total += math.log1p(abs(float(v)))
        return total

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # overflow in numpy
            study.optimize(objective, n_trials=30)
    finally:
        logger.removeHandler(handler)
    trials = study.trials
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in trials)
    for trial in trials:
        for key, dist in EXTREME.items():
            assert contained(trial.params[key], dist), (trial.number, key, trial.params[key])
    assert not [m for m in handler.messages if "failed" in m], handler.messages
    # Not a constant: the search moves within each range.
    assert len({t.params["float_wide"] for t in trials}) > 1


def test_log_range_one_float_wide_encodes_to_the_centre() -> None:
    # Found by Hypothesis: log(low) == log(high) for this range, and encode divided by zero.
    dist = FloatDistribution(1e-308, 1.0000000000000004e-308, log=True)
    assert math.log(dist.low) == math.log(dist.high)
    assert _space.encode(dist.low, dist) == 0.5
    assert contained(_space.decode(_space.encode(dist.high, dist), dist), dist)
