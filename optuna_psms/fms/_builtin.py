"""The built-in components of the full-model pool: preprocessors, selectors, classifiers.

Each is a :class:`~optuna_psms.fms.Component` (a ``suggest`` and a ``build`` function);
:class:`~optuna_psms.fms.FullModelSpace` (in :mod:`optuna_psms.fms.space`) picks them by
name from :data:`BUILTIN_COMPONENTS`. The functions are module-level so that fitted models
pickle (models pickled before 26 Nov 2026 name them ``optuna_psms.fms.space.<name>``, which
still resolves).
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
import dataclasses
from typing import Any

from sklearn.ensemble import GradientBoostingClassifier
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.ensemble import RandomForestClassifier
from sklearn.kernel_approximation import Nystroem
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from optuna_psms.fms._component import _default_describe
from optuna_psms.fms._component import Component
from optuna_psms.fms._component import ComponentTrial
from optuna_psms.fms._component import Params
from optuna_psms.fms._component import SpaceContext
from optuna_psms.fms.estimators import FeatureMask
from optuna_psms.fms.estimators import KernelRidgeClassifier
from optuna_psms.fms.estimators import MeanVarianceClassifier
from optuna_psms.fms.estimators import Normalize
from optuna_psms.fms.estimators import PCAExtractor
from optuna_psms.fms.estimators import RankSelector
from optuna_psms.fms.estimators import ShiftScale


# ---------------------------------------------------------------- built-in preprocessors
def _suggest_center(trial: ComponentTrial) -> Params:
    return {"center": trial.suggest_categorical("center", [False, True])}


def _build_normalize(p: Mapping[str, Any]) -> Any:
    return Normalize(center=bool(p["center"]))


def _build_standardize(p: Mapping[str, Any]) -> Any:
    return StandardScaler(with_mean=bool(p["center"]))


def _suggest_take_log(trial: ComponentTrial) -> Params:
    return {"take_log": trial.suggest_categorical("take_log", [False, True])}


def _build_shift_scale(p: Mapping[str, Any]) -> Any:
    return ShiftScale(take_log=bool(p["take_log"]))


# -------------------------------------------------------------------- built-in selectors
def _suggest_fmax(trial: ComponentTrial) -> Params:
    low = min(0.5, max(1.0 / max(trial.context.n_features, 1), 1e-3))
    return {"fmax_frac": trial.suggest_float("fmax_frac", low, 1.0, log=True)}


def _rank_builder(method: str) -> Callable[[Mapping[str, Any]], Any]:
    return _RankBuild(method)


@dataclasses.dataclass(frozen=True)
class _RankBuild:
    method: str

    def __call__(self, p: Mapping[str, Any]) -> Any:
        return RankSelector(method=self.method, fmax_frac=float(p["fmax_frac"]))


@dataclasses.dataclass(frozen=True)
class _RankDescribe:
    name: str

    def __call__(self, p: Mapping[str, Any]) -> str:
        return f"{self.name}(fmax_frac={float(p['fmax_frac']):.3g})"


def _build_pca(p: Mapping[str, Any]) -> Any:
    return PCAExtractor(fmax_frac=float(p["fmax_frac"]))


def mask_rule(context: SpaceContext) -> str:
    """Human-readable rule of the joint mask for ``context`` (stored in trial user attrs)."""
    n = context.n_features
    limit = context.max_mask_params
    if limit is None or n <= limit:
        return f"per-feature: {n} parameters fs:mask:<i>, True keeps encoded feature i"
    statistic = "F statistic" if context.task == "regression" else "ANOVA F score"
    order = (
        f"ranked by decreasing {statistic} on each training fold"
        if context.mask_grouping == "score"
        else "in column order"
    )
    return (
        f"blocks: {n} features {order}, split into {limit} contiguous blocks of about "
        f"{n / limit:.0f}; fs:mask:b<j>=True keeps block j (j=0: first block)"
    )


def mask_flag_names(context: SpaceContext) -> list[str]:
    """The joint mask's flags for ``context``, without the ``fs:mask:`` prefix: ``0``, ``1``,
    ... per feature, or ``b0``, ``b1``, ... per block (zero-padded to one width)."""
    limit = context.max_mask_params
    if limit is None or context.n_features <= limit:
        width = len(str(context.n_features - 1))
        return [f"{i:0{width}d}" for i in range(context.n_features)]
    width = len(str(limit - 1))
    return [f"b{j:0{width}d}" for j in range(limit)]


def _suggest_mask(trial: ComponentTrial) -> Params:
    ctx = trial.context
    flags = tuple(
        bool(trial.suggest_categorical(name, [False, True])) for name in mask_flag_names(ctx)
    )
    limit = ctx.max_mask_params
    if limit is None or ctx.n_features <= limit:
        return {"mask": flags}
    return {"blocks": flags, "grouping": ctx.mask_grouping}


def _build_mask(p: Mapping[str, Any]) -> Any:
    if "mask" in p:
        return FeatureMask(mask=tuple(p["mask"]))
    return FeatureMask(blocks=tuple(p["blocks"]), grouping=str(p["grouping"]))


def _describe_mask(p: Mapping[str, Any]) -> str:
    # All False keeps every feature (FeatureMask): said, not left to read as "0 features".
    flags = p["mask"] if "mask" in p else p["blocks"]
    empty = "" if any(flags) else ", none set: keeps all features"
    if "mask" in p:
        return f"mask({sum(flags)}/{len(flags)} features{empty})"
    return f"mask({sum(flags)}/{len(flags)} blocks, {p['grouping']}{empty})"


# ------------------------------------------------------------------ built-in classifiers
def _suggest_none(trial: ComponentTrial) -> Params:
    return {}


def _build_mean_variance(p: Mapping[str, Any]) -> Any:
    return MeanVarianceClassifier()


def _suggest_naive_bayes(trial: ComponentTrial) -> Params:
    return {"var_smoothing": trial.suggest_float("var_smoothing", 1e-12, 1e-1, log=True)}


def _build_naive_bayes(p: Mapping[str, Any]) -> Any:
    return GaussianNB(var_smoothing=float(p["var_smoothing"]))


def _suggest_kernel(trial: ComponentTrial, kernels: Sequence[str]) -> Params:
    params: Params = {"kernel": trial.suggest_categorical("kernel", kernels)}
    if params["kernel"] != "linear":
        params["gamma"] = trial.suggest_float("gamma", 1e-4, 10.0, log=True)
    if params["kernel"] == "poly":
        params["degree"] = trial.suggest_int("degree", 2, 4)
    if params["kernel"] in ("poly", "sigmoid"):
        params["coef0"] = trial.suggest_float("coef0", 0.0, 10.0)
    return params


def _suggest_logistic(trial: ComponentTrial) -> Params:
    params: Params = {"C": trial.suggest_float("C", 1e-3, 1e3, log=True)}
    params.update(_suggest_kernel(trial, ["linear", "rbf", "poly"]))
    return params


def _describe_logistic(p: Mapping[str, Any]) -> str:
    # kernel=linear is plain logistic regression: said as such, not "logistic(kernel=linear)"
    # (a user's trial, 26 Nov 2026); the other kernels (a Nystroem map first) are named.
    if p.get("kernel") == "linear":
        p = {k: v for k, v in p.items() if k != "kernel"}
    return _default_describe("logistic", p)


def _build_logistic(p: Mapping[str, Any]) -> Any:
    logistic = LogisticRegression(C=float(p["C"]), max_iter=2000)
    if p["kernel"] == "linear":
        return logistic
    nystroem = Nystroem(
        kernel=p["kernel"],
        gamma=p.get("gamma"),
        degree=p.get("degree", 3),
        coef0=p.get("coef0", 1.0),
        n_components=100,
    )
    return Pipeline([("nystroem", nystroem), ("logistic", logistic)])


def _suggest_kridge(trial: ComponentTrial) -> Params:
    params: Params = {"alpha": trial.suggest_float("alpha", 1e-4, 1e2, log=True)}
    params.update(_suggest_kernel(trial, ["linear", "rbf", "poly"]))
    return params


def _build_kridge(p: Mapping[str, Any]) -> Any:
    return KernelRidgeClassifier(
        alpha=float(p["alpha"]),
        kernel=p["kernel"],
        gamma=p.get("gamma"),
        degree=p.get("degree", 3),
        coef0=p.get("coef0", 1.0),
    )


def _suggest_gradient_boosting(trial: ComponentTrial) -> Params:
    return {
        "n_estimators": trial.suggest_int("n_estimators", 10, 300, log=True),
        "learning_rate": trial.suggest_float("learning_rate", 1e-2, 1.0, log=True),
        "max_depth": trial.suggest_int("max_depth", 1, 6),
    }


def _build_gradient_boosting(p: Mapping[str, Any]) -> Any:
    return GradientBoostingClassifier(
        n_estimators=int(p["n_estimators"]),
        learning_rate=float(p["learning_rate"]),
        max_depth=int(p["max_depth"]),
    )


def _suggest_mlp(trial: ComponentTrial) -> Params:
    return {
        "units": trial.suggest_int("units", 2, 128, log=True),
        "alpha": trial.suggest_float("alpha", 1e-6, 1.0, log=True),
        "learning_rate_init": trial.suggest_float("learning_rate_init", 1e-4, 1e-1, log=True),
        "max_iter": trial.suggest_int("max_iter", 50, 500, log=True),
    }


def _build_mlp(p: Mapping[str, Any]) -> Any:
    return MLPClassifier(
        hidden_layer_sizes=(int(p["units"]),),
        alpha=float(p["alpha"]),
        learning_rate_init=float(p["learning_rate_init"]),
        max_iter=int(p["max_iter"]),
    )


def _suggest_svc(trial: ComponentTrial) -> Params:
    params: Params = {"C": trial.suggest_float("C", 1e-3, 1e3, log=True)}
    params.update(_suggest_kernel(trial, ["linear", "rbf", "poly", "sigmoid"]))
    return params


def _build_svc(p: Mapping[str, Any]) -> Any:
    return SVC(
        C=float(p["C"]),
        kernel=p["kernel"],
        gamma=p.get("gamma", "scale"),
        degree=int(p.get("degree", 3)),
        coef0=float(p.get("coef0", 0.0)),
        max_iter=100_000,
    )


def _suggest_random_forest(trial: ComponentTrial) -> Params:
    return {
        "n_estimators": trial.suggest_int("n_estimators", 10, 300, log=True),
        "max_features": trial.suggest_float("max_features", 0.01, 1.0, log=True),
        "balanced": trial.suggest_categorical("balanced", [False, True]),
    }


def _build_random_forest(p: Mapping[str, Any]) -> Any:
    return RandomForestClassifier(
        n_estimators=int(p["n_estimators"]),
        max_features=float(p["max_features"]),
        class_weight="balanced" if p["balanced"] else None,
        n_jobs=1,
    )


def _suggest_xgboost(trial: ComponentTrial, min_child_weight: tuple[int, int] = (1, 20)) -> Params:
    """The 14 hyperparameters of Milletich & Asmar, Table 2 (same ranges and scales).

    ``min_child_weight`` is Table 2's range unless a caller gives another (the
    high-dimensional benchmark scales it to its 50-row folds). ``base_score`` (a binary
    prior) and ``scale_pos_weight`` (a binary class weight) are suggested for two classes
    only: XGBoost has no use for them with more (until 26 Nov 2026 a multiclass trial
    carried both, unused).
    """
    low, high = min_child_weight
    params: Params = {
        "n_estimators": trial.suggest_int("n_estimators", 50, 1000, step=50),
        "max_depth": trial.suggest_int("max_depth", 1, 11),
        "min_child_weight": trial.suggest_int("min_child_weight", low, high),
        "max_delta_step": trial.suggest_int("max_delta_step", 0, 3),
        "learning_rate": trial.suggest_float("learning_rate", 1e-3, 0.5, log=True),
        "subsample": trial.suggest_float("subsample", 0.5, 1.0, log=True),
        "colsample_bytree": trial.suggest_float("colsample_bytree", 0.5, 1.0, log=True),
        "colsample_bylevel": trial.suggest_float("colsample_bylevel", 0.5, 1.0, log=True),
        "colsample_bynode": trial.suggest_float("colsample_bynode", 0.5, 1.0, log=True),
        "gamma": trial.suggest_float("gamma", 1e-4, 5.0, log=True),
        "reg_alpha": trial.suggest_float("reg_alpha", 1e-4, 1.0, log=True),
        "reg_lambda": trial.suggest_float("reg_lambda", 1.0, 4.0, log=True),
    }
    if trial.context.n_classes == 2:
        params["base_score"] = trial.suggest_float("base_score", 0.01, 0.99, log=True)
        params["scale_pos_weight"] = trial.suggest_float("scale_pos_weight", 0.1, 10.0, log=True)
    params["_binary"] = trial.context.n_classes == 2
    return params


def _build_xgboost(p: Mapping[str, Any]) -> Any:
    from xgboost import XGBClassifier

    params = {k: v for k, v in p.items() if not k.startswith("_")}
    if not p.get("_binary", True):
        # base_score is a binary prior and scale_pos_weight a binary class weight; XGBoost
        # ignores or rejects them for multi-class objectives (params built before 26 Nov
        # 2026 may still hold them).
        params.pop("base_score", None)
        params.pop("scale_pos_weight", None)
    return XGBClassifier(**params, tree_method="hist", n_jobs=1, verbosity=0)


def suggest_hist_gradient_boosting(trial: ComponentTrial) -> Params:
    """Histogram gradient boosting's main hyperparameters (scikit-learn's defaults inside the
    ranges: learning rate 0.1, 100 iterations, 31 leaves, 20 rows per leaf, no L2)."""
    return {
        "learning_rate": trial.suggest_float("learning_rate", 1e-2, 1.0, log=True),
        "max_iter": trial.suggest_int("max_iter", 10, 1000, log=True),
        "max_leaf_nodes": trial.suggest_int("max_leaf_nodes", 4, 256, log=True),
        "min_samples_leaf": trial.suggest_int("min_samples_leaf", 2, 200, log=True),
        "l2_regularization": trial.suggest_float("l2_regularization", 1e-6, 10.0, log=True),
    }


def _suggest_hist_gradient_boosting(trial: ComponentTrial) -> Params:
    params = suggest_hist_gradient_boosting(trial)
    params["balanced"] = trial.suggest_categorical("balanced", [False, True])
    return params


def hist_gradient_boosting_kwargs(p: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments of ``HistGradientBoosting*`` for parameters ``p``."""
    return {
        "learning_rate": float(p["learning_rate"]),
        "max_iter": int(p["max_iter"]),
        "max_leaf_nodes": int(p["max_leaf_nodes"]),
        "min_samples_leaf": int(p["min_samples_leaf"]),
        "l2_regularization": float(p["l2_regularization"]),
    }


def _build_hist_gradient_boosting(p: Mapping[str, Any]) -> Any:
    # Early stopping is scikit-learn's "auto": on above 10,000 rows (a 10 % validation split).
    return HistGradientBoostingClassifier(
        **hist_gradient_boosting_kwargs(p),
        class_weight="balanced" if p.get("balanced") else None,
    )


def _builtin_components() -> dict[str, Component]:
    pre = [
        Component("normalize", "preprocessor", _suggest_center, _build_normalize),
        Component("standardize", "preprocessor", _suggest_center, _build_standardize),
        Component("shift_scale", "preprocessor", _suggest_take_log, _build_shift_scale),
    ]
    ranking = ["ftest", "mutual_info", "auc", "s2n", "pearson", "rf", "svcrfe"]
    sel = [
        Component(m, "selector", _suggest_fmax, _rank_builder(m), _RankDescribe(m))
        for m in ranking
    ]
    sel += [
        Component("pca", "selector", _suggest_fmax, _build_pca, _RankDescribe("pca")),
        Component("mask", "selector", _suggest_mask, _build_mask, _describe_mask),
    ]
    clf = [
        Component("mean_variance", "classifier", _suggest_none, _build_mean_variance),
        Component("naive_bayes", "classifier", _suggest_naive_bayes, _build_naive_bayes),
        Component(
            "logistic", "classifier", _suggest_logistic, _build_logistic, _describe_logistic
        ),
        Component("kridge", "classifier", _suggest_kridge, _build_kridge),
        Component(
            "gradient_boosting", "classifier", _suggest_gradient_boosting, _build_gradient_boosting
        ),
        Component("mlp", "classifier", _suggest_mlp, _build_mlp),
        Component("svc", "classifier", _suggest_svc, _build_svc),
        Component("random_forest", "classifier", _suggest_random_forest, _build_random_forest),
        Component("xgboost", "classifier", _suggest_xgboost, _build_xgboost),
        Component(
            "hist_gradient_boosting",
            "classifier",
            _suggest_hist_gradient_boosting,
            _build_hist_gradient_boosting,
        ),
    ]
    return {f"{c.kind}:{c.name}": c for c in pre + sel + clf}


BUILTIN_COMPONENTS: dict[str, Component] = _builtin_components()
PREPROCESSORS = [c.name for c in BUILTIN_COMPONENTS.values() if c.kind == "preprocessor"]
SELECTORS = [c.name for c in BUILTIN_COMPONENTS.values() if c.kind == "selector"]
CLASSIFIERS = [c.name for c in BUILTIN_COMPONENTS.values() if c.kind == "classifier"]
