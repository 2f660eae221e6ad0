"""The steps of :func:`optuna_psms.fms.select_model`, the workflow ``optuna-psms select`` runs.

In the order they run: the checks of the target and the settings (:func:`study_settings`:
what a study stores and every worker joining it must share), the split and the check that the
search can run on the search rows (:func:`check_search_rows`), creating or joining the study
(:func:`open_study`, the protocol of :mod:`optuna_psms.fms._join`), the estimator whose
``fit`` runs the search (:func:`selector`), the search (:func:`search`), the study read back
(:func:`read_back`), the chosen trial (:func:`choose`), the refits without a search
(:func:`refit`) and what the study keeps of the saved model (:func:`note_saved`).

The steps raise :class:`~optuna_psms._messages.InputError` for a mistake in the inputs; their
words name the options of ``optuna-psms select`` (as the join's messages do).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from typing import TYPE_CHECKING

from optuna_psms._messages import InputError
from optuna_psms.fms import _join
from optuna_psms.fms._join import StudySettings
from optuna_psms.fms.holdout import split


if TYPE_CHECKING:
    from collections.abc import Callable

    import optuna


#: ``task="auto"`` chose a regression for a target with at most this many distinct values:
#: the workflow says so (they are class codes more often than measurements).
FEW_TARGET_VALUES = 10


# ----------------------------------------------------------------------------- the settings
def _pool(task: str) -> tuple[str, ...]:
    """The names of every model of ``task``'s pool, in the registry's order."""
    if task == "regression":
        from optuna_psms.fms.regression import REGRESSORS

        return tuple(REGRESSORS)
    from optuna_psms.fms.space import CLASSIFIERS

    return tuple(CLASSIFIERS)


def model_names(
    models: tuple[str, ...] | None, task: str, warning: Callable[[str], None]
) -> list[str]:
    """The names of the models to search (the regressors for a regression); ``None``: the
    whole pool, without xgboost after a note when it is not installed.

    Raises:
        InputError: ``xgboost`` named while it is not installed.
    """
    from optuna_psms._extras import missing

    no_xgboost = bool(missing("xgboost"))
    kind = "regressor" if task == "regression" else "classifier"
    if models is None:
        if no_xgboost:
            warning(
                "note: xgboost is not installed, the search leaves it out "
                "(pip install 'optuna-psms[xgboost]')"
            )
        return whole_pool(task)
    names = list(models)
    if "xgboost" in names and no_xgboost:
        raise InputError(
            f"{kind} 'xgboost' needs the 'xgboost' extra: pip install 'optuna-psms[xgboost]'"
        )
    return names


def whole_pool(task: str) -> list[str]:
    """The models of the default pool: every one, xgboost only when it is installed."""
    from optuna_psms._extras import missing

    return [c for c in _pool(task) if not (missing("xgboost") and c == "xgboost")]


def auto_task_warning(task_setting: str, y: Any, task: str, target: str | None) -> str | None:
    """The ``warning:`` line when ``task="auto"`` made a regression of a target that looks
    like classes (at most :data:`FEW_TARGET_VALUES` distinct numbers, e.g. a sex coded
    ``±0.05``) or like a row identifier (the integers ``1..n``, one per row); ``None``
    otherwise. Both ran as regressions and nothing said so (usertrial3, 26 Nov 2026).

    Args:
        task_setting: The task asked for (``"auto"``, ...).
        y: The target.
        task: The task it resolved to.
        target: The target column's name, if it has one (a CSV file's).
    """
    if task_setting != "auto" or task != "regression":
        return None
    import numpy as np
    import pandas as pd

    from optuna_psms.fms.data import _identifier_reason
    from optuna_psms.fms.target import _numeric_target

    numeric = _numeric_target(y)
    if numeric is None:
        return None
    values = numeric.astype(np.float64)
    named = f"target {target!r}" if target else "the target"
    reason = _identifier_reason(pd.Series(values))
    if reason is not None:
        return (
            f"warning: {named} looks like a row identifier ({reason}); a regression will "
            f"predict it, which means nothing: check --target"
        )
    n_values = int(np.unique(values[np.isfinite(values)]).size)
    # One value: the refusal ("y is constant") follows, and this line was only noise above it.
    if 2 <= n_values <= FEW_TARGET_VALUES:
        return (
            f"warning: {named} has {n_values} distinct numeric values, not all whole "
            f"numbers; running a regression: pass --task classification to classify"
        )
    return None


def classes_hint(task_setting: str, y: Any, task: str) -> str:
    """The end of an error about a class with too few rows when ``task="auto"`` made classes
    of more than :data:`FEW_TARGET_VALUES` whole numbers: they may be a measurement (a
    weight in pounds: "class 191.0 has only 1 row", usertrial7, 26 Nov 2026). Empty
    otherwise."""
    if task_setting != "auto" or task != "classification":
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
    """Refuse a target with missing values before the split, so the message counts every
    row (a CSV file's target is checked by ``load_csv``, which names the lines).

    Raises:
        InputError: The target has missing values.
    """
    import numpy as np
    import pandas as pd

    n_empty = int(pd.isna(pd.Series(np.asarray(y, dtype=object))).sum())
    if n_empty:
        raise InputError(
            f"the target of {label} has {n_empty} missing value(s); drop those rows or fill "
            f"in their labels"
        )


def check_target_numeric(y: Any) -> None:
    """Refuse a non-numeric target of a regression with the way out (the estimator's own
    message names the Python class).

    Raises:
        InputError: The target is not numeric.
    """
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
    raise InputError(
        f"--task regression needs a numeric target; this one has values such as {bad!r}: "
        f"use --task classification"
    )


def publish_callbacks(every: int | None) -> list[Any] | None:
    """A :class:`~optuna_psms.visualization.PublishCallback` every ``every`` trials, when
    plotly and optuna-dashboard are installed (``None``: ``every`` is 0 or ``None``, or they
    are not)."""
    import importlib.util

    if not every or not all(importlib.util.find_spec(m) for m in ("plotly", "optuna_dashboard")):
        return None
    from optuna_psms.visualization import PublishCallback

    return [PublishCallback(every)]


# ----------------------------------------------------------------------------- space, estimator
def chosen_space(settings: StudySettings) -> Any:
    """The estimators' ``space``: ``None`` (their default pool) when neither the models nor
    the selectors were restricted, since the default pool leaves out the components that
    cannot finish at the data's size (``optuna_psms.fms._cost``) and a pool the user chose
    is kept as given; else :func:`space`."""
    if settings.selectors is None and settings.classifiers == whole_pool(settings.task):
        return None
    return space(settings)


def space(settings: StudySettings) -> Any:
    """The search space of ``settings``.

    Raises:
        InputError: A bad name, the message naming its option.
    """
    from optuna_psms.fms.regression import RegressionSpace
    from optuna_psms.fms.space import FullModelSpace

    regression = settings.task == "regression"
    make: Any = RegressionSpace if regression else FullModelSpace
    models = {("regressors" if regression else "classifiers"): settings.classifiers}
    try:
        make(**models)
    except ValueError as exc:
        flag = "--regressors" if regression else "--classifiers"
        raise InputError(f"{flag}: {str(exc).rstrip('.')}") from None
    try:
        return make(**models, selectors=settings.selectors)
    except ValueError as exc:
        raise InputError(f"--selectors: {str(exc).rstrip('.')}") from None


def check_search_rows(
    settings: StudySettings, X: Any, y: Any, seed: int, hint: str = ""
) -> tuple[Any, ...]:
    """Split off the held-out rows and check that the search can run on the rest, before
    any study is created or joined: a mistake must not leave a study behind. ``hint``
    (:func:`classes_hint`) ends the message of a refusal.

    Returns:
        ``(X_search, y_search, X_held, y_held)`` (the held-out ones ``None`` for
        ``test_size`` 0).

    Raises:
        InputError: The split or the search refuses the rows.
    """
    from optuna_psms.fms.objective import make_objective

    parts: tuple[Any, ...] = (X, y, None, None)
    if settings.test_size > 0:
        try:
            parts = split(X, y, settings.test_size, seed, settings.task)
        except InputError as exc:
            if not hint:
                raise
            raise InputError(f"{exc}{hint}", original=exc.original) from None
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
        raise InputError(f"{message}{where}{hint}") from None
    return parts


def selector(settings: StudySettings, seed: int, **kwargs: Any) -> Any:
    """A :class:`~optuna_psms.fms.FullModelSelector`, or a
    :class:`~optuna_psms.fms.FullModelRegressor` for a regression, of ``settings``."""
    from optuna_psms.fms.regressor import FullModelRegressor
    from optuna_psms.fms.selector import FullModelSelector

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

    Raises:
        InputError: The pipeline cannot be refitted (the original exception kept).
    """
    model = selector(settings, settings.study_seed, **kwargs)
    try:
        model.fit_trial(X, y, study, best)
    except (ValueError, RuntimeError) as exc:
        raise InputError(f"cannot refit the chosen pipeline: {exc}", original=exc) from None
    return model


# ----------------------------------------------------------------------------- the study
def open_study(
    url: str | None,
    study_name: str | None,
    label: str,
    settings: StudySettings,
    X: Any,
    y: Any,
    hint: str = "",
) -> tuple[Any, str, StudySettings, tuple[Any, ...]]:
    """Create or join the study (:func:`optuna_psms.fms._join.join`).

    Every setting is checked before the study is created or joined (a mistake must not leave
    a study behind); the split's seed is the one a new study gets, and a joining worker
    without a seed may get the study's. Without ``study_name`` the name is made from
    ``label`` and the time, and never one of a study already in the storage.

    Args:
        url: The storage's URL (``None``: a new in-memory storage).
        study_name: The study's name (an existing study of that name is joined).
        label: The data's name, for a made-up study name.
        settings: The settings (a ``None`` seed: the study's, or one from its name).
        X: The features.
        y: The target.
        hint: Ends the message of a refusal (:func:`classes_hint`).

    Returns:
        ``(storage, study name, settings as stored, (X_search, y_search, X_held, y_held))``.

    Raises:
        InputError: The data, the settings or the storage refused, or the study holds
            other settings.
    """
    name = study_name or _join.new_study_name(label)
    provisional = _join.name_seed(name) if settings.seed is None else settings.seed
    parts = check_search_rows(settings, X, y, provisional, hint)
    storage = _in_memory() if url is None else _join.open_storage(url)
    if study_name is None:  # a made-up name: never join another run's study by chance
        name = _join.unused_name(storage, name)
        if settings.seed is None and _join.name_seed(name) != provisional:
            provisional = _join.name_seed(name)
            parts = check_search_rows(settings, X, y, provisional, hint)
    settings = _join.join(storage, name, settings)
    if settings.study_seed != provisional:
        parts = check_search_rows(settings, X, y, settings.study_seed, hint)
    return storage, name, settings, parts


def _in_memory() -> Any:
    import optuna

    return optuna.storages.InMemoryStorage()


def trial_states(storage: Any, study_name: str) -> list[Any]:
    """The states of the study's trials (before this worker's search)."""
    import optuna

    study = optuna.load_study(study_name=study_name, storage=storage)
    return [t.state for t in study.get_trials(deepcopy=False)]


def search(model: Any, X: Any, y: Any) -> bool:
    """Run the search (``model.fit``); whether Ctrl-C cut it short.

    A Ctrl-C in Optuna's own code (the sampler, a storage write) leaves its trial ``RUNNING``:
    ``fit`` fails the trials this process started and left so, marked ``fms:interrupted``, so
    that a rerun does not take them for another worker's. With ``n_jobs`` above 1 the first
    Ctrl-C lets the trials in progress finish, and a line says so at once.

    Raises:
        InputError: The search refused the data or its settings (the original exception
            kept).
    """
    from optuna_psms._compat._interrupted import cut_by_ctrl_c

    # fit fails the trials a Ctrl-C leaves RUNNING, says the n_jobs > 1 line and raises a
    # KeyboardInterrupt (also for an exception a Ctrl-C caused: trials_failed_on_ctrl_c).
    try:
        model.fit(X, y)
    except KeyboardInterrupt:
        return True
    except Exception as exc:
        if cut_by_ctrl_c(exc):  # after the search (the refit in fit): nothing left RUNNING
            return True
        if isinstance(exc, ValueError | RuntimeError):
            raise InputError(str(exc), original=exc) from None
        raise
    return False


@dataclass(frozen=True)
class ReadBack:
    """The study after the search.

    Attributes:
        study: The study (in its storage).
        n_complete: Its complete trials.
        failed: Its failed trials in words (:func:`failed_words`).
        n_running: Its running trials (other workers').
    """

    study: optuna.Study
    n_complete: int
    failed: str
    n_running: int


def failed_words(trials: list[Any]) -> str:
    """``"3 failed"``, or ``"3 failed (1 interrupted by Ctrl-C)"`` when Ctrl-C cut some of
    the failed ``trials`` (their pipelines did not fail; attr ``fms:interrupted``)."""
    import optuna

    from optuna_psms.fms._outcome import INTERRUPTED

    failed = [t for t in trials if t.state == optuna.trial.TrialState.FAIL]
    cut = sum(t.user_attrs.get(INTERRUPTED) is True for t in failed)
    return f"{len(failed)} failed" + (f" ({cut} interrupted by Ctrl-C)" if cut else "")


def read_back(storage: Any, study_name: str) -> ReadBack:
    """The study after the search, with its trials counted (a Ctrl-C may cut the storage
    calls short: the caller decides what that means)."""
    import optuna

    study = optuna.load_study(study_name=study_name, storage=storage)
    trials = study.get_trials(deepcopy=False)
    states = [t.state for t in trials]
    return ReadBack(
        study=study,
        n_complete=states.count(optuna.trial.TrialState.COMPLETE),
        failed=failed_words(trials),
        n_running=states.count(optuna.trial.TrialState.RUNNING),
    )


def choose(
    settings: StudySettings, study: Any, parts: tuple[Any, ...], **choice: Any
) -> tuple[Any, bool]:
    """The chosen trial (``reselect_top`` may re-evaluate the best few), and whether the
    re-evaluation chose it (the study's ``fms:reselect`` record names it).

    Raises:
        InputError: No trial can be chosen (the original exception kept).
    """
    chooser = selector(settings, settings.study_seed, **choice)
    try:
        best = chooser.choose_trial(parts[0], parts[1], study)
    except (ValueError, RuntimeError) as exc:
        raise InputError(f"cannot choose the pipeline: {exc}", original=exc) from None
    record = study.user_attrs.get("fms:reselect")
    reselected = (
        (chooser.reselect_top or 0) >= 2
        and isinstance(record, dict)
        and record.get("trial") == best.number
    )
    return best, reselected


def is_the_saved_model(model: Any, searched: Any, best: Any, vote: dict[str, Any]) -> bool:
    """Whether ``model``, fitted when this worker's search ended, is what the save refits
    from ``searched``: the same chosen trial and the same vote (trials of other workers that
    finished since may have joined it); ``False`` for ``None`` (an interrupted search)."""
    if model is None or getattr(model, "best_trial_", None) is None:
        return False
    if model.best_trial_.number != best.number or model.best_params_ != best.params:
        return False
    top = vote.get("ensemble_top")
    if top is None:  # a regression: the chosen pipeline alone
        return True
    from optuna_psms.fms._ensemble import check_ensemble_top
    from optuna_psms.fms._ensemble import ensemble_trials

    wanted = [t.number for t in ensemble_trials(searched, best, check_ensemble_top(top))]
    record = getattr(model, "final_check_", None)
    # With the SVC chosen the model has no members; its check names the vote it beat.
    voted = (
        list(record["trials"])
        if isinstance(record, dict)
        else [t.number for t in getattr(model, "ensemble_trials_", None) or []]
    )
    return voted == wanted


def keep_check(model: Any, searched: Any) -> None:
    """Store ``model``'s final check in ``searched``, the study the save refits from."""
    from optuna_psms.fms._final_check import FINAL_CHECK_KEY

    record = getattr(model, "final_check_", None)
    if isinstance(record, dict):
        searched.set_user_attr(FINAL_CHECK_KEY, record)


def whole_study_vote(study: Any, n_voters: int, top: int) -> str | None:
    """The ``warning:`` line when the vote holds every distinct complete pipeline of the
    study (at most ``ensemble_top`` trials), the worst included; ``None`` when the study had
    more to choose from. The default stays 10: with the README's 60 to 100 trials the vote
    is of the best sixth or tenth (usertrial3, 26 Nov 2026)."""
    from optuna_psms.fms._ensemble import holds_whole_study

    if not holds_whole_study(study, n_voters):
        return None
    return (
        f"warning: the vote holds all {n_voters} distinct complete pipelines of the study, "
        f"the worst included (--ensemble-top {top}): run more trials than that, or pass "
        f"--ensemble-top 1 to keep the chosen pipeline alone"
    )


def note_saved(study: Any, final: Any, save_to: str, rows: int) -> None:
    """Say in the study what the saved model ``final`` predicts with, and why: the study user
    attr ``fms:saved_model`` and the *Saved model* section of its note (the dashboard's
    *Note* page). The dashboard's *Best Trial* card shows one pipeline of the search, while
    the default final check may save a grid-tuned SVC and the default vote ten pipelines
    (usertrial8: with ``--test-size 0`` the dashboard said nothing of either)."""
    from optuna_psms.fms._final_check import describe
    from optuna_psms.samplers._study_info import note_saved_model

    model = final.describe()
    record = getattr(final, "final_check_", None)
    svc = getattr(final, "final_choice_", "vote") == "svc"
    voters = len(getattr(final, "ensemble_trials_", None) or [])
    text = f"`{save_to}`, refitted on all {rows} rows: {model}."
    if svc:
        text += " It is not the *Best Trial*'s pipeline."
    elif voters > 1:
        text += f" The *Best Trial* card shows one pipeline; the model votes with {voters}."
    if isinstance(record, dict) and not svc:  # the SVC's describe() has the check's losses
        text += f"\n\n{describe(record)}"
    study.set_user_attr("fms:saved_model", {"file": save_to, "model": model})
    note_saved_model(study, text)


def publish(study: Any) -> str | None:
    """Save the study's figures for optuna-dashboard (the population and model-choice
    figures); why they were skipped (plotly or optuna-dashboard missing), or ``None``."""
    try:
        from optuna_psms.visualization import publish as publish_study

        publish_study(study)
    except ImportError as exc:
        return str(exc)
    return None
