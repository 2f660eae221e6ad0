"""Every ``python -m optuna_psms...`` command the README, the docs pages and the docstrings
name runs (its ``--help``): a module that became a package keeps its command
(``optuna_psms.meta`` lost ``python -m`` when it became a package, and nothing said so)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests import REPO


def _commands() -> list[str]:
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    pages += sorted((REPO / "optuna_psms").rglob("*.py"))
    found = set()
    for page in pages:
        found.update(re.findall(r"python -m (optuna_psms[a-z_.]*)", page.read_text()))
    return sorted(found)


def test_the_docs_name_commands() -> None:
    assert {"optuna_psms.meta", "optuna_psms.cli", "optuna_psms.benchmarks.bbob"} <= set(
        _commands()
    )


@pytest.mark.parametrize("module", _commands())
def test_the_command_runs(module: str) -> None:
    run = subprocess.run(
        [sys.executable, "-m", module, "--help"], capture_output=True, text=True, cwd=REPO
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith("usage:")
