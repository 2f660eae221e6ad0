"""docs/reproduce/psms_threshold.py: the bias step against no threshold and an out-of-fold one."""

from __future__ import annotations

import importlib
from typing import Any

import pytest


# The docs script end to end (a reproduction command of docs/reproduce/reproductions.md on a small
# setting): in the slow set, which .ci/run runs, to keep the README's test command under
# five minutes.
pytestmark = pytest.mark.slow


@pytest.fixture
def script() -> Any:
    return importlib.import_module("psms_threshold")


def test_every_pipeline_is_scored_three_ways_and_the_modes_differ(script: Any) -> None:
    out = script.run("bupa@120", 0)
    assert set(out) == {(p, m) for p in script.pipelines(1) for m in script.MODES}
    assert all(0.0 <= v <= 100.0 for v in out.values())
    # The threshold matters somewhere: the three rules are not one rule under three names.
    assert any(len({out[(p, m)] for m in script.MODES}) > 1 for p in script.pipelines(1))


def test_the_table_has_one_row_per_pipeline(
    script: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    script.main(["--sets", "bupa@120", "--seeds", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("1 splits")
    assert [line.split(" | ")[0] for line in lines[3:]] == [f"| {p}" for p in script.pipelines(1)]
