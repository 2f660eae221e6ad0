"""UMDA and BUMDA: Gaussian estimation-of-distribution algorithms in the unit box.

Pure numpy. The formulas are those of Rojas-Domínguez et al., "Optimal hyper-parameter
tuning of SVM classifiers with application to medical diagnosis" (IEEE Access 2018):

* **UMDA** (Eq. 4): per coordinate, the mean and the unbiased standard deviation of the
  ``M`` best solutions (``M`` = top 25% of the population, at least 2)::

      mu_k = (1 / M) sum_i x_ik,     sigma_k = ((1 / (M - 1)) sum_i (x_ik - mu_k)^2)^(1/2)

* **BUMDA** (Eq. 5, from Valdez, Hernández & Botello, Information Sciences 2013): the
  Boltzmann-weighted mean and variance over an adaptive truncation set ``S``::

      mu_k = (1 / G) sum_{i in S} g_i x_ik,
      sigma_k = ((1 / (G + 1)) sum_{i in S} g_i (x_ik - mu_k)^2)^(1/2),     G = sum g_i

  with the shifted objective ``g_i = loss_worst(S) - loss_i + 1`` (the worst selected
  solution weighs 1, every weight is at least 1).

  **Truncation** (Valdez et al. 2013, Sect. "truncation selection", as summarised by the
  IEEE Access paper: "M is automatically adjusted"): the selection threshold never gets
  worse. In loss terms, with ``P`` the population the model is fitted from (the finished
  trials of the previous generation plus the best solution found so far in the run, which
  BUMDA keeps) and ``theta_prev`` the previous threshold (``+inf`` at the first fit)::

      theta = min(theta_prev, ceil(|P| / 2)-th smallest loss of P)
      S     = {x in P : loss(x) <= theta, loss finite}

  So ``S`` is at least the better half of ``P`` while the population improves, shrinks
  below half when it does not (selection pressure rises), and always contains the elite.

Both sample the next population from independent Gaussians ``N(mu_k, sigma_k^2)``
truncated to ``[0, 1]`` (a draw outside is redrawn), so no mass piles up on the walls.

**Convergence** (the IEEE Access paper's early stopping rule: "the variance of the top 25%
solutions ... smaller than a threshold value", 0.01). The paper does not say whether the
variance is that of the solutions' parameters or of their objective values, so both readings
are offered (``convergence_on``):

* ``"params"`` (default): the *spread* of a generation is the largest, over coordinates,
  unbiased standard deviation of its top 25% (at least 2 solutions) in unit coordinates; a
  discrete coordinate whose top solutions all fall in one cell counts 0.
* ``"values"``: the spread is the unbiased standard deviation of the top 25%'s losses, in
  the objective's own units. Where many parameter settings give the same value (SVM tuning:
  a plateau of equal CV accuracy), this reading stops and the first does not.

A run has converged when the spread of its latest complete generation is below
``convergence_threshold`` (0.01), or when its ``n_generations`` have been sampled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace
import math

import numpy as np

from optuna_psms.samplers.core.base import better
from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.base import Proposal
from optuna_psms.samplers.core.base import Record
from optuna_psms.samplers.core.generations import GenerationalStrategy
from optuna_psms.samplers.core.generations import rank_finite
from optuna_psms.samplers.core.settings import choice
from optuna_psms.samplers.core.settings import integer
from optuna_psms.samplers.core.settings import optional_integer
from optuna_psms.samplers.core.settings import real


def n_top(n: int, fraction: float) -> int:
    """Size of the top ``fraction`` of ``n`` solutions: ``max(2, ceil(fraction * n))``."""
    return max(2, math.ceil(fraction * n - 1e-9))


def top_indices(losses: np.ndarray, fraction: float) -> np.ndarray:
    """Indices of the ``n_top(len(losses), fraction)`` best finite losses (fewer if needed).

    Failed solutions (infinite loss) are never selected; ties keep the given order.
    """
    ranked = rank_finite(losses)
    return ranked[: n_top(len(losses), fraction)]


def umda_fit(
    x: np.ndarray, losses: np.ndarray, top_fraction: float = 0.25
) -> tuple[np.ndarray, np.ndarray]:
    """UMDA's Gaussian marginals (Eq. 4) fitted to the top ``top_fraction`` of a population.

    Args:
        x: Population, shape ``(n, d)``, rows in trial-number order.
        losses: Losses (``inf`` for failed solutions), shape ``(n,)``.
        top_fraction: Fraction selected: ``M = max(2, ceil(top_fraction * n))``, capped by the
            number of finite losses.

    Returns:
        ``(mean, std)``, each of shape ``(d,)``; ``std`` is the unbiased (``M - 1``) estimate.

    Raises:
        ValueError: If fewer than two solutions have a finite loss.
    """
    x = np.asarray(x, dtype=float)
    sel = top_indices(losses, top_fraction)
    if sel.size < 2:
        raise ValueError("UMDA needs at least two finished solutions with a finite loss.")
    top = x[sel]
    return top.mean(axis=0), top.std(axis=0, ddof=1)


def bumda_threshold(losses: np.ndarray, previous: float = math.inf) -> float:
    """BUMDA's adaptive truncation threshold (in loss terms: never increases).

    ``theta = min(previous, ceil(n / 2)-th smallest loss)``, failed solutions counting as
    ``inf``; ``previous`` is the threshold of the previous fit (``inf`` at the first one).
    """
    values = np.sort(np.asarray(losses, dtype=float))
    if values.size == 0:
        return float(previous)
    median = float(values[math.ceil(values.size / 2) - 1])
    return min(float(previous), median)


def bumda_fit(
    x: np.ndarray, losses: np.ndarray, threshold: float
) -> tuple[np.ndarray, np.ndarray]:
    """BUMDA's Boltzmann-weighted Gaussian marginals (Eq. 5) over the truncation set.

    Args:
        x: Population, shape ``(n, d)``.
        losses: Losses, shape ``(n,)`` (``inf`` for failed solutions).
        threshold: Selection threshold: solutions with ``loss <= threshold`` are selected.

    Returns:
        ``(mean, std)`` with weights ``g_i = loss_worst_selected - loss_i + 1``,
        ``mean = sum g x / G`` and ``std = (sum g (x - mean)^2 / (G + 1))^(1/2)``.

    Raises:
        ValueError: If no solution is selected.
    """
    x = np.asarray(x, dtype=float)
    losses = np.asarray(losses, dtype=float)
    sel = np.isfinite(losses) & (losses <= threshold)
    if not np.any(sel):
        raise ValueError("BUMDA's truncation set is empty.")
    xs, ls = x[sel], losses[sel]
    g = float(np.max(ls)) - ls + 1.0
    total = float(np.sum(g))
    mean = (g @ xs) / total
    var = (g @ (xs - mean) ** 2) / (total + 1.0)
    return mean, np.sqrt(var)


def top_spread(
    x: np.ndarray, losses: np.ndarray, dims: Sequence[Dim] = (), top_fraction: float = 0.25
) -> float:
    """The convergence measure: largest unbiased std of the top ``top_fraction`` per coordinate.

    A discrete coordinate (``Dim.cells > 0``) whose selected values all fall in one cell has
    spread 0 (sampling it further cannot change the decoded value). Returns ``inf`` when
    fewer than two solutions have a finite loss or there are no coordinates.
    """
    x = np.asarray(x, dtype=float)
    sel = top_indices(losses, top_fraction)
    if sel.size < 2 or x.ndim != 2 or x.shape[1] == 0:
        return math.inf
    top = x[sel]
    std = top.std(axis=0, ddof=1)
    for k, d in enumerate(dims[: top.shape[1]]):
        if d.cells > 0:
            cells = np.clip(np.floor(top[:, k] * d.cells), 0, d.cells - 1)
            if np.all(cells == cells[0]):
                std[k] = 0.0
    return float(np.max(std))


def top_value_spread(losses: np.ndarray, top_fraction: float = 0.25) -> float:
    """Unbiased std of the top ``top_fraction`` finite losses (``inf`` with fewer than two)."""
    losses = np.asarray(losses, dtype=float)
    sel = top_indices(losses, top_fraction)
    if sel.size < 2:
        return math.inf
    return float(np.std(losses[sel], ddof=1))


def sample_truncated_normal(
    mean: np.ndarray, std: np.ndarray, rng: np.random.Generator, max_rounds: int = 64
) -> np.ndarray:
    """Independent draws from ``N(mean_k, std_k^2)`` truncated to ``[0, 1]`` (by redrawing).

    A coordinate with ``std == 0`` is its (clipped) mean. After ``max_rounds`` rejected
    rounds (practically impossible when the mean lies in ``[0, 1]``) a coordinate is drawn
    uniformly.
    """
    mean = np.asarray(mean, dtype=float)
    std = np.asarray(std, dtype=float)
    x: np.ndarray = np.array(np.clip(mean, 0.0, 1.0), dtype=float)
    todo = np.flatnonzero(std > 0.0)
    for _ in range(max_rounds):
        if todo.size == 0:
            return x
        cand = mean[todo] + std[todo] * rng.standard_normal(todo.size)
        inside = (cand >= 0.0) & (cand <= 1.0)
        x[todo[inside]] = cand[inside]
        todo = todo[~inside]
    x[todo] = rng.uniform(0.0, 1.0, todo.size)
    return x


@dataclass(frozen=True)
class GaussianModel:
    """The model one generation samples from.

    Attributes:
        mean: Per-coordinate mean, ``None`` for the uniform initial model.
        std: Per-coordinate standard deviation, ``None`` for the uniform model.
        source: The generation whose trials the model was fitted from (``-1``: uniform).
        n_fit: Number of finished trials of ``source`` used.
        threshold: BUMDA's truncation threshold (loss terms) after this fit.
        elite: BUMDA's best finished trial of the run before this generation.
        selected: UMDA with ``elitism``: the trials this model was fitted to.
    """

    mean: np.ndarray | None
    std: np.ndarray | None
    source: int = -1
    n_fit: int = 0
    threshold: float = math.inf
    elite: Record | None = None
    selected: tuple[Record, ...] = ()


#: The readings of the paper's stopping rule (see the module documentation).
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


class _GaussianEDA(GenerationalStrategy[GaussianModel]):
    def __init__(
        self,
        dim: int,
        run_start: int,
        *,
        settings: EDASettings = EDASettings(),
        dims: Sequence[Dim] = (),
    ) -> None:
        size, generations = settings.population_size, settings.n_generations
        super().__init__(dim, run_start, size=size, n_generations=generations, dims=dims)
        self.settings = settings
        self.population_size = size
        self.convergence_threshold = settings.convergence_threshold
        self._spreads: dict[int, float] = {}

    def initial_model(self) -> GaussianModel:
        return GaussianModel(None, None)

    def ask(self, number: int, rng: np.random.Generator) -> Proposal:
        g, k = self.generation_of(number)
        model = self.model(g)
        if model.mean is None or model.std is None:
            x = rng.uniform(0.0, 1.0, self.dim)
        else:
            x = sample_truncated_normal(model.mean, model.std, rng)
        info = {"fit_gen": model.source, "fit_n": model.n_fit}
        return Proposal(x, k, g, info=info, display={"generation": g, "sample": k})

    def spread(self, g: int) -> float:
        """The spread (see :func:`top_spread`) of generation ``g``'s finished trials."""
        records = self.finished_records(g)
        if not records:
            return math.inf
        losses = np.array([r.loss for r in records], dtype=float)
        if self.settings.convergence_on == "values":
            return top_value_spread(losses)
        x = np.array([r.x for r in records])
        return top_spread(x, losses, self.dims)

    def converged(self) -> bool:
        if self.budget_used_up():
            return True
        g = self.latest_full_generation
        if g < 0 or self.dim == 0:
            return False
        if g not in self._spreads:  # a full generation never changes again
            self._spreads[g] = self.spread(g)
        return self._spreads[g] < self.convergence_threshold


class UMDAStrategy(_GaussianEDA):
    """UMDA: Gaussian marginals (Eq. 4) fitted to the top 25% of the previous generation.

    Generation 0 is uniform in the unit box. See :mod:`optuna_psms.samplers.core.generations` for
    the
    trial assignment and what happens while some trials of the previous generation are
    still running.

    Two options leave the paper's rule when set (both off by default):
    ``settings.elitism`` selects the top ``M = n_top(n, top_fraction)`` from the previous
    generation's ``n`` finished trials *plus* the ``M`` trials the previous model was fitted
    to ((mu + lambda) selection, reset at each restart); ``settings.min_std`` floors every
    coordinate's standard deviation (unit coordinates; shared with BUMDA).

    Args:
        dim: Number of coordinates.
        run_start: First trial number of the run.
        settings: The run's settings (:class:`UMDASettings`).
        dims: Per-coordinate descriptions.
    """

    def __init__(
        self,
        dim: int,
        run_start: int,
        *,
        settings: UMDASettings = UMDASettings(),
        dims: Sequence[Dim] = (),
    ) -> None:
        super().__init__(dim, run_start, settings=settings, dims=dims)
        self.top_fraction = settings.top_fraction
        self.elitism = settings.elitism

    def fit(
        self, g: int, previous: GaussianModel, records: list[Record], usable: bool
    ) -> GaussianModel:
        if not usable:
            return previous
        population = list(records)
        if self.elitism:  # (mu + lambda): the previous model's selection competes again
            numbers = {r.number for r in records}
            population += [r for r in previous.selected if r.number not in numbers]
        x = np.array([r.x for r in population])
        losses = np.array([r.loss for r in population], dtype=float)
        # M is a share of the generation (13 of 50), whatever the elite adds to the pool.
        sel = rank_finite(losses)[: n_top(len(records), self.top_fraction)]
        if sel.size < 2:
            raise ValueError("UMDA needs at least two finished solutions with a finite loss.")
        mean, std = x[sel].mean(axis=0), x[sel].std(axis=0, ddof=1)
        std = np.maximum(std, self.settings.min_std)
        kept = tuple(population[i] for i in sel) if self.elitism else ()
        return GaussianModel(mean, std, g - 1, len(records), selected=kept)


class BUMDAStrategy(_GaussianEDA):
    """BUMDA: Boltzmann-weighted Gaussian marginals (Eq. 5) over an adaptive truncation set.

    The population a model is fitted from is the previous generation's finished trials plus
    the best trial of the run so far (the elite BUMDA keeps, without evaluating it again);
    the truncation threshold ``theta`` never gets worse (module documentation). When too few
    trials of the previous generation have finished the previous model is reused (the elite
    is still updated, ``theta`` is kept).

    Args:
        dim: Number of coordinates.
        run_start: First trial number of the run.
        settings: The run's settings (:class:`EDASettings`).
        dims: Per-coordinate descriptions.
    """

    def fit(
        self, g: int, previous: GaussianModel, records: list[Record], usable: bool
    ) -> GaussianModel:
        elite = previous.elite
        for r in records:
            if r.ok:
                elite = better(elite, r)
        if not usable:
            return replace(previous, elite=elite)
        population = list(records)
        if elite is not None and all(r.number != elite.number for r in records):
            population.append(elite)
        x = np.array([r.x for r in population])
        losses = np.array([r.loss for r in population], dtype=float)
        theta = bumda_threshold(losses, previous.threshold)
        mean, std = bumda_fit(x, losses, theta)
        std = np.maximum(std, self.settings.min_std)
        return GaussianModel(mean, std, g - 1, len(records), theta, elite)
