"""docs/reproduce/psms_caruana.py: ensemble selection over a full-model search's best trials."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest


# The docs script end to end (a reproduction command of docs/reproduce/reproductions.md on a small
# setting): in the slow set, which .ci/run runs, to keep the README's test command under
# five minutes.
pytestmark = pytest.mark.slow


@pytest.fixture
def script() -> Any:
    return importlib.import_module("psms_caruana")


def test_greedy_selection_takes_what_lowers_the_out_of_fold_error(script: Any) -> None:
    y = np.array([0, 0, 1, 1])
    right = np.array([0.2, 0.2, 0.8, 0.8])
    half = np.array([0.2, 0.8, 0.8, 0.8])  # one error
    other = np.array([0.8, 0.2, 0.2, 0.8])  # two errors
    assert script.ber01(y, right) == 0.0 and script.ber01(y, half) == 25.0
    # The perfect member is chosen first, also when ranked last.
    assert script.greedy(np.array([half, other, right]), y, 1) == {2: 1}
    # Later steps may add members that leave the ensemble's error as it is; ties go to the
    # better-ranked (earlier) member.
    assert script.greedy(np.array([half, other, right]), y, 3) == {2: 2, 0: 1}
    assert script.greedy(np.array([half, half]), y, 2) == {0: 2}
    # A member that adds an error is not taken while one that keeps the error exists.
    assert script.greedy(np.array([other, right]), y, 2) == {1: 2}


def test_a_run_scores_the_ensemble_of_its_search(script: Any) -> None:
    row = script.run("bupa@120", 0, "random", 8, pool=4, steps=3)
    assert row["trials"] == 8 and row["pool"] == 4
    assert sum(row["chosen"].values()) == 3 and 1 <= len(row["chosen"]) <= 3
    assert 0.0 <= row["test_ber"] <= 100.0 and 0.0 <= row["oof_ber"] <= 100.0
