"""The run of ``optuna-psms select`` (imported when the command runs; its arguments are
:mod:`optuna_psms.cli._select_args`, its documentation :mod:`optuna_psms.cli.select`).

The workflow is the library's (:func:`optuna_psms.fms.select.run_selection`, the one
:func:`~optuna_psms.fms.select_model` runs): this module reads the data, makes its settings
of the arguments, prints what the workflow reports (:class:`_Printer`), saves the model and
says what a Ctrl-C left behind.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
import contextlib
import logging
import os
import signal
import sys
from typing import Any
import warnings

from optuna_psms.cli._common import comma_list
from optuna_psms.cli._common import require_fms
from optuna_psms.cli._common import save_model
from optuna_psms.cli._common import show_progress_bar
from optuna_psms.cli._common import UserError
from optuna_psms.cli._common import warn
from optuna_psms.cli._interrupt import figures_not_written
from optuna_psms.cli._interrupt import file_stamp
from optuna_psms.cli._interrupt import not_saved
from optuna_psms.cli._interrupt import resume_hint
from optuna_psms.cli._select_args import check_args
from optuna_psms.cli._select_args import DEFAULT_OUTPUT
from optuna_psms.fms.select import final_check_line
from optuna_psms.fms.select import run_selection
from optuna_psms.fms.select import SearchStopped
from optuna_psms.fms.select import SelectChoice
from optuna_psms.fms.select import SelectInterrupted
from optuna_psms.fms.select import SelectReport
from optuna_psms.fms.select import SelectSettings
from optuna_psms.fms.select import SelectStart


# A chosen pipeline whose CV in the search took at least this many seconds gets a line before
# each refit after the search: with the progress bar at 100 %, minutes of silence look hung.
SLOW_REFIT_SECONDS = 30.0

#: The start of the Python warning about an identifier-like column, which ``select`` prints
#: itself (once, for all rows, with the command-line remedy) before the search.
_IDENTIFIER_WARNING = r"column .* looks like a row identifier"
#: Likewise for a text column of numbers or dates.
_TEXT_NUMBER_WARNING = r"column .* holds (numbers|dates) written as text"
#: The options that bound a trial, in the command's words.
TIME_FLAGS = "--trial-timeout or --time-budget"


# ----------------------------------------------------------------------------- arguments
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


def settings_of(args: argparse.Namespace) -> SelectSettings:
    """The workflow's settings of the (checked) arguments."""
    models = comma_list(args.classifiers)
    selectors = comma_list(args.selectors)
    progress = show_progress_bar(args)
    return SelectSettings(
        task=args.task,
        metric=args.metric,
        sampler=args.sampler,
        n_trials=args.n_trials,
        timeout=args.timeout,
        trial_timeout=args.trial_timeout,
        cv=int(args.cv),
        test_size=float(args.test_size),
        subsample=float(args.subsample),
        ensemble_top=int(args.ensemble_top),
        # --final-check: not given is the default, a check for a classification.
        final_check=None if getattr(args, "final_check", None) == "none" else "svc",
        initial_pipelines=None if args.initial_pipelines == "none" else "defaults",
        models=None if models is None else tuple(models),
        selectors=None if selectors is None else tuple(selectors),
        seed=args.seed,
        storage=args.storage,
        study_name=args.study_name,
        n_jobs=args.n_jobs,
        reselect_top=int(args.reselect_top),
        reselect_cv=int(args.reselect_cv),
        time_budget=args.time_budget,
        trial_memory=args.trial_memory,
        publish_every=args.publish_every,
        # Without --output the last worker saves the model.
        leave_to_last_worker=args.output is None,
        # Without a terminal (no progress bar), a line every 30 s says how the budget goes.
        verbose=1 if args.time_budget is not None and not progress else 0,
        show_progress_bar=progress,
    )


# ----------------------------------------------------------------------------- printing
@contextlib.contextmanager
def _no_optuna_info() -> Iterator[None]:
    """Keep Optuna's per-trial INFO lines out of the command's output while the search
    runs with ``verbose=1`` (for its progress lines, without a terminal): the command shows
    Optuna's errors only."""

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


@contextlib.contextmanager
def said_once() -> Iterator[None]:
    """Silence the final check's logged warning (a skip) for the block: ``select`` prints
    the skip, with its reason, in its report (the final check's line), once."""
    logger = logging.getLogger("optuna_psms.fms._final_check")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


class _Printer(SelectReport):
    """What ``select`` prints of the workflow's events; it saves the model too."""

    def __init__(self, args: argparse.Namespace, label: str) -> None:
        self.args = args
        self.label = label

    def warning(self, line: str) -> None:
        warn(line)

    def started(self, start: SelectStart) -> None:
        print(start.line(f"{self.label}{_without(self.args.drop)}"))
        sys.stdout.flush()  # before the progress bar and the search's warnings, on stderr

    @contextlib.contextmanager
    def searching(self) -> Iterator[None]:
        from optuna_psms.fms._ensemble import WHOLE_STUDY_VOTE

        # The identifier and text-number warnings are said above, for all rows.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=_IDENTIFIER_WARNING, category=UserWarning)
            warnings.filterwarnings("ignore", message=_TEXT_NUMBER_WARNING, category=UserWarning)
            # Said below the saved model's lines, for the vote saved, with the flags' names.
            warnings.filterwarnings("ignore", message=WHOLE_STUDY_VOTE, category=UserWarning)
            warnings.showwarning = _one_line(warnings.showwarning)
            with _no_optuna_info():
                yield

    def interrupted(self, stop: SearchStopped) -> None:
        from optuna_psms.storages import hide_password

        where = f"study '{stop.study_name}' is kept in {hide_password(self.args.storage)}"
        resume = resume_hint(self.args, stop.study_name)
        if stop.complete is None:
            name = type(stop.error).__name__
            warn(f"optuna-psms: interrupted; {where} (not read back: {name}): {resume}")
            return
        warn(f"optuna-psms: interrupted; {where} ({stop.complete} complete): {resume}")
        if stop.complete:
            # The choice, the final check and the refits still run, silently for seconds or
            # minutes after "interrupted" (a new user's trial, 26 Nov 2026: 20 s).
            trials_word = "trial" if stop.complete == 1 else "trials"
            warn(
                f"  the model of the {stop.complete} complete {trials_word} is chosen and "
                "saved before exiting (Ctrl-C again: nothing is saved) ..."
            )

    def chosen(self, choice: SelectChoice) -> None:
        for line in choice.lines():
            print(line)

    def deferred(self, running: int) -> None:
        print(
            f"{running} trial(s) of other workers still running: the last worker saves "
            f"the model (or pass --output FILE to save now)"
        )

    def refitting(self, trial: Any, rows: str) -> None:
        seconds = trial.user_attrs.get("fms:fit_time")
        if isinstance(seconds, int | float) and seconds >= SLOW_REFIT_SECONDS:
            print(
                f"  refitting trial {trial.number} on {rows} (its CV took {seconds:.0f} s in "
                f"the search) ...",
                flush=True,
            )

    def final_check(self, model: Any) -> None:
        line = final_check_line(model)
        if line is not None:
            print(line)

    def held_out(self, score: Any) -> None:
        if score is None:
            print("held-out: none (--test-size 0), so no estimate free of the selection")
        else:
            print(score.line)

    def refitted(self, model: Any, rows: int, trial: Any) -> str:
        args = self.args
        save_to: str = args.output or DEFAULT_OUTPUT
        # Every search without --output saves to the one default file: say when it replaces
        # one (a new user's breast-cancer model was silently replaced by another dataset's).
        replacing = ""
        if args.output is None and os.path.exists(save_to):
            replacing = " (replacing the model that was there; --output FILE saves elsewhere)"
        save_model(model, save_to)
        print(f"Model refitted on all {rows} rows, saved to {save_to}{replacing}")
        voters = [t.number for t in getattr(model, "ensemble_trials_", None) or []]
        if getattr(model, "final_choice_", "vote") == "svc":
            svc = model.final_check_["svc"]
            print(
                f"  it predicts with the grid-tuned RBF SVC of the final check (C={svc['C']:g}, "
                f"gamma={svc['gamma']}), not the search's pipelines"
            )
        elif len(voters) > 1:
            shown = ", ".join(map(str, voters))
            print(
                f"  it predicts by a vote of the {len(voters)} best distinct pipelines (trials "
                f"{shown}; --ensemble-top 1: trial {trial.number} alone)"
            )
        print(f"  apply it: optuna-psms predict --model {save_to} --csv NEW.csv")
        return save_to

    def figures(self, skipped: str | None) -> None:
        from optuna_psms.storages import dashboard_argument

        if skipped is not None:
            print(f"  dashboard figures skipped: {skipped}")
        print(f"  dashboard: optuna-dashboard {dashboard_argument(self.args.storage)}")


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
    settings = settings_of(args)
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)  # the command's own lines report
    before = file_stamp(args.output or DEFAULT_OUTPUT)
    try:
        selection = run_selection(
            X,
            y,
            settings,
            _Printer(args, label),
            label=label,
            target=args.target,
            final_check_given=getattr(args, "final_check", None) == "svc",
        )
    except SelectInterrupted as stop:
        if stop.stage == "figures":  # the model is saved: say so, not a bare "interrupted"
            warn(figures_not_written(args, stop.study_name))
        else:
            warn(not_saved(args, stop.study_name, stop.again, before))
        return 130
    if selection is None:
        return 130
    return 130 if selection.interrupted else 0
