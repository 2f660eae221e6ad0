"""Losses minimised by full model selection.

Every metric is turned into a loss (lower is better) computed on one validation fold:

* ``"ber"``: balanced error rate, ``1 - balanced_accuracy`` (the PSMS fitness; for two
  classes it is ``(E+ + E-) / 2``, for more classes the mean per-class error).
* ``"error"``: error rate, ``1 - accuracy``.
* ``"auc"``: ``1 - ROC AUC`` (one-vs-rest macro average for more than two classes).
* ``"pi_svm"``: ``1 - PI_SVM``, the performance index of Rojas-Dominguez et al. (2018,
  Eq. 6) combining accuracy and the proportion of support vectors; SVC pipelines only.
* regression (:class:`~optuna_psms.fms.FullModelRegressor`): ``"rmse"`` (root mean
  squared error, default), ``"mae"`` (mean absolute error), ``"mse"`` and ``"r2"``
  (``1 - R^2``).
* any other string: a scikit-learn scorer name (``sklearn.metrics.get_scorer``); the loss
  is the negated score, e.g. ``"f1_macro"`` gives ``-F1`` and ``"neg_log_loss"`` the log
  loss.

A loss reads back as a higher-is-better score by :func:`score_from_loss` (``best_score_``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.metrics import accuracy_score
from sklearn.metrics import balanced_accuracy_score
from sklearn.metrics import get_scorer
from sklearn.metrics import get_scorer_names
from sklearn.metrics import mean_absolute_error
from sklearn.metrics import mean_squared_error
from sklearn.metrics import r2_score
from sklearn.metrics import roc_auc_score


BUILTIN_METRICS = ("ber", "error", "auc", "pi_svm")
REGRESSION_METRICS = ("rmse", "mae", "mse", "r2")
#: The default metric of each task.
DEFAULT_METRICS = {"classification": "ber", "regression": "rmse"}


def shown_score(metric: str) -> tuple[str, float] | None:
    """How the output shows the losses of a scikit-learn scorer ``s`` (minimised as ``-s``):
    ``(name, sign)``, the number shown being ``sign * loss``.

    ``("accuracy", -1.0)``: the score itself, higher is better (not ``-accuracy -0.95``);
    ``("log_loss", 1.0)`` for ``neg_log_loss``: the loss it negates. ``None`` for the built-in
    metrics, whose losses are shown as they are.
    """
    if metric in BUILTIN_METRICS or metric in REGRESSION_METRICS:
        return None
    if metric.startswith("neg_"):
        return metric.removeprefix("neg_"), 1.0
    return metric, -1.0


#: Built-in losses named after what is minimised, not after the metric: ``auc`` minimises
#: ``1-AUC`` (one minus the ROC AUC), so that "CV auc = 0.03" is not read as an AUC of 0.03.
LOSS_NAMES = {"auc": "1-AUC", "pi_svm": "1-PI_SVM", "r2": "1-R^2"}


def shown_loss(metric: str) -> tuple[str, float]:
    """``(name, sign)``: how the output names the losses of ``metric``, the number shown
    being ``sign * loss``.

    A scikit-learn scorer as :func:`shown_score` does (``("accuracy", -1.0)``, higher is
    better; ``("log_loss", 1.0)`` for ``neg_log_loss``); ``auc``, ``pi_svm`` and ``r2`` as
    the loss minimised (``"1-AUC"``, ``"1-PI_SVM"``, ``"1-R^2"``, the names
    ``optuna-psms select`` prints); the other built-in losses by their name (``"ber"``).
    """
    return shown_score(metric) or (LOSS_NAMES.get(metric, metric), 1.0)


#: Losses defined as ``1 - score`` (the classification built-ins; ``"r2"``: ``1 - R^2``).
ONE_MINUS_SCORE = frozenset({"ber", "error", "auc", "pi_svm", "r2"})


def score_from_loss(metric: str, loss: float) -> float:
    """The higher-is-better score of a loss of :func:`optuna_psms.fms.metrics.fold_loss`.

    The losses of :data:`ONE_MINUS_SCORE` are ``1 - score`` (``"ber"``: the score is
    ``1 - BER`` = balanced accuracy, ``"error"``: accuracy, ``"auc"``: ROC AUC,
    ``"pi_svm"``: PI_SVM, ``"r2"``: R^2). Any other loss (a scikit-learn scorer's negated
    value, or an error such as RMSE) is negated: ``"f1_macro"`` gives F1,
    ``"neg_log_loss"`` minus the log loss, as in scikit-learn's search estimators.

    Args:
        metric: A metric name accepted by :func:`optuna_psms.fms.metrics.check_metric`.
        loss: The loss (lower is better).

    Returns:
        The score (higher is better).
    """
    if metric in ONE_MINUS_SCORE:
        return 1.0 - loss
    return -loss


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


def check_metric(metric: str | None, task: str = "classification") -> str:
    """Validate a metric name for ``task``, raising ``ValueError`` for unknown names.

    ``None`` gives the task's default (``"ber"`` or ``"rmse"``).
    """
    if metric is None:
        return DEFAULT_METRICS[task]
    if not isinstance(metric, str):
        raise ValueError(f"metric must be a string; got {metric!r}.")
    own = REGRESSION_METRICS if task == "regression" else BUILTIN_METRICS
    other = BUILTIN_METRICS if task == "regression" else REGRESSION_METRICS
    if metric in own or (metric in get_scorer_names() and metric not in other):
        return metric
    if metric in other:
        raise ValueError(f"metric {metric!r} is not a {task} metric; use one of {', '.join(own)}.")
    from optuna_psms._names import did_you_mean

    # A scorer's name is a name too (acuracy for accuracy).
    hint = did_you_mean(metric, [*own, *(n for n in get_scorer_names() if n not in other)])
    raise ValueError(
        f"unknown metric {metric!r}; {hint}use one of {', '.join(own)} or a "
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
    y_test: NDArray[Any],
    n_classes: int,
) -> float:
    """Loss of a fitted ``estimator`` on one validation fold (lower is better).

    Args:
        metric: A name accepted by :func:`check_metric`.
        estimator: A fitted classifier or pipeline.
        X_test: Validation features.
        y_test: Validation labels encoded as ``0..n_classes-1`` (targets for regression).
        n_classes: Number of classes in the whole problem (0 for regression).

    Returns:
        The loss.
    """
    if metric in REGRESSION_METRICS:
        pred = np.asarray(estimator.predict(X_test), dtype=np.float64).ravel()
        if metric == "rmse":
            return float(np.sqrt(mean_squared_error(y_test, pred)))
        if metric == "mse":
            return float(mean_squared_error(y_test, pred))
        if metric == "mae":
            return float(mean_absolute_error(y_test, pred))
        return float(1.0 - r2_score(y_test, pred))
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


# ------------------------------------------------------------------------- complexity
def scorer_score(estimator: Any, metric: str, X: Any, y: Any, sample_weight: Any = None) -> float:
    """The scikit-learn scorer ``metric`` of a fitted ``estimator`` on ``(X, y)``
    (higher is better), with ``sample_weight`` passed on when given."""
    scorer = get_scorer(metric)
    if sample_weight is None:
        return float(scorer(estimator, X, y))
    return float(scorer(estimator, X, y, sample_weight=sample_weight))


def _unwrap(estimator: Any) -> Any:
    """The innermost fitted model behind pipelines and wrappers."""
    seen: set[int] = set()
    while id(estimator) not in seen:
        seen.add(id(estimator))
        if hasattr(estimator, "steps"):
            estimator = estimator.steps[-1][1]
            continue
        if hasattr(estimator, "estimators_"):  # an ensemble: estimator_ is its template
            return estimator
        for attr in ("regressor_", "estimator_"):
            inner = getattr(estimator, attr, None)
            if inner is not None:
                estimator = inner
                break
        else:
            return estimator
    return estimator


def _leaves_per_tree(estimator: Any) -> float | None:
    trees: list[Any] = []
    forest = getattr(estimator, "estimators_", None)
    if forest is not None:
        trees = list(np.asarray(forest, dtype=object).ravel())
    if trees and all(hasattr(t, "tree_") for t in trees):
        return float(np.mean([t.tree_.n_leaves for t in trees]))
    if hasattr(estimator, "get_booster"):
        dump = estimator.get_booster().get_dump()
        if dump:
            return float(np.mean([tree.count("leaf=") for tree in dump]))
    return None


def model_size(estimator: Any, n_train: int) -> float:
    """Size of a fitted model as a share in ``[0, 1]`` (the complexity measure's model part).

    The rule per model family (after unwrapping pipelines, ``TransformedTargetRegressor``
    and the ``bias`` step):

    * SVMs (SVC, SVR): support vectors / training samples (the PSV of PI_SVM).
    * linear models (``coef_``): share of non-zero coefficients (lasso and elastic net
      below 1, ridge and logistic regression 1).
    * tree ensembles (random forest, gradient boosting, XGBoost): mean leaves per tree /
      training samples, capped at 1.
    * MLP: weights / training samples, capped at 1.
    * Gaussian naive Bayes: ``2 * features * classes`` / training samples, capped at 1.
    * models that keep every training sample (k-NN, kernel ridge) and anything else: 1.

    Args:
        estimator: A fitted model (the last step of a trial's pipeline).
        n_train: Training samples it was fitted on.

    Returns:
        The share (lower is simpler).
    """
    model = _unwrap(estimator)
    n = max(int(n_train), 1)
    if hasattr(model, "n_support_") and hasattr(model, "support_"):
        return float(len(model.support_)) / n
    if hasattr(model, "coef_") and not hasattr(model, "dual_coef_"):
        coef = np.asarray(model.coef_, dtype=np.float64)
        return float(np.count_nonzero(np.abs(coef) > 1e-12)) / max(coef.size, 1)
    leaves = _leaves_per_tree(model)
    if leaves is not None:
        return min(1.0, leaves / n)
    if hasattr(model, "coefs_"):
        weights = sum(int(np.asarray(w).size) for w in model.coefs_)
        return min(1.0, weights / n)
    if hasattr(model, "theta_") and hasattr(model, "var_"):
        return min(1.0, 2.0 * float(np.asarray(model.theta_).size) / n)
    return 1.0


#: Complexity measures of :func:`~optuna_psms.fms.make_objective` (``complexity=``).
COMPLEXITY_MEASURES = ("features", "model", "both")


def complexity_value(measure: str, n_used: float, n_features: int, size: float) -> float:
    """Complexity of a pipeline in ``[0, 1]`` (lower is simpler).

    * ``"features"``: features reaching the model / encoded input features (a selector
      keeping 3 of 30 features gives 0.1; PCA counts its components).
    * ``"model"``: :func:`model_size` of the final model.
    * ``"both"``: the mean of the two.
    """
    features = min(1.0, float(n_used) / max(int(n_features), 1))
    if measure == "features":
        return features
    if measure == "model":
        return float(size)
    if measure == "both":
        return 0.5 * (features + float(size))
    known = ", ".join(COMPLEXITY_MEASURES)
    raise ValueError(f"complexity must be one of {known}; got {measure!r}.")
