"""Objective factory for full model selection with any Optuna sampler."""

from __future__ import annotations

from collections.abc import Mapping
import math
import time
from typing import Any
import warnings

from joblib import delayed
from joblib import Parallel
import numpy as np
from numpy.typing import NDArray
import optuna
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import Pipeline

from optuna_psms import _study_info
from optuna_psms.fms.data import check_classification_data
from optuna_psms.fms.data import TabularEncoder
from optuna_psms.fms.metrics import check_metric
from optuna_psms.fms.metrics import fold_loss
from optuna_psms.fms.space import FullModelSpace
from optuna_psms.fms.space import mask_rule
from optuna_psms.fms.space import PipelineSpec


_logger = optuna.logging.get_logger(__name__)

Split = tuple[NDArray[np.intp], NDArray[np.intp]]


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


def _evaluate_fold(
    pipeline: Pipeline,
    X: NDArray[np.float64],
    y: NDArray[np.int64],
    split: Split,
    metric: str,
    n_classes: int,
) -> tuple[float, int]:
    train, test = split
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = clone(pipeline).fit(X[train], y[train])
        loss = fold_loss(metric, fitted, X[test], y[test], n_classes)
        n_used = X.shape[1]
        if len(fitted) > 1:
            n_used = int(np.asarray(fitted[:-1].transform(X[test][:1])).shape[1])
    if not math.isfinite(loss):
        raise ValueError(f"the {metric!r} loss is not finite ({loss})")
    return loss, n_used


class FullModelObjective:
    """Callable ``objective(trial) -> float`` (to minimise) over a :class:`FullModelSpace`.

    Build it with :func:`make_objective`. Besides being called by ``study.optimize``, it
    rebuilds the pipeline of any parameter set with :meth:`build_pipeline`.

    Attributes:
        space: The search space.
        encoder: The :class:`TabularEncoder` fitted on ``X``.
        X: The encoded features (``float64``).
        y: The labels encoded as ``0..K-1``.
        classes: Original labels, ``classes[y] == y_original``.
        context: The :class:`SpaceContext` given to components.
    """

    def __init__(
        self,
        X: Any,
        y: Any,
        *,
        space: FullModelSpace | None = None,
        cv: int = 2,
        metric: str = "ber",
        subsample: float = 1.0,
        random_state: int | None = None,
        n_jobs: int = 1,
    ) -> None:
        if space is not None and not isinstance(space, FullModelSpace):
            raise ValueError(f"space must be a FullModelSpace or None; got {space!r}.")
        if not (isinstance(subsample, int | float) and 0.0 < float(subsample) <= 1.0):
            raise ValueError(f"subsample must be in (0, 1]; got {subsample!r}.")
        if not isinstance(n_jobs, int) or n_jobs == 0:
            raise ValueError(f"n_jobs must be a non-zero int; got {n_jobs!r}.")
        if random_state is not None and not isinstance(random_state, int | np.integer):
            raise ValueError(f"random_state must be an int or None; got {random_state!r}.")
        self.metric = check_metric(metric)
        self.encoder: TabularEncoder
        self.encoder, self.X, self.y, self.classes = check_classification_data(X, y, cv=cv)
        self.space = space if space is not None else FullModelSpace()
        self.cv = int(cv)
        self.subsample = float(subsample)
        self.random_state = None if random_state is None else int(random_state)
        self.n_jobs = n_jobs
        self.n_classes = int(self.classes.size)
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
            folds = StratifiedKFold(self.cv, shuffle=True, random_state=self._seed)
            self._full_splits = list(folds.split(self.X, self.y))

    # ------------------------------------------------------------------ data per trial
    def splits(self, trial_number: int) -> list[Split]:
        """Train/validation index pairs of a trial (its own subsample when subsample < 1)."""
        if self._full_splits is not None:
            return self._full_splits
        rng = np.random.default_rng([self._seed, trial_number])
        chosen: list[NDArray[np.intp]] = []
        for label in range(self.n_classes):
            members = np.flatnonzero(self.y == label)
            size = min(members.size, max(self.cv, round(self.subsample * members.size)))
            chosen.append(rng.choice(members, size=size, replace=False))
        idx = np.sort(np.concatenate(chosen))
        folds = StratifiedKFold(self.cv, shuffle=True, random_state=int(rng.integers(2**31)))
        return [(idx[tr], idx[te]) for tr, te in folds.split(idx, self.y[idx])]

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
    def __call__(self, trial: optuna.trial.BaseTrial) -> float:
        _study_info.name_metric(trial, self.metric)  # set_metric_names, e.g. "BER", once
        spec = self.space.suggest(trial, self.context)
        trial.set_user_attr("fms:pipeline", spec.describe())
        if spec.selector is not None and spec.selector[0].name == "mask":
            trial.set_user_attr("fms:mask_rule", mask_rule(self.context))
        number = getattr(trial, "number", 0)
        start = time.perf_counter()
        try:
            splits = self.splits(number)
            pipeline = self._pipeline(spec)
            args = (self.X, self.y)
            if self.n_jobs == 1:
                results = [
                    _evaluate_fold(pipeline, *args, s, self.metric, self.n_classes) for s in splits
                ]
            else:
                results = Parallel(n_jobs=self.n_jobs)(
                    delayed(_evaluate_fold)(pipeline, *args, s, self.metric, self.n_classes)
                    for s in splits
                )
        except Exception as exc:  # a broken pipeline fails its own trial only
            reason = f"{type(exc).__name__}: {exc}"[:1000]
            trial.set_user_attr("fms:error", reason)
            trial.set_user_attr("fms:fit_time", round(time.perf_counter() - start, 4))
            _logger.warning(f"Trial {number} pipeline failed ({spec.describe()}): {reason}")
            return float("nan")
        losses = [loss for loss, _ in results]
        trial.set_user_attr("fms:fold_scores", [round(v, 6) for v in losses])
        trial.set_user_attr("fms:n_features", int(np.median([n for _, n in results])))
        trial.set_user_attr("fms:n_samples", int(sum(len(te) for _, te in splits)))
        trial.set_user_attr("fms:fit_time", round(time.perf_counter() - start, 4))
        return float(np.mean(losses))


def make_objective(
    X: Any,
    y: Any,
    *,
    space: FullModelSpace | None = None,
    cv: int = 2,
    metric: str = "ber",
    subsample: float = 1.0,
    random_state: int | None = None,
    n_jobs: int = 1,
) -> FullModelObjective:
    """Objective for full model selection: k-fold CV loss of a sampled pipeline.

    Each call samples a full model from ``space`` with the trial's ``suggest_*`` API,
    scores it by stratified k-fold cross-validation and returns the mean loss. It works
    with any Optuna sampler. Per trial it stores the user attrs ``fms:pipeline`` (one-line
    description), ``fms:fold_scores``, ``fms:n_features`` (features reaching the
    classifier), ``fms:n_samples``, ``fms:fit_time`` (seconds) and, for the joint mask,
    ``fms:mask_rule``. A pipeline that raises while fitting or scoring makes the objective
    return ``nan``: Optuna marks that trial FAIL, the reason is in ``fms:error``, and the
    study goes on.

    Args:
        X: Features, numpy array or pandas DataFrame; string/categorical columns are
            one-hot encoded and missing values imputed (see :class:`TabularEncoder`).
        y: Labels of any type.
        space: The search space (default: the whole built-in pool).
        cv: Number of stratified folds (2 in PSMS).
        metric: ``"ber"`` (balanced error rate, default), ``"error"``, ``"auc"``
            (1 - ROC AUC), ``"pi_svm"`` (1 - PI_SVM, SVC pipelines) or a scikit-learn scorer
            name (negated).
        subsample: Fraction of the samples used per trial (stratified, at least ``cv`` per
            class); below 1 each trial draws its own subset, deterministic for a given
            ``(random_state, trial.number)``.
        random_state: Seed of the folds, subsamples and every estimator's
            ``random_state``. ``None``: random.
        n_jobs: Parallel jobs over the folds (joblib).

    Returns:
        A :class:`FullModelObjective`, callable as ``objective(trial) -> float``.

    Raises:
        ValueError: On empty input, length mismatch, infinite values, a single class,
            fewer samples per class than ``cv``, or invalid arguments.

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
    )
