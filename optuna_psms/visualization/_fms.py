"""What the full-model-selection plots read from a study: its trials and their choices.

They read the parameter names of :mod:`optuna_psms.fms.space` (``clf:method``,
``fs:method``, ``pre:<name>``), so they work for a study made by any sampler, TPE included.
The plots themselves: :mod:`._fms_choices` (methods chosen over the trials),
:mod:`._fms_loss` (the objective by method), :mod:`._fms_importance` (importances of the
choices).
"""

from __future__ import annotations

import re
from typing import Any

from optuna.distributions import BaseDistribution
from optuna.distributions import CategoricalDistribution
from optuna.distributions import IntDistribution
from optuna.study import Study
from optuna.trial import FrozenTrial

from optuna_psms.visualization._data import completed
from optuna_psms.visualization._data import sampler_name


CLASSIFIER = "clf:method"
SELECTOR = "fs:method"
_TOP_LEVEL = re.compile(r"^(clf:method|fs:method|pre:[^:]+|post:[^:]+)$")
#: The summary that stands in for the (possibly 10,000) ``fs:mask:*`` parameters.
FEATURES_KEPT = "features kept"


def _fms_trials(study: Study, plot: str) -> list[FrozenTrial]:
    trials = [t for t in study.get_trials(deepcopy=False) if CLASSIFIER in t.params]
    if not trials:
        raise ValueError(
            f"{plot} needs a full-model-selection study (trials with a {CLASSIFIER!r} "
            f"parameter); study {study.study_name!r} has none (sampler: {sampler_name(study)})."
        )
    return trials


def _preprocessors(trials: list[FrozenTrial]) -> list[str]:
    names = {
        n
        for t in trials
        for n in t.params
        if n.startswith("pre:") and n.count(":") == 1 and n != "pre:before_fs"
    }
    return sorted(names)


def choice_table(
    study: Study,
) -> tuple[dict[str, BaseDistribution], list[tuple[dict[str, Any], float]]]:
    """Completed trials reduced to their top-level choices plus :data:`FEATURES_KEPT`.

    Keeps the parameters every completed trial has (``clf:method``, ``fs:method``,
    ``pre:<name>``, ``post:<name>``); the per-feature mask bits and the hyperparameters of
    one method are left out, and the number of features reaching the classifier (the
    ``fms:n_features`` user attr) stands for the mask.
    """
    done = [t for t in completed(study) if CLASSIFIER in t.params]
    if not done:
        return {}, []
    shared = set.intersection(*(set(t.params) for t in done))
    names = sorted(n for n in shared if _TOP_LEVEL.match(n))
    dists: dict[str, BaseDistribution] = {}
    for name in names:
        dist = done[-1].distributions[name]
        if isinstance(dist, CategoricalDistribution):
            seen = {t.params[name] for t in done}
            if not all(c in dist.choices for c in seen):
                continue  # the choices changed during the study: leave it out
        dists[name] = dist
    kept = [t.user_attrs.get("fms:n_features") for t in done]
    if all(isinstance(k, int) and not isinstance(k, bool) for k in kept):
        counts = [int(k) for k in kept if isinstance(k, int)]
        if min(counts) < max(counts):
            dists[FEATURES_KEPT] = IntDistribution(min(counts), max(counts))
    rows = []
    for t, k in zip(done, kept):
        params = {n: t.params[n] for n in dists if n != FEATURES_KEPT}
        if FEATURES_KEPT in dists:
            params[FEATURES_KEPT] = k
        rows.append((params, float(t.values[0])))
    return dists, rows
