"""Validation of algorithm settings: one style, one line per error, naming the parameter.

Each core module defines one frozen dataclass of settings (``PSOSettings``, ``UMDASettings``,
...) whose ``__post_init__`` checks every field with these helpers, once; the sampler builds
it from its constructor arguments and the strategy takes it whole. Integers reject ``bool``
(``True`` is not a swarm size); numbers reject ``bool`` and non-finite values.
"""

from __future__ import annotations

from collections.abc import Sequence
import math
from typing import Any


def integer(name: str, value: Any, low: int, high: int | None = None) -> int:
    """``value`` as an ``int`` in ``[low, high]``, or a ``ValueError`` naming ``name``."""
    ok = isinstance(value, int) and not isinstance(value, bool)
    if not ok or value < low or (high is not None and value > high):
        where = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"{name} must be an integer {where}, got {value!r}.")
    return int(value)


def optional_integer(name: str, value: Any, low: int) -> int | None:
    """``None`` or an ``int >= low``."""
    if value is None:
        return None
    ok = isinstance(value, int) and not isinstance(value, bool)
    if not ok or value < low:
        raise ValueError(f"{name} must be an integer >= {low} or None, got {value!r}.")
    return int(value)


def real(
    name: str,
    value: Any,
    low: float,
    high: float = math.inf,
    *,
    open_low: bool = False,
    open_high: bool = False,
) -> float:
    """``value`` as a finite ``float`` in the interval given (open or closed at each end)."""
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    x = float(value) if ok else math.nan
    inside = math.isfinite(x) and (low < x if open_low else low <= x)
    inside = inside and (x < high if open_high else x <= high)
    if not inside:
        left, right = "(" if open_low else "[", ")" if open_high or high == math.inf else "]"
        span = f"{left}{low:g}, {'inf' if high == math.inf else f'{high:g}'}{right}"
        raise ValueError(f"{name} must be a finite number in {span}, got {value!r}.")
    return x


def choice(name: str, value: Any, options: Sequence[str]) -> str:
    """``value`` if it is one of ``options``."""
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {tuple(options)}, got {value!r}.")
    return value
