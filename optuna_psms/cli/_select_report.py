"""What ``optuna-psms select`` reports after its search: the study read back, the chosen
trial with its CV value, the final check's line and the warning when the vote takes every
pipeline of the study. Split from :mod:`optuna_psms.cli.select`, which runs the steps."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
import contextlib
import logging
from typing import Any

from optuna_psms.cli._common import UserError
from optuna_psms.cli._common import warn
from optuna_psms.cli._interrupt import resume_hint
from optuna_psms.cli._select_model import selector
from optuna_psms.fms._join import StudySettings
from optuna_psms.fms.holdout import shown


def failed_words(trials: list[Any]) -> str:
    """``"3 failed"``, or ``"3 failed (1 interrupted by Ctrl-C)"`` when Ctrl-C cut some of
    the failed ``trials`` (their pipelines did not fail; attr ``fms:interrupted``)."""
    import optuna

    from optuna_psms.fms._outcome import INTERRUPTED

    failed = [t for t in trials if t.state == optuna.trial.TrialState.FAIL]
    cut = sum(t.user_attrs.get(INTERRUPTED) is True for t in failed)
    return f"{len(failed)} failed" + (f" ({cut} interrupted by Ctrl-C)" if cut else "")


def read_back(
    args: argparse.Namespace, storage: Any, study_name: str, interrupted: bool
) -> tuple[Any, int, str, int] | None:
    """The study after the search, its number of complete trials, the failed ones in words
    (:func:`failed_words`) and its number of running trials;
    ``None`` (exit 130) when Ctrl-C cut the search before a trial completed, or cut a storage
    call short (after one line saying how to resume)."""
    import optuna

    from optuna_psms.storages import hide_password

    shown = hide_password(args.storage)
    resume = resume_hint(args, study_name)
    try:
        study = optuna.load_study(study_name=study_name, storage=storage)
        trials = study.get_trials(deepcopy=False)
    except Exception as exc:  # the interrupt cut a storage call short
        if not interrupted:
            raise
        warn(
            f"optuna-psms: interrupted; study '{study_name}' is kept in {shown} (not read "
            f"back: {type(exc).__name__}): {resume}"
        )
        return None
    states = [t.state for t in trials]
    n_done = states.count(optuna.trial.TrialState.COMPLETE)
    failed = failed_words(trials)
    n_running = states.count(optuna.trial.TrialState.RUNNING)
    if interrupted:
        warn(
            f"optuna-psms: interrupted; study '{study_name}' is kept in {shown} "
            f"({n_done} complete): {resume}"
        )
        if n_done == 0:
            return None
        # The choice, the final check and the refits still run, silently for seconds or
        # minutes after "interrupted" (a new user's trial, 26 Nov 2026: 20 s).
        trials_word = "trial" if n_done == 1 else "trials"
        warn(
            f"  the model of the {n_done} complete {trials_word} is chosen and saved before "
            "exiting (Ctrl-C again: nothing is saved) ..."
        )
    return study, n_done, failed, n_running


def choose(
    settings: StudySettings, study: Any, parts: tuple[Any, ...], done: str, **choice: Any
) -> Any:
    """The chosen trial (``--reselect-top`` may re-evaluate the best few), printed with its
    CV value; ``done`` is the ``[N complete, M failed in the study]`` part."""
    chooser = selector(settings, settings.study_seed, **choice)
    try:
        best = chooser.choose_trial(parts[0], parts[1], study)
    except (ValueError, RuntimeError) as exc:
        raise UserError(f"cannot choose the pipeline: {exc}", original=exc) from None
    described = best.user_attrs.get("fms:pipeline", best.params)
    # A trial of --initial-pipelines is not the sampler's find: say so.
    start = " of the initial pipelines" if "fms:initial" in best.user_attrs else ""
    print(f"Best search pipeline (trial {best.number}{start}): {described}")
    name, sign = shown(settings.metric)  # "accuracy ...: 0.97", not "-accuracy ...: -0.97"
    better = ", higher is better" if sign < 0 else ""
    print(
        f"CV {name} on search data ({settings.cv}-fold{better}): {sign * best.value:.4f}  [{done}]"
    )
    record = study.user_attrs.get("fms:reselect")
    if (
        (chooser.reselect_top or 0) >= 2
        and isinstance(record, dict)
        and record.get("trial") == best.number
    ):
        print(
            f"  chosen among the {len(record['losses'])} best by {record['cv']}-fold CV: "
            f"{sign * record['losses'][str(best.number)]:.4f} "
            f"({'lowest' if sign > 0 else 'highest'}; the best search value "
            f"{sign * study.best_value:.4f} was trial {study.best_trial.number})"
        )
    return best


def print_final_check(model: Any) -> None:
    """Print the ``--final-check`` line of a fitted model: the choice and both CV losses on
    the search rows (nothing without the check)."""
    from optuna_psms.fms._final_check import describe

    record = getattr(model, "final_check_", None)
    if record is not None:
        print(describe(record))


@contextlib.contextmanager
def said_once() -> Iterator[None]:
    """Silence the final check's logged warning (a skip) for the block: ``select`` prints
    the skip, with its reason, in its report (:func:`print_final_check`), once."""
    logger = logging.getLogger("optuna_psms.fms._final_check")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def whole_study_vote(study: Any, n_voters: int, top: int) -> str | None:
    """The ``warning:`` line when the vote holds every distinct complete pipeline of the
    study (``--n-trials`` at most ``--ensemble-top``), the worst included; ``None`` when
    the study had more to choose from. The default stays 10: with the README's 60 to 100
    trials the vote is of the best sixth or tenth (usertrial3, 26 Nov 2026)."""
    from optuna_psms.fms._ensemble import holds_whole_study

    if not holds_whole_study(study, n_voters):
        return None
    return (
        f"warning: the vote holds all {n_voters} distinct complete pipelines of the study, "
        f"the worst included (--ensemble-top {top}): run more trials than that, or pass "
        f"--ensemble-top 1 to keep the chosen pipeline alone"
    )


def is_the_saved_model(model: Any, searched: Any, best: Any, vote: dict[str, Any]) -> bool:
    """Whether ``model``, fitted when this worker's search ended, is what ``select``'s save refits
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
