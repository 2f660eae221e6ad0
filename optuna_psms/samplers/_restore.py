"""The sampler of a study, rebuilt from what it wrote about itself.

Every :class:`~optuna_psms.PopulationSampler` writes the study user attrs ``psms:sampler``
(its class name), ``psms:settings`` (its constructor settings) and ``psms:seed``
(:mod:`optuna_psms.samplers._study_info`) on its first ask. :func:`load_study` reads them
back, so that a study continued in a fresh process gets the sampler it was made with,
where ``optuna.load_study`` without ``sampler=`` gives ``TPESampler``.

The attrs are untrusted input: only this package's sampler classes are built, only from
keyword arguments their constructors declare, and the constructor validates the values.
"""

from __future__ import annotations

from collections.abc import Mapping
import importlib
import inspect
from typing import Any

import optuna
from optuna.samplers import BaseSampler
from optuna.storages import BaseStorage
from optuna.study import Study

from optuna_psms.samplers import _study_info
from optuna_psms.samplers._registry import OURS


#: The classes :func:`load_study` may build (this package's, from the registry), by the name
#: ``psms:sampler`` holds -> their module.
CLASSES: dict[str, str] = {
    entry.target.partition(":")[2]: entry.target.partition(":")[0] for entry in OURS.values()
}


class SamplerAttrsError(ValueError):
    """A study's ``psms:*`` attrs do not describe a sampler this package can rebuild."""


def sampler_from_attrs(
    user_attrs: Mapping[str, Any], study_name: str | None = None
) -> BaseSampler:
    """The sampler described by a study's user attrs ``psms:sampler/settings/seed``.

    Args:
        user_attrs: The study's user attrs.
        study_name: Named in the error message.

    Raises:
        SamplerAttrsError: (a :class:`ValueError`) the attrs are missing, malformed, name a
            class or setting this package does not have, or were written by a newer
            optuna-psms (``psms:format`` above :data:`~optuna_psms.samplers._study_info.FORMAT`).
    """
    where = "the study" if study_name is None else f"study {study_name!r}"
    name = user_attrs.get(_study_info.SAMPLER_KEY)
    if name is None:
        raise SamplerAttrsError(
            f"{where} was not made by an optuna-psms sampler (it has no "
            f"{_study_info.SAMPLER_KEY!r} attr); pass sampler= to optuna.load_study instead."
        )
    fmt = user_attrs.get(_study_info.FORMAT_KEY, 1)
    if type(fmt) is not int or fmt < 1:
        raise SamplerAttrsError(
            f"{where} has a malformed {_study_info.FORMAT_KEY!r}: {fmt!r:.80}."
        )
    if fmt > _study_info.FORMAT:
        raise SamplerAttrsError(
            f"{where} was written by a newer optuna-psms (sampler attrs format {fmt}, this "
            f"version reads {_study_info.FORMAT}); upgrade optuna-psms to continue it."
        )
    if not isinstance(name, str) or name not in CLASSES:
        raise SamplerAttrsError(
            f"{where} names an unknown sampler {name!r:.80} in {_study_info.SAMPLER_KEY!r}; "
            f"this optuna-psms has {', '.join(CLASSES)}."
        )
    cls = getattr(importlib.import_module(CLASSES[name]), name)
    settings = user_attrs.get(_study_info.SETTINGS_KEY)
    if not isinstance(settings, dict):
        raise SamplerAttrsError(
            f"{where} has malformed {_study_info.SETTINGS_KEY!r} (a JSON object is expected)."
        )
    accepted = set(inspect.signature(cls.__init__).parameters) - {"self", "seed"}
    unknown = sorted(str(k) for k in settings if k not in accepted)
    if unknown:
        raise SamplerAttrsError(
            f"{where}: {name} has no setting {unknown[0]!r:.80} (written by a newer optuna-psms?)."
        )
    seed = user_attrs.get(_study_info.SEED_KEY)
    if type(seed) is not int or seed < 0:
        raise SamplerAttrsError(
            f"{where} has a malformed {_study_info.SEED_KEY!r}: {seed!r:.80} (a non-negative "
            "integer is expected)."
        )
    kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in settings.items()}
    try:
        sampler: BaseSampler = cls(seed=seed, **kwargs)
    except (TypeError, ValueError) as exc:
        raise SamplerAttrsError(f"{where}: its {name} settings are invalid: {exc}") from None
    return sampler


def load_study(
    *,
    study_name: str | None,
    storage: str | BaseStorage,
    pruner: optuna.pruners.BasePruner | None = None,
) -> Study:
    """Load a study with the optuna-psms sampler it was made with.

    Like :func:`optuna.load_study`, but the sampler is rebuilt from the study's user attrs
    ``psms:sampler``, ``psms:settings`` and ``psms:seed``, which every optuna-psms sampler
    writes on its first ask: same class, same settings, same seed. A study continued this
    way in a fresh process proposes exactly the trials an uninterrupted run would have.

    Example:

        .. testcode::

            import optuna
            import optuna_psms

            storage = optuna.storages.InMemoryStorage()
            study = optuna.create_study(
                study_name="s", storage=storage, sampler=optuna_psms.PSOSampler(seed=1)
            )
            study.optimize(lambda t: t.suggest_float("x", -1, 1) ** 2, n_trials=3)

            again = optuna_psms.load_study(study_name="s", storage=storage)
            assert isinstance(again.sampler, optuna_psms.PSOSampler)

    Args:
        study_name: The study's name (``None`` if the storage holds a single study).
        storage: A storage object, or a URL as :func:`optuna_psms.storages.open_storage`
            reads it: a ``sqlite:///`` URL opens a storage whose threads never take one
            enqueued trial twice (Optuna's own SQLite storage lets two threads of
            ``optimize(n_jobs=...)`` both take it, and ``optimize`` then raises
            ``UpdateFinishedTrialError``).
        pruner: As for :func:`optuna.load_study` (pruners keep no state in the study).

    Returns:
        The study, its ``sampler`` the rebuilt optuna-psms sampler.

    Raises:
        KeyError: No study of that name (as :func:`optuna.load_study`).
        ValueError: The study was not made by an optuna-psms sampler (a study that no
            optuna-psms sampler has asked a trial for has no such attrs: pass ``sampler=``
            to :func:`optuna.load_study`), or its attrs are malformed or written by a newer
            optuna-psms. The message is one line.
    """
    if isinstance(storage, str):
        from optuna_psms.storages import open_storage  # standard library only

        storage = open_storage(storage)
    placeholder = optuna.samplers.RandomSampler()  # replaced below; building TPE costs more
    study = optuna.load_study(
        study_name=study_name, storage=storage, sampler=placeholder, pruner=pruner
    )
    study.sampler = sampler_from_attrs(study.user_attrs, study.study_name)
    return study


def restored_sampler(storage: str | BaseStorage, study_name: str | None) -> BaseSampler | None:
    """The optuna-psms sampler an existing study was made with, ``None`` when the study does
    not exist or carries no ``psms:sampler`` attr (for continuation paths that otherwise
    make a new sampler).

    Raises:
        ValueError: The attrs exist but are malformed or written by a newer optuna-psms.
    """
    if study_name is None:
        return None
    if not isinstance(storage, BaseStorage):
        storage = optuna.storages.get_storage(storage)
    try:
        study_id = storage.get_study_id_from_name(study_name)
    except KeyError:
        return None
    attrs = storage.get_study_user_attrs(study_id)
    if _study_info.SAMPLER_KEY not in attrs:
        return None
    return sampler_from_attrs(attrs, study_name)
