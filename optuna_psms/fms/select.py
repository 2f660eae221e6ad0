"""``select_model(X, y, settings)``: the whole full-model-selection workflow in one call.

Hold out a part of the rows the search never sees, search the pipelines on the rest, score
the chosen model on the held-out rows (an honest estimate, unlike the search's optimistic CV
value), and refit it on all rows: the workflow ``optuna-psms select`` runs, callable from
Python. :class:`SelectSettings` holds every setting, typed and validated on construction;
a :class:`SelectReport` hears what happens as it happens (the command line prints it).

A study in a storage is created or joined by the protocol of ``optuna-psms select``: N
processes given the same ``storage`` and ``study_name`` are N workers of one study, and a
worker whose settings differ from those the study stored is refused with the reason. The
steps are in :mod:`optuna_psms.fms._select_steps`.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator
import contextlib
import dataclasses
from dataclasses import dataclass
from dataclasses import field
from typing import Any

import optuna

from optuna_psms._messages import InputError
from optuna_psms.fms import _join
from optuna_psms.fms import _select_steps as steps
from optuna_psms.fms._initial import DEFAULT_INITIAL
from optuna_psms.fms._join import StudySettings
from optuna_psms.fms.datasets import data_digest
from optuna_psms.fms.holdout import HeldOut


def _positive(name: str, value: float | None, *, allow_none: bool = True) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}.")


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class SelectSettings:
    """The settings of :func:`select_model` (one field per ``optuna-psms select`` option).

    Args:
        task: ``"auto"`` (a regression for a continuous numeric target), ``"classification"``
            or ``"regression"``.
        metric: The CV loss the search minimises; ``None``: ``"ber"`` (classification) or
            ``"rmse"`` (regression).
        sampler: A sampler name (:data:`~optuna_psms.fms.SAMPLER_NAMES`); ``None``: PSO (or
            the sampler of the study joined).
        n_trials: Trials of the search (``None``: until ``timeout`` or ``time_budget``).
        timeout: Seconds of the search.
        trial_timeout: Seconds one trial may take before it is stopped and failed.
        cv: CV folds per trial.
        test_size: Share of the rows held out from the search (``0``: none, and no
            held-out estimate).
        subsample: Share of the search rows each trial's CV uses.
        ensemble_top: Classification: the vote of the best distinct pipelines (``1``: the
            single best one).
        final_check: Classification: ``"svc"`` compares the vote with a grid-tuned RBF SVC
            in a second CV and keeps the better; ``None`` keeps the vote.
        initial_pipelines: ``"defaults"`` (the textbook pipelines first) or ``None``.
        models: Names of the classifiers (regressors) to search; ``None``: the whole pool.
        selectors: Names of the feature selectors; ``None``: all.
        seed: Seeds the split, the folds and the sampler; ``None``: a fresh one (with a
            ``study_name``: the seed the study stored, or one derived from its name).
        storage: An Optuna storage URL for the study (``None``: in memory).
        study_name: The study's name: an existing study of that name is joined (its
            settings must be these), as a worker of ``optuna-psms select`` joins it.
        n_jobs: Trials run in threads.
        reselect_top: After the search, re-evaluate the ``reselect_top`` best pipelines by a
            ``reselect_cv``-fold CV and refit the lowest (``0``: off).
        reselect_cv: Folds of that re-evaluation.
        time_budget: Seconds for the whole search, final check and refit of this worker:
            the search stops early enough for the rest to fit.
        trial_memory: Memory ceiling of one trial in MiB (Linux).
        publish_every: Save the study's figures for optuna-dashboard every
            ``publish_every`` trials and at the end (``0``: only at the end; ``None``:
            never).
        leave_to_last_worker: When other workers' trials are still running after this
            worker's search, return without a model (:attr:`Selection.running`): the last
            worker refits it.
        verbose: The estimators' ``verbose`` (``1``: a progress line every 30 s with a
            ``time_budget``).
        show_progress_bar: Show Optuna's progress bar.
    """

    task: str = "auto"
    metric: str | None = None
    sampler: str | None = None
    n_trials: int | None = 100
    timeout: float | None = None
    trial_timeout: float | None = None
    cv: int = 2
    test_size: float = 0.25
    subsample: float = 1.0
    ensemble_top: int = 10
    final_check: str | None = "svc"
    initial_pipelines: str | None = DEFAULT_INITIAL
    models: tuple[str, ...] | None = None
    selectors: tuple[str, ...] | None = None
    seed: int | None = None
    storage: str | None = None
    study_name: str | None = None
    n_jobs: int = 1
    reselect_top: int = 0
    reselect_cv: int = 5
    time_budget: float | None = None
    trial_memory: int | None = None
    publish_every: int | None = None
    leave_to_last_worker: bool = False
    verbose: int = 0
    show_progress_bar: bool = False

    def __post_init__(self) -> None:
        if self.n_trials is None and self.timeout is None and self.time_budget is None:
            raise ValueError(
                "give n_trials or timeout (or time_budget, or several): the search needs an end."
            )
        if self.n_trials is not None and (not _integer(self.n_trials) or self.n_trials < 1):
            raise ValueError(f"n_trials must be at least 1, got {self.n_trials!r}.")
        _positive("timeout", self.timeout)
        _positive("trial_timeout", self.trial_timeout)
        _positive("time_budget", self.time_budget)
        if self.trial_memory is not None and (
            not _integer(self.trial_memory) or self.trial_memory < 1
        ):
            raise ValueError(
                f"trial_memory must be a positive integer, got {self.trial_memory!r}."
            )
        if not _integer(self.cv) or self.cv < 2:
            raise ValueError(f"cv must be an integer of at least 2, got {self.cv!r}.")
        if not isinstance(self.test_size, int | float) or not 0 <= self.test_size < 1:
            raise ValueError(f"test_size must be in [0, 1), got {self.test_size!r}.")
        if not isinstance(self.subsample, int | float) or not 0 < self.subsample <= 1:
            raise ValueError(f"subsample must be in (0, 1], got {self.subsample!r}.")
        if not isinstance(self.ensemble_top, int) or self.ensemble_top < 1:
            raise ValueError(f"ensemble_top must be at least 1, got {self.ensemble_top!r}.")
        if self.final_check not in ("svc", None):
            raise ValueError(f"final_check must be 'svc' or None, got {self.final_check!r}.")
        if self.initial_pipelines not in (DEFAULT_INITIAL, None):
            raise ValueError(
                f"initial_pipelines must be {DEFAULT_INITIAL!r} or None, "
                f"got {self.initial_pipelines!r}."
            )
        if self.seed is not None and (not _integer(self.seed) or self.seed < 0):
            raise ValueError(f"seed must be a non-negative integer or None, got {self.seed!r}.")
        if not _integer(self.n_jobs) or self.n_jobs == 0:
            raise ValueError(f"n_jobs must be a positive integer or -1, got {self.n_jobs!r}.")
        if not _integer(self.reselect_top) or self.reselect_top < 0:
            raise ValueError(f"reselect_top must be 0 (off) or more, got {self.reselect_top!r}.")
        if not _integer(self.reselect_cv) or self.reselect_cv < 2:
            raise ValueError(f"reselect_cv must be at least 2, got {self.reselect_cv!r}.")
        if self.publish_every is not None and (
            not _integer(self.publish_every) or self.publish_every < 0
        ):
            raise ValueError(
                f"publish_every must be None, 0 or a number of trials, got {self.publish_every!r}."
            )


@dataclass
class Selection:
    """What :func:`select_model` returns.

    Attributes:
        model: The chosen model refitted on all rows (a fitted
            :class:`~optuna_psms.fms.FullModelSelector` or
            :class:`~optuna_psms.fms.FullModelRegressor`); ``None`` when other workers'
            trials were still running (:attr:`running`, with ``leave_to_last_worker``).
        study: The search's study (it saw the search rows only).
        task: ``"classification"`` or ``"regression"``.
        metric: The loss the search minimised.
        cv_loss: The chosen pipeline's CV loss on the search rows: the best of many, so
            optimistic.
        held_out: ``(name, loss)`` of the model fitted on the search rows, on the held-out
            rows it never saw (an honest estimate); ``None`` with ``test_size=0``.
        seed: The seed used.
        search_model: The model fitted on the search rows (the search's own, or the chosen
            pipeline refitted there when other workers' trials changed the choice; scored
            on the held-out rows); ``None`` when Ctrl-C stopped the search without a
            hold-out.
        study_name: The study's name.
        chosen: The chosen trial.
        interrupted: Whether Ctrl-C stopped the search (the model is that of the trials
            complete by then).
        running: Other workers' trials running when this worker's search ended (``0``
            unless it returned without a model).
    """

    model: Any
    study: optuna.Study
    task: str
    metric: str
    cv_loss: float
    held_out: tuple[str, float] | None
    seed: int
    search_model: Any = field(repr=False, default=None)
    study_name: str = ""
    chosen: optuna.trial.FrozenTrial | None = field(repr=False, default=None)
    interrupted: bool = False
    running: int = 0


# ----------------------------------------------------------------------------- the report
@dataclass(frozen=True)
class SelectStart:
    """What the workflow says before its search (:meth:`SelectReport.started`).

    Attributes:
        settings: The settings of the study (as it stored them).
        study_name: The study's name.
        storage: The storage's URL (``None``: in memory).
        search_rows: The rows the search sees.
        held_out_rows: The rows held out (``None``: no hold-out).
        continued: ``""`` for a new study, else what the study holds already
            (``", continued (3 trials so far, 3 complete)"``).
    """

    settings: StudySettings
    study_name: str
    storage: str | None
    search_rows: int
    held_out_rows: int | None
    continued: str

    def line(self, data: str) -> str:
        """The first line of ``optuna-psms select``, ``data`` naming the data."""
        from optuna_psms.fms.holdout import shown
        from optuna_psms.storages import hide_password

        s = self.settings
        held = ", no hold-out"
        if self.held_out_rows is not None:
            held = f", {self.held_out_rows} held out"
        name, sign = shown(s.metric)
        where = "memory" if self.storage is None else hide_password(self.storage)
        return (
            f"Full model selection ({s.task}) on {data}: {self.search_rows} search rows"
            f"{held}; sampler {s.sampler}, {s.cv}-fold CV "
            f"{name}{' (higher is better)' if sign < 0 else ''}, "
            f"seed {s.study_seed}; study '{self.study_name}' in {where}{self.continued}"
        )


@dataclass(frozen=True)
class SearchStopped:
    """Ctrl-C stopped the search (:meth:`SelectReport.interrupted`).

    Attributes:
        study_name: The study's name (it is kept in its storage).
        complete: Its complete trials (``0``: nothing is chosen), or ``None`` when the
            Ctrl-C cut the reading of the study short.
        error: The exception of that cut read, or ``None``.
    """

    study_name: str
    complete: int | None
    error: BaseException | None = None


@dataclass(frozen=True)
class SelectChoice:
    """The chosen trial (:meth:`SelectReport.chosen`).

    Attributes:
        trial: The chosen trial.
        study: The study.
        settings: The study's settings.
        done: ``"5 complete, 0 failed in the study"``.
        reselected: Whether the re-evaluation of the best few chose it.
    """

    trial: optuna.trial.FrozenTrial
    study: optuna.Study
    settings: StudySettings
    done: str
    reselected: bool

    def lines(self) -> list[str]:
        """What ``optuna-psms select`` prints of the choice."""
        from optuna_psms.fms.holdout import shown

        best, s = self.trial, self.settings
        described = best.user_attrs.get("fms:pipeline", best.params)
        # A trial of the initial pipelines is not the sampler's find: say so.
        start = " of the initial pipelines" if "fms:initial" in best.user_attrs else ""
        name, sign = shown(s.metric)  # "accuracy ...: 0.97", not "-accuracy ...: -0.97"
        better = ", higher is better" if sign < 0 else ""
        assert best.value is not None
        lines = [
            f"Best search pipeline (trial {best.number}{start}): {described}",
            f"CV {name} on search data ({s.cv}-fold{better}): {sign * best.value:.4f}  "
            f"[{self.done}]",
        ]
        record = self.study.user_attrs.get("fms:reselect")
        if self.reselected and isinstance(record, dict):
            lines.append(
                f"  chosen among the {len(record['losses'])} best by {record['cv']}-fold CV: "
                f"{sign * record['losses'][str(best.number)]:.4f} "
                f"({'lowest' if sign > 0 else 'highest'}; the best search value "
                f"{sign * self.study.best_value:.4f} was trial {self.study.best_trial.number})"
            )
        return lines


def final_check_line(model: Any) -> str | None:
    """The final check's line of a fitted model: the choice and both CV losses on the
    search rows (``None`` without the check)."""
    from optuna_psms.fms._final_check import describe

    record = getattr(model, "final_check_", None)
    return None if record is None else describe(record)


class SelectReport:
    """What :func:`select_model` says as it runs: override the methods to hear it.

    This base class says nothing (the warnings the search raises with :mod:`warnings` still
    show); ``optuna-psms select`` prints every event. The methods are called in this order:
    :meth:`warning` (any time), :meth:`started`, :meth:`searching` (the search runs in it),
    :meth:`interrupted` (after a Ctrl-C), :meth:`chosen`, :meth:`deferred` (and nothing
    more), :meth:`refitting`, :meth:`final_check`, :meth:`held_out`, :meth:`refitted`,
    :meth:`figures`.
    """

    def warning(self, line: str) -> None:
        """A ``warning:`` or ``note:`` line about the data or the settings."""

    def started(self, start: SelectStart) -> None:
        """The study is created or joined and the search starts."""

    def searching(self) -> contextlib.AbstractContextManager[None]:
        """The context the search (the estimator's ``fit``) runs in."""
        return contextlib.nullcontext()

    def interrupted(self, stop: SearchStopped) -> None:
        """Ctrl-C stopped the search; with complete trials the workflow goes on."""

    def chosen(self, choice: SelectChoice) -> None:
        """The trial the model is made of."""

    def deferred(self, running: int) -> None:
        """Other workers' trials (``running``) are still running: the last worker refits
        the model (with ``leave_to_last_worker``)."""

    def refitting(self, trial: optuna.trial.FrozenTrial, rows: str) -> None:
        """A refit of ``trial``'s pipeline on ``rows`` (``"all 150 rows"``) starts."""

    def final_check(self, model: Any) -> None:
        """The model of the final check (:func:`final_check_line`)."""

    def held_out(self, score: HeldOut | None) -> None:
        """The held-out score (``None``: no hold-out); its ``warnings`` are said first."""

    def refitted(self, model: Any, rows: int, trial: optuna.trial.FrozenTrial) -> str | None:
        """The model refitted on all ``rows``; the path of a file it was saved to (the study
        notes it), or ``None``."""
        return None

    def figures(self, skipped: str | None) -> None:
        """The study's figures were saved for optuna-dashboard (``skipped``: why not)."""


# ----------------------------------------------------------------------------- the workflow
class SelectInterrupted(KeyboardInterrupt):
    """Ctrl-C after the search: during the choice, the refits or the save (``stage``
    ``"save"``), or during the figures after it (``"figures"``).

    Attributes:
        study_name: The study's name.
        stage: ``"save"`` or ``"figures"``.
        again: Whether a first Ctrl-C had stopped the search.
    """

    def __init__(self, study_name: str, stage: str, again: bool) -> None:
        super().__init__(study_name, stage, again)
        self.study_name = study_name
        self.stage = stage
        self.again = again


class _Refused(InputError, ValueError):
    """An :class:`~optuna_psms._messages.InputError` that is a ``ValueError`` too (what
    :func:`select_model` raised before it shared the command's steps)."""


@contextlib.contextmanager
def _stage(study_name: str, stage: str, again: bool) -> Iterator[None]:
    try:
        yield
    except SelectInterrupted:
        raise
    except KeyboardInterrupt:
        raise SelectInterrupted(study_name, stage, again) from None


def _study_settings(
    settings: SelectSettings, X: Any, y: Any, warning: Callable[[str], None]
) -> StudySettings:
    """The settings of the search that a study stores (without the seed a joined study may
    give): the task (``"auto"`` resolved on ``y``) and the checked metric among them.

    Args:
        settings: The workflow's settings.
        X: The features.
        y: The target.
        warning: Says a ``note:`` line (xgboost left out of the default pool).

    Raises:
        InputError: A metric that does not fit the task, or a target that does not fit it.
    """
    from optuna_psms.fms.metrics import check_metric
    from optuna_psms.fms.target import check_not_continuous
    from optuna_psms.fms.target import resolve_task

    try:
        task = resolve_task(settings.task, y)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    try:
        metric = check_metric(settings.metric, task)
    except ValueError as exc:
        chosen = f" (--task auto chose {task} for this target)" if settings.task == "auto" else ""
        raise InputError(f"{str(exc).rstrip('.')}{chosen}") from None
    if task == "regression":
        steps.check_target_numeric(y)
    if task == "classification":
        try:
            check_not_continuous(y, max(int(settings.cv), 2))
        except ValueError as exc:
            # The estimator's message names the Python class; the way out is the task.
            head = str(exc).split(": for regression", 1)[0]
            raise InputError(
                f"the target {head.removeprefix('y ')}: use --task regression"
            ) from None
    return StudySettings(
        data=data_digest(X, y),
        task=task,
        test_size=float(settings.test_size),
        cv=int(settings.cv),
        metric=metric,
        subsample=float(settings.subsample),
        classifiers=steps.model_names(settings.models, task, warning),
        selectors=None if settings.selectors is None else list(settings.selectors),
        sampler=settings.sampler.lower() if settings.sampler else None,
        seed=settings.seed,
    )


def run_selection(
    X: Any,
    y: Any,
    settings: SelectSettings,
    report: SelectReport | None = None,
    *,
    label: str = "data",
    target: str | None = None,
    final_check_given: bool = False,
) -> Selection | None:
    """The workflow of :func:`select_model` and ``optuna-psms select``.

    Args:
        X: Features.
        y: Target.
        settings: The settings.
        report: Hears the events (default: :class:`SelectReport`, silent).
        label: The data's name (in a made-up study name and the messages).
        target: The target column's name, if it has one.
        final_check_given: ``final_check="svc"`` was asked for, not a default: a regression
            refuses it.

    Returns:
        The selection, or ``None`` when Ctrl-C stopped the search before a trial completed
        (or cut the reading of the study; :meth:`SelectReport.interrupted` said so).

    Raises:
        InputError: The data or the settings do not fit (one line naming the problem).
        SelectInterrupted: Ctrl-C after the search.
    """
    report = report if report is not None else SelectReport()
    run, model, choice = _prepare(X, y, settings, report, label, target, final_check_given)
    X_search, y_search, _, _ = run.parts
    with report.searching():
        interrupted = steps.search(model, X_search, y_search)
    # Ctrl-C during the choice, the refits or the save (a second one after a first that
    # stopped the search) saves nothing: SelectInterrupted says which stage it cut.
    with _stage(run.study_name, "save", interrupted):
        selection = _choose(run, None if interrupted else model, interrupted, choice)
        if selection is None or selection.running:
            return selection
        _score_and_refit(run, selection)
    if settings.publish_every is not None:
        with _stage(run.study_name, "figures", interrupted):
            report.figures(steps.publish(selection.study))
    return selection


@dataclass(frozen=True)
class _Run:
    """What the steps after the search share."""

    settings: SelectSettings
    study_settings: StudySettings
    storage: Any
    study_name: str
    X: Any
    y: Any
    parts: tuple[Any, ...]
    vote: dict[str, Any]
    report: SelectReport


def _prepare(
    X: Any,
    y: Any,
    s: SelectSettings,
    report: SelectReport,
    label: str,
    target: str | None,
    final_check_given: bool,
) -> tuple[_Run, Any, dict[str, Any]]:
    """The checks, the study created or joined, the estimator of the search and the first
    line: ``(the run, the estimator, the choice's options)``."""
    steps.check_target_complete(y, label)
    study_settings = _study_settings(s, X, y, report.warning)
    hint = steps.auto_task_warning(s.task, y, study_settings.task, target)
    if hint is not None:
        report.warning(hint)
    classification = study_settings.task == "classification"
    # The final choice is not a setting of the study (workers may differ); kept aside.
    choice: dict[str, Any] = {"reselect_top": s.reselect_top, "reselect_cv": s.reselect_cv}
    # The vote of the best few (FullModelSelector only); the refits use it too.
    vote: dict[str, Any] = {"ensemble_top": s.ensemble_top} if classification else {}
    if classification:
        vote["final_check"] = s.final_check
    elif final_check_given and s.final_check == "svc":
        raise InputError("--final-check svc is for classification; this is a regression")
    choice.update(vote)
    classes = steps.classes_hint(s.task, y, study_settings.task)
    storage, study_name, study_settings, parts = steps.open_study(
        s.storage, s.study_name, label, study_settings, X, y, classes
    )
    model = _search_model(s, study_settings, storage, study_name, choice)
    # Once the data are accepted: above a refusal (a single class, ...) it was only noise.
    from optuna_psms.fms.datasets import identifier_warnings
    from optuna_psms.fms.datasets import text_number_warnings

    for line in identifier_warnings(X) + text_number_warnings(X):
        report.warning(line)
    _, y_search, _, y_held = parts
    report.started(
        SelectStart(
            settings=study_settings,
            study_name=study_name,
            storage=s.storage,
            search_rows=len(y_search),
            held_out_rows=None if y_held is None else len(y_held),
            continued=_join.continued_note(steps.trial_states(storage, study_name)),
        )
    )
    run = _Run(s, study_settings, storage, study_name, X, y, parts, vote, report)
    return run, model, choice


def _choose(run: _Run, model: Any, interrupted: bool, choice: dict[str, Any]) -> Selection | None:
    """The study read back and the chosen trial, in a selection without a model yet
    (``model``: the search's, ``None`` after a Ctrl-C); ``None`` when Ctrl-C left nothing
    to choose. With ``leave_to_last_worker`` and other workers' trials running, the
    selection's ``running`` counts them and nothing more is to be done."""
    report, name = run.report, run.study_name
    try:
        read = steps.read_back(run.storage, name)
    except Exception as exc:  # the interrupt cut a storage call short
        if not interrupted:
            raise
        report.interrupted(SearchStopped(name, None, exc))
        return None
    if interrupted:
        report.interrupted(SearchStopped(name, read.n_complete))
        if read.n_complete == 0:
            return None
    best, reselected = steps.choose(run.study_settings, read.study, run.parts, **choice)
    done = f"{read.n_complete} complete, {read.failed} in the study"
    report.chosen(SelectChoice(best, read.study, run.study_settings, done, reselected))
    assert best.value is not None
    selection = Selection(
        model=None,
        study=read.study,
        task=run.study_settings.task,
        metric=run.study_settings.metric,
        cv_loss=float(best.value),
        held_out=None,
        seed=run.study_settings.study_seed,
        search_model=model,
        study_name=name,
        chosen=best,
        interrupted=interrupted,
    )
    if run.settings.leave_to_last_worker and read.n_running > 0 and not interrupted:
        report.deferred(read.n_running)
        selection.running = read.n_running
    return selection


def _score_and_refit(run: _Run, selection: Selection) -> None:
    """Score the chosen model on the held-out rows and refit it on all rows (into
    ``selection``), the model file noted in the study when the report saved one."""
    from optuna_psms.fms.holdout import held_out_score
    from optuna_psms.fms.holdout import small_data_warning

    report, settings, vote = run.report, run.study_settings, run.vote
    study, best, model = selection.study, selection.chosen, selection.search_model
    assert best is not None
    X_search, y_search, _, y_held = run.parts
    searched = _join.search_copy(run.storage, run.study_name)
    if y_held is not None:
        if not steps.is_the_saved_model(model, searched, best, vote):
            # Interrupted, or other workers' trials finished since this fit ended: a better
            # pipeline, or others in the vote.
            report.refitting(best, f"the {len(y_search)} search rows")
            model = steps.refit(settings, searched, best, X_search, y_search, **vote)
        else:
            # The save's refit reuses this check (the study may hold another worker's, of
            # another vote, which it would check again on all the rows).
            steps.keep_check(model, searched)
        report.final_check(model)
        score = held_out_score(settings, model, study, best, run.parts)
        for line in score.warnings:
            report.warning(line)
        report.held_out(score)
        selection.held_out = (score.name, score.loss)
        selection.search_model = model
    else:
        report.held_out(None)
    # Below the scores it qualifies: "held-out ber 0.0000" on 2 rows read as a result.
    caution = small_data_warning(settings, y_search, y_held)
    if caution is not None:
        report.warning(caution)
    report.refitting(best, f"all {len(run.y)} rows")
    final = steps.refit(settings, searched, best, run.X, run.y, **vote)
    if y_held is None:
        report.final_check(final)
    selection.model = final
    saved_to = report.refitted(final, len(run.y), best)
    if saved_to is not None:
        steps.note_saved(study, final, saved_to, len(run.y))
    voters = len(getattr(final, "ensemble_trials_", None) or [])
    warning = steps.whole_study_vote(searched, voters, run.settings.ensemble_top)
    if warning is not None:
        report.warning(warning)  # below the lines it qualifies


def _search_model(
    s: SelectSettings,
    settings: StudySettings,
    storage: Any,
    study_name: str,
    choice: dict[str, Any],
) -> Any:
    """The estimator whose ``fit`` runs this worker's trials in the study."""
    from optuna_psms.fms._samplers import make_sampler

    seed = settings.study_seed
    return steps.selector(
        settings,
        seed,
        **choice,
        initial_pipelines=s.initial_pipelines,
        sampler=make_sampler(settings.sampler, seed),
        callbacks=steps.publish_callbacks(s.publish_every),
        n_trials=s.n_trials,
        timeout=s.timeout,
        trial_timeout=s.trial_timeout,
        time_budget=s.time_budget,
        trial_memory=s.trial_memory,
        verbose=s.verbose,
        storage=storage,
        study_name=study_name,
        load_if_exists=True,
        n_jobs=s.n_jobs,
        show_progress_bar=s.show_progress_bar,
    )


def select_model(
    X: Any,
    y: Any,
    settings: SelectSettings | None = None,
    *,
    report: SelectReport | None = None,
) -> Selection:
    """Full model selection with an honest held-out estimate, refitted on all rows.

    The rows are split once (stratified for a classification): the search runs on the
    search rows only (:class:`~optuna_psms.fms.FullModelSelector` or
    :class:`~optuna_psms.fms.FullModelRegressor` with ``settings``), its chosen model is
    scored on the held-out rows, and then refitted on all rows. It is the workflow of
    ``optuna-psms select``: a ``study_name`` in a ``storage`` is created or joined as a
    worker of the command joins it, and a Ctrl-C during the search keeps the model of the
    trials complete by then (:attr:`Selection.interrupted`).

    Example:

        .. testcode::

            from sklearn.datasets import load_breast_cancer

            from optuna_psms.fms import select_model
            from optuna_psms.fms import SelectSettings

            X, y = load_breast_cancer(return_X_y=True)
            settings = SelectSettings(n_trials=6, ensemble_top=1, final_check=None, seed=0)
            selection = select_model(X, y, settings)
            name, loss = selection.held_out
            assert name == "ber" and 0 <= loss < 0.5
            assert selection.model.predict(X[:3]).shape == (3,)

    Args:
        X: Features (a pandas DataFrame or an array).
        y: Target.
        settings: The settings (default: :class:`SelectSettings`'s defaults).
        report: Hears what happens as it happens (default: :class:`SelectReport`, silent).

    Raises:
        ValueError: The data or the settings do not fit (one line naming the problem; an
            :class:`~optuna_psms._messages.InputError` too).
        KeyboardInterrupt: Ctrl-C stopped the search before a trial completed, or came after
            the search.
    """
    import numpy as np

    s = settings if settings is not None else SelectSettings()
    if s.seed is None and s.study_name is None:  # a fresh seed (a named study has its own)
        s = dataclasses.replace(s, seed=int(np.random.SeedSequence().generate_state(1)[0]))
    try:
        selection = run_selection(X, y, s, report)
    except _Refused:
        raise
    except InputError as exc:
        raise _Refused(str(exc), original=exc.original) from exc
    if selection is None:
        raise KeyboardInterrupt
    return selection
