"""``optuna-psms predict --proba`` says when a prediction is not the class of the largest
``proba_`` column (a vote predicts with each member's tuned threshold, its probabilities are
the members' plain mean: a new user saw 13 of 50 rows disagree, unexplained)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import joblib
import numpy as np
import pandas as pd
import pytest

from optuna_psms.cli import main


class ThresholdedVote:
    """A stand-in for a saved vote: predicts 'yes' above 0.2, probability ``x`` of 'yes'."""

    classes_ = np.array(["no", "yes"], dtype=object)
    feature_names_in_ = np.array(["x"], dtype=object)

    def __init__(self) -> None:
        self.ensemble_ = ["member", "member"]

    def predict(self, X: pd.DataFrame) -> np.ndarray[Any, Any]:
        return np.where(X["x"].to_numpy() > 0.2, "yes", "no").astype(object)

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray[Any, Any]:
        p = X["x"].to_numpy(dtype=float)
        return np.column_stack([1.0 - p, p])


@pytest.fixture()
def model_path(tmp_path: Path) -> Path:
    path = tmp_path / "vote.joblib"
    joblib.dump(ThresholdedVote(), path)
    return path


def _predict(model: Path, tmp_path: Path, xs: list[float], capsys: Any) -> tuple[str, str]:
    csv = tmp_path / "new.csv"
    pd.DataFrame({"x": xs}).to_csv(csv, index=False)
    assert main(["predict", "--model", str(model), "--csv", str(csv), "--proba"]) == 0
    out, err = capsys.readouterr()
    return out, err


def test_a_note_counts_the_rows_whose_prediction_is_not_the_larger_proba(
    model_path: Path, tmp_path: Path, capsys: Any
) -> None:
    out, err = _predict(model_path, tmp_path, [0.1, 0.3, 0.7], capsys)
    assert [line.split(",")[0] for line in out.splitlines()] == ["prediction", "no", "yes", "yes"]
    (line,) = err.splitlines()
    assert line.startswith(
        "note: on 1 of 3 rows the prediction is not the class with the largest proba_ column: "
        "the vote of 2 pipelines predicts with each pipeline's own decision threshold"
    ), line


def test_no_note_when_they_agree(model_path: Path, tmp_path: Path, capsys: Any) -> None:
    out, err = _predict(model_path, tmp_path, [0.1, 0.7], capsys)
    assert err == ""
    assert len(out.splitlines()) == 3
