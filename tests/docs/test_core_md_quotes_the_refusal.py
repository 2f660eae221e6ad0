"""docs/core.md quotes the multi-objective refusal as the sampler raises it (issue 31, item 7)."""

from __future__ import annotations

from pathlib import Path

import optuna
import pytest

from optuna_psms import UMDASampler


def test_the_quoted_refusal_is_the_raised_one() -> None:
    study = optuna.create_study(directions=["minimize", "minimize"], sampler=UMDASampler(seed=0))
    with pytest.raises(ValueError) as info:
        study.ask()
    page = Path(__file__).resolve().parents[2] / "docs" / "core.md"
    text = " ".join(page.read_text().split())
    assert f"ValueError: {info.value}" in text
