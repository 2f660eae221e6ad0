"""``UMDASampler`` and ``BUMDASampler``: Gaussian EDAs as Optuna samplers."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Sequence
import math
from typing import Any
from typing import Literal

from optuna.trial import FrozenTrial

from optuna_psms.samplers._adapter import PopulationSampler
from optuna_psms.samplers._identity import Identity
from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.eda import BUMDASettings
from optuna_psms.samplers.core.eda import BUMDAStrategy
from optuna_psms.samplers.core.eda import EDASettings
from optuna_psms.samplers.core.eda import UMDASettings
from optuna_psms.samplers.core.eda import UMDAStrategy
from optuna_psms.samplers.core.settings import integer
from optuna_psms.samplers.core.settings import optional_integer


#: With a budget and no ``population_size``, the population is
#: ``budget // BUDGET_GENERATIONS`` clipped to ``[BUDGET_MIN_POPULATION, 50]``
#: (measurements: ``docs/benchmarks.md``, "Budget-aware settings").
BUDGET_GENERATIONS = 10
BUDGET_MIN_POPULATION = 10


def _layout(population_size: Any, n_generations: Any, budget: Any) -> tuple[Any, Any]:
    """``(population_size, n_generations)`` from the arguments: the paper's or the budget's.

    The settings dataclass validates both; only ``budget`` is checked here.
    """
    budget = optional_integer("budget", budget, 2)
    if budget is not None and n_generations != "auto":
        raise ValueError("give either budget or n_generations, not both.")
    if population_size is None:
        population_size = (
            EDASettings.population_size
            if budget is None
            else min(50, max(BUDGET_MIN_POPULATION, budget // BUDGET_GENERATIONS))
        )
    if n_generations == "auto":
        if budget is None:
            n_generations = EDASettings.n_generations
        else:
            size = integer("population_size", population_size, 2)
            n_generations = max(1, math.ceil(budget / size))
    return population_size, n_generations


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
    ``convergence_on="values"`` measures the spread on the top 25%'s objective values
    instead (the paper's wording allows both readings; see :mod:`optuna_psms.samplers.core.eda`).

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
    ``psms:generation`` and ``psms:sample`` (``record_user_attrs=False`` turns them off;
    by default they are not written through the gRPC storage proxy).

    Example:

        .. testcode::

            import optuna
            from optuna_psms import UMDASampler


            def objective(trial):
                kernel = trial.suggest_categorical("kernel", ["linear", "rbf"])
                c = trial.suggest_float("c", 1e-3, 1e3, log=True)
                return abs(c - 10.0) / 10.0 + (kernel != "rbf")


            # A budget of 200 trials: 10 generations of 20 (see "Budget").
            study = optuna.create_study(sampler=UMDASampler(budget=200, seed=0))
            study.optimize(objective, n_trials=200)
            assert study.best_params["kernel"] == "rbf" and study.best_value < 0.1

    Args:
        population_size: Trials per generation (paper: 50; with a budget, see above).
        n_generations: Generations per run (paper: 20), the PFC denominator; ``None`` for
            runs that end only by convergence; ``"auto"``: 20, or the budget's.
        convergence_threshold: Spread of the top 25% under which a run has converged;
            ``0`` disables this test.
        convergence_on: ``"params"`` (default): the spread of the top 25%'s unit
            coordinates; ``"values"``: the standard deviation of their objective values, in
            the objective's units (the other reading of the paper's rule; it stops on a
            plateau of equal values, e.g. SVM tuning, where ``"params"`` does not).
        top_fraction: Fraction of a generation the marginals are fitted to
            (paper: 0.25), in ``(0, 1]``.
        min_std: Floor of every coordinate's standard deviation in unit coordinates, in
            ``[0, 0.5]`` (paper: none, ``0.0``). Measured, not in the budget rule:
            ``docs/benchmarks.md``, "Budget-aware settings".
        elitism: ``True``: select the top 25% from the previous generation *plus* the
            trials the previous model was fitted to ((mu + lambda) selection, reset at a
            restart); ``False`` (paper): from the previous generation only. Measured, not
            in the budget rule (same section).
        on_converged: ``"restart"`` (default) or ``"stop"``.
        budget: The number of trials the study is expected to run, or ``None``.
        seed: Seed of every random draw (with the trial number; ``None``: the seed recorded in the
            study, or a fresh one). Draws are keyed by seed and trial number, not by algorithm: at
            one seed the optuna-psms samplers draw common random numbers (docs/core.md), so its
            first generation is BUMDASampler's at that seed, and begins with DynamicRandomSampler's
            first batch and PSOSampler's initial swarm (paired comparisons). For independent
            streams, give each algorithm its own seeds.
        record_user_attrs: Write ``psms:generation`` and ``psms:sample`` user attrs;
            ``None``: on, except through the gRPC storage proxy (a call per attribute there).
        constraints_func: Returns a trial's constraint values (``<= 0``: satisfied), as
            :class:`~optuna.samplers.TPESampler`'s; values set with
            ``trial.set_constraint`` (Optuna 5) count too. Trials rank by Deb's rules
            (feasible first, by value; infeasible by total violation).
    """

    identities = (
        Identity(
            tag="umda",
            title="Gaussian UMDA (Rojas-Domínguez et al., IEEE Access 2018)",
            description=(
                "UMDA, a Gaussian estimation-of-distribution algorithm: each generation samples "
                "a population from independent Gaussians fitted to the best members of the "
                "previous one. User attrs `psms:generation` and `psms:sample`."
            ),
            generation="generation",
            member="sample",
        ),
    )
    #: A trial this sampler did not create (``add_trial``, another sampler's) joins the
    #: generation of its slot as one of its samples (see ``samplers/_runs.py``).
    foreign_trials_take_slots = True
    _settings: UMDASettings

    def __init__(
        self,
        *,
        population_size: int | None = None,
        n_generations: int | None | Literal["auto"] = "auto",
        convergence_threshold: float = 0.01,
        convergence_on: str = "params",
        top_fraction: float = 0.25,
        min_std: float = 0.0,
        elitism: bool = False,
        on_converged: str = "restart",
        budget: int | None = None,
        seed: int | None = None,
        record_user_attrs: bool | None = None,
        constraints_func: Callable[[FrozenTrial], Sequence[float]] | None = None,
    ) -> None:
        size, generations = _layout(population_size, n_generations, budget)
        self._settings = UMDASettings(
            population_size=size,
            n_generations=generations,
            convergence_threshold=convergence_threshold,
            convergence_on=convergence_on,
            top_fraction=top_fraction,
            min_std=min_std,
            elitism=elitism,
        )
        super().__init__(
            seed=seed,
            record_user_attrs=record_user_attrs,
            on_converged=on_converged,
            constraints_func=constraints_func,
        )

    def _make_strategy(self, dims: tuple[Dim, ...], run_start: int) -> UMDAStrategy:
        return UMDAStrategy(len(dims), run_start, settings=self._settings, dims=dims)


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

    **Trial assignment, concurrency, convergence and restarts, budget and failures** are
    those of :class:`UMDASampler`, BUMDA's model taking the place of UMDA's: trial ``n`` of a
    run is sample ``n % population_size`` of generation ``n // population_size``; generation
    ``g`` samples truncated Gaussians fitted from the finished trials of generation
    ``g - 1`` (once half of them finished and two succeeded); a run ends when the spread of
    its top 25% falls under ``convergence_threshold`` or after ``n_generations``; a budget
    sets ``population_size = clip(budget // 10, 10, 50)`` and the generations that fill it;
    failed, pruned and non-finite trials are the worst solutions.

    Storage, reproducibility, conditional and new parameters follow
    :class:`~optuna_psms.PopulationSampler`. Each trial carries the user attrs
    ``psms:generation`` and ``psms:sample`` (``record_user_attrs=False`` turns them off;
    by default they are not written through the gRPC storage proxy).

    Example:

        .. testcode::

            import optuna
            from optuna_psms import BUMDASampler

            # Ask-and-tell, maximising; after convergence the converged model keeps sampling.
            sampler = BUMDASampler(population_size=20, on_converged="stop", seed=0)
            study = optuna.create_study(direction="maximize", sampler=sampler)
            for _ in range(300):
                trial = study.ask()
                x, y = trial.suggest_float("x", 0, 2), trial.suggest_float("y", 0, 2)
                study.tell(trial, -((x - 1) ** 2) - (y - 1) ** 2)
            assert study.best_value > -1e-3

    Args:
        population_size: Trials per generation (paper: 50; with a budget, see above).
        n_generations: Generations per run (paper: 20), the PFC denominator; ``None`` for
            runs that end only by convergence; ``"auto"``: 20, or the budget's.
        convergence_threshold: Spread of the top 25% under which a run has converged;
            ``0`` disables this test.
        convergence_on: ``"params"`` (default): the spread of the top 25%'s unit
            coordinates; ``"values"``: the standard deviation of their objective values, in
            the objective's units (the other reading of the paper's rule; it stops on a
            plateau of equal values, e.g. SVM tuning, where ``"params"`` does not).
        min_std: Floor of every coordinate's standard deviation in unit coordinates, in
            ``[0, 0.5]`` (paper: none, ``0.0``); measured in ``docs/benchmarks.md``.
        on_converged: ``"restart"`` (default) or ``"stop"``.
        budget: The number of trials the study is expected to run, or ``None``.
        seed: Seed of every random draw (with the trial number; ``None``: the seed recorded in the
            study, or a fresh one). Draws are keyed by seed and trial number, not by algorithm: at
            one seed the optuna-psms samplers draw common random numbers (docs/core.md), so its
            first generation is UMDASampler's at that seed, and begins with DynamicRandomSampler's
            first batch and PSOSampler's initial swarm (paired comparisons). For independent
            streams, give each algorithm its own seeds.
        record_user_attrs: Write ``psms:generation`` and ``psms:sample`` user attrs;
            ``None``: on, except through the gRPC storage proxy (a call per attribute there).
        constraints_func: Returns a trial's constraint values (``<= 0``: satisfied), as
            :class:`~optuna.samplers.TPESampler`'s; values set with
            ``trial.set_constraint`` (Optuna 5) count too. Trials rank by Deb's rules
            (feasible first, by value; infeasible by total violation).
    """

    identities = (
        Identity(
            tag="bumda",
            title="Boltzmann UMDA (BUMDA; Rojas-Domínguez et al., IEEE Access 2018)",
            description=(
                "BUMDA, a Boltzmann-weighted Gaussian EDA: each generation samples from "
                "Gaussians whose mean and variance weight the selected members by their fitness. "
                "User attrs `psms:generation` and `psms:sample`."
            ),
            generation="generation",
            member="sample",
        ),
    )
    #: A trial this sampler did not create (``add_trial``, another sampler's) joins the
    #: generation of its slot as one of its samples (see ``samplers/_runs.py``).
    foreign_trials_take_slots = True
    _settings: BUMDASettings

    def __init__(
        self,
        *,
        population_size: int | None = None,
        n_generations: int | None | Literal["auto"] = "auto",
        convergence_threshold: float = 0.01,
        convergence_on: str = "params",
        min_std: float = 0.0,
        on_converged: str = "restart",
        budget: int | None = None,
        seed: int | None = None,
        record_user_attrs: bool | None = None,
        constraints_func: Callable[[FrozenTrial], Sequence[float]] | None = None,
    ) -> None:
        size, generations = _layout(population_size, n_generations, budget)
        self._settings = BUMDASettings(
            population_size=size,
            n_generations=generations,
            convergence_threshold=convergence_threshold,
            convergence_on=convergence_on,
            min_std=min_std,
        )
        super().__init__(
            seed=seed,
            record_user_attrs=record_user_attrs,
            on_converged=on_converged,
            constraints_func=constraints_func,
        )

    def _make_strategy(self, dims: tuple[Dim, ...], run_start: int) -> BUMDAStrategy:
        return BUMDAStrategy(len(dims), run_start, settings=self._settings, dims=dims)
