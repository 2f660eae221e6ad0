"""The scripts in examples/ run as a user would run them."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import tests


REPO = str(tests.REPO)


@pytest.mark.parametrize(
    ("script", "args", "expect"),
    [
        pytest.param("samplers_quickstart.py", [], "bumda", marks=pytest.mark.slow),
        (
            "distributed_workers.py",
            ["--workers", "4", "--n-trials", "6"],
            "every (particle, iteration) evaluated once: True",
        ),
        pytest.param("full_model_selection.py", [], "", marks=pytest.mark.slow),
        ("plot_population.py", [], "PSO best"),
        pytest.param("dashboard.py", [], "published after trials [8, 11]", marks=pytest.mark.slow),
        pytest.param(
            "compare_dataset.py", [], "Figures saved into the 4 studies", marks=pytest.mark.slow
        ),
    ],
)
@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
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


@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_sampler_pages_run(tmp_path: str) -> None:
    """The gallery's page per sampler (examples/samplers/), in one process to share imports."""
    folder = os.path.join(REPO, "examples", "samplers")
    pages = sorted(f for f in os.listdir(folder) if f.endswith(".py"))
    assert len(pages) == 5
    code = (
        "import runpy, sys\n"
        "for page in sys.argv[1:]:\n"
        "    print('==', page)\n"
        "    runpy.run_path(page, run_name='__main__')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *(os.path.join(folder, p) for p in pages)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("best ") == 7, done.stdout  # DFGS/AFGS and UMDA/BUMDA: two each
