"""Deterministic randomness: every draw derives from ``(seed, trial number)``.

Two helpers are provided:

* :func:`trial_rng` gives a :class:`numpy.random.Generator` for one trial and one stream
  (:class:`TrialRng` gives the same streams from one reused generator, which is much
  cheaper than building a generator per trial);
* :func:`hash_uniform` gives counter-based uniforms keyed by ``(seed, trial number, name)``.
  It is used wherever a coordinate must be the same no matter when or in which process it
  is computed (a parameter that first appears mid-study, a coordinate a trial never stored).

The generator of ``(seed, number, stream)`` is NumPy's PCG64 with its 128-bit state and
increment taken from SplitMix64 hashes of the three integers. NumPy guarantees that a
given PCG64 state always produces the same stream, so runs reproduce across NumPy versions.
"""

from __future__ import annotations

from collections.abc import Sequence
import hashlib

import numpy as np


_MASK64 = (1 << 64) - 1
_name_hash_cache: dict[str, int] = {}


def _mix64(z: int) -> int:
    """SplitMix64's finaliser of ``z + golden ratio`` (a bijection of 64-bit integers)."""
    z = (z + 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def _pcg64_state(seed: int, number: int, stream: int) -> dict[str, object]:
    a = _mix64(_mix64(_mix64(int(seed) & _MASK64) ^ (int(number) & _MASK64)) ^ int(stream))
    b = _mix64(a)
    c = _mix64(b)
    d = _mix64(c)
    return {
        "bit_generator": "PCG64",
        "state": {"state": (a << 64) | b, "inc": (c << 64) | d | 1},
        "has_uint32": 0,
        "uinteger": 0,
    }


class TrialRng:
    """One reusable generator that :meth:`at` re-keys to ``(seed, number, stream)``.

    Re-keying costs a few microseconds where building a generator costs tens. The generator
    returned by :meth:`at` is only valid until the next call, so an instance must not be
    shared between threads without a lock (the adapter holds one per sampler and uses it
    under the sampler's lock).

    Example:

        .. testcode::

            from optuna_psms.samplers.core.rng import TrialRng
            from optuna_psms.samplers.core.rng import trial_rng

            rngs = TrialRng()
            a = rngs.at(7, 3).random(2)
            assert (a == trial_rng(7, 3).random(2)).all()
    """

    def __init__(self) -> None:
        self._generator = np.random.Generator(np.random.PCG64(0))

    def at(self, seed: int, number: int, stream: int = 0) -> np.random.Generator:
        """The generator of ``stream`` of trial ``number`` under ``seed``."""
        self._generator.bit_generator.state = _pcg64_state(seed, number, stream)
        return self._generator


def trial_rng(seed: int, number: int, stream: int = 0) -> np.random.Generator:
    """Return a new generator for ``stream`` of trial ``number`` under ``seed``."""
    return TrialRng().at(seed, number, stream)


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


#: Below this many names :func:`hash_uniform` computes in Python integers (same values).
_SMALL = 16


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
    if len(names) < _SMALL:
        k = _mix64(key)
        scale = 1.0 / (1 << 53)
        return np.array([(_mix64(_name_hash(n) ^ k) >> 11) * scale for n in names])
    with np.errstate(over="ignore"):
        k_arr = _splitmix64(np.array([key], dtype=np.uint64))
        h = np.fromiter((_name_hash(n) for n in names), dtype=np.uint64, count=len(names))
        z = _splitmix64(h ^ k_arr)
    return (z >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))
