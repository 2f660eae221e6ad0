"""The predict- and score-time warnings of the fitted models name the user's line.

Each warning's ``filename`` must be this file (the caller of ``predict``, ``score``, ...),
not a module of the package or of scikit-learn, however deep the warning is raised.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

from optuna_psms.fms import FullModelRegressor
from optuna_psms.fms import FullModelSelector
from optuna_psms.fms import FullModelSpace
from optuna_psms.fms.regression import RegressionSpace


def _data(n: int = 60) -> tuple[pd.DataFrame, np.ndarray[Any, Any]]:
    rng = np.random.default_rng(0)
    y = rng.choice(["yes", "no"], n)
    X = pd.DataFrame(
        {"size": rng.normal(size=n) + 2.0 * (y == "yes"), "colour": rng.choice(["r", "b"], n)}
    )
    return X, y


def _unexpected(X: pd.DataFrame) -> pd.DataFrame:
    # An unseen category (the encoder's warning) and an extra column (the column check's).
    new = X.copy()
    new.loc[0, "colour"] = "green"
    new["extra"] = 1.0
    return new


@pytest.fixture(scope="module")
def selector() -> FullModelSelector:
    X, y = _data()
    space = FullModelSpace(classifiers=["logistic"], selectors=["none"])
    return FullModelSelector(final_check=None, space=space, n_trials=2, random_state=0).fit(X, y)


@pytest.fixture(scope="module")
def regressor() -> FullModelRegressor:
    X, _ = _data()
    y = X["size"].to_numpy() * 2.0 + (X["colour"] == "r")
    space = RegressionSpace(regressors=["linear"], selectors=["none"])
    return FullModelRegressor(space=space, n_trials=2, random_state=0).fit(X, y)


def _assert_warns_here(call: Callable[[], Any]) -> None:
    with pytest.warns(UserWarning) as record:
        call()
    messages = [str(w.message) for w in record]
    assert any("not seen in training" in m for m in messages), messages
    assert any("not fitted with; they are ignored" in m for m in messages), messages
    assert record[0].filename == __file__
    assert [w.filename for w in record] == [__file__] * len(record), [
        (w.filename, str(w.message)[:40]) for w in record
    ]


@pytest.mark.parametrize("metric", ["ber", "error", "auc", "pi_svm", "balanced_accuracy"])
def test_selector_warnings_name_the_callers_line(
    selector: FullModelSelector, metric: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    X, y = _data()
    new = _unexpected(X)
    _assert_warns_here(lambda: selector.predict(new))
    _assert_warns_here(lambda: selector.predict_proba(new))
    # score through the built-in metrics, predict_proba (auc) and a scikit-learn scorer
    monkeypatch.setattr(selector, "metric", metric)
    _assert_warns_here(lambda: selector.score(new, y))


@pytest.mark.parametrize("metric", ["rmse", "r2", "neg_median_absolute_error"])
def test_regressor_warnings_name_the_callers_line(
    regressor: FullModelRegressor, metric: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    X, _ = _data()
    new = _unexpected(X)
    _assert_warns_here(lambda: regressor.predict(new))
    monkeypatch.setattr(regressor, "metric", metric)
    _assert_warns_here(lambda: regressor.score(new, X["size"].to_numpy()))
