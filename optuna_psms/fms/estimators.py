"""scikit-learn building blocks of the full-model pool that scikit-learn lacks.

They mirror the CLOP objects of the PSMS paper (Escalante et al., 2009, Tables 1-2):
``normalize`` / ``shift-scale`` preprocessing, ranking filters (AUC, signal-to-noise,
Pearson, ...), PCA extraction with a fractional size, the joint feature mask of Milletich &
Asmar, the ``zarbi`` mean/variance linear classifier, kernel ridge classification and the
``bias`` decision-threshold post-processing.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from typing import Any
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray
from scipy.stats import rankdata
from sklearn.base import BaseEstimator
from sklearn.base import ClassifierMixin
from sklearn.base import clone
from sklearn.base import TransformerMixin
from sklearn.decomposition import PCA
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_selection import f_classif
from sklearn.feature_selection import mutual_info_classif
from sklearn.feature_selection import RFE
from sklearn.kernel_ridge import KernelRidge
from sklearn.svm import LinearSVC
from sklearn.utils.metaestimators import available_if

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


# --------------------------------------------------------------------- feature scores
def _one_vs_rest(y: NDArray[Any]) -> list[NDArray[np.bool_]]:
    classes = np.unique(y)
    if classes.size == 2:
        return [y == classes[1]]
    return [y == c for c in classes]


def score_ftest(X: FloatArray, y: NDArray[Any], random_state: int | None = None) -> FloatArray:
    """ANOVA F statistic per feature (constant features score 0)."""
    scores, _ = f_classif(X, y)
    return np.nan_to_num(np.asarray(scores, dtype=np.float64), nan=0.0, posinf=0.0)


def score_mutual_info(
    X: FloatArray, y: NDArray[Any], random_state: int | None = None
) -> FloatArray:
    """Mutual information between each feature and the label."""
    return np.asarray(mutual_info_classif(X, y, random_state=random_state), dtype=np.float64)


def score_auc(X: FloatArray, y: NDArray[Any], random_state: int | None = None) -> FloatArray:
    """``|AUC - 0.5|`` of each feature used alone as a score (max over one-vs-rest)."""
    ranks = rankdata(X, axis=0)
    best = np.zeros(X.shape[1])
    for pos in _one_vs_rest(y):
        n_pos = int(pos.sum())
        n_neg = pos.size - n_pos
        auc = (ranks[pos].sum(axis=0) - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)
        best = np.maximum(best, np.abs(auc - 0.5))
    return best


def score_s2n(X: FloatArray, y: NDArray[Any], random_state: int | None = None) -> FloatArray:
    """Golub's signal-to-noise ratio ``|mu+ - mu-| / (sigma+ + sigma-)`` (max over OvR)."""
    best = np.zeros(X.shape[1])
    for pos in _one_vs_rest(y):
        a, b = X[pos], X[~pos]
        s2n = np.abs(a.mean(axis=0) - b.mean(axis=0)) / (a.std(axis=0) + b.std(axis=0) + _EPS)
        best = np.maximum(best, s2n)
    return best


def score_pearson(X: FloatArray, y: NDArray[Any], random_state: int | None = None) -> FloatArray:
    """Absolute Pearson correlation between each feature and the class indicator."""
    Xc = X - X.mean(axis=0)
    x_norm = np.sqrt((Xc**2).sum(axis=0)) + _EPS
    best = np.zeros(X.shape[1])
    for pos in _one_vs_rest(y):
        t = pos.astype(np.float64) - pos.mean()
        corr = (Xc.T @ t) / (x_norm * (np.sqrt((t**2).sum()) + _EPS))
        best = np.maximum(best, np.abs(corr))
    return best


def score_random_forest(
    X: FloatArray, y: NDArray[Any], random_state: int | None = None
) -> FloatArray:
    """Impurity importance of a 50-tree random forest."""
    forest = RandomForestClassifier(n_estimators=50, random_state=random_state, n_jobs=1)
    return np.asarray(forest.fit(X, y).feature_importances_, dtype=np.float64)


#: ``score(X, y, random_state)``: one score per feature, higher is kept.
ScoreFunction = Callable[[FloatArray, NDArray[Any], int | None], FloatArray]

SCORE_FUNCTIONS: dict[str, ScoreFunction] = {
    "ftest": score_ftest,
    "mutual_info": score_mutual_info,
    "auc": score_auc,
    "s2n": score_s2n,
    "pearson": score_pearson,
    "rf": score_random_forest,
}


def _n_keep(fraction: float, n_features: int) -> int:
    return int(min(n_features, max(1, round(fraction * n_features))))


class _ColumnSelector(TransformerMixin, BaseEstimator):  # type: ignore[misc]
    """Base class: ``fit`` sets ``support_`` (boolean mask), ``transform`` keeps it."""

    support_: NDArray[np.bool_]

    def transform(self, X: Any) -> FloatArray:
        return _input(self, X)[:, self.support_]

    def get_support(self) -> NDArray[np.bool_]:
        return self.support_.copy()


class RankSelector(_ColumnSelector):
    """Keep the top-ranked fraction of features under a univariate or forest criterion.

    The criteria are those of the task's score table (:data:`SCORE_FUNCTIONS` here;
    :class:`~optuna_psms.fms.RegressionRankSelector` is this selector with the regression
    table and a float target).

    Args:
        method: ``"ftest"``, ``"mutual_info"``, ``"auc"``, ``"s2n"``, ``"pearson"``,
            ``"rf"`` (random-forest importance) or ``"svcrfe"`` (recursive feature
            elimination with a linear SVC, 10 % of the features dropped per step).
        fmax_frac: Fraction of features kept (at least one).
        random_state: Seed for the randomised criteria.
    """

    #: The task's criteria, name -> score function.
    _scores: ClassVar[Mapping[str, ScoreFunction]] = SCORE_FUNCTIONS
    #: ``"classification"``: labels as given, and ``"svcrfe"`` is available.
    _task: ClassVar[str] = "classification"

    def __init__(
        self, method: str = "ftest", fmax_frac: float = 0.5, random_state: int | None = None
    ) -> None:
        self.method = method
        self.fmax_frac = fmax_frac
        self.random_state = random_state

    def fit(self, X: Any, y: Any) -> RankSelector:
        Z = _fit_input(self, X)
        classify = self._task == "classification"
        y_arr = np.asarray(y) if classify else np.asarray(y, dtype=np.float64)
        n = Z.shape[1]
        k = _n_keep(self.fmax_frac, n)
        if classify and self.method == "svcrfe":
            svc = LinearSVC(C=1.0, random_state=self.random_state, max_iter=5000)
            rfe = RFE(svc, n_features_to_select=k, step=0.1).fit(Z, y_arr)
            self.support_ = np.asarray(rfe.support_, dtype=bool)
            return self
        if self.method not in self._scores:
            kind = "" if classify else f"{self._task} "
            raise ValueError(f"unknown {kind}ranking method {self.method!r}")
        scores = self._scores[self.method](Z, y_arr, self.random_state)
        self.scores_ = scores
        support = np.zeros(n, dtype=bool)
        support[np.argsort(-scores, kind="stable")[:k]] = True
        self.support_ = support
        return self


class PCAExtractor(TransformerMixin, BaseEstimator):  # type: ignore[misc]
    """Principal components, keeping a fraction of the input dimension.

    Args:
        fmax_frac: Fraction of ``n_features`` kept as components (at least one, at most
            the number of training samples).
        random_state: Seed of the randomised SVD solver.
    """

    def __init__(self, fmax_frac: float = 0.5, random_state: int | None = None) -> None:
        self.fmax_frac = fmax_frac
        self.random_state = random_state

    def fit(self, X: Any, y: Any = None) -> PCAExtractor:
        Z = _fit_input(self, X)
        k = min(_n_keep(self.fmax_frac, Z.shape[1]), Z.shape[0])
        self.pca_ = PCA(n_components=k, random_state=self.random_state).fit(Z)
        return self

    def transform(self, X: Any) -> FloatArray:
        return np.asarray(self.pca_.transform(_input(self, X)), dtype=np.float64)


def keep_all_if_empty(support: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """The joint mask's rule for an empty selection: all ``False`` keeps every feature.

    ``support`` is returned unchanged when it keeps at least one feature
    (:class:`FeatureMask` says why).
    """
    return support if support.any() else np.ones_like(support, dtype=bool)


class FeatureMask(_ColumnSelector):
    """Joint feature mask: each feature (or block of features) in or out.

    Exactly one of ``mask`` and ``blocks`` is given. With ``mask`` the i-th flag keeps the
    i-th feature. With ``blocks`` the features are first ordered (``grouping="score"``: by
    decreasing ANOVA F score on the data given to :meth:`fit`, so it never sees validation
    folds; ``grouping="index"``: by column position), split into ``len(blocks)`` contiguous
    nearly equal groups, and the j-th flag keeps the j-th group.

    A mask whose flags are all ``False`` keeps **every** feature: it selects nothing, and,
    as in PSMS's decoding of a particle (Escalante et al., 2009, Sec. 3.2: the all-zero
    preprocessing vector is "no preprocessing", feature-selection ID 0 is no selection),
    a stage that selects nothing is not applied. Every flag vector is thus a valid pipeline
    (a sampler may propose the all-``False`` corner; it failed the trial before 26 Nov
    2026); a mask that keeps at least one feature is unchanged by this rule.

    Args:
        mask: One flag per feature.
        blocks: One flag per block.
        grouping: ``"score"`` or ``"index"`` (only with ``blocks``).

    Raises:
        ValueError: In :meth:`fit`, if the mask has the wrong length.
    """

    def __init__(
        self,
        mask: tuple[bool, ...] | None = None,
        blocks: tuple[bool, ...] | None = None,
        grouping: str = "score",
    ) -> None:
        self.mask = mask
        self.blocks = blocks
        self.grouping = grouping

    def fit(self, X: Any, y: Any = None) -> FeatureMask:
        Z = _fit_input(self, X)
        n = Z.shape[1]
        if (self.mask is None) == (self.blocks is None):
            raise ValueError("FeatureMask needs exactly one of mask and blocks")
        if self.mask is not None:
            if len(self.mask) != n:
                raise ValueError(f"mask has {len(self.mask)} flags for {n} features")
            support = np.asarray(self.mask, dtype=bool)
        else:
            assert self.blocks is not None
            if self.grouping == "score":
                order = np.argsort(-score_ftest(Z, np.asarray(y)), kind="stable")
            elif self.grouping == "index":
                order = np.arange(n)
            else:
                raise ValueError(f"grouping must be 'score' or 'index', got {self.grouping!r}")
            support = np.zeros(n, dtype=bool)
            for keep, group in zip(self.blocks, np.array_split(order, len(self.blocks))):
                support[group] = bool(keep)
        self.support_ = keep_all_if_empty(support)
        return self


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
