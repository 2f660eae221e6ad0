"""The full-model search space: a pool of components and their Optuna suggestions.

A full model (Escalante et al., 2009) is a chain

    [preprocessing] -> [feature selection] -> [preprocessing] -> classifier [-> bias]

where preprocessing is any combination of the preprocessors in a fixed order, applied
either before or after the (at most one) feature-selection method, and ``bias`` tunes the
decision threshold. Every choice and hyperparameter is an ordinary ``trial.suggest_*`` call
with a readable, component-prefixed name, so any Optuna sampler can search the space:

============================  =========================================================
parameter                     meaning
============================  =========================================================
``pre:<name>``                preprocessor ``<name>`` on/off (``[False, True]``)
``pre:<name>:<hp>``           its hyperparameters (only when on)
``pre:before_fs``             preprocess before (True) or after feature selection
``fs:method``                 ``"none"`` or a feature-selection component
``fs:<name>:<hp>``            its hyperparameters (``fs:mask:<i>`` for the joint mask)
``clf:method``                the classifier
``clf:<name>:<hp>``           its hyperparameters
``post:bias``                 decision-threshold tuning on/off (binary problems)
============================  =========================================================

The pool can be restricted by name and extended with :class:`Component` objects, each a
``suggest(trial) -> params`` and a ``build(params) -> estimator`` callable.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
import dataclasses
from typing import Any
from typing import Literal

import optuna
from sklearn.base import BaseEstimator
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.ensemble import RandomForestClassifier
from sklearn.kernel_approximation import Nystroem
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from optuna_psms.fms.estimators import BiasClassifier
from optuna_psms.fms.estimators import FeatureMask
from optuna_psms.fms.estimators import KernelRidgeClassifier
from optuna_psms.fms.estimators import MeanVarianceClassifier
from optuna_psms.fms.estimators import Normalize
from optuna_psms.fms.estimators import PCAExtractor
from optuna_psms.fms.estimators import RankSelector
from optuna_psms.fms.estimators import ShiftScale


Kind = Literal["preprocessor", "selector", "classifier", "regressor"]
Params = dict[str, Any]

#: Default number of joint-mask parameters above which features are grouped into blocks.
DEFAULT_MAX_MASK_PARAMS = 100


@dataclasses.dataclass(frozen=True)
class SpaceContext:
    """What a component may need to know about the data when it suggests.

    Attributes:
        n_features: Number of (encoded) input features.
        n_classes: Number of classes.
        n_samples: Number of training samples of a fold (approximately).
        max_mask_params: Joint-mask parameter limit (``None``: one per feature).
        mask_grouping: Block ordering rule of the joint mask (``"score"`` or ``"index"``).
        task: ``"classification"`` or ``"regression"`` (``n_classes`` is 0 for regression).
    """

    n_features: int
    n_classes: int
    n_samples: int
    max_mask_params: int | None = DEFAULT_MAX_MASK_PARAMS
    mask_grouping: str = "score"
    task: str = "classification"


class ComponentTrial:
    """A view of an Optuna trial that prefixes parameter names with a component prefix.

    A component written as ``trial.suggest_float("C", ...)`` stores ``clf:svc:C``.

    Args:
        trial: The Optuna trial (``Trial`` or ``FixedTrial``).
        prefix: Prefix added to every parameter name, e.g. ``"clf:svc:"``.
        context: Facts about the data (:class:`SpaceContext`).
    """

    def __init__(self, trial: optuna.trial.BaseTrial, prefix: str, context: SpaceContext) -> None:
        self.trial = trial
        self.prefix = prefix
        self.context = context

    def suggest_float(
        self, name: str, low: float, high: float, *, step: float | None = None, log: bool = False
    ) -> float:
        return self.trial.suggest_float(self.prefix + name, low, high, step=step, log=log)

    def suggest_int(
        self, name: str, low: int, high: int, *, step: int = 1, log: bool = False
    ) -> int:
        return self.trial.suggest_int(self.prefix + name, low, high, step=step, log=log)

    def suggest_categorical(self, name: str, choices: Sequence[Any]) -> Any:
        return self.trial.suggest_categorical(self.prefix + name, list(choices))


def _default_describe(name: str, params: Mapping[str, Any]) -> str:
    shown = []
    for key, value in params.items():
        if key.startswith("_"):
            continue
        text = f"{value:.4g}" if isinstance(value, float) else str(value)
        shown.append(f"{key}={text}")
    return f"{name}({', '.join(shown)})"


@dataclasses.dataclass(frozen=True)
class Component:
    """One method of the pool.

    Args:
        name: Unique name within its kind; parameters are stored as
            ``pre:<name>:<hp>``, ``fs:<name>:<hp>`` or ``clf:<name>:<hp>``.
        kind: ``"preprocessor"`` (a transformer that keeps the number of features),
            ``"selector"`` (a transformer; at most one per pipeline), ``"classifier"`` or
            ``"regressor"`` (for :class:`~optuna_psms.fms.RegressionSpace`, stored as
            ``reg:<name>:<hp>``).
        suggest: ``suggest(trial) -> params``; ``trial`` is a :class:`ComponentTrial`
            (already prefixed; ``trial.context`` describes the data). Keys starting with
            ``_`` are passed to ``build`` but hidden from descriptions.
        build: ``build(params) -> estimator``, an unfitted scikit-learn estimator. Leave
            ``random_state`` unset: the objective seeds every ``*random_state`` parameter.
        describe: Optional ``describe(params) -> str`` for the one-line pipeline description.

    For a selector model that pickles, define ``suggest`` and ``build`` at module level
    (lambdas and closures cannot be pickled).

    Example:

        .. testcode::

            from sklearn.neighbors import KNeighborsClassifier
            from optuna_psms.fms import Component
            from optuna_psms.fms import FullModelSpace


            def suggest_knn(trial):
                return {"n_neighbors": trial.suggest_int("n_neighbors", 1, 15)}


            def build_knn(params):
                return KNeighborsClassifier(**params)


            knn = Component("knn", "classifier", suggest_knn, build_knn)
            space = FullModelSpace(classifiers=["svc"]).register(knn)
            assert space.classifier_names == ["svc", "knn"]
    """

    name: str
    kind: Kind
    suggest: Callable[[ComponentTrial], Mapping[str, Any]]
    build: Callable[[Mapping[str, Any]], Any]
    describe: Callable[[Mapping[str, Any]], str] | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("preprocessor", "selector", "classifier", "regressor"):
            raise ValueError(
                f"Component kind must be 'preprocessor', 'selector', 'classifier' or "
                f"'regressor'; "
                f"got {self.kind!r}."
            )
        if not self.name or ":" in self.name or "__" in self.name or self.name == "none":
            raise ValueError(
                f"invalid component name {self.name!r}: it must be non-empty, not 'none', "
                f"and contain neither ':' nor '__'."
            )
        if not callable(self.suggest) or not callable(self.build):
            raise ValueError(f"Component {self.name!r}: suggest and build must be callables.")

    def text(self, params: Mapping[str, Any]) -> str:
        if self.describe is not None:
            return self.describe(params)
        return _default_describe(self.name, params)


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
    ]
    return {f"{c.kind}:{c.name}": c for c in pre + sel + clf}


BUILTIN_COMPONENTS: dict[str, Component] = _builtin_components()
PREPROCESSORS = [c.name for c in BUILTIN_COMPONENTS.values() if c.kind == "preprocessor"]
SELECTORS = [c.name for c in BUILTIN_COMPONENTS.values() if c.kind == "selector"]
CLASSIFIERS = [c.name for c in BUILTIN_COMPONENTS.values() if c.kind == "classifier"]


# ------------------------------------------------------------------------- the space
@dataclasses.dataclass(frozen=True)
class PipelineSpec:
    """A decoded full model: which components, their parameters, and the order flag."""

    preprocessors: tuple[tuple[Component, Params], ...]
    selector: tuple[Component, Params] | None
    classifier: tuple[Component, Params]
    preprocess_before_selection: bool
    bias: bool

    def describe(self) -> str:
        """One line, e.g. ``standardize(center=True) > ftest(fmax_frac=0.3) > svc(...)``."""
        pre = [c.text(p) for c, p in self.preprocessors]
        parts: list[str] = []
        sel = [self.selector[0].text(self.selector[1])] if self.selector else []
        parts = pre + sel if self.preprocess_before_selection else sel + pre
        parts.append(self.classifier[0].text(self.classifier[1]))
        if self.bias:
            parts.append("bias")
        return " > ".join(parts)


def _resolve(
    items: Iterable[str | Component] | None,
    kind: Kind,
    defaults: Sequence[str],
    builtins: Mapping[str, Component] | None = None,
) -> list[Component]:
    pool = BUILTIN_COMPONENTS if builtins is None else builtins
    chosen: list[Component] = []
    for item in defaults if items is None else items:
        if isinstance(item, Component):
            if item.kind != kind:
                raise ValueError(f"component {item.name!r} is a {item.kind}, not a {kind}.")
            comp = item
        elif isinstance(item, str):
            if kind == "selector" and item == "none":
                continue
            key = f"{kind}:{item}"
            if key not in pool:
                known = [c.name for c in pool.values() if c.kind == kind]
                raise ValueError(f"unknown {kind} {item!r}; built-in ones: {', '.join(known)}.")
            comp = pool[key]
        else:
            raise ValueError(f"expected a name or a Component, got {item!r}.")
        if any(c.name == comp.name for c in chosen):
            raise ValueError(f"{kind} {comp.name!r} is listed twice.")
        chosen.append(comp)
    return chosen


class FullModelSpace:
    """The pool of methods full models are built from (PSMS Tables 1-2, in scikit-learn).

    Args:
        classifiers: Classifier names or :class:`Component` objects. Default: all built-ins
            ``mean_variance`` (CLOP *zarbi*), ``naive_bayes``, ``logistic`` (linear or
            Nystroem-kernel logistic regression), ``kridge`` (kernel ridge
            classification), ``gradient_boosting``, ``mlp``, ``svc`` (C, kernel, gamma,
            degree, coef0), ``random_forest`` and ``xgboost`` (the 14 hyperparameters and
            ranges of Milletich & Asmar, Table 2; 12 with more than two classes, without
            the binary-only ``base_score`` and ``scale_pos_weight``).
        selectors: Feature-selection names or components; ``"none"`` (no selection) is a
            choice when listed and in the default. Default: ``none``, ``ftest`` (ANOVA),
            ``mutual_info``, ``auc``, ``s2n`` (signal-to-noise), ``pearson``, ``rf``
            (random-forest importance), ``svcrfe`` (linear-SVC RFE), ``pca`` and ``mask``
            (joint per-feature mask). An empty list means no feature selection.
        preprocessors: Preprocessing names or components, applied in this order, each
            switched on or off. Default: ``normalize`` (rows), ``standardize``,
            ``shift_scale``.
        bias: Search the decision-threshold post-processing (binary problems only).
        max_mask_params: The joint mask uses one parameter per feature up to this many
            features; above it, features are grouped into this many blocks, each one
            parameter. ``None`` always uses one parameter per feature.
        mask_grouping: Order of features before grouping into blocks: ``"score"`` (ANOVA F
            computed on each training fold; informative features end up in the first
            blocks) or ``"index"`` (column order).

    Example:

        .. testcode::

            import optuna
            from optuna_psms.fms import FullModelSpace, SpaceContext

            space = FullModelSpace(classifiers=["svc", "xgboost"], selectors=["none", "mask"])
            ctx = SpaceContext(n_features=5, n_classes=2, n_samples=50)
            trial = optuna.create_study().ask()
            spec = space.suggest(trial, ctx)
            pipeline = space.build(spec)
            print(spec.describe())

        .. testoutput::
            :hide:
            :options: +ELLIPSIS

            ...
    """

    #: ``"classification"`` here, ``"regression"`` in :class:`~optuna_psms.fms.RegressionSpace`.
    task: str = "classification"
    #: Component kind of the final model and the prefix of its parameters.
    model_kind: Kind = "classifier"
    model_prefix: str = "clf"
    _builtins: Mapping[str, Component] = BUILTIN_COMPONENTS
    _default_models: Sequence[str] = CLASSIFIERS
    _default_selectors: Sequence[str] = SELECTORS
    _default_preprocessors: Sequence[str] = PREPROCESSORS

    def __init__(
        self,
        classifiers: Iterable[str | Component] | None = None,
        selectors: Iterable[str | Component] | None = None,
        preprocessors: Iterable[str | Component] | None = None,
        *,
        bias: bool = True,
        max_mask_params: int | None = DEFAULT_MAX_MASK_PARAMS,
        mask_grouping: str = "score",
    ) -> None:
        self._setup(classifiers, selectors, preprocessors, bias, max_mask_params, mask_grouping)

    def _setup(
        self,
        models: Iterable[str | Component] | None,
        selectors: Iterable[str | Component] | None,
        preprocessors: Iterable[str | Component] | None,
        bias: bool,
        max_mask_params: int | None,
        mask_grouping: str,
    ) -> None:
        pool = self._builtins
        default_sel = ["none", *self._default_selectors]
        sel_items = list(selectors) if selectors is not None else default_sel
        self.allow_no_selection = not sel_items or "none" in sel_items
        self.classifiers = _resolve(models, self.model_kind, self._default_models, pool)
        self.selectors = _resolve(sel_items, "selector", self._default_selectors, pool)
        self.preprocessors = _resolve(
            preprocessors, "preprocessor", self._default_preprocessors, pool
        )
        if not self.classifiers:
            raise ValueError(f"the space needs at least one {self.model_kind}.")
        if max_mask_params is not None and (
            not isinstance(max_mask_params, int) or max_mask_params < 1
        ):
            raise ValueError(
                f"max_mask_params must be a positive int or None; got {max_mask_params!r}."
            )
        if mask_grouping not in ("score", "index"):
            raise ValueError(f"mask_grouping must be 'score' or 'index'; got {mask_grouping!r}.")
        self.bias = bool(bias)
        self.max_mask_params = max_mask_params
        self.mask_grouping = mask_grouping

    @property
    def classifier_names(self) -> list[str]:
        return [c.name for c in self.classifiers]

    @property
    def selector_names(self) -> list[str]:
        return (["none"] if self.allow_no_selection else []) + [c.name for c in self.selectors]

    @property
    def preprocessor_names(self) -> list[str]:
        return [c.name for c in self.preprocessors]

    def register(self, component: Component) -> FullModelSpace:
        """Add a component to the pool (a new choice of its kind).

        Args:
            component: The component; its name must be new within its kind.

        Returns:
            ``self``, to chain calls.
        """
        if not isinstance(component, Component):
            raise ValueError(f"register() expects a Component, got {component!r}.")
        targets = {
            "preprocessor": self.preprocessors,
            "selector": self.selectors,
            self.model_kind: self.classifiers,
        }
        if component.kind not in targets:
            raise ValueError(
                f"a {component.kind} cannot join a {self.task} space; it takes "
                f"preprocessors, selectors and {self.model_kind}s."
            )
        target = targets[component.kind]
        if any(c.name == component.name for c in target):
            raise ValueError(f"a {component.kind} named {component.name!r} already exists.")
        target.append(component)
        return self

    def context(self, n_features: int, n_classes: int, n_samples: int) -> SpaceContext:
        """The :class:`SpaceContext` of this space for data of the given shape."""
        return SpaceContext(
            n_features=n_features,
            n_classes=n_classes,
            n_samples=n_samples,
            max_mask_params=self.max_mask_params,
            mask_grouping=self.mask_grouping,
            task=self.task,
        )

    def suggest(self, trial: optuna.trial.BaseTrial, context: SpaceContext) -> PipelineSpec:
        """Sample a full model with ``trial`` (or replay one with a ``FixedTrial``).

        The classifier (or regressor) is suggested first, then the preprocessors, the
        selector and the threshold step. Optuna stores a trial's parameters in the order
        they were suggested and optuna-dashboard's trial page lists them in that order in a
        box about six lines high, so ``clf:method`` and its hyperparameters come first there
        (suggested after the preprocessors and the selector, they were below the box in
        every joint-mask trial). The samplers of this package key every draw by parameter
        name, so the order changes none of their proposals; samplers that draw parameters
        one after another from one random stream (Optuna's ``RandomSampler`` and
        ``TPESampler``) draw them in this order since 26 Nov 2026.
        """
        names = self.classifier_names
        prefix = self.model_prefix
        clf_name = (
            names[0] if len(names) == 1 else trial.suggest_categorical(f"{prefix}:method", names)
        )
        model = next(c for c in self.classifiers if c.name == clf_name)
        clf_params = dict(model.suggest(ComponentTrial(trial, f"{prefix}:{model.name}:", context)))

        pre: list[tuple[Component, Params]] = []
        for comp in self.preprocessors:
            if trial.suggest_categorical(f"pre:{comp.name}", [False, True]):
                params = dict(comp.suggest(ComponentTrial(trial, f"pre:{comp.name}:", context)))
                pre.append((comp, params))

        selector: tuple[Component, Params] | None = None
        choices = self.selector_names
        method = (
            choices[0] if len(choices) == 1 else trial.suggest_categorical("fs:method", choices)
        )
        if method != "none":
            comp = next(c for c in self.selectors if c.name == method)
            params = dict(comp.suggest(ComponentTrial(trial, f"fs:{comp.name}:", context)))
            selector = (comp, params)

        before = True
        if pre and selector is not None:
            before = bool(trial.suggest_categorical("pre:before_fs", [False, True]))

        bias = False
        if self.bias and self.task == "classification" and context.n_classes == 2:
            bias = bool(trial.suggest_categorical("post:bias", [False, True]))
        return PipelineSpec(tuple(pre), selector, (model, clf_params), before, bias)

    def build(self, spec: PipelineSpec) -> Pipeline:
        """An unfitted scikit-learn ``Pipeline`` for ``spec``."""
        pre_steps = [(f"pre_{c.name}", c.build(p)) for c, p in spec.preprocessors]
        sel_steps = []
        if spec.selector is not None:
            sel_steps = [(f"fs_{spec.selector[0].name}", spec.selector[0].build(spec.selector[1]))]
        steps = (
            pre_steps + sel_steps if spec.preprocess_before_selection else (sel_steps + pre_steps)
        )
        comp, params = spec.classifier
        clf = comp.build(params)
        if spec.bias:
            clf = BiasClassifier(clf)
        steps.append((self.model_prefix, clf))
        for name, est in steps:
            if not isinstance(est, BaseEstimator) and not hasattr(est, "fit"):
                raise ValueError(f"component {name!r} built {est!r}, which has no fit method.")
        return Pipeline(steps)

    def __repr__(self) -> str:
        return (
            f"FullModelSpace(classifiers={self.classifier_names}, "
            f"selectors={self.selector_names}, preprocessors={self.preprocessor_names}, "
            f"bias={self.bias}, max_mask_params={self.max_mask_params}, "
            f"mask_grouping={self.mask_grouping!r})"
        )
