"""Optuna's own sampler conformance suite, for every population sampler of the package."""

from __future__ import annotations

from collections.abc import Callable

import optuna
import pytest

from tests.samplers import make
from tests.samplers import SAMPLERS


# Optuna ships its conformance suite from 4.8.0 on; the oldest supported Optuna (4.0.0) runs
# every other test of the package.
pytest.importorskip(
    "optuna.testing.pytest_samplers", reason="this Optuna does not ship its sampler suite"
)

from optuna.testing.pytest_samplers import BasicSamplerTestCase
from optuna.testing.pytest_samplers import RelativeSamplerTestCase
from optuna.testing.pytest_samplers import SingleOnlySamplerTestCase


class TestConformance(BasicSamplerTestCase, RelativeSamplerTestCase, SingleOnlySamplerTestCase):
    @pytest.fixture(params=sorted(SAMPLERS))
    def sampler(self, request: pytest.FixtureRequest) -> Callable[[], optuna.samplers.BaseSampler]:
        name = request.param
        return lambda: make(name, seed=0)
