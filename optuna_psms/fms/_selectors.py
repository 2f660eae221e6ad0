"""Feature selection of the full-model pool: ranking criteria and column selectors.

The ranking filters (ANOVA F, mutual information, AUC, signal-to-noise, Pearson,
random-forest importance, linear-SVC RFE) of :class:`RankSelector`, PCA extraction with a
fractional size (:class:`PCAExtractor`) and the joint feature mask of Milletich & Asmar
(:class:`FeatureMask`). :mod:`optuna_psms.fms.estimators` re-exports every public name.
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
from sklearn.base import TransformerMixin
from sklearn.decomposition import PCA
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_selection import f_classif
from sklearn.feature_selection import mutual_info_classif
from sklearn.feature_selection import RFE
from sklearn.svm import LinearSVC

from optuna_psms.fms._estimator_base import _EPS
from optuna_psms.fms._estimator_base import _fit_input
from optuna_psms.fms._estimator_base import _input
from optuna_psms.fms._estimator_base import _one_vs_rest
from optuna_psms.fms._estimator_base import FloatArray


# --------------------------------------------------------------------- feature scores
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
