"""Deterministic randomness: every draw derives from ``(seed, trial number)``.

Two helpers are provided:

* :func:`trial_rng` gives a :class:`numpy.random.Generator` for one trial and one stream;
* :func:`hash_uniform` gives counter-based uniforms keyed by ``(seed, trial number, name)``.
  It is used wherever a coordinate must be the same no matter when or in which process it
  is computed (a parameter that first appears mid-study, a coordinate a trial never stored).
"""

from __future__ import annotations

from collections.abc import Sequence
import hashlib

import numpy as np


_MASK64 = (1 << 64) - 1
_name_hash_cache: dict[str, int] = {}


def trial_rng(seed: int, number: int, stream: int = 0) -> np.random.Generator:
    """Return the generator for ``stream`` of trial ``number`` under ``seed``."""
    return np.random.default_rng([int(seed), int(number), int(stream)])


def _name_hash(name: str) -> int:
    h = _name_hash_cache.get(name)
    if h is None:
        h = int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "little")
        _name_hash_cache[name] = h
    return h


def _splitmix64(z: np.ndarray) -> np.ndarray:
    z = z + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    out: np.ndarray = z ^ (z >> np.uint64(31))
    return out


def hash_uniform(seed: int, number: int, names: Sequence[str]) -> np.ndarray:
    """Uniform draws in ``[0, 1)``, one per name, fixed by ``(seed, number, name)``.

    Args:
        seed: Non-negative integer seed.
        number: Trial number.
        names: Parameter names.

    Returns:
        A float array with one value per name.
    """
    if len(names) == 0:
        return np.empty(0)
    key = ((int(seed) & 0xFFFFFFFF) << 32 | (int(number) & 0xFFFFFFFF)) & _MASK64
    with np.errstate(over="ignore"):
        k = _splitmix64(np.array([key], dtype=np.uint64))
        h = np.fromiter((_name_hash(n) for n in names), dtype=np.uint64, count=len(names))
        z = _splitmix64(h ^ k)
    return (z >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))
