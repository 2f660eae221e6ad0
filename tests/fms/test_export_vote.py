"""export_python of a voting estimator: the user is told the script is the best pipeline only."""

from __future__ import annotations

from typing import Any
import warnings

import optuna
import pytest
from sklearn.datasets import load_iris

from optuna_psms import FullModelSelector
from optuna_psms.fms import FullModelSpace


optuna.logging.set_verbosity(optuna.logging.WARNING)


def _fit(ensemble_top: int) -> FullModelSelector:
    X, y = load_iris(return_X_y=True)
    space = FullModelSpace(classifiers=["naive_bayes", "logistic"], selectors=["none"])
    return FullModelSelector(
        final_check=None,
        space=space,
        sampler="random",
        n_trials=4,
        random_state=0,
        ensemble_top=ensemble_top,
    ).fit(X, y)


def test_export_of_a_vote_warns_and_needs_no_path(tmp_path: Any) -> None:
    # A new user called model.export_python() (TypeError: missing 'path') and expected the
    # script to reproduce the saved model, a vote of 10 (usertrial3, 26 Nov 2026).
    model = _fit(ensemble_top=3)
    assert len(model.ensemble_trials_) == 3
    with pytest.warns(UserWarning, match="writes the best pipeline alone") as caught:
        text = model.export_python()
    (warning,) = [w for w in caught if "best pipeline alone" in str(w.message)]
    assert warning.filename == __file__  # the user's line
    assert "a vote of 3 pipelines" in str(warning.message) and "ensemble_top=1" in str(
        warning.message
    )
    assert "def build_pipeline()" in text and not list(tmp_path.iterdir())
    path = tmp_path / "pipeline.py"
    with pytest.warns(UserWarning, match="best pipeline alone"):
        assert model.export_python(str(path)) == path.read_text()


def test_export_of_a_single_pipeline_does_not_warn() -> None:
    model = _fit(ensemble_top=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert "def build_pipeline()" in model.export_python()
