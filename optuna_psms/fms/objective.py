"""Objective factory for full model selection with any Optuna sampler."""

from __future__ import annotations

from collections.abc import Mapping
import math
import time
from typing import Any
from typing import Literal

import numpy as np
from numpy.typing import NDArray
import optuna
from sklearn.model_selection import KFold
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import Pipeline

from optuna_psms.fms._builtin import mask_rule
from optuna_psms.fms._fidelity import applies as fidelity_applies
from optuna_psms.fms._fidelity import check_rows_fidelity
from optuna_psms.fms._fidelity import first_rung_split
from optuna_psms.fms._fidelity import PRUNED_AT
from optuna_psms.fms._folds import FoldError
from optuna_psms.fms._folds import FoldTask
from optuna_psms.fms._folds import run_folds
from optuna_psms.fms._folds import Split
from optuna_psms.fms._folds import TrialTimeoutError
from optuna_psms.fms._memory import check_trial_memory
from optuna_psms.fms._outcome import INTERRUPTED
from optuna_psms.fms.data import check_classification_data
from optuna_psms.fms.data import TabularEncoder
from optuna_psms.fms.metrics import check_metric
from optuna_psms.fms.metrics import COMPLEXITY_MEASURES
from optuna_psms.fms.metrics import complexity_value
from optuna_psms.fms.space import FullModelSpace
from optuna_psms.fms.space import PipelineSpec
from optuna_psms.fms.target import check_not_continuous
from optuna_psms.fms.target import check_regression_data
from optuna_psms.samplers import _study_info


# ---- The checks of the arguments of :func:`~optuna_psms.fms.objective.make_objective`.


def check_objective_arguments(
    space: FullModelSpace | None,
    subsample: float,
    n_jobs: int,
    random_state: int | None,
    trial_timeout: float | None,
    complexity: str | None,
    complexity_weight: float | None,
) -> None:
    """Raise a one-line :class:`ValueError` on the first bad argument of the objective."""
    if space is not None and not isinstance(space, FullModelSpace):
        raise ValueError(f"space must be a FullModelSpace or None; got {space!r}.")
    if not (isinstance(subsample, int | float) and 0.0 < float(subsample) <= 1.0):
        raise ValueError(f"subsample must be in (0, 1]; got {subsample!r}.")
    if not isinstance(n_jobs, int) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a non-zero int; got {n_jobs!r}.")
    if random_state is not None and not isinstance(random_state, int | np.integer):
        raise ValueError(f"random_state must be an int or None; got {random_state!r}.")
    if trial_timeout is not None and not (
        isinstance(trial_timeout, int | float)
        and not isinstance(trial_timeout, bool)
        and math.isfinite(trial_timeout)
        and trial_timeout > 0
    ):
        raise ValueError(
            f"trial_timeout must be a positive number of seconds or None; got {trial_timeout!r}."
        )
    if complexity is not None and complexity not in COMPLEXITY_MEASURES:
        raise ValueError(
            f"complexity must be one of {', '.join(COMPLEXITY_MEASURES)} or None; "
            f"got {complexity!r}."
        )
    if complexity_weight is not None and (
        complexity is None
        or not isinstance(complexity_weight, int | float)
        or not math.isfinite(complexity_weight)
        or complexity_weight < 0
    ):
        raise ValueError(
            f"complexity_weight must be a non-negative number, used with complexity=; "
            f"got {complexity_weight!r}."
        )


_logger = optuna.logging.get_logger(__name__)

#: Study user attr: how the ``fs:mask:*`` parameters of the joint mask map to features
#: (:func:`~optuna_psms.fms.space.mask_rule`), written when the first mask trial runs. Until
#: 26 Nov 2026 it was a user attr of every mask trial, where it pushed ``psms:particle`` out
#: of optuna-dashboard's trial page.
MASK_RULE_ATTR = "fms:mask_rule"


def seed_estimator(estimator: Any, seed: int | None) -> Any:
    """Set every unset ``*random_state`` parameter of ``estimator`` (deeply) to ``seed``."""
    if seed is None:
        return estimator
    updates = {
        key: seed
        for key, value in estimator.get_params(deep=True).items()
        if (key == "random_state" or key.endswith("__random_state")) and value is None
    }
    if updates:
        estimator.set_params(**updates)
    return estimator


class FullModelObjective:
    """Callable ``objective(trial)`` (to minimise) over a :class:`FullModelSpace`.

    Build it with :func:`make_objective`. Besides being called by ``study.optimize``, it
    rebuilds the pipeline of any parameter set with :meth:`build_pipeline`. It returns a
    float, or ``(loss, complexity)`` when built with ``complexity=`` and no
    ``complexity_weight`` (see :attr:`directions`).

    Attributes:
        space: The search space.
        task: ``"classification"`` or ``"regression"`` (from the space).
        encoder: The :class:`TabularEncoder` fitted on ``X``.
        X: The encoded features (``float64``).
        y: The labels encoded as ``0..K-1`` (classification) or the float target.
        classes: Original labels, ``classes[y] == y_original`` (empty for regression).
        context: The :class:`SpaceContext` given to components.
        directions: ``["minimize"]``, or ``["minimize", "minimize"]`` for the two-objective
            form; pass them to ``optuna.create_study(directions=...)``.
    """

    def __init__(
        self,
        X: Any,
        y: Any,
        *,
        space: FullModelSpace | None = None,
        cv: int = 2,
        metric: str | None = None,
        subsample: float = 1.0,
        random_state: int | None = None,
        n_jobs: int = 1,
        trial_timeout: float | None = None,
        complexity: str | None = None,
        complexity_weight: float | None = None,
        enable_pruning: bool = False,
        trial_memory: float | None = None,
        rows_fidelity: float | None = None,
    ) -> None:
        self.trial_memory = check_trial_memory(trial_memory)
        self.rows_fidelity = check_rows_fidelity(rows_fidelity)
        #: ``time.monotonic()`` past which a running trial is stopped (the time budget's end of
        #: the search, see fms/_budget.py); ``None``: none.
        self.deadline: float | None = None
        #: Why the time budget leaves no room for the final check (``None``: it does).
        self.final_check_skip: str | None = None
        #: Mean fit seconds of a fold per trial number, of the trials this object scored.
        self.fold_seconds: dict[int, float] = {}
        check_objective_arguments(
            space, subsample, n_jobs, random_state, trial_timeout, complexity, complexity_weight
        )
        self.space = space if space is not None else FullModelSpace()
        self.task = self.space.task
        self.metric = check_metric(metric, self.task)
        self.encoder: TabularEncoder
        self.classes: NDArray[Any]
        self.y: NDArray[Any]
        if self.task == "regression":
            self.encoder, self.X, self.y = check_regression_data(X, y, cv=cv)
            self.classes = np.empty(0)
            self.n_classes = 0
        else:
            if isinstance(cv, int) and cv >= 2:
                check_not_continuous(y, cv)
            self.encoder, self.X, self.y, self.classes = check_classification_data(X, y, cv=cv)
            self.n_classes = int(self.classes.size)
        self.cv = int(cv)
        self.subsample = float(subsample)
        self.random_state = None if random_state is None else int(random_state)
        self.n_jobs = n_jobs
        self.trial_timeout = None if trial_timeout is None else float(trial_timeout)
        self.complexity = complexity
        self.complexity_weight = None if complexity_weight is None else float(complexity_weight)
        if not isinstance(enable_pruning, bool):
            raise ValueError(f"enable_pruning must be True or False; got {enable_pruning!r}.")
        self.enable_pruning = enable_pruning
        self.directions: list[Literal["minimize", "maximize"]] = (
            ["minimize", "minimize"]
            if complexity is not None and complexity_weight is None
            else ["minimize"]
        )
        # Base seed for folds and subsamples: reproducible per (random_state, trial number).
        self._seed = (
            self.random_state
            if self.random_state is not None
            else int(np.random.SeedSequence().generate_state(1)[0])
        )
        n_train = int(self.X.shape[0] * self.subsample * (self.cv - 1) / self.cv)
        self.context = self.space.context(self.X.shape[1], self.n_classes, max(n_train, 1))
        self._full_splits: list[Split] | None = None
        if self.subsample >= 1.0:
            self._full_splits = self._kfold(np.arange(self.X.shape[0]), self._seed)

    # ------------------------------------------------------------------ data per trial
    def _kfold(self, idx: NDArray[np.intp], seed: int) -> list[Split]:
        if self.task == "regression":
            folds = KFold(self.cv, shuffle=True, random_state=seed).split(idx)
        else:
            stratified = StratifiedKFold(self.cv, shuffle=True, random_state=seed)
            folds = stratified.split(idx, self.y[idx])
        return [(idx[tr], idx[te]) for tr, te in folds]

    def splits(self, trial_number: int) -> list[Split]:
        """Train/validation index pairs of a trial (its own subsample when subsample < 1)."""
        if self._full_splits is not None:
            return self._full_splits
        rng = np.random.default_rng([self._seed, trial_number])
        if self.task == "regression":
            n = self.X.shape[0]
            size = min(n, max(self.cv, round(self.subsample * n)))
            idx = np.sort(rng.choice(n, size=size, replace=False))
        else:
            chosen: list[NDArray[np.intp]] = []
            for label in range(self.n_classes):
                members = np.flatnonzero(self.y == label)
                size = min(members.size, max(self.cv, round(self.subsample * members.size)))
                chosen.append(rng.choice(members, size=size, replace=False))
            idx = np.sort(np.concatenate(chosen))
        return self._kfold(idx, int(rng.integers(2**31)))

    # ----------------------------------------------------------------------- pipelines
    def _pipeline(self, spec: PipelineSpec) -> Pipeline:
        pipeline: Pipeline = seed_estimator(self.space.build(spec), self.random_state)
        return pipeline

    def spec(self, params: Mapping[str, Any]) -> PipelineSpec:
        """Decode a parameter dict (e.g. ``study.best_params``) into a pipeline spec."""
        return self.space.suggest(optuna.trial.FixedTrial(dict(params)), self.context)

    def build_pipeline(self, params: Mapping[str, Any]) -> Pipeline:
        """Unfitted pipeline (without the encoder) for a parameter dict of this space."""
        return self._pipeline(self.spec(params))

    def describe(self, params: Mapping[str, Any]) -> str:
        """One-line description of the pipeline of a parameter dict."""
        return self.spec(params).describe()

    # --------------------------------------------------------------------- objective
    def _reports(self, trial: optuna.trial.BaseTrial) -> bool:
        """Whether fold scores go to ``trial.report`` (``enable_pruning``, single-objective
        real trials)."""
        if not self.enable_pruning:
            return False
        if not isinstance(trial, optuna.trial.Trial) or len(self.directions) > 1:
            return False
        return len(trial.study.directions) == 1

    def __call__(self, trial: optuna.trial.BaseTrial) -> float | tuple[float, float]:
        try:
            return self._evaluate(trial)
        except KeyboardInterrupt:
            # Optuna fails the trial Ctrl-C cut and keeps no reason: marked, so that it is not
            # counted as a pipeline that failed (a second Ctrl-C here only skips the mark).
            trial.set_user_attr(INTERRUPTED, True)
            raise

    def _evaluate(self, trial: optuna.trial.BaseTrial) -> float | tuple[float, float]:
        if len(self.directions) == 1:
            _study_info.name_metric(trial, self.metric)  # set_metric_names, e.g. "CV BER", once
        spec = self.space.suggest(trial, self.context)
        trial.set_user_attr("fms:pipeline", spec.describe())
        if spec.selector is not None and spec.selector[0].name == "mask":
            # The same for every trial of the study: a study attr, so that a mask trial has
            # no more user attrs than a plain one (see _record).
            _study_info.study_attr_once(trial, MASK_RULE_ATTR, mask_rule(self.context))
        number = getattr(trial, "number", 0)
        reports = self._reports(trial)
        limit, by_budget = self._trial_limit()
        start = time.perf_counter()
        results: list[tuple[float, int, float, float]] = []
        try:
            splits = self.splits(number)
            offset, spent = self._first_rung(trial, spec, splits, limit, start)
            if limit is not None and spent:
                limit = max(limit - spent, 0.1)
            folds = run_folds(
                FoldTask(
                    self._pipeline(spec), splits, self.metric, self.n_classes, self.trial_memory
                ),
                self.X,
                self.y,
                n_jobs=self.n_jobs,
                trial_timeout=limit,
            )
            try:
                for step, result in enumerate(folds):
                    results.append(result)
                    if reports:
                        trial.report(self._fold_value(result), step + offset)
                        if trial.should_prune():
                            self._record(trial, results, start)
                            trial.set_user_attr("fms:pruned_after_fold", step + 1)
                            raise optuna.TrialPruned(
                                f"pruned after fold {step + 1} of {len(splits)}"
                            )
            finally:
                folds.close()  # a pruned trial asks for no more folds
        except optuna.TrialPruned:
            raise
        except Exception as exc:  # a broken or too slow pipeline fails its own trial only
            if isinstance(exc, FoldError):
                reason = str(exc)
            else:
                reason = f"{type(exc).__name__}: {exc}"[:1000]
            if isinstance(exc, TrialTimeoutError):
                trial.set_user_attr("fms:timeout", True)
                if by_budget:
                    reason = f"stopped by the time budget (the search's end): {reason}"
            trial.set_user_attr("fms:error", reason)
            trial.set_user_attr("fms:fit_time", round(time.perf_counter() - start, 4))
            _logger.warning(f"Trial {number} pipeline failed ({spec.describe()}): {reason}")
            return (float("nan"), float("nan")) if len(self.directions) > 1 else float("nan")
        self._record(trial, results, start)
        loss = float(np.mean([r[0] for r in results]))
        if self.complexity is None:
            return loss
        value = complexity_value(
            self.complexity,
            float(np.median([r[1] for r in results])),
            self.X.shape[1],
            float(np.mean([r[2] for r in results])),
        )
        trial.set_user_attr("fms:complexity", round(value, 6))
        if self.complexity_weight is None:
            return loss, value
        return loss + self.complexity_weight * value

    def _first_rung(
        self,
        trial: optuna.trial.BaseTrial,
        spec: PipelineSpec,
        splits: list[Split],
        limit: float | None,
        start: float,
    ) -> tuple[int, float]:
        """The first rung of ``rows_fidelity`` (fms/_fidelity.py): fold 0 on a share of its
        training rows, reported as step 0; raises ``optuna.TrialPruned`` when the pruner says
        so. Returns the step offset of the full folds (1 after a rung, else 0) and the
        seconds the rung took."""
        single = isinstance(trial, optuna.trial.Trial) and len(self.directions) == 1
        if not single or not fidelity_applies(self.rows_fidelity, int(self.X.shape[0])):
            return 0, 0.0
        assert self.rows_fidelity is not None
        number = getattr(trial, "number", 0)
        split = first_rung_split(splits[0], self.rows_fidelity, self._seed, number)
        task = FoldTask(
            self._pipeline(spec), [split], self.metric, self.n_classes, self.trial_memory
        )
        began = time.perf_counter()
        (result,) = list(run_folds(task, self.X, self.y, trial_timeout=limit))
        trial.report(self._fold_value(result), 0)
        if trial.should_prune():
            trial.set_user_attr(PRUNED_AT, int(split[0].size))
            trial.set_user_attr("fms:fit_time", round(time.perf_counter() - start, 4))
            raise optuna.TrialPruned(f"pruned at the first rung ({split[0].size} rows)")
        return 1, time.perf_counter() - began

    def _trial_limit(self) -> tuple[float | None, bool]:
        """This trial's time limit: ``trial_timeout``, or less when the time budget's end of
        the search (:attr:`deadline`) comes first; and whether the budget set it."""
        if self.deadline is None:
            return self.trial_timeout, False
        left = max(self.deadline - time.monotonic(), 0.1)
        if self.trial_timeout is not None and self.trial_timeout <= left:
            return self.trial_timeout, False
        return left, True

    def _fold_value(self, result: tuple[float, int, float, float]) -> float:
        """What a pruner sees for one fold: its loss, plus the weighted complexity if any."""
        if self.complexity is None or self.complexity_weight is None:
            return result[0]
        value = complexity_value(self.complexity, result[1], self.X.shape[1], result[2])
        return result[0] + self.complexity_weight * value

    def _record(
        self,
        trial: optuna.trial.BaseTrial,
        results: list[tuple[float, int, float, float]],
        start: float,
    ) -> None:
        # At most six user attrs on a plain trial (these three, fms:pipeline and the sampler's
        # psms:iteration / psms:particle): optuna-dashboard shows a trial's user attrs in the
        # storage's order (an RDB storage's: by key) in a box six lines high, and the
        # pipeline and the psms attrs sorted after fms:model_size and fms:n_samples, out of
        # sight (usertrial3, 26 Nov 2026). The model size is kept where it counts, with
        # complexity=; the rows scored are the study's (len(fold_scores) folds).
        # Fit seconds per fold, without the worker's start (the time budget's estimates).
        self.fold_seconds[getattr(trial, "number", 0)] = float(np.mean([r[3] for r in results]))
        trial.set_user_attr("fms:fold_scores", [round(r[0], 6) for r in results])
        trial.set_user_attr("fms:n_features", int(np.median([r[1] for r in results])))
        if self.complexity is not None:
            size = round(float(np.mean([r[2] for r in results])), 6)
            trial.set_user_attr("fms:model_size", size)
        trial.set_user_attr("fms:fit_time", round(time.perf_counter() - start, 4))


def make_objective(
    X: Any,
    y: Any,
    *,
    space: FullModelSpace | None = None,
    cv: int = 2,
    metric: str | None = None,
    subsample: float = 1.0,
    random_state: int | None = None,
    n_jobs: int = 1,
    trial_timeout: float | None = None,
    complexity: str | None = None,
    complexity_weight: float | None = None,
    enable_pruning: bool = False,
    trial_memory: float | None = None,
    rows_fidelity: float | None = None,
) -> FullModelObjective:
    """Objective for full model selection: k-fold CV loss of a sampled pipeline.

    Each call samples a full model from ``space`` with the trial's ``suggest_*`` API,
    scores it by k-fold cross-validation (stratified for classification) and returns the
    mean loss. It works with any Optuna sampler. Per trial it stores the user attrs
    ``fms:pipeline`` (one-line description), ``fms:fold_scores``, ``fms:n_features``
    (features reaching the model), ``fms:fit_time`` (seconds), with ``complexity=``
    ``fms:model_size`` (see :func:`~optuna_psms.fms.metrics.model_size`) and
    ``fms:complexity``. The rule of the joint mask (which feature each ``fs:mask:*``
    parameter keeps) is the same for every trial: it is the study user attr
    ``fms:mask_rule``. A pipeline that raises while fitting or scoring makes the objective
    return ``nan``: Optuna marks that trial FAIL, the reason is in ``fms:error``, and the
    study goes on.

    **Pruning.** With ``enable_pruning=True``, in a single-objective study, each fold's loss
    is passed to ``trial.report(loss, step=fold)``; when ``trial.should_prune()`` says so the
    trial raises ``optuna.TrialPruned`` (attr ``fms:pruned_after_fold``), so any Optuna
    pruner (``MedianPruner``, ``WilcoxonPruner``, ...) stops a hopeless pipeline after a
    fold. It is off by default (as in Optuna's ``OptunaSearchCV``) because
    ``optuna.create_study`` uses a ``MedianPruner`` unless told otherwise, which would prune
    about half of the trials of a study that did not ask for it. optuna-psms' samplers
    count a pruned trial as the worst value, like a failed one.

    **Time limit.** With ``trial_timeout`` the folds of each trial run in a worker process
    (a fresh interpreter per searching thread, reused from trial to trial; never a fork, so
    no lock held by another thread can hang it) that is killed once the trial has taken
    that many seconds: the trial fails with ``fms:timeout = True`` and the reason in
    ``fms:error``, and the next trial starts a new worker. The limit counts from the moment
    the worker is ready (its start has ``STARTUP_GRACE`` = 60 s of its own); the data is
    sent to it once. This costs a few milliseconds per trial. Pipelines reach the worker as
    cloudpickle bytes, so estimator classes defined in an unguarded script work.

    **Accuracy versus complexity.** With ``complexity`` (``"features"``, ``"model"`` or
    ``"both"``, see :func:`~optuna_psms.fms.metrics.complexity_value`: the share of input
    features reaching the model, the model's size share - support vectors for SVMs, non-zero
    coefficients for linear models, leaves per tree for ensembles - or their mean) the
    objective returns ``(loss, complexity)`` for a two-objective study
    (``optuna.create_study(directions=objective.directions)``, e.g. with NSGA-II or TPE).
    With ``complexity_weight=w`` as well it returns the scalar ``loss + w * complexity``
    instead, for single-objective samplers such as PSO. The complexity is stored in
    ``fms:complexity`` either way.

    Args:
        X: Features, numpy array or pandas DataFrame; string/categorical columns are
            one-hot encoded and missing values imputed (see :class:`TabularEncoder`).
        y: Labels of any type (classification) or a numeric target (regression, with a
            :class:`~optuna_psms.fms.RegressionSpace`).
        space: The search space (default: the whole built-in classification pool); a
            :class:`~optuna_psms.fms.RegressionSpace` makes it a regression (plain k-fold).
        cv: Number of folds (2 in PSMS).
        metric: Classification: ``"ber"`` (balanced error rate, default), ``"error"``,
            ``"auc"`` (1 - ROC AUC), ``"pi_svm"`` (1 - PI_SVM, SVC pipelines). Regression:
            ``"rmse"`` (default), ``"mae"``, ``"mse"``, ``"r2"`` (1 - R^2). Either: a
            scikit-learn scorer name (negated). ``None``: the task's default.
        subsample: Fraction of the samples used per trial (stratified, at least ``cv`` per
            class); below 1 each trial draws its own subset, deterministic for a given
            ``(random_state, trial.number)``.
        random_state: Seed of the folds, subsamples and every estimator's
            ``random_state``. ``None``: random.
        n_jobs: Parallel jobs over the folds (joblib; then the folds are reported to the
            pruner only after all of them ran).
        trial_timeout: Seconds per trial (``None``: no limit).
        complexity: ``None``, ``"features"``, ``"model"`` or ``"both"``.
        complexity_weight: Weight of the scalarised form (``None``: two objectives).
        enable_pruning: Report each fold to the study's pruner and stop the trial when it
            says so (see *Pruning*).
        trial_memory: Memory ceiling of one trial in MiB (``None``: none; Linux). The folds
            then run in the worker process, as with ``trial_timeout``; a trial that allocates
            past it fails with ``fms:error`` starting ``"exceeded trial_memory"`` and the
            study goes on (see :mod:`optuna_psms.fms._memory`).
        rows_fidelity: A share in ``(0, 1)``: from 10,000 rows on, each trial is first
            scored on that share of its first fold's training rows and reported to the
            study's pruner as step 0 (the full folds follow as steps 1, 2, ...); ``None``
            (default): off. See :mod:`optuna_psms.fms._fidelity`.

    Returns:
        A :class:`FullModelObjective`, callable as ``objective(trial)``.

    Raises:
        ValueError: On empty input, length mismatch, infinite values, a single class,
            fewer samples per class than ``cv``, a continuous target given to a
            classification space, or invalid arguments.

    Example:

        .. testcode::

            import optuna
            from sklearn.datasets import load_breast_cancer
            from optuna_psms.fms import FullModelSpace, make_objective

            X, y = load_breast_cancer(return_X_y=True)
            space = FullModelSpace(classifiers=["naive_bayes", "mean_variance"])
            objective = make_objective(X, y, space=space, random_state=0)
            study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=0))
            study.optimize(objective, n_trials=5)
            print(study.best_trial.user_attrs["fms:pipeline"])

        .. testoutput::
            :hide:
            :options: +ELLIPSIS

            ...
    """
    return FullModelObjective(
        X,
        y,
        space=space,
        cv=cv,
        metric=metric,
        subsample=subsample,
        random_state=random_state,
        n_jobs=n_jobs,
        trial_timeout=trial_timeout,
        complexity=complexity,
        complexity_weight=complexity_weight,
        enable_pruning=enable_pruning,
        trial_memory=trial_memory,
        rows_fidelity=rows_fidelity,
    )
