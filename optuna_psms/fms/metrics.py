"""Losses minimised by full model selection.

Every metric is turned into a loss (lower is better) computed on one validation fold:

* ``"ber"``: balanced error rate, ``1 - balanced_accuracy`` (the PSMS fitness; for two
  classes it is ``(E+ + E-) / 2``, for more classes the mean per-class error).
* ``"error"``: error rate, ``1 - accuracy``.
* ``"auc"``: ``1 - ROC AUC`` (one-vs-rest macro average for more than two classes).
* ``"pi_svm"``: ``1 - PI_SVM``, the performance index of Rojas-Dominguez et al. (2018,
  Eq. 6) combining accuracy and the proportion of support vectors; SVC pipelines only.
* any other string: a scikit-learn scorer name (``sklearn.metrics.get_scorer``); the loss
  is the negated score, e.g. ``"f1_macro"`` gives ``-F1`` and ``"neg_log_loss"`` the log
  loss.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.metrics import accuracy_score
from sklearn.metrics import balanced_accuracy_score
from sklearn.metrics import get_scorer
from sklearn.metrics import get_scorer_names
from sklearn.metrics import roc_auc_score


BUILTIN_METRICS = ("ber", "error", "auc", "pi_svm")


def balanced_error_rate(y_true: Any, y_pred: Any) -> float:
    """Balanced error rate, the mean of the per-class error rates.

    Args:
        y_true: True labels.
        y_pred: Predicted labels.

    Returns:
        ``1 - balanced_accuracy_score(y_true, y_pred)``.

    Example:

        .. testcode::

            from optuna_psms.fms import balanced_error_rate

            # class 0: 1 of 4 wrong, class 1: 0 of 2 wrong -> (0.25 + 0) / 2
            assert balanced_error_rate([0, 0, 0, 0, 1, 1], [0, 0, 0, 1, 1, 1]) == 0.125
    """
    return float(1.0 - balanced_accuracy_score(y_true, y_pred))


def pi_svm(accuracy: float, psv: float, *, kappa: float = 0.1, eps: float = 1e-9) -> float:
    """Performance index for SVM classifiers (Rojas-Dominguez et al., 2018, Eq. 6).

    ``PI = exp(-kappa * (PSV + (100 - Acc)^2) / (200 - PSV - Acc + eps))`` with accuracy and
    the proportion of support vectors (PSV) in percent. It lies in ``[0, 1]``; 1 is a
    perfect classifier with few support vectors.

    Args:
        accuracy: Accuracy in percent (0-100).
        psv: Percentage of training samples that are support vectors (0-100).
        kappa: Shape constant (0.1 in the paper).
        eps: Guard against division by zero.

    Returns:
        The index (higher is better).

    Example:

        .. testcode::

            from optuna_psms.fms import pi_svm

            assert pi_svm(100.0, 0.0) == 1.0
            assert pi_svm(90.0, 20.0) > pi_svm(90.0, 60.0)
    """
    value = -kappa * (psv + (100.0 - accuracy) ** 2) / (200.0 - psv - accuracy + eps)
    return float(np.exp(value))


def check_metric(metric: str) -> str:
    """Validate a metric name, raising ``ValueError`` for unknown names."""
    if not isinstance(metric, str):
        raise ValueError(f"metric must be a string; got {metric!r}.")
    if metric in BUILTIN_METRICS or metric in get_scorer_names():
        return metric
    raise ValueError(
        f"unknown metric {metric!r}; use one of {', '.join(BUILTIN_METRICS)} or a "
        f"scikit-learn scorer name (sklearn.metrics.get_scorer_names())."
    )


def continuous_scores(estimator: Any, X: NDArray[np.float64], n_classes: int) -> NDArray[Any]:
    """Scores for ROC AUC: positive-class scores (binary) or class probabilities."""
    if hasattr(estimator, "predict_proba"):
        try:
            proba = np.asarray(estimator.predict_proba(X), dtype=np.float64)
        except AttributeError:  # e.g. SVC(probability=False) behind a wrapper
            proba = None
        if proba is not None:
            return proba[:, 1] if n_classes == 2 else proba
    if hasattr(estimator, "decision_function"):
        dec = np.asarray(estimator.decision_function(X), dtype=np.float64)
        if n_classes == 2:
            return dec.ravel()
        shifted = np.exp(dec - dec.max(axis=1, keepdims=True))
        return np.asarray(shifted / shifted.sum(axis=1, keepdims=True))
    raise ValueError("the classifier has neither predict_proba nor decision_function")


def _support_vector_fraction(estimator: Any) -> float | None:
    """Fraction of training samples that are support vectors, if ``estimator`` is an SVM."""
    seen: set[int] = set()
    while estimator is not None and id(estimator) not in seen:
        seen.add(id(estimator))
        if hasattr(estimator, "n_support_") and hasattr(estimator, "shape_fit_"):
            return float(np.sum(estimator.n_support_)) / float(estimator.shape_fit_[0])
        if hasattr(estimator, "steps"):
            estimator = estimator.steps[-1][1]
        else:
            estimator = getattr(estimator, "estimator_", None)
    return None


def fold_loss(
    metric: str,
    estimator: Any,
    X_test: NDArray[np.float64],
    y_test: NDArray[np.int64],
    n_classes: int,
) -> float:
    """Loss of a fitted ``estimator`` on one validation fold (lower is better).

    Args:
        metric: A name accepted by :func:`check_metric`.
        estimator: A fitted classifier or pipeline.
        X_test: Validation features.
        y_test: Validation labels encoded as ``0..n_classes-1``.
        n_classes: Number of classes in the whole problem.

    Returns:
        The loss.
    """
    if metric == "ber":
        return balanced_error_rate(y_test, estimator.predict(X_test))
    if metric == "error":
        return float(1.0 - accuracy_score(y_test, estimator.predict(X_test)))
    if metric == "auc":
        scores = continuous_scores(estimator, X_test, n_classes)
        if n_classes == 2:
            return float(1.0 - roc_auc_score(y_test, scores))
        auc = roc_auc_score(y_test, scores, multi_class="ovr", labels=np.arange(n_classes))
        return float(1.0 - auc)
    if metric == "pi_svm":
        fraction = _support_vector_fraction(estimator)
        if fraction is None:
            raise ValueError(
                "metric 'pi_svm' needs an SVM classifier (with n_support_); restrict the "
                "space with FullModelSpace(classifiers=['svc'])"
            )
        acc = 100.0 * float(accuracy_score(y_test, estimator.predict(X_test)))
        return 1.0 - pi_svm(acc, 100.0 * fraction)
    return -float(get_scorer(metric)(estimator, X_test, y_test))
