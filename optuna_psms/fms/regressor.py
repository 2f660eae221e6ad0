"""``FullModelRegressor``: full model selection as a scikit-learn regressor."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray
import optuna
from sklearn.base import RegressorMixin
from sklearn.metrics import mean_absolute_error
from sklearn.metrics import mean_squared_error
from sklearn.metrics import r2_score
from sklearn.utils.validation import check_is_fitted

from optuna_psms.fms._initial import DEFAULT_INITIAL
from optuna_psms.fms._search import FullModelSearch
from optuna_psms.fms._validation import check_features
from optuna_psms.fms._validation import user_entry
from optuna_psms.fms.data import warn_unexpected_values
from optuna_psms.fms.metrics import REGRESSION_METRICS
from optuna_psms.fms.metrics import scorer_score
from optuna_psms.fms.regression import RegressionSpace
from optuna_psms.fms.space import FullModelSpace


class FullModelRegressor(RegressorMixin, FullModelSearch):  # type: ignore[misc]
    """Full model selection as a scikit-learn regressor.

    ``fit`` runs an Optuna study over a :class:`~optuna_psms.fms.RegressionSpace`
    (preprocessing, feature selection for a continuous target, regressor and their
    hyperparameters) with k-fold cross-validation, then refits the best pipeline on all the
    data. It takes the options of :class:`~optuna_psms.fms.FullModelSelector`.

    Args:
        space: A :class:`~optuna_psms.fms.RegressionSpace` (default: the whole regression
            pool).
        sampler: An Optuna sampler instance, a sampler name or ``None`` (PSOSampler;
            with ``load_if_exists=True`` and an existing study made by an optuna-psms
            sampler, that sampler, as :func:`optuna_psms.load_study`).
        n_trials: Number of trials (``None``: until ``timeout``). Default 100, as
            :class:`FullModelSelector` and ``optuna-psms select`` (50 until 2026-11-26).
        timeout: Time budget of the search in seconds.
        trial_timeout: Time limit of one trial in seconds (see
            :class:`~optuna_psms.fms.FullModelSelector`).
        pruner: An Optuna pruner given each fold's loss; ``None``: no pruning.
        complexity: Accuracy versus complexity (see
            :class:`~optuna_psms.fms.FullModelSelector`).
        complexity_weight: Weight of the scalarised form.
        complexity_tolerance: Loss slack of the Pareto pick (in the metric's units).
        cv: k of the (shuffled, unstratified) k-fold CV of each trial; default 5.
        reselect_top: Re-evaluate the best trials by ``reselect_cv``-fold CV and refit the
            lowest (see :class:`~optuna_psms.fms.FullModelSelector`); default off.
        reselect_cv: Folds of that re-evaluation (default 5).
        metric: Loss to minimise: ``"rmse"`` (default), ``"mae"``, ``"mse"``, ``"r2"``
            (``1 - R^2``) or a scikit-learn regression scorer name (negated).
        subsample: Fraction of the samples per trial.
        storage: Optuna storage (URL or object); ``None`` keeps the study in memory.
        study_name: Study name in the storage.
        load_if_exists: Continue an existing study of that name.
        n_jobs: Parallel trials (threads).
        random_state: Seed of the sampler, folds, subsamples and estimators.
        show_progress_bar: Show Optuna's progress bar, and a line on stderr when the search
            is done and the refit starts.
        verbose: Optuna's log lines during :meth:`fit` (``0``: none per trial; see
            :class:`~optuna_psms.fms.FullModelSelector`).
        callbacks: Optuna study callbacks called after every trial of the search (see
            :class:`~optuna_psms.fms.FullModelSelector`).
        initial_pipelines: Pipelines evaluated first (only in a new study): ``"defaults"``
            (default: scikit-learn's default ``hist_gradient_boosting``, ridge with alpha 1 on
            standardised columns and a default ``random_forest``, without feature
            selection), a list of parameter dicts, or ``None``.
        time_budget: Wall-time budget of the whole :meth:`fit` in seconds, as
            :class:`~optuna_psms.fms.FullModelSelector`'s (a regression has no vote or final
            check: what is left after the search goes to the refit).
        trial_memory: Memory ceiling of one trial in MiB, as
            :class:`~optuna_psms.fms.FullModelSelector`'s.
        rows_fidelity: Rows as a fidelity, as :class:`~optuna_psms.fms.FullModelSelector`'s.

    Attributes:
        best_pipeline_: The refitted scikit-learn pipeline (encoder first); it predicts the
            target.
        best_params_: Optuna parameters of the best trial.
        best_trial_: That trial (an ``optuna.trial.FrozenTrial`` of ``study_``).
        best_loss_: Its mean CV loss (lower is better) on the data the search saw (that of
            :meth:`fit`, or the data ``study_`` searched for :meth:`fit_trial`); optimistic,
            being the minimum over the pipelines tried on the same data.
        best_score_: The same, higher-is-better: ``-best_loss_`` (e.g. minus the RMSE, as
            scikit-learn's ``neg_root_mean_squared_error``), ``1 - best_loss_`` = R^2 for
            ``"r2"``. :meth:`score` gives the same score on other rows (it is not R^2 unless
            ``metric="r2"``).
        study_: The Optuna study the pipeline was chosen in (for :meth:`fit_trial`, the
            study given to it).
        n_features_in_: Number of columns of ``X`` in :meth:`fit`.
        feature_names_in_: Column names of ``X`` in :meth:`fit`, for a DataFrame with
            string column names; :meth:`predict` then takes columns by name, as
            :class:`~optuna_psms.fms.FullModelSelector` does.
        cv_results_: One row per trial (see :func:`~optuna_psms.fms.export.trials_table`).

    Example:

        .. testcode::

            from sklearn.datasets import load_diabetes
            from optuna_psms.fms import FullModelRegressor, RegressionSpace

            X, y = load_diabetes(return_X_y=True)
            space = RegressionSpace(regressors=["linear", "knn"])
            model = FullModelRegressor(space=space, sampler="tpe", n_trials=5, random_state=0)
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
        n_trials: int | None = 100,
        timeout: float | None = None,
        trial_timeout: float | None = None,
        pruner: optuna.pruners.BasePruner | None = None,
        complexity: str | None = None,
        complexity_weight: float | None = None,
        complexity_tolerance: float = 0.01,
        cv: int = 5,
        reselect_top: int | None = None,
        reselect_cv: int = 5,
        metric: str = "rmse",
        subsample: float = 1.0,
        storage: str | optuna.storages.BaseStorage | None = None,
        study_name: str | None = None,
        load_if_exists: bool = False,
        n_jobs: int = 1,
        random_state: int | None = None,
        show_progress_bar: bool = False,
        verbose: int = 0,
        callbacks: list[Callable[[optuna.Study, optuna.trial.FrozenTrial], None]] | None = None,
        initial_pipelines: str | list[dict[str, Any]] | None = DEFAULT_INITIAL,
        time_budget: float | None = None,
        trial_memory: float | None = None,
        rows_fidelity: float | None = None,
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
        self.reselect_top = reselect_top
        self.reselect_cv = reselect_cv
        self.metric = metric
        self.subsample = subsample
        self.storage = storage
        self.study_name = study_name
        self.load_if_exists = load_if_exists
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.show_progress_bar = show_progress_bar
        self.verbose = verbose
        self.callbacks = callbacks
        self.time_budget = time_budget
        self.trial_memory = trial_memory
        self.rows_fidelity = rows_fidelity
        self.initial_pipelines = initial_pipelines

    _task = "regression"

    def _default_space(self) -> FullModelSpace:
        return RegressionSpace()

    @user_entry
    def predict(self, X: Any) -> NDArray[np.float64]:
        """Predicted target values.

        Raises:
            ValueError: ``X`` lacks a training column (DataFrame) or has the wrong number
                of columns (array).

        Warns:
            UserWarning: One per column with values the model reads other than as written
                (text in a numeric column, an unseen category), as
                :meth:`FullModelSelector.predict <optuna_psms.fms.FullModelSelector.predict>`.
        """
        check_is_fitted(self, "best_pipeline_")
        X = check_features(self, X)
        warn_unexpected_values(self, X)
        return np.asarray(self.best_pipeline_.predict(X), dtype=np.float64).ravel()

    @user_entry
    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """The search's ``metric`` on ``(X, y)``, as a higher-is-better score.

        Not scikit-learn's default R^2 but the score of ``metric``, the same quantity as
        ``best_score_`` (as :class:`~sklearn.model_selection.GridSearchCV` scores with its
        ``scoring``): ``"rmse"`` (default): minus the RMSE; ``"mse"``, ``"mae"``: minus
        those; ``"r2"``: R^2; a scikit-learn scorer name: that scorer. The ``complexity``
        term is not part of it. For R^2 whatever the metric, use
        ``sklearn.metrics.r2_score(y, model.predict(X))``.

        Args:
            X: Rows to predict.
            y: Their true target values.
            sample_weight: Weights of the rows (``None``: equal).

        Returns:
            The score; higher is better.
        """
        metric = getattr(self, "metric", "rmse")
        if metric not in REGRESSION_METRICS:
            return scorer_score(self, metric, X, y, sample_weight)
        truth = np.asarray(y, dtype=np.float64).ravel()
        pred = self.predict(X)
        if metric == "r2":
            return float(r2_score(truth, pred, sample_weight=sample_weight))
        if metric == "mae":
            return -float(mean_absolute_error(truth, pred, sample_weight=sample_weight))
        mse = float(mean_squared_error(truth, pred, sample_weight=sample_weight))
        return -(mse if metric == "mse" else float(np.sqrt(mse)))
