"""A final check between a search's vote and a grid-tuned RBF SVC, by a second CV.

:class:`~optuna_psms.fms.FullModelSelector` with ``final_check="svc"`` runs it after the
search: a ``5``-fold stratified CV on the search rows, with folds unlike the search's
(seeded by ``random_state + 1000``), scores two candidates with the selector's metric:

* ``"vote"``: the search's model, its members' parameters fixed, refitted on each fold and
  voting on its held-out rows (with one member, that pipeline alone);
* ``"svc"``: imputer, standard scaler and ``SVC(class_weight="balanced")`` on the package's
  own encoding of the rows (:class:`~optuna_psms.fms.TabularEncoder`), its ``C`` and
  ``gamma`` chosen once on all the search rows by a 3-fold stratified ``GridSearchCV``
  over :data:`SVC_GRID` with the same metric, then refitted on each fold.

The lower mean CV loss wins; a tie goes to the vote. The record (:func:`run_check`) is kept
in the study as the user attr :data:`FINAL_CHECK_KEY`. Under ``metric="pi_svm"`` (defined
for SVMs only) both candidates are scored by the balanced error rate, as ``score`` does.
The evidence: docs/reproduce/reproductions.md, PSMS, "A final check between the vote and a
grid-tuned
SVC" and the 2,000-row check after it.
"""

from __future__ import annotations

import math
import statistics
from typing import Any
import warnings

import numpy as np
from numpy.typing import NDArray
import optuna
from sklearn.base import BaseEstimator
from sklearn.base import ClassifierMixin
from sklearn.impute import SimpleImputer
from sklearn.model_selection import GridSearchCV
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from optuna_psms.fms._ensemble import vote_codes
from optuna_psms.fms._ensemble import vote_proba
from optuna_psms.fms._folds import quiet_fit
from optuna_psms.fms.metrics import fold_loss
from optuna_psms.fms.metrics import shown_loss
from optuna_psms.fms.objective import FullModelObjective


_logger = optuna.logging.get_logger(__name__)

#: The values of ``final_check``: ``None`` (off) or ``"svc"``.
FINAL_CHECKS = (None, "svc")
#: Study user attr holding the record of the check.
FINAL_CHECK_KEY = "fms:final_check"
#: Above this many search rows the check is skipped (the SVC grid's fits grow as ``n**2``).
MAX_ROWS = 10_000
#: Folds of the check (fewer when the smallest class has fewer rows).
FOLDS = 5
#: The SVC's grid, searched by a 3-fold stratified ``GridSearchCV``.
SVC_GRID: dict[str, list[Any]] = {
    "svc__C": [0.1, 1.0, 10.0, 100.0, 1000.0],
    "svc__gamma": ["scale", 0.001, 0.01, 0.1],
}


def check_final_check(value: Any) -> str | None:
    """Validate ``final_check`` (``None`` or ``"svc"``).

    Raises:
        ValueError: Any other value.
    """
    if value is None or (isinstance(value, str) and value == "svc"):
        return value
    raise ValueError(f"final_check must be None or 'svc'; got {value!r}.")


def choose(loss_vote: float, loss_svc: float) -> str:
    """The rule: ``"svc"`` if its CV loss is lower, else ``"vote"`` (ties and ``nan`` too)."""
    return "svc" if loss_svc < loss_vote else "vote"


class _Vote(ClassifierMixin, BaseEstimator):  # type: ignore[misc]
    """Fitted members as one classifier on encoded rows (for the metrics' scorers)."""

    def __init__(self, members: list[Pipeline], n_classes: int) -> None:
        self.members = members
        self.n_classes = n_classes
        self.classes_ = np.arange(n_classes)

    def predict(self, X: Any) -> NDArray[np.int64]:
        return vote_codes(self.members, X, self.n_classes)

    def predict_proba(self, X: Any) -> NDArray[np.float64]:
        return vote_proba(self.members, X, self.n_classes)


def _metric(objective: FullModelObjective) -> str:
    return "ber" if objective.metric == "pi_svm" else objective.metric


def svc_pipeline(C: float = 1.0, gamma: Any = "scale") -> Pipeline:
    """The SVC candidate on encoded rows, unfitted."""
    return Pipeline(
        [
            ("impute", SimpleImputer()),
            ("scale", StandardScaler()),
            ("svc", SVC(C=C, gamma=gamma, class_weight="balanced")),
        ]
    )


def tune_svc(objective: FullModelObjective, seed: int | None) -> dict[str, Any] | None:
    """``{"C": ..., "gamma": ...}`` chosen by the grid on all of the objective's rows;
    ``None`` when no setting could be scored by the metric."""
    metric, n_classes = _metric(objective), objective.n_classes

    def score(est: Any, X: Any, y: Any) -> float:
        return -fold_loss(metric, est, X, y, n_classes)

    smallest = int(np.bincount(objective.y.astype(np.int64)).min())
    grid = GridSearchCV(
        svc_pipeline(),
        SVC_GRID,
        cv=StratifiedKFold(min(3, smallest), shuffle=True, random_state=seed),
        scoring=score,
        refit=False,
        error_score=-math.inf,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grid.fit(objective.X, objective.y)
    if not math.isfinite(grid.best_score_):  # e.g. a metric that needs predict_proba
        return None
    best = grid.best_params_
    return {"C": float(best["svc__C"]), "gamma": best["svc__gamma"]}


def unscorable(objective: FullModelObjective) -> str | None:
    """Why the SVC cannot be scored by the objective's metric, in words naming the metric as
    the user gave it (e.g. ``neg_log_loss`` needs ``predict_proba``, which the SVC, fitted
    without Platt scaling, has not); ``None`` when it can. One SVC fit, before the grid's 60:
    they would all fail alike."""
    metric, n_classes = _metric(objective), objective.n_classes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fitted = svc_pipeline().fit(objective.X, objective.y)
            fold_loss(metric, fitted, objective.X, objective.y, n_classes)
        except Exception as exc:
            if "predict_proba" in str(exc):
                return (
                    f"metric {objective.metric!r} needs class probabilities (predict_proba), "
                    f"which the SVC does not give"
                )
            return f"the SVC cannot be scored by metric {objective.metric!r}: {exc}"[:300]
    return None


def _loss(metric: str, model: Any, X: Any, y: Any, n_classes: int) -> float:
    """``fold_loss``, or ``inf`` when the candidate cannot be scored on this fold."""
    if model is None:
        return math.inf
    try:
        return fold_loss(metric, model, X, y, n_classes)
    except Exception:  # a fold the candidate cannot score counts against it
        return math.inf


def _fit(pipe: Pipeline, X: Any, y: Any) -> Pipeline | None:
    try:
        with quiet_fit():  # an MLP's swallowed Ctrl-C raised, not taken for a failure
            return pipe.fit(X, y)
    except Exception:  # a member failing on one fold abstains there
        return None


def cv_losses(
    objective: FullModelObjective,
    trials: list[optuna.trial.FrozenTrial],
    svc: dict[str, Any],
    seed: int | None,
) -> dict[str, float]:
    """The mean CV loss of both candidates on the objective's rows (folds of ``seed``)."""
    X, y, n_classes, metric = objective.X, objective.y, objective.n_classes, _metric(objective)
    folds = min(FOLDS, int(np.bincount(y.astype(np.int64)).min()))
    kfold = StratifiedKFold(folds, shuffle=True, random_state=seed)
    losses: dict[str, list[float]] = {"vote": [], "svc": []}
    for train, held in kfold.split(X, y):
        fitted = [
            _fit(objective.build_pipeline(dict(t.params)), X[train], y[train]) for t in trials
        ]
        members = [m for m in fitted if m is not None]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            vote = _loss(
                metric, _Vote(members, n_classes) if members else None, X[held], y[held], n_classes
            )
            one = _fit(svc_pipeline(**svc), X[train], y[train])
            alone = _loss(metric, one, X[held], y[held], n_classes)
        losses["vote"].append(vote)
        losses["svc"].append(alone)
    return {key: float(statistics.fmean(values)) for key, values in losses.items()}


def skip_reason(objective: FullModelObjective) -> str | None:
    """Why the check is skipped on the objective's rows before any fit (too many rows, a class
    too small for two folds, the time budget), or ``None``."""
    rows = int(objective.y.shape[0])
    if rows > MAX_ROWS:
        return (
            f"{rows:,} search rows, above its limit of {MAX_ROWS:,}: the SVC's fit time grows "
            f"as the square of the rows"
        )
    if int(np.bincount(objective.y.astype(np.int64)).min()) < 2:
        return "a class has fewer than 2 search rows"
    budget = getattr(objective, "final_check_skip", None)  # fms/_budget.py
    return None if budget is None else str(budget)


def kept(trials: list[Any]) -> str:
    """What a skipped check keeps: ``"the vote"``, or ``"the chosen pipeline"`` alone."""
    return "the vote" if len(trials) > 1 else "the chosen pipeline"


def run_check(
    objective: FullModelObjective, trials: list[optuna.trial.FrozenTrial]
) -> dict[str, Any]:
    """The check on the objective's rows for the vote of ``trials``: a JSON-able record
    ``{"choice", "losses", "metric", "folds", "svc", "trials", "rows", "skipped"}``
    (``skipped``: why it did not run, in words, else ``None``; a skipped check chooses the
    vote, and logs one warning saying why)."""
    rows, seed = int(objective.y.shape[0]), objective.random_state
    smallest = int(np.bincount(objective.y.astype(np.int64)).min())
    record: dict[str, Any] = {
        "choice": "vote",
        "losses": {},
        "metric": _metric(objective),
        "folds": min(FOLDS, smallest),
        "svc": None,
        "trials": [t.number for t in trials],
        "rows": rows,
        "skipped": skip_reason(objective),
    }
    if record["skipped"] is None:
        record["skipped"] = unscorable(objective)
    if record["skipped"] is None:
        record["svc"] = tune_svc(objective, seed)
        if record["svc"] is None:
            metric = objective.metric
            record["skipped"] = f"no setting of the SVC's grid could be scored by {metric!r}"
    if record["skipped"] is not None:
        _logger.warning(f"final_check skipped: {record['skipped']}; {kept(trials)} is kept.")
        return record
    record["losses"] = cv_losses(
        objective, trials, record["svc"], None if seed is None else seed + 1000
    )
    record["choice"] = choose(record["losses"]["vote"], record["losses"]["svc"])
    return record


def reusable(record: Any, objective: FullModelObjective, trials: list[Any]) -> bool:
    """Whether a stored record is of this vote and metric (``fit_trial`` then refits its
    choice on other rows, e.g. all the rows after a hold-out, instead of checking again)."""
    if not (
        isinstance(record, dict)
        and record.get("trials") == [t.number for t in trials]
        and record.get("metric") == _metric(objective)
        and record.get("choice") in ("vote", "svc")
    ):
        return False
    # Read from storage, so untrusted: a choice of "svc" must name a setting of the grid,
    # and the losses must be numbers; anything else is checked again, not trusted or fatal.
    svc, losses = record.get("svc"), record.get("losses")
    if not isinstance(losses, dict) or not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in losses.values()
    ):
        return False
    if record["choice"] == "vote":
        return True
    return (
        isinstance(svc, dict)
        and set(svc) == {"C", "gamma"}
        and svc["C"] in SVC_GRID["svc__C"]
        and not isinstance(svc["C"], bool)
        and svc["gamma"] in SVC_GRID["svc__gamma"]
        and not isinstance(svc["gamma"], bool)
    )


def fit_svc(objective: FullModelObjective, svc: dict[str, Any]) -> Pipeline:
    """The SVC candidate with ``svc``'s ``C`` and ``gamma`` fitted on all the objective's
    rows, encoder first (it predicts class codes, as the search's pipelines do)."""
    pipe = svc_pipeline(**svc)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe.fit(objective.X, objective.y)
    return Pipeline([("encoder", objective.encoder), *pipe.steps])


def describe(record: dict[str, Any]) -> str:
    """One line: what the check compared, with both CV losses on the search rows, and what it
    chose; or why it was skipped."""
    trials = list(record.get("trials") or [])
    if record.get("skipped"):
        return f"final check skipped: {record['skipped']}; {kept(trials)} is kept"
    losses, svc = record["losses"], record["svc"]
    name, sign = shown_loss(record["metric"])
    better = ", higher is better" if sign < 0 else ""
    vote = f"vote of {len(trials)}" if len(trials) > 1 else f"trial {trials[0]}"
    chosen = "the grid-tuned SVC" if record["choice"] == "svc" else kept(trials)
    return (
        f"final check ({record['folds']}-fold CV {name} on the search rows{better}): "
        f"{vote} = {sign * losses['vote']:.4f}, grid-tuned SVC (C={svc['C']:g}, "
        f"gamma={svc['gamma']}) = {sign * losses['svc']:.4f} -> {chosen}"
    )


def apply(
    model: Any,
    objective: FullModelObjective,
    study: optuna.Study,
    trials: list[optuna.trial.FrozenTrial],
    searching: bool,
) -> dict[str, Any] | None:
    """Run (after a search) or reuse (``fit_trial``, when :func:`reusable`) the check of
    ``model.final_check`` for the vote of ``trials`` and set ``final_choice_``,
    ``final_check_losses_`` and ``final_check_``; the record, ``None`` without a check. The
    caller then refits only what was chosen."""
    mode = check_final_check(getattr(model, "final_check", None))
    model.final_choice_ = "vote"
    model.final_check_losses_ = {}
    model.final_check_ = None
    if mode is None:
        return None
    record = study.user_attrs.get(FINAL_CHECK_KEY)
    if searching or not isinstance(record, dict) or not reusable(record, objective, trials):
        record = run_check(objective, trials)
        study.set_user_attr(FINAL_CHECK_KEY, record)
    model.final_check_ = record
    model.final_choice_ = record["choice"]
    model.final_check_losses_ = dict(record["losses"])
    return record


def progress_line(objective: FullModelObjective, top: int, final_check: str | None) -> str:
    """The line said when the search is done (with the progress bar): what runs next, in
    order, before minutes of silence. A check that will be skipped is not announced (that
    costs one SVC fit, of the 60 and more of the check)."""
    rows = int(objective.y.shape[0])
    what = "the chosen pipeline" if top < 2 else f"up to {top} best distinct pipelines"
    if final_check is None or (skip_reason(objective) or unscorable(objective)) is not None:
        return f"search done; refitting {what} on {rows} rows ..."
    folds = min(FOLDS, int(np.bincount(objective.y.astype(np.int64)).min()))
    vote = "the chosen pipeline" if top < 2 else f"the vote of up to {top} best pipelines"
    return (
        f"search done; final check ({vote} against a grid-tuned RBF SVC, {folds}-fold CV on "
        f"{rows} rows), then refitting the winner ..."
    )


def describe_svc(record: dict[str, Any]) -> str:
    """``describe()`` of a selector whose final check chose the SVC."""
    svc, losses = record["svc"], record["losses"]
    numbers = ", ".join(map(str, record["trials"]))
    name, sign = shown_loss(record["metric"])
    return (
        f"grid-tuned RBF SVC (C={svc['C']:g}, gamma={svc['gamma']}, class_weight='balanced') "
        f"on standardised columns, chosen by the final check over the vote of trials "
        f"{numbers}  [{record['folds']}-fold CV {name} on the search rows: "
        f"{sign * losses['svc']:.4f} against {sign * losses['vote']:.4f}"
        f"{'; higher is better' if sign < 0 else ''}]"
    )
