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

from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
import dataclasses

import optuna
from sklearn.base import BaseEstimator
from sklearn.pipeline import Pipeline

# The private names of _builtin are here for models pickled before 26 Nov 2026: pickle
# stored the built-in components' functions as optuna_psms.fms.space.<name>
# (tests/fms/test_space.py::test_models_pickled_before_the_split_still_resolve).
from optuna_psms.fms._builtin import _build_gradient_boosting as _build_gradient_boosting
from optuna_psms.fms._builtin import _build_kridge as _build_kridge
from optuna_psms.fms._builtin import _build_logistic as _build_logistic
from optuna_psms.fms._builtin import _build_mask as _build_mask
from optuna_psms.fms._builtin import _build_mean_variance as _build_mean_variance
from optuna_psms.fms._builtin import _build_mlp as _build_mlp
from optuna_psms.fms._builtin import _build_naive_bayes as _build_naive_bayes
from optuna_psms.fms._builtin import _build_normalize as _build_normalize
from optuna_psms.fms._builtin import _build_pca as _build_pca
from optuna_psms.fms._builtin import _build_random_forest as _build_random_forest
from optuna_psms.fms._builtin import _build_shift_scale as _build_shift_scale
from optuna_psms.fms._builtin import _build_standardize as _build_standardize
from optuna_psms.fms._builtin import _build_svc as _build_svc
from optuna_psms.fms._builtin import _build_xgboost as _build_xgboost
from optuna_psms.fms._builtin import _describe_logistic as _describe_logistic
from optuna_psms.fms._builtin import _describe_mask as _describe_mask
from optuna_psms.fms._builtin import _RankBuild as _RankBuild
from optuna_psms.fms._builtin import _RankDescribe as _RankDescribe
from optuna_psms.fms._builtin import _suggest_center as _suggest_center
from optuna_psms.fms._builtin import _suggest_fmax as _suggest_fmax
from optuna_psms.fms._builtin import _suggest_gradient_boosting as _suggest_gradient_boosting
from optuna_psms.fms._builtin import _suggest_kridge as _suggest_kridge
from optuna_psms.fms._builtin import _suggest_logistic as _suggest_logistic
from optuna_psms.fms._builtin import _suggest_mask as _suggest_mask
from optuna_psms.fms._builtin import _suggest_mlp as _suggest_mlp
from optuna_psms.fms._builtin import _suggest_naive_bayes as _suggest_naive_bayes
from optuna_psms.fms._builtin import _suggest_none as _suggest_none
from optuna_psms.fms._builtin import _suggest_random_forest as _suggest_random_forest
from optuna_psms.fms._builtin import _suggest_svc as _suggest_svc
from optuna_psms.fms._builtin import _suggest_take_log as _suggest_take_log
from optuna_psms.fms._builtin import _suggest_xgboost as _suggest_xgboost
from optuna_psms.fms._builtin import BUILTIN_COMPONENTS as BUILTIN_COMPONENTS
from optuna_psms.fms._builtin import CLASSIFIERS as CLASSIFIERS
from optuna_psms.fms._builtin import mask_flag_names as mask_flag_names
from optuna_psms.fms._builtin import mask_rule as mask_rule
from optuna_psms.fms._builtin import PREPROCESSORS as PREPROCESSORS
from optuna_psms.fms._builtin import SELECTORS as SELECTORS
from optuna_psms.fms._component import Component as Component
from optuna_psms.fms._component import ComponentTrial as ComponentTrial
from optuna_psms.fms._component import DEFAULT_MAX_MASK_PARAMS as DEFAULT_MAX_MASK_PARAMS
from optuna_psms.fms._component import Kind
from optuna_psms.fms._component import Params as Params
from optuna_psms.fms._component import SpaceContext as SpaceContext
from optuna_psms.fms.estimators import BiasClassifier


#: The built-in XGBoost classifier's suggestion (with a ``min_child_weight`` range argument)
#: and build functions, for a custom XGBoost :class:`Component`.
suggest_xgboost = _suggest_xgboost
build_xgboost = _build_xgboost


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
                from optuna_psms._names import did_you_mean

                hint = did_you_mean(item, known)
                raise ValueError(
                    f"unknown {kind} {item!r}; {hint}built-in ones: {', '.join(known)}."
                )
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
            the binary-only ``base_score`` and ``scale_pos_weight``) and
            ``hist_gradient_boosting`` (scikit-learn's ``HistGradientBoostingClassifier``:
            learning rate, iterations, leaves, rows per leaf, L2, balanced class weights).
            Components that do not scale are left out of the default pool on large data
            (see :mod:`optuna_psms.fms._cost`).
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
