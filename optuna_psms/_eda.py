"""``UMDASampler`` and ``BUMDASampler``: Gaussian EDAs as Optuna samplers."""

from __future__ import annotations

import math
from typing import Any
from typing import Literal

from optuna_psms._adapter import PopulationSampler
from optuna_psms.core.base import Dim
from optuna_psms.core.eda import BUMDAStrategy
from optuna_psms.core.eda import UMDAStrategy


#: With a budget and no ``population_size``, the population is
#: ``budget // BUDGET_GENERATIONS`` clipped to ``[BUDGET_MIN_POPULATION, 50]``
#: (measurements: ``docs/benchmarks.md``, "Budget-aware settings").
BUDGET_GENERATIONS = 10
BUDGET_MIN_POPULATION = 10


def _layout(population_size: Any, n_generations: Any, budget: Any) -> tuple[int, int | None]:
    """``(population_size, n_generations)`` from the arguments: the paper's or the budget's."""
    if budget is not None and (
        not isinstance(budget, int) or isinstance(budget, bool) or budget < 2
    ):
        raise ValueError(f"budget must be an integer >= 2 or None, got {budget!r}.")
    if budget is not None and n_generations != "auto":
        raise ValueError("give either budget or n_generations, not both.")
    if population_size is None:
        population_size = (
            50
            if budget is None
            else min(50, max(BUDGET_MIN_POPULATION, budget // BUDGET_GENERATIONS))
        )
    if (
        not isinstance(population_size, int)
        or isinstance(population_size, bool)
        or population_size < 2
    ):
        raise ValueError(f"population_size must be an integer >= 2, got {population_size!r}.")
    if n_generations == "auto":
        n_generations = 20 if budget is None else max(1, math.ceil(budget / population_size))
    return population_size, n_generations


def _check_common(population_size: Any, n_generations: Any, convergence_threshold: Any) -> None:
    if n_generations is not None and (
        not isinstance(n_generations, int) or isinstance(n_generations, bool) or n_generations < 1
    ):
        raise ValueError(
            f"n_generations must be a positive integer or None, got {n_generations!r}."
        )
    if not isinstance(convergence_threshold, (int, float)) or not convergence_threshold >= 0:
        raise ValueError(
            f"convergence_threshold must be a non-negative number, got {convergence_threshold!r}."
        )


class UMDASampler(PopulationSampler):
    """Univariate marginal distribution algorithm (UMDA) with Gaussian marginals.

    The UMDA of Rojas-Domínguez et al., "Optimal hyper-parameter tuning of SVM classifiers
    with application to medical diagnosis" (IEEE Access 2018), Eq. 4: each coordinate's
    mean and unbiased standard deviation are those of the best 25% of the previous
    generation (``max(2, ceil(0.25 * n))`` of its ``n`` finished trials; 13 of 50). The
    defaults are the paper's: population 50, 20 generations, spread threshold 0.01.

    **Trial assignment.** Trial ``n`` (counted from the start of the run) is sample
    ``n % population_size`` of generation ``n // population_size``, whatever the number of
    workers: every (generation, sample) slot is exactly one trial. Generation 0 is uniform in
    the unit box (every parameter one coordinate, categorical choices included, as in PSMS);
    generation ``g`` samples each coordinate from a Gaussian truncated to the box (draws
    outside are redrawn) whose parameters were fitted from generation ``g - 1``.

    **Concurrency.** Generation ``g``'s model is fitted from the trials of generation ``g - 1``
    finished at the time a trial of generation ``g`` is asked, provided at least half of
    generation ``g - 1`` (``ceil(population_size / 2)`` trials) has finished and at least two
    of those succeeded; otherwise generation ``g`` samples generation ``g - 1``'s model again.
    With ``k`` workers the last ``k - 1`` trials of a generation are typically still running
    when the next one starts, so its first trials use a model fitted from the others, and the
    model is refitted once they finish. The state is a function of the set of finished trials:
    a process that reads the study later refits the same models from the same trials. Each
    trial stores ``fit_gen`` (the generation its model was fitted from, ``-1``: uniform) and
    ``fit_n`` (how many of that generation's trials had finished).

    **Convergence and restarts.** The *spread* of a generation is the largest, over
    coordinates, unbiased standard deviation of its top 25% (at least two trials) in unit
    coordinates; a discrete coordinate whose top trials all decode to one value counts 0.
    A run has converged when the spread of its latest complete generation is below
    ``convergence_threshold`` (0.01, the paper's early-stopping rule; in the paper the
    hyper-parameters spanned 7 to 10 log2 units, so 0.01 in unit coordinates is about its
    variance threshold of 0.01) or when it has sampled its ``n_generations`` generations.
    ``on_converged="restart"`` then starts a fresh run (uniform generation 0) at the next
    trial; ``"stop"`` stops ``study.optimize`` (an ask-and-tell user keeps receiving
    samples from the converged model). The trial that detects convergence carries
    ``psms:converged_run``, ``psms:run_trials`` and ``psms:pfc`` (trials used divided by
    ``population_size * n_generations``: the PFC of Rojas-Domínguez et al.).

    **Budget.** ``budget`` is the number of trials the study is expected to run. ``None``
    keeps the paper's 20 generations of 50. With a budget, one run spans it:
    ``population_size = clip(budget // 10, 10, 50)`` (unless given) and
    ``n_generations = ceil(budget / population_size)``; nothing else changes. Passing both
    ``budget`` and ``n_generations`` is an error.

    **Failures.** Failed, pruned, NaN and infinite trials are the worst solutions: never
    selected, but they count towards a generation's size. Trials added with ``add_trial``
    (or by another sampler) join the generation their trial number falls in; enqueued
    trials keep their slot with the enqueued values.

    Storage, reproducibility, conditional and new parameters follow
    :class:`~optuna_psms.PopulationSampler`. Each trial carries the user attrs
    ``psms:generation`` and ``psms:sample`` (``record_user_attrs=False`` turns them off).

    Example:

        .. testcode::

            import optuna
            from optuna_psms import UMDASampler


            def objective(trial):
                x = trial.suggest_float("x", -5, 5)
                y = trial.suggest_int("y", -5, 5)
                return x**2 + y**2


            study = optuna.create_study(sampler=UMDASampler(population_size=20, seed=0))
            study.optimize(objective, n_trials=200)
            assert study.best_value < 0.5

    Args:
        population_size: Trials per generation (paper: 50; with a budget, see above).
        n_generations: Generations per run (paper: 20), the PFC denominator; ``None`` for
            runs that end only by convergence; ``"auto"``: 20, or the budget's.
        convergence_threshold: Spread of the top 25% under which a run has converged;
            ``0`` disables this test.
        top_fraction: Fraction of a generation the marginals are fitted to
            (paper: 0.25), in ``(0, 1]``.
        on_converged: ``"restart"`` (default) or ``"stop"``.
        budget: The number of trials the study is expected to run, or ``None``.
        seed: Seed of every random draw (with the trial number).
        record_user_attrs: Write ``psms:generation`` and ``psms:sample`` user attrs.
    """

    algorithm = "umda"

    def __init__(
        self,
        *,
        population_size: int | None = None,
        n_generations: int | None | Literal["auto"] = "auto",
        convergence_threshold: float = 0.01,
        top_fraction: float = 0.25,
        on_converged: str = "restart",
        budget: int | None = None,
        seed: int | None = None,
        record_user_attrs: bool = True,
    ) -> None:
        population_size, n_generations = _layout(population_size, n_generations, budget)
        _check_common(population_size, n_generations, convergence_threshold)
        if not isinstance(top_fraction, (int, float)) or not 0.0 < top_fraction <= 1.0:
            raise ValueError(f"top_fraction must be in (0, 1], got {top_fraction!r}.")
        super().__init__(seed=seed, record_user_attrs=record_user_attrs, on_converged=on_converged)
        self._params: dict[str, Any] = dict(
            population_size=population_size,
            n_generations=n_generations,
            convergence_threshold=float(convergence_threshold),
            top_fraction=float(top_fraction),
        )

    def _make_strategy(self, dims: tuple[Dim, ...], run_start: int) -> UMDAStrategy:
        return UMDAStrategy(len(dims), run_start, dims=dims, **self._params)


class BUMDASampler(PopulationSampler):
    """Boltzmann univariate marginal distribution algorithm (BUMDA).

    The BUMDA of Valdez, Hernández & Botello (Information Sciences 2013) as used by
    Rojas-Domínguez et al. (IEEE Access 2018), Eq. 5: each coordinate's mean and variance
    are weighted by the shifted objective ``g_i = loss_worst_selected - loss_i + 1`` over a
    truncation set ``S``, ``mean = sum g x / G`` and ``var = sum g (x - mean)^2 / (G + 1)``
    with ``G = sum g``. The weights use the objective's own scale (as the paper does):
    objectives that differ by much more than 1 between good and bad trials give nearly
    linear weights, objectives that differ by much less give nearly equal ones.

    **Truncation rule** (Valdez et al. 2013, the "adaptive truncation" the IEEE Access paper
    describes as "M is automatically adjusted"). The model of generation ``g`` is fitted from
    the population ``P`` = the finished trials of generation ``g - 1`` plus the best trial of
    the run so far (the elite BUMDA keeps; it is not evaluated again). The threshold never
    gets worse: ``theta = min(theta_prev, ceil(|P| / 2)-th smallest loss of P)`` with
    ``theta_prev = +inf`` at the first fit, and ``S = {x in P : loss(x) <= theta}``. So ``S``
    is the better half of ``P`` while the population improves and shrinks (raising the
    selection pressure) when it does not; it always holds the elite. When too few trials
    of generation ``g - 1`` have finished, the previous model and threshold are kept.

    **Trial assignment.** Trial ``n`` (counted from the start of the run) is sample
    ``n % population_size`` of generation ``n // population_size``, whatever the number of
    workers: every (generation, sample) slot is exactly one trial. Generation 0 is uniform in
    the unit box (every parameter one coordinate, categorical choices included, as in PSMS);
    generation ``g`` samples each coordinate from a Gaussian truncated to the box (draws
    outside are redrawn) whose parameters were fitted from generation ``g - 1``.

    **Concurrency.** Generation ``g``'s model is fitted from the trials of generation ``g - 1``
    finished at the time a trial of generation ``g`` is asked, provided at least half of
    generation ``g - 1`` (``ceil(population_size / 2)`` trials) has finished and at least two
    of those succeeded; otherwise generation ``g`` samples generation ``g - 1``'s model again.
    With ``k`` workers the last ``k - 1`` trials of a generation are typically still running
    when the next one starts, so its first trials use a model fitted from the others, and the
    model is refitted once they finish. The state is a function of the set of finished trials:
    a process that reads the study later refits the same models from the same trials. Each
    trial stores ``fit_gen`` (the generation its model was fitted from, ``-1``: uniform) and
    ``fit_n`` (how many of that generation's trials had finished).

    **Convergence and restarts.** The *spread* of a generation is the largest, over
    coordinates, unbiased standard deviation of its top 25% (at least two trials) in unit
    coordinates; a discrete coordinate whose top trials all decode to one value counts 0.
    A run has converged when the spread of its latest complete generation is below
    ``convergence_threshold`` (0.01, the paper's early-stopping rule; in the paper the
    hyper-parameters spanned 7 to 10 log2 units, so 0.01 in unit coordinates is about its
    variance threshold of 0.01) or when it has sampled its ``n_generations`` generations.
    ``on_converged="restart"`` then starts a fresh run (uniform generation 0) at the next
    trial; ``"stop"`` stops ``study.optimize`` (an ask-and-tell user keeps receiving
    samples from the converged model). The trial that detects convergence carries
    ``psms:converged_run``, ``psms:run_trials`` and ``psms:pfc`` (trials used divided by
    ``population_size * n_generations``: the PFC of Rojas-Domínguez et al.).

    **Budget.** ``budget`` is the number of trials the study is expected to run. ``None``
    keeps the paper's 20 generations of 50. With a budget, one run spans it:
    ``population_size = clip(budget // 10, 10, 50)`` (unless given) and
    ``n_generations = ceil(budget / population_size)``; nothing else changes. Passing both
    ``budget`` and ``n_generations`` is an error.

    **Failures.** Failed, pruned, NaN and infinite trials are the worst solutions: never
    selected, but they count towards a generation's size. Trials added with ``add_trial``
    (or by another sampler) join the generation their trial number falls in; enqueued
    trials keep their slot with the enqueued values.

    Storage, reproducibility, conditional and new parameters follow
    :class:`~optuna_psms.PopulationSampler`. Each trial carries the user attrs
    ``psms:generation`` and ``psms:sample`` (``record_user_attrs=False`` turns them off).

    Example:

        .. testcode::

            import optuna
            from optuna_psms import BUMDASampler


            def objective(trial):
                x = trial.suggest_float("x", -5, 5)
                y = trial.suggest_int("y", -5, 5)
                return x**2 + y**2


            study = optuna.create_study(sampler=BUMDASampler(population_size=20, seed=0))
            study.optimize(objective, n_trials=200)
            assert study.best_value < 0.5

    Args:
        population_size: Trials per generation (paper: 50; with a budget, see above).
        n_generations: Generations per run (paper: 20), the PFC denominator; ``None`` for
            runs that end only by convergence; ``"auto"``: 20, or the budget's.
        convergence_threshold: Spread of the top 25% under which a run has converged;
            ``0`` disables this test.
        on_converged: ``"restart"`` (default) or ``"stop"``.
        budget: The number of trials the study is expected to run, or ``None``.
        seed: Seed of every random draw (with the trial number).
        record_user_attrs: Write ``psms:generation`` and ``psms:sample`` user attrs.
    """

    algorithm = "bumda"

    def __init__(
        self,
        *,
        population_size: int | None = None,
        n_generations: int | None | Literal["auto"] = "auto",
        convergence_threshold: float = 0.01,
        on_converged: str = "restart",
        budget: int | None = None,
        seed: int | None = None,
        record_user_attrs: bool = True,
    ) -> None:
        population_size, n_generations = _layout(population_size, n_generations, budget)
        _check_common(population_size, n_generations, convergence_threshold)
        super().__init__(seed=seed, record_user_attrs=record_user_attrs, on_converged=on_converged)
        self._params: dict[str, Any] = dict(
            population_size=population_size,
            n_generations=n_generations,
            convergence_threshold=float(convergence_threshold),
        )

    def _make_strategy(self, dims: tuple[Dim, ...], run_start: int) -> BUMDAStrategy:
        return BUMDAStrategy(len(dims), run_start, dims=dims, **self._params)
