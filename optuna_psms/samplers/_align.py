"""A trial the study view has parsed, and its record aligned with the view's space.

:class:`Parsed` is a trial reduced to what :class:`optuna_psms.samplers._view.StudyView` keeps;
:func:`aligned_record` turns it into the algorithm core's
:class:`~optuna_psms.samplers.core.base.Record` in the view's current (sorted) parameter names, the
coordinates the trial lacks filled deterministically (:func:`fill_missing`), so that every
process replays the same records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
import math
from typing import Any

import numpy as np
from optuna.distributions import BaseDistribution

from optuna_psms.samplers import _records
from optuna_psms.samplers import _space
from optuna_psms.samplers.core.base import Record
from optuna_psms.samplers.core.rng import hash_uniform


#: Foreign trials (no record of ours) fill missing coordinates with this seed.
FOREIGN_SEED = 0


@dataclass(slots=True)
class Parsed:
    """A trial reduced to what the view needs (kept to rebuild records)."""

    number: int
    loss: float | None
    params: dict[str, Any]
    distributions: dict[str, BaseDistribution]
    fixed: dict[str, Any]
    rec: _records.Stored | None  # validated; None for a trial without a usable record


def aligned_record(
    parsed: Parsed, names: list[str], pad_vector: Callable[[str, np.ndarray], np.ndarray]
) -> Record:
    """The core's :class:`~optuna_psms.samplers.core.base.Record` of ``parsed`` in the space
    ``names``.

    Coordinates the record (or, for a trial of another sampler, its parameters) lacks are
    filled by :func:`fill_missing`; a vector's missing components by ``pad_vector`` from a
    hash of the seed, the trial and the name.
    """
    rec = parsed.rec
    x = np.empty(len(names))
    if rec is None:
        fill_missing(x, list(range(len(names))), parsed, FOREIGN_SEED, names)
        return Record(parsed.number, -1, -1, x, loss=parsed.loss, ours=False)
    # The record is validated: coordinates in [0, 1], vector components finite.
    stored, seed = rec["x"], rec["s"]
    missing: list[int] = []
    for i, name in enumerate(names):
        coordinate = stored.get(name)
        if coordinate is None:
            missing.append(i)
        else:
            x[i] = coordinate
    fill_missing(x, missing, parsed, seed, names)
    vectors = {}
    for key, values in rec["vec"].items():
        vec = np.array([values.get(n, math.nan) for n in names], dtype=float)
        gaps = np.flatnonzero(np.isnan(vec))
        if gaps.size:
            u = hash_uniform(seed, parsed.number, [f"{key}:{names[i]}" for i in gaps])
            vec[gaps] = pad_vector(key, u)
        vectors[key] = vec
    return Record(
        number=parsed.number,
        member=rec["m"],
        generation=rec["g"],
        x=x,
        vectors=vectors,
        info=dict(rec["info"]),
        loss=parsed.loss,
        ours=True,
    )


def fill_missing(
    x: np.ndarray, missing: list[int], parsed: Parsed, seed: int, names: list[str]
) -> None:
    """Fill missing coordinates: fixed or (for foreign trials) suggested values, else hash."""
    rest: list[int] = []
    source = parsed.fixed if parsed.rec is not None else parsed.params
    for i in missing:
        name = names[i]
        if name in source and name in parsed.distributions:
            try:
                u = _space.encode(source[name], parsed.distributions[name])
            except (ValueError, TypeError, ArithmeticError):  # e.g. a 1-ulp log range
                u = math.nan
            if 0.0 <= u <= 1.0:  # a NaN (from a NaN value) falls back to the hash
                x[i] = u
                continue
        rest.append(i)
    if rest:
        x[rest] = hash_uniform(seed, parsed.number, [names[i] for i in rest])
