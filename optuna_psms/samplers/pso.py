"""``PSOSampler``: particle swarm model selection (PSMS) as an Optuna sampler."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Sequence
import math
from typing import Any

import numpy as np
from optuna.trial import FrozenTrial

from optuna_psms.samplers._adapter import PopulationSampler
from optuna_psms.samplers._identity import Identity
from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.pso import PSOSettings
from optuna_psms.samplers.core.pso import PSOStrategy
from optuna_psms.samplers.core.settings import integer
from optuna_psms.samplers.core.settings import optional_integer


#: With a budget of at most ``BUDGET_SMALL`` trials, the swarm size and topology used unless
#: given; larger budgets and ``budget=None`` keep the paper's 5 particles, fully connected.
#: Measured on the nine functions at 100-1,000 trials (``docs/pso.md``, "Budget";
#: ``docs/reproduce/pso_budget_sweep.py``).
BUDGET_SMALL = 500
BUDGET_SWARM_SIZE = 4
BUDGET_TOPOLOGY = "ring"


def _swarm_defaults(budget: object, swarm_size: Any, topology: Any) -> tuple[Any, Any]:
    """``(swarm_size, topology)``: the given ones, else the paper's or the budget rule's."""
    small = isinstance(budget, int) and not isinstance(budget, bool) and budget <= BUDGET_SMALL
    if swarm_size is None:
        swarm_size = BUDGET_SWARM_SIZE if small else 5
    if topology is None:
        topology = BUDGET_TOPOLOGY if small else "global"
    return swarm_size, topology


class PSOSampler(PopulationSampler):
    """Particle swarm optimisation as in PSMS (Escalante, Montes & Sucar, JMLR 2009).

    Every parameter the study suggests is one dimension of each particle's position in the
    unit box (categorical choices included, as in PSMS), so one swarm searches over a whole
    conditional space: the coordinates of a branch a particle does not take keep moving.
    The defaults are the paper's: 5 particles, ``c1 = c2 = 2``, adaptive inertia
    ``W = (1.2, 0.5, 0.4)`` laid out over 50 iterations (after which ``W`` stays at 0.4 and
    the swarm keeps flying for as many trials as the study runs).

    **Trial assignment.** Trial ``n`` drives particle ``n % swarm_size`` at iteration
    ``n // swarm_size``, whatever the number of workers: every (particle, iteration) pair is
    evaluated exactly once and no particle skips an iteration. (``n`` counts this sampler's
    trials: a finished trial it did not create, e.g. from ``add_trial``, and a heartbeat
    retry take no turn; see ``docs/core.md``.) At iteration 0 a particle
    starts at a uniform random position with a uniform random velocity in
    ``[-v_max, v_max]``. Afterwards it moves from its latest trial that has not failed: if
    that trial is still running (other workers), its position and velocity are used and the
    fitness joins later, which makes the swarm asynchronous under concurrency.

    **Bests.** The personal best is the particle's best finished trial. The global best used
    at iteration ``t`` is the best finished trial of iterations ``< t`` (the paper's
    synchronous update; trials the sampler did not create, e.g. from ``add_trial``, count as
    well). With ``topology="ring"`` the social term uses the best personal best among
    particles ``i - 1, i, i + 1``.

    **Velocity and walls.** Velocities are clamped to ``[-v_max, v_max]`` (fraction of the
    unit range; default 0.5). A coordinate that would leave the box is handled by
    ``boundary``: ``"damping"`` (default; Huang & Mohan 2005) mirrors it at the wall with
    the overshoot and that velocity component scaled by ``-r``, ``r ~ U[0, 1]``;
    ``"absorb"`` is this package's earlier rule (stop on the wall, velocity component
    zero), which puts many coordinates exactly on a wall and, one clamped step later,
    exactly on the centre of the box; ``"reflect"`` and ``"random"`` are the other rules of
    :func:`optuna_psms.samplers.core.pso.move`. See ``docs/pso.md`` for the measurements behind the
    default.

    **Budget.** ``budget`` is the number of trials the study is expected to run. ``None``
    keeps the paper's schedule (inertia over ``n_iterations = 50`` iterations of
    ``swarm_size = 5``). With a budget, the inertia schedule is laid out over the budget:
    ``n_iterations = ceil(budget / swarm_size)``, so ``W`` reaches ``w_end`` half-way through
    the study whatever its length; and, for a budget of at most 500 trials, unless given,
    ``swarm_size = 4`` and ``topology = "ring"`` (a short study; above 500 the paper's 5
    particles, fully connected: measured on the nine functions at 100 to 1,000 trials, see
    ``docs/pso.md``); nothing else changes. Passing both ``budget`` and ``n_iterations`` is
    an error.

    **Failures.** A failed, pruned, NaN or infinite trial counts as the worst value and the
    particle continues from its state before that trial (with fresh random draws).

    Storage, reproducibility, conditional and new parameters, concurrency and enqueued
    trials follow :class:`~optuna_psms.samplers._adapter.PopulationSampler`. Each trial carries
    the user
    attrs ``psms:particle`` and ``psms:iteration`` (``record_user_attrs=False`` turns them off;
    by default they are not written through the gRPC storage proxy).

    Example:

        .. testcode::

            import optuna
            from optuna_psms import PSOSampler


            def objective(trial):
                x = trial.suggest_float("x", -5, 5)
                y = trial.suggest_int("y", -5, 5)
                return x**2 + y**2


            study = optuna.create_study(sampler=PSOSampler(seed=0))
            study.optimize(objective, n_trials=100)
            assert study.best_value < 1.0

    Args:
        swarm_size: Number of particles ``m`` (paper: 5; with a budget <= 500: 4).
        c1: Weight of the personal best.
        c2: Weight of the global (or neighbourhood) best.
        inertia: ``(w_start, w_fraction, w_end)``: the inertia starts at ``w_start``, falls
            linearly during the first ``w_fraction * n_iterations`` iterations and then stays
            at ``w_end``.
        n_iterations: Iterations the inertia schedule is laid out over (the paper's ``I``;
            default 50, or ``ceil(budget / swarm_size)`` with a budget).
        v_max: Velocity clamp as a fraction of each coordinate's range, in ``(0, 1]``.
        topology: ``"global"`` (the paper's fully connected swarm) or ``"ring"`` (the
            default with a budget <= 500).
        boundary: ``"damping"``, ``"reflect"``, ``"random"`` or ``"absorb"``.
        budget: The number of trials the study is expected to run, or ``None``.
        seed: Seed of every random draw (with the trial number; ``None``: the seed recorded in the
            study, or a fresh one). Draws are keyed by seed and trial number, not by algorithm: at
            one seed the optuna-psms samplers draw common random numbers (docs/core.md), so its
            initial swarm is the first trials of UMDASampler, BUMDASampler and DynamicRandomSampler
            at that seed (paired comparisons). For independent streams, give each algorithm its own
            seeds.
        record_user_attrs: Write ``psms:particle`` and ``psms:iteration`` user attrs;
            ``None``: on, except through the gRPC storage proxy (a call per attribute there).
        constraints_func: Returns a trial's constraint values (``<= 0``: satisfied), as
            :class:`~optuna.samplers.TPESampler`'s; values set with
            ``trial.set_constraint`` (Optuna 5) count too. Trials rank by Deb's rules
            (feasible first, by value; infeasible by total violation).
    """

    identities = (
        Identity(
            tag="pso",
            title="Particle swarm model selection (PSMS; Escalante, Montes & Sucar, JMLR 2009)",
            description=(
                "Particle swarm optimisation (PSMS, Escalante et al. 2009): a swarm of particles "
                "flies through the unit box of all parameters, each pulled towards its own best "
                "and the swarm's best position. Trial `n` is particle `n % swarm_size` at "
                "iteration `n // swarm_size`: user attrs `psms:particle` and `psms:iteration`."
            ),
            generation="iteration",
            member="particle",
            persistent_members=True,
        ),
    )
    _settings: PSOSettings

    def __init__(
        self,
        *,
        swarm_size: int | None = None,
        c1: float = 2.0,
        c2: float = 2.0,
        inertia: tuple[float, float, float] = (1.2, 0.5, 0.4),
        n_iterations: int | None = None,
        v_max: float = 0.5,
        topology: str | None = None,
        boundary: str = "damping",
        budget: int | None = None,
        seed: int | None = None,
        record_user_attrs: bool | None = None,
        constraints_func: Callable[[FrozenTrial], Sequence[float]] | None = None,
    ) -> None:
        budget = optional_integer("budget", budget, 1)
        swarm_size, topology = _swarm_defaults(budget, swarm_size, topology)
        if budget is not None and n_iterations is not None:
            raise ValueError("give either budget or n_iterations, not both.")
        if n_iterations is None:
            size = integer("swarm_size", swarm_size, 1)
            n_iterations = PSOSettings.n_iterations if budget is None else math.ceil(budget / size)
        self._settings = PSOSettings(
            swarm_size=swarm_size,
            c1=c1,
            c2=c2,
            inertia=inertia,
            n_iterations=n_iterations,
            v_max=v_max,
            topology=topology,
            boundary=boundary,
        )
        super().__init__(
            seed=seed, record_user_attrs=record_user_attrs, constraints_func=constraints_func
        )
        self._budget = budget

    def _pad_vector(self, key: str, u: np.ndarray) -> np.ndarray:
        # A velocity component of a parameter that appeared later starts like a fresh
        # particle's: uniform in [-v_max, v_max].
        return (2.0 * u - 1.0) * self._settings.v_max

    def _make_strategy(self, dims: tuple[Dim, ...], run_start: int) -> PSOStrategy:
        return PSOStrategy(len(dims), run_start, settings=self._settings, dims=dims)
