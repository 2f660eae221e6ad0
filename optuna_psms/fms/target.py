"""The target decides the task: regression or classification, and its checks."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
import pandas as pd

from optuna_psms.fms.data import TabularEncoder


FloatArray = NDArray[np.float64]

#: Above this many distinct values (and fewer than 5 samples per value on average) an
#: integer-valued target is taken as continuous by :func:`target_task`.
MAX_CLASSES_AUTO = 20


# ------------------------------------------------------------------------- target checks
def _numeric_target(y: Any) -> NDArray[Any] | None:
    arr = np.asarray(y.to_numpy() if isinstance(y, pd.Series | pd.DataFrame) else y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.ndim != 1 or arr.dtype.kind not in "iuf":
        if arr.ndim == 1 and arr.dtype.kind == "O":
            converted = pd.to_numeric(pd.Series(arr), errors="coerce")
            if bool(converted.notna().all()) and not any(isinstance(v, bool) for v in arr):
                return converted.to_numpy(dtype=np.float64)
        return None
    return arr


#: At most this share of a target's values (and at least one) may be text for the target to
#: count as numbers with stray text (:func:`stray_text`).
STRAY_SHARE = 0.01


def stray_text(y: Any) -> list[tuple[int, Any]]:
    """The ``(position, value)`` of the few values of ``y`` that are not numbers when all the
    others are (at most :data:`STRAY_SHARE` of them, e.g. ``'37,9'`` or ``'?'`` in a column of
    prices); empty otherwise (a numeric target, or text labels)."""
    arr = np.asarray(y.to_numpy() if isinstance(y, pd.Series | pd.DataFrame) else y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.ndim != 1 or arr.dtype.kind not in "OUS" or arr.size == 0:
        return []
    series = pd.Series(arr)
    converted = pd.to_numeric(series, errors="coerce")
    bad = np.flatnonzero((converted.isna() & series.notna()).to_numpy())
    if bad.size == 0 or bad.size > max(1, STRAY_SHARE * arr.size) or bad.size == arr.size:
        return []
    return [(int(i), arr[i]) for i in bad]


def stray_text_message(stray: list[tuple[int, Any]], n: int) -> str:
    """The error naming a numeric target's text values (:func:`stray_text`)."""
    shown = ", ".join(f"{v!r} at position {i}" for i, v in stray[:5])
    more = ", ..." if len(stray) > 5 else ""
    return (
        f"y holds numbers except {len(stray)} of {n} value(s) that are not: {shown}{more}; "
        f"correct them (e.g. a decimal comma) or drop those rows"
    )


def target_task(y: Any) -> str:
    """Guess the task from the target: ``"regression"`` or ``"classification"``.

    The rule: a numeric (not boolean) target is continuous, hence a regression, when it has
    a non-integer value, or more than :data:`MAX_CLASSES_AUTO` (20) distinct values with fewer
    than 5 samples per value on average. Anything else (strings, booleans, a few integer
    codes) is a classification.

    Example:

        .. testcode::

            from optuna_psms.fms import target_task

            assert target_task([0.5, 1.25, 3.0]) == "regression"
            assert target_task([0, 1, 1, 0]) == "classification"
            assert target_task(["a", "b"]) == "classification"
    """
    arr = _numeric_target(y)
    if arr is None and stray_text(y):
        # Numbers with a stray text value ('37,9'): a regression, whose check names the value
        # (as labels, "class '37.9' has only 1 row" hid it; issue 32).
        numbers = pd.to_numeric(pd.Series(np.asarray(y, dtype=object)), errors="coerce")
        arr = numbers.dropna().to_numpy(dtype=np.float64)
    if arr is None or arr.size == 0:
        return "classification"
    values = arr.astype(np.float64)
    finite = values[np.isfinite(values)]
    if finite.size and bool(np.any(finite != np.round(finite))):
        return "regression"
    n_unique = np.unique(finite).size
    if n_unique > MAX_CLASSES_AUTO and arr.size / n_unique < 5:
        return "regression"
    return "classification"


def check_not_continuous(y: Any, cv: int) -> None:
    """Refuse a continuous target for classification with a message naming the regressor.

    Raises:
        ValueError: ``y`` looks continuous (:func:`target_task`) and some value occurs fewer
            than ``cv`` times, so the classifier could not even build stratified folds.
    """
    if target_task(y) != "regression":
        return
    arr = _numeric_target(y)
    if arr is None:  # numbers with stray text
        raise ValueError(stray_text_message(stray_text(y), len(np.asarray(y, dtype=object))))
    _, counts = np.unique(arr, return_counts=True)
    if int(counts.min()) >= cv:
        return
    raise ValueError(
        f"y looks continuous ({counts.size} distinct numeric values in {arr.size} samples), "
        f"not class labels: for regression use optuna_psms.FullModelRegressor (CLI: "
        f"optuna-psms select --task regression)."
    )


def check_regression_data(
    X: Any, y: Any, *, cv: int
) -> tuple[TabularEncoder, FloatArray, FloatArray]:
    """Validate ``X``/``y`` for k-fold regression and encode ``X``.

    Returns:
        ``(encoder, X_encoded, y_float)``.

    Raises:
        ValueError: Empty input, length mismatch, a non-numeric, missing, infinite or constant
            target, fewer samples than ``cv``, or invalid ``cv``.
    """
    if not isinstance(cv, int | np.integer) or isinstance(cv, bool) or cv < 2:
        raise ValueError(f"cv must be an integer >= 2; got {cv!r}.")
    n_x = len(X) if hasattr(X, "__len__") else np.asarray(X).shape[0]
    raw = np.asarray(y.to_numpy() if isinstance(y, pd.Series | pd.DataFrame) else y)
    if raw.ndim == 2 and raw.shape[1] == 1:
        raw = raw.ravel()
    if raw.ndim != 1:
        raise ValueError(f"y must be 1-dimensional; got shape {raw.shape}.")
    if n_x == 0 or raw.size == 0:
        raise ValueError("X and y must not be empty.")
    if n_x != raw.size:
        raise ValueError(f"X and y have different lengths: {n_x} samples in X, {raw.size} in y.")
    if raw.dtype.kind == "b":
        raise ValueError("y is boolean: that is a classification; use FullModelSelector.")
    numeric = _numeric_target(raw)
    stray = stray_text(raw) if numeric is None else []
    if stray:
        raise ValueError(stray_text_message(stray, raw.size))
    if numeric is None:
        raise ValueError(
            f"y is not numeric (dtype {raw.dtype}): regression needs numbers; for class "
            f"labels use FullModelSelector."
        )
    target = numeric.astype(np.float64)
    if np.isnan(target).any():
        raise ValueError("y contains missing values; drop those samples.")
    if np.isinf(target).any():
        raise ValueError("y contains infinite values.")
    if raw.size < cv:
        raise ValueError(f"{raw.size} samples are fewer than the {cv} cross-validation folds.")
    if float(np.ptp(target)) == 0.0:
        # float(): a numpy scalar's repr is "np.float64(1.5)" since numpy 2.
        raise ValueError(f"y is constant ({float(target[0])!r}); there is nothing to regress.")
    encoder = TabularEncoder().fit(X)
    return encoder, encoder.transform(X), target


#: Values of ``optuna-psms select --task``.
TASKS = ("auto", "classification", "regression")


def resolve_task(task: str, y: Any) -> str:
    """``"classification"`` or ``"regression"`` for ``task`` (``"auto"``: :func:`target_task`).

    Raises:
        ValueError: ``task`` is not one of :data:`TASKS`.
    """
    if task not in TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)}; got {task!r}.")
    return target_task(y) if task == "auto" else task
