"""Shared fixtures: the list of samplers under test, and reachable services."""

from __future__ import annotations

from collections.abc import Callable
import os

import optuna
import pytest

from optuna_psms.benchmarks.scale import reachable


optuna.logging.set_verbosity(optuna.logging.WARNING)

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require_service(name: str, host: str, port: int) -> None:
    """Skip (locally) or fail (in CI) when a service is unreachable."""
    if reachable(host, port):
        return
    message = f"{name} is not reachable at {host}:{port}"
    if IN_CI:
        pytest.fail(f"{message}, and CI=true requires it.")
    pytest.skip(message)


SamplerFactory = Callable[..., optuna.samplers.BaseSampler]
