"""Concurrent restarts after convergence start exactly one run, deterministically, at once.

The rule (``optuna_psms/samplers/_lifecycle.py``): trial ``n`` starts run ``r + 1`` when run ``r``
has
converged and every earlier trial's record is visible; a trial asked while an earlier trial
is record-less stays in run ``r``, and nothing ever waits. The tests stage the race with two
samplers (or two threads of one) on one storage: worker 1 has created trial ``n`` but not yet
written its record when worker 2 asks trial ``n + 1``. Whatever the order in which the two
run, one run starts, at ``n``, its convergence attrs are written once, and no ask sleeps.
"""

from __future__ import annotations

import threading
import time

import optuna
import pytest

from optuna_psms import UMDASampler
from optuna_psms.samplers import _lifecycle
from optuna_psms.samplers import _records


SIZE, GENERATIONS = 4, 2  # run 0 uses its budget after 8 trials: trial 8 restarts


def objective(trial: optuna.Trial) -> float:
    return sum(trial.suggest_float(f"x{i}", -5, 5) ** 2 for i in range(2))


def _sampler() -> UMDASampler:
    return UMDASampler(population_size=SIZE, n_generations=GENERATIONS, seed=0)


@pytest.fixture(autouse=True)
def no_sleep(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Any ``time.sleep`` during a test fails it: a restart decision never waits."""
    calls: list[float] = []

    def forbidden(seconds: float) -> None:
        calls.append(seconds)
        raise AssertionError(f"the sampler slept {seconds} s")

    monkeypatch.setattr(time, "sleep", forbidden)
    return calls


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


def _converged(study: optuna.Study) -> list[int]:
    trials = study._storage.get_all_trials(study._study_id)
    return [t.number for t in trials if "psms:converged_run" in t.user_attrs]


@pytest.mark.parametrize("worker1_first", [False, True])
def test_two_workers_restarting_at_once_start_one_run(worker1_first: bool) -> None:
    first, second = _converged_study()
    storage = first._storage
    n = storage.create_new_trial(first._study_id)  # worker 1: created, record not written
    n_number = storage.get_trial(n).number
    if worker1_first:
        first.sampler.before_trial(first, storage.get_trial(n))
    asked = second.ask()  # worker 2 asks the next trial, at once
    if not worker1_first:
        first.sampler.before_trial(first, storage.get_trial(n))  # worker 1 writes it now
    assert _run(storage.get_trial(n)) == (1, n_number)
    later = _run(storage.get_trial(asked._trial_id))
    # Worker 2 joined run 1 if it read trial n's record, else stayed in run 0: never a
    # second start of run 1.
    assert later == ((1, n_number) if worker1_first else (0, 0))
    assert _converged(first) == [n_number], "the convergence attrs are written once"
    second.tell(asked, objective(asked))
    first.tell(first.ask(), 0.0)  # the next trial of either worker is run 1's
    assert _run(storage.get_all_trials(first._study_id)[-1]) == (1, n_number)


def test_a_worker_that_died_before_its_record_blocks_restarts_only_up_to_the_horizon(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_lifecycle, "RESTART_HORIZON", 3)
    first, second = _converged_study()
    storage = first._storage
    dead = storage.get_trial(storage.create_new_trial(first._study_id)).number  # no record, ever
    runs = []
    for _ in range(4):
        trial = second.ask()
        second.tell(trial, objective(trial))
        runs.append(_run(storage.get_trial(trial._trial_id)))
    # Trials dead+1 .. dead+3 see the record-less trial within the horizon and stay in run 0;
    # dead+4 is past it and restarts.
    assert runs == [(0, 0), (0, 0), (0, 0), (1, dead + 4)]
    assert _converged(first) == [dead + 4]


def test_threads_of_one_sampler_restart_once() -> None:
    """A thread asking while another thread's trial is record-less does not wait for it."""
    study, _ = _converged_study()
    storage = study._storage
    n = storage.create_new_trial(study._study_id)  # thread 1: created, record not written
    asked: list[optuna.Trial] = []
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            asked.append(study.ask())
        except BaseException as e:
            errors.append(e)

    thread2 = threading.Thread(target=ask)
    thread2.start()
    thread2.join()  # returns at once: nothing to wait for
    assert not errors, errors
    study.sampler.before_trial(study, storage.get_trial(n))  # same sampler, same lock
    n_number = storage.get_trial(n).number
    after = storage.get_trial(asked[0]._trial_id)
    assert _run(storage.get_trial(n)) == (1, n_number)
    assert _run(after) == (0, 0)
    assert _converged(study) == [n_number]


def test_no_ask_sleeps_with_record_less_trials_around(no_sleep: list[float]) -> None:
    """Many record-less trials before a converged run's asks: every ask returns at once."""
    first, second = _converged_study()
    storage = first._storage
    for _ in range(20):
        storage.create_new_trial(first._study_id)
    for _ in range(5):
        trial = second.ask()
        second.tell(trial, objective(trial))
    assert no_sleep == []
