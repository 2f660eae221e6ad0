"""The run of ``optuna-psms select`` (imported when the command runs; its arguments are
:mod:`optuna_psms.cli._select_args`, its documentation :mod:`optuna_psms.cli.select`)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
import contextlib
import os
import signal
import sys
from typing import Any
import warnings

from optuna_psms.cli._common import require_fms
from optuna_psms.cli._common import save_model
from optuna_psms.cli._common import show_progress_bar
from optuna_psms.cli._common import UserError
from optuna_psms.cli._common import warn
from optuna_psms.cli._interrupt import figures_not_written
from optuna_psms.cli._interrupt import file_stamp
from optuna_psms.cli._interrupt import not_saved
from optuna_psms.cli._select_args import check_args
from optuna_psms.cli._select_args import DEFAULT_OUTPUT
from optuna_psms.cli._select_model import auto_task_warning
from optuna_psms.cli._select_model import check_search_rows
from optuna_psms.cli._select_model import check_target_complete
from optuna_psms.cli._select_model import classes_hint
from optuna_psms.cli._select_model import publish_callbacks
from optuna_psms.cli._select_model import refit
from optuna_psms.cli._select_model import search_settings
from optuna_psms.cli._select_model import selector
from optuna_psms.cli._select_report import choose
from optuna_psms.cli._select_report import is_the_saved_model
from optuna_psms.cli._select_report import keep_check
from optuna_psms.cli._select_report import note_saved
from optuna_psms.cli._select_report import print_final_check
from optuna_psms.cli._select_report import read_back
from optuna_psms.cli._select_report import said_once
from optuna_psms.cli._select_report import whole_study_vote
from optuna_psms.fms._join import continued_note
from optuna_psms.fms._join import join
from optuna_psms.fms._join import name_seed
from optuna_psms.fms._join import new_study_name
from optuna_psms.fms._join import open_storage
from optuna_psms.fms._join import publish_figures
from optuna_psms.fms._join import search_copy
from optuna_psms.fms._join import StudySettings
from optuna_psms.fms._join import unused_name
from optuna_psms.fms.datasets import identifier_warnings
from optuna_psms.fms.datasets import text_number_warnings
from optuna_psms.fms.holdout import report_held_out
from optuna_psms.fms.holdout import shown
from optuna_psms.fms.holdout import small_data_warning


#: The chosen pipeline refitted without a search (:func:`optuna_psms.cli._select_model.refit`;
#: the name it had here before the split).
_refit = refit

# A chosen pipeline whose CV in the search took at least this many seconds gets a line before
# each refit after the search: with the progress bar at 100 %, minutes of silence look hung.
SLOW_REFIT_SECONDS = 30.0


# ----------------------------------------------------------------------------- helpers
def _load(args: argparse.Namespace) -> tuple[Any, Any, str]:
    from optuna_psms.fms.datasets import drop_columns
    from optuna_psms.fms.datasets import drop_names
    from optuna_psms.fms.datasets import load_csv
    from optuna_psms.fms.datasets import load_dataset

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
    from optuna_psms.fms.datasets import drop_names

    names = drop_names(drop)
    return f" without {', '.join(map(repr, names))}" if names else ""


#: The start of the Python warning about an identifier-like column, which ``select`` prints
#: itself (once, for all rows, with the command-line remedy) before the search.
_IDENTIFIER_WARNING = r"column .* looks like a row identifier"
#: Likewise for a text column of numbers or dates.
_TEXT_NUMBER_WARNING = r"column .* holds (numbers|dates) written as text"


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


# ----------------------------------------------------------------------------- the steps
def _open_study(
    args: argparse.Namespace, settings: StudySettings, X: Any, y: Any, label: str
) -> tuple[Any, str, StudySettings, tuple[Any, ...]]:
    """Create or join the study.

    Every setting is checked before the study is created or joined (a mistake must not leave
    a study behind); the split's seed is the one a new study gets, and a joining worker
    without ``--seed`` may get the study's.

    Returns:
        ``(storage, study name, settings as stored, (X_search, y_search, X_held, y_held))``.
    """
    import optuna

    study_name = args.study_name or new_study_name(label)
    provisional = name_seed(study_name) if settings.seed is None else settings.seed
    hint = classes_hint(args, y, settings.task)
    parts = check_search_rows(settings, X, y, provisional, hint)
    storage = open_storage(args.storage)
    if args.study_name is None:  # a made-up name: never join another run's study by chance
        study_name = unused_name(storage, study_name)
        if settings.seed is None and name_seed(study_name) != provisional:
            provisional = name_seed(study_name)
            parts = check_search_rows(settings, X, y, provisional, hint)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    settings = join(storage, study_name, settings)
    seed = settings.study_seed
    if seed != provisional:
        parts = check_search_rows(settings, X, y, seed, hint)
    return storage, study_name, settings, parts


def _search_model(
    args: argparse.Namespace,
    settings: StudySettings,
    storage: Any,
    study_name: str,
    **choice: Any,
) -> Any:
    """The estimator whose ``fit`` runs this worker's trials in the study."""
    from optuna_psms.fms import make_sampler

    seed = settings.study_seed
    return selector(
        settings,
        seed,
        **choice,
        sampler=make_sampler(settings.sampler, seed),
        callbacks=publish_callbacks(args.publish_every),
        n_trials=args.n_trials,
        timeout=args.timeout,
        trial_timeout=args.trial_timeout,
        time_budget=args.time_budget,
        trial_memory=args.trial_memory,
        # Without a terminal (no progress bar), a line every 30 s says how the budget goes.
        verbose=1 if args.time_budget is not None and not show_progress_bar(args) else 0,
        storage=storage,
        study_name=study_name,
        load_if_exists=True,
        n_jobs=args.n_jobs,
        show_progress_bar=show_progress_bar(args),
    )


def _print_start(
    args: argparse.Namespace,
    settings: StudySettings,
    label: str,
    storage: Any,
    study_name: str,
    parts: tuple[Any, ...],
) -> None:
    """The first line: the data, the rows, the search's settings and the study."""
    import optuna

    from optuna_psms.storages import hide_password

    _, y_search, _, y_held = parts
    held_note = f", {len(y_held)} held out" if y_held is not None else ", no hold-out"
    name, sign = shown(settings.metric)
    before = [
        t.state
        for t in optuna.load_study(study_name=study_name, storage=storage).get_trials(
            deepcopy=False
        )
    ]
    print(
        f"Full model selection ({settings.task}) on {label}{_without(args.drop)}: "
        f"{len(y_search)} search rows{held_note}; "
        f"sampler {settings.sampler}, {settings.cv}-fold CV "
        f"{name}{' (higher is better)' if sign < 0 else ''}, "
        f"seed {settings.study_seed}; study '{study_name}' in {hide_password(args.storage)}"
        f"{continued_note(before)}"
    )


#: The options that bound a trial, in the command's words.
TIME_FLAGS = "--trial-timeout or --time-budget"


@contextlib.contextmanager
def _no_optuna_info() -> Iterator[None]:
    """Keep Optuna's per-trial INFO lines out of the command's output while the search
    runs with ``verbose=1`` (for its progress lines, without a terminal): the command shows
    Optuna's errors only."""
    import logging

    class _ErrorsOnly(logging.Filter):
        def filter(self, record: logging.LogRecord) -> bool:
            return record.levelno >= logging.ERROR

    handlers = logging.getLogger("optuna").handlers
    quiet = _ErrorsOnly()
    for handler in handlers:
        handler.addFilter(quiet)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(quiet)


def _one_line(shown: Any) -> Any:
    """``warnings.showwarning`` that says the search's short-budget warning as one
    ``warning:`` line in the command's words (before the search), and others as ``shown``."""
    from optuna_psms.fms._cost import LEFT_OUT
    from optuna_psms.fms._cost import MAY_NOT_FINISH
    from optuna_psms.fms._initial import API_ADVICE
    from optuna_psms.fms._initial import CLI_ADVICE
    from optuna_psms.fms._initial import SHORT_BUDGET_MARK

    def show(message: Any, category: Any, filename: str, lineno: int, *rest: Any) -> None:
        text = str(message)
        if SHORT_BUDGET_MARK in text:
            warn(f"warning: {text.replace(API_ADVICE, CLI_ADVICE)}")
        elif LEFT_OUT in text:  # the default pool at this size: said as a note
            warn(f"note: {text}")
        elif MAY_NOT_FINISH in text:  # a pool the command line chose
            warn(f"warning: {text.replace('trial_timeout or time_budget', TIME_FLAGS)}")
        else:
            shown(message, category, filename, lineno, *rest)

    return show


def _search(model: Any, X: Any, y: Any) -> bool:
    """Run the search (``model.fit``); whether Ctrl-C cut it short.

    A Ctrl-C in Optuna's own code (the sampler, a storage write) leaves its trial ``RUNNING``:
    the trials this process started and left so are failed, marked ``fms:interrupted``, so
    that a rerun does not take them for another worker's. With ``--n-jobs`` above 1 the first
    Ctrl-C lets the trials in progress finish, and a line says so at once.

    Raises:
        UserError: The search refused the data or its settings.
    """
    from optuna_psms._compat._interrupted import cut_by_ctrl_c
    from optuna_psms.fms._ensemble import WHOLE_STUDY_VOTE

    # fit fails the trials a Ctrl-C leaves RUNNING, says the n_jobs > 1 line and raises a
    # KeyboardInterrupt (also for an exception a Ctrl-C caused: trials_failed_on_ctrl_c).
    try:
        # The identifier and text-number warnings are said above, for all rows.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=_IDENTIFIER_WARNING, category=UserWarning)
            warnings.filterwarnings("ignore", message=_TEXT_NUMBER_WARNING, category=UserWarning)
            # Said below the saved model's lines, for the vote saved, with the flags' names.
            warnings.filterwarnings("ignore", message=WHOLE_STUDY_VOTE, category=UserWarning)
            warnings.showwarning = _one_line(warnings.showwarning)
            with _no_optuna_info():
                model.fit(X, y)
    except KeyboardInterrupt:
        return True
    except Exception as exc:
        if cut_by_ctrl_c(exc):  # after the search (the refit in fit): nothing left RUNNING
            return True
        if isinstance(exc, ValueError | RuntimeError):
            raise UserError(str(exc), original=exc) from None
        raise
    return False


def _save(
    args: argparse.Namespace,
    settings: StudySettings,
    study: Any,
    searched: Any,
    best: Any,
    X: Any,
    y: Any,
    *,
    check_line: bool = False,
    **vote: Any,
) -> None:
    """Refit the chosen pipeline (or the vote) on all rows, save it and say how to apply it
    (``check_line``: first print the final check's line, not printed with a hold-out)."""
    _announce_slow_refit(best, f"all {len(y)} rows")
    final = _refit(settings, searched, best, X, y, **vote)
    if check_line:
        print_final_check(final)
    save_to = args.output or DEFAULT_OUTPUT
    # Every search without --output saves to the one default file: say when it replaces one
    # (a new user's breast-cancer model was silently replaced by another dataset's).
    replacing = ""
    if args.output is None and os.path.exists(save_to):
        replacing = " (replacing the model that was there; --output FILE saves elsewhere)"
    save_model(final, save_to)
    print(f"Model refitted on all {len(y)} rows, saved to {save_to}{replacing}")
    note_saved(study, final, save_to, len(y))
    voters = [t.number for t in getattr(final, "ensemble_trials_", None) or []]
    if getattr(final, "final_choice_", "vote") == "svc":
        svc = final.final_check_["svc"]
        print(
            f"  it predicts with the grid-tuned RBF SVC of the final check (C={svc['C']:g}, "
            f"gamma={svc['gamma']}), not the search's pipelines"
        )
    elif len(voters) > 1:
        shown = ", ".join(map(str, voters))
        print(
            f"  it predicts by a vote of the {len(voters)} best distinct pipelines (trials "
            f"{shown}; --ensemble-top 1: trial {best.number} alone)"
        )
    print(f"  apply it: optuna-psms predict --model {save_to} --csv NEW.csv")
    warning = whole_study_vote(searched, len(voters), int(args.ensemble_top))
    if warning is not None:
        warn(warning)  # below the lines it qualifies, through a pipe too


# ----------------------------------------------------------------------------- the command
def run(args: argparse.Namespace) -> int:
    """Run (or join) the search, report, refit and save."""
    with said_once():  # the final check's skip is said in the report, not logged too
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    require_fms()
    # Ctrl-C must reach us even when started in the background by a non-interactive shell.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    check_args(args)
    X, y, label = _load(args)
    check_target_complete(y, label)
    settings = search_settings(args, X, y)
    hint = auto_task_warning(args, y, settings.task)
    if hint is not None:
        warn(hint)
    classification = settings.task == "classification"
    # The final choice is not a setting of the study (workers may differ); kept aside.
    choice = {"reselect_top": int(args.reselect_top), "reselect_cv": int(args.reselect_cv)}
    # The vote of the best few (FullModelSelector only); the refits below use it too.
    vote: dict[str, Any] = {"ensemble_top": int(args.ensemble_top)} if classification else {}
    # --final-check: None (not given) is the estimator's default, a check for a
    # classification; a regression has none, and saying --final-check svc there is refused.
    final_check = getattr(args, "final_check", None)
    if classification:
        vote["final_check"] = None if final_check == "none" else "svc"
    elif final_check == "svc":
        raise UserError("--final-check svc is for classification; this is a regression")
    initial = {}
    if args.initial_pipelines is not None:
        initial["initial_pipelines"] = (
            None if args.initial_pipelines == "none" else args.initial_pipelines
        )
    choice.update(vote)
    storage, study_name, settings, parts = _open_study(args, settings, X, y, label)
    model = _search_model(args, settings, storage, study_name, **choice, **initial)
    # Once the data are accepted: above a refusal (a single class, ...) it was only noise.
    for line in identifier_warnings(X) + text_number_warnings(X):
        warn(line)
    _print_start(args, settings, label, storage, study_name, parts)
    sys.stdout.flush()  # before the progress bar and the search's warnings, on stderr
    X_search, y_search, _, y_held = parts
    before = file_stamp(args.output or DEFAULT_OUTPUT)
    interrupted = _search(model, X_search, y_search)
    # Ctrl-C during the choice, the refits or the save (a second one after a first that
    # stopped the search) saves nothing: the last line says so, not just "interrupted".
    try:
        read = read_back(args, storage, study_name, interrupted)
        if read is None:
            return 130
        study, n_done, failed, n_running = read
        if interrupted:
            model = None  # the search's own refit did not happen
        done = f"{n_done} complete, {failed} in the study"
        best = choose(settings, study, parts, done, **choice)
        if args.output is None and n_running > 0 and not interrupted:
            print(
                f"{n_running} trial(s) of other workers still running: the last worker saves "
                f"the model (or pass --output FILE to save now)"
            )
            return 0
        searched = search_copy(storage, study_name)
        if y_held is not None:
            if not is_the_saved_model(model, searched, best, vote):
                # Interrupted, or other workers' trials finished since this fit ended: a better
                # pipeline, or others in the vote.
                _announce_slow_refit(best, f"the {len(y_search)} search rows")
                model = _refit(settings, searched, best, X_search, y_search, **vote)
            else:
                # The save's refit reuses this check (the study may hold another worker's,
                # of another vote, which it would check again on all the rows).
                keep_check(model, searched)
            print_final_check(model)
            report_held_out(settings, model, study, best, parts)
        else:
            print("held-out: none (--test-size 0), so no estimate free of the selection")
        # Below the scores it qualifies: "held-out ber 0.0000" on 2 rows read as a result.
        caution = small_data_warning(settings, y_search, y_held)
        if caution is not None:
            warn(caution)
        _save(args, settings, study, searched, best, X, y, check_line=y_held is None, **vote)
    except KeyboardInterrupt:
        warn(not_saved(args, study_name, interrupted, before))
        return 130
    try:
        publish_figures(study, args.storage)
    except KeyboardInterrupt:  # the model is saved: say so, not a bare "interrupted"
        warn(figures_not_written(args, study_name))
        return 130
    return 130 if interrupted else 0
