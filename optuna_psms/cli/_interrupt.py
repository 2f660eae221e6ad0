"""What ``select`` says when Ctrl-C stops it: how to resume the study, when Ctrl-C cut the
steps after the search, that no model was saved, and when it cut the dashboard figures after
the save, that the model was saved. (That the trials in progress finish first, with
``--n-jobs`` above 1, ``fit`` says: :mod:`optuna_psms._compat._interrupted`.)"""

from __future__ import annotations

import argparse
import os

from optuna_psms._compat._interrupted import finishing_line as finishing_line
from optuna_psms.cli._select_args import DEFAULT_OUTPUT


def resume_hint(args: argparse.Namespace, study_name: str, more: str = "") -> str:
    """How to resume the study: ``the same command resumes it``, with ``--study-name`` when
    the command named none, and how many trials the rerun adds.

    Args:
        args: The command's arguments.
        study_name: The study's name.
        more: Added inside the closing parenthesis, e.g. ``"; --n-trials 1 runs one"``.
    """
    # Without --study-name the same command starts a new timestamped study: say how to resume.
    if args.study_name:
        resume = "the same command resumes it"
    else:
        resume = f"resume it with the same command and --study-name {study_name}"
    # A rerun adds --n-trials trials to those already in the study; not "up to" that number.
    if args.n_trials is None:  # --time-budget alone: a rerun searches for another budget
        return resume + f" (it searches for another --time-budget {args.time_budget:g} s{more})"
    trials = f"{args.n_trials} more trial{'' if args.n_trials == 1 else 's'}"
    return resume + f" (it runs {trials}: --n-trials counts each run's{more})"


def file_stamp(path: str) -> tuple[int, int, int] | None:
    """``(inode, size, mtime in ns)`` of ``path``, or ``None`` when there is no such file."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_ino, stat.st_size, stat.st_mtime_ns


def not_saved(
    args: argparse.Namespace, study_name: str, again: bool, before: tuple[int, int, int] | None
) -> str:
    """The last line when Ctrl-C cut the steps after the search (the choice, the refits, the
    save): no model was saved, the study is kept, and how to resume it and save one.

    Args:
        args: The command's arguments.
        study_name: The study's name.
        again: Whether a first Ctrl-C had stopped the search (this is the second).
        before: :func:`file_stamp` of the output file before the search; a file changed since
            means the cut came after the model was saved (the save renames a finished file),
            and the line says so instead.
    """
    from optuna_psms.storages import hide_password

    path = args.output or DEFAULT_OUTPUT
    now = file_stamp(path)
    if now is not None and now != before:
        return f"optuna-psms: interrupted after the model was saved to {path}"
    kept = f"{path} is unchanged, the model from before" if now else f"{path} not written"
    resume = resume_hint(args, study_name, "; --n-trials 1 runs one")
    return (
        f"optuna-psms: interrupted{' again' if again else ''} before the model was saved: no "
        f"model saved ({kept}); study '{study_name}' is kept in "
        f"{hide_password(args.storage)}, and a rerun saves the model: {resume}"
    )


def figures_not_written(args: argparse.Namespace, study_name: str) -> str:
    """The last line when Ctrl-C cut the dashboard figures, the step after the save: the
    model was saved, the figures were not, and the Python line that writes them.

    Args:
        args: The command's arguments.
        study_name: The study's name.
    """
    from optuna_psms.storages import dashboard_argument
    from optuna_psms.storages import hide_password

    path = args.output or DEFAULT_OUTPUT
    storage = hide_password(args.storage)
    redo = (
        f'python -c "import optuna; from optuna_psms.storages import open_storage; '
        f"from optuna_psms.visualization import publish; "
        f"publish(optuna.load_study(study_name={study_name!r}, "
        f'storage=open_storage({storage!r})))"'
    )
    if storage != args.storage:
        redo += ", with the password in place of ***"
    return (
        f"optuna-psms: interrupted after the model was saved to {path}: the dashboard "
        f"figures were not written (optuna-dashboard {dashboard_argument(args.storage)} "
        f"shows the study without them; to write them: {redo})"
    )
