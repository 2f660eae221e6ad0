"""``FullModelSelector``: full model selection as a scikit-learn classifier."""

from __future__ import annotations

from typing import Any
import warnings

import numpy as np
from numpy.typing import NDArray
import optuna
from sklearn.base import BaseEstimator
from sklearn.base import ClassifierMixin
from sklearn.metrics import accuracy_score
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from optuna_psms._registry import make_sampler as _make
from optuna_psms._registry import SAMPLERS
from optuna_psms.fms._search import optuna_verbosity
from optuna_psms.fms._search import score_from_loss
from optuna_psms.fms._validation import check_features
from optuna_psms.fms._validation import decode_labels
from optuna_psms.fms._validation import labels_to_codes
from optuna_psms.fms._validation import record_features
from optuna_psms.fms.export import export_python
from optuna_psms.fms.export import trials_table
from optuna_psms.fms.objective import make_objective
from optuna_psms.fms.pareto import pick_simplest
from optuna_psms.fms.space import FullModelSpace
from optuna_psms.storages import open_storage


#: Sampler names understood by :func:`make_sampler` and ``optuna-psms select --sampler``.
SAMPLER_NAMES: tuple[str, ...] = tuple(SAMPLERS)


def default_sampler_name() -> str:
    """The sampler :class:`FullModelSelector` and ``optuna-psms select`` use by default."""
    return "pso"


def make_sampler(name: str | None, seed: int | None = None) -> optuna.samplers.BaseSampler:
    """Create a sampler by name.

    Args:
        name: One of :data:`SAMPLER_NAMES`: ``pso``, ``pso_ring``, ``pattern``, ``dfgs``,
            ``afgs``, ``umda``, ``bumda``, ``drs``, ``drs_nobatch`` (optuna-psms samplers) or
            ``random``, ``tpe``, ``cmaes`` (Optuna's); ``None`` for the default (``pso``).
        seed: Sampler seed.

    Returns:
        The sampler.

    Raises:
        ValueError: Unknown name.
    """
    return _make(default_sampler_name() if name is None else name, seed)


def _softmax_scores(dec: NDArray[np.float64], n_classes: int) -> NDArray[np.float64]:
    if n_classes == 2 and dec.ndim == 1:
        p1 = 1.0 / (1.0 + np.exp(-dec))
        return np.column_stack([1.0 - p1, p1])
    e = np.exp(dec - dec.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True), dtype=np.float64)


class FullModelSelector(ClassifierMixin, BaseEstimator):  # type: ignore[misc]
    """Full model selection (PSMS) as a scikit-learn classifier.

    ``fit`` runs an Optuna study over a :class:`FullModelSpace` (preprocessing, feature
    selection, classifier, hyperparameters, threshold tuning) with the objective of
    :func:`make_objective`, then refits the best pipeline on all the data.

    Args:
        space: The search space (default: the whole built-in pool).
        sampler: An Optuna sampler instance, a name accepted by :func:`make_sampler`, or
            ``None`` (PSOSampler), seeded with ``random_state``.
        n_trials: Number of trials (``None``: until ``timeout``).
        timeout: Time budget of the search in seconds.
        trial_timeout: Time limit of one trial in seconds: a pipeline still fitting then is
            stopped (its folds run in a child process, which is killed), the trial fails with
            ``fms:timeout`` and the reason in ``fms:error``, and the search goes on.
        pruner: An Optuna pruner given each fold's loss (e.g.
            ``optuna.pruners.WilcoxonPruner()``); ``None``: no pruning.
        complexity: ``None``, ``"features"``, ``"model"`` or ``"both"``: also minimise the
            pipeline's complexity (see :func:`make_objective`). Without
            ``complexity_weight`` the study has two objectives (use a multi-objective sampler
            such as ``"tpe"`` or NSGA-II) and the refitted pipeline is picked from the Pareto
            front by :func:`~optuna_psms.fms.pareto.pick_simplest`: the simplest trial whose
            loss is within ``complexity_tolerance`` of the front's lowest loss.
        complexity_weight: Scalarise instead: minimise ``loss + weight * complexity`` (any
            sampler; ``best_score_`` is then that sum).
        complexity_tolerance: Loss slack of the Pareto pick (absolute, default 0.01).
        cv: Stratified CV folds per trial.
        metric: Loss to minimise (see :func:`make_objective`).
        subsample: Fraction of the samples per trial.
        storage: Optuna storage (URL such as ``"sqlite:///psms.db"`` or object); ``None``
            keeps the study in memory.
        study_name: Study name in the storage.
        load_if_exists: Continue an existing study of that name.
        n_jobs: Parallel trials (threads, as ``study.optimize(n_jobs=...)``).
        random_state: Seed of the sampler, folds, subsamples and estimators.
        show_progress_bar: Show Optuna's progress bar.
        verbose: ``0`` (default): no per-trial log lines, only Optuna's warnings (e.g. a
            failed trial); ``1``: Optuna's INFO line per trial; ``2``: DEBUG. Optuna's
            verbosity is set for the duration of :meth:`fit` and restored afterwards.

    Attributes:
        best_pipeline_: The refitted scikit-learn pipeline (encoder first); it predicts
            indices into ``classes_``.
        best_params_: Optuna parameters of the best trial.
        best_loss_: The best trial's value: the mean ``cv``-fold loss of ``metric`` (lower
            is better) on the data given to :meth:`fit`. It is the minimum over all the
            pipelines tried on that same data, hence optimistic: not an estimate of the
            error on new data (keep a hold-out set for that).
        best_score_: The same as a higher-is-better score, as in scikit-learn's search
            estimators: ``1 - best_loss_`` for the built-in metrics (``"ber"``: balanced
            accuracy ``1 - BER``; ``"error"``: accuracy; ``"auc"``: ROC AUC;
            ``"pi_svm"``: PI_SVM), ``-best_loss_`` (the scorer's own value) for a
            scikit-learn scorer name. Optimistic in the same way.
        study_: The Optuna study.
        classes_: The class labels, as given (original objects and dtype).
        n_features_in_: Number of columns of ``X`` in :meth:`fit`.
        feature_names_in_: Column names of ``X`` in :meth:`fit`, when it was a DataFrame
            with string column names. :meth:`predict` and :meth:`predict_proba` then take
            a DataFrame's columns by name, in any order: a missing column raises
            ``ValueError`` naming it, extra columns are ignored with a ``UserWarning``.

    Example:

        .. testcode::

            from sklearn.datasets import load_iris
            from optuna_psms.fms import FullModelSelector, FullModelSpace

            X, y = load_iris(return_X_y=True)
            space = FullModelSpace(classifiers=["naive_bayes", "logistic"])
            model = FullModelSelector(space=space, sampler="tpe", n_trials=5, random_state=0)
            model.fit(X, y)
            print(model.describe())
            assert model.predict(X[:3]).shape == (3,)

        .. testoutput::
            :hide:
            :options: +ELLIPSIS

            ...
    """

    def __init__(
        self,
        space: FullModelSpace | None = None,
        sampler: optuna.samplers.BaseSampler | str | None = None,
        n_trials: int | None = 50,
        timeout: float | None = None,
        trial_timeout: float | None = None,
        pruner: optuna.pruners.BasePruner | None = None,
        complexity: str | None = None,
        complexity_weight: float | None = None,
        complexity_tolerance: float = 0.01,
        cv: int = 2,
        metric: str = "ber",
        subsample: float = 1.0,
        storage: str | optuna.storages.BaseStorage | None = None,
        study_name: str | None = None,
        load_if_exists: bool = False,
        n_jobs: int = 1,
        random_state: int | None = None,
        show_progress_bar: bool = False,
        verbose: int = 0,
    ) -> None:
        self.space = space
        self.sampler = sampler
        self.n_trials = n_trials
        self.timeout = timeout
        self.trial_timeout = trial_timeout
        self.pruner = pruner
        self.complexity = complexity
        self.complexity_weight = complexity_weight
        self.complexity_tolerance = complexity_tolerance
        self.cv = cv
        self.metric = metric
        self.subsample = subsample
        self.storage = storage
        self.study_name = study_name
        self.load_if_exists = load_if_exists
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.show_progress_bar = show_progress_bar
        self.verbose = verbose

    def _make_sampler(self) -> optuna.samplers.BaseSampler:
        if isinstance(self.sampler, optuna.samplers.BaseSampler):
            return self.sampler
        if self.sampler is None or isinstance(self.sampler, str):
            return make_sampler(self.sampler, self.random_state)
        raise ValueError(
            f"sampler must be an Optuna sampler, a sampler name or None; got {self.sampler!r}."
        )

    #: The task of the spaces this estimator searches (FullModelRegressor: regression).
    _task = "classification"

    def _search_space(self) -> FullModelSpace | None:
        task = getattr(self.space, "task", self._task)
        if task != self._task:
            other = "FullModelRegressor" if task == "regression" else "FullModelSelector"
            raise ValueError(f"space is a {task} space; use {other} for it.")
        return self.space

    def fit(self, X: Any, y: Any) -> FullModelSelector:
        """Search the space on ``(X, y)`` and refit the best pipeline on all of it.

        Raises:
            ValueError: Invalid data or arguments (see :func:`make_objective`), or
                duplicate column names in a DataFrame ``X``.
            RuntimeError: If no trial completed (every pipeline failed).
        """
        with optuna_verbosity(self.verbose):  # validates verbose before the search
            return self._search(X, y)

    def _search(self, X: Any, y: Any) -> FullModelSelector:
        if self.n_trials is None and self.timeout is None:
            raise ValueError("set n_trials or timeout, otherwise the search never stops.")
        if self.n_trials is not None and (not isinstance(self.n_trials, int) or self.n_trials < 1):
            raise ValueError(f"n_trials must be a positive int or None; got {self.n_trials!r}.")
        record_features(self, X)
        objective = make_objective(
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
        )
        study = optuna.create_study(
            storage=open_storage(self.storage),
            sampler=self._make_sampler(),
            pruner=self.pruner if self.pruner is not None else optuna.pruners.NopPruner(),
            study_name=self.study_name,
            directions=objective.directions,
            load_if_exists=self.load_if_exists,
        )
        study.set_user_attr("fms:metric", objective.metric)
        study.set_user_attr("fms:cv", objective.cv)
        study.set_user_attr("fms:subsample", objective.subsample)
        study.set_user_attr("fms:space", repr(objective.space))
        study.optimize(
            objective,
            n_trials=self.n_trials,
            timeout=self.timeout,
            n_jobs=self.n_jobs,
            show_progress_bar=self.show_progress_bar,
        )
        completed = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
        if not completed:
            errors = {
                str(t.user_attrs.get("fms:error", "?")) for t in study.get_trials(deepcopy=False)
            }
            raise RuntimeError(
                "no pipeline could be evaluated; errors: " + "; ".join(sorted(errors))[:2000]
            )
        best = pick_simplest(study, self.complexity_tolerance)
        model = objective.build_pipeline(best.params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(objective.X, objective.y)
        self.best_pipeline_ = Pipeline([("encoder", objective.encoder), *model.steps])
        self.best_params_ = dict(best.params)
        self.best_loss_ = float(best.values[0]) if best.values else float("nan")
        self.best_score_ = score_from_loss(objective.metric, self.best_loss_)
        self.best_description_ = objective.describe(best.params)
        self.study_ = study
        self.classes_ = objective.classes
        return self

    def describe(self) -> str:
        """One line: the selected pipeline and its cross-validated loss (``best_loss_``)."""
        check_is_fitted(self, "best_pipeline_")
        # Models saved before best_loss_ existed kept the loss in best_score_.
        loss = getattr(self, "best_loss_", getattr(self, "best_score_", float("nan")))
        return f"{self.best_description_}  [CV {self.metric} = {loss:.4f}]"

    def _codes(self, X: Any) -> NDArray[np.int64]:
        check_is_fitted(self, "best_pipeline_")
        X = check_features(self, X, stacklevel=3)
        return np.asarray(self.best_pipeline_.predict(X), dtype=np.int64)

    def predict(self, X: Any) -> NDArray[Any]:
        """Predicted class labels: elements of ``classes_`` (the original label objects).

        Raises:
            ValueError: ``X`` lacks a training column (DataFrame) or has the wrong number
                of columns (array).
        """
        return decode_labels(self.classes_, self._codes(X))

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Accuracy of :meth:`predict` on ``(X, y)`` (labels of any type, mixed ones too)."""
        truth = labels_to_codes(self.classes_, y)
        return float(accuracy_score(truth, self._codes(X), sample_weight=sample_weight))

    def predict_proba(self, X: Any) -> NDArray[np.float64]:
        """Class probabilities, columns in the order of ``classes_``.

        Pipelines whose classifier has no ``predict_proba`` (e.g. SVC, kernel ridge, the
        mean/variance classifier) return a logistic/softmax squashing of their decision
        values: a ranking, not calibrated probabilities.
        """
        check_is_fitted(self, "best_pipeline_")
        X = check_features(self, X)
        if hasattr(self.best_pipeline_, "predict_proba"):
            try:
                return np.asarray(self.best_pipeline_.predict_proba(X), dtype=np.float64)
            except AttributeError:
                pass
        dec = np.asarray(self.best_pipeline_.decision_function(X), dtype=np.float64)
        return _softmax_scores(dec, len(self.classes_))

    @property
    def cv_results_(self) -> dict[str, list[Any]]:
        """One row per trial of ``study_`` (see :func:`~optuna_psms.fms.export.trials_table`)."""
        check_is_fitted(self, "best_pipeline_")
        return trials_table(self.study_)

    def export_python(self, path: str) -> str:
        """Write the chosen pipeline as a standalone script (see
        :func:`~optuna_psms.fms.export.export_python`) and return its text."""
        check_is_fitted(self, "best_pipeline_")
        return export_python(self, path)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        return tags
