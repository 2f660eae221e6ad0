"""``select_model(X, y, settings)``: the whole full-model-selection workflow in one call.

Hold out a part of the rows the search never sees, search the pipelines on the rest, score
the chosen model on the held-out rows (an honest estimate, unlike the search's optimistic CV
value), and refit it on all rows: what ``optuna-psms select`` does, callable from Python.
:class:`SelectSettings` holds every setting, typed and validated on construction.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from typing import Any

import optuna

from optuna_psms.fms._initial import DEFAULT_INITIAL
from optuna_psms.fms._samplers import make_sampler
from optuna_psms.fms.holdout import holdout_loss
from optuna_psms.fms.holdout import split
from optuna_psms.fms.metrics import check_metric
from optuna_psms.fms.target import resolve_task


def _positive(name: str, value: float | None, *, allow_none: bool = True) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}.")


@dataclass(frozen=True)
class SelectSettings:
    """The settings of :func:`select_model` (one field per ``optuna-psms select`` option).

    Args:
        task: ``"auto"`` (a regression for a continuous numeric target), ``"classification"``
            or ``"regression"``.
        metric: The CV loss the search minimises; ``None``: ``"ber"`` (classification) or
            ``"rmse"`` (regression).
        sampler: A sampler name (:data:`~optuna_psms.fms.SAMPLER_NAMES`); ``None``: PSO.
        n_trials: Trials of the search (``None``: until ``timeout``).
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
        initial_pipelines: Classification: ``"defaults"`` (the textbook pipelines first)
            or ``None``.
        models: Names of the classifiers (regressors) to search; ``None``: the whole pool.
        selectors: Names of the feature selectors; ``None``: all.
        seed: Seeds the split, the folds and the sampler; ``None``: a fresh one.
        storage: An Optuna storage URL for the study (``None``: in memory).
        study_name: The study's name (an existing study of that name is continued).
        n_jobs: Trials run in threads.
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

    def __post_init__(self) -> None:
        if self.n_trials is None and self.timeout is None:
            raise ValueError("give n_trials or timeout (or both): the search needs an end.")
        if self.n_trials is not None and (
            isinstance(self.n_trials, bool)
            or not isinstance(self.n_trials, int)
            or self.n_trials < 1
        ):
            raise ValueError(f"n_trials must be at least 1, got {self.n_trials!r}.")
        _positive("timeout", self.timeout)
        _positive("trial_timeout", self.trial_timeout)
        if isinstance(self.cv, bool) or not isinstance(self.cv, int) or self.cv < 2:
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
        if self.seed is not None and (
            isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0
        ):
            raise ValueError(f"seed must be a non-negative integer or None, got {self.seed!r}.")
        if isinstance(self.n_jobs, bool) or not isinstance(self.n_jobs, int) or self.n_jobs == 0:
            raise ValueError(f"n_jobs must be a positive integer or -1, got {self.n_jobs!r}.")


@dataclass
class Selection:
    """What :func:`select_model` returns.

    Attributes:
        model: The chosen model refitted on all rows (a fitted
            :class:`~optuna_psms.fms.FullModelSelector` or
            :class:`~optuna_psms.fms.FullModelRegressor`).
        study: The search's study (it saw the search rows only).
        task: ``"classification"`` or ``"regression"``.
        metric: The loss the search minimised.
        cv_loss: The chosen pipeline's CV loss on the search rows: the best of many, so
            optimistic.
        held_out: ``(name, loss)`` of the model fitted on the search rows, on the held-out
            rows it never saw (an honest estimate); ``None`` with ``test_size=0``.
        seed: The seed used.
    """

    model: Any
    study: optuna.Study
    task: str
    metric: str
    cv_loss: float
    held_out: tuple[str, float] | None
    seed: int
    search_model: Any = field(repr=False, default=None)


def select_model(X: Any, y: Any, settings: SelectSettings | None = None) -> Selection:
    """Full model selection with an honest held-out estimate, refitted on all rows.

    The rows are split once (stratified for a classification): the search runs on the
    search rows only (:class:`~optuna_psms.fms.FullModelSelector` or
    :class:`~optuna_psms.fms.FullModelRegressor` with ``settings``), its chosen model is
    scored on the held-out rows, and then refitted on all rows.

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

    Raises:
        ValueError: The data or the settings do not fit (one line naming the problem).
    """
    import numpy as np

    from optuna_psms.fms.regression import RegressionSpace
    from optuna_psms.fms.regressor import FullModelRegressor
    from optuna_psms.fms.selector import FullModelSelector
    from optuna_psms.fms.space import FullModelSpace

    s = settings if settings is not None else SelectSettings()
    task = resolve_task(s.task, y)
    metric = check_metric(s.metric, task)
    seed = s.seed if s.seed is not None else int(np.random.SeedSequence().generate_state(1)[0])
    regression = task == "regression"
    models = None if s.models is None else list(s.models)
    selectors = None if s.selectors is None else list(s.selectors)
    space: Any = (
        RegressionSpace(regressors=models, selectors=selectors)
        if regression
        else FullModelSpace(classifiers=models, selectors=selectors)
    )
    if s.test_size > 0:
        X_search, y_search, X_held, y_held = split(X, y, s.test_size, seed, task)
    else:
        X_search, y_search, X_held, y_held = X, y, None, None
    kwargs: dict[str, Any] = {
        "space": space,
        "n_trials": s.n_trials,
        "timeout": s.timeout,
        "trial_timeout": s.trial_timeout,
        "cv": s.cv,
        "metric": metric,
        "subsample": s.subsample,
        "random_state": seed,
        "n_jobs": s.n_jobs,
    }
    if not regression:
        kwargs.update(
            ensemble_top=s.ensemble_top,
            final_check=s.final_check,
            initial_pipelines=s.initial_pipelines,
        )
    estimator: Any = FullModelRegressor if regression else FullModelSelector
    searched = estimator(
        sampler=make_sampler(s.sampler, seed),
        storage=s.storage,
        study_name=s.study_name,
        load_if_exists=s.study_name is not None,
        **kwargs,
    ).fit(X_search, y_search)
    held = None if X_held is None else holdout_loss(metric, searched, X_held, y_held)
    final = estimator(**kwargs).fit_trial(X, y, searched.study_, searched.best_trial_)
    return Selection(
        model=final,
        study=searched.study_,
        task=task,
        metric=metric,
        cv_loss=float(searched.best_loss_),
        held_out=held,
        seed=seed,
        search_model=searched,
    )
