"""``optuna-psms select``: search a full model, report honest scores, save it.

The task is ``--task`` (``auto``: regression for a continuous numeric target, see
:func:`optuna_psms.fms.target_task`). The rows are split once into search rows and held-out
rows (``--test-size``; stratified for classification, shuffled for regression);
the study sees only the search rows. The chosen pipeline's CV loss (on the search rows) and
its loss on the held-out rows are printed, then it is refitted on all rows and saved.

A ``--study-name`` that exists in ``--storage`` is joined: N processes started with the same
storage and study name are N workers of one study (one population for the population
samplers). Each runs its ``--n-trials``; the one that finishes while no other trial is
running (the last one) saves the model, and so does any worker given ``--output``. The
settings that define the search (data, task, split, space, CV, metric, sampler, seed) are stored
in the study, and a worker whose settings differ is refused with the reason. ``--n-trials``,
``--timeout``, ``--trial-timeout`` and ``--n-jobs`` are limits of each worker, not stored:
whether a trial outlives ``--trial-timeout`` depends on the machine and its load as much as
on the limit, so one shared limit would not make workers agree, and a slower machine may
need a longer one. A timed-out trial is a failed trial of the study, its reason recorded.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
from typing import Any
import warnings

from optuna_psms.cli._common import CLASSIFIER_NAMES
from optuna_psms.cli._common import comma_list
from optuna_psms.cli._common import REGRESSOR_NAMES
from optuna_psms.cli._common import require_fms
from optuna_psms.cli._common import SAMPLER_NAMES
from optuna_psms.cli._common import save_model
from optuna_psms.cli._common import UserError
from optuna_psms.cli._data import data_digest
from optuna_psms.cli._data import print_identifier_warnings
from optuna_psms.cli._holdout import holdout_loss
from optuna_psms.cli._holdout import loss_label
from optuna_psms.cli._holdout import split as _split
from optuna_psms.cli._select_args import add_parser
from optuna_psms.cli._select_args import DEFAULT_OUTPUT
from optuna_psms.cli._study import join
from optuna_psms.cli._study import name_seed
from optuna_psms.cli._study import new_study_name
from optuna_psms.cli._study import open_storage
from optuna_psms.cli._study import search_copy
from optuna_psms.cli._study import unused_name


# A chosen pipeline whose CV in the search took at least this many seconds gets a line before
# each refit after the search: with the progress bar at 100 %, minutes of silence look hung.
SLOW_REFIT_SECONDS = 30.0


def register(sub: Any) -> None:
    """Add the ``select`` subcommand to the subparsers ``sub``."""
    add_parser(sub).set_defaults(run=run)


# ----------------------------------------------------------------------------- helpers
def _load(args: argparse.Namespace) -> tuple[Any, Any, str]:
    from optuna_psms.cli._data import drop_columns
    from optuna_psms.cli._data import drop_names
    from optuna_psms.cli._data import load_csv
    from optuna_psms.cli._data import load_dataset

    drop = drop_names(args.drop)
    if args.csv is not None:
        if args.target is None:
            raise UserError("--csv needs --target COLUMN (the label column)")
        frame, labels = load_csv(args.csv, args.target, drop)
        return frame, labels, os.path.splitext(os.path.basename(args.csv))[0]
    if args.target is not None:
        raise UserError("--target is only used with --csv")
    X, y = load_dataset(args.dataset)
    return drop_columns(X, drop, args.dataset), y, args.dataset


def _without(drop: list[str] | None) -> str:
    """`` without 'id', 'name'`` for ``--drop id name`` (nothing without ``--drop``)."""
    from optuna_psms.cli._data import drop_names

    names = drop_names(drop)
    return f" without {', '.join(map(repr, names))}" if names else ""


#: The start of the Python warning about an identifier-like column, which ``select`` prints
#: itself (once, for all rows, with the command-line remedy) before the search.
_IDENTIFIER_WARNING = r"column .* looks like a row identifier"


def _cut_by_ctrl_c(exc: BaseException) -> bool:
    """Whether ``exc`` was raised while Python handled a Ctrl-C (a KeyboardInterrupt in its
    ``__context__`` chain).

    Optuna 5.0's ``_run_trial`` turns a Ctrl-C that lands inside its final storage write into
    an ``UnboundLocalError`` from its ``finally`` block (seen in ``.ci/run``, 25 Nov 2026);
    that is still the user's interrupt.
    """
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__context__
    return False


def _check_target_complete(y: Any, label: str) -> None:
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


def _announce_slow_refit(best: Any, rows: str) -> None:
    """Say that a refit of ``best`` on ``rows`` starts, when its CV in the search took at
    least :data:`SLOW_REFIT_SECONDS` (its ``fms:fit_time``)."""
    seconds = best.user_attrs.get("fms:fit_time")
    if isinstance(seconds, int | float) and seconds >= SLOW_REFIT_SECONDS:
        print(
            f"  refitting trial {best.number} on {rows} (its CV took {seconds:.0f} s in the "
            f"search) ...",
            flush=True,
        )


def _check_target_numeric(y: Any) -> None:
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


def _classifiers(args: argparse.Namespace, task: str) -> list[str]:
    from optuna_psms._extras import missing

    names = comma_list(args.classifiers)
    no_xgboost = bool(missing("xgboost"))
    pool = REGRESSOR_NAMES if task == "regression" else CLASSIFIER_NAMES
    kind = "regressor" if task == "regression" else "classifier"
    if names is None:
        names = [c for c in pool if not (no_xgboost and c == "xgboost")]
        if no_xgboost:
            print(
                "note: xgboost is not installed, the search leaves it out "
                "(pip install 'optuna-psms[xgboost]')",
                file=sys.stderr,
            )
    elif "xgboost" in names and no_xgboost:
        raise UserError(
            f"{kind} 'xgboost' needs the 'xgboost' extra: pip install 'optuna-psms[xgboost]'"
        )
    return names


def _publish_callbacks(every: int) -> list[Any] | None:
    """A :class:`~optuna_psms.visualization.PublishCallback` every ``every`` trials, when
    plotly and optuna-dashboard are installed (``None``: ``every`` is 0 or they are not)."""
    import importlib.util

    if every == 0 or not all(importlib.util.find_spec(m) for m in ("plotly", "optuna_dashboard")):
        return None
    from optuna_psms.visualization import PublishCallback

    return [PublishCallback(every)]


def _space(settings: dict[str, Any]) -> Any:
    """The search space of ``settings``; a bad name is a :class:`UserError` naming its flag."""
    from optuna_psms.fms import FullModelSpace
    from optuna_psms.fms import RegressionSpace

    regression = settings["task"] == "regression"
    make: Any = RegressionSpace if regression else FullModelSpace
    models = {("regressors" if regression else "classifiers"): settings["classifiers"]}
    try:
        make(**models)
    except ValueError as exc:
        flag = "--regressors" if regression else "--classifiers"
        raise UserError(f"{flag}: {str(exc).rstrip('.')}") from None
    try:
        return make(**models, selectors=settings["selectors"])
    except ValueError as exc:
        raise UserError(f"--selectors: {str(exc).rstrip('.')}") from None


def _check_search_rows(settings: dict[str, Any], X: Any, y: Any, seed: int) -> tuple[Any, ...]:
    """Split off the held-out rows and check that the search can run on the rest, before
    any study is created or joined: a mistake must not leave a study behind.

    Returns:
        ``(X_search, y_search, X_held, y_held)`` (the held-out ones ``None`` for
        ``--test-size 0``).
    """
    from optuna_psms.fms import make_objective

    parts: tuple[Any, ...] = (X, y, None, None)
    if settings["test_size"] > 0:
        parts = _split(X, y, settings["test_size"], seed, settings["task"])
    try:
        make_objective(
            parts[0],
            parts[1],
            space=_space(settings),
            cv=settings["cv"],
            metric=settings["metric"],
            subsample=settings["subsample"],
            random_state=seed,
        )
    except ValueError as exc:
        where = ""
        if settings["test_size"] > 0:
            kept = len(parts[1])
            where = f" (in the {kept} search rows left by --test-size {settings['test_size']})"
        message = str(exc).rstrip(".").replace("a smaller cv", "a smaller --cv")
        raise UserError(f"{message}{where}") from None
    return parts


def _selector(settings: dict[str, Any], seed: int, **kwargs: Any) -> Any:
    """A :class:`FullModelSelector`, or a :class:`FullModelRegressor` for a regression."""
    from optuna_psms.fms import FullModelRegressor
    from optuna_psms.fms import FullModelSelector

    regression = settings["task"] == "regression"
    estimator = FullModelRegressor if regression else FullModelSelector
    return estimator(
        space=_space(settings),
        cv=settings["cv"],
        metric=settings["metric"],
        subsample=settings["subsample"],
        random_state=seed,
        **kwargs,
    )


def _refit(settings: dict[str, Any], study: Any, best: Any, X: Any, y: Any, **kwargs: Any) -> Any:
    """The estimator of :func:`_selector` fitted on ``(X, y)`` with the pipeline of ``best``.

    No search runs (:meth:`~optuna_psms.fms.FullModelSelector.fit_trial`): the model's
    ``best_loss_`` and ``describe()`` give ``best``'s CV value in ``study`` (the search's, on
    the search rows), and it is the package's own estimator, with its column checks and labels.
    """
    model = _selector(settings, settings["seed"], **kwargs)
    try:
        model.fit_trial(X, y, study, best)
    except (ValueError, RuntimeError) as exc:
        raise UserError(f"cannot refit the chosen pipeline: {exc}") from None
    return model


# ----------------------------------------------------------------------------- the command
def run(args: argparse.Namespace) -> int:
    """Run (or join) the search, report, refit and save."""
    require_fms()
    # Ctrl-C must reach us even when started in the background by a non-interactive shell.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import optuna

    if args.n_trials is not None and args.n_trials < 1:
        raise UserError("--n-trials must be at least 1")
    if args.trial_timeout is not None and not (
        math.isfinite(args.trial_timeout) and args.trial_timeout > 0
    ):
        raise UserError(
            f"--trial-timeout must be a positive number of seconds; got {args.trial_timeout}"
        )
    if args.publish_every < 0:
        raise UserError("--publish-every must be 0 (only at the end) or a number of trials")
    if args.timeout is not None and not (math.isfinite(args.timeout) and args.timeout > 0):
        raise UserError(f"--timeout must be a positive number of seconds; got {args.timeout}")
    if args.n_jobs < 1 and args.n_jobs != -1:
        raise UserError(f"--n-jobs must be at least 1 (or -1: one per CPU); got {args.n_jobs}")
    if args.seed is not None and not 0 <= args.seed < 2**32:
        raise UserError(f"--seed must be an integer in [0, 2**32); got {args.seed}")
    if args.cv < 2:
        raise UserError(f"--cv must be at least 2 (the number of CV folds); got {args.cv}")
    if args.reselect_top < 0:
        raise UserError(f"--reselect-top must be 0 (off) or more; got {args.reselect_top}")
    if args.reselect_cv < 2:
        raise UserError(f"--reselect-cv must be at least 2; got {args.reselect_cv}")
    if args.ensemble_top < 1:
        raise UserError(f"--ensemble-top must be at least 1; got {args.ensemble_top}")
    if not (math.isfinite(args.subsample) and 0.0 < args.subsample <= 1.0):
        raise UserError(f"--subsample must be in (0, 1]; got {args.subsample}")
    if not 0.0 <= args.test_size < 1.0:
        raise UserError(f"--test-size must be in [0, 1); got {args.test_size}")
    if args.sampler is not None and args.sampler.lower() not in SAMPLER_NAMES:
        raise UserError(
            f"unknown sampler {args.sampler!r}; choose one of {', '.join(SAMPLER_NAMES)}"
        )
    X, y, label = _load(args)
    _check_target_complete(y, label)
    print_identifier_warnings(X)
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
        _check_target_numeric(y)
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
    settings: dict[str, Any] = {
        "data": data_digest(X, y),
        "task": task,
        "test_size": float(args.test_size),
        "cv": int(args.cv),
        "metric": metric,
        "subsample": float(args.subsample),
        "classifiers": _classifiers(args, task),
        "selectors": comma_list(args.selectors),
        "sampler": args.sampler.lower() if args.sampler else None,
        "seed": args.seed,
    }
    # The final choice is not a setting of the study (workers may differ); kept aside.
    choice = {"reselect_top": int(args.reselect_top), "reselect_cv": int(args.reselect_cv)}
    # The vote of the best few (FullModelSelector only); the refits below use it too.
    vote = {"ensemble_top": int(args.ensemble_top)} if task == "classification" else {}
    initial = {}
    if task == "classification" and args.initial_pipelines is not None:
        initial["initial_pipelines"] = (
            None if args.initial_pipelines == "none" else args.initial_pipelines
        )
    choice.update(vote)
    study_name = args.study_name or new_study_name(label)
    # Every setting is checked before the study is created or joined; the split's seed is the
    # one a new study gets (a joining worker without --seed may get the study's, below).
    provisional = name_seed(study_name) if settings["seed"] is None else settings["seed"]
    parts = _check_search_rows(settings, X, y, provisional)
    storage = open_storage(args.storage)
    if args.study_name is None:  # a made-up name: never join another run's study by chance
        study_name = unused_name(storage, study_name)
        if settings["seed"] is None and name_seed(study_name) != provisional:
            provisional = name_seed(study_name)
            parts = _check_search_rows(settings, X, y, provisional)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    settings = join(storage, study_name, settings)
    seed = int(settings["seed"])
    if seed != provisional:
        parts = _check_search_rows(settings, X, y, seed)
    X_search, y_search, X_held, y_held = parts
    from optuna_psms.fms import make_sampler

    model = _selector(
        settings,
        seed,
        **choice,
        sampler=make_sampler(settings["sampler"], seed),
        callbacks=_publish_callbacks(args.publish_every),
        **initial,
        n_trials=args.n_trials,
        timeout=args.timeout,
        trial_timeout=args.trial_timeout,
        storage=storage,
        study_name=study_name,
        load_if_exists=True,
        n_jobs=args.n_jobs,
        show_progress_bar=not args.no_progress_bar,
    )
    from optuna_psms.storages import hide_password

    shown = hide_password(args.storage)
    held_note = f", {len(y_held)} held out" if y_held is not None else ", no hold-out"
    # A study that already has trials (resumed, or joined while other workers run) is said
    # to be continued: the line would otherwise read the same as for a new study.
    before = [
        t.state
        for t in optuna.load_study(study_name=study_name, storage=storage).get_trials(
            deepcopy=False
        )
    ]
    continued = ""
    if before:
        done = before.count(optuna.trial.TrialState.COMPLETE)
        so_far = f"{len(before)} trial{'s' if len(before) != 1 else ''} so far"
        continued = f", continued ({so_far}, {done} complete)"
    print(
        f"Full model selection ({settings['task']}) on {label}{_without(args.drop)}: "
        f"{len(y_search)} search rows{held_note}; "
        f"sampler {settings['sampler']}, {settings['cv']}-fold CV "
        f"{loss_label(settings['metric'])}, "
        f"seed {seed}; study '{study_name}' in {shown}{continued}"
    )
    # Without --study-name the same command starts a new timestamped study: say how to resume.
    if args.study_name:
        resume = "the same command resumes it"
    else:
        resume = f"resume it with the same command and --study-name {study_name}"
    interrupted = False
    try:
        with warnings.catch_warnings():  # said above, for all the rows
            warnings.filterwarnings("ignore", message=_IDENTIFIER_WARNING, category=UserWarning)
            model.fit(X_search, y_search)
    except KeyboardInterrupt:
        interrupted = True
    except Exception as exc:
        if _cut_by_ctrl_c(exc):
            interrupted = True
        elif isinstance(exc, ValueError | RuntimeError):
            raise UserError(str(exc)) from None
        else:
            raise
    try:
        study = optuna.load_study(study_name=study_name, storage=storage)
        trials = study.get_trials(deepcopy=False)
    except Exception as exc:  # the interrupt cut a storage call short
        if not interrupted:
            raise
        print(
            f"optuna-psms: interrupted; study '{study_name}' is kept in {shown} (not read "
            f"back: {type(exc).__name__}): {resume}",
            file=sys.stderr,
        )
        return 130
    states = [t.state for t in trials]
    n_done = states.count(optuna.trial.TrialState.COMPLETE)
    n_fail = states.count(optuna.trial.TrialState.FAIL)
    n_running = states.count(optuna.trial.TrialState.RUNNING)
    if interrupted:
        print(
            f"optuna-psms: interrupted; study '{study_name}' is kept in {shown} "
            f"({n_done} complete): {resume}",
            file=sys.stderr,
        )
        if n_done == 0:
            return 130
        model = None  # the search's own refit did not happen
    chooser = _selector(settings, seed, **choice)
    try:
        best = chooser.choose_trial(X_search, y_search, study)
    except (ValueError, RuntimeError) as exc:
        raise UserError(f"cannot choose the pipeline: {exc}") from None
    described = best.user_attrs.get("fms:pipeline", best.params)
    # A trial of --initial-pipelines is not the sampler's find: say so.
    start = " of the initial pipelines" if "fms:initial" in best.user_attrs else ""
    print(f"Best pipeline (trial {best.number}{start}): {described}")
    print(
        f"CV {loss_label(settings['metric'])} on search data ({settings['cv']}-fold): "
        f"{best.value:.4f}  [{n_done} complete, {n_fail} failed in the study]"
    )
    record = study.user_attrs.get("fms:reselect")
    if (
        (chooser.reselect_top or 0) >= 2
        and isinstance(record, dict)
        and record.get("trial") == best.number
    ):
        print(
            f"  chosen among the {len(record['losses'])} best by {record['cv']}-fold CV: "
            f"{record['losses'][str(best.number)]:.4f} (lowest; the best search value "
            f"{study.best_value:.4f} was trial {study.best_trial.number})"
        )
    save_to = args.output
    if save_to is None and n_running > 0 and not interrupted:
        print(
            f"{n_running} trial(s) of other workers still running: the last worker saves "
            f"the model (or pass --output FILE to save now)"
        )
        return 0
    searched = search_copy(storage, study_name)
    if y_held is not None:
        if model is None or getattr(model, "best_params_", None) != best.params:
            # Interrupted, or another worker found a better pipeline since this fit ended.
            _announce_slow_refit(best, f"the {len(y_search)} search rows")
            model = _refit(settings, searched, best, X_search, y_search, **vote)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            name, loss = holdout_loss(settings["metric"], model, X_held, y_held)
        # The model's warnings about held-out values it reads other than as written (e.g. a
        # category the search rows never had), one line each.
        for message in dict.fromkeys(str(w.message).strip() for w in caught):
            first = (message.splitlines() or [""])[0]
            print(f"warning: in the held-out rows, {first}", file=sys.stderr)
        baseline = ""
        if settings["task"] == "regression":
            from sklearn.dummy import DummyRegressor

            mean = DummyRegressor().fit(X_search, y_search)
            _, base = holdout_loss(settings["metric"], mean, X_held, y_held)
            baseline = f"  (predicting the search rows' mean: {base:.4f})"
        members = [t.number for t in getattr(model, "ensemble_trials_", None) or []]
        voted = f"; the vote of {len(members)} pipelines" if len(members) > 1 else ""
        print(
            f"held-out {name} ({len(y_held)} rows the search never saw{voted}): "
            f"{loss:.4f}{baseline}"
        )
        # Into the study too: the dashboard's "Best Trial" is the optimistic CV value on the
        # search rows, and without this the honest estimate lives only in a terminal.
        study.set_user_attr(
            "fms:held_out",
            {
                "trial": best.number,
                "metric": name,
                "loss": float(loss),
                "rows": len(y_held),
                "cv_on_search_rows": float(best.value),
                "vote_of_trials": members,
            },
        )
        from optuna_psms._study_info import note_held_out

        what = f"trial {best.number}"
        if voted:
            what = "the vote of trials " + ", ".join(map(str, members))
        note_held_out(
            study,
            f"{name} **{loss:.4f}** on {len(y_held)} rows the search never saw ({what}). "
            f"The *Best Trial* value is the {settings['cv']}-fold CV {name} on the search "
            f"rows ({best.value:.4f}), the best of the trials: optimistic.",
        )
    else:
        print("held-out: none (--test-size 0), so no estimate free of the selection")
    _announce_slow_refit(best, f"all {len(y)} rows")
    final = _refit(settings, searched, best, X, y, **vote)
    save_to = save_to or DEFAULT_OUTPUT
    # Every search without --output saves to the one default file: say when it replaces one
    # (a new user's breast-cancer model was silently replaced by another dataset's).
    replacing = ""
    if args.output is None and os.path.exists(save_to):
        replacing = " (replacing the model that was there; --output FILE saves elsewhere)"
    save_model(final, save_to)
    print(f"Model refitted on all {len(y)} rows, saved to {save_to}{replacing}")
    voters = [t.number for t in getattr(final, "ensemble_trials_", None) or []]
    if len(voters) > 1:
        shown = ", ".join(map(str, voters))
        print(
            f"  it predicts by a vote of the {len(voters)} best distinct pipelines (trials "
            f"{shown}; --ensemble-top 1: trial {best.number} alone)"
        )
    print(f"  apply it: optuna-psms predict --model {save_to} --csv NEW.csv")
    from optuna_psms.storages import dashboard_argument

    try:  # the population and model-choice figures, shown by optuna-dashboard
        from optuna_psms.visualization import publish

        publish(study)
    except ImportError as exc:
        print(f"  dashboard figures skipped: {exc}")
    print(f"  dashboard: optuna-dashboard {dashboard_argument(args.storage)}")
    return 130 if interrupted else 0
