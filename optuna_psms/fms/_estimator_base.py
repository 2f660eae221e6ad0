"""Input handling shared by the estimators of the full-model pool.

:func:`_fit_input` records the training columns, :func:`_input` checks new data against
them; both return float arrays. :func:`_one_vs_rest` gives the class indicators the
one-vs-rest criteria and classifiers loop over.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from optuna_psms.fms._validation import check_features
from optuna_psms.fms._validation import record_features


FloatArray = NDArray[np.float64]
_EPS = 1e-12


def _as_float(X: Any) -> FloatArray:
    return np.asarray(X, dtype=np.float64)


def _fit_input(estimator: Any, X: Any) -> FloatArray:
    """Record ``n_features_in_`` / ``feature_names_in_`` and return ``X`` as floats."""
    record_features(estimator, X)
    return _as_float(X)


def _input(estimator: Any, X: Any) -> FloatArray:
    """``X`` checked against the training columns (by name for DataFrames), as floats."""
    return _as_float(check_features(estimator, X))


def _one_vs_rest(y: NDArray[Any]) -> list[NDArray[np.bool_]]:
    classes = np.unique(y)
    if classes.size == 2:
        return [y == classes[1]]
    return [y == c for c in classes]
