"""The regression pool of full model selection: :class:`RegressionSpace`.

It is built like the classification pool of :class:`~optuna_psms.fms.FullModelSpace`
(same preprocessing, same ``pre:`` / ``fs:`` parameter names), with feature selection for a
continuous target and regressors instead of classifiers; the model's parameters are stored as
``reg:method`` and ``reg:<name>:<hp>``. There is no threshold post-processing.

================  ==========================================================================
selector          criterion (computed on each training fold only)
================  ==========================================================================
``ftest``         F statistic of the univariate linear regression (``f_regression``)
``mutual_info``   mutual information with the target (``mutual_info_regression``)
``rf``            impurity importance of a 50-tree random-forest regressor
``pca``           principal components (a fraction of the input dimension)
``mask``          the joint per-feature mask (blocks ordered by the F statistic)
================  ==========================================================================

The regressors whose loss depends on the target's scale (kernel ridge, SVR, MLP) are fitted
on the standardised target (``TransformedTargetRegressor`` with a ``StandardScaler``), so
that their hyperparameter ranges (``epsilon``, ``alpha``) mean the same on any data.

:func:`~optuna_psms.fms.target_task` (in :mod:`optuna_psms.fms.target`) is the rule
``optuna-psms select --task auto`` uses to choose between classification and regression.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.compose import TransformedTargetRegressor
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.ensemble import RandomForestRegressor
from sklearn.feature_selection import f_regression
from sklearn.feature_selection import mutual_info_regression
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import ElasticNet
from sklearn.linear_model import Lasso
from sklearn.linear_model import Ridge
from sklearn.neighbors import KNeighborsRegressor
from sklearn.neural_network import MLPRegressor
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR

from optuna_psms.fms._builtin import _build_pca
from optuna_psms.fms._builtin import _describe_mask
from optuna_psms.fms._builtin import _RankDescribe
from optuna_psms.fms._builtin import _suggest_fmax
from optuna_psms.fms._builtin import _suggest_kernel
from optuna_psms.fms._builtin import _suggest_kridge
from optuna_psms.fms._builtin import _suggest_mask
from optuna_psms.fms._builtin import _suggest_mlp
from optuna_psms.fms._builtin import hist_gradient_boosting_kwargs
from optuna_psms.fms._builtin import suggest_hist_gradient_boosting
from optuna_psms.fms.estimators import FeatureMask
from optuna_psms.fms.estimators import keep_all_if_empty
from optuna_psms.fms.estimators import RankSelector
from optuna_psms.fms.estimators import ScoreFunction
from optuna_psms.fms.space import BUILTIN_COMPONENTS
from optuna_psms.fms.space import Component
from optuna_psms.fms.space import ComponentTrial
from optuna_psms.fms.space import DEFAULT_MAX_MASK_PARAMS
from optuna_psms.fms.space import FullModelSpace
from optuna_psms.fms.space import Params
from optuna_psms.fms.space import PREPROCESSORS


FloatArray = NDArray[np.float64]


# ----------------------------------------------------------------------- selectors
def score_f_regression(
    X: FloatArray, y: FloatArray, random_state: int | None = None
) -> FloatArray:
    """F statistic of each feature's univariate linear regression (constant ones score 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        scores, _ = f_regression(X, y)
    return np.nan_to_num(np.asarray(scores, dtype=np.float64), nan=0.0, posinf=0.0)


def score_mutual_info_regression(
    X: FloatArray, y: FloatArray, random_state: int | None = None
) -> FloatArray:
    """Mutual information between each feature and the continuous target."""
    return np.asarray(mutual_info_regression(X, y, random_state=random_state), dtype=np.float64)


def score_forest_regression(
    X: FloatArray, y: FloatArray, random_state: int | None = None
) -> FloatArray:
    """Impurity importance of a 50-tree random-forest regressor."""
    forest = RandomForestRegressor(n_estimators=50, random_state=random_state, n_jobs=1)
    return np.asarray(forest.fit(X, y).feature_importances_, dtype=np.float64)


REGRESSION_SCORES: dict[str, ScoreFunction] = {
    "ftest": score_f_regression,
    "mutual_info": score_mutual_info_regression,
    "rf": score_forest_regression,
}


class RegressionRankSelector(RankSelector):
    """Keep the top-ranked fraction of features for a continuous target.

    :class:`~optuna_psms.fms.RankSelector` with the regression criteria
    (:data:`REGRESSION_SCORES`) and the target as floats; the same column checks.

    Args:
        method: ``"ftest"`` (``f_regression``), ``"mutual_info"`` or ``"rf"`` (random-forest
            regressor importance).
        fmax_frac: Fraction of features kept (at least one).
        random_state: Seed of the randomised criteria.
    """

    _scores = REGRESSION_SCORES
    _task = "regression"


class RegressionFeatureMask(FeatureMask):
    """:class:`~optuna_psms.fms.FeatureMask` whose ``"score"`` blocks follow ``f_regression``.

    Same arguments as :class:`~optuna_psms.fms.FeatureMask`; with ``blocks`` and
    ``grouping="score"`` the features are ordered by decreasing F statistic of the
    univariate regression on the training data. All flags ``False`` keeps every feature,
    as in :class:`~optuna_psms.fms.FeatureMask`.
    """

    def fit(self, X: Any, y: Any = None) -> RegressionFeatureMask:
        if self.blocks is None or self.grouping != "score":
            super().fit(X, y)
            return self
        Z = np.asarray(X, dtype=np.float64)
        order = np.argsort(-score_f_regression(Z, np.asarray(y, dtype=np.float64)), kind="stable")
        support = np.zeros(Z.shape[1], dtype=bool)
        for keep, group in zip(self.blocks, np.array_split(order, len(self.blocks))):
            support[group] = bool(keep)
        self.n_features_in_ = Z.shape[1]
        self.support_ = keep_all_if_empty(support)
        return self


class _RegRankBuild:
    def __init__(self, method: str) -> None:
        self.method = method

    def __call__(self, p: Mapping[str, Any]) -> Any:
        return RegressionRankSelector(method=self.method, fmax_frac=float(p["fmax_frac"]))


def _build_reg_mask(p: Mapping[str, Any]) -> Any:
    if "mask" in p:
        return RegressionFeatureMask(mask=tuple(p["mask"]))
    return RegressionFeatureMask(blocks=tuple(p["blocks"]), grouping=str(p["grouping"]))


# ----------------------------------------------------------------------- regressors
def _scaled_target(regressor: Any) -> Any:
    return TransformedTargetRegressor(regressor=regressor, transformer=StandardScaler())


def _suggest_linear(trial: ComponentTrial) -> Params:
    params: Params = {
        "penalty": trial.suggest_categorical("penalty", ["ridge", "lasso", "elasticnet"]),
        "alpha": trial.suggest_float("alpha", 1e-4, 1e2, log=True),
    }
    if params["penalty"] == "elasticnet":
        params["l1_ratio"] = trial.suggest_float("l1_ratio", 0.05, 0.95)
    return params


def _build_linear(p: Mapping[str, Any]) -> Any:
    alpha = float(p["alpha"])
    if p["penalty"] == "ridge":
        return Ridge(alpha=alpha)
    if p["penalty"] == "lasso":
        return Lasso(alpha=alpha, max_iter=5000)
    return ElasticNet(alpha=alpha, l1_ratio=float(p["l1_ratio"]), max_iter=5000)


def _build_kridge(p: Mapping[str, Any]) -> Any:
    ridge = KernelRidge(
        alpha=float(p["alpha"]),
        kernel=p["kernel"],
        gamma=p.get("gamma"),
        degree=int(p.get("degree", 3)),
        coef0=float(p.get("coef0", 1.0)),
    )
    return _scaled_target(ridge)


def _suggest_svr(trial: ComponentTrial) -> Params:
    params: Params = {
        "C": trial.suggest_float("C", 1e-3, 1e3, log=True),
        "epsilon": trial.suggest_float("epsilon", 1e-3, 1.0, log=True),
    }
    params.update(_suggest_kernel(trial, ["linear", "rbf", "poly", "sigmoid"]))
    return params


def _build_svr(p: Mapping[str, Any]) -> Any:
    svr = SVR(
        C=float(p["C"]),
        epsilon=float(p["epsilon"]),
        kernel=p["kernel"],
        gamma=p.get("gamma", "scale"),
        degree=int(p.get("degree", 3)),
        coef0=float(p.get("coef0", 0.0)),
        max_iter=100_000,
    )
    return _scaled_target(svr)


def _suggest_knn(trial: ComponentTrial) -> Params:
    high = max(1, min(50, trial.context.n_samples))
    return {
        "n_neighbors": trial.suggest_int("n_neighbors", 1, high, log=True),
        "weights": trial.suggest_categorical("weights", ["uniform", "distance"]),
        "p": trial.suggest_int("p", 1, 2),
    }


def _build_knn(p: Mapping[str, Any]) -> Any:
    return KNeighborsRegressor(
        n_neighbors=int(p["n_neighbors"]), weights=str(p["weights"]), p=int(p["p"])
    )


def _suggest_random_forest(trial: ComponentTrial) -> Params:
    return {
        "n_estimators": trial.suggest_int("n_estimators", 10, 300, log=True),
        "max_features": trial.suggest_float("max_features", 0.05, 1.0, log=True),
        "min_samples_leaf": trial.suggest_int("min_samples_leaf", 1, 20, log=True),
    }


def _build_random_forest(p: Mapping[str, Any]) -> Any:
    return RandomForestRegressor(
        n_estimators=int(p["n_estimators"]),
        max_features=float(p["max_features"]),
        min_samples_leaf=int(p["min_samples_leaf"]),
        n_jobs=1,
    )


def _suggest_gradient_boosting(trial: ComponentTrial) -> Params:
    return {
        "n_estimators": trial.suggest_int("n_estimators", 10, 500, log=True),
        "learning_rate": trial.suggest_float("learning_rate", 1e-2, 1.0, log=True),
        "max_depth": trial.suggest_int("max_depth", 1, 6),
        "subsample": trial.suggest_float("subsample", 0.5, 1.0),
    }


def _build_gradient_boosting(p: Mapping[str, Any]) -> Any:
    return GradientBoostingRegressor(
        n_estimators=int(p["n_estimators"]),
        learning_rate=float(p["learning_rate"]),
        max_depth=int(p["max_depth"]),
        subsample=float(p["subsample"]),
    )


def _build_mlp(p: Mapping[str, Any]) -> Any:
    mlp = MLPRegressor(
        hidden_layer_sizes=(int(p["units"]),),
        alpha=float(p["alpha"]),
        learning_rate_init=float(p["learning_rate_init"]),
        max_iter=int(p["max_iter"]),
    )
    return _scaled_target(mlp)


def _suggest_xgboost(trial: ComponentTrial) -> Params:
    """Milletich & Asmar's ranges (Table 2) without the binary-only ones."""
    return {
        "n_estimators": trial.suggest_int("n_estimators", 50, 1000, step=50),
        "max_depth": trial.suggest_int("max_depth", 1, 11),
        "min_child_weight": trial.suggest_int("min_child_weight", 1, 20),
        "learning_rate": trial.suggest_float("learning_rate", 1e-3, 0.5, log=True),
        "subsample": trial.suggest_float("subsample", 0.5, 1.0, log=True),
        "colsample_bytree": trial.suggest_float("colsample_bytree", 0.5, 1.0, log=True),
        "colsample_bylevel": trial.suggest_float("colsample_bylevel", 0.5, 1.0, log=True),
        "colsample_bynode": trial.suggest_float("colsample_bynode", 0.5, 1.0, log=True),
        "gamma": trial.suggest_float("gamma", 1e-4, 5.0, log=True),
        "reg_alpha": trial.suggest_float("reg_alpha", 1e-4, 1.0, log=True),
        "reg_lambda": trial.suggest_float("reg_lambda", 1.0, 4.0, log=True),
    }


def _build_xgboost(p: Mapping[str, Any]) -> Any:
    from xgboost import XGBRegressor

    return XGBRegressor(**dict(p), tree_method="hist", n_jobs=1, verbosity=0)


def _build_hist_gradient_boosting(p: Mapping[str, Any]) -> Any:
    return HistGradientBoostingRegressor(**hist_gradient_boosting_kwargs(p))


def _regression_components() -> dict[str, Component]:
    pre = [BUILTIN_COMPONENTS[f"preprocessor:{n}"] for n in PREPROCESSORS]
    sel = [
        Component(m, "selector", _suggest_fmax, _RegRankBuild(m), _RankDescribe(m))
        for m in REGRESSION_SCORES
    ]
    sel += [
        Component("pca", "selector", _suggest_fmax, _build_pca, _RankDescribe("pca")),
        Component("mask", "selector", _suggest_mask, _build_reg_mask, _describe_mask),
    ]
    reg = [
        Component("linear", "regressor", _suggest_linear, _build_linear),
        Component("kridge", "regressor", _suggest_kridge, _build_kridge),
        Component("svr", "regressor", _suggest_svr, _build_svr),
        Component("knn", "regressor", _suggest_knn, _build_knn),
        Component("random_forest", "regressor", _suggest_random_forest, _build_random_forest),
        Component(
            "gradient_boosting", "regressor", _suggest_gradient_boosting, _build_gradient_boosting
        ),
        Component("mlp", "regressor", _suggest_mlp, _build_mlp),
        Component("xgboost", "regressor", _suggest_xgboost, _build_xgboost),
        Component(
            "hist_gradient_boosting",
            "regressor",
            suggest_hist_gradient_boosting,
            _build_hist_gradient_boosting,
        ),
    ]
    return {f"{c.kind}:{c.name}": c for c in pre + sel + reg}


REGRESSION_COMPONENTS: dict[str, Component] = _regression_components()
REGRESSION_SELECTORS = [c.name for c in REGRESSION_COMPONENTS.values() if c.kind == "selector"]
REGRESSORS = [c.name for c in REGRESSION_COMPONENTS.values() if c.kind == "regressor"]


class RegressionSpace(FullModelSpace):
    """The pool of full models for regression (:class:`FullModelRegressor`'s default space).

    Args:
        regressors: Regressor names or :class:`Component` objects of kind ``"regressor"``.
            Default: all built-ins ``linear`` (ridge, lasso or elastic net; ``alpha``,
            ``l1_ratio``), ``kridge`` (kernel ridge: alpha, kernel, gamma, degree, coef0),
            ``svr`` (C, epsilon, kernel, ...), ``knn`` (neighbours, weights, Minkowski p),
            ``random_forest``, ``gradient_boosting``, ``mlp``, ``xgboost`` and
            ``hist_gradient_boosting`` (learning rate, iterations, leaves, rows per leaf, L2).
        selectors: Feature-selection names or components; ``"none"`` (no selection) is a
            choice when listed and in the default. Default: ``none``, ``ftest``,
            ``mutual_info``, ``rf``, ``pca`` and ``mask``.
        preprocessors: As in :class:`FullModelSpace` (``normalize``, ``standardize``,
            ``shift_scale``).
        max_mask_params: As in :class:`FullModelSpace`.
        mask_grouping: As in :class:`FullModelSpace` (``"score"`` uses the F statistic).

    Example:

        .. testcode::

            import optuna
            from optuna_psms.fms import RegressionSpace

            space = RegressionSpace(regressors=["linear", "knn"], selectors=["none", "ftest"])
            trial = optuna.create_study().ask()
            spec = space.suggest(trial, space.context(n_features=5, n_classes=0, n_samples=50))
            print(spec.describe())

        .. testoutput::
            :hide:
            :options: +ELLIPSIS

            ...
    """

    task = "regression"
    model_kind = "regressor"
    model_prefix = "reg"
    _builtins = REGRESSION_COMPONENTS
    _default_models = REGRESSORS
    _default_selectors = REGRESSION_SELECTORS
    _default_preprocessors = PREPROCESSORS

    def __init__(
        self,
        regressors: Iterable[str | Component] | None = None,
        selectors: Iterable[str | Component] | None = None,
        preprocessors: Iterable[str | Component] | None = None,
        *,
        max_mask_params: int | None = DEFAULT_MAX_MASK_PARAMS,
        mask_grouping: str = "score",
    ) -> None:
        self._setup(regressors, selectors, preprocessors, False, max_mask_params, mask_grouping)

    @property
    def regressor_names(self) -> list[str]:
        return self.classifier_names

    def __repr__(self) -> str:
        return (
            f"RegressionSpace(regressors={self.classifier_names}, "
            f"selectors={self.selector_names}, preprocessors={self.preprocessor_names}, "
            f"max_mask_params={self.max_mask_params}, mask_grouping={self.mask_grouping!r})"
        )
