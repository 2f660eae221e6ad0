"""The scripts in examples/ run as a user would run them."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize(
    ("script", "args", "expect"),
    [
        ("samplers_quickstart.py", [], "bumda"),
        (
            "distributed_workers.py",
            ["--workers", "4", "--n-trials", "6"],
            "every (particle, iteration) evaluated once: True",
        ),
        pytest.param("full_model_selection.py", [], "", marks=pytest.mark.slow),
        ("plot_population.py", [], "PSO best"),
    ],
)
def test_example_runs(script: str, args: list[str], expect: str, tmp_path: str) -> None:
    done = subprocess.run(
        [sys.executable, os.path.join(REPO, "examples", script), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert expect in done.stdout
