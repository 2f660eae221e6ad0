"""Deterministic focused grid search, DFGS (Barbero, López & Dorronsoro, 2009, Section 3.1).

The refined deterministic search: a level ``k`` is the outer grid of the ``3^M`` points
``c + gamma h``, ``gamma in {-1, 0, 1}^M``, and the inner grid of the ``2^M`` points
``c + gamma h``, ``gamma in {-1/2, 1/2}^M``. Level 1 is centred on the box centre with
``h = 1/2``; the best point ``tau`` of a level gives the next centre by Eq. 6 (a coordinate on
the outer border moves inward by ``h / 2``, i.e. ``c' = c + (h/2) sign(gamma)``) and ``h``
halves. With depth ``K`` (resolution ``2^-K`` of each range) the levels are ``k = 1 .. K - 1``:
the last inner grid has spacing ``2^-K``. Points already evaluated in the run (any level, any
trial) are never evaluated again.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field

import numpy as np

from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.base import Proposal
from optuna_psms.samplers.core.base import Record
from optuna_psms.samplers.core.grid.cells import golden_stride
from optuna_psms.samplers.core.grid.cells import GridBase
from optuna_psms.samplers.core.grid.cells import GridSettings
from optuna_psms.samplers.core.pattern import point_key
from optuna_psms.samplers.core.pattern import snap


#: Levels with more grid points than this are not materialised (DFGS, ``M > 10``): their
#: points are generated one by one and such a level never completes.
MATERIALISE_LIMIT = 1 << 16
#: Grid indices at or above this (levels of ``M >= 34`` parameters) are stored modulo it.
POINT_INDEX_LIMIT = 1 << 53


def level_size(dim: int) -> int:
    """Points of one complete DFGS level over ``dim`` coordinates: ``3^dim + 2^dim``."""
    return int(3**dim + 2**dim)


def dfgs_offsets(dim: int) -> np.ndarray:
    """The ``3^M + 2^M`` offsets ``gamma`` of a DFGS level (outer grid first), shape (N, M)."""
    if dim == 0:
        return np.zeros((1, 0))
    outer = np.indices((3,) * dim).reshape(dim, -1).T.astype(float) - 1.0
    inner = np.indices((2,) * dim).reshape(dim, -1).T.astype(float) - 0.5
    return np.concatenate([outer, inner])


def dfgs_offset(j: int, dim: int) -> np.ndarray:
    """Row ``j`` of :func:`dfgs_offsets` without building the table."""
    n_outer = 3**dim
    gamma = np.empty(dim)
    if j < n_outer:
        for i in range(dim - 1, -1, -1):
            j, digit = divmod(j, 3)
            gamma[i] = digit - 1.0
    else:
        j -= n_outer
        for i in range(dim - 1, -1, -1):
            j, bit = divmod(j, 2)
            gamma[i] = bit - 0.5
    return gamma


def dfgs_grid(centre: np.ndarray, h: float, cells: np.ndarray | None = None) -> np.ndarray:
    """The outer and inner grid points of a DFGS level, snapped, shape ``(3^M + 2^M, M)``."""
    dim = centre.shape[0]
    if cells is None:
        cells = np.zeros(dim, dtype=np.int64)
    pts = centre[None, :] + h * dfgs_offsets(dim)
    return np.array([snap(p, cells) for p in pts]) if np.any(cells > 0) else pts


def eq6_recentre(centre: np.ndarray, h: float, gamma: np.ndarray) -> np.ndarray:
    """Eq. 6: the next centre from the best point ``centre + gamma h`` of a DFGS level.

    A coordinate of the best point on the outer border (``gamma = +/-1``) moves inward by
    ``h / 2``; inner-grid (``+/-1/2``) and centre coordinates stay. In all cases the new
    centre is ``centre + (h / 2) sign(gamma)``, the centre of an inner-grid cell.
    """
    out: np.ndarray = np.asarray(centre, dtype=float) + 0.5 * h * np.sign(gamma)
    return out


@dataclass
class _Level:
    k: int
    centre: np.ndarray
    h: float
    size: int
    keys: list[bytes] | None  # per grid index (None: too large to materialise)
    unique: set[bytes] = field(default_factory=set)
    n_assigned: int = 0
    n_finished: int = 0
    #: Visiting position of each distinct point (its first position in visiting order).
    position: dict[bytes, int] = field(default_factory=dict)
    #: Sorted visiting positions of the points neither evaluated nor running.
    free: list[int] = field(default_factory=list)

    @property
    def materialised(self) -> bool:
        return self.keys is not None

    def complete(self) -> bool:
        return self.keys is not None and self.n_finished == len(self.unique)

    def exhausted(self) -> bool:
        return self.keys is not None and self.n_assigned == len(self.unique)


#: The settings of a DFGS run given none (the paper's).
_DEFAULTS = GridSettings()


class DFGSStrategy(GridBase):
    """Deterministic focused grid search (refined: outer ``3^M`` and inner ``2^M`` grids).

    A level is complete when every point of its grid has a finished evaluation (from this
    level, an earlier level, or a foreign/enqueued trial at the same point). Trial ``n``
    asked during level ``k`` gets the first grid point of the level, scanning cyclically from
    index ``n mod (3^M + 2^M)``, that is neither evaluated nor running; in a sequential study
    every point is evaluated once, and two workers asking at the same instant get different
    points. When every point of the level is running or evaluated but some are still running,
    the worker gets a point of the next level around the best point finished so far
    (*speculative*, ``info["speculative"] = 1``); it is a genuine grid point of the next level
    (and will not be evaluated again) if that best point is confirmed.

    The first run is the paper's: level 1 centred on the box centre. A run that starts at a
    trial number ``> 0`` (a restart) draws its centre uniformly in ``[1/4, 3/4]^M`` with its
    first trial and starts at level 2 (``h = 1/4``) around it.

    Args:
        dim: Number of coordinates ``M``.
        run_start: First trial number of the run.
        settings: The run's settings (:class:`~optuna_psms.samplers.core.grid.cells.GridSettings`);
            DFGS reads ``depth``, ``K``: the final resolution is ``2^-K`` of each range
            (levels ``1 .. K-1``).
        dims: Per-coordinate descriptions (discrete coordinates snap to their cells).
    """

    def __init__(
        self,
        dim: int,
        run_start: int,
        *,
        settings: GridSettings = _DEFAULTS,
        dims: Sequence[Dim] = (),
    ) -> None:
        super().__init__(dim, run_start, settings, dims)
        self._levels: list[_Level] = []
        self._speculative: dict[tuple[int, bytes], _Level] = {}

    @property
    def first_level(self) -> int:
        return 1 if self.run_start <= 0 else min(2, self.depth - 1)

    @property
    def last_level(self) -> int:
        return self.depth - 1

    @property
    def level_size(self) -> int:
        return level_size(self.dim)

    @property
    def member_limit(self) -> int:
        return min(self.level_size, POINT_INDEX_LIMIT)  # the shown grid index

    # ------------------------------------------------------------------ levels
    def _make_level(self, k: int, centre: np.ndarray) -> _Level:
        h = 0.5**k
        size = self.level_size
        if size > MATERIALISE_LIMIT:
            return _Level(k, centre, h, size, None)
        cells = self._cells()
        pts = dfgs_grid(centre, h, cells)
        keys = [point_key(p, cells) for p in pts]
        level = _Level(k, centre, h, size, keys, set(keys))
        level.n_assigned = sum(1 for key in level.unique if key in self._assigned)
        level.n_finished = sum(1 for key in level.unique if key in self._loss)
        stride = golden_stride(size)
        for p in range(size):
            key = keys[(p * stride) % size]
            if key not in level.position:
                level.position[key] = p
                if key not in self._assigned:
                    level.free.append(p)
        return level

    def _point(self, level: _Level, j: int) -> np.ndarray:
        return snap(level.centre + level.h * dfgs_offset(j, self.dim), self._cells())

    def _level_best(self, level: _Level) -> int | None:
        """Grid index of the best finished point of a (materialised) level."""
        assert level.keys is not None
        best: tuple[float, int] | None = None
        best_j = None
        for j, key in enumerate(level.keys):
            got = self._loss.get(key)
            if got is not None and (best is None or got < best):
                best, best_j = got, j
        return best_j

    def _first_centre(self) -> np.ndarray | None:
        if self.first_level == 1:
            return np.full(self.dim, 0.5)
        x = self._x.get(self.run_start)
        if x is None:
            return None
        h = 0.5**self.first_level
        return np.asarray(np.clip(x, h, 1.0 - h), dtype=float)

    def _next_centre(self, level: _Level) -> np.ndarray | None:
        j = self._level_best(level)
        if j is None:
            return None
        return eq6_recentre(level.centre, level.h, dfgs_offset(j, self.dim))

    def frontier(self) -> _Level | None:
        """The deepest level whose grid is known (all earlier levels are complete)."""
        if not self._levels:
            centre = self._first_centre()
            if centre is None:
                return None
            self._levels.append(self._make_level(self.first_level, centre))
        level = self._levels[-1]
        while level.complete() and level.k < self.last_level:
            centre = self._next_centre(level)
            assert centre is not None
            level = self._make_level(level.k + 1, centre)
            self._levels.append(level)
            self._speculative.clear()
        return level

    def space_changed(self, dims: Sequence[Dim]) -> None:
        before = self._cells().tobytes()
        super().space_changed(dims)
        if self._cells().tobytes() != before:
            self._reset_memo()  # the levels' grid points snap to other cells now

    def _reset_memo(self) -> None:
        self._levels.clear()
        self._speculative.clear()

    def _pick(self, level: _Level, number: int) -> int | None:
        """The grid index trial ``number`` evaluates, ``None`` when every point is taken.

        Points are visited in the order ``(p * stride) mod size`` of positions ``p``, with a
        golden-ratio stride coprime to the size, so that consecutive trials spread over every
        coordinate's values (a partly evaluated level is not a corner of the grid). Trial
        ``number`` takes the free point of rank ``number mod (free points)``: two workers
        that ask at the same instant (consecutive numbers, same view) get different points.
        A level too large to materialise is scanned from position ``number mod size``.
        """
        size = level.size
        stride = golden_stride(size)
        if level.keys is not None:
            if not level.free:
                return None
            return (level.free[number % len(level.free)] * stride) % size
        start = number % size
        for step in range(min(size, 1 << 20)):
            j = ((start + step) * stride) % size
            if self._key(self._point(level, j)) not in self._assigned:
                return j
        return None

    # ------------------------------------------------------------------ Strategy API
    def tell(self, record: Record) -> None:
        key, new_key, first, improved = self._absorb(record)
        if improved and any(key in lv.unique for lv in self._levels[:-1]):
            # A better value for a point of a completed level may change its best: rebuild.
            self._reset_memo()
            return
        for level in [*self._levels[-1:], *self._speculative.values()]:
            if key in level.unique:
                level.n_assigned += int(new_key)
                level.n_finished += int(first)
                if new_key:
                    i = bisect.bisect_left(level.free, level.position[key])
                    if i < len(level.free) and level.free[i] == level.position[key]:
                        del level.free[i]

    def ask(self, number: int, rng: np.random.Generator) -> Proposal:
        if self.dim == 0:
            return Proposal(np.empty(0), 0, 0, display={"level": 0, "point": 0})
        if number == self.run_start and self.first_level > 1:
            x = snap(rng.uniform(0.25, 0.75, self.dim), self._cells())
            display = {"level": self.first_level, "point": 0}
            return Proposal(x, 0, self.first_level, info={"centre": 1}, display=display)
        level = self.frontier()
        if level is None:
            return self._explore(rng, self.first_level, "no centre yet")
        j = self._pick(level, number) if not level.exhausted() else None
        if j is not None:
            return self._proposal(level, j)
        if level.complete() or level.k >= self.last_level:
            return self._explore(rng, level.k, "depth reached")
        spec = self._speculative_level(level)
        if spec is not None:
            j = self._pick(spec, number)
            if j is not None:
                prop = self._proposal(spec, j)
                prop.info["speculative"] = 1
                prop.display["speculative"] = 1
                return prop
        return self._explore(rng, level.k, "waiting")

    def _proposal(self, level: _Level, j: int) -> Proposal:
        x = self._point(level, j)
        # The grid index is only shown (the record keeps x); a level of 3^M + 2^M points with
        # M in the hundreds has indices of hundreds of digits, so keep the low 53 bits.
        shown = j if j < POINT_INDEX_LIMIT else j % POINT_INDEX_LIMIT
        display = {"level": level.k, "point": shown}
        return Proposal(x, shown, level.k, info={"h": level.h}, display=display)

    def _speculative_level(self, level: _Level) -> _Level | None:
        if not level.materialised:
            return None
        centre = self._next_centre(level)
        if centre is None:
            return None
        key = (level.k + 1, np.round(centre, 12).tobytes())
        spec = self._speculative.get(key)
        if spec is None:
            spec = self._make_level(level.k + 1, centre)
            self._speculative[key] = spec
        return spec

    def converged(self) -> bool:
        if self.dim == 0:
            return False
        level = self.frontier()
        if level is None or level.k < self.last_level:
            return False
        return level.exhausted()

    def budget(self) -> int:
        """The paper's worst case: ``3^M + 2^M`` evaluations on every level."""
        return (self.last_level - self.first_level + 1) * self.level_size
