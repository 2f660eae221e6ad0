"""The cell maths both focused grid searches share (Barbero, López & Dorronsoro, 2009).

Pure numpy, in the unit box. A grid point is ``centre + h gamma``; discrete coordinates snap to
the centre of their cell (:func:`~optuna_psms.samplers.core.pattern.snap`), so grid points that
snap to
the same value are one point, identified by its key
(:func:`~optuna_psms.samplers.core.pattern.point_key`). :class:`GridBase` keeps what both modes
need:
the evaluated points by key, the run's best and every trial's position.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import math

import numpy as np

from optuna_psms.samplers.core.base import beats
from optuna_psms.samplers.core.base import check_indices
from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.base import Proposal
from optuna_psms.samplers.core.base import Record
from optuna_psms.samplers.core.base import Strategy
from optuna_psms.samplers.core.pattern import cells_of
from optuna_psms.samplers.core.pattern import key_of_values
from optuna_psms.samplers.core.pattern import point_key
from optuna_psms.samplers.core.pattern import snap
from optuna_psms.samplers.core.pattern import snap_values
from optuna_psms.samplers.core.settings import choice
from optuna_psms.samplers.core.settings import integer
from optuna_psms.samplers.core.settings import optional_integer
from optuna_psms.samplers.core.settings import real


MODES = ("deterministic", "annealed")

#: Above this size a stride is computed in exact integer arithmetic (``3^M`` overflows a float
#: at ``M >= 647``); below it the float rule, whose result every stored study depends on.
_FLOAT_EXACT = 1 << 53
#: ``1 / phi`` to 30 decimals, for the integer rule.
_INV_PHI_NUM = 618033988749894848204586834366
_INV_PHI_DEN = 10**30


def golden_stride(size: int) -> int:
    """The integer closest to ``size / phi`` that is coprime to ``size`` (``1`` for tiny sizes).

    Works for any size, including the ``3^M + 2^M`` points of a DFGS level with ``M = 1000``
    (beyond ``2^53`` in integer arithmetic, with ``1 / phi`` to 30 digits).

    Example:

        .. testcode::

            from optuna_psms.samplers.core.grid import golden_stride

            assert golden_stride(13) == 8
            assert golden_stride(3**1000 + 2**1000) > 0
    """
    if size <= 2:
        return 1
    if size < _FLOAT_EXACT:
        s = max(1, round(size * 0.6180339887498949))
    else:
        s = (2 * size * _INV_PHI_NUM + _INV_PHI_DEN) // (2 * _INV_PHI_DEN)
    for delta in range(size):
        for cand in (s - delta, s + delta):
            if 0 < cand < size and math.gcd(cand, size) == 1:
                return cand
    return 1


def grid_point(
    centre: list[float], h: float, gamma: list[float], counts: list[int]
) -> tuple[list[float], bytes]:
    """``snap(centre + h gamma)`` and its :func:`point_key`, on Python floats."""
    x = snap_values([c + h * g for c, g in zip(centre, gamma)], counts)
    return x, key_of_values(x, counts)


@dataclass(frozen=True)
class GridSettings:
    """The settings of a focused grid run, either mode (validated on construction).

    Attributes:
        mode: One of :data:`MODES`: ``"deterministic"`` (DFGS) or ``"annealed"`` (AFGS).
        depth: ``K``: the finest grid spacing is ``2^-K`` of each range, in ``[2, 40]``.
        points_per_level: AFGS ``Lambda`` (``>= 2``); ``None``: ``max(5, 5 M)`` capped at
            ``3^M``. Ignored by DFGS.
        initial_temperature: AFGS ``T0`` (``> 0``).
        stuck: AFGS ``S`` (``>= 1``); ``None``: ``max(3, 2 M)``.
    """

    mode: str = "deterministic"
    depth: int = 10
    points_per_level: int | None = None
    initial_temperature: float = 0.8
    stuck: int | None = None

    def __post_init__(self) -> None:
        checked = {
            "mode": choice("mode", self.mode, MODES),
            "depth": integer("depth", self.depth, 2, 40),
            "points_per_level": optional_integer("points_per_level", self.points_per_level, 2),
            "initial_temperature": real(
                "initial_temperature", self.initial_temperature, 0.0, open_low=True
            ),
            "stuck": optional_integer("stuck", self.stuck, 1),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)


class GridBase(Strategy):
    """What both modes keep: evaluated points by identity, the run's best, positions."""

    def __init__(
        self, dim: int, run_start: int, settings: GridSettings, dims: Sequence[Dim]
    ) -> None:
        super().__init__(dim, run_start, dims)
        self.settings = settings
        self.depth = settings.depth
        self._cells_cache = cells_of(self.dims, dim)
        self._cells_list: list[int] = self._cells_cache.tolist()
        self._loss: dict[bytes, tuple[float, int]] = {}  # point -> best (loss, number)
        self._assigned: set[bytes] = set()  # points evaluated or running
        self._state: dict[int, float | None] = {}  # number -> loss as last told
        self._x: dict[int, np.ndarray] = {}  # number -> position
        self._key_of: dict[int, bytes] = {}  # number -> key of its position
        self._best: Record | None = None

    @property
    def member_limit(self) -> int:
        """Members (grid indices, walk steps) a record may name: ``[0, member_limit)``."""
        return 1

    def check(self, record: Record) -> str | None:
        # The generation is the level: explorations and fallbacks stay within the depth.
        return check_indices(record, self.member_limit, self.depth - 1)

    def space_changed(self, dims: Sequence[Dim]) -> None:
        super().space_changed(dims)
        self._cells_cache = cells_of(self.dims, self.dim)
        self._cells_list = self._cells_cache.tolist()

    def _cells(self) -> np.ndarray:
        return self._cells_cache

    def _counts(self) -> list[int]:
        """:meth:`_cells` as a list of Python ints."""
        self._cells()
        return self._cells_list

    def _key(self, x: np.ndarray) -> bytes:
        return point_key(x, self._cells())

    def _absorb(self, record: Record) -> tuple[bytes, bool, bool, bool]:
        """Update the shared state.

        Returns:
            ``(key, newly assigned, first finished value of the point, better value of a
            point that already had one)``.
        """
        number = record.number
        key = self._key_of.get(number)  # a trial is told twice (asked, finished): same x
        if key is None:
            key = self._key_of[number] = self._key(record.x)
        if self._state.get(number) is not None:
            return key, False, False, False  # finished trials never change
        new_key = key not in self._assigned
        self._assigned.add(key)
        self._state[number] = record.loss
        self._x[number] = np.asarray(record.x, dtype=float)
        first = improved = False
        if record.loss is not None:
            old = self._loss.get(key)
            cand = (float(record.loss), number)
            if old is None:
                first = True
            elif cand < old:
                improved = True
            if old is None or cand < old:
                self._loss[key] = cand
            if beats(record, self._best):
                self._best = record
        return key, new_key, first, improved

    def _explore(self, rng: np.random.Generator, level: int, why: str) -> Proposal:
        x = snap(rng.uniform(0.0, 1.0, self.dim), self._cells())
        return Proposal(x, 0, level, info={"explore": why}, display={"level": level, "explore": 1})
