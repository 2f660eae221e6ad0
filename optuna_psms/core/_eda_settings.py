"""The settings of the Gaussian EDAs (UMDA, BUMDA), validated on construction.

The algorithms and the paper's formulas are in :mod:`optuna_psms.core.eda`, which re-exports
these names.
"""

from __future__ import annotations

from dataclasses import dataclass

from optuna_psms.core.settings import choice
from optuna_psms.core.settings import integer
from optuna_psms.core.settings import optional_integer
from optuna_psms.core.settings import real


#: The readings of the paper's stopping rule (see :mod:`optuna_psms.core.eda`).
CONVERGENCE_ON = ("params", "values")


@dataclass(frozen=True)
class EDASettings:
    """The settings of a Gaussian EDA run (BUMDA's; validated on construction).

    Attributes:
        population_size: Trials per generation ``N`` (paper: 50), at least 2.
        n_generations: Generations per run (paper: 20); ``None`` for no limit.
        convergence_threshold: Spread of the top 25% under which the run has converged.
        convergence_on: What the spread measures: ``"params"`` (unit coordinates) or
            ``"values"`` (the objective's values).
        min_std: Floor of every coordinate's standard deviation, in unit coordinates
            (paper: none, 0.0), in ``[0, 0.5]``.
    """

    population_size: int = 50
    n_generations: int | None = 20
    convergence_threshold: float = 0.01
    convergence_on: str = "params"
    min_std: float = 0.0

    def __post_init__(self) -> None:
        size = integer("population_size", self.population_size, 2)
        object.__setattr__(self, "population_size", size)
        generations = optional_integer("n_generations", self.n_generations, 1)
        object.__setattr__(self, "n_generations", generations)
        threshold = real("convergence_threshold", self.convergence_threshold, 0.0)
        object.__setattr__(self, "convergence_threshold", threshold)
        on = choice("convergence_on", self.convergence_on, CONVERGENCE_ON)
        object.__setattr__(self, "convergence_on", on)
        floor = real("min_std", self.min_std, 0.0, 0.5)
        object.__setattr__(self, "min_std", floor)


@dataclass(frozen=True)
class UMDASettings(EDASettings):
    """:class:`EDASettings` plus the fraction of the population UMDA fits its model to.

    Attributes:
        top_fraction: In ``(0, 1]`` (paper: 0.25).
        elitism: Fit each model to the best of the previous generation *and* the trials
            the previous model was fitted to (paper: ``False``, the previous generation only).
    """

    top_fraction: float = 0.25
    elitism: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        fraction = real("top_fraction", self.top_fraction, 0.0, 1.0, open_low=True)
        object.__setattr__(self, "top_fraction", fraction)
        if not isinstance(self.elitism, bool):
            raise ValueError(f"elitism must be a bool, got {self.elitism!r}.")


#: BUMDA has exactly the settings every Gaussian EDA here shares.
BUMDASettings = EDASettings
