"""Constraint values of a trial, as Optuna stores them.

Optuna keeps a trial's constraints in its system attrs under the key ``"constraints"`` (a
list, written by the samplers' ``constraints_func`` through
``optuna.samplers._base._process_constraints_after_trial``) and, from Optuna 5,
``"constraints:<name>"`` (one value each, written by ``Trial.set_constraint``).
``FrozenTrial.constraints`` (Optuna 5) reads both; before Optuna 5 only the list exists and
is read here directly. Writing goes through Optuna's own function, so a trial constrained by
our samplers is read by Optuna's (``study.best_trial`` of a constrained study, the
dashboard, TPE's and GPSampler's feasibility) exactly as one constrained by TPE.

Private API used: the key ``"constraints"`` (``optuna.study._constrained_optimization``)
and ``_process_constraints_after_trial``; ``tests/test_compat.py``-style checks are in
``tests/samplers/test_constraints.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Sequence
import math
from typing import Any
from typing import TYPE_CHECKING

from optuna.trial import TrialState


if TYPE_CHECKING:
    from optuna.study import Study
    from optuna.trial import FrozenTrial

#: Optuna's system attr key of a trial's constraint values (and prefix of named ones).
KEY = "constraints"


def store_constraints(
    constraints_func: Callable[[FrozenTrial], Sequence[float]],
    study: Study,
    trial: FrozenTrial,
    state: TrialState,
) -> None:
    """Call ``constraints_func`` and store its values as Optuna's samplers do (``after_trial``)."""
    from optuna.samplers._base import _process_constraints_after_trial

    _process_constraints_after_trial(constraints_func, study, trial, state)


def violation(system_attrs: dict[str, Any]) -> float:
    """Total violation of a trial's constraints: the sum of its positive values.

    ``0.0`` for a feasible trial and for one without constraints. Values are read from
    storage (untrusted): a value that is not a real number, or is NaN, counts as an infinite
    violation.
    """
    values: list[Any] = []
    listed = system_attrs.get(KEY)
    if isinstance(listed, (list, tuple)):
        values += listed
    prefix = KEY + ":"
    values += [v for k, v in system_attrs.items() if k.startswith(prefix)]
    total = 0.0
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return math.inf
        c = float(v)
        if math.isnan(c):
            return math.inf
        if c > 0.0:
            total += c
    return total
