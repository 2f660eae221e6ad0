"""Shared fixtures: the list of samplers under test, reachable services, the docs scripts."""

from __future__ import annotations

from collections.abc import Callable
import importlib
import os
from pathlib import Path
from types import ModuleType

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


DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.fixture
def docs_script(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], ModuleType]:
    """Import a script of ``docs/`` by module name (``docs_script("psms_caruana")``), with
    ``docs/`` on ``sys.path`` for this test only, as the scripts import each other."""

    def load(name: str) -> ModuleType:
        monkeypatch.syspath_prepend(str(DOCS))
        return importlib.import_module(name)

    return load
