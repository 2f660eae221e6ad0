"""The pipelines a full-model search evaluates first (``initial_pipelines``).

A search can start from a few textbook pipelines before its sampler proposes anything:
they are enqueued (:meth:`optuna.study.Study.enqueue_trial`) as the study's first trials,
so they are ordinary trials in storage, shown in the dashboard, and the samplers of this
package take them in as the first members' positions. The parameters an initial pipeline
leaves out are the sampler's to choose.

``"defaults"`` is scikit-learn's defaults for four of the pool's classifiers, on
standardised columns where the model needs it, without feature selection (a space without
``"none"`` but with ``"mask"``: a joint mask keeping every feature), and with the
``bias`` threshold step when the metric is the balanced error rate (the pool's classifiers
have no class weights; the threshold is how a pipeline balances its errors):

* ``standardize > svc(rbf, C=1, gamma=1/n_features)`` (``gamma="scale"`` on standardised
  columns);
* ``standardize > logistic(linear, C=1)``;
* ``random_forest(100 trees, max_features=sqrt(n)/n, balanced)``;
* ``gradient_boosting(100 trees, learning_rate=0.1, max_depth=3)``;

and first, when a fold trains on at least :data:`HGB_FIRST_ROWS` rows (5,000 rows at the
default ``cv=2``), scikit-learn's default ``hist_gradient_boosting``. Below that size the
four are the ones measured on the small KEEL sets, unchanged. A regression starts from
:func:`regression_pipelines`: histogram gradient boosting, ridge on standardised columns and a
random forest, each at scikit-learn's defaults.

``"svc-c"`` and ``"svc-grid"`` (:data:`PORTFOLIOS`) add standardised RBF SVCs at other
``(C, gamma)`` after the four: the candidates of a measured change that failed its rule
(docs/reproduce/reproductions.md, PSMS, "A portfolio of initial pipelines"); kept so that it can be
rerun and as options.

A component absent from the space is skipped; ``gamma`` is clipped to the space's range.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
import math
from typing import Any

import optuna

from optuna_psms.fms.space import FullModelSpace
from optuna_psms.fms.space import mask_flag_names
from optuna_psms.fms.space import SpaceContext


#: The metrics under which the defaults switch the ``bias`` threshold step on.
BALANCED_METRICS = ("ber",)
#: ``FullModelSelector``'s and ``optuna-psms select``'s default.
DEFAULT_INITIAL: str | None = "defaults"
#: Named sets of initial pipelines: ``"defaults"`` (the four above) and candidates that add
#: standardised RBF-SVC points ``(C, gamma * n_features)`` after them (measured against
#: ``"defaults"`` in docs/reproduce/reproductions.md, "Portfolio").
PORTFOLIOS: dict[str, tuple[tuple[float, float], ...]] = {
    "defaults": (),
    "svc-c": ((10.0, 1.0), (100.0, 1.0)),
    "svc-grid": ((10.0, 1.0), (100.0, 1.0), (1.0, 0.1), (10.0, 0.1), (100.0, 0.1)),
}
#: The user attribute marking a trial enqueued as an initial pipeline (its index).
INITIAL_ATTR = "fms:initial"


def check_initial_pipelines(value: Any) -> None:
    """Raise ``ValueError`` unless ``value`` is ``None``, a name of :data:`PORTFOLIOS` or a list
    of dicts."""
    if value is None or (isinstance(value, str) and value in PORTFOLIOS):
        return
    if (
        isinstance(value, str | bytes)
        or not isinstance(value, Sequence)
        or not all(isinstance(p, Mapping) and all(isinstance(k, str) for k in p) for p in value)
    ):
        raise ValueError(
            f"initial_pipelines must be None, one of {sorted(PORTFOLIOS)} or a list of "
            "parameter dicts "
            f"(e.g. [{{'clf:method': 'svc'}}]); got {value!r}."
        )


def default_pipelines(
    space: FullModelSpace, context: SpaceContext, metric: str, name: str = "defaults"
) -> list[dict[str, Any]]:
    """The initial pipelines of :data:`PORTFOLIOS` ``name`` that ``space`` can express."""
    if space.task != "classification":
        return regression_pipelines(space)
    common: dict[str, Any] = {f"pre:{name}": False for name in space.preprocessor_names}
    if len(space.selector_names) > 1 and "none" in space.selector_names:
        common["fs:method"] = "none"
    elif "none" not in space.selector_names and "mask" in space.selector_names:
        # Without "none" (--selectors mask), a joint mask keeping every feature is the
        # pipeline without selection; left to the sampler, the flags were random and the
        # "default logistic regression" dropped 3 of 7 features (usertrial7, 26 Nov 2026).
        if len(space.selector_names) > 1:
            common["fs:method"] = "mask"
        common.update({f"fs:mask:{flag}": True for flag in mask_flag_names(context)})
    if space.bias and context.n_classes == 2:
        common["post:bias"] = metric in BALANCED_METRICS
    scaled = dict(common)
    if "standardize" in space.preprocessor_names:
        scaled.update({"pre:standardize": True, "pre:standardize:center": True})
    n = max(context.n_features, 1)
    candidates: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
        ("svc", scaled, {"C": 1.0, "kernel": "rbf", "gamma": min(max(1.0 / n, 1e-4), 10.0)}),
        ("logistic", scaled, {"C": 1.0, "kernel": "linear"}),
        (
            "random_forest",
            common,
            {
                "n_estimators": 100,
                "max_features": min(max(math.sqrt(n) / n, 0.01), 1.0),
                "balanced": True,
            },
        ),
        (
            "gradient_boosting",
            common,
            {"n_estimators": 100, "learning_rate": 0.1, "max_depth": 3},
        ),
    ]
    for c, g in PORTFOLIOS[name]:
        gamma = min(max(g / n, 1e-4), 10.0)
        candidates.append(("svc", scaled, {"C": c, "kernel": "rbf", "gamma": gamma}))
    if context.n_samples >= HGB_FIRST_ROWS:
        hgb = dict(HGB_DEFAULTS, balanced=False)
        candidates.insert(0, ("hist_gradient_boosting", common, hgb))
    return _expressed(space, candidates)


def _expressed(
    space: FullModelSpace, candidates: list[tuple[str, dict[str, Any], dict[str, Any]]]
) -> list[dict[str, Any]]:
    """The parameter dicts of the ``(model, common params, model params)`` that ``space``
    has the model of."""
    names = space.classifier_names
    out = []
    for name, base, params in candidates:
        if name not in names:
            continue
        full = dict(base)
        if len(names) > 1:
            full[f"{space.model_prefix}:method"] = name
        full.update({f"{space.model_prefix}:{name}:{k}": v for k, v in params.items()})
        out.append(full)
    return out


#: ``hist_gradient_boosting``'s parameters at scikit-learn's defaults.
HGB_DEFAULTS: dict[str, Any] = {
    "learning_rate": 0.1,
    "max_iter": 100,
    "max_leaf_nodes": 31,
    "min_samples_leaf": 20,
    "l2_regularization": 1e-6,  # the range's floor; scikit-learn's default is 0
}
#: Training rows of a fold from which a classification starts with the default histogram
#: gradient boosting (first); below, the initial pipelines are the four measured on small
#: KEEL sets, unchanged.
HGB_FIRST_ROWS = 2_500


def regression_pipelines(space: FullModelSpace) -> list[dict[str, Any]]:
    """A regression's initial pipelines: scikit-learn's default histogram gradient boosting,
    ridge (alpha 1) on standardised columns and a default random forest (100 trees, all
    features per split), without feature selection; those ``space`` has."""
    common: dict[str, Any] = {f"pre:{name}": False for name in space.preprocessor_names}
    if len(space.selector_names) > 1 and "none" in space.selector_names:
        common["fs:method"] = "none"
    scaled = dict(common)
    if "standardize" in space.preprocessor_names:
        scaled.update({"pre:standardize": True, "pre:standardize:center": True})
    forest = {"n_estimators": 100, "max_features": 1.0, "min_samples_leaf": 1}
    return _expressed(
        space,
        [
            ("hist_gradient_boosting", common, dict(HGB_DEFAULTS)),
            ("linear", scaled, {"penalty": "ridge", "alpha": 1.0}),
            ("random_forest", common, forest),
        ],
    )


def enqueue_initial(
    study: optuna.Study,
    value: Any,
    space: FullModelSpace,
    context: SpaceContext,
    metric: str,
) -> int:
    """Enqueue the initial pipelines into a study that has no trial yet; return how many.

    A study that already has trials (a resumed search, or another worker's) gets none, and
    ``skip_if_exists`` drops a pipeline another worker enqueued at the same moment.
    """
    check_initial_pipelines(value)
    if value is None or study.get_trials(deepcopy=False):
        return 0
    pipelines = (
        default_pipelines(space, context, metric, value) if isinstance(value, str) else value
    )
    enqueue_pipelines(study, pipelines)
    return len(pipelines)


def portfolio_size(name: str) -> int:
    """How many initial pipelines portfolio ``name`` enqueues in a classification space with
    all four of its classifiers (the default pool): four, and the RBF-SVC points it adds."""
    return 4 + len(PORTFOLIOS[name])


#: :func:`short_budget_message`'s advice in the Python API, and on the command line.
API_ADVICE = "raise n_trials or pass initial_pipelines=None"
CLI_ADVICE = "raise --n-trials or pass --initial-pipelines none"
#: What every :func:`short_budget_message` line contains (to recognise its warning).
SHORT_BUDGET_MARK = "are the initial pipelines, the same whatever the sampler"


def short_budget_message(n_trials: int, n_initial: int, advice: str) -> str | None:
    """The line saying that a budget of ``n_trials`` is spent on the ``n_initial`` initial
    pipelines, the same for every sampler; ``None`` when the sampler proposes some trials.

    ``advice``: how to change it in the caller's words (:data:`API_ADVICE` or
    :data:`CLI_ADVICE`).
    """
    if n_initial < 1 or n_trials > n_initial:
        return None
    return (
        f"{n_trials} trial{'s' if n_trials > 1 else ''} leave{'s' if n_trials == 1 else ''} "
        f"the sampler none: the first {n_initial} {SHORT_BUDGET_MARK}; {advice}"
    )


def enqueue_pipelines(study: optuna.Study, pipelines: Sequence[Mapping[str, Any]]) -> None:
    """Enqueue ``pipelines`` in order, each marked with its index (:data:`INITIAL_ATTR`);
    ``skip_if_exists`` drops one another worker enqueued at the same moment."""
    for i, params in enumerate(pipelines):
        study.enqueue_trial(dict(params), user_attrs={INITIAL_ATTR: i}, skip_if_exists=True)
