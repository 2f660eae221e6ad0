"""``PatternSearchSampler``: pattern search model selection (PATSMS) as an Optuna sampler."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Sequence

from optuna.trial import FrozenTrial

from optuna_psms.samplers._adapter import PopulationSampler
from optuna_psms.samplers._identity import Identity
from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.pattern import PatternSettings
from optuna_psms.samplers.core.pattern import PatternStrategy
from optuna_psms.samplers.core.settings import optional_integer


class PatternSearchSampler(PopulationSampler):
    """Pattern search as in PATSMS (Escalante, Montes & Sucar, JMLR 2009, Algorithm 2).

    Every parameter the study suggests is one coordinate of a point in the unit box
    (categorical choices included, as in PSMS). Around the current centre ``q_g`` (the best
    point found so far) a *sweep* evaluates the ``2 d`` points of the nearest-neighbour
    pattern ``P = [I_d, -I_d]``: ``q_g + delta * e_k`` for every coordinate ``k``, then
    ``q_g - delta * e_k``. The centre moves as soon as a point improves on it. The step
    ``delta`` starts at half the range and is halved after a sweep that brought no
    improvement (``step_rule="on_failure"``, the paper's prose and the classic pattern search;
    ``step_rule="always"`` halves after every sweep, as the printed Algorithm 2 does). The
    initial centre is uniform at random, or the enqueued point if the run's first trial was
    enqueued.

    **Trial assignment and concurrency.** Trial ``n`` of a run that started at trial ``r``
    has index ``i = n - r``: index 0 is the initial centre, index ``i >= 1`` is pattern column
    ``(i - 1) % (2 d)`` of sweep ``(i - 1) // (2 d) + 1``, whatever the number of workers, so
    no pattern point is skipped or asked twice. A point is placed around the best *finished*
    point known when it is asked (in a sequential study, exactly Algorithm 2). The ``2 d``
    points of a sweep may run concurrently. A worker that asks for a point of the next sweep
    while points of the previous one are still running (for instance all ``2 d`` of them)
    gets that point of the next sweep around the best finished point so far. The step is
    halved after a sweep without improvement as soon as half of its points (``d`` of ``2 d``)
    have finished, without waiting for the others (partial stencils; a late improvement
    turns the sweep into a success again); with fewer finished and no improvement the step is
    kept. Failed sweeps that were all asked at one step (many workers) halve it once: the next
    step is half the step the failed sweep was evaluated at, or the current one if smaller.
    A sequential study never sees a running point and is Algorithm 2, trial for trial.
    If no point of the run has been recorded yet,
    the worker gets a uniform random exploration point (user attr ``psms:explore``).

    **Walls, discrete parameters, repeats.** A point leaving the box is put on the wall.
    Integer, stepped and categorical parameters move by a whole number of cells
    (``max(1, round(delta * K))`` of ``K``) and snap to their own grid. A pattern point that
    this run has already evaluated (the old centre after a move, a wall point, a discrete
    point that snapped back) is not evaluated again: the trial gets a uniform random
    exploration point instead (``psms:explore``).

    **Convergence.** A run has converged when the step is below the resolution of every
    coordinate (``resolution`` for a continuous parameter, half a cell for a discrete one).
    ``on_converged="restart"`` then starts a new run from a new random centre;
    ``"stop"`` stops :meth:`~optuna.study.Study.optimize` (under ask-and-tell the study goes on
    with exploration points). The trial that detects convergence records the share of the
    run's nominal budget it used (``psms:pfc``; the nominal budget is ``1 + 2 d L``, the
    evaluations of a run in which every sweep fails, ``L`` the number of distinct steps).

    **Failures.** A failed, pruned, NaN or infinite trial counts as the worst value: it never
    becomes the centre and never counts as an improvement.

    Storage, reproducibility, conditional and new parameters and enqueued trials follow
    :class:`~optuna_psms.PopulationSampler`. Each trial carries the user attrs ``psms:sweep``,
    ``psms:point`` and ``psms:step`` (``record_user_attrs=False`` turns them off;
    by default they are not written through the gRPC storage proxy).

    Example:

        .. testcode::

            import optuna
            from optuna_psms import PatternSearchSampler


            def objective(trial):
                x = trial.suggest_float("x", -5, 5)
                y = trial.suggest_int("y", -5, 5)
                return (x - 1) ** 2 + y**2


            study = optuna.create_study(sampler=PatternSearchSampler(seed=0))
            study.optimize(objective, n_trials=100)
            assert study.best_value < 0.1

    Args:
        initial_step: The first step as a fraction of each parameter's range, in ``(0, 1]``
            (the paper: ``0.5``, half the range).
        resolution: The smallest step of a continuous parameter, as a fraction of its
            range, in ``(0, initial_step]``; the run converges below it.
        step_rule: ``"on_failure"`` (halve after a sweep without improvement) or
            ``"always"`` (halve after every sweep).
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
        on_converged: ``"restart"`` (a new run from a new random centre) or ``"stop"``.
        budget: The number of trials the study is expected to run, or ``None``. Accepted
            for a uniform API and validated; it changes nothing: pattern search has no
            schedule tied to a trial count (its step halves on failure, and a converged run
            restarts, so any budget is used).
    """

    identities = (
        Identity(
            tag="pattern",
            title="Pattern search model selection (PATSMS; Escalante, Montes & Sucar, JMLR 2009)",
            description=(
                "Pattern search (PATSMS): around the best point so far, a sweep evaluates the "
                "points one step away along each coordinate (both signs); the step is halved "
                "after a sweep without improvement. User attrs `psms:sweep`, `psms:point` "
                "(pattern column), `psms:step`; `psms:explore` marks a random exploration point."
            ),
            generation="sweep",
            member="pattern point",
        ),
    )
    _settings: PatternSettings

    def __init__(
        self,
        *,
        initial_step: float = 0.5,
        resolution: float = 1e-4,
        step_rule: str = "on_failure",
        seed: int | None = None,
        record_user_attrs: bool | None = None,
        constraints_func: Callable[[FrozenTrial], Sequence[float]] | None = None,
        on_converged: str = "restart",
        budget: int | None = None,
    ) -> None:
        optional_integer("budget", budget, 1)  # accepted, not used (see above)
        self._settings = PatternSettings(initial_step, resolution, step_rule)
        super().__init__(
            seed=seed,
            record_user_attrs=record_user_attrs,
            on_converged=on_converged,
            constraints_func=constraints_func,
        )

    def _make_strategy(self, dims: tuple[Dim, ...], run_start: int) -> PatternStrategy:
        return PatternStrategy(len(dims), run_start, settings=self._settings, dims=dims)
