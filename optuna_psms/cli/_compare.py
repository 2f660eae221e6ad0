"""``optuna-psms compare``: the sub-command's run (arguments: :mod:`optuna_psms.cli.compare`)."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from typing import Any

import optuna

from optuna_psms.cli._common import show_progress_bar
from optuna_psms.cli._common import warn
from optuna_psms.compare._objective import ObjectiveError
from optuna_psms.compare._objective import ObjectiveSpec
from optuna_psms.compare._stats import SEED_NOTE
from optuna_psms.compare._studies import ComparisonError
from optuna_psms.compare._studies import parse_samplers
from optuna_psms.storages import dashboard_argument
from optuna_psms.storages import hide_password


def _spec(args: argparse.Namespace) -> tuple[ObjectiveSpec, str | None, list[str]]:
    """The objective of ``args``, for full model selection on too few rows the one
    ``warning:`` line that ``select`` prints (else ``None``), and the ``warning:`` lines about
    identifier-like columns and text columns of numbers or dates (printed once the comparison
    starts)."""
    if args.target is not None and args.csv is None:
        raise ComparisonError("--target is only used with --csv")
    if args.drop is not None and args.csv is None and args.dataset is None:
        raise ComparisonError("--drop is only used with --csv or --dataset")
    if args.instance != 1 and not (args.function or "").lower().startswith("bbob:"):
        raise ComparisonError("--instance is only used with --function bbob:fN")
    if args.initial_pipelines is not None and args.csv is None and args.dataset is None:
        raise ComparisonError(
            "--initial-pipelines is only used with --csv or --dataset (full model selection)"
        )
    if args.direction != "minimize" and args.objective is None:
        raise ComparisonError("--direction is only used with --objective (the others minimize)")
    # An option of another kind of objective was ignored without a word (--metric accuracy
    # on --function sphere ran the function, --dim 3 on --csv the data).
    if args.function is None:
        for option, value in (("--dim", args.dim), ("--no-shift", args.no_shift or None)):
            if value is not None:
                raise ComparisonError(f"{option} is only used with --function")
    fms = {"--cv": args.cv, "--metric": args.metric, "--subsample": args.subsample}
    if args.csv is None and args.dataset is None:
        for option, value in fms.items():
            if value is not None:
                raise ComparisonError(
                    f"{option} is only used with --csv or --dataset (full model selection)"
                )
    if args.function is not None:
        function = ObjectiveSpec(
            "function",
            args.function,
            dim=10 if args.dim is None else args.dim,
            shifted=not args.no_shift,
            instance=args.instance,
        )
        return function, None, []
    if args.objective is not None:
        return ObjectiveSpec("callable", args.objective, path=os.getcwd()), None, []
    from optuna_psms.fms.datasets import drop_names

    cv = 2 if args.cv is None else args.cv
    metric = "ber" if args.metric is None else args.metric
    subsample = 1.0 if args.subsample is None else args.subsample
    common: dict[str, Any] = {
        "cv": cv,
        "metric": metric,
        "subsample": subsample,
        "drop": tuple(drop_names(args.drop)),
        # As select: the four textbook pipelines first unless --initial-pipelines none.
        "initial_pipelines": None if args.initial_pipelines == "none" else "defaults",
    }
    if args.csv is not None:
        if args.target is None:
            raise ComparisonError("--csv needs --target COLUMN (the label column)")
        spec = ObjectiveSpec("csv", args.csv, target=args.target, **common)
    else:
        spec = ObjectiveSpec("dataset", args.dataset, **common)
    from optuna_psms.fms._join import StudySettings
    from optuna_psms.fms.datasets import identifier_warnings
    from optuna_psms.fms.datasets import text_number_warnings
    from optuna_psms.fms.holdout import small_data_warning

    # Loaded here, once (spec.load() keeps the data for the comparison): a --drop naming no
    # column is a mistake of this command, said here, and so is an identifier-like column
    # left in (one warning line each, as in `select`).
    X, y = spec.load()
    # Every row is searched (no hold-out): only the CV part of select's caution applies, on
    # the rows each trial draws with --subsample.
    settings = StudySettings(cv=cv, metric=metric, subsample=subsample)
    columns = identifier_warnings(X) + text_number_warnings(X)
    return spec, small_data_warning(settings, y, None), columns


def _short_budget(initial: str | None, n_trials: int) -> list[str]:
    """The line saying that ``--n-trials`` is all initial pipelines, so every sampler's
    studies are the same (``[]`` when the samplers propose some trials)."""
    from optuna_psms.fms._initial import CLI_ADVICE
    from optuna_psms.fms._initial import portfolio_size
    from optuna_psms.fms._initial import short_budget_message

    if initial is None:
        return []
    advice = f"every sampler's studies will be identical: {CLI_ADVICE}"
    line = short_budget_message(n_trials, portfolio_size(initial), advice)
    return [] if line is None else [f"warning: {line}"]


def _count(n: int, word: str, plural: str = "") -> str:
    """``"1 trial"``, ``"2 trials"``; ``plural`` when not ``word + "s"``."""
    return f"{n} {word if n == 1 else plural or word + 's'}"


def _check_report(path: str) -> None:
    """Refuse, before the run, a report that could not be written after it.

    Raises:
        ComparisonError: ``path`` is a directory, or its directory does not exist or is not
            writable.
    """
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise ComparisonError(f"--report {path}: is a directory; give a file name (FILE.html)")
    if not os.path.isdir(folder):
        raise ComparisonError(f"--report {path}: directory {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise ComparisonError(f"--report {path}: cannot write in directory {folder}")


# What the dashboard's *Best Trial* value of a full-model-selection comparison's study is.
_BEST_TRIAL_NOTE = (
    "The *Best Trial* value is the best of this search's cross-validated scores on all rows "
    "(no rows held out): optimistic, not an estimate of the error on new data "
    "(`optuna-psms select` holds rows out for that). Use it to compare the samplers."
)


def _publish(result: Any, fms: bool = False) -> int:
    """Save each study's own figures into it (``optuna_psms.visualization.publish``, which
    never raises), so that optuna-dashboard shows them; the number of studies.

    With ``fms`` (a full model selection) each study's note also says what its *Best Trial*
    value is: the dashboard showed it with nothing to say it is a CV score on all rows, not
    a held-out estimate as beside a ``select`` study's (a new user's trial, 28 Nov 2026).
    """
    from optuna_psms.compare._studies import ATTR_OBJECTIVE
    from optuna_psms.samplers._study_info import note_comparison
    import optuna_psms.visualization as visualization

    studies = [s for members in result.studies.values() for s in members]
    for study in studies:
        visualization.publish(study)
        if fms:
            what = study.user_attrs.get(ATTR_OBJECTIVE)
            objective = f"This study is one run of a comparison: {what}. " if what else ""
            note_comparison(study, objective + _BEST_TRIAL_NOTE)
    return len(studies)


def _dashboard_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("optuna_dashboard") is not None


def run(args: argparse.Namespace) -> int:
    """Run ``optuna-psms compare``.

    Raises:
        optuna_psms.cli.UserError: Bad input, existing studies without ``--resume``, or a
            failing objective (the comparison stays resumable).
    """
    from optuna_psms.cli import UserError
    from optuna_psms.compare import compare_samplers

    # Optuna logs each failed trial with its traceback at WARNING: a failing objective is
    # reported in one line instead, and failed FMS pipelines keep their reason in fms:error.
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    bar: Any = None
    first = ""  # the first line, printed by on_start
    data_warnings: list[str] = []  # printed by on_start too

    def on_start(n_trials: int, n_studies: int) -> None:
        nonlocal bar
        # The first line once everything is checked (the data, the objective, the storage,
        # the studies of a resumed comparison): a refused run prints its one error line only.
        for line in data_warnings:
            warn(line)
        print(first)
        if n_trials == 0:
            print("Every study is complete: nothing to run.")
            return
        where = (
            f"{min(workers, n_studies)} worker processes"
            if min(workers, n_studies) > 1
            else "in this process"
        )
        print(
            f"Running {_count(n_trials, 'trial')} in {_count(n_studies, 'study', 'studies')} "
            f"({where}).",
            flush=True,
        )
        if show_progress_bar(args):
            from tqdm.auto import tqdm  # type: ignore[import-untyped]

            bar = tqdm(total=n_trials, unit="trial", file=sys.stderr, dynamic_ncols=True)

    def progress(n: int) -> None:
        if bar is not None:
            bar.update(n)

    workers = args.n_workers or (os.cpu_count() or 1)
    dashboard = _dashboard_installed()
    baseline = None if args.baseline.lower() == "none" else args.baseline
    try:
        if workers < 1:
            raise ComparisonError("--n-workers must be at least 1")
        if args.workers_sim < 1:
            raise ComparisonError("--workers-sim must be at least 1")
        if args.publish_every < 0:
            raise ComparisonError("--publish-every must be 0 (never) or a number of trials")
        # Checked here to name the options (compare_samplers checks them again, without).
        if args.seeds < 1:
            raise ComparisonError("--seeds must be at least 1")
        if args.n_trials < 1:
            raise ComparisonError("--n-trials must be at least 1")
        names = parse_samplers(args.samplers)
        added = ""
        if baseline is not None and parse_samplers([baseline])[0] not in names:
            added = f" and the baseline {parse_samplers([baseline])[0]}"  # run too: say so
        spec, caution, data_warnings = _spec(args)
        data_warnings += _short_budget(spec.initial_pipelines, args.n_trials)
        # Named as compare_samplers names the comparison: checked now, written at the end.
        report = args.report or f"compare-{(args.name or spec.slug()).replace('/', '_')}.html"
        if report.lower() != "none":
            _check_report(report)
        first = (
            f"Comparing {args.samplers}{added} on {spec.describe()}: "
            f"{_count(args.seeds, 'seed')} x {_count(args.n_trials, 'trial')}, "
            f"storage {hide_password(args.storage)}"
            + (f", {args.workers_sim} simulated workers per study" if args.workers_sim > 1 else "")
        )
        result = compare_samplers(
            spec,
            args.samplers,
            n_seeds=args.seeds,
            n_trials=args.n_trials,
            storage=args.storage,
            name=args.name,
            baseline=baseline,
            direction=args.direction,
            n_workers=workers,
            resume=args.resume,
            publish_every=args.publish_every if dashboard else 0,
            progress=progress,
            on_start=on_start,
            workers_sim=args.workers_sim,
        )
    except (ComparisonError, ObjectiveError) as exc:
        if bar is not None:
            bar.close()
        raise UserError(str(exc)) from None
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        warn("optuna-psms: interrupted; finished trials are saved, add --resume to continue")
        return 130
    if bar is not None:
        bar.close()
    print()
    # A scorer's values are shown as the score (accuracy, not the -accuracy minimised).
    better = "higher" if result.higher_is_better else "smaller"
    # Full model selection here has no hold-out (unlike select): say the values are the
    # searches' own CV scores on all rows, the optimistic kind.
    on_rows = (
        "cross-validated on all rows, no hold-out, so optimistic; "
        if spec.kind in ("dataset", "csv")
        else ""
    )
    print(f"Final best {result.metric_name} per seed ({on_rows}{better} is better):")
    print(result.format_table())
    if baseline is not None:
        print(
            f"W/T/L: seeds where the sampler beats / ties / loses to {baseline}; Wilcoxon: "
            "paired two-sided signed-rank test over seeds (* p < 0.05)."
        )
    print(SEED_NOTE)
    if caution is not None:  # below the values it qualifies, as in `select`
        warn(caution)
    if report.lower() != "none":
        command = "optuna-psms " + " ".join(shlex.quote(a) for a in sys.argv[1:])
        # The default name is the data's: a comparison of other samplers or in another
        # storage on the same data replaced the earlier report silently (usertrial8).
        replacing = ""
        if args.report is None and os.path.exists(report):
            replacing = " (replacing the report that was there; --report FILE writes elsewhere)"
        try:
            result.write_report(report, command=command if sys.argv[1:2] == ["compare"] else None)
        except OSError as exc:
            raise UserError(f"cannot write {report}: {exc}") from None
        print(f"Report: {report} (self-contained HTML, opens offline in a browser){replacing}")
    if not dashboard:
        print("Figures not saved into the studies: optuna-dashboard is not installed.")
    else:
        n_studies = _count(
            _publish(result, fms=spec.kind in ("dataset", "csv")), "study", "studies"
        )
        print(f"Figures saved into the {n_studies} for optuna-dashboard.")
    print(
        f"Dashboard: optuna-dashboard {dashboard_argument(args.storage)}  "
        f"(studies {result.name}/<sampler>/seed<k>)"
    )
    return 0
