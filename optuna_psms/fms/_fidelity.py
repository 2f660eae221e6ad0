"""Rows as a fidelity: a first, cheap rung of each trial on a share of its rows.

With ``rows_fidelity=s`` (a share in ``(0, 1)``) and data of at least :data:`FIDELITY_MIN_ROWS`
rows, a trial first fits its pipeline on a share ``s`` of the training rows of its first fold
(a random subset drawn from ``(seed, trial number)``; at least :data:`RUNG_MIN_ROWS` rows) and
scores it on that fold's whole validation part. The loss goes to the study's pruner as step 0
(``trial.report``): when the pruner says so, the trial stops there (``optuna.TrialPruned``,
user attr ``fms:pruned_at_rows`` = the rows it was fitted on) and costs about ``s / cv`` of a
full trial; otherwise it goes on with its full folds (reported as steps 1, 2, ... when
``pruner`` asks for fold reports). Without a ``pruner`` of the user's,
:func:`fidelity_pruner` (a median rule at step 0 after 5 trials) decides: a trial whose
small-sample loss is worse than the median of the earlier trials' is stopped, so about half of
the trials cost a fraction of a fold. That is two rungs of successive halving (Jamieson &
Talwalkar, 2016) through Optuna's pruning interface.

How it composes with the samplers: a pruned trial is ``PRUNED`` in storage; this package's
population samplers (PSO, pattern search, DFGS/AFGS, UMDA/BUMDA, dynamic random search) count a
pruned member as the worst value, like a failed one, so a particle or a pattern point moves
away from it and the EDAs do not select it; Optuna's TPE ranks a pruned trial by its last
reported value (here the small-sample loss) below the complete ones.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray
import optuna


#: Data below this many rows is never searched with a first rung (nothing to save).
FIDELITY_MIN_ROWS = 10_000
#: The first rung fits at least this many rows (fewer when the fold has fewer).
RUNG_MIN_ROWS = 2_000
#: User attr of a trial stopped at the first rung: the rows it was fitted on.
PRUNED_AT = "fms:pruned_at_rows"


def check_rows_fidelity(value: Any) -> float | None:
    """``value`` as a share in ``(0, 1)`` (``None``: off); ``ValueError`` otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
        raise ValueError(f"rows_fidelity must be a share in (0, 1) or None; got {value!r}.")
    return float(value)


def fidelity_pruner() -> optuna.pruners.BasePruner:
    """The pruner of a search with ``rows_fidelity`` and no ``pruner``: the median rule at
    step 0 (the first rung) once 5 trials have reported it."""
    return optuna.pruners.MedianPruner(n_startup_trials=5, n_warmup_steps=0)


def applies(share: float | None, n_rows: int) -> bool:
    """Whether a search on ``n_rows`` rows with ``rows_fidelity=share`` has a first rung."""
    return share is not None and n_rows >= FIDELITY_MIN_ROWS


def first_rung_split(
    split: tuple[NDArray[np.intp], NDArray[np.intp]], share: float, seed: int, number: int
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Fold ``split`` with its training part cut to ``share`` of its rows (at least
    :data:`RUNG_MIN_ROWS`), drawn from ``(seed, number)``; the validation part whole."""
    train, test = split
    size = min(train.size, max(RUNG_MIN_ROWS, math.ceil(share * train.size)))
    rng = np.random.default_rng([seed, number, 1])
    return np.sort(rng.choice(train, size=size, replace=False)), test
