"""Shared fixtures: the list of samplers under test, reachable services,
a simulated failure or Ctrl-C in a chosen trial, Python's own SIGINT handler."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator
import os
import signal
from typing import Any

import hypothesis
import optuna
import pytest

from optuna_psms.benchmarks.scale import reachable


optuna.logging.set_verbosity(optuna.logging.WARNING)

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

# Under CI=true Hypothesis draws the same examples on every run, so CI's verdict does not
# depend on which inputs a run happened to draw; locally it explores (on 26 Nov 2026 it found
# a division by zero in _space.encode that is now pinned as an @example). A test's own
# settings(derandomize=...) still wins.
hypothesis.settings.register_profile("ci", derandomize=True)
if IN_CI:
    hypothesis.settings.load_profile("ci")


def require_service(name: str, host: str, port: int) -> None:
    """Skip (locally) or fail (in CI) when a service is unreachable."""
    if reachable(host, port):
        return
    message = f"{name} is not reachable at {host}:{port}"
    if IN_CI:
        pytest.fail(f"{message}, and CI=true requires it.")
    pytest.skip(message)


SamplerFactory = Callable[..., optuna.samplers.BaseSampler]


@pytest.fixture
def raise_in_trials(
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[[dict[int, BaseException]], None]:
    """``raise_in_trials(plan)`` makes the CV of the ``k``-th trial (0-based, in call order)
    of a full model selection raise ``plan[k]``: a broken pipeline or a simulated Ctrl-C,
    with no timing involved."""

    def install(plan: dict[int, BaseException]) -> None:
        from optuna_psms.fms import objective as objective_module
        from optuna_psms.fms._folds import run_folds as real

        calls: list[int] = []

        def run_folds(*args: Any, **kwargs: Any) -> Any:
            calls.append(1)
            if len(calls) - 1 in plan:
                raise plan[len(calls) - 1]
            return real(*args, **kwargs)

        monkeypatch.setattr(objective_module, "run_folds", run_folds)

    return install


@pytest.fixture
def default_ctrl_c() -> Iterator[None]:
    """Python's own SIGINT handler (raise KeyboardInterrupt), as in a plain interpreter, for a
    test that delivers SIGINT with ``signal.raise_signal``; the previous one afterwards."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
