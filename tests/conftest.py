"""Shared fixtures: the list of samplers under test, and reachable services."""

from __future__ import annotations

from collections.abc import Callable
import os
import socket

import optuna
import pytest


optuna.logging.set_verbosity(optuna.logging.WARNING)

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def service_reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return True
    except OSError:
        return False


def require_service(name: str, host: str, port: int) -> None:
    """Skip (locally) or fail (in CI) when a service is unreachable."""
    if service_reachable(host, port):
        return
    message = f"{name} is not reachable at {host}:{port}"
    if IN_CI:
        pytest.fail(f"{message}, and CI=true requires it.")
    pytest.skip(message)


SamplerFactory = Callable[..., optuna.samplers.BaseSampler]
