"""Picking one pipeline from an accuracy-versus-complexity Pareto front."""

from __future__ import annotations

import math

import optuna


def pick_simplest(study: optuna.Study, tolerance: float = 0.01) -> optuna.trial.FrozenTrial:
    """The trial a full-model estimator refits.

    Single-objective study: ``study.best_trial``. Two-objective study ``(loss,
    complexity)``: among the Pareto-optimal trials (``study.best_trials``), those whose loss
    is at most the lowest loss plus ``tolerance``; of these the one with the lowest
    complexity, then the lowest loss, then the lowest trial number.

    Args:
        study: A study with at least one complete trial.
        tolerance: Absolute loss slack (e.g. 0.01 = one point of balanced error rate).

    Returns:
        The chosen trial.

    Raises:
        ValueError: ``tolerance`` is negative or not finite.

    Example:

        .. testcode::

            import optuna
            from optuna_psms.fms.pareto import pick_simplest

            study = optuna.create_study(directions=["minimize", "minimize"])
            for loss, complexity in [(0.10, 0.9), (0.105, 0.2), (0.30, 0.01)]:
                study.enqueue_trial({"x": 0.0})
                trial = study.ask()
                trial.suggest_float("x", 0, 1)
                study.tell(trial, [loss, complexity])
            assert pick_simplest(study, tolerance=0.01).values == [0.105, 0.2]
    """
    if not (isinstance(tolerance, int | float) and math.isfinite(tolerance) and tolerance >= 0):
        raise ValueError(f"complexity_tolerance must be a finite number >= 0; got {tolerance!r}.")
    if len(study.directions) == 1:
        return study.best_trial
    front = study.best_trials
    lowest = min(t.values[0] for t in front)
    near = [t for t in front if t.values[0] <= lowest + tolerance]
    return min(near, key=lambda t: (t.values[1], t.values[0], t.number))
