"""The study of ``optuna-psms select``: open the storage, create or join the study, check
that a joining worker's settings are the study's, and copy it for the saved model."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
import datetime
import re
from typing import Any
import warnings

from optuna_psms._messages import InputError
from optuna_psms.samplers._registry import DEFAULT


#: Study user attribute holding the settings every worker of the study must share.
SETTINGS_KEY = "psms:cli"


@dataclass(frozen=True)
class StudySettings:
    """The settings of an ``optuna-psms select`` study: what it stores (as JSON, under
    :data:`SETTINGS_KEY`) and every worker joining it must share. One field per option of
    the command that defines the search; ``sampler`` and ``seed`` are ``None`` until the
    study gives them (:func:`join`)."""

    data: str = ""
    task: str = "classification"
    test_size: float = 0.25
    cv: int = 2
    metric: str = "ber"
    subsample: float = 1.0
    classifiers: list[str] | None = None
    selectors: list[str] | None = None
    sampler: str | None = None
    seed: int | None = None

    @property
    def study_seed(self) -> int:
        """The seed of a joined study (:func:`join` has given it)."""
        if self.seed is None:
            raise RuntimeError("the settings have no seed before the study is joined")
        return self.seed

    def stored(self) -> dict[str, Any]:
        """The JSON object the study stores."""
        return dataclasses.asdict(self)

    @classmethod
    def from_stored(cls, value: Any, name: str) -> StudySettings:
        """The settings a study stored (untrusted: read from storage).

        Raises:
            InputError: They are not a JSON object of known fields with values of the
                right kinds.
        """
        unreadable = InputError(
            f"study {name!r} has unreadable settings; choose another --study-name"
        )
        if not isinstance(value, dict):
            raise unreadable
        fields = {f.name for f in dataclasses.fields(cls)}
        known = {k: v for k, v in value.items() if k in fields}
        try:
            settings = cls(**known)
        except TypeError:
            raise unreadable from None
        checks = (
            isinstance(settings.data, str),
            isinstance(settings.task, str),
            isinstance(settings.metric, str),
            isinstance(settings.cv, int) and not isinstance(settings.cv, bool),
            isinstance(settings.test_size, int | float),
            isinstance(settings.subsample, int | float),
            settings.sampler is None or isinstance(settings.sampler, str),
            settings.seed is None
            or (isinstance(settings.seed, int) and not isinstance(settings.seed, bool)),
            settings.classifiers is None or isinstance(settings.classifiers, list),
            settings.selectors is None or isinstance(settings.selectors, list),
        )
        if not all(checks):
            raise unreadable
        return settings


def new_study_name(label: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", label).strip("_") or "data"
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return f"fms-{slug}-{stamp}"


def unused_name(storage: Any, name: str) -> str:
    """``name``, or ``name-2``, ``name-3``, ... if a study of that name is already in ``storage``
    (two runs started within the same second get the same :func:`new_study_name`)."""
    import optuna

    taken = set(optuna.get_all_study_names(storage))
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}-{n}"
    return candidate


def open_storage(url: str) -> Any:
    from optuna_psms.storages import hide_password
    from optuna_psms.storages import MissingDriverError
    from optuna_psms.storages import open_storage
    from optuna_psms.storages import StorageURLError
    from optuna_psms.storages import WORKER_SQLITE_TIMEOUT

    try:
        with warnings.catch_warnings():  # Optuna's "experimental" notes of grpc:// and redis://
            warnings.filterwarnings("ignore", message=r".* is experimental")
            return open_storage(url, sqlite_timeout=WORKER_SQLITE_TIMEOUT)
    except (StorageURLError, MissingDriverError) as exc:
        raise InputError(str(exc)) from None
    except Exception as exc:  # connection refused, bad credentials, unreadable file
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(
            f"cannot open storage {hide_password(url)}: {type(exc).__name__}: {first}"
        ) from None


_EXPLAIN = {
    "data": "its data differ (another file, rows, columns or labels)",
    "task": "it is a {old} (--task {old})",
    "test_size": "it holds out another fraction (--test-size {old})",
    "cv": "it uses --cv {old}",
    "metric": "it minimises --metric {old}",
    "subsample": "it uses --subsample {old}",
    "classifiers": "it searches --classifiers {old}",
    "selectors": "it searches --selectors {old}",
    "sampler": "it runs --sampler {old}",
    "seed": "it runs --seed {old}",
}


def name_seed(name: str) -> int:
    """The default seed of a study: a digest of its name, the same in every worker."""
    import hashlib

    return int(hashlib.sha256(name.encode()).hexdigest()[:8], 16) % 2**31


def join(storage: Any, name: str, settings: StudySettings) -> StudySettings:
    """Create the study or join it; return the settings every worker uses.

    ``settings`` holds ``None`` for the sampler and seed when the command line did not set
    them: a new study gets ``pso`` and :func:`name_seed`, a joining worker takes the study's.
    Every default is a function of the command line, so workers starting at once write the
    same settings.
    """
    import optuna

    proposed = dataclasses.replace(
        settings,
        sampler=settings.sampler or DEFAULT,
        seed=name_seed(name) if settings.seed is None else settings.seed,
    )
    study = optuna.create_study(
        storage=storage, study_name=name, direction="minimize", load_if_exists=True
    )
    stored = study.user_attrs.get(SETTINGS_KEY)
    if stored is None:
        if study.get_trials(deepcopy=False):
            raise InputError(
                f"study {name!r} exists but was not created by 'optuna-psms select'; "
                f"choose another --study-name"
            )
        study.set_user_attr(SETTINGS_KEY, proposed.stored())
        stored = optuna.load_study(study_name=name, storage=storage).user_attrs[SETTINGS_KEY]
    # Studies made before --task existed have no task: a classification (the default).
    joined = StudySettings.from_stored(stored, name)
    wanted = dataclasses.replace(
        settings,
        sampler=joined.sampler if settings.sampler is None else settings.sampler,
        seed=joined.seed if settings.seed is None else settings.seed,
    )
    for key, why in _EXPLAIN.items():
        if getattr(joined, key) != getattr(wanted, key):
            old = getattr(joined, key)
            shown = ",".join(old) if isinstance(old, list) else old
            raise InputError(
                f"cannot join study {name!r}: {why.format(old=shown)}; "
                f"run the same settings or choose another --study-name"
            )
    return joined


def search_copy(storage: Any, name: str) -> Any:
    """An in-memory copy of the study: what the saved model keeps as ``study_``.

    Optuna's "A new study created in memory" line is kept out: the user's study is the one
    in ``storage``, and a Python caller of ``select_model`` read that line as if the search
    had not used it.
    """
    import optuna

    verbosity = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(max(verbosity, optuna.logging.WARNING))
    try:
        memory = optuna.storages.InMemoryStorage()
        optuna.copy_study(from_study_name=name, from_storage=storage, to_storage=memory)
        return optuna.load_study(study_name=name, storage=memory)
    finally:
        optuna.logging.set_verbosity(verbosity)


def continued_note(states: list[Any]) -> str:
    """What the first line says of a study that has trials already (``states``, theirs):
    ``continued`` (a resumed study), or ``joined`` when some are running or waiting
    (enqueued, such as the initial pipelines of a worker started a moment earlier), ``while
    another worker runs`` when some are running (as the report after the search, which takes
    running trials for other workers'); nothing for a new study."""
    import optuna

    if not states:
        return ""
    state = optuna.trial.TrialState
    done = states.count(state.COMPLETE)
    so_far = f"{len(states)} trial{'s' if len(states) != 1 else ''} so far"
    active = [
        f"{states.count(s)} {word}"
        for s, word in ((state.RUNNING, "running"), (state.WAITING, "waiting"))
        if states.count(s)
    ]
    if not active:
        return f", continued ({so_far}, {done} complete)"
    runs = " while another worker runs" if states.count(state.RUNNING) else ""
    return f", joined{runs} ({so_far}: {done} complete, {', '.join(active)})"
