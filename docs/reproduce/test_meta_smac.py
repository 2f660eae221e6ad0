"""The SMAC parent of the meta-optimisation page (docs/reproduce/meta_smac.py).

SMAC3 is not a dependency of this package: these tests run where it is installed
(``pip install smac``) and are skipped elsewhere.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import optuna
import pytest


pytest.importorskip("smac", reason="SMAC3 is not installed (pip install smac)")

DOCS = Path(__file__).parent


@pytest.fixture
def script(monkeypatch: pytest.MonkeyPatch) -> Any:
    import meta_smac

    return meta_smac


def _tune(script: Any, seed: int) -> optuna.Study:
    from optuna_psms import meta

    parent = script.SmacParent(meta.SPACES["pso"], 6, seed)
    return meta.tune(
        "pso", suite="nine", dim=2, budget=10, seeds=1, n_trials=6,
        functions=["sphere"], outer_sampler=parent,
    )  # fmt: skip


def test_smac_chooses_every_setting_and_hears_every_score(script: Any) -> None:
    study = _tune(script, 0)
    trials = study.trials
    assert [t.state for t in trials] == [optuna.trial.TrialState.COMPLETE] * 6
    values: list[float] = []
    for t in trials:
        assert 0.0 <= t.params["c1"] <= 3.0 and 3 <= t.params["swarm_size"] <= 40
        assert t.params["topology"] in ("global", "ring")
        assert t.value is not None  # a COMPLETE trial
        values.append(t.value)
    parent: Any = study.sampler  # the script's SmacParent (the script is imported untyped)
    # SMAC was told each outer trial's score: its run history holds all six costs.
    history = parent._smac.runhistory
    costs = sorted(history[key].cost for key in history)
    assert costs == pytest.approx(sorted(values))


def test_the_same_seed_chooses_the_same_settings(script: Any) -> None:
    a, b = _tune(script, 1), _tune(script, 1)
    assert [t.params for t in a.trials] == [t.params for t in b.trials]


def test_the_command_prints_the_table(script: Any, capsys: pytest.CaptureFixture[str]) -> None:
    script.main([
        "--tune-suite", "nine", "--report-suite", "nine", "--dim", "2", "--budget", "10",
        "--seeds", "1", "--trials", "4", "--seed", "0", "--functions", "sphere",
    ])  # fmt: skip
    out = capsys.readouterr().out
    assert "tuned on nine by smac (seed 0, 4 outer trials)" in out
    assert "| tuned by smac (seed 0) |" in out
