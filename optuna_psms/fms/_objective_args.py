"""The checks of the arguments of :func:`~optuna_psms.fms.objective.make_objective`.

Each bad argument is a one-line :class:`ValueError`, raised before the data is read.
"""

from __future__ import annotations

import math

import numpy as np

from optuna_psms.fms.metrics import COMPLEXITY_MEASURES
from optuna_psms.fms.space import FullModelSpace


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
