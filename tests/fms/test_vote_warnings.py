"""A vote's members predict without numpy's floating-point warnings: a member whose scores
are not finite abstains, so ``RuntimeWarning: divide by zero encountered in log`` from inside
it (naive Bayes on a column that ended constant) said nothing true about the model; the
docstring example of ``FullModelSelector`` printed three (a new user's trial, 26 Nov 2026).
Python warnings of the members (an unseen category) still pass."""

from __future__ import annotations

from typing import Any
import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from optuna_psms.fms._ensemble import vote_codes
from optuna_psms.fms._ensemble import vote_proba


def _members(n_classes: int) -> tuple[list[Any], np.ndarray[Any, Any]]:
    rng = np.random.default_rng(0)
    y = np.arange(60) % n_classes
    X = rng.normal(size=(60, 2)) + y[:, None]
    good = make_pipeline(LogisticRegression()).fit(X, y)
    # A constant column and no smoothing: zero variances, so log(0) and 0/0 when predicting.
    constant = make_pipeline(
        FunctionTransformer(lambda Z: np.zeros_like(Z)), GaussianNB(var_smoothing=0.0)
    ).fit(X, y)
    return [good, constant, good], X


@pytest.mark.parametrize("n_classes", [2, 3])
def test_the_vote_issues_no_runtime_warning(n_classes: int) -> None:
    members, X = _members(n_classes)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        codes = vote_codes(members, X, n_classes)
        proba = vote_proba(members, X, n_classes)
    np.testing.assert_array_equal(codes, members[0].predict(X))
    assert np.isfinite(proba).all()


def test_a_members_python_warning_still_passes() -> None:
    members, X = _members(2)

    def noisy(Z: Any) -> Any:
        warnings.warn("column 'c': 1 value(s) not seen in training", UserWarning, stacklevel=1)
        return Z

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # fit transforms too
        loud = make_pipeline(FunctionTransformer(noisy), LogisticRegression())
        loud.fit(X, np.arange(60) % 2)
    with pytest.warns(UserWarning, match="not seen in training"):
        vote_codes([members[0], loud], X, 2)
