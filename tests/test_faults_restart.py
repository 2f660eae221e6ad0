"""Concurrent restarts after convergence start exactly one run, deterministically.

Run ``r + 1`` starts at the first trial whose sampler found run ``r`` converged; a later trial
waits for the records of the earlier, still record-less trials before it restarts (see
``PopulationSampler._await_records``). The tests stage the race with two samplers on one
storage: worker 1 has created trial ``n`` but not yet written its record when worker 2 asks
trial ``n + 1``. Whatever the order in which the two then run, one run starts, at ``n``.
"""

from __future__ import annotations

import threading

import optuna
import pytest

from optuna_psms import _adapter
from optuna_psms import _records
from optuna_psms import UMDASampler


SIZE, GENERATIONS = 4, 2  # run 0 uses its budget after 8 trials: trial 8 restarts


def objective(trial: optuna.Trial) -> float:
    return sum(trial.suggest_float(f"x{i}", -5, 5) ** 2 for i in range(2))


def _sampler() -> UMDASampler:
    return UMDASampler(population_size=SIZE, n_generations=GENERATIONS, seed=0)


def _converged_study() -> tuple[optuna.Study, optuna.Study]:
    first = optuna.create_study(sampler=_sampler())
    first.optimize(objective, n_trials=SIZE * GENERATIONS)
    second = optuna.load_study(
        study_name=first.study_name, storage=first._storage, sampler=_sampler()
    )
    return first, second


def _run(trial: optuna.trial.FrozenTrial) -> tuple[int, int]:
    rec = _records.load(trial.system_attrs)
    assert rec is not None
    return int(rec["r"]), int(rec["rs"])


def test_two_workers_restarting_at_once_start_one_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_adapter, "RESTART_WAIT", 600.0)  # only a dead worker makes it matter
    first, second = _converged_study()
    storage = first._storage
    n = storage.create_new_trial(first._study_id)  # worker 1: created, record not written
    asked: list[optuna.Trial] = []
    worker2 = threading.Thread(target=lambda: asked.append(second.ask()))
    worker2.start()  # worker 2 asks the next trial: it waits for trial n's record
    first.sampler.before_trial(first, storage.get_trial(n))  # worker 1 writes it
    worker2.join(timeout=600)
    assert not worker2.is_alive()
    trials = {t.number: t for t in storage.get_all_trials(first._study_id)}
    n_number = storage.get_trial(n).number
    assert _run(trials[n_number]) == (1, n_number)
    assert _run(trials[asked[0].number]) == (1, n_number), "worker 2 started a second run"
    converged = [k for k, t in trials.items() if "psms:converged_run" in t.user_attrs]
    assert converged == [n_number], "the convergence attrs are written once"


def test_a_worker_that_died_before_its_record_delays_the_restart_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_adapter, "RESTART_WAIT", 0.2)
    first, second = _converged_study()
    storage = first._storage
    storage.create_new_trial(first._study_id)  # its worker dies: no record, ever
    trial = second.ask()
    frozen = storage.get_trial(trial._trial_id)
    assert _run(frozen) == (1, trial.number)
    assert frozen.user_attrs["psms:converged_run"] == 0


def test_threads_of_one_sampler_restart_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The waiting thread lets the thread that writes the earlier record take the lock."""
    monkeypatch.setattr(_adapter, "RESTART_WAIT", 60.0)
    study, _ = _converged_study()
    storage = study._storage
    n = storage.create_new_trial(study._study_id)  # thread 1: created, record not written
    asked: list[optuna.Trial] = []
    thread2 = threading.Thread(target=lambda: asked.append(study.ask()))
    thread2.start()
    study.sampler.before_trial(study, storage.get_trial(n))  # same sampler, same lock
    thread2.join(timeout=600)
    assert not thread2.is_alive()
    n_number = storage.get_trial(n).number
    after = storage.get_trial(asked[0]._trial_id)
    assert _run(storage.get_trial(n)) == (1, n_number)
    assert _run(after) == (1, n_number)
    assert "psms:converged_run" not in after.user_attrs
