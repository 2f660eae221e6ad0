"""Choosing the trial to refit by re-evaluating the best few with more CV folds.

A search of 100 pipelines scored by 2-fold CV picks the one with the lowest CV loss, and at
2 folds the ranking of the good pipelines is mostly noise. Re-scoring the ``top`` best
distinct pipelines by a ``cv``-fold CV with other folds, and refitting the lowest of those,
spends ``top * cv`` more fits on the final choice. Measured on five KEEL sets it did not
lower held-out BER (``docs/reproduce/reproductions.md``, PSMS section), so the estimators keep it
off
by default. The re-evaluated losses are kept in the study (user attr
:data:`RESELECT_KEY`), so another process choosing in the same study reuses them.
"""

from __future__ import annotations

from collections.abc import Callable
import json
import math
from typing import Any

import numpy as np
import optuna

from optuna_psms.fms.objective import FullModelObjective
from optuna_psms.fms.objective import make_objective
from optuna_psms.fms.pareto import pick_simplest


#: Study user attr: ``{"cv": k, "losses": {trial number: loss}, "trial": chosen number}``.
RESELECT_KEY = "fms:reselect"


def candidates(study: optuna.Study, top: int) -> list[optuna.trial.FrozenTrial]:
    """The ``top`` complete trials with the lowest value, one per distinct parameter set.

    Ordered by value, then trial number (a repeated pipeline counts once, by its first
    trial with that value).
    """
    done = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
    ranked: list[optuna.trial.FrozenTrial] = []
    seen: set[str] = set()
    for t in sorted(done, key=lambda t: (float(t.values[0]), t.number)):
        key = json.dumps(t.params, sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            ranked.append(t)
            if len(ranked) == top:
                break
    return ranked


def stored_choice(study: optuna.Study, top: int) -> optuna.trial.FrozenTrial | None:
    """The trial an earlier re-evaluation chose, if it covered the study's current
    ``top`` candidates (``None`` otherwise: never run, or trials were added since)."""
    record = study.user_attrs.get(RESELECT_KEY)  # read from storage: untrusted
    if not isinstance(record, dict):
        return None
    losses, chosen = record.get("losses"), record.get("trial")
    if not isinstance(losses, dict) or not isinstance(chosen, int) or isinstance(chosen, bool):
        return None
    current = candidates(study, top)
    if not current or any(str(t.number) not in losses for t in current):
        return None
    by_number = {t.number: t for t in current}
    return by_number.get(chosen)


def reselect(
    study: optuna.Study,
    make: Callable[[], FullModelObjective],
    cv: int,
    seed: int | None,
    top: int,
) -> tuple[optuna.trial.FrozenTrial, float]:
    """Re-evaluate the ``top`` best distinct trials of ``study`` and return the lowest.

    Args:
        study: A finished single-objective full-model study.
        make: Makes the re-evaluating objective (``cv`` folds, seeded by ``seed``); called
            only if a candidate has no loss stored by an earlier call with the same ``cv``
            and ``seed``. A candidate's loss is ``objective(FixedTrial(params))``.
        cv: Folds of the re-evaluation.
        seed: Seed of its folds and estimators.
        top: Number of candidates.

    Returns:
        ``(trial, loss)``: the candidate with the lowest re-evaluated loss (ties and
        failures - a ``nan`` loss - go to the better search value) and that loss.
    """
    ranked = candidates(study, top)
    record = study.user_attrs.get(RESELECT_KEY)
    losses: dict[str, float] = {}
    if isinstance(record, dict) and record.get("cv") == cv and record.get("seed") == seed:
        losses = {str(k): float(v) for k, v in record.get("losses", {}).items()}
    evaluator: FullModelObjective | None = None
    for trial in ranked:
        if str(trial.number) not in losses:
            evaluator = evaluator or make()
            fixed = optuna.trial.FixedTrial(dict(trial.params))
            losses[str(trial.number)] = float(evaluator(fixed))  # type: ignore[arg-type]

    def order(i: int) -> tuple[float, int]:
        loss = losses[str(ranked[i].number)]
        return (loss if math.isfinite(loss) else math.inf, i)

    chosen = ranked[min(range(len(ranked)), key=order)]
    record = {"cv": cv, "seed": seed, "losses": losses, "trial": chosen.number}
    study.set_user_attr(RESELECT_KEY, record)
    return chosen, losses[str(chosen.number)]


def check_reselect(top: Any, cv: Any) -> tuple[int, int]:
    """Validate ``reselect_top`` (``None`` or an int >= 0) and ``reselect_cv`` (int >= 2).

    Raises:
        ValueError: Either is invalid.
    """
    if top is not None and (not isinstance(top, int) or isinstance(top, bool) or top < 0):
        raise ValueError(f"reselect_top must be an int >= 0 or None; got {top!r}.")
    if not isinstance(cv, int) or isinstance(cv, bool) or cv < 2:
        raise ValueError(f"reselect_cv must be an int >= 2; got {cv!r}.")
    return (top or 0), cv


def fit_trial_choice(estimator: Any, study: optuna.Study) -> optuna.trial.FrozenTrial:
    """The trial ``fit_trial(trial=None)`` refits: the stored re-evaluation's choice when the
    estimator re-evaluates (``reselect_top`` >= 2, one objective) and it is still current,
    otherwise :func:`~optuna_psms.fms.pareto.pick_simplest`."""
    top, _ = check_reselect(
        getattr(estimator, "reselect_top", None), getattr(estimator, "reselect_cv", 5)
    )
    chosen = stored_choice(study, top) if top >= 2 and len(study.directions) == 1 else None
    return chosen or pick_simplest(study, estimator.complexity_tolerance)


def choose(
    estimator: Any, X: Any, y: Any, objective: FullModelObjective, study: optuna.Study
) -> tuple[optuna.trial.FrozenTrial, float]:
    """The trial a full-model estimator refits after its search, and its re-evaluated loss.

    With ``reselect_top`` of 2 or more in a single-objective study: :func:`reselect` with
    ``min(reselect_cv, smallest class size)`` folds on ``(X, y)`` (at least 2; for a
    regression, the number of rows). Otherwise
    :func:`~optuna_psms.fms.pareto.pick_simplest` and ``nan``.
    """
    top, cv = check_reselect(
        getattr(estimator, "reselect_top", None), getattr(estimator, "reselect_cv", 5)
    )
    if top < 2 or len(objective.directions) > 1:
        return pick_simplest(study, estimator.complexity_tolerance), math.nan
    if objective.task == "regression":
        limit = int(objective.y.shape[0])
    else:
        limit = int(np.bincount(objective.y.astype(np.int64)).min())
    folds = min(cv, limit)
    if folds < 2:
        return pick_simplest(study, estimator.complexity_tolerance), math.nan

    def make() -> FullModelObjective:
        return make_objective(
            X,
            y,
            space=objective.space,
            cv=folds,
            metric=objective.metric,
            random_state=objective.random_state,
            trial_timeout=objective.trial_timeout,
            complexity=objective.complexity,
            complexity_weight=objective.complexity_weight,
        )

    return reselect(study, make, folds, objective.random_state, top)
