"""``FocusedGridSampler``: deterministic (DFGS) and annealed (AFGS) focused grid search."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Sequence
import dataclasses
import warnings

from optuna.trial import FrozenTrial

from optuna_psms.samplers._adapter import PopulationSampler
from optuna_psms.samplers._identity import Identity
from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.base import Strategy
from optuna_psms.samplers.core.grid import AFGSStrategy
from optuna_psms.samplers.core.grid import DFGSStrategy
from optuna_psms.samplers.core.grid import GridSettings
from optuna_psms.samplers.core.grid import level_size
from optuna_psms.samplers.core.settings import optional_integer


#: DFGS warns once when one level needs more evaluations than this (``M >= 5``).
DFGS_WARN_POINTS = 250


class FocusedGridSampler(PopulationSampler):
    """Focused grid search (Barbero, López & Dorronsoro, Neurocomputing 2009).

    Every parameter the study suggests is one coordinate of the unit box (categorical
    choices included). The search repeatedly zooms into half-size grids centred on the best
    point found so far, down to a resolution of ``2^-depth`` of each range.

    ``mode="deterministic"`` (**DFGS**, the refined version of Section 3.1): level 1 is the
    outer grid of ``3^M`` points (box centre ``+/- 1/2`` of each range) plus the inner grid
    of ``2^M`` points (``+/- 1/4``). When every point of a level has been evaluated, its best
    point ``tau`` gives the next centre by Eq. 6 (a coordinate of ``tau`` on the outer border
    moves inward by a quarter of the current grid width, so the next grid stays inside the
    current one) and both grids halve. Points already evaluated in the run are never evaluated
    again. Levels ``1 .. depth - 1``: the last inner grid has spacing ``2^-depth``. A run costs
    about ``depth * 3^M`` evaluations at best and ``(depth - 1)(3^M + 2^M)`` at worst: DFGS is
    meant for a few parameters. When one level needs more than 250 evaluations (``M >= 5``)
    the sampler warns once; it then still enumerates its grids level by level, so a study with
    fewer trials than ``3^M + 2^M`` only sees part of the first grid (with a ``budget`` below
    one level it runs AFGS instead; see ``budget``). With more than 10
    parameters a level is never completed (it is not materialised). Use
    ``mode="annealed"`` for many parameters.

    ``mode="annealed"`` (**AFGS**, Section 3.2): outer ``3^M`` grids only, levels
    ``0 .. depth - 1`` with half-width ``2^-(k+1)``; on each level a simulated-annealing walk
    from the centre evaluates at most ``points_per_level`` (``Lambda``) new points. A neighbour
    changes one uniformly chosen coordinate (centre value to ``+/-`` half-width by a coin toss,
    ``+/-`` back to the centre value) and is accepted with probability
    ``min(1, exp((F_C - F_N) / T))``, with ``T = T0 (1 - t / (Lambda - 1))`` for the ``t``-th
    new neighbour (``T0 = initial_temperature = 0.8``, the paper's; note that it is in units of
    the objective, which the paper's error rates keep in ``(0, 1)``). Already evaluated
    neighbours cost nothing; after ``stuck`` (``S``) of them in a row the temperature falls
    one step anyway, and the walk ends when it reaches 0. The best point of the run then
    centres the next, halved grid (moved inward just enough to stay in the box).

    **Discrete parameters.** Integer, stepped and categorical parameters snap to the centre of
    their own grid cell; grid points that snap to the same value are one point, evaluated once.

    **Trial assignment and concurrency.** DFGS: a trial gets the first point of the current
    level, scanning cyclically from index ``trial number mod (3^M + 2^M)``, that is neither
    evaluated nor running, so concurrent workers take different points. When every point of
    the level is evaluated or running, a worker gets a point of the next level computed around
    the best point finished so far (``psms:speculative``; it is a genuine grid point if that
    best point is confirmed) or, if there is none, a uniform random point (``psms:explore``).
    AFGS: the walk is sequential; each trial stores its walk step, so a worker continues from
    the latest step, and a step whose result is still running counts as not accepted (the walk
    goes on from the point before it). After the walk of a level ends, the next trial starts the
    next level around the best point finished so far.

    **Runs.** The first run starts from the box centre, as in the paper. A grid search is
    deterministic, so a restarted run (``on_converged="restart"``, the default, once the last
    level is reached) draws its centre uniformly in the middle half of each range with its
    first trial and zooms from a quarter-width grid around it. ``on_converged="stop"`` stops
    :meth:`~optuna.study.Study.optimize` instead (ask-and-tell studies go on with random
    exploration points). The trial that detects convergence records ``psms:pfc``: the trials
    of the run over its nominal budget (``levels x (3^M + 2^M)`` for DFGS, ``levels x Lambda``
    for AFGS).

    **Failures.** A failed, pruned, NaN or infinite trial counts as the worst value.

    Storage, reproducibility, conditional and new parameters and enqueued trials follow
    :class:`~optuna_psms.PopulationSampler`; a point enqueued or added by hand is a cached
    evaluation (and, in AFGS, can centre the next level when it is the best). Each trial
    carries the user attrs ``psms:level`` and ``psms:point`` (DFGS grid index) or
    ``psms:step`` (AFGS walk step).

    Example:

        .. testcode::

            import optuna
            from optuna_psms import FocusedGridSampler


            def objective(trial):
                x = trial.suggest_float("x", -5, 5)
                y = trial.suggest_float("y", -5, 5)
                return (x - 1.25) ** 2 + (y + 2.5) ** 2


            sampler = FocusedGridSampler(mode="deterministic", depth=8, seed=0)
            study = optuna.create_study(sampler=sampler)
            study.optimize(objective, n_trials=100)
            assert study.best_value < 1e-3

    Args:
        mode: ``"deterministic"`` (DFGS) or ``"annealed"`` (AFGS).
        depth: ``K``: the finest grid spacing is ``2^-K`` of each range (``>= 2``).
        points_per_level: AFGS ``Lambda`` (``>= 2``); ``None`` means ``max(5, 5 M)`` capped at
            ``3^M``. Ignored by DFGS.
        initial_temperature: AFGS ``T0`` (``> 0``).
        stuck: AFGS ``S`` (``>= 1``); ``None`` means ``max(3, 2 M)``, the size of a grid
            point's neighbourhood.
        seed: Seed of every random draw (with the trial number; ``None``: the seed recorded in the
            study, or a fresh one). Draws are keyed by seed and trial number, not by algorithm: at
            one seed the optuna-psms samplers draw common random numbers (docs/core.md), so its
            first point is trial 0 of the other samplers at that seed (paired comparisons). For
            independent streams, give each algorithm its own seeds.
        record_user_attrs: Write ``psms:*`` user attrs;
            ``None``: on, except through the gRPC storage proxy (a call per attribute there).
        constraints_func: Returns a trial's constraint values (``<= 0``: satisfied), as
            :class:`~optuna.samplers.TPESampler`'s; values set with
            ``trial.set_constraint`` (Optuna 5) count too. Trials rank by Deb's rules
            (feasible first, by value; infeasible by total violation).
        on_converged: ``"restart"`` or ``"stop"``.
        budget: The number of trials the study is expected to run, or ``None`` (the
            paper's settings). With a budget, a run's levels are laid over it once the
            number of parameters ``M`` is known (:func:`budget_layout`): DFGS gets
            ``depth = clip(1 + budget // (3^M + 2^M), 2, 40)`` (as many full levels as fit),
            AFGS ``Lambda = clip(budget // depth, 2, 3^M)``. When the budget does not pay
            for one DFGS level (``budget < 3^M + 2^M``: DFGS would only see part of its
            first grid, the box's corners, wall midpoints and centre), ``mode="deterministic"``
            runs AFGS with its budget rule instead and warns once (:func:`budget_mode`); its
            records keep the ``"dfgs"`` tag. An explicit ``depth`` (DFGS) or
            ``points_per_level`` (AFGS) with a budget is an error.
    """

    identities = (
        Identity(
            tag="dfgs",
            title="Deterministic focused grid search (DFGS; Barbero et al., Neurocomputing 2009)",
            description=(
                "Deterministic focused grid search: each level evaluates a grid around the best "
                "point so far, then the next level zooms in with a finer grid. User attrs "
                "`psms:level` and `psms:point`; `psms:speculative` marks a point of the next "
                "level asked early, `psms:explore` a random exploration point."
            ),
            generation="level",
            member="grid point",
        ),
        Identity(
            tag="afgs",
            title="Annealed focused grid search (AFGS; Barbero et al., Neurocomputing 2009)",
            description=(
                "Annealed focused grid search: a random walk over the grid of each level, "
                "accepting worse points with a temperature that decreases, then the next level "
                "zooms in. User attrs `psms:level` and `psms:step` (position in the level's "
                "walk)."
            ),
            generation="level",
            member="walk step",
        ),
    )
    _settings: GridSettings

    def __init__(
        self,
        *,
        mode: str = "deterministic",
        depth: int | None = None,
        points_per_level: int | None = None,
        initial_temperature: float = 0.8,
        stuck: int | None = None,
        seed: int | None = None,
        record_user_attrs: bool | None = None,
        constraints_func: Callable[[FrozenTrial], Sequence[float]] | None = None,
        on_converged: str = "restart",
        budget: int | None = None,
    ) -> None:
        budget = optional_integer("budget", budget, 1)
        if budget is not None and depth is not None and mode == "deterministic":
            raise ValueError("give either budget or depth to DFGS, not both.")
        if budget is not None and points_per_level is not None and mode == "annealed":
            raise ValueError("give either budget or points_per_level to AFGS, not both.")
        self._budget = budget
        self._settings = GridSettings(
            mode,
            GridSettings.depth if depth is None else depth,
            points_per_level,
            initial_temperature,
            stuck,
        )
        super().__init__(
            seed=seed,
            record_user_attrs=record_user_attrs,
            on_converged=on_converged,
            constraints_func=constraints_func,
        )
        self._warned = False

    @property
    def identity(self) -> Identity:
        # Records of the two modes are not interchangeable: each has its own tag.
        return self.identities[self._settings.mode != "deterministic"]

    def _make_strategy(self, dims: tuple[Dim, ...], run_start: int) -> Strategy:
        settings = self._settings
        if self._budget is not None:
            mode = budget_mode(settings.mode, len(dims), self._budget)
            # No warning before the search space is known (its first, empty strategy).
            if mode != settings.mode and not self._warned and dims:
                self._warned = True
                m = len(dims)
                needs = level_size(m) if m <= 30 else f"3^{m} + 2^{m}"
                warnings.warn(
                    f"FocusedGridSampler(mode='deterministic', budget={self._budget}) over "
                    f"{m} parameter{'s' if m > 1 else ''}: one DFGS level needs {needs} "
                    "evaluations (3^M + 2^M), more than the budget; the sampler runs AFGS "
                    "(mode='annealed') laid over the budget instead.",
                    UserWarning,
                    stacklevel=2,
                )
            given = settings.points_per_level if mode == settings.mode else None
            depth, points = budget_layout(mode, len(dims), self._budget, settings.depth, given)
            settings = dataclasses.replace(
                settings, mode=mode, depth=depth, points_per_level=points
            )
        if settings.mode == "deterministic":
            strategy = DFGSStrategy(len(dims), run_start, settings=settings, dims=dims)
            if strategy.level_size > DFGS_WARN_POINTS and not self._warned:
                self._warned = True
                warnings.warn(
                    f"FocusedGridSampler(mode='deterministic') over {len(dims)} parameters "
                    f"needs {strategy.level_size} evaluations per level (3^M + 2^M); a study "
                    "with fewer trials only sees part of the first grid. Use "
                    "mode='annealed' for many parameters.",
                    UserWarning,
                    stacklevel=2,
                )
            return strategy
        return AFGSStrategy(len(dims), run_start, settings=settings, dims=dims)


def budget_mode(mode: str, n_params: int, budget: int) -> str:
    """The mode a run with a budget uses: AFGS when DFGS cannot complete one level.

    A DFGS level needs ``3^M + 2^M`` evaluations; with fewer trials than that in the budget
    DFGS would only see part of its first grid (the box's corners, wall midpoints and
    centre) and never zoom, so ``mode="deterministic"`` runs AFGS, the paper's method for
    many parameters, with the AFGS budget rule. Otherwise ``mode`` is kept.
    """
    if mode == "deterministic" and (n_params > 30 or level_size(max(n_params, 1)) > budget):
        return "annealed"
    return mode


def budget_layout(
    mode: str, n_params: int, budget: int, depth: int, points_per_level: int | None
) -> tuple[int, int | None]:
    """``(depth, points_per_level)`` of a focused grid run laid over ``budget`` trials.

    DFGS: as many complete levels as the budget pays for at the worst case
    ``3^M + 2^M`` per level, ``depth = clip(1 + budget // (3^M + 2^M), 2, 40)``. AFGS: the
    ``depth`` levels share the budget, ``Lambda = clip(budget // depth, 2, 3^M)``.
    """
    m = max(n_params, 1)
    if mode == "deterministic":
        per_level = level_size(m) if m <= 30 else budget + 1
        return min(40, max(2, 1 + budget // per_level)), points_per_level
    cap = 3**m if m <= 30 else budget
    return depth, min(cap, max(2, budget // depth))
