"""Encoding of Optuna distributions into the unit interval and back.

Every parameter is one coordinate ``u`` in ``[0, 1]``:

* float: linear in ``[low, high]``; ``log=True``: linear in ``[log low, log high]``;
* float with ``step`` and int (with or without ``step``): the ``K`` grid values split
  ``[0, 1]`` into ``K`` equal cells, ``u`` decodes to the value of its cell;
* int with ``log=True``: linear in ``[log(low - 0.5), log(high + 0.5)]``, rounded;
* categorical with ``K`` choices: cell ``floor(u * K)`` (the PSMS representation of a
  choice as a continuous dimension).

Decoding always returns a value inside the distribution, as a Python ``float``/``int`` or
the categorical choice itself. Encoding a discrete value returns the centre of its cell.
"""

from __future__ import annotations

import math
from typing import Any
from typing import cast
import warnings

from optuna.distributions import BaseDistribution
from optuna.distributions import CategoricalDistribution
from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution

from optuna_psms.samplers.core.base import Dim


#: Distribution class -> ``"categorical"``, ``"int"``, ``"float"`` or ``""`` (unsupported).
_KINDS: dict[type, str] = {}


def _kind(dist: BaseDistribution) -> str:
    """What ``dist`` is, by its class (cached: Optuna's distributions are abstract-base
    classes, whose ``isinstance`` costs a Python call; :func:`decode` runs per parameter)."""
    kind = _KINDS.get(type(dist))
    if kind is None:
        if isinstance(dist, CategoricalDistribution):
            kind = "categorical"
        elif isinstance(dist, IntDistribution):
            kind = "int"
        elif isinstance(dist, FloatDistribution):
            kind = "float"
        else:
            kind = ""
        _KINDS[type(dist)] = kind
    return kind


def n_cells(dist: BaseDistribution) -> int | None:
    """Number of distinct values of a discrete distribution, ``None`` for a continuous one."""
    kind = _kind(dist)
    if kind == "categorical":
        return len(cast(CategoricalDistribution, dist).choices)
    if kind == "int":
        d = cast(IntDistribution, dist)
        return None if d.log else (d.high - d.low) // d.step + 1
    if kind == "float":
        f = cast(FloatDistribution, dist)
        return None if f.step is None else int(round((f.high - f.low) / f.step)) + 1
    return None


def _cell(u: float, k: int) -> int:
    return min(max(int(math.floor(u * k)), 0), k - 1)


#: Cells either side and floats either side of a grid value tried by :func:`_grid_value`.
_NEAR_CELLS = 64
_NEAR_FLOATS = 4
_WARNED: set[str] = set()


def _on_grid(v: float, dist: FloatDistribution) -> bool:
    """Optuna's own test of a stepped float value (``FloatDistribution`` membership)."""
    assert dist.step is not None
    k = (v - dist.low) / dist.step
    return dist.low <= v <= dist.high and abs(k - round(k)) < 1.0e-8


def _grid_value(cell: int, k: int, dist: FloatDistribution) -> float:
    """The value of ``cell`` of a float distribution with a step, as Optuna accepts it.

    Optuna accepts ``v`` when ``(v - low) / step`` is within ``1e-8`` of an integer. With a
    tiny step (``1e-9`` on ``[0, 1]``) the float nearest ``low + cell * step`` often is not,
    and no float is for some cells; the value then comes from a float a few units away, or
    from the nearest cell that has one (a shift of at most a few steps). Never outside
    ``[low, high]``; an ordinary step takes the first candidate, ``low + cell * step``.
    """
    assert dist.step is not None
    low, high, step = dist.low, dist.high, dist.step
    for shift in range(_NEAR_CELLS + 1):
        for c in sorted({cell + shift, cell - shift}):
            if not 0 <= c < k:
                continue
            base = min(max(low + c * step, low), high)
            up = down = base
            # Where floats are sparser than the steps, look along the floats instead.
            n_floats = _NEAR_FLOATS if math.ulp(base) < step else _NEAR_CELLS
            for _ in range(n_floats + 1):
                for w in (up, down):
                    if _on_grid(w, dist):
                        return float(w)
                up, down = math.nextafter(up, math.inf), math.nextafter(down, -math.inf)
    if repr(dist) not in _WARNED:
        _WARNED.add(repr(dist))
        warnings.warn(
            f"{dist!r}: no float within {_NEAR_CELLS} steps of {low + cell * step!r} lies on "
            "the step grid as Optuna checks it ((value - low) / step within 1e-8 of an "
            "integer); using low instead. Use a larger step or a range nearer 0.",
            UserWarning,
            stacklevel=3,
        )
    return float(low)  # (low - low) / step == 0: always on the grid


def decode(u: float, dist: BaseDistribution) -> Any:
    """Map ``u`` in ``[0, 1]`` (clipped) to a value of ``dist``."""
    u = min(max(float(u), 0.0), 1.0)
    kind = _kind(dist)
    if kind == "categorical":
        dist = cast(CategoricalDistribution, dist)
        return dist.choices[_cell(u, len(dist.choices))]
    if kind == "int":
        dist = cast(IntDistribution, dist)
        if dist.log:
            a, b = math.log(dist.low - 0.5), math.log(dist.high + 0.5)
            value = int(round(math.exp(a + u * (b - a))))
            return min(max(value, dist.low), dist.high)
        k = n_cells(dist)
        assert k is not None
        return int(dist.low + _cell(u, k) * dist.step)
    if kind == "float":
        dist = cast(FloatDistribution, dist)
        if dist.step is not None:
            k = n_cells(dist)
            assert k is not None
            return _grid_value(_cell(u, k), k, dist)
        if dist.log:
            a, b = math.log(dist.low), math.log(dist.high)
            real = math.exp(a + u * (b - a))
        elif math.isfinite(dist.high - dist.low):
            real = dist.low + u * (dist.high - dist.low)
        else:  # a range wider than the largest float, e.g. [-1e308, 1e308]
            real = dist.low * (1.0 - u) + dist.high * u
        return float(min(max(real, dist.low), dist.high))
    raise TypeError(f"Unsupported distribution: {dist!r}")


def encode(value: Any, dist: BaseDistribution) -> float:
    """Map a value of ``dist`` into ``[0, 1]``; discrete values go to their cell's centre.

    A numeric value outside the range is clipped, so an old trial still encodes after the
    range of its parameter changed. An unknown categorical choice raises ``ValueError``.
    """
    if isinstance(dist, CategoricalDistribution):
        index = dist.to_internal_repr(value)
        return (index + 0.5) / len(dist.choices)
    if not isinstance(dist, (IntDistribution, FloatDistribution)):
        raise TypeError(f"Unsupported distribution: {dist!r}")
    v = min(max(float(value), dist.low), dist.high)
    if dist.high == dist.low:
        return 0.5
    if isinstance(dist, IntDistribution) and dist.log:
        a, b = math.log(dist.low - 0.5), math.log(dist.high + 0.5)
        # Near 1e15 a range of a few integers can have log(low - 0.5) == log(high + 0.5).
        u = (math.log(v) - a) / (b - a) if b > a else 0.5
    elif isinstance(dist, FloatDistribution) and dist.log and dist.step is None:
        a, b = math.log(dist.low), math.log(dist.high)
        # A range one float wide near the smallest normals can have log(low) == log(high).
        u = (math.log(v) - a) / (b - a) if b > a else 0.5
    elif n_cells(dist) is not None:
        k = n_cells(dist)
        assert k is not None
        step = dist.step
        assert step is not None
        u = (round((v - dist.low) / step) + 0.5) / k
    elif math.isfinite(dist.high - dist.low):
        u = (v - dist.low) / (dist.high - dist.low)
    else:  # a range wider than the largest float: halve every term
        u = (0.5 * v - 0.5 * dist.low) / (0.5 * dist.high - 0.5 * dist.low)
    return min(max(u, 0.0), 1.0)


def dim_of(name: str, dist: BaseDistribution) -> Dim:
    """The Optuna-free description of a parameter's coordinate."""
    cells = n_cells(dist) or 0
    if isinstance(dist, CategoricalDistribution):
        return Dim(name, "categorical", cells)
    if isinstance(dist, IntDistribution):
        return Dim(name, "int", cells, bool(dist.log))
    if isinstance(dist, FloatDistribution):
        return Dim(name, "float", cells, bool(dist.log))
    raise TypeError(f"Unsupported distribution: {dist!r}")
