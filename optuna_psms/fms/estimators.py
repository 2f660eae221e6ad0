"""scikit-learn building blocks of the full-model pool that scikit-learn lacks.

They mirror the CLOP objects of the PSMS paper (Escalante et al., 2009, Tables 1-2):
``normalize`` / ``shift-scale`` preprocessing, ranking filters (AUC, signal-to-noise,
Pearson, ...), PCA extraction with a fractional size, the joint feature mask of Milletich &
Asmar, the ``zarbi`` mean/variance linear classifier, kernel ridge classification and the
``bias`` decision-threshold post-processing.

The feature-selection ones (ranking criteria, :class:`RankSelector`, :class:`PCAExtractor`,
:class:`FeatureMask`) are defined in :mod:`optuna_psms.fms._selectors` and importable from
here too, as before 26 Nov 2026 (models pickled then name them
``optuna_psms.fms.estimators.<name>``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import BaseEstimator
from sklearn.base import ClassifierMixin
from sklearn.base import clone
from sklearn.base import TransformerMixin
from sklearn.kernel_ridge import KernelRidge
from sklearn.utils.metaestimators import available_if

from optuna_psms.fms._estimator_base import _as_float
from optuna_psms.fms._estimator_base import _EPS
from optuna_psms.fms._estimator_base import _fit_input
from optuna_psms.fms._estimator_base import _input
from optuna_psms.fms._estimator_base import _one_vs_rest
from optuna_psms.fms._estimator_base import FloatArray as FloatArray
from optuna_psms.fms._selectors import FeatureMask as FeatureMask
from optuna_psms.fms._selectors import keep_all_if_empty as keep_all_if_empty
from optuna_psms.fms._selectors import PCAExtractor as PCAExtractor
from optuna_psms.fms._selectors import RankSelector as RankSelector
from optuna_psms.fms._selectors import score_auc as score_auc
from optuna_psms.fms._selectors import score_ftest as score_ftest
from optuna_psms.fms._selectors import SCORE_FUNCTIONS as SCORE_FUNCTIONS
from optuna_psms.fms._selectors import score_mutual_info as score_mutual_info
from optuna_psms.fms._selectors import score_pearson as score_pearson
from optuna_psms.fms._selectors import score_random_forest as score_random_forest
from optuna_psms.fms._selectors import score_s2n as score_s2n
from optuna_psms.fms._selectors import ScoreFunction as ScoreFunction


# --------------------------------------------------------------------------- preprocessing
class Normalize(TransformerMixin, BaseEstimator):  # type: ignore[misc]
    """Normalise each sample (row) to unit Euclidean norm, optionally centring it first.

    Args:
        center: Subtract each row's mean before scaling (CLOP ``normalize(center)``).
    """

    def __init__(self, center: bool = False) -> None:
        self.center = center

    def fit(self, X: Any, y: Any = None) -> Normalize:
        _fit_input(self, X)
        return self

    def transform(self, X: Any) -> FloatArray:
        Z = _input(self, X)
        if self.center:
            Z = Z - Z.mean(axis=1, keepdims=True)
        norm = np.linalg.norm(Z, axis=1, keepdims=True)
        return Z / np.where(norm > 0, norm, 1.0)


class ShiftScale(TransformerMixin, BaseEstimator):  # type: ignore[misc]
    """Shift each feature to start at 0 and scale it to ``[0, 1]``, optionally log it.

    Args:
        take_log: Apply ``log(1 + x)`` after the shift and scale (values below the training
            minimum are clipped to 0 first).
    """

    def __init__(self, take_log: bool = False) -> None:
        self.take_log = take_log

    def fit(self, X: Any, y: Any = None) -> ShiftScale:
        Z = _fit_input(self, X)
        self.min_ = Z.min(axis=0)
        span = Z.max(axis=0) - self.min_
        self.scale_ = np.where(span > 0, span, 1.0)
        return self

    def transform(self, X: Any) -> FloatArray:
        Z = (_input(self, X) - self.min_) / self.scale_
        if self.take_log:
            Z = np.log1p(np.maximum(Z, 0.0))
        return _as_float(Z)


# --------------------------------------------------------------------------- classifiers
class _PredictByDecision:
    """``predict`` from ``decision_function``: its sign (two classes) or its argmax."""

    classes_: NDArray[Any]

    def decision_function(self, X: Any) -> FloatArray:
        raise NotImplementedError

    def predict(self, X: Any) -> NDArray[Any]:
        dec = self.decision_function(X)
        if self.classes_.size == 2:
            return np.asarray(self.classes_[(dec > 0).astype(int)])
        return np.asarray(self.classes_[np.argmax(dec, axis=1)])


class MeanVarianceClassifier(_PredictByDecision, ClassifierMixin, BaseEstimator):  # type: ignore[misc]
    """Linear classifier from class means and variances (CLOP ``zarbi``, Golub et al.).

    Weights are the signal-to-noise ratios ``(mu+ - mu-) / (sigma+ + sigma-)`` and the bias
    puts the boundary half-way between the class means; one-vs-rest for more classes.
    """

    def fit(self, X: Any, y: Any) -> MeanVarianceClassifier:
        Z = _fit_input(self, X)
        y_arr = np.asarray(y)
        self.classes_ = np.unique(y_arr)
        coefs, intercepts = [], []
        for pos in _one_vs_rest(y_arr):
            a, b = Z[pos], Z[~pos]
            mu_a, mu_b = a.mean(axis=0), b.mean(axis=0)
            w = (mu_a - mu_b) / (a.std(axis=0) + b.std(axis=0) + _EPS)
            coefs.append(w)
            intercepts.append(-float(w @ (mu_a + mu_b)) / 2.0)
        self.coef_ = np.vstack(coefs)
        self.intercept_ = np.asarray(intercepts)
        return self

    def decision_function(self, X: Any) -> FloatArray:
        dec = _as_float(_input(self, X) @ self.coef_.T + self.intercept_)
        return dec.ravel() if self.classes_.size == 2 else dec


class KernelRidgeClassifier(_PredictByDecision, ClassifierMixin, BaseEstimator):  # type: ignore[misc]
    """Kernel ridge regression on ``+-1`` class indicators (CLOP ``kridge``).

    Inputs and targets are centred on the training means, which gives the model an
    unpenalised intercept (``KernelRidge`` alone has none).

    Args:
        alpha: Ridge shrinkage.
        kernel: ``"linear"``, ``"rbf"``, ``"poly"`` or ``"sigmoid"``.
        gamma: Kernel coefficient.
        degree: Polynomial degree.
        coef0: Independent kernel term.
    """

    def __init__(
        self,
        alpha: float = 1.0,
        kernel: str = "rbf",
        gamma: float | None = None,
        degree: int = 3,
        coef0: float = 1.0,
    ) -> None:
        self.alpha = alpha
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0

    def fit(self, X: Any, y: Any) -> KernelRidgeClassifier:
        Z = _fit_input(self, X)
        y_arr = np.asarray(y)
        self.classes_ = np.unique(y_arr)
        targets = np.column_stack([np.where(p, 1.0, -1.0) for p in _one_vs_rest(y_arr)])
        # Centre inputs and targets so that the model has an (unpenalised) intercept.
        self.x_mean_ = Z.mean(axis=0)
        self.y_mean_ = targets.mean(axis=0)
        self.ridge_ = KernelRidge(
            alpha=self.alpha,
            kernel=self.kernel,
            gamma=self.gamma,
            degree=self.degree,
            coef0=self.coef0,
        ).fit(Z - self.x_mean_, targets - self.y_mean_)
        return self

    def decision_function(self, X: Any) -> FloatArray:
        dec = np.asarray(self.ridge_.predict(_input(self, X) - self.x_mean_), dtype=np.float64)
        dec = _as_float(dec.reshape(dec.shape[0], -1) + self.y_mean_)
        return dec.ravel() if self.classes_.size == 2 else dec


# ----------------------------------------------------------------------- post-processing
def _binary_scores(estimator: Any, X: FloatArray) -> tuple[FloatArray, float]:
    """Positive-class scores and their neutral threshold (0.5 or 0)."""
    if hasattr(estimator, "decision_function"):
        return np.asarray(estimator.decision_function(X), dtype=np.float64).ravel(), 0.0
    proba = np.asarray(estimator.predict_proba(X), dtype=np.float64)
    return proba[:, 1], 0.5


def best_ber_threshold(scores: FloatArray, positive: NDArray[np.bool_], default: float) -> float:
    """Threshold ``t`` (predict positive when ``score >= t``) minimising the BER.

    Candidates are the midpoints between consecutive distinct scores plus one value below
    and one above all of them; among equally good candidates the one closest to
    ``default`` is taken, so a classifier that is already optimal keeps its threshold.
    """
    values = np.unique(scores)
    if values.size == 1:
        return default
    candidates = np.concatenate(
        ([values[0] - 1.0], (values[:-1] + values[1:]) / 2.0, [values[-1] + 1.0])
    )
    pos_sorted = np.sort(scores[positive])
    neg_sorted = np.sort(scores[~positive])
    n_pos, n_neg = pos_sorted.size, neg_sorted.size
    if n_pos == 0 or n_neg == 0:
        return default
    # predicted positive: score >= t
    tp = n_pos - np.searchsorted(pos_sorted, candidates, side="left")
    fp = n_neg - np.searchsorted(neg_sorted, candidates, side="left")
    ber = 0.5 * ((n_pos - tp) / n_pos + fp / n_neg)
    best = np.flatnonzero(ber <= ber.min() + 1e-12)
    return float(candidates[best[np.argmin(np.abs(candidates[best] - default))]])


class BiasClassifier(ClassifierMixin, BaseEstimator):  # type: ignore[misc]
    """Decision-threshold tuning, the PSMS ``bias`` post-processing step.

    For a binary problem the wrapped classifier is fitted and the threshold on its
    continuous output (``decision_function``, else ``predict_proba``) that minimises the
    balanced error rate *on the training data* is stored; ``predict`` then uses it. With more
    than two classes the step is a pass-through (no threshold is tuned).

    Args:
        estimator: The classifier to post-process.
    """

    def __init__(self, estimator: Any) -> None:
        self.estimator = estimator

    def fit(self, X: Any, y: Any) -> BiasClassifier:
        Z = _fit_input(self, X)
        self.estimator_ = clone(self.estimator).fit(Z, y)
        self.classes_ = self.estimator_.classes_
        self.threshold_: float | None = None
        if len(self.classes_) == 2:
            scores, default = _binary_scores(self.estimator_, Z)
            positive = np.asarray(y) == self.classes_[1]
            self.threshold_ = best_ber_threshold(scores, positive, default)
        return self

    def predict(self, X: Any) -> NDArray[Any]:
        Z = _input(self, X)
        if self.threshold_ is None:
            return np.asarray(self.estimator_.predict(Z))
        scores, _ = _binary_scores(self.estimator_, Z)
        return np.asarray(self.classes_[(scores >= self.threshold_).astype(int)])

    def _has_proba(self) -> bool:
        return hasattr(
            self.estimator_ if hasattr(self, "estimator_") else self.estimator, "predict_proba"
        )

    @available_if(_has_proba)  # type: ignore[untyped-decorator]
    def predict_proba(self, X: Any) -> FloatArray:
        """Probabilities of the wrapped classifier (the threshold does not change them)."""
        return np.asarray(self.estimator_.predict_proba(_input(self, X)), dtype=np.float64)

    def _has_decision(self) -> bool:
        return hasattr(
            self.estimator_ if hasattr(self, "estimator_") else self.estimator, "decision_function"
        )

    @available_if(_has_decision)  # type: ignore[untyped-decorator]
    def decision_function(self, X: Any) -> FloatArray:
        """Wrapped decision values, shifted by the tuned threshold for binary problems."""
        Z = _input(self, X)
        dec = np.asarray(self.estimator_.decision_function(Z), dtype=np.float64)
        if self.threshold_ is not None:
            scores, _ = _binary_scores(self.estimator_, Z)
            return scores - self.threshold_
        return dec
