"""The model side of ``optuna-psms select``: its settings, space, estimators and refits.

The settings (:func:`search_settings`) are what a study stores and a joining worker must
share; :func:`selector` makes the package's estimator from them and :func:`refit` fits it with
one trial's pipeline, without a search.
"""

from __future__ import annotations

import argparse
from typing import Any

from optuna_psms.cli._common import CLASSIFIER_NAMES
from optuna_psms.cli._common import comma_list
from optuna_psms.cli._common import REGRESSOR_NAMES
from optuna_psms.cli._common import UserError
from optuna_psms.cli._common import warn
from optuna_psms.fms._join import StudySettings
from optuna_psms.fms.datasets import data_digest
from optuna_psms.fms.holdout import split


def search_settings(args: argparse.Namespace, X: Any, y: Any) -> StudySettings:
    """The settings of the search that a study stores (without the seed a joined study may
    give): the task (``--task auto`` resolved on ``y``) and the checked metric among them.

    Raises:
        UserError: A metric that does not fit the task, or a target that does not fit it.
    """
    from optuna_psms.fms.metrics import check_metric
    from optuna_psms.fms.target import check_not_continuous
    from optuna_psms.fms.target import resolve_task

    try:
        task = resolve_task(args.task, y)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    try:
        metric = check_metric(args.metric, task)
    except ValueError as exc:
        chosen = f" (--task auto chose {task} for this target)" if args.task == "auto" else ""
        raise UserError(f"{str(exc).rstrip('.')}{chosen}") from None
    if task == "regression":
        check_target_numeric(y)
    if task == "classification":
        try:
            check_not_continuous(y, max(int(args.cv), 2))
        except ValueError as exc:
            # The estimator's message names the Python class; on the command line the way
            # out is the --task option.
            head = str(exc).split(": for regression", 1)[0]
            raise UserError(
                f"the target {head.removeprefix('y ')}: use --task regression"
            ) from None
    return StudySettings(
        data=data_digest(X, y),
        task=task,
        test_size=float(args.test_size),
        cv=int(args.cv),
        metric=metric,
        subsample=float(args.subsample),
        classifiers=classifiers(args, task),
        selectors=comma_list(args.selectors),
        sampler=args.sampler.lower() if args.sampler else None,
        seed=args.seed,
    )


#: ``--task auto`` chose a regression for a target with at most this many distinct values:
#: ``select`` says so (they are class codes more often than measurements).
FEW_TARGET_VALUES = 10


def auto_task_warning(args: argparse.Namespace, y: Any, task: str) -> str | None:
    """The ``warning:`` line when ``--task auto`` made a regression of a target that looks
    like classes (at most :data:`FEW_TARGET_VALUES` distinct numbers, e.g. a sex coded
    ``±0.05``) or like a row identifier (the integers ``1..n``, one per row); ``None``
    otherwise. Both ran as regressions and nothing said so (usertrial3, 26 Nov 2026)."""
    if args.task != "auto" or task != "regression":
        return None
    import numpy as np
    import pandas as pd

    from optuna_psms.fms.data import _identifier_reason
    from optuna_psms.fms.target import _numeric_target

    numeric = _numeric_target(y)
    if numeric is None:
        return None
    values = numeric.astype(np.float64)
    target = f"target {args.target!r}" if getattr(args, "target", None) else "the target"
    reason = _identifier_reason(pd.Series(values))
    if reason is not None:
        return (
            f"warning: {target} looks like a row identifier ({reason}); a regression will "
            f"predict it, which means nothing: check --target"
        )
    n_values = int(np.unique(values[np.isfinite(values)]).size)
    # One value: the refusal ("y is constant") follows, and this line was only noise above it.
    if 2 <= n_values <= FEW_TARGET_VALUES:
        return (
            f"warning: {target} has {n_values} distinct numeric values, not all whole "
            f"numbers; running a regression: pass --task classification to classify"
        )
    return None


def classes_hint(args: argparse.Namespace, y: Any, task: str) -> str:
    """The end of an error about a class with too few rows when ``--task auto`` made classes
    of more than :data:`FEW_TARGET_VALUES` whole numbers: they may be a measurement (a
    weight in pounds: "class 191.0 has only 1 row", usertrial7, 26 Nov 2026). Empty
    otherwise."""
    if args.task != "auto" or task != "classification":
        return ""
    import numpy as np

    from optuna_psms.fms.target import _numeric_target

    numeric = _numeric_target(y)
    if numeric is None:
        return ""
    values = numeric.astype(np.float64)
    n_values = int(np.unique(values[np.isfinite(values)]).size)
    if n_values <= FEW_TARGET_VALUES:
        return ""
    return (
        f"; --task auto took the target's {n_values} distinct whole numbers for class "
        f"labels: if it is a measurement, pass --task regression"
    )


def check_target_complete(y: Any, label: str) -> None:
    """Refuse a bundled dataset's target with missing values before the split, so the
    message counts every row (a CSV file's target is checked by ``load_csv``, which names
    the lines)."""
    import numpy as np
    import pandas as pd

    n_empty = int(pd.isna(pd.Series(np.asarray(y, dtype=object))).sum())
    if n_empty:
        raise UserError(
            f"the target of {label} has {n_empty} missing value(s); drop those rows or fill "
            f"in their labels"
        )


def check_target_numeric(y: Any) -> None:
    """Refuse a non-numeric target for ``--task regression`` with the way out on the
    command line (the estimator's own message names the Python class)."""
    from optuna_psms.fms.target import _numeric_target

    if _numeric_target(y) is not None:
        return
    import numpy as np
    import pandas as pd

    values = pd.Series(np.asarray(y, dtype=object))
    failed = values[
        pd.to_numeric(values, errors="coerce").isna()
        | values.map(lambda v: isinstance(v, bool)).astype(bool)
    ]
    bad = failed.iloc[0] if len(failed) else values.iloc[0]
    raise UserError(
        f"--task regression needs a numeric target; this one has values such as {bad!r}: "
        f"use --task classification"
    )


def classifiers(args: argparse.Namespace, task: str) -> list[str]:
    """The names of ``--classifiers`` (the regressors for a regression); by default the whole
    pool, without xgboost after a note when it is not installed."""
    from optuna_psms._extras import missing

    names = comma_list(args.classifiers)
    no_xgboost = bool(missing("xgboost"))
    pool = REGRESSOR_NAMES if task == "regression" else CLASSIFIER_NAMES
    kind = "regressor" if task == "regression" else "classifier"
    if names is None:
        names = [c for c in pool if not (no_xgboost and c == "xgboost")]
        if no_xgboost:
            warn(
                "note: xgboost is not installed, the search leaves it out "
                "(pip install 'optuna-psms[xgboost]')"
            )
    elif "xgboost" in names and no_xgboost:
        raise UserError(
            f"{kind} 'xgboost' needs the 'xgboost' extra: pip install 'optuna-psms[xgboost]'"
        )
    return names


def publish_callbacks(every: int) -> list[Any] | None:
    """A :class:`~optuna_psms.visualization.PublishCallback` every ``every`` trials, when
    plotly and optuna-dashboard are installed (``None``: ``every`` is 0 or they are not)."""
    import importlib.util

    if every == 0 or not all(importlib.util.find_spec(m) for m in ("plotly", "optuna_dashboard")):
        return None
    from optuna_psms.visualization import PublishCallback

    return [PublishCallback(every)]


def _whole_pool(task: str) -> list[str]:
    """The models of the default pool: every one, xgboost only when it is installed."""
    from optuna_psms._extras import missing

    pool = REGRESSOR_NAMES if task == "regression" else CLASSIFIER_NAMES
    return [c for c in pool if not (missing("xgboost") and c == "xgboost")]


def chosen_space(settings: StudySettings) -> Any:
    """The estimators' ``space``: ``None`` (their default pool) when neither the models nor
    the selectors were restricted, since the default pool leaves out the components that
    cannot finish at the data's size (``optuna_psms.fms._cost``) and a pool the user chose
    is kept as given; else :func:`space`."""
    if settings.selectors is None and settings.classifiers == _whole_pool(settings.task):
        return None
    return space(settings)


def space(settings: StudySettings) -> Any:
    """The search space of ``settings``; a bad name is a :class:`UserError` naming its flag."""
    from optuna_psms.fms import FullModelSpace
    from optuna_psms.fms import RegressionSpace

    regression = settings.task == "regression"
    make: Any = RegressionSpace if regression else FullModelSpace
    models = {("regressors" if regression else "classifiers"): settings.classifiers}
    try:
        make(**models)
    except ValueError as exc:
        flag = "--regressors" if regression else "--classifiers"
        raise UserError(f"{flag}: {str(exc).rstrip('.')}") from None
    try:
        return make(**models, selectors=settings.selectors)
    except ValueError as exc:
        raise UserError(f"--selectors: {str(exc).rstrip('.')}") from None


def check_search_rows(
    settings: StudySettings, X: Any, y: Any, seed: int, hint: str = ""
) -> tuple[Any, ...]:
    """Split off the held-out rows and check that the search can run on the rest, before
    any study is created or joined: a mistake must not leave a study behind. ``hint``
    (:func:`classes_hint`) ends the message of a refusal.

    Returns:
        ``(X_search, y_search, X_held, y_held)`` (the held-out ones ``None`` for
        ``--test-size 0``).
    """
    from optuna_psms.fms import make_objective

    parts: tuple[Any, ...] = (X, y, None, None)
    if settings.test_size > 0:
        try:
            parts = split(X, y, settings.test_size, seed, settings.task)
        except UserError as exc:
            if not hint:
                raise
            raise UserError(f"{exc}{hint}", original=exc.original) from None
    try:
        make_objective(
            parts[0],
            parts[1],
            space=space(settings),
            cv=settings.cv,
            metric=settings.metric,
            subsample=settings.subsample,
            random_state=seed,
        )
    except ValueError as exc:
        where = ""
        if settings.test_size > 0:
            kept = len(parts[1])
            where = f" (in the {kept} search rows left by --test-size {settings.test_size})"
        message = str(exc).rstrip(".").replace("a smaller cv", "a smaller --cv")
        raise UserError(f"{message}{where}{hint}") from None
    return parts


def selector(settings: StudySettings, seed: int, **kwargs: Any) -> Any:
    """A :class:`FullModelSelector`, or a :class:`FullModelRegressor` for a regression."""
    from optuna_psms.fms import FullModelRegressor
    from optuna_psms.fms import FullModelSelector

    regression = settings.task == "regression"
    estimator = FullModelRegressor if regression else FullModelSelector
    return estimator(
        space=chosen_space(settings),
        cv=settings.cv,
        metric=settings.metric,
        subsample=settings.subsample,
        random_state=seed,
        **kwargs,
    )


def refit(settings: StudySettings, study: Any, best: Any, X: Any, y: Any, **kwargs: Any) -> Any:
    """The estimator of :func:`selector` fitted on ``(X, y)`` with the pipeline of ``best``.

    No search runs (:meth:`~optuna_psms.fms.FullModelSelector.fit_trial`): the model's
    ``best_loss_`` and ``describe()`` give ``best``'s CV value in ``study`` (the search's, on
    the search rows), and it is the package's own estimator, with its column checks and labels.
    """
    model = selector(settings, settings.study_seed, **kwargs)
    try:
        model.fit_trial(X, y, study, best)
    except (ValueError, RuntimeError) as exc:
        raise UserError(f"cannot refit the chosen pipeline: {exc}", original=exc) from None
    return model
