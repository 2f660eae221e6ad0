"""``FullModelSelector``: full model selection as a scikit-learn classifier."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from typing import ClassVar
import warnings

import numpy as np
from numpy.typing import NDArray
import optuna
from sklearn.base import ClassifierMixin
from sklearn.metrics import accuracy_score
from sklearn.metrics import balanced_accuracy_score
from sklearn.metrics import roc_auc_score
from sklearn.utils.validation import check_is_fitted

from optuna_psms.fms import _final_check
from optuna_psms.fms._budget import svc_check_seconds
from optuna_psms.fms._ensemble import check_ensemble_top
from optuna_psms.fms._ensemble import ensemble_trials
from optuna_psms.fms._ensemble import fit_members
from optuna_psms.fms._ensemble import holds_whole_study
from optuna_psms.fms._ensemble import pipeline_proba
from optuna_psms.fms._ensemble import vote_codes
from optuna_psms.fms._ensemble import vote_proba
from optuna_psms.fms._ensemble import whole_study_warning
from optuna_psms.fms._initial import DEFAULT_INITIAL
from optuna_psms.fms._samplers import default_sampler_name as default_sampler_name
from optuna_psms.fms._samplers import make_sampler as make_sampler
from optuna_psms.fms._samplers import SAMPLER_NAMES as SAMPLER_NAMES
from optuna_psms.fms._search import FullModelSearch
from optuna_psms.fms._validation import check_features
from optuna_psms.fms._validation import decode_labels
from optuna_psms.fms._validation import label_array
from optuna_psms.fms._validation import labels_to_codes
from optuna_psms.fms._validation import user_entry
from optuna_psms.fms.data import warn_unexpected_values
from optuna_psms.fms.metrics import BUILTIN_METRICS
from optuna_psms.fms.metrics import scorer_score
from optuna_psms.fms.objective import FullModelObjective
from optuna_psms.fms.space import FullModelSpace


# ---- The score of a fitted :class:`~optuna_psms.fms.FullModelSelector` on labelled rows.


def selector_score(model: Any, X: Any, y: Any, sample_weight: Any = None) -> float:
    """The body of :meth:`~optuna_psms.fms.FullModelSelector.score` (see there)."""
    metric = getattr(model, "metric", "ber")
    truth = labels_to_codes(model.classes_, y)
    if metric == "auc":
        given = label_array(y).ravel().tolist()
        unknown = sorted({str(v) for v, c in zip(given, truth, strict=True) if c < 0})
        if unknown:
            raise ValueError(
                f"y has labels the model was not fitted with, which have no probability "
                f"column for the ROC AUC: {', '.join(unknown[:5])}."
            )
        proba = model.predict_proba(X)
        if len(model.classes_) == 2:
            return float(roc_auc_score(truth, proba[:, 1], sample_weight=sample_weight))
        return float(
            roc_auc_score(
                truth,
                proba,
                multi_class="ovr",
                labels=np.arange(len(model.classes_)),
                sample_weight=sample_weight,
            )
        )
    if metric not in BUILTIN_METRICS:
        return scorer_score(model, metric, X, y, sample_weight)
    codes = model._codes(X)
    if metric == "error":
        return float(accuracy_score(truth, codes, sample_weight=sample_weight))
    with warnings.catch_warnings():  # "y_pred contains classes not in y_true"
        warnings.simplefilter("ignore", UserWarning)
        balanced = balanced_accuracy_score(truth, codes, sample_weight=sample_weight)
    return float(balanced)


class FullModelSelector(ClassifierMixin, FullModelSearch):  # type: ignore[misc]
    """Full model selection (PSMS) as a scikit-learn classifier.

    ``fit`` runs an Optuna study over a :class:`FullModelSpace` (preprocessing, feature
    selection, classifier, hyperparameters, threshold tuning) with the objective of
    :func:`make_objective`, then refits the best pipeline on all the data, and by default
    the next best distinct ones too: :meth:`predict` is their vote (``ensemble_top``). By
    default the study's first four trials are textbook pipelines (scikit-learn's default RBF
    SVC, logistic regression, random forest and gradient boosting: ``initial_pipelines``).

    Args:
        space: The search space (default: the whole built-in pool).
        sampler: An Optuna sampler instance, a name accepted by :func:`make_sampler`, or
            ``None`` (PSOSampler), seeded with ``random_state``; ``None`` with
            ``load_if_exists=True`` and an existing study made by an optuna-psms sampler:
            that sampler, its settings and seed (as :func:`optuna_psms.load_study`).
        n_trials: Number of trials (``None``: until ``timeout``). Default 100, the budget
            of every measured figure (docs/reproduce/reproductions.md, PSMS; 50 until 2026-11-26:
            at
            50 the vote was 0.58 ± 0.42 BER points worse on 26 splits).
        timeout: Time budget of the search in seconds.
        trial_timeout: Time limit of one trial in seconds: a pipeline still fitting then is
            stopped (its folds run in a worker process, which is killed), the trial fails with
            ``fms:timeout`` and the reason in ``fms:error``, and the search goes on. It bounds
            the search's trials only: the fits after the search (the ``final_check``'s CV and
            grid, the refits on all the rows) run in this process without a limit, so a
            pipeline that finished its trial within the limit can take longer there (more
            rows per fit, five folds). Pass ``final_check=None`` when the time after the
            search must stay bounded.
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
        reselect_top: Choose the refitted pipeline by re-evaluating the ``reselect_top``
            best distinct trials with ``reselect_cv``-fold stratified CV (other folds,
            seeded by ``random_state``; at most as many folds as the smallest class has
            samples) and taking the lowest, instead of the best 2-fold value; single-
            objective studies only. ``None`` or ``0`` (default): off, the best search
            value is refitted. It costs ``reselect_top * reselect_cv`` more fits; the
            losses are stored in the study (attr ``fms:reselect``). Measured on five KEEL
            sets at 100 trials it did not lower held-out BER (docs/reproduce/reproductions.md,
            PSMS),
            hence off by default.
        reselect_cv: Folds of that re-evaluation (default 5).
        ensemble_top: Predict by a vote of the ``ensemble_top`` best distinct complete
            trials (the refitted trial first, then by search value), each refitted on all
            the data. Binary problems: the mean of each member's positive-class score
            centred on the member's own decision threshold (the logistic squashing of its
            decision values, which a ``bias`` step shifts by its tuned threshold; without
            decision values, its probability shifted by that threshold), positive at
            ``>= 0.5``; more classes: the argmax of the mean class probabilities. A study
            with fewer distinct complete trials gives fewer members, and :meth:`fit` then
            warns (``UserWarning``) that the vote holds them all, the worst included; a
            multi-objective study (``complexity`` without a weight) keeps its single Pareto
            pick.
            Default 10; ``None`` or ``1``: the single refitted pipeline, as before. It
            costs ``ensemble_top - 1`` more fits; ``best_pipeline_`` stays the single best
            and :meth:`export_python` writes only that one. Measured on five KEEL sets
            (50 splits, 100 trials) the vote of 10 lowered held-out BER by about 1 point
            for PSO and random search and 0.4 for TPE, while a plain mean of
            ``predict_proba`` (ignoring the tuned thresholds) raised it
            (docs/reproduce/reproductions.md, PSMS).
        initial_pipelines: Pipelines evaluated first, enqueued as the study's first
            trials (only when the study has none yet): ``"defaults"`` (scikit-learn's
            defaults of the RBF SVC and the logistic regression on standardised columns,
            the random forest and gradient boosting, without feature selection, with the
            ``bias`` step under ``metric="ber"``), a list of parameter dicts (names as in
            ``best_params_``; what a dict leaves out, the sampler chooses), or ``None``: the
            sampler proposes every trial. Default ``"defaults"``: they cost 4 of the
            ``n_trials``; measured on five KEEL sets (100 splits, 100 trials, PSO, the vote of
            10) they lowered held-out BER by 0.39 ± 0.25 points, and put the search
            0.95 ± 0.28 points below a grid-tuned RBF SVC; on 13 other KEEL sets (78
            splits) they lowered it by 0.55 ± 0.33, and the search was level with that
            SVC (+0.40 ± 0.42; over 106 fresh splits +0.13 ± 0.38; docs/reproduce/reproductions.md,
            PSMS). ``"svc-c"`` and ``"svc-grid"`` add two or five standardised RBF SVCs
            (C of 10 and 100, gamma of 1/n and 0.1/n) after the four; measured against
            ``"defaults"`` they did not lower held-out BER (+0.31 ± 0.54 and −0.07 ± 0.45,
            26 splits), so they are not the default.
        metric: Loss to minimise (see :func:`make_objective`).
        subsample: Fraction of the samples per trial.
        storage: Optuna storage (URL such as ``"sqlite:///psms.db"`` or object); ``None``
            keeps the study in memory.
        study_name: Study name in the storage.
        load_if_exists: Continue an existing study of that name.
        n_jobs: Parallel trials (threads, as ``study.optimize(n_jobs=...)``).
        random_state: Seed of the sampler, folds, subsamples and estimators.
        show_progress_bar: Show Optuna's progress bar, and a line on stderr when the search
            is done saying what runs next: the final check, then the refit of what it keeps;
            or the refit alone.
        verbose: ``0`` (default): no per-trial log lines, only Optuna's warnings (e.g. a
            failed trial); ``1``: Optuna's INFO line per trial, and progress lines on stderr
            (trials done, best so far, time left of ``time_budget`` or elapsed): one per
            trial in a terminal, else one every 30 s, and one after 30 s of a running trial;
            ``2``: DEBUG. Optuna's
            verbosity is set for the duration of :meth:`fit` and restored afterwards.
        callbacks: Optuna study callbacks, ``callback(study, frozen_trial)``, each called
            after every trial of the search (``study.optimize(callbacks=...)``), e.g.
            ``optuna.study.MaxTrialsCallback``; ``None``: none.
        final_check: ``"svc"`` (default): after the search, a second
            5-fold stratified CV on the same rows (other folds, seeded by
            ``random_state``), with ``metric`` (``"pi_svm"``: the balanced error rate),
            chooses between the vote (its members' parameters fixed, refitted per fold;
            with ``ensemble_top=1``, the single pipeline) and a grid-tuned RBF SVC
            (imputer, standard scaler, ``SVC(class_weight="balanced")``, ``C`` x
            ``gamma`` tuned by a 3-fold ``GridSearchCV``); the lower loss wins, a tie goes
            to the vote; ``None``: off (the vote, or the single pipeline, is kept). Skipped,
            with one logged warning saying why (also ``final_check_["skipped"]``), above
            10,000 search rows (the SVC's fit time grows as the square of the rows) or when
            the SVC cannot give ``metric`` (``"neg_log_loss"`` needs ``predict_proba``,
            which the SVC has not); the vote is then kept. It costs the grid's 60 SVC
            fits, then ``5 * (ensemble_top + 1)`` fits; then only what it keeps is refitted
            on all the rows. ``trial_timeout`` does not bound these fits (see there).
            :meth:`fit_trial` reuses the study's record
            (user attr ``fms:final_check``) when the vote is the same, refitting its choice
            on the rows given, else checks on those rows. The default since 2026-11-26, by
            a pre-registered test on 54 held-out splits (docs/full_model_selection.md, "A
            final check against a tuned SVC").

        time_budget: Wall-time budget of the whole :meth:`fit` in seconds (``None``: none):
            the search stops inside it, leaving the larger of 20 % of it and 1.5 times the
            best trial's estimated refit for what follows; a trial still running then is
            stopped (it fails with ``fms:timeout``); the vote keeps the members whose refits
            fit in what is left and the final check runs only when it fits too. A logged
            warning says "stopped by the time budget after N trials" when the budget, not
            ``n_trials``, ended the search; ``time_budget_`` records it (``{"time_budget",
            "search_seconds", "trials", "stopped_by", "total_seconds"}``, also the study user
            attr ``fms:time_budget``). With it, ``n_trials`` may be ``None``. See
            :mod:`optuna_psms.fms._budget`.
        trial_memory: Memory ceiling of one trial in MiB (``None``: none; Linux only). Its
            folds then run in a worker process (as with ``trial_timeout``) whose address
            space may grow by that much; a trial past it fails with ``fms:error`` starting
            ``"exceeded trial_memory"`` and the search goes on. The refits after the search
            have no ceiling. See :mod:`optuna_psms.fms._memory`.
        rows_fidelity: Rows as a fidelity (``None``: off, the default): a share in
            ``(0, 1)``; from 10,000 rows on, each trial is first fitted on that share of its
            first fold's training rows, and stopped there (``PRUNED``) when the pruner says
            so; without a ``pruner``, a median rule after 5 trials. See
            :mod:`optuna_psms.fms._fidelity`.
    Attributes:
        best_pipeline_: The refitted scikit-learn pipeline (encoder first); it predicts
            indices into ``classes_``.
        ensemble_: The fitted pipelines :meth:`predict` votes with, best first
            (``[best_pipeline_]`` without ``ensemble_top``).
        ensemble_trials_: Their trials (``FrozenTrial`` of ``study_``), in the same order.
        best_params_: Optuna parameters of the refitted trial.
        best_trial_: That trial (an ``optuna.trial.FrozenTrial`` of ``study_``): the
            study's best, or the re-evaluation's choice with ``reselect_top``.
        reselect_loss_: Its ``reselect_cv``-fold loss in that re-evaluation (``nan``
            without one).
        best_loss_: The best trial's value: the mean ``cv``-fold loss of ``metric`` (lower
            is better) on the data given to :meth:`fit` (for :meth:`fit_trial`: on the data
            ``study_`` searched, not the data refitted on). It is the minimum over all the
            pipelines tried on that same data, hence optimistic: not an estimate of the
            error on new data (keep a hold-out set for that).
        best_score_: The same as a higher-is-better score, as in scikit-learn's search
            estimators: ``1 - best_loss_`` for the built-in metrics (``"ber"``: balanced
            accuracy ``1 - BER``; ``"error"``: accuracy; ``"auc"``: ROC AUC;
            ``"pi_svm"``: PI_SVM), ``-best_loss_`` (the scorer's own value) for a
            scikit-learn scorer name. Optimistic in the same way; :meth:`score` on rows the
            search never saw gives the same score honestly (it is not accuracy unless
            ``metric="error"``).
        study_: The Optuna study the pipeline was chosen in (for :meth:`fit_trial`, the
            study given to it).
        final_choice_: ``"vote"`` or ``"svc"``: what :meth:`predict` uses (``"vote"``
            without ``final_check``). With ``"svc"``, ``ensemble_`` is the SVC pipeline
            (encoder first), ``ensemble_trials_`` is empty, :meth:`export_python` writes the
            SVC, and ``best_pipeline_``, ``best_params_`` and ``best_loss_`` still describe
            the search's best trial.
        final_check_losses_: ``{"vote": loss, "svc": loss}``, the check's mean CV losses
            on the search rows (``{}`` without a check, or when it was skipped).
        final_check_: The check's record as stored in the study (``None`` without one).
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
            model = FullModelSelector(space=space, sampler="tpe", n_trials=20, random_state=0)
            model.fit(X, y)
            print(model.describe())
            assert model.predict(X[:3]).shape == (3,)

        .. testoutput::
            :hide:
            :options: +ELLIPSIS

            ...

        The final check against a grid-tuned SVC (the default for a classification;
        ``final_check=None`` keeps the vote) says what it chose:

        .. testcode::

            from sklearn.datasets import load_iris
            from optuna_psms.fms import FullModelSelector, FullModelSpace

            X, y = load_iris(return_X_y=True)
            space = FullModelSpace(classifiers=["naive_bayes", "logistic"])
            model = FullModelSelector(space=space, n_trials=20, random_state=0)
            model.fit(X, y)
            assert model.final_choice_ in ("vote", "svc")
            assert set(model.final_check_losses_) == {"vote", "svc"}
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
        cv: int = 2,
        reselect_top: int | None = None,
        reselect_cv: int = 5,
        ensemble_top: int | None = 10,
        initial_pipelines: str | list[dict[str, Any]] | None = DEFAULT_INITIAL,
        metric: str = "ber",
        subsample: float = 1.0,
        storage: str | optuna.storages.BaseStorage | None = None,
        study_name: str | None = None,
        load_if_exists: bool = False,
        n_jobs: int = 1,
        random_state: int | None = None,
        show_progress_bar: bool = False,
        verbose: int = 0,
        callbacks: list[Callable[[optuna.Study, optuna.trial.FrozenTrial], None]] | None = None,
        final_check: str | None = "svc",
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
        self.ensemble_top = ensemble_top
        self.initial_pipelines = initial_pipelines
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
        self.final_check = final_check

    def _fitted(self, objective: FullModelObjective) -> None:
        self.classes_ = objective.classes

    _SEARCH_DEPTH: ClassVar[int] = 3  # this _search wraps the base class's

    def _search(self, X: Any, y: Any) -> None:
        check_ensemble_top(self.ensemble_top)  # before the search, not after it
        _final_check.check_final_check(getattr(self, "final_check", None))
        self._searching = True  # the final check runs afresh after a search
        try:
            super()._search(X, y)
        finally:
            del self._searching
        voters = len(self.ensemble_trials_)  # none when the final check chose the SVC
        if holds_whole_study(self.study_, voters):
            # stacklevel 3: this method, fit, the user's line.
            top = check_ensemble_top(self.ensemble_top)
            warnings.warn(whole_study_warning(voters, top), UserWarning, stacklevel=3)

    def _refit(
        self, objective: FullModelObjective, study: optuna.Study, best: optuna.trial.FrozenTrial
    ) -> None:
        top = check_ensemble_top(getattr(self, "ensemble_top", None))
        super()._refit(objective, study, best)
        trials = ensemble_trials(study, best, top)
        searching = getattr(self, "_searching", False)
        budget = getattr(self, "_budget", None)
        if budget is not None and searching:  # the vote and the check fit in what is left
            trials, refits = budget.members(objective, trials)
            svc = 0.0
            if getattr(self, "final_check", None) is not None:
                if _final_check.skip_reason(objective) is None:  # not above its row limit
                    svc = svc_check_seconds(objective)
            objective.final_check_skip = budget.check_skip(refits, _final_check.FOLDS, svc)
        # The check first, then only what it keeps is refitted (not the vote's members for
        # an SVC that replaces them).
        record = _final_check.apply(self, objective, study, trials, searching)
        if record is not None and record["choice"] == "svc":
            self.ensemble_ = [_final_check.fit_svc(objective, record["svc"])]
            self.ensemble_trials_ = []
            return
        self.ensemble_trials_ = trials
        self.ensemble_ = [self.best_pipeline_, *fit_members(objective, trials[1:])]

    def _progress_line(self, objective: FullModelObjective) -> str:
        top = getattr(self, "ensemble_top", None) or 1
        return _final_check.progress_line(objective, top, getattr(self, "final_check", None))

    def _members(self) -> list[Any]:
        # Models pickled before ensembles existed have no ensemble_.
        return list(getattr(self, "ensemble_", None) or [self.best_pipeline_])

    def _codes(self, X: Any) -> NDArray[np.int64]:
        check_is_fitted(self, "best_pipeline_")
        X = check_features(self, X, stacklevel=3)
        warn_unexpected_values(self, X, stacklevel=3)
        return vote_codes(self._members(), X, len(self.classes_))

    @user_entry
    def predict(self, X: Any) -> NDArray[Any]:
        """Predicted class labels: elements of ``classes_`` (the original label objects).

        With ``ensemble_top`` >= 2, the vote of the members (see the class docstring).

        Raises:
            ValueError: ``X`` lacks a training column (DataFrame) or has the wrong number
                of columns (array).

        Warns:
            UserWarning: One per column with values the model reads other than as written:
                text in a numeric column (taken as missing, so the training median) or a
                category not seen in training (see
                :meth:`~optuna_psms.fms.TabularEncoder.unexpected_values`). The prediction
                is still made. Also :meth:`predict_proba` and :meth:`score`.
        """
        return decode_labels(self.classes_, self._codes(X))

    @user_entry
    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """The search's ``metric`` on ``(X, y)``, as a higher-is-better score.

        As :class:`~sklearn.model_selection.GridSearchCV` and
        :class:`~sklearn.linear_model.LogisticRegressionCV` score with the ``scoring`` they
        select by, this is not scikit-learn's default accuracy but the score of ``metric``,
        the same quantity as ``best_score_``: on rows the search never saw it is the honest
        counterpart of that optimistic CV value. ``"ber"`` (default): balanced accuracy,
        ``1 - BER``; ``"error"``: accuracy; ``"auc"``: ROC AUC of :meth:`predict_proba`
        (one-vs-rest macro average for more than two classes); ``"pi_svm"``: balanced
        accuracy (PI_SVM's support-vector part needs CV fits; ``optuna-psms select`` reports
        the held-out BER likewise); a scikit-learn scorer name: that scorer. The
        ``complexity`` term is not part of it. For accuracy whatever the metric, use
        ``sklearn.metrics.accuracy_score(y, model.predict(X))``.

        Args:
            X: Rows to predict.
            y: Their true labels (any type, mixed ones too; a label not in ``classes_``
                counts as a wrong prediction).
            sample_weight: Weights of the rows (``None``: equal).

        Returns:
            The score; higher is better.

        Raises:
            ValueError: ``"auc"`` and ``y`` has a label not in ``classes_``, or ``X`` has
                wrong columns (see :meth:`predict`).
        """
        return selector_score(self, X, y, sample_weight)

    @user_entry
    def predict_proba(self, X: Any) -> NDArray[np.float64]:
        """Class probabilities, columns in the order of ``classes_``.

        Pipelines whose classifier has no ``predict_proba`` (e.g. SVC, kernel ridge, the
        mean/variance classifier) return a logistic/softmax squashing of their decision
        values: a ranking, not calibrated probabilities. With ``ensemble_top`` >= 2 the mean
        over the members. :meth:`predict` is not the argmax of these: it follows each
        member's tuned decision threshold (the ``bias`` step).
        """
        check_is_fitted(self, "best_pipeline_")
        X = check_features(self, X)
        warn_unexpected_values(self, X)
        members = self._members()
        if len(members) == 1:
            return pipeline_proba(members[0], X, len(self.classes_))
        return vote_proba(members, X, len(self.classes_))

    def describe(self) -> str:
        """One line: the selected pipeline, its CV loss in the search and where it comes from;
        with an ensemble of several members, also their trial numbers."""
        line = super().describe()
        record = getattr(self, "final_check_", None)
        if getattr(self, "final_choice_", "vote") == "svc" and record is not None:
            return _final_check.describe_svc(record)
        trials = getattr(self, "ensemble_trials_", None) or []
        if len(trials) < 2:
            return line
        numbers = ", ".join(str(t.number) for t in trials)
        return f"{line}; predicts by a vote of {len(trials)} pipelines (trials {numbers})"
