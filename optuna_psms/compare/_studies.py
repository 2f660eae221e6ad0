"""The studies of a comparison in storage: what they are, where, and making them.

The samplers checked against the registry, one :class:`Task` (study) per sampler and seed
under :func:`study_name`, the storage (:func:`open_comparison_storage`), the user attrs each
study carries, and :func:`prepare`, which creates the missing studies and, on resume,
checks that the existing ones were made on the same objective. Running them is
:mod:`optuna_psms.compare._run`'s job.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
import warnings

import optuna
from optuna.trial import TrialState

from optuna_psms.compare._objective import resume_hint
from optuna_psms.samplers._registry import SAMPLERS
from optuna_psms.storages import WORKER_SQLITE_TIMEOUT


ATTR_SAMPLER = "compare:sampler"
ATTR_SEED = "compare:seed"
ATTR_OBJECTIVE = "compare:objective"
#: What :func:`prepare` matches on resume (:meth:`ObjectiveSpec.identity`).
ATTR_OBJECTIVE_ID = "compare:objective_id"
ATTR_NAME = "compare:name"
#: Simulated asynchronous workers of the study's runs (absent: 1, one trial at a time).
ATTR_WORKERS_SIM = "compare:workers_sim"


class ComparisonError(ValueError):
    """A comparison cannot start or go on: bad settings, a clash in storage, an objective
    that fails."""


@dataclass(frozen=True)
class Task:
    """One study of a comparison: a sampler on one seed, to ``n_trials`` COMPLETE trials."""

    study_name: str
    sampler: str
    seed: int
    n_trials: int
    workers_sim: int = 1  # simulated asynchronous workers (optuna_psms.benchmarks.parallel)


def study_name(name: str, sampler: str, seed: int) -> str:
    """``<name>/<sampler>/seed<k>``: the studies of a comparison list side by side."""
    return f"{name}/{sampler}/seed{seed}"


def parse_samplers(names: str | Sequence[str]) -> list[str]:
    """Sampler names, lower-cased, without duplicates, checked against the registry.

    Raises:
        ComparisonError: Empty list or an unknown name.
    """
    if isinstance(names, str):
        names = names.split(",")
    out: list[str] = []
    for raw in names:
        key = raw.strip().lower()
        if not key:
            continue
        if key not in SAMPLERS:
            from optuna_psms._names import did_you_mean

            hint = did_you_mean(key, SAMPLERS)
            raise ComparisonError(
                f"unknown sampler {raw.strip()!r}; {hint}choose from {', '.join(SAMPLERS)}"
            )
        if key not in out:
            out.append(key)
    if not out:
        raise ComparisonError("no sampler given; e.g. --samplers pso,tpe")
    return out


#: Seconds a worker waits for a SQLite write lock: several processes write one file.
SQLITE_TIMEOUT = WORKER_SQLITE_TIMEOUT


def open_comparison_storage(
    storage: str | optuna.storages.BaseStorage | None,
) -> optuna.storages.BaseStorage:
    """The storage of a comparison: any URL of :func:`optuna_psms.storages.open_storage`
    (SQLite with a long lock timeout), a storage object, or ``None`` (in memory).

    Raises:
        ComparisonError: Unknown URL form, missing driver, unreachable server.
    """
    from optuna_psms.storages import hide_password
    from optuna_psms.storages import open_storage

    if storage is None:
        return optuna.storages.InMemoryStorage()
    try:
        opened = open_storage(storage, sqlite_timeout=SQLITE_TIMEOUT)
    except Exception as exc:  # bad URL, unreachable server, missing driver
        shown = hide_password(storage) if isinstance(storage, str) else repr(storage)
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ComparisonError(f"cannot open storage {shown}: {first}") from None
    assert opened is not None
    return opened


def _complete(study: optuna.Study) -> int:
    return len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))


def prepare(
    storage: optuna.storages.BaseStorage,
    name: str,
    samplers: Sequence[str],
    seeds: Sequence[int],
    n_trials: int,
    description: str,
    metric_name: str,
    direction: str,
    resume: bool,
    identity: str | None = None,
    initial: Sequence[Mapping[str, Any]] = (),
    workers_sim: int = 1,
) -> list[tuple[Task, int]]:
    """Create the missing studies and return every task with its COMPLETE trial count.

    ``identity`` (default: ``description``) is what an existing study must have been made
    on (:meth:`ObjectiveSpec.identity`: a CSV file by a digest of its data, not its path);
    a study made before it was stored is matched by ``description``.

    ``initial`` (:meth:`ObjectiveSpec.initial_trials`) is enqueued as the first trials of
    each study created here, with the user attr ``fms:initial`` as ``select`` marks them;
    an existing study (a resumed comparison) gets none, so they are never run twice.

    Raises:
        ComparisonError: Studies of this comparison exist and ``resume`` is false, or an
            existing study was made on another objective.
    """
    tasks = [
        Task(study_name(name, s, k), s, k, n_trials, workers_sim) for s in samplers for k in seeds
    ]
    existing = set(optuna.get_all_study_names(storage))
    present = [t for t in tasks if t.study_name in existing]
    if present and not resume:
        raise ComparisonError(
            f"comparison {name!r} already has {len(present)} of {len(tasks)} studies in this "
            "storage; add --resume to continue it, or choose another --name"
        )
    identity = description if identity is None else identity
    out = []
    for task in tasks:
        if task.study_name in existing:
            study = optuna.load_study(study_name=task.study_name, storage=storage)
            made_on = study.user_attrs.get(ATTR_OBJECTIVE_ID)
            wanted = identity
            if made_on is None:  # made before ATTR_OBJECTIVE_ID was stored
                made_on, wanted = study.user_attrs.get(ATTR_OBJECTIVE), description
            if made_on != wanted:
                raise ComparisonError(
                    f"study {task.study_name!r} was made on {made_on!r}, not on "
                    f"{wanted!r}; {resume_hint(made_on, wanted)}"
                )
            made_with = int(study.user_attrs.get(ATTR_WORKERS_SIM, 1))
            if made_with != workers_sim:
                raise ComparisonError(
                    f"study {task.study_name!r} was run with --workers-sim {made_with}, not "
                    f"{workers_sim}; resume it with the same, or choose another --name"
                )
            if study.direction.name.lower() != direction:
                raise ComparisonError(
                    f"study {task.study_name!r} is to {study.direction.name.lower()}, "
                    f"not {direction}; choose another --name"
                )
        else:
            study = optuna.create_study(
                study_name=task.study_name,
                storage=storage,
                direction=optuna.study.StudyDirection[direction.upper()],
            )
            study.set_user_attr(ATTR_SAMPLER, task.sampler)
            study.set_user_attr(ATTR_SEED, task.seed)
            study.set_user_attr(ATTR_OBJECTIVE, description)
            study.set_user_attr(ATTR_OBJECTIVE_ID, identity)
            study.set_user_attr(ATTR_NAME, name)
            if workers_sim != 1:
                study.set_user_attr(ATTR_WORKERS_SIM, workers_sim)
            with warnings.catch_warnings():  # experimental in Optuna 4 and 5
                warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
                study.set_metric_names([metric_name])
            from optuna_psms.fms._initial import enqueue_pipelines

            enqueue_pipelines(study, initial)
        out.append((task, _complete(study)))
    return out
