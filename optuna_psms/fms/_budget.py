"""The time budget of a full-model fit (``time_budget=``) and the progress lines of ``verbose``.

**The plan.** ``time_budget`` is the wall time of the whole :meth:`fit`: the search, the final
check and the refits. The search stops at ``start + budget - reserve``, where the reserve is
the larger of :data:`RESERVE_SHARE` of the budget and 1.5 times the estimated refit of the
best trial so far (its mean fold time scaled to all the rows by its model's row exponent,
:func:`~optuna_psms.fms._cost.refit_seconds`), re-estimated after every trial. A trial still
running at that moment is stopped (its folds run in a worker process, as with
``trial_timeout``; it fails with ``fms:timeout`` and says that the budget ended it). After the
search, the vote keeps the best members whose estimated refits fit in what is left (at least
the best one), and the final check runs only when its cross-validation of the vote and its
SVC grid (one SVC fit timed on 500 rows, scaled as rows²) are estimated to take at most a third
of what is left then.
"""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Sequence
import contextlib
import math
import sys
import threading
import time
from typing import Any
from typing import TextIO

import numpy as np
import optuna

from optuna_psms.fms._cost import refit_seconds


#: Share of the budget kept for what follows the search (refits, final check), at least.
RESERVE_SHARE = 0.2
#: Seconds between two progress lines when the output is not a terminal (and the longest
#: silence in a terminal).
PROGRESS_EVERY = 30.0
#: What the line ending a budget-limited search says (to recognise it).
STOPPED_MARK = "stopped by the time budget after"
#: Study user attr: the record of the time budget (:meth:`TimeBudget.record`).
BUDGET_KEY = "fms:time_budget"

_logger = optuna.logging.get_logger(__name__)


def check_time_budget(value: Any) -> float | None:
    """``value`` as seconds (``None``: no budget); ``ValueError`` unless positive and finite."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ValueError(f"time_budget must be a positive number of seconds; got {value!r}.")
    if not math.isfinite(value):
        raise ValueError(f"time_budget must be finite; got {value!r}.")
    return float(value)


def trial_refit_seconds(objective: Any, trial: optuna.trial.FrozenTrial) -> float:
    """Estimated seconds to refit ``trial``'s pipeline on all the objective's rows."""
    fold = getattr(objective, "fold_seconds", {}).get(trial.number)
    if fold is None:  # a trial of another process: its whole time, worker start included
        folds = trial.user_attrs.get("fms:fold_scores") or [0.0]
        fit_time = trial.user_attrs.get("fms:fit_time")
        if not isinstance(fit_time, int | float):
            return 0.0
        fold = float(fit_time) / max(len(folds), 1)
    prefix = objective.space.model_prefix
    names = objective.space.classifier_names
    name = str(trial.params.get(f"{prefix}:method", names[0]))
    return refit_seconds(
        fold,
        int(objective.context.n_samples),
        int(objective.y.shape[0]),
        objective.space.model_kind,
        name,
    )


class TimeBudget:
    """The clock of one fit with ``time_budget`` seconds (see the module docstring)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = float(seconds)
        self.start = time.monotonic()
        self.search_end = self.start + self.seconds * (1.0 - RESERVE_SHARE)
        self.stopped = False
        self.search_seconds = 0.0
        self.trials = 0

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def left(self) -> float:
        """Seconds left of the whole budget."""
        return self.start + self.seconds - time.monotonic()

    def search_left(self) -> float:
        """Seconds left for the search (may be negative)."""
        return self.search_end - time.monotonic()

    def replan(self, objective: Any, study: optuna.Study) -> None:
        """Move the search's end by the best trial's estimated refit."""
        reserve = RESERVE_SHARE * self.seconds
        try:
            best = study.best_trial if len(study.directions) == 1 else None
        except ValueError:  # no complete trial yet
            best = None
        if best is not None:
            reserve = max(reserve, 1.5 * trial_refit_seconds(objective, best))
        self.search_end = self.start + self.seconds - min(reserve, self.seconds)
        objective.deadline = self.search_end

    def callback(self, objective: Any) -> Any:
        """A study callback: replan, and stop the study once the search's time is used."""

        def after_trial(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
            self.trials += 1
            self.replan(objective, study)
            if self.search_left() <= 0.5:
                self.stopped = True
                study.stop()

        return after_trial

    def members(
        self, objective: Any, trials: Sequence[optuna.trial.FrozenTrial]
    ) -> tuple[list[optuna.trial.FrozenTrial], float]:
        """The first of ``trials`` (always) and the next ones whose estimated refits fit in
        what is left; and the estimated seconds of their refits."""
        kept = list(trials[:1])
        total = sum(trial_refit_seconds(objective, t) for t in kept)
        for trial in trials[1:]:
            cost = trial_refit_seconds(objective, trial)
            if total + cost > self.left():
                break
            kept.append(trial)
            total += cost
        return kept, total

    def check_skip(self, refits: float, folds: int, svc: float = 0.0) -> str | None:
        """Why the final check does not fit in what is left (``None``: it fits): its
        ``folds``-fold CV of the vote (``folds`` times the vote's ``refits``) and its SVC
        (``svc`` seconds, :func:`svc_check_seconds`) must take at most a third of what is left
        after the refits."""
        left = self.left() - refits
        cost = folds * refits + svc
        if cost <= left / 3.0:
            return None
        return (
            f"the time budget: it would take about {cost:.0f} s ({folds}-fold CV of the vote "
            f"and the SVC's grid), {max(left, 0.0):.0f} s are left"
        )

    def record(self, n_trials: int, stopped_by: str) -> dict[str, Any]:
        """A JSON-able record of the plan (study user attr ``fms:time_budget``)."""
        return {
            "time_budget": self.seconds,
            "search_seconds": round(self.search_seconds, 2),
            "trials": n_trials,
            "stopped_by": stopped_by,
        }


#: Rows of the SVC fit timed by :func:`svc_check_seconds`.
SVC_PROBE_ROWS = 500


def svc_check_seconds(objective: Any) -> float:
    """Estimated seconds of the final check's SVC: its grid (20 settings x 3 folds on 2/3 of
    the rows) and its 5 CV fits (on 4/5), from one default SVC fit timed on
    :data:`SVC_PROBE_ROWS` rows and scaled as the square of the rows."""
    from optuna_psms.fms._final_check import svc_pipeline

    n = int(objective.y.shape[0])
    probe = min(n, SVC_PROBE_ROWS)
    rows = np.random.default_rng(0).choice(n, size=probe, replace=False)
    began = time.perf_counter()
    try:
        svc_pipeline().fit(objective.X[rows], objective.y[rows])
    except ValueError:  # a class missing from the probe: scale from what it cost anyway
        pass
    seconds = time.perf_counter() - began
    return float(seconds * (60 * (2 / 3 * n / probe) ** 2 + 5 * (4 / 5 * n / probe) ** 2))


def end_of_search(model: Any, budget: TimeBudget, study: optuna.Study) -> dict[str, Any]:
    """After a search with a time budget: say (a logged warning) when the budget ended it and
    return the record (``time_budget_``; the caller adds the total after the refit)."""
    budget.search_seconds = budget.elapsed()
    n_trials = getattr(model, "n_trials", None)
    if n_trials is not None and budget.trials >= n_trials:
        return budget.record(budget.trials, "n_trials")
    if budget.stopped or budget.search_left() <= 1.0:
        _logger.warning(stopped_line(budget.trials, budget))
        return budget.record(budget.trials, "time_budget")
    return budget.record(budget.trials, "timeout")


def stopped_line(n_trials: int, budget: TimeBudget) -> str:
    """The line saying the budget ended the search."""
    return (
        f"{STOPPED_MARK} {n_trials} trial{'s' if n_trials != 1 else ''} "
        f"({budget.search_seconds:.0f} s of the {budget.seconds:g} s budget searched; "
        f"{max(budget.left(), 0.0):.0f} s left for the refit)"
    )


class Progress:
    """Progress lines of a search on ``stream``: one per trial in a terminal, else one at most
    every :data:`PROGRESS_EVERY` seconds; and one after that long without a line while a
    trial runs (a heartbeat thread, inside :meth:`running`)."""

    def __init__(
        self,
        metric: str,
        budget: TimeBudget | None,
        stream: TextIO | None = None,
        every: float = PROGRESS_EVERY,
    ) -> None:
        self.metric = metric
        self.budget = budget
        self.stream = stream if stream is not None else sys.stderr
        self.every = float(every)
        self.start = time.monotonic()
        self.last = self.start
        self.done = 0
        self.best: tuple[float, int] | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        isatty = getattr(self.stream, "isatty", None)
        self.terminal = bool(isatty()) if callable(isatty) else False

    def _clock(self) -> str:
        if self.budget is not None:
            left = max(self.budget.left(), 0.0)
            return f"{left:.0f} s left of the {self.budget.seconds:g} s budget"
        return f"{time.monotonic() - self.start:.0f} s elapsed"

    def line(self, running: bool = False) -> str:
        best = (
            "no complete trial yet"
            if self.best is None
            else f"best CV {self.metric} {self.best[0]:.4f} (trial {self.best[1]})"
        )
        state = "; a trial is running" if running else ""
        return f"[fms] {self.done} trials done, {best}, {self._clock()}{state}"

    def _say(self, text: str) -> None:
        print(text, file=self.stream, flush=True)
        self.last = time.monotonic()

    def callback(self, study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        with self._lock:
            self.done += 1
            if trial.state == optuna.trial.TrialState.COMPLETE and trial.values:
                value = float(trial.values[0])
                if self.best is None or value < self.best[0]:
                    self.best = (value, trial.number)
            if self.terminal or time.monotonic() - self.last >= self.every:
                self._say(self.line())

    def _beat(self) -> None:
        while not self._stop.wait(min(self.every, 5.0)):
            with self._lock:
                if time.monotonic() - self.last >= self.every:
                    self._say(self.line(running=True))

    @contextlib.contextmanager
    def running(self, callbacks: Sequence[Any]) -> Iterator[None]:
        """The heartbeat thread runs inside this block when :meth:`callback` is among
        ``callbacks`` (``verbose >= 1``)."""
        if self.callback not in callbacks:
            yield
            return
        self._thread = threading.Thread(
            target=self._beat, name="optuna-psms-progress", daemon=True
        )
        self._thread.start()
        try:
            yield
        finally:
            self._stop.set()
            self._thread.join(timeout=10.0)
