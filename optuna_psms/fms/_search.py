"""What the search estimators of :mod:`optuna_psms.fms` share.

:class:`FullModelSearch` is the base of :class:`~optuna_psms.fms.FullModelSelector` and
:class:`~optuna_psms.fms.FullModelRegressor`: the study, the refit of the best pipeline,
``describe``, ``cv_results_``, ``export_python`` and the scikit-learn tags. Each subclass
declares its parameters in its own ``__init__`` (scikit-learn reads them from the
signature). Samplers by name are in ``fms/_samplers.py`` and the score of a loss in
:mod:`optuna_psms.fms.metrics`; Optuna's verbosity during a search and ``study.optimize``
for a worker of a shared study are here.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator
import contextlib
import logging
import math
import sys
import time
from typing import Any
from typing import ClassVar
from typing import TypeVar
import warnings

import optuna
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from optuna_psms._compat._interrupted import trials_failed_on_ctrl_c
from optuna_psms.fms._budget import BUDGET_KEY
from optuna_psms.fms._budget import check_time_budget
from optuna_psms.fms._budget import end_of_search
from optuna_psms.fms._budget import Progress
from optuna_psms.fms._budget import TimeBudget
from optuna_psms.fms._cost import fit_pool
from optuna_psms.fms._ensemble import fit_pipeline as fit_pipeline
from optuna_psms.fms._fidelity import applies as fidelity_applies
from optuna_psms.fms._fidelity import fidelity_pruner
from optuna_psms.fms._initial import API_ADVICE
from optuna_psms.fms._initial import check_initial_pipelines
from optuna_psms.fms._initial import enqueue_initial
from optuna_psms.fms._initial import short_budget_message
from optuna_psms.fms._outcome import failure_reason
from optuna_psms.fms._reselect import check_reselect
from optuna_psms.fms._reselect import choose
from optuna_psms.fms._reselect import fit_trial_choice
from optuna_psms.fms._reselect import RESELECT_KEY
from optuna_psms.fms._samplers import make_sampler
from optuna_psms.fms._validation import record_features
from optuna_psms.fms._validation import user_entry
from optuna_psms.fms.data import warn_identifier_columns
from optuna_psms.fms.data import warn_text_number_columns
from optuna_psms.fms.export import export_python
from optuna_psms.fms.export import trials_table
from optuna_psms.fms.metrics import score_from_loss
from optuna_psms.fms.metrics import shown_loss
from optuna_psms.fms.objective import FullModelObjective
from optuna_psms.fms.objective import make_objective
from optuna_psms.fms.space import FullModelSpace
from optuna_psms.samplers._restore import restored_sampler
from optuna_psms.storages import open_storage
from optuna_psms.storages import WORKER_SQLITE_TIMEOUT


# ---- Optuna's verbosity for a scikit-learn ``verbose`` value, set while a search runs.


def verbosity_level(verbose: int | bool) -> int:
    """The ``logging`` level of Optuna's messages for a scikit-learn ``verbose`` value.

    ``0``/``False``: ``WARNING`` (no per-trial lines; failed trials and real problems
    still show), ``1``/``True``: ``INFO`` (one line per trial), ``2`` or more: ``DEBUG``.

    Raises:
        ValueError: ``verbose`` is not a non-negative int.
    """
    if not isinstance(verbose, int) or verbose < 0:
        raise ValueError(f"verbose must be a non-negative int; got {verbose!r}.")
    if verbose >= 2:
        return logging.DEBUG
    return logging.INFO if verbose >= 1 else logging.WARNING


@contextlib.contextmanager
def optuna_verbosity(verbose: int | bool) -> Iterator[None]:
    """Set Optuna's verbosity from ``verbose`` for the block, then restore it.

    This is what ``optuna.integration.OptunaSearchCV(verbose=...)`` does: Optuna's loggers
    are process-wide, so the level applies to every study of the process while the block
    runs.
    """
    level = verbosity_level(verbose)
    previous = optuna.logging.get_verbosity()
    if not verbose:
        # Quiet never makes Optuna louder than the process asked for (the CLI sets ERROR).
        level = max(level, previous)
    optuna.logging.set_verbosity(level)
    try:
        yield
    finally:
        optuna.logging.set_verbosity(previous)


# ---- ``study.optimize`` for a worker of a full-model search: it goes on past an enqueued trial


def _taken_by_another_worker(exc: BaseException) -> bool:
    """Whether ``exc`` is Optuna's refusal to tell a trial that is already finished."""
    return isinstance(exc, ValueError) and str(exc).startswith("Cannot tell a ")


def optimize_past_taken_trials(
    study: optuna.Study,
    objective: Callable[[optuna.Trial], Any],
    *,
    n_trials: int | None,
    timeout: float | None,
    n_jobs: int = 1,
    show_progress_bar: bool = False,
    callbacks: list[Callable[[optuna.Study, optuna.trial.FrozenTrial], None]] | None = None,
) -> None:
    """``study.optimize``, going on when another worker finished a trial this one ran too.

    Two workers may pop the same enqueued trial (an initial pipeline) when the storage has
    no row lock: SQLite ignores Optuna's ``SELECT ... FOR UPDATE``, so both see it
    ``WAITING`` and both run it (Optuna issue #4002). The first to finish tells it; the
    second's tell raises ``ValueError: Cannot tell a COMPLETE trial.``, which ended that
    worker's search (``optuna-psms select`` printed it as an error and exited with 2). Here
    that trial counts as one of this worker's ``n_trials`` (it ran it) and the search goes
    on with the rest, within what is left of ``timeout``.

    Args:
        study: The study.
        objective: The objective.
        n_trials: Trials of this worker (``None``: until ``timeout``).
        timeout: Seconds after which no new trial starts (``None``: no limit).
        n_jobs: As ``study.optimize``.
        show_progress_bar: As ``study.optimize``.
        callbacks: As ``study.optimize``.
    """
    ran = 0

    def count(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        nonlocal ran
        ran += 1

    start = time.monotonic()
    while True:
        left = None if timeout is None else timeout - (time.monotonic() - start)
        todo = None if n_trials is None else n_trials - ran
        if (left is not None and left <= 0) or (todo is not None and todo <= 0):
            return
        try:
            study.optimize(
                objective,
                n_trials=todo,
                timeout=left,
                n_jobs=n_jobs,
                show_progress_bar=show_progress_bar,
                callbacks=[*(callbacks or []), count],
            )
            return
        except ValueError as exc:
            if not _taken_by_another_worker(exc):
                raise
            ran += 1


_S = TypeVar("_S", bound="FullModelSearch")


class FullModelSearch(BaseEstimator):  # type: ignore[misc]
    """Search a full-model space with Optuna and refit the best pipeline (a base class).

    Subclasses set :attr:`_task`, declare every parameter below in their own ``__init__``
    and may override :meth:`_default_space` and :meth:`_fitted`.
    """

    #: The task of the spaces this estimator searches.
    _task: ClassVar[str] = "classification"
    #: Frames from ``_search`` up to ``fit`` (a subclass whose ``_search`` wraps this one's
    #: adds one): a warning of the search points at the user's call of ``fit``.
    _SEARCH_DEPTH: ClassVar[int] = 2

    space: FullModelSpace | None
    sampler: optuna.samplers.BaseSampler | str | None
    n_trials: int | None
    timeout: float | None
    trial_timeout: float | None
    pruner: optuna.pruners.BasePruner | None
    complexity: str | None
    complexity_weight: float | None
    complexity_tolerance: float
    cv: int
    reselect_top: int | None
    reselect_cv: int
    initial_pipelines: str | list[dict[str, Any]] | None
    metric: str
    subsample: float
    storage: str | optuna.storages.BaseStorage | None
    study_name: str | None
    load_if_exists: bool
    n_jobs: int
    random_state: int | None
    show_progress_bar: bool
    verbose: int
    callbacks: list[Callable[[optuna.Study, optuna.trial.FrozenTrial], None]] | None
    time_budget: float | None
    trial_memory: float | None
    rows_fidelity: float | None

    def _pruner(self, objective: FullModelObjective) -> optuna.pruners.BasePruner:
        """The study's pruner: the user's, else the first rung's (``rows_fidelity``), else
        none."""
        if self.pruner is not None:
            return self.pruner
        if fidelity_applies(objective.rows_fidelity, int(objective.X.shape[0])):
            return fidelity_pruner()
        return optuna.pruners.NopPruner()

    def _budget_seconds(self) -> float | None:
        # Models pickled before time_budget existed have no such attribute.
        return check_time_budget(getattr(self, "time_budget", None))

    def _default_space(self) -> FullModelSpace | None:
        """The space searched when ``space`` is ``None`` (``None``: the classification pool)."""
        return None

    def _fitted(self, objective: FullModelObjective) -> None:
        """Set the task's own fitted attributes after the refit (e.g. ``classes_``)."""

    def _make_sampler(self) -> optuna.samplers.BaseSampler:
        if isinstance(self.sampler, optuna.samplers.BaseSampler):
            return self.sampler
        if self.sampler is None or isinstance(self.sampler, str):
            return make_sampler(self.sampler, self.random_state)
        raise ValueError(
            f"sampler must be an Optuna sampler, a sampler name or None; got {self.sampler!r}."
        )

    def _search_space(self) -> FullModelSpace | None:
        if self.space is None:
            return self._default_space()
        task = getattr(self.space, "task", self._task)
        if task != self._task:
            other = "FullModelRegressor" if task == "regression" else "FullModelSelector"
            raise ValueError(f"space is a {task} space; use {other} for it.")
        return self.space

    def fit(self: _S, X: Any, y: Any) -> _S:
        """Search the space on ``(X, y)`` and refit the best pipeline on all of it.

        Raises:
            ValueError: Invalid data or arguments (see
                :func:`~optuna_psms.fms.make_objective`), e.g. a continuous target given to
                the classifier or a non-numeric one to the regressor, or duplicate column
                names in a DataFrame ``X``.
            RuntimeError: If no trial completed (every pipeline failed).
            KeyboardInterrupt: Ctrl-C stopped the search. The trials this search started and
                left ``RUNNING`` are failed first (user attr ``fms:interrupted``), so the
                study resumes (``load_if_exists=True``); with ``n_jobs`` above 1 the first
                Ctrl-C says on stderr that the search waits for the trials in progress, and a
                second one fails them.

        Warns:
            UserWarning: A column of a DataFrame ``X`` looks like a row identifier (text with
                a different value in every row, or exactly the integers ``0..n-1`` or
                ``1..n``; see :func:`~optuna_psms.fms.data.identifier_columns`); the
                message names it. The search still uses it.
            UserWarning: A text column of a DataFrame ``X`` holds numbers written with a
                unit or symbol (``45%``, ``$1,200``, ``3.5 kg``) or dates (``2024-01-03``;
                see :func:`~optuna_psms.fms.data.text_number_columns`); the message
                names it and a value. It is still one-hot encoded as categories.
            UserWarning: ``n_trials`` is not more than the initial pipelines enqueued into a
                new study (four with ``initial_pipelines="defaults"``): the sampler proposes
                no trial, so any sampler gives the same search.
        """
        warn_identifier_columns(X, stacklevel=2)
        warn_text_number_columns(X, stacklevel=2)
        # Models pickled before the regressor had ``verbose`` have no such attribute.
        with optuna_verbosity(getattr(self, "verbose", 0)):  # validates it before the search
            self._search(X, y)
        return self

    def _objective(self, X: Any, y: Any) -> FullModelObjective:
        record_features(self, X)
        return make_objective(
            X,
            y,
            space=self._search_space(),
            cv=self.cv,
            metric=self.metric,
            subsample=self.subsample,
            random_state=self.random_state,
            trial_timeout=self.trial_timeout,
            complexity=self.complexity,
            complexity_weight=self.complexity_weight,
            enable_pruning=self.pruner is not None,
            trial_memory=getattr(self, "trial_memory", None),
            rows_fidelity=getattr(self, "rows_fidelity", None),
        )

    def _search(self, X: Any, y: Any) -> None:
        if self.n_trials is None and self.timeout is None and self._budget_seconds() is None:
            raise ValueError(
                "set n_trials or timeout (or time_budget), otherwise the search never stops."
            )
        if self.n_trials is not None and (not isinstance(self.n_trials, int) or self.n_trials < 1):
            raise ValueError(f"n_trials must be a positive int or None; got {self.n_trials!r}.")
        # Models pickled before callbacks existed have no such attribute.
        callbacks = getattr(self, "callbacks", None)
        if callbacks is not None and (
            isinstance(callbacks, str)
            or not isinstance(callbacks, list | tuple)
            or not all(callable(c) for c in callbacks)
        ):
            raise ValueError(
                f"callbacks must be a list of callables (study, trial) or None; got {callbacks!r}."
            )
        check_reselect(getattr(self, "reselect_top", None), getattr(self, "reselect_cv", 5))
        check_initial_pipelines(getattr(self, "initial_pipelines", None))
        seconds = self._budget_seconds()
        budget = None if seconds is None else TimeBudget(seconds)
        objective = self._objective(X, y)
        # Components that cannot finish at this size leave the default pool (fms/_cost.py).
        objective.space, size_note = fit_pool(
            objective.space, int(objective.y.shape[0]), chosen=self.space is not None
        )
        if size_note is not None:
            warnings.warn(size_note, UserWarning, stacklevel=self._SEARCH_DEPTH + 1)
        # In memory, as create_study's own default, but an object: the trials a Ctrl-C cuts
        # are failed in it (StartedTrials records nothing for None or a URL).
        storage = open_storage(self.storage, sqlite_timeout=WORKER_SQLITE_TIMEOUT)
        if storage is None:
            storage = optuna.storages.InMemoryStorage()
        sampler = None
        if self.sampler is None and self.load_if_exists:
            # Continuing a study: the sampler it was made with (optuna_psms.load_study's rule).
            sampler = restored_sampler(storage, self.study_name)
        study = optuna.create_study(
            storage=storage,
            sampler=self._make_sampler() if sampler is None else sampler,
            pruner=self._pruner(objective),
            study_name=self.study_name,
            directions=objective.directions,
            load_if_exists=self.load_if_exists,
        )
        study.set_user_attr("fms:metric", objective.metric)
        study.set_user_attr("fms:cv", objective.cv)
        study.set_user_attr("fms:subsample", objective.subsample)
        study.set_user_attr("fms:space", repr(objective.space))
        # Models pickled before initial_pipelines existed have no such attribute.
        n_initial = enqueue_initial(
            study,
            getattr(self, "initial_pipelines", None),
            objective.space,
            objective.context,
            objective.metric,
        )
        if self.n_trials is not None:
            short = short_budget_message(self.n_trials, n_initial, API_ADVICE)
            if short is not None:
                warnings.warn(short, UserWarning, stacklevel=self._SEARCH_DEPTH + 1)
        # Ctrl-C: no trial of this search left RUNNING, and with n_jobs > 1 a line saying
        # that the trials in progress finish first (as optuna-psms select).
        extra, timeout = [], self.timeout
        if budget is not None:
            budget.replan(objective, study)
            extra.append(budget.callback(objective))
            left = budget.search_left()
            timeout = left if timeout is None else min(timeout, left)
        progress = Progress(shown_loss(objective.metric)[0], budget)
        if getattr(self, "verbose", 0) >= 1:
            extra.append(progress.callback)
        with trials_failed_on_ctrl_c(storage, n_jobs=self.n_jobs), progress.running(extra):
            optimize_past_taken_trials(
                study,
                objective,
                n_trials=self.n_trials,
                timeout=timeout,
                n_jobs=self.n_jobs,
                show_progress_bar=self.show_progress_bar,
                callbacks=[*(callbacks or []), *extra],
            )
        record = None if budget is None else end_of_search(self, budget, study)
        completed = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
        if not completed:
            errors = {
                failure_reason(t.user_attrs) or "?" for t in study.get_trials(deepcopy=False)
            }
            ended = ""
            if record is not None and record["stopped_by"] == "time_budget":
                ended = f"the time budget of {record['time_budget']:g} s ended the search; "
            raise RuntimeError(
                f"no pipeline could be evaluated; {ended}errors: "
                + "; ".join(sorted(errors))[:2000]
            )
        if self.show_progress_bar:  # after the bar's 100 %, the refits can take minutes
            print(self._progress_line(objective), file=sys.stderr, flush=True)
        best, loss = choose(self, X, y, objective, study)
        self._budget = budget  # read by FullModelSelector._refit (the vote, the check)
        try:
            self._refit(objective, study, best)
        finally:
            self._budget = None
        self.reselect_loss_ = loss
        if budget is not None and record is not None:
            record["total_seconds"] = round(budget.elapsed(), 2)
            study.set_user_attr(BUDGET_KEY, record)
        self.time_budget_ = record

    def _progress_line(self, objective: FullModelObjective) -> str:
        """The line said on stderr when the search is done (with the progress bar)."""
        return f"search done; refitting the chosen pipeline on {len(objective.y)} rows ..."

    def _refit(
        self, objective: FullModelObjective, study: optuna.Study, best: optuna.trial.FrozenTrial
    ) -> None:
        self.best_pipeline_ = fit_pipeline(objective, best.params)
        self.best_params_ = dict(best.params)
        self.best_trial_ = best
        self.best_loss_ = float(best.values[0]) if best.values else float("nan")
        self.best_score_ = score_from_loss(objective.metric, self.best_loss_)
        self.best_description_ = objective.describe(best.params)
        self.study_ = study
        self._fitted(objective)

    def fit_trial(
        self: _S,
        X: Any,
        y: Any,
        study: optuna.Study,
        trial: optuna.trial.FrozenTrial | None = None,
    ) -> _S:
        """Fit the pipeline of a finished search's trial on ``(X, y)``, without searching.

        This is the refit of :meth:`fit` alone, for a study searched elsewhere (by other
        processes, or on other rows of the same data). The fitted attributes are those of
        :meth:`fit`, and they report the search honestly: ``best_loss_``,
        ``best_score_`` and :meth:`describe` give the trial's CV value in ``study``, computed
        on the data that study searched (which may be a part of ``(X, y)``); ``study_`` is
        ``study`` and ``best_trial_`` the trial.

        Args:
            X: Features to fit on.
            y: Target to fit on.
            study: A study of this estimator's task and metric, e.g. an earlier :meth:`fit`'s
                ``study_`` or a study loaded from its storage.
            trial: A complete trial of ``study``; ``None``: the trial :meth:`fit` chose:
                the one its re-evaluation stored in ``study`` (``reselect_top``) if that
                still covers the study's best trials, otherwise
                :func:`~optuna_psms.fms.pareto.pick_simplest` (the best search value).

        Returns:
            The estimator.

        Raises:
            ValueError: The study minimised another metric, or the trial is not complete.

        Example:

            .. testcode::

                from sklearn.datasets import load_iris
                from optuna_psms.fms import FullModelSelector, FullModelSpace

                X, y = load_iris(return_X_y=True)
                space = FullModelSpace(classifiers=["naive_bayes", "logistic"])
                searched = FullModelSelector(space=space, n_trials=4, random_state=0)
                searched.fit(X[::2], y[::2])
                model = FullModelSelector(space=space).fit_trial(X, y, searched.study_)
                assert model.best_loss_ == searched.best_loss_
        """
        objective = self._objective(X, y)
        metric = study.user_attrs.get("fms:metric")
        if metric is None:
            raise ValueError(
                f"study {study.study_name!r} was not searched by a full-model estimator "
                f"(it has no fms:metric attribute)."
            )
        if metric != objective.metric:
            raise ValueError(
                f"study {study.study_name!r} minimised metric {metric!r}; this estimator's "
                f"metric is {objective.metric!r}."
            )
        if trial is None:
            trial = fit_trial_choice(self, study)
        if trial.state != optuna.trial.TrialState.COMPLETE:
            raise ValueError(
                f"trial {trial.number} of study {study.study_name!r} is {trial.state.name}, "
                f"not COMPLETE."
            )
        self._refit(objective, study, trial)
        record = study.user_attrs.get(RESELECT_KEY)
        self.reselect_loss_ = math.nan
        if isinstance(record, dict) and str(trial.number) in record.get("losses", {}):
            self.reselect_loss_ = float(record["losses"][str(trial.number)])
        return self

    def choose_trial(self, X: Any, y: Any, study: optuna.Study) -> optuna.trial.FrozenTrial:
        """The trial :meth:`fit` would refit from ``study`` after searching on ``(X, y)``.

        With ``reselect_top`` (single-objective studies) the best distinct trials are
        re-evaluated on ``(X, y)`` by ``reselect_cv``-fold CV, reusing the losses an earlier
        call stored in ``study`` (same folds and seed), and the lowest is returned; otherwise
        :func:`~optuna_psms.fms.pareto.pick_simplest`. For a study searched by several
        processes, call it once they are done (``optuna-psms select`` does).
        """
        return choose(self, X, y, self._objective(X, y), study)[0]

    def describe(self) -> str:
        """One line: the selected pipeline, its CV loss in the search and where it comes from.

        The loss is ``best_loss_``: the chosen trial's mean CV loss on the data the search
        saw (the rows given to :meth:`fit`, or the searched rows for :meth:`fit_trial`), then
        the trial's number and the study's name (unless Optuna generated it), e.g.
        ``"... [CV ber = 0.0400 on the search data, trial 3 of study 'fms-iris']"``. A
        scikit-learn scorer, minimised as its negative, is shown as the score: ``"... [CV
        accuracy = 0.9554 on the search data, trial 3; higher is better]"``, and ``auc``,
        ``pi_svm`` and ``r2`` as the loss minimised (``"[CV 1-AUC = 0.0312 ..."``, as
        ``optuna-psms select`` names it; see :func:`~optuna_psms.fms.metrics.shown_loss`).
        """
        check_is_fitted(self, "best_pipeline_")
        # Models saved before best_loss_ existed kept the loss in best_score_.
        loss = getattr(self, "best_loss_", getattr(self, "best_score_", float("nan")))
        # A scorer reads as itself: "CV accuracy = 0.9554 ...; higher is better", not -0.9554,
        # and auc as the loss minimised: "CV 1-AUC = 0.0312", not "CV auc = 0.0312".
        metric, sign = shown_loss(self.metric)
        head = f"{self.best_description_}  [CV {metric} = {sign * loss:.4f}"
        end = "; higher is better]" if sign < 0 else "]"
        best = getattr(self, "best_trial_", None)  # models saved before it existed
        if best is None:
            return f"{head}{end}"
        name = self.study_.study_name
        if name.startswith("no-name-"):  # Optuna's generated name says nothing
            return f"{head} on the search data, trial {best.number}{end}"
        return f"{head} on the search data, trial {best.number} of study {name!r}{end}"

    @property
    def cv_results_(self) -> dict[str, list[Any]]:
        """One row per trial of ``study_`` (see :func:`~optuna_psms.fms.export.trials_table`)."""
        check_is_fitted(self, "best_pipeline_")
        return trials_table(self.study_)

    @user_entry
    def export_python(self, path: str | None = None) -> str:
        """Write the chosen pipeline as a standalone script and return its text.

        The script is the single best pipeline (``best_pipeline_``). An estimator that
        predicts by a vote (``ensemble_top`` >= 2, :class:`FullModelSelector`'s default 10)
        predicts otherwise: a ``UserWarning`` says so; fit with ``ensemble_top=1`` for an
        estimator whose predictions the script reproduces. See
        :func:`~optuna_psms.fms.export.export_python`.

        Example: ``model.export_python("pipeline.py")``, then
        ``python pipeline.py train.csv TARGET --predict new.csv``.

        Args:
            path: Where to write the script (``None``: only return its text).

        Returns:
            The script's text.
        """
        check_is_fitted(self, "best_pipeline_")
        return export_python(self, path)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        return tags
