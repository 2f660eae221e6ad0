"""Predicting by a vote of the best few distinct pipelines of a full-model search.

A search of 100 pipelines scored by 2-fold CV ranks its good pipelines mostly by noise
(``docs/reproduce/reproductions.md``, PSMS section). :class:`~optuna_psms.fms.FullModelSelector`
with
``ensemble_top=K`` refits the ``K`` best distinct complete trials (its chosen trial first,
then :func:`~optuna_psms.fms._reselect.candidates` order) and predicts by their vote:
each member's positive-class score, centred on that member's own decision threshold, is
averaged (binary problems), or their class probabilities are averaged (more classes).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from numpy.typing import NDArray
import optuna
from scipy.special import expit
from sklearn.pipeline import Pipeline

from optuna_psms.fms._folds import quiet_fit
from optuna_psms.fms._reselect import candidates
from optuna_psms.fms.objective import FullModelObjective


def fit_pipeline(objective: FullModelObjective, params: dict[str, Any]) -> Pipeline:
    """The pipeline of ``params``, encoder first, fitted on all of the objective's data (the
    refit of a search's chosen trial, and of each member of a vote)."""
    model = objective.build_pipeline(params)
    with quiet_fit():  # an MLP's swallowed Ctrl-C raised (see quiet_fit)
        model.fit(objective.X, objective.y)
    return Pipeline([("encoder", objective.encoder), *model.steps])


def check_ensemble_top(top: Any) -> int:
    """Validate ``ensemble_top`` (``None`` or an int >= 1); ``None`` counts as 1.

    Raises:
        ValueError: It is neither.
    """
    if top is None:
        return 1
    if not isinstance(top, int) or isinstance(top, bool) or top < 1:
        raise ValueError(f"ensemble_top must be an int >= 1 or None; got {top!r}.")
    return top


#: The start of the warning of :func:`whole_study_warning` (``select`` filters it out of the
#: search and says it itself, in the words of its flags).
WHOLE_STUDY_VOTE = "the vote holds all"


def holds_whole_study(study: optuna.Study, n_voters: int) -> bool:
    """Whether a vote of ``n_voters`` (at least 2) members holds every distinct complete
    pipeline of ``study``, the worst included (a study of at most ``ensemble_top``)."""
    return n_voters >= 2 and len(candidates(study, n_voters + 1)) <= n_voters


def whole_study_warning(n_voters: int, top: int) -> str:
    """The message of :class:`~optuna_psms.fms.FullModelSelector`'s warning when its vote
    holds every distinct complete pipeline of its study (:func:`holds_whole_study`)."""
    return (
        f"{WHOLE_STUDY_VOTE} {n_voters} distinct complete pipelines of the study, the worst "
        f"included (ensemble_top={top}): run more trials than ensemble_top, or pass "
        f"ensemble_top=1 to keep the chosen pipeline alone."
    )


def _key(params: dict[str, Any]) -> str:
    return json.dumps(params, sort_keys=True, default=str)


def ensemble_trials(
    study: optuna.Study, best: optuna.trial.FrozenTrial, top: int
) -> list[optuna.trial.FrozenTrial]:
    """``best``, then the study's best distinct complete trials with other parameters, ``top``
    in all (fewer if the study has fewer); only ``best`` for a multi-objective study."""
    chosen = [best]
    if top < 2 or len(study.directions) > 1:
        return chosen
    seen = {_key(best.params)}
    for trial in candidates(study, top + 1):
        if len(chosen) == top:
            break
        if _key(trial.params) not in seen:
            seen.add(_key(trial.params))
            chosen.append(trial)
    return chosen


def fit_members(
    objective: FullModelObjective, trials: list[optuna.trial.FrozenTrial]
) -> list[Pipeline]:
    """Each trial's pipeline, encoder first, fitted on the objective's whole data."""
    return [fit_pipeline(objective, dict(trial.params)) for trial in trials]


def softmax_scores(dec: NDArray[np.float64], n_classes: int) -> NDArray[np.float64]:
    """Logistic (binary, 1-D) or softmax squashing of decision values into ``[0, 1]``."""
    if n_classes == 2 and dec.ndim == 1:
        p1 = np.asarray(expit(dec), dtype=np.float64)  # 1 / (1 + exp(-dec)), no overflow
        return np.column_stack([1.0 - p1, p1])
    e = np.exp(dec - dec.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True), dtype=np.float64)


def pipeline_proba(pipe: Pipeline, X: Any, n_classes: int) -> NDArray[np.float64]:
    """The pipeline's ``predict_proba``, else a squashing of its decision values."""
    if hasattr(pipe, "predict_proba"):
        try:
            return np.asarray(pipe.predict_proba(X), dtype=np.float64)
        except AttributeError:
            pass
    dec = np.asarray(pipe.decision_function(X), dtype=np.float64)
    return softmax_scores(dec, n_classes)


def centred_score(pipe: Pipeline, X: Any) -> NDArray[np.float64]:
    """A binary pipeline's positive-class score, 0.5 at its own decision threshold.

    ``sigmoid(decision_function)`` when the pipeline has one (a ``bias`` step's decision
    values are already shifted by its tuned threshold), else ``predict_proba[:, 1]``
    shifted by ``0.5 - threshold`` (the ``bias`` step's threshold, else 0.5).
    """
    if hasattr(pipe, "decision_function"):
        try:
            dec = np.asarray(pipe.decision_function(X), dtype=np.float64).ravel()
            return np.asarray(expit(dec), dtype=np.float64)  # no overflow warning
        except AttributeError:
            pass
    threshold = getattr(pipe.steps[-1][1], "threshold_", None)
    p1 = np.asarray(pipe.predict_proba(X), dtype=np.float64)[:, 1]
    return np.asarray(p1 + 0.5 - (0.5 if threshold is None else threshold), dtype=np.float64)


def _finite_mean(values: list[NDArray[np.float64]]) -> NDArray[np.float64]:
    """Mean over members, leaving out a member's non-finite values (``nan`` where none is
    finite): a member whose scores are ``nan`` on some rows (e.g. naive Bayes on a
    zero-variance column) abstains there instead of poisoning the vote."""
    stack = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(stack)
    count = finite.sum(axis=0)
    total = np.where(finite, stack, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.where(count > 0, total / count, np.nan), dtype=np.float64)


def _abstaining() -> Any:
    """Numpy's floating-point warnings off while the members of a vote predict.

    A member whose scores are not finite abstains (:func:`_finite_mean`), so numpy's
    ``RuntimeWarning: divide by zero encountered in log`` from inside it (naive Bayes on a
    column that ended constant) told a user of ``model.predict`` of nothing wrong with the
    model: the docstring example of :class:`~optuna_psms.fms.FullModelSelector` printed three.
    Warnings issued by ``warnings.warn`` (an unseen category, text in a numeric column) still
    pass: ``np.errstate`` covers only floating-point errors.
    """
    return np.errstate(all="ignore")


def vote_codes(members: list[Pipeline], X: Any, n_classes: int) -> NDArray[np.int64]:
    """Class indices predicted by the members' vote (a single member: its ``predict``).

    Rows where no member gives a finite score take the first member's ``predict``.
    """
    if len(members) == 1:
        return np.asarray(members[0].predict(X), dtype=np.int64)
    with _abstaining():
        first = np.asarray(members[0].predict(X), dtype=np.int64)
        if n_classes == 2:
            mean = _finite_mean([centred_score(m, X) for m in members])
            codes = np.asarray(mean >= 0.5, dtype=np.int64)
            return np.where(np.isnan(mean), first, codes)
        proba = _finite_mean([pipeline_proba(m, X, n_classes) for m in members])
    unknown = np.isnan(proba).all(axis=1)
    codes = np.argmax(np.where(np.isnan(proba), -np.inf, proba), axis=1)
    return np.asarray(np.where(unknown, first, codes), dtype=np.int64)


def vote_proba(members: list[Pipeline], X: Any, n_classes: int) -> NDArray[np.float64]:
    """The mean of the members' class probabilities (:func:`pipeline_proba`), leaving out
    non-finite ones."""
    if len(members) == 1:
        return _finite_mean([pipeline_proba(members[0], X, n_classes)])
    with _abstaining():
        return _finite_mean([pipeline_proba(m, X, n_classes) for m in members])
