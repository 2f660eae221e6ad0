"""What the plots read from a study: the samplers' per-trial records, as plain rows.

Records come from storage and are untrusted: a malformed one is skipped, never fatal.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
import math
from typing import Any

from optuna.study import Study
from optuna.study import StudyDirection
from optuna.trial import FrozenTrial
from optuna.trial import TrialState

from optuna_psms.samplers import _records
from optuna_psms.samplers._registry import identities


#: optuna-dashboard draws a user-defined figure in a box 450 pixels high.
HEIGHT = 450
#: A horizontal legend between the title and the plot (keeps the plot area wide).
TOP_LEGEND = {"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left", "x": 0}
MARGIN = {"l": 60, "r": 20, "t": 100, "b": 50}


def _labels() -> dict[str, tuple[str, str, str]]:
    """Algorithm tag -> (sampler class, what a generation is called, what a member is
    called), as each sampler class says (:func:`optuna_psms.samplers._registry.identities`)."""
    return {
        tag: (cls, identity.generation, identity.member)
        for tag, (cls, identity) in identities().items()
    }


#: Algorithm tag -> (sampler class, generation label, member label).
ALGORITHMS: dict[str, tuple[str, str, str]] = _labels()


@dataclass(slots=True)
class Row:
    """One trial of ours: its place in the population and its outcome."""

    number: int
    run: int
    generation: int
    member: int
    x: dict[str, float]  # position in the unit box, by parameter name
    value: float | None  # None unless COMPLETE with a finite value
    params: dict[str, Any] = field(default_factory=dict)
    explore: bool = False
    pfc: float | None = None  # set on the trial that detected its run's convergence
    converged_run: int | None = None


@dataclass(slots=True)
class Population:
    """The rows of one algorithm in a study, in trial order."""

    algorithm: str
    rows: list[Row]
    minimize: bool

    @property
    def generation_label(self) -> str:
        return ALGORITHMS.get(self.algorithm, ("", "generation", ""))[1]

    @property
    def persistent_members(self) -> bool:
        """Whether members persist across generations (PSO's particles: trajectories)."""
        known = identities().get(self.algorithm)
        return known is not None and known[1].persistent_members

    @property
    def member_label(self) -> str:
        return ALGORITHMS.get(self.algorithm, ("", "", "member"))[2]

    def better(self, a: float, b: float) -> bool:
        return a < b if self.minimize else a > b


def _int(value: Any, default: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    return int(value) if math.isfinite(value) else default


def _float(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _value(trial: FrozenTrial) -> float | None:
    if trial.state != TrialState.COMPLETE or trial.values is None or len(trial.values) != 1:
        return None
    value = float(trial.values[0])
    return value if math.isfinite(value) else None


def _row(trial: FrozenTrial, rec: dict[str, Any]) -> Row:
    raw = rec.get("x")
    x: dict[str, float] = {}
    if isinstance(raw, dict):
        for name, u in raw.items():
            if isinstance(u, int | float) and not isinstance(u, bool) and math.isfinite(u):
                x[str(name)] = float(u)
    info = rec.get("info")
    explore = isinstance(info, dict) and bool(info.get("explore"))
    return Row(
        number=trial.number,
        run=_int(rec.get("r", 0), 0),
        generation=_int(rec.get("g", 0), 0),
        member=_int(rec.get("m", -1), -1),
        x=x,
        value=_value(trial),
        params=dict(trial.params),
        explore=explore,
        pfc=_float(trial.user_attrs.get("psms:pfc")),
        converged_run=(
            _int(trial.user_attrs["psms:converged_run"], 0)
            if "psms:converged_run" in trial.user_attrs
            else None
        ),
    )


def sampler_name(study: Study) -> str:
    """The sampler that made ``study``: its ``psms:sampler`` attr, else the live sampler."""
    name = study.user_attrs.get("psms:sampler")
    if isinstance(name, str):
        return name
    return type(study.sampler).__name__


def population(study: Study, plot: str) -> Population:
    """The records of the study's population sampler.

    Raises:
        ValueError: The study has no record of an optuna-psms population sampler (one line,
            naming ``plot`` and the study's sampler).
    """
    if len(study.directions) != 1:
        raise ValueError(
            f"{plot} needs a single-objective study; {study.study_name!r} has "
            f"{len(study.directions)} objectives."
        )
    rows: dict[str, list[Row]] = {}
    for trial in study.get_trials(deepcopy=False):
        rec = _records.load(trial.system_attrs)
        if rec is None or rec.get("a") not in ALGORITHMS:
            continue
        rows.setdefault(str(rec["a"]), []).append(_row(trial, rec))
    if not rows:
        raise ValueError(
            f"{plot} needs a study made by an optuna-psms population sampler; study "
            f"{study.study_name!r} has no psms records (sampler: {sampler_name(study)})."
        )
    # A study resumed with another of our samplers: show the algorithm with most trials.
    algorithm = max(rows, key=lambda a: len(rows[a]))
    ordered = sorted(rows[algorithm], key=lambda r: r.number)
    return Population(algorithm, ordered, study.direction == StudyDirection.MINIMIZE)


def completed(study: Study) -> list[FrozenTrial]:
    """Completed trials with a finite single value, in trial order."""
    trials = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    return [t for t in trials if _value(t) is not None]


def objective_name(study: Study) -> str:
    """The study's metric name (``set_metric_names``) or ``"Objective Value"``."""
    names = study.metric_names
    if names and isinstance(names[0], str):
        return names[0]
    return "Objective Value"


def short(value: float) -> float:
    """``value`` rounded to 6 significant digits (keeps stored figures small)."""
    if value == 0 or not math.isfinite(value):
        return value
    return round(value, 5 - int(math.floor(math.log10(abs(value)))))


def generation_index(rows: list[Row]) -> dict[tuple[int, int], int]:
    """(run, generation) -> its rank over the whole study (restarts continue the count)."""
    keys = sorted({(r.run, r.generation) for r in rows})
    return {key: i for i, key in enumerate(keys)}
