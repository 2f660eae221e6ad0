"""select's held-out line of a regression says when the model is no better than the mean.

A new user's trial (26 Nov 2026) read "held-out rmse (100 rows the search never saw):
110.0473  (predicting the search rows' mean: 108.9538)" and nothing said that the model was
worse than predicting a constant.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import optuna
import pandas as pd
import pytest

from optuna_psms.fms._join import StudySettings
from optuna_psms.fms.holdout import report_held_out


optuna.logging.set_verbosity(optuna.logging.WARNING)

_Y = np.array([0.0, 1.0, 2.0, 3.0])
_NOTE = ", as good or better: the model does no better than that"


class _Model:
    """A fitted regressor predicting ``value`` everywhere (``None``: the held-out truth)."""

    def __init__(self, value: float | None) -> None:
        self.value = value

    def predict(self, X: Any) -> Any:
        return _Y.copy() if self.value is None else np.full(len(X), self.value)


@pytest.mark.parametrize(
    ("value", "note"),
    [
        (None, ""),  # exact: better than the mean, nothing added
        (100.0, _NOTE),  # far off: the mean does better
        (1.5, _NOTE),  # the search rows' mean itself: a tie
    ],
)
def test_the_line_says_when_the_mean_does_as_well(
    capsys: Any, value: float | None, note: str
) -> None:
    X = pd.DataFrame({"a": np.arange(8.0)})
    study = optuna.create_study()
    study.add_trial(optuna.trial.create_trial(value=1.0, params={}, distributions={}))
    settings = StudySettings(task="regression", metric="rmse", cv=2)
    parts = (X.iloc[:4], _Y, X.iloc[4:], _Y)
    report_held_out(settings, _Model(value), study, study.best_trial, parts)
    line = capsys.readouterr().out.strip()
    assert line.startswith("held-out rmse (4 rows the search never saw): ")
    assert line.endswith(f"(predicting the search rows' mean: 1.1180{note})")


class _SVCChosen:
    """A fitted classifier as the final check leaves it when it chose the SVC."""

    final_choice_ = "svc"
    final_check_ = {"choice": "svc", "svc": {"C": 1000.0, "gamma": 0.001}}
    ensemble_trials_: list[Any] = []

    def predict(self, X: Any) -> Any:
        return np.zeros(len(X), dtype=np.int64)


def test_the_note_names_the_svc_the_final_check_chose() -> None:
    # The dashboard's Best Trial card showed trial 22's XGBoost while the saved model was
    # the final check's SVC, whose C and gamma the note did not give (usertrial7).
    from optuna_dashboard import get_note

    X = pd.DataFrame({"a": np.arange(8.0)})
    y = np.array([0, 1, 0, 1, 0, 0, 1, 1])
    study = optuna.create_study()
    study.add_trial(optuna.trial.create_trial(value=0.25, params={}, distributions={}))
    settings = StudySettings(task="classification", metric="ber", cv=2)
    report_held_out(settings, _SVCChosen(), study, study.best_trial, (X[:4], y[:4], X[4:], y[4:]))
    note = get_note(study)
    assert (
        "ber **0.5000** on 4 rows the search never saw (the grid-tuned RBF SVC (C=1000, "
        "gamma=0.001) the final check chose over the search's pipelines, not the *Best "
        "Trial*'s pipeline)."
    ) in note
