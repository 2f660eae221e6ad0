"""The only module that touches Optuna internals.

A sampler receives a :class:`~optuna.study.Study` and a :class:`~optuna.trial.FrozenTrial`;
writing a trial's system attributes and reading trials incrementally needs the study's
storage, its id and the trial's id, which Optuna exposes only as private attributes
(Optuna's own samplers use them the same way). Everything that depends on them lives here
and is covered by ``tests/test_compat.py``, so an Optuna upgrade that moves them breaks one
module and one test file.
"""

from __future__ import annotations

from typing import Any
from typing import TYPE_CHECKING

from optuna.trial import FrozenTrial


if TYPE_CHECKING:
    from optuna.storages import BaseStorage
    from optuna.study import Study

#: Above this many unseen trials, read them in one ``get_all_trials`` call.
_BULK_THRESHOLD = 64


def storage_of(study: Study) -> tuple[BaseStorage, int]:
    """The storage and study id behind ``study``."""
    return study._storage, study._study_id


def trial_id(trial: FrozenTrial) -> int:
    """The storage id of ``trial`` (distinct from ``trial.number``)."""
    return trial._trial_id


def fixed_params(trial: FrozenTrial) -> dict[str, Any]:
    """Parameters fixed by :meth:`~optuna.study.Study.enqueue_trial` for this trial."""
    value = trial.system_attrs.get("fixed_params", {})
    return dict(value) if isinstance(value, dict) else {}


def set_system_attrs(study: Study, trial: FrozenTrial, attrs: dict[str, Any]) -> None:
    """Write trial system attributes, in the order given."""
    storage, _ = storage_of(study)
    tid = trial_id(trial)
    for key, value in attrs.items():
        storage.set_trial_system_attr(tid, key, value)


def set_user_attrs(study: Study, trial: FrozenTrial, attrs: dict[str, Any]) -> None:
    """Write trial user attributes (shown by optuna-dashboard)."""
    storage, _ = storage_of(study)
    tid = trial_id(trial)
    for key, value in attrs.items():
        storage.set_trial_user_attr(tid, key, value)


def fetch_changed_trials(
    study: Study,
    next_number: int,
    pending_ids: list[int],
    current: FrozenTrial | None = None,
) -> tuple[list[FrozenTrial], int]:
    """Trials that may have changed since the last call, without reading the whole study.

    Args:
        study: The study.
        next_number: The first trial number not read yet.
        pending_ids: Storage ids of trials read earlier while unfinished.
        current: The trial being asked, as the sampler received it (a fresh read). When its
            number is ``next_number`` or later, it is used as read and no later trial is
            probed: those were created after it and are read by the next call.

    Returns:
        The re-read pending trials and the new trials, and the next unread trial number.
        Cost: one read per pending trial plus one per new trial (a single bulk read when
        many trials are new, e.g. when a fresh process opens a long study).
    """
    storage, study_id = storage_of(study)
    if next_number == 0:
        trials = storage.get_all_trials(study_id, deepcopy=False)
        return list(trials), len(trials)
    out = [storage.get_trial(tid) for tid in pending_ids]
    stop = current.number if current is not None and current.number >= next_number else -1
    number = next_number
    while True:
        if number == stop:
            assert current is not None
            out.append(current)
            return out, number + 1
        try:
            tid = storage.get_trial_id_from_study_id_trial_number(study_id, number)
        except KeyError:
            return out, number
        if number - next_number >= _BULK_THRESHOLD:
            trials = storage.get_all_trials(study_id, deepcopy=False)
            out.extend(t for t in trials if t.number >= number)
            return out, max(number, len(trials))
        out.append(storage.get_trial(tid))
        number += 1


def stop_optimize(study: Study) -> bool:
    """Ask ``study.optimize`` to stop after the running trials; ``False`` under ask/tell."""
    try:
        study.stop()
    except RuntimeError:
        return False
    return True
