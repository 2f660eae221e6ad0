"""Many workers simulated in one process: ``w`` trials kept RUNNING through a real study.

:func:`simulate` drives a study with ``study.ask()`` / ``study.tell()`` as ``w`` workers
sharing one storage would: ``w`` trials are asked at time 0, each is given a duration from a
seeded sequence (:func:`durations`, the same for every sampler: the ``i``-th trial asked gets
the ``i``-th duration), the first to finish (the earliest end time; ties by trial number) is
told next, and a new trial is asked at that moment as long as trials remain. The objective is
evaluated when its trial is asked (its parameters are suggested then, as a worker would), so
the trials still running have their parameters in storage and look to the sampler exactly as
other workers' trials do. With ``w = 1`` the study sees what ``study.optimize`` shows it:
ask, suggest, tell, one trial after the other.

The schedule (which trial ends when) depends only on the durations and ``w``, never on the
sampler, so every sampler of a comparison is judged on the same clock.

``python -m optuna_psms.benchmarks.bbob --workers-sim 1 4 16 --durations lognormal`` runs the
BBOB suite this way (see :mod:`optuna_psms.benchmarks.bbob`).
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
import heapq
import math
from typing import Any

import numpy as np
import optuna


#: The duration distributions, all of mean 1: ``equal`` (every trial takes 1), ``lognormal``
#: (``exp(N(-1/8, 1/2))``: most trials within a factor 2 of each other) and ``heavy`` (Pareto
#: of shape 1.5 scaled to mean 1: infinite variance, a few trials take 10-50 times the median).
DURATIONS = ("equal", "lognormal", "heavy")

#: Mixed into the seed of the durations so that they are a stream of their own.
_STREAM = 0x5EED


def durations(kind: str, seed: int, n: int) -> list[float]:
    """The first ``n`` trial durations of ``kind`` for ``seed`` (mean 1, all positive).

    The ``i``-th value depends on ``kind``, ``seed`` and ``i`` only: a longer sequence starts
    with the shorter one, and every sampler of a run gets the same one.
    """
    if kind not in DURATIONS:
        raise ValueError(f"durations must be one of {', '.join(DURATIONS)}, got {kind!r}.")
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n!r}.")
    if kind == "equal":
        return [1.0] * n
    rng = np.random.default_rng([_STREAM, DURATIONS.index(kind), seed])
    if kind == "lognormal":
        values = rng.lognormal(-0.125, 0.5, n)
    else:  # Pareto (Lomax + 1) of shape 1.5 has mean 3: divide by 3 for mean 1.
        values = (rng.pareto(1.5, n) + 1.0) / 3.0
    return [float(v) for v in values]


@dataclass
class Simulation:
    """What :func:`simulate` saw, in the order the trials were told (finishing order).

    Attributes:
        numbers: Trial numbers.
        times: Simulated end times.
        values: Objective values (``None`` for a trial told as failed).
        running_at_ask: How many trials were RUNNING when each trial was asked (in asking
            order): ``min(w, trials left) - 1`` once the start has filled the slots.
    """

    numbers: list[int] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    values: list[float | None] = field(default_factory=list)
    running_at_ask: list[int] = field(default_factory=list)


def simulate(
    study: optuna.Study,
    objective: Callable[[optuna.Trial], float],
    n_trials: int,
    n_workers: int,
    trial_durations: Sequence[float],
    callback: Callable[[float, optuna.trial.FrozenTrial], None] | None = None,
    *,
    catch: bool = True,
    should_stop: Callable[[], bool] | None = None,
) -> Simulation:
    """Run ``n_trials`` of ``objective`` on ``study`` as ``n_workers`` asynchronous workers.

    Args:
        study: The study (any storage; the sampler sees the running trials through it).
        objective: Called once per trial, when the trial is asked.
        n_trials: Trials to run.
        n_workers: Trials kept running at once (the simulated workers).
        trial_durations: Duration of the ``i``-th trial asked (at least ``n_trials`` of them;
            see :func:`durations`).
        callback: Called after each tell with the simulated time and the told trial.
        catch: Tell a trial whose objective raised as failed, at its end time (like
            ``study.optimize(catch=(Exception,))``); ``False``: fail it and every running
            trial at once and re-raise.
        should_stop: Asked after each tell; once it is true no trial is asked any more (the
            running ones are still told: their values are known).

    Returns:
        The :class:`Simulation`.
    """
    if n_workers < 1:
        raise ValueError(f"n_workers must be >= 1, got {n_workers!r}.")
    if len(trial_durations) < n_trials:
        raise ValueError(f"{n_trials} trials need as many durations, got {len(trial_durations)}.")
    sim = Simulation()
    running: list[tuple[float, int, optuna.Trial, float | None]] = []
    asked = 0

    def launch(now: float) -> None:
        nonlocal asked
        sim.running_at_ask.append(len(running))
        trial = study.ask()
        try:
            value: float | None = float(objective(trial))
        except Exception:
            if not catch:
                for entry in running:
                    study.tell(entry[2], state=optuna.trial.TrialState.FAIL)
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
                raise
            value = None  # told as failed at its end time, as optimize(catch=...) would
        heapq.heappush(running, (now + trial_durations[asked], trial.number, trial, value))
        asked += 1

    while asked < n_trials and len(running) < n_workers:
        launch(0.0)
    while running:
        now, number, trial, value = heapq.heappop(running)
        if value is None:
            frozen = study.tell(trial, state=optuna.trial.TrialState.FAIL)
        else:
            frozen = study.tell(trial, value)
        sim.numbers.append(number)
        sim.times.append(now)
        sim.values.append(value)
        if callback is not None:
            callback(now, frozen)
        if asked < n_trials and not (should_stop is not None and should_stop()):
            launch(now)
    return sim


def best_at(trace: Sequence[float], times: Sequence[float], when: float) -> float:
    """The best-so-far value of a run at simulated time ``when`` (``inf`` before any end).

    ``trace`` and ``times`` are a run's best-so-far values and end times in telling order.
    """
    index = int(np.searchsorted(np.asarray(times, dtype=float), when, side="right"))
    return float(trace[index - 1]) if index > 0 else float("inf")


def _ratio_table(
    finals: dict[tuple[str, int], list[float]],
    reference: dict[int, list[float]],
    samplers: Sequence[str],
    functions: Sequence[int],
) -> dict[str, float]:
    """Mean over ``functions`` of ``median(finals[s, f]) / median(reference[f])``."""
    import statistics

    from optuna_psms.benchmarks._bbob_table import _ratio

    out: dict[str, float] = {}
    for s in samplers:
        if all((s, f) in finals for f in functions):
            out[s] = statistics.fmean(
                _ratio(statistics.median(finals[(s, f)]), statistics.median(reference[f]))
                for f in functions
            )
    return out


def worker_summary(
    runs: Sequence[dict[str, Any]],
    samplers: Sequence[str],
    functions: Sequence[int],
    workers: Sequence[int],
) -> dict[str, Any]:
    """Normalized regret of every sampler per simulated worker count, by trials and by time.

    ``"final"[w][s]``: after all trials (the BBOB score: median final regret over seeds and
    instances divided by RandomSampler's at the same worker count, mean over the functions).
    ``"timed"[w][s]``: the same at the simulated time the most workers need for all the trials
    (per seed and instance: the end of the run with ``max(workers)``; the schedule is the same
    for every sampler), still divided by random's final regret at ``w`` workers: what ``w``
    workers reach in the wall time ``max(workers)`` workers take. ``"time"``: the median of
    that time over the runs.
    """
    import statistics

    most = max(workers)
    ends: dict[tuple[int, int, int], float] = {}
    for run in runs:
        if run.get("workers") == most:
            ends[(run["function"], run["instance"], run["seed"])] = run["times"][-1]
    final: dict[int, dict[str, float]] = {}
    timed: dict[int, dict[str, float]] = {}
    for w in workers:
        at_end: dict[tuple[str, int], list[float]] = {}
        at_time: dict[tuple[str, int], list[float]] = {}
        for run in runs:
            if run.get("workers") != w:
                continue
            key = (run["sampler"], run["function"])
            at_end.setdefault(key, []).append(run["trace"][-1])
            end = ends.get((run["function"], run["instance"], run["seed"]))
            if end is not None:
                at_time.setdefault(key, []).append(best_at(run["trace"], run["times"], end))
        missing = [f for f in functions if ("random", f) not in at_end]
        if missing:
            raise ValueError(f"random did not run on functions {missing} at {w} workers.")
        reference = {f: at_end[("random", f)] for f in functions}
        final[w] = _ratio_table(at_end, reference, samplers, functions)
        timed[w] = _ratio_table(at_time, reference, samplers, functions)
    return {
        "final": final,
        "timed": timed,
        "time": statistics.median(ends.values()) if ends else math.nan,
    }


def worker_markdown(
    summary: dict[str, Any], samplers: Sequence[str], workers: Sequence[int]
) -> str:
    """The two tables of :func:`worker_summary`: by trials (with ``x(max vs 1)``) and by time."""
    first, most = min(workers), max(workers)
    names = [f"{w} worker{'s' if w > 1 else ''}" for w in workers]
    ratio = f"x({most} vs {first})"
    lines = [
        "| sampler | " + " | ".join(names) + f" | {ratio} |",
        "|---" * (len(workers) + 2) + "|",
    ]
    for s in samplers:
        cells = [summary["final"][w].get(s) for w in workers]
        text = ["-" if c is None else f"{c:.3f}" for c in cells]
        a, b = summary["final"][first].get(s), summary["final"][most].get(s)
        text.append(f"{b / a:.2f}" if a and b is not None else "-")
        lines.append(f"| {s} | " + " | ".join(text) + " |")
    lines += [
        "",
        f"At the simulated time {most} workers take for all the trials (median "
        f"{summary['time']:.3g}, trial durations of mean 1), over random's final regret at "
        "the same worker count:",
        "",
        "| sampler | " + " | ".join(names) + " |",
        "|---" * (len(workers) + 1) + "|",
    ]
    for s in samplers:
        cells = [summary["timed"][w].get(s) for w in workers]
        lines.append(
            f"| {s} | " + " | ".join("-" if c is None else f"{c:.3f}" for c in cells) + " |"
        )
    return "\n".join(lines)


def write_time_plot(
    runs: Sequence[dict[str, Any]],
    samplers: Sequence[str],
    functions: Sequence[int],
    meta: dict[str, Any],
    directory: str,
) -> list[str]:
    """Write ``ecdf_time.png``: COCO's ECDF of targets reached against simulated wall time,
    one line per sampler and worker count (line style by worker count); return its path."""
    import os

    from optuna_psms.benchmarks._bbob_plots import pyplot
    from optuna_psms.benchmarks._bbob_plots import TARGETS

    plt = pyplot()
    os.makedirs(directory, exist_ok=True)
    workers = list(meta["workers_sim"])
    ends = [run["times"][-1] for run in runs if "times" in run]
    grid = np.geomspace(0.5, max(ends), 200)
    styles = ["-", "--", ":", "-."]
    fig, ax = plt.subplots(figsize=(8, 5))
    for k, s in enumerate(samplers):
        for j, w in enumerate(workers):
            chosen = [
                r
                for r in runs
                if r["sampler"] == s and r.get("workers") == w and r["function"] in functions
            ]
            if not chosen:
                continue
            values = np.array([[best_at(r["trace"], r["times"], t) for t in grid] for r in chosen])
            hit = (values[:, :, None] <= TARGETS[None, None, :]).mean(axis=(0, 2))
            ax.step(
                grid,
                hit,
                where="post",
                color=f"C{k % 10}",
                linestyle=styles[j % len(styles)],
                label=f"{s}, {w} worker{'s' if w > 1 else ''}",
            )
    ax.set_xscale("log")
    ax.set_xlabel(f"simulated wall time ({meta['durations']} trial durations of mean 1)")
    ax.set_ylabel("fraction of (run, target) pairs reached")
    ax.set_title(
        f"bbob {meta['dim']}-D, {meta['trials']} trials, {meta['seeds']} seeds: targets 1e2..1e-8"
    )
    ax.legend(fontsize=7, ncol=2)
    path = os.path.join(directory, "ecdf_time.png")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return [path]
