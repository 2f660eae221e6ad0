"""Run and restart bookkeeping: which run a trial belongs to, and when a new run starts.

A *run* is one life of a strategy: run ``0`` starts at trial ``0``; with
``on_converged="restart"`` a converged run ``r`` is followed by run ``r + 1``. Every record
stores its run ``r`` and that run's first trial ``rs``; everything here is re-derived from
those two numbers on every sync, never from time.

The restart rule
    Trial ``n`` *claims* the start of run ``r + 1`` when, as its sampler asks it,

    * the latest run that started at or before ``n`` is ``r`` and its strategy reports
      ``converged()``;
    * every earlier trial (within :data:`RESTART_HORIZON` trial numbers) is visible: it is
      finished, or its record has been read (after one fresh read of the record-less ones);
    * no later trial has claimed the start of run ``r + 1`` already.

    Otherwise a converged run's trial *defers*: it stays in run ``r`` (its record says so)
    and is proposed by the converged strategy, as under ``on_converged="stop"``. Nothing
    waits. Run ``r + 1`` starts at its claimant; a trial joins the latest run whose start it
    has read.

    Two trials never both claim run ``r + 1``: of two claimants ``a < b``, ``b`` read every
    earlier record, ``a``'s included (written once, before ``a`` is evaluated), so ``b`` saw
    run ``r + 1`` started at ``a`` and joined it. The one exception is the horizon: a trial
    whose worker has not written its record by the time :data:`RESTART_HORIZON` later trials
    exist is taken for dead (a worker killed between creating its trial and writing the
    record, without heartbeat), so that it cannot block restarts for ever; should it still
    write a claim after a later trial claimed, the earliest start wins (the strategies are
    replayed) and that run's first slots may repeat.

    A deferred trial is a trial of run ``r`` in every process, so the slot its number has in
    run ``r + 1`` (PSO: a particle's iteration 0) is not evaluated: that member starts at
    its next slot.

The trial that claims the start gets the user attrs ``psms:converged_run``,
``psms:run_trials`` and ``psms:pfc`` (see :mod:`optuna_psms.samplers._adapter`).
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any
from typing import Protocol
from typing import TYPE_CHECKING

import optuna

from optuna_psms import _compat
from optuna_psms.samplers.core.base import Strategy


if TYPE_CHECKING:
    from optuna.study import Study


_logger = optuna.logging.get_logger(__name__)

#: Record-less trials more than this many trial numbers before an ask no longer block a
#: restart (see the module documentation).
RESTART_HORIZON = 256
ON_CONVERGED = ("restart", "stop")


class Runs:
    """Run starts and the finished trials of each run, as read from the records."""

    def __init__(self) -> None:
        self.starts: dict[int, int] = {}
        self.latest = 0
        self.counts: dict[int, int] = {}  # finished trials of ours per run
        self.stop_logged = False

    def set_start(self, run: int, start: int) -> None:
        self.starts[run] = start
        self.latest = max(self.latest, run)

    def register(
        self, claims: Iterable[tuple[int, int]], strategies: Mapping[int, Strategy]
    ) -> bool:
        """Take ``(run, start)`` pairs of records into account (the earliest start wins).

        Returns whether a strategy in ``strategies`` now has the wrong start.
        """
        stale = False
        for run, start in claims:
            if run not in self.starts or start < self.starts[run]:
                stale |= run in strategies and strategies[run].run_start != start
                self.set_start(run, start)
        return stale

    def run_of(self, number: int) -> int:
        """The latest run that started at or before trial ``number``."""
        latest = self.latest
        if self.starts.get(latest, 0) <= number:
            return latest  # the usual case, O(1) however many runs the study had
        runs = [r for r, s in self.starts.items() if s <= number]
        return max(runs) if runs else 0


class View(Protocol):
    """What :func:`decide` needs of the study view
    (:class:`optuna_psms.samplers._view.StudyView`)."""

    runs: Runs

    def strategy(self, run: int) -> Strategy: ...

    def unseen_before(self, study: Study, number: int, horizon: int) -> bool: ...


@dataclass
class Decision:
    """The run of a trial being asked, its strategy and the user attrs to write."""

    run: int
    strategy: Strategy
    user_attrs: dict[str, Any] = field(default_factory=dict)


def decide(view: View, study: Study, number: int, on_converged: str, name: str) -> Decision:
    """The run trial ``number`` belongs to, applying the restart rule of this module."""
    runs = view.runs
    run = runs.run_of(number)
    strategy = view.strategy(run)
    if not strategy.converged():
        return Decision(run, strategy)
    if on_converged == "stop":
        return _stop(runs, study, run, strategy, name)
    if view.unseen_before(study, number, RESTART_HORIZON):
        return Decision(run, strategy)  # an earlier trial may be claiming: defer
    run = runs.run_of(number)  # the fresh read may show a start already
    strategy = view.strategy(run)
    claimed = runs.starts.get(run + 1)
    if not strategy.converged() or (claimed is not None and claimed > number):
        return Decision(run, strategy)
    n_run = runs.counts.get(run, 0)
    attrs = _convergence_attrs(run, n_run, strategy)
    runs.set_start(run + 1, number)
    _logger.info(
        "%s: run %d converged after %d trials; restarting at trial %d.", name, run, n_run, number
    )
    return Decision(run + 1, view.strategy(run + 1), attrs)


def _convergence_attrs(run: int, n_run: int, strategy: Strategy) -> dict[str, Any]:
    attrs: dict[str, Any] = {"psms:converged_run": run, "psms:run_trials": n_run}
    budget = strategy.budget()
    if budget:
        attrs["psms:pfc"] = round(n_run / budget, 6)
    return attrs


def _stop(runs: Runs, study: Study, run: int, strategy: Strategy, name: str) -> Decision:
    if runs.stop_logged:
        _compat.stop_optimize(study)
        return Decision(run, strategy)
    n_run = runs.counts.get(run, 0)
    attrs = _convergence_attrs(run, n_run, strategy)
    stopped = _compat.stop_optimize(study)
    _logger.info(
        "%s: run %d converged after %d trials; %s",
        name,
        run,
        n_run,
        "stopping the study." if stopped else "ask/tell study continues.",
    )
    runs.stop_logged = True
    return Decision(run, strategy, attrs)
