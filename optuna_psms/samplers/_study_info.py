"""What a population sampler writes about itself once per study, for optuna-dashboard.

On its first ask in a study (per process), every :class:`~optuna_psms.PopulationSampler`
writes three study user attrs:

``psms:sampler``
    The sampler's class name, e.g. ``"PSOSampler"``.
``psms:settings``
    Its constructor settings (JSON values), e.g. ``{"swarm_size": 5, "c1": 2.0, ...}``.
``psms:seed``
    The seed its draws derive from (the adopted or drawn one when ``seed=None``), so
    ``PSOSampler(seed=psms:seed, **psms:settings)`` reproduces the study
    (:func:`optuna_psms.load_study` does that).

A sampler given a study that these attrs say was made by another sampler class, other
settings or (if the sampler was given a seed) another seed warns once (per sampler, study
and process) with a :class:`UserWarning`, then writes its own: the attrs describe the
latest sampler.

and, when optuna-dashboard is importable, a study note (Markdown) explaining what the
sampler does and how to read its per-trial ``psms:*`` attrs. A note the user wrote
(one that does not start with :data:`NOTE_HEADING`) is never overwritten. This module
needs only Optuna; optuna-dashboard is imported lazily and optional.
"""

from __future__ import annotations

import inspect
import threading
from typing import Any
import warnings
import weakref

import optuna
from optuna.samplers import BaseSampler
from optuna.study import Study

from optuna_psms import _compat
from optuna_psms._compat import _dashboard


_logger = optuna.logging.get_logger(__name__)

SAMPLER_KEY = "psms:sampler"
SETTINGS_KEY = "psms:settings"
SEED_KEY = "psms:seed"
#: The layout of the three attrs above: absent means :data:`FORMAT` 1 (every version so
#: far). A later optuna-psms that changes their meaning writes a higher one, and
#: :func:`optuna_psms.load_study` of an older version then refuses the study.
FORMAT_KEY = "psms:format"
FORMAT = 1
#: Settings that do not change what a sampler proposes (no warning when they differ).
_COSMETIC = frozenset({"record_user_attrs"})
#: Every note this package writes starts with this; other notes are the user's.
NOTE_HEADING = "## optuna-psms:"

_COMMON = (
    "Each trial's full sampler state is a JSON record in its system attrs (`psms:rec`). "
    "Through Optuna's gRPC storage proxy the per-trial `psms:*` user attrs above are not "
    "written unless the sampler has `record_user_attrs=True` (each costs a call there). "
    "A restarted run sets `psms:run` on its trials; the trial that detected convergence "
    "carries `psms:converged_run`, `psms:run_trials` and `psms:pfc` (share of the run's "
    "nominal budget used). The study user attrs `psms:sampler`, `psms:settings` and "
    "`psms:seed` reproduce the sampler. `optuna_psms.visualization.publish(study)` adds the "
    "population and generation plots (and, for full model selection, the choices and "
    "loss-by-method plots) to this dashboard. In a full-model-selection study the "
    "dashboard's Hyperparameter Importance counts every `fs:mask:*` bit of the feature mask; "
    "read the published *Importance of the pipeline choices* instead (the mask summarised "
    "as the number of features kept)."
)


_Done = weakref.WeakKeyDictionary[Any, set[int]]  # storage -> study ids
# sampler -> storage -> studies already written by this process (weak: no id reuse).
_written: weakref.WeakKeyDictionary[BaseSampler, _Done] = weakref.WeakKeyDictionary()
_named: _Done = weakref.WeakKeyDictionary()
_study_attrs: dict[str, _Done] = {}  # study user attr key -> studies it was written to
_strong: dict[tuple[int, int], tuple[Any, set[int]]] = {}
_lock = threading.Lock()

#: The loss each built-in metric of :mod:`optuna_psms.fms.metrics` minimises, as shown.
#: The regression losses were missing: a regression's objective was "CV -rmse", a negated
#: RMSE over positive values (the dashboard's axes; usertrial7, 26 Nov 2026).
METRIC_LABELS = {
    "ber": "BER",
    "error": "error rate",
    "auc": "1 - AUC",
    "pi_svm": "1 - PI_SVM",
    "rmse": "RMSE",
    "mae": "MAE",
    "mse": "MSE",
    "r2": "1 - R^2",
}


def metric_label(metric: str) -> str:
    """The objective's name in a full-model study: the CV loss of ``metric`` on the data the
    search saw, e.g. ``"CV BER"`` (a scikit-learn scorer ``s`` is minimised as ``-s``).

    The dashboard shows it beside the best value, which is that CV value (optimistic), not a
    held-out one (``optuna-psms select`` stores that in the study attr ``fms:held_out``).
    """
    return "CV " + METRIC_LABELS.get(metric, f"-{metric}")


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    return repr(value)


def sampler_settings(sampler: BaseSampler) -> dict[str, Any]:
    """The constructor arguments of ``sampler`` except ``seed``, as JSON values.

    Read from the attributes the sampler keeps (``_params[name]`` or ``_<name>``); an
    argument the sampler does not keep under either name is left out.
    """
    params = getattr(sampler, "_params", None)
    settings: dict[str, Any] = {}
    for name in inspect.signature(type(sampler).__init__).parameters:
        if name in ("self", "seed", "args", "kwargs"):
            continue
        if isinstance(params, dict) and name in params:
            settings[name] = _jsonable(params[name])
        elif hasattr(sampler, "_" + name):
            settings[name] = _jsonable(getattr(sampler, "_" + name))
    return settings


def note_text(sampler: BaseSampler, seed: int) -> str:
    """The study note of ``sampler`` (Markdown)."""
    identity = getattr(sampler, "identity", None)
    what = identity.description if identity is not None else "A population sampler."
    settings = ", ".join(f"{k}={v!r}" for k, v in sampler_settings(sampler).items())
    return (
        f"{NOTE_HEADING} {type(sampler).__name__}\n\n{what}\n\n"
        f"Settings: `{settings}`, seed `{seed}`.\n\n{_COMMON}\n"
    )


def write_once(study: Study, sampler: BaseSampler, seed: int) -> None:
    """Write the sampler's study attrs and note, once per study and process.

    Never raises: a failure is logged and the study goes on.
    """
    # Calls after the first cost a dict lookup (the adapter calls this on every ask).
    try:
        if _seen_before(_written.setdefault(sampler, weakref.WeakKeyDictionary()), study):
            return
        wanted = {
            SAMPLER_KEY: type(sampler).__name__,
            SETTINGS_KEY: sampler_settings(sampler),
            SEED_KEY: int(seed),
        }
        current = study.user_attrs
        if all(current.get(name) == value for name, value in wanted.items()):
            # Another worker (or an earlier process) wrote these, then the note: importing
            # optuna-dashboard (which imports scikit-learn and SciPy, seconds on a loaded
            # machine) in every worker's first ask would only find the note in place.
            return
        # An unseeded sampler adopts the study's seed (or, before any record, draws one):
        # only a seed the user gave can differ from the study's.
        _warn_if_other(current, wanted, seeded=getattr(sampler, "_seed", 0) is not None)
        _compat.set_study_user_attrs(
            study, {name: value for name, value in wanted.items() if current.get(name) != value}
        )
        _save_note(study, note_text(sampler, seed))
    except Exception:  # the dashboard's extras must never break a study
        _logger.exception("Could not write the sampler's study attrs or note.")


def _warn_if_other(current: dict[str, Any], wanted: dict[str, Any], seeded: bool) -> None:
    """Warn when the study's attrs describe another sampler, settings or seed."""
    if SAMPLER_KEY not in current:
        return  # a new study (or one made by another package's sampler)
    old_settings = current.get(SETTINGS_KEY)
    if not isinstance(old_settings, dict):
        old_settings = {}
    new_settings = wanted[SETTINGS_KEY]
    differs = [
        f"{k}={old_settings.get(k)!r:.40} -> {new_settings.get(k)!r:.40}"
        for k in sorted(set(old_settings) | set(new_settings))
        if k not in _COSMETIC and old_settings.get(k) != new_settings.get(k)
    ]
    if current.get(SAMPLER_KEY) != wanted[SAMPLER_KEY]:
        differs.insert(0, f"sampler {current.get(SAMPLER_KEY)!r:.40} -> {wanted[SAMPLER_KEY]!r}")
        del differs[4:]
    if seeded and current.get(SEED_KEY) != wanted[SEED_KEY]:
        differs.append(f"seed {current.get(SEED_KEY)!r:.40} -> {wanted[SEED_KEY]!r}")
    if differs:
        warnings.warn(
            f"{wanted[SAMPLER_KEY]} is given a study made by another sampler or settings "
            f"({'; '.join(differs)}) and goes on with its own; "
            "optuna_psms.load_study(study_name=..., storage=...) restores the study's sampler.",
            UserWarning,
            stacklevel=2,
        )


def _users_own(note: str) -> bool:
    """Whether a study's note was written by its user (not empty, not one of ours)."""
    return bool(note.strip()) and not note.startswith(NOTE_HEADING)


def _save_note(study: Study, body: str) -> None:
    notes = _dashboard.note_functions()
    if notes is None:
        return
    existing = notes.get_note(study)
    if existing == body or _users_own(existing):
        return  # unchanged, or the user's own note
    notes.save_note(study, body)


#: Heading of the held-out paragraph ``optuna-psms select`` adds to a study's note.
HELD_OUT_HEADING = "### Held-out estimate"

#: Heading of the paragraph ``optuna-psms select`` adds to a study's note when it saves a
#: model: what the file predicts with (it need not be the *Best Trial*'s pipeline) and why.
SAVED_MODEL_HEADING = "### Saved model"


#: Heading of the paragraph ``optuna-psms compare`` adds to a full-model-selection study's
#: note: its values are CV scores on all rows, with no held-out estimate anywhere.
COMPARISON_HEADING = "### In a comparison"


def _note_section(study: Study, heading: str, text: str, title: str = "full model") -> None:
    """Put ``text`` under ``heading`` in the study's note, replacing that section and any
    after it (they were written after it by the run that wrote it, so they are stale too);
    a study without a note of ours gets ``## optuna-psms: <title>`` above it.

    A note the user wrote is left alone. Never raises: a failure is logged.
    """
    try:
        notes = _dashboard.note_functions()
        if notes is None:
            return
        existing = notes.get_note(study)
        if _users_own(existing):
            return
        head = existing.split(heading, 1)[0].rstrip() or f"{NOTE_HEADING} {title}"
        notes.save_note(study, f"{head}\n\n{heading}\n\n{text}\n")
    except Exception:  # the dashboard's extras must never break a study
        _logger.exception("Could not add %r to the study's note.", heading)


def note_held_out(study: Study, text: str) -> None:
    """Add ``text`` under :data:`HELD_OUT_HEADING` to the study's note (replacing an earlier
    one, and the :data:`SAVED_MODEL_HEADING` section after it), so the dashboard shows the
    honest number beside its optimistic *Best Trial*.

    A note the user wrote is left alone. Never raises: a failure is logged.
    """
    _note_section(study, HELD_OUT_HEADING, text)


def note_saved_model(study: Study, text: str) -> None:
    """Add ``text`` under :data:`SAVED_MODEL_HEADING` to the study's note (replacing an
    earlier one), so the dashboard says what the saved model is: a vote or the final
    check's SVC is not the pipeline of its *Best Trial*.

    A note the user wrote is left alone. Never raises: a failure is logged.
    """
    _note_section(study, SAVED_MODEL_HEADING, text)


def note_comparison(study: Study, text: str) -> None:
    """Add ``text`` under :data:`COMPARISON_HEADING` to the study's note (replacing an
    earlier one), so the dashboard says what the *Best Trial* value of a comparison's study
    is: the note of a ``select`` study has a held-out estimate beside it, this one has none.

    A note the user wrote is left alone. Never raises: a failure is logged.
    """
    _note_section(study, COMPARISON_HEADING, text, title="compare")


def _seen_before(done: _Done, study: Study) -> bool:
    """Whether ``study`` is in ``done`` already; adds it. (True means: skip.)"""
    storage, study_id = _compat.storage_of(study)
    with _lock:
        try:
            ids = done.setdefault(storage, set())
        except TypeError:  # a storage that cannot be weakly referenced: keep it alive
            ids = _strong.setdefault((id(done), id(storage)), (storage, set()))[1]
        if study_id in ids:
            return True
        ids.add(study_id)
        return False


def name_metric(trial: Any, metric: str) -> None:
    """Name the objective of ``trial``'s study after ``metric`` (:func:`metric_label`, e.g.
    ``"CV BER"``), once.

    optuna-dashboard then labels its plots with it instead of "Objective 0". A trial without
    a study (``FixedTrial``) is ignored; a failure is logged, never raised.
    """
    study = getattr(trial, "study", None)
    if not isinstance(study, Study):
        return
    try:
        if _seen_before(_named, study):
            return
        label = metric_label(metric)
        with warnings.catch_warnings():  # set_metric_names is "experimental" in Optuna
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            if study.metric_names != [label]:
                study.set_metric_names([label])
    except Exception:
        _logger.exception("Could not name the study's objective.")


def study_attr_once(trial: Any, key: str, value: Any) -> None:
    """Set the user attr ``key`` of ``trial``'s study to ``value``, once per study and process.

    For a fact that is the same for every trial of a study (the rule of the joint feature
    mask): the dashboard shows it once, under *Study User Attributes*, instead of as one more
    line of every trial's user attrs (the trial page shows about six). Other workers may
    write the same value; an unchanged value is not written again. A trial without a study
    (``FixedTrial``) is ignored; a failure is logged, never raised.
    """
    study = getattr(trial, "study", None)
    if not isinstance(study, Study):
        return
    try:
        with _lock:
            done = _study_attrs.setdefault(key, weakref.WeakKeyDictionary())
        if _seen_before(done, study):
            return
        if study.user_attrs.get(key) != value:
            study.set_user_attr(key, value)
    except Exception:
        _logger.exception("Could not write the study attr %s.", key)
