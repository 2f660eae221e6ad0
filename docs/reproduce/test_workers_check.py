"""docs/reproduce/workers_check.py: the targets of issue 33 on a made-up table."""

from __future__ import annotations

import importlib
from typing import Any

import pytest


@pytest.fixture
def script() -> Any:
    return importlib.import_module("workers_check")


def test_the_verdicts_compare_degradations_and_tpe(script: Any) -> None:
    final = {
        1: {"tpe": 0.30, "pso@budget": 0.25, "afgs@budget": 0.20},
        16: {"tpe": 0.40, "pso@budget": 0.27, "afgs@budget": 0.45},
    }
    got = {what: ok for what, _, _, ok in script.verdicts(final)}
    assert got == {
        "pso@budget: x(16 vs 1) <= 1.1": True,  # 1.08
        "pso@budget below tpe at 16 workers": True,
        "afgs@budget: x(16 vs 1) <= 1.5": False,  # 2.25
        "afgs@budget below tpe at 16 workers": False,
    }
    del final[16]["tpe"]  # a target whose samplers did not run is not judged
    assert len(script.verdicts(final)) == 2


def test_the_command_runs_the_unseen_seeds_at_1_and_16_workers(script: Any) -> None:
    cmd = " ".join(script.command("/tmp/x.json"))
    assert "--first-seed 20 --seeds 10" in cmd and "--workers-sim 1 16" in cmd
