"""``DynamicRandomSampler``: random search with dynamic updating (RSDU) as an Optuna sampler."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Sequence
import math
from typing import Literal

from optuna.trial import FrozenTrial

from optuna_psms.samplers._adapter import PopulationSampler
from optuna_psms.samplers._identity import Identity
from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.dynamic_random import DynamicRandomSettings
from optuna_psms.samplers.core.dynamic_random import DynamicRandomStrategy
from optuna_psms.samplers.core.settings import integer
from optuna_psms.samplers.core.settings import optional_integer


#: With a budget, a run is this many batches of ``ceil(budget / BUDGET_BATCHES)`` trials.
BUDGET_BATCHES = 5


class DynamicRandomSampler(PopulationSampler):
    """Random search with dynamic updating (Milletich & Asmar).

    Trials come in batches (default 40). Batch 0 samples every parameter uniformly (each
    parameter one coordinate of the unit box; a two-choice categorical "includes" with
    probability 0.5). After each batch its top 50% (the *elite*) updates the distribution
    the next batch samples from:

    * a **numeric** parameter (float or int, log scale included) is drawn uniformly between
      bounds that become the elite's smallest and largest values (in the unit box, i.e. on
      the parameter's own, possibly log, scale; every grid value between them stays
      reachable for a discrete parameter);
    * a **categorical** parameter draws each choice with probability equal to its frequency
      in the elite, so a choice absent from the elite is not drawn again in this run;
    * a **two-choice** categorical is treated as a feature-inclusion flag whose *last* choice
      means "include" (declare flags as ``[False, True]``): when its include probability
      falls under ``muting_threshold`` (0.25) it is *muted*: it takes its first choice for
      the rest of the run, whatever later batches contain. ``muting_threshold=0`` disables
      muting.

    The elite of a batch is its best ``ceil(top_fraction * n)`` finished trials (ties go to
    the lower trial number; failed, pruned, NaN and infinite trials are never selected).

    **Trial assignment and concurrency.** Trial ``n`` (counted from the start of the run) is
    sample ``n % batch_size`` of batch ``n // batch_size``, whatever the number of workers.
    Batch ``b``'s distribution is updated from the trials of batch ``b - 1`` finished at the
    time a trial of batch ``b`` is asked, provided at least half of batch ``b - 1`` has
    finished with two successes or more; otherwise batch ``b`` samples batch ``b - 1``'s
    distribution again. The state is a function of the set of finished trials (a later
    reader recomputes the same distributions). Each trial stores ``fit_batch`` (the batch
    its distribution was last updated from), ``fit_n`` (how many of that batch's trials had
    finished), ``n_elite`` and ``muted`` (the number of muted flags).

    **Runs.** The paper evaluates 5 batches of 40 (200 trials). A run ends ("converges")
    when its ``n_batches`` batches have been sampled, or earlier when the distribution has
    collapsed (every numeric range narrower than ``convergence_threshold`` in unit
    coordinates, every categorical on one choice). ``on_converged="restart"`` (default)
    then starts a fresh run at the next trial: full bounds, uniform choices, no muted flags,
    so a long study is a sequence of independent RSDU runs. ``"stop"`` stops
    ``study.optimize`` after the run (an ask-and-tell user keeps receiving trials, which
    continue the dynamic updating batch after batch). With ``n_batches=None`` a run goes on
    updating until its distribution collapses. The trial that detects the end of a run
    carries ``psms:converged_run``, ``psms:run_trials`` and ``psms:pfc`` (trials used over
    ``batch_size * n_batches``).

    Trials added with ``add_trial`` (or by another sampler) join the batch their trial
    number falls in; enqueued trials keep their slot with the enqueued values. Storage,
    reproducibility, conditional and new parameters follow
    :class:`~optuna_psms.PopulationSampler`. Each trial carries the user attrs
    ``psms:batch`` and ``psms:sample`` (``record_user_attrs=False`` turns them off;
    by default they are not written through the gRPC storage proxy).

    Example:

        .. testcode::

            import optuna
            from optuna_psms import DynamicRandomSampler


            def objective(trial):
                x = trial.suggest_float("x", -5, 5)
                noise = [trial.suggest_categorical(f"f{i}", [False, True]) for i in range(4)]
                return x**2 + sum(noise)


            study = optuna.create_study(sampler=DynamicRandomSampler(seed=0))
            study.optimize(objective, n_trials=200)
            assert study.best_value < 0.5

    Args:
        batch_size: Trials per batch (paper: 40; with a budget, ``ceil(budget / 5)``).
        n_batches: Batches per run (paper: 5), the PFC denominator; ``None`` for runs that
            end only when the distribution collapses; ``"auto"``: 5, or the budget's.
        top_fraction: Fraction of a batch forming the elite (paper: 0.5), in ``(0, 1]``.
        muting_threshold: Include probability under which a two-choice parameter is muted
            (paper: 0.25), in ``[0, 1]``.
        convergence_threshold: Numeric range (unit coordinates) under which the
            distribution has collapsed; ``0`` disables this test.
        on_converged: ``"restart"`` (default) or ``"stop"``.
        budget: The number of trials the study is expected to run, or ``None``: with a
            budget one run spans it, ``BUDGET_BATCHES = 5`` batches of ``ceil(budget / 5)``
            (or ``ceil(budget / batch_size)`` batches of a given ``batch_size``); passing both
            ``budget`` and ``n_batches`` is an error.
        seed: Seed of every random draw (with the trial number; ``None``: the seed recorded in the
            study, or a fresh one). Draws are keyed by seed and trial number, not by algorithm: at
            one seed the optuna-psms samplers draw common random numbers (docs/core.md), so its
            first batch is the first trials of UMDASampler and BUMDASampler at that seed, and
            begins with PSOSampler's initial swarm (paired comparisons). For independent streams,
            give each algorithm its own seeds.
        record_user_attrs: Write ``psms:batch`` and ``psms:sample`` user attrs;
            ``None``: on, except through the gRPC storage proxy (a call per attribute there).
        constraints_func: Returns a trial's constraint values (``<= 0``: satisfied), as
            :class:`~optuna.samplers.TPESampler`'s; values set with
            ``trial.set_constraint`` (Optuna 5) count too. Trials rank by Deb's rules
            (feasible first, by value; infeasible by total violation).
    """

    identities = (
        Identity(
            tag="drs",
            title="Random search with dynamic updating (RSDU; Milletich & Asmar)",
            description=(
                "Random search with dynamic updating (RSDU): batches of random points; after "
                "each batch every numeric range shrinks to the span of the best half, and each "
                "two-choice flag (feature on/off) is drawn with its frequency in that half, "
                "muted below the muting threshold. User attrs `psms:batch` and `psms:sample`."
            ),
            generation="batch",
            member="sample",
        ),
    )
    #: A trial this sampler did not create (``add_trial``, another sampler's) joins the
    #: generation of its slot as one of its samples (see ``samplers/_runs.py``).
    foreign_trials_take_slots = True
    _settings: DynamicRandomSettings

    def __init__(
        self,
        *,
        batch_size: int | None = None,
        n_batches: int | None | Literal["auto"] = "auto",
        top_fraction: float = 0.5,
        muting_threshold: float = 0.25,
        convergence_threshold: float = 0.01,
        on_converged: str = "restart",
        budget: int | None = None,
        seed: int | None = None,
        record_user_attrs: bool | None = None,
        constraints_func: Callable[[FrozenTrial], Sequence[float]] | None = None,
    ) -> None:
        budget = optional_integer("budget", budget, 2)
        if budget is not None and n_batches != "auto":
            raise ValueError("give either budget or n_batches, not both.")
        if batch_size is None:
            batch_size = (
                DynamicRandomSettings.batch_size
                if budget is None
                else max(2, math.ceil(budget / BUDGET_BATCHES))
            )
        if n_batches == "auto":
            if budget is None:
                n_batches = DynamicRandomSettings.n_batches
            else:
                n_batches = max(1, math.ceil(budget / integer("batch_size", batch_size, 2)))
        self._settings = DynamicRandomSettings(
            batch_size, n_batches, top_fraction, muting_threshold, convergence_threshold
        )
        super().__init__(
            seed=seed,
            record_user_attrs=record_user_attrs,
            on_converged=on_converged,
            constraints_func=constraints_func,
        )

    def _make_strategy(self, dims: tuple[Dim, ...], run_start: int) -> DynamicRandomStrategy:
        return DynamicRandomStrategy(len(dims), run_start, settings=self._settings, dims=dims)
