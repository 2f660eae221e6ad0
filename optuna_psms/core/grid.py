"""Deterministic and annealed focused grid search (Barbero, López & Dorronsoro, 2009).

Pure numpy, in the unit box (every range ``Delta_i = 1``). A *level* ``k`` is a grid around a
centre ``c`` with half-width ``h``:

* **DFGS** (the refined deterministic search, Section 3.1): the outer grid of the ``3^M``
  points ``c + gamma h``, ``gamma in {-1, 0, 1}^M``, and the inner grid of the ``2^M`` points
  ``c + gamma h``, ``gamma in {-1/2, 1/2}^M``. Level 1 is centred on the box centre with
  ``h = 1/2``; the best point ``tau`` of a level gives the next centre by Eq. 6 (a
  coordinate on the outer border moves inward by ``h / 2``, i.e. ``c' = c + (h/2) sign(gamma)``)
  and ``h`` halves. With depth ``K`` (resolution ``2^-K`` of each range) the levels are
  ``k = 1 .. K - 1``: the last inner grid has spacing ``2^-K``. Points already evaluated in
  the run (any level, any trial) are never evaluated again.
* **AFGS** (Section 3.2): only the outer ``3^M`` grid, ``h_k = 2^-(k+1)``, levels
  ``k = 0 .. K - 1`` (the last spacing is again ``2^-K``). On each level an annealing walk
  starts at the centre and visits at most ``Lambda`` new grid points: a neighbour changes one
  uniformly chosen coordinate (centre value -> ``+/- h`` by a coin toss, ``+/- h`` -> centre
  value), is accepted with probability ``min(1, exp((F_C - F_N) / T))`` and the temperature
  falls linearly, ``T_t = T0 (1 - t / (Lambda - 1))`` for the ``t``-th new neighbour. A
  neighbour that was already evaluated costs nothing; after ``S`` such neighbours in a row
  the temperature falls one step anyway, and the level ends when ``T`` reaches 0. The best
  point of the run then centres the next, halved grid (moved inward just enough for the
  grid to stay in the box).

Discrete coordinates snap to the centre of their cell, so grid points that snap to the same
value are one point (evaluated once).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
import math

import numpy as np

from optuna_psms.core.base import beats
from optuna_psms.core.base import Dim
from optuna_psms.core.base import Proposal
from optuna_psms.core.base import Record
from optuna_psms.core.base import Strategy
from optuna_psms.core.pattern import cells_of
from optuna_psms.core.pattern import key_of_values
from optuna_psms.core.pattern import point_key
from optuna_psms.core.pattern import snap
from optuna_psms.core.pattern import snap_values
from optuna_psms.core.rng import TrialRng


MODES = ("deterministic", "annealed")
#: Levels with more grid points than this are not materialised (DFGS, ``M > 10``): their
#: points are generated one by one and such a level never completes.
MATERIALISE_LIMIT = 1 << 16


# --------------------------------------------------------------------------- grid maths
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


def golden_stride(size: int) -> int:
    """The integer closest to ``size / phi`` that is coprime to ``size`` (``1`` for tiny sizes)."""
    if size <= 2:
        return 1
    s = max(1, round(size * 0.6180339887498949))
    for delta in range(size):
        for cand in (s - delta, s + delta):
            if 0 < cand < size and math.gcd(cand, size) == 1:
                return cand
    return 1


def acceptance_probability(f_current: float, f_neighbour: float, temperature: float) -> float:
    """``min(1, exp((F_C - F_N) / T))``; at ``T = 0`` only non-worsening moves are accepted.

    An infinite (failed) neighbour is never accepted unless the current point failed too; any
    finite neighbour of a failed current point is.
    """
    if math.isinf(f_neighbour) and f_neighbour > 0:
        return 1.0 if math.isinf(f_current) and f_current > 0 else 0.0
    if math.isinf(f_current) and f_current > 0:
        return 1.0
    if f_neighbour <= f_current:
        return 1.0
    if temperature <= 0.0:
        return 0.0
    return float(math.exp((f_current - f_neighbour) / temperature))


def temperature(t: int, n_points: int, t0: float) -> float:
    """Eq. 8: ``T_t = T0 (1 - t / (Lambda - 1))``, clipped at 0."""
    if n_points <= 1:
        return 0.0
    return max(t0 * (1.0 - t / (n_points - 1)), 0.0)


def neighbour(gamma: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The AFGS neighbourhood: one uniformly chosen coordinate, ``0 -> +/-1``, ``+/-1 -> 0``."""
    return np.array(_neighbour_values(np.asarray(gamma, dtype=float).tolist(), rng))


def _neighbour_values(gamma: list[float], rng: np.random.Generator) -> list[float]:
    """:func:`neighbour` on Python floats (same draws, same result)."""
    out = list(gamma)
    n = len(out)
    i = min(int(rng.random() * n), n - 1)  # rng.integers costs several times more
    if out[i] == 0.0:
        out[i] = -1.0 if rng.random() < 0.5 else 1.0
    else:
        out[i] = 0.0
    return out


def _grid_point(
    centre: list[float], h: float, gamma: list[float], counts: list[int]
) -> tuple[list[float], bytes]:
    """``snap(centre + h gamma)`` and its :func:`point_key`, on Python floats."""
    x = snap_values([c + h * g for c, g in zip(centre, gamma)], counts)
    return x, key_of_values(x, counts)


# --------------------------------------------------------------------------- shared state
class _GridBase(Strategy):
    """What both modes keep: evaluated points by identity, the run's best, positions."""

    def __init__(self, dim: int, run_start: int, depth: int, dims: Sequence[Dim]) -> None:
        super().__init__(dim, run_start, dims)
        self.depth = int(depth)
        self._cells_for: tuple[Dim, ...] | None = None
        self._cells_cache = np.zeros(dim, dtype=np.int64)
        self._cells_list: list[int] = [0] * dim
        self._loss: dict[bytes, tuple[float, int]] = {}  # point -> best (loss, number)
        self._assigned: set[bytes] = set()  # points evaluated or running
        self._state: dict[int, float | None] = {}  # number -> loss as last told
        self._x: dict[int, np.ndarray] = {}  # number -> position
        self._key_of: dict[int, bytes] = {}  # number -> key of its position
        self._best: Record | None = None

    def _cells(self) -> np.ndarray:
        if self._cells_for is not self.dims:  # the adapter may replace dims (range change)
            self._cells_cache = cells_of(self.dims, self.dim)
            self._cells_list = self._cells_cache.tolist()
            self._cells_for = self.dims
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


# --------------------------------------------------------------------------- DFGS
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


class DFGSStrategy(_GridBase):
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
        depth: ``K``: the final resolution is ``2^-K`` of each range (levels ``1 .. K-1``).
        dims: Per-coordinate descriptions (discrete coordinates snap to their cells).
    """

    def __init__(
        self, dim: int, run_start: int, *, depth: int = 10, dims: Sequence[Dim] = ()
    ) -> None:
        super().__init__(dim, run_start, depth, dims)
        self._levels: list[_Level] = []
        self._speculative: dict[tuple[int, bytes], _Level] = {}
        self._memo_cells: bytes = b""

    @property
    def first_level(self) -> int:
        return 1 if self.run_start <= 0 else min(2, self.depth - 1)

    @property
    def last_level(self) -> int:
        return self.depth - 1

    @property
    def level_size(self) -> int:
        return int(3**self.dim + 2**self.dim)

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
        cells = self._cells().tobytes()
        if cells != self._memo_cells:
            self._reset_memo()
            self._memo_cells = cells
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
        return Proposal(x, j, level.k, info={"h": level.h}, display={"level": level.k, "point": j})

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


# --------------------------------------------------------------------------- AFGS
def default_points_per_level(dim: int) -> int:
    """``Lambda`` when not given: ``5 M`` (at least 5), never more than the ``3^M`` grid."""
    return int(min(3 ** min(dim, 20), max(5, 5 * dim)))


@dataclass
class _Walk:
    first_number: int | None = None  # lowest trial number of the level's walk records
    centre_number: int = -1  # the record whose position centres the level
    latest: Record | None = None  # walk record with the largest (t, number)
    ended: bool = False  # the walk ended without a new point (stuck at T = 0)


class AFGSStrategy(_GridBase):
    """Annealed focused grid search on the outer ``3^M`` grids.

    Level ``k`` is centred on the position of a recorded trial (``info["c"]``): for the first
    level of the first run the box centre, evaluated by the level's first trial; for the first
    level of a restarted run a uniform point of ``[1/4, 3/4]^M`` drawn by the run's first trial
    (which then starts at level 1, ``h = 1/4``); for every later level the best finished trial
    of the run when the level starts (any trial, foreign and enqueued ones included), moved
    inward just enough for the grid ``c +/- h_k`` to stay in the box. If the centre was moved it
    is a new point and is evaluated first (it counts as one of the ``Lambda`` points).

    Every walk trial stores its offset ``g`` (vector), the offset ``gc`` of the walk's current
    point it was generated from, its temperature step ``t`` and its acceptance uniform ``u``.
    The next trial continues from the latest walk record ``R`` (largest ``t``): ``R`` is
    accepted iff ``u_R < min(1, exp((F_C - F_R) / T_t))``. A neighbour that was already
    evaluated (or is running) costs no trial: the asking trial runs the acceptance test on it
    with its own draws and goes on; ``S`` such neighbours in a row lower the temperature one
    step. If ``R`` or its current point is still running, ``R`` counts as not accepted: the
    walk goes on from ``R``'s current point (what a worker gets under concurrency). When the
    walk of a level ends (``t = Lambda - 1``), the next trial starts the next level around the
    best finished point, even while points of the ended level still run.

    Args:
        dim: Number of coordinates ``M``.
        run_start: First trial number of the run.
        depth: ``K``: the final grid spacing is ``2^-K`` of each range (levels ``0 .. K-1``).
        points_per_level: ``Lambda``, the points evaluated per level at most (``>= 2``).
        initial_temperature: ``T0``.
        stuck: ``S``, the already-evaluated neighbours in a row that lower the temperature.
        dims: Per-coordinate descriptions (discrete coordinates snap to their cells).
    """

    vector_names = ("g", "gc")

    def __init__(
        self,
        dim: int,
        run_start: int,
        *,
        depth: int = 10,
        points_per_level: int | None = None,
        initial_temperature: float = 0.8,
        stuck: int | None = None,
        dims: Sequence[Dim] = (),
    ) -> None:
        super().__init__(dim, run_start, depth, dims)
        self.n_points = int(points_per_level or default_points_per_level(dim))
        self.t0 = float(initial_temperature)
        self.stuck = int(stuck or max(2 * dim, 3))
        self._walks: dict[int, _Walk] = {}
        self._walk_rngs = TrialRng()  # used within one ask only
        self._memo: dict[tuple[float, ...], tuple[list[float], bytes]] = {}
        self._memo_level: tuple[int, tuple[float, ...], list[int]] | None = None

    @property
    def first_level(self) -> int:
        return 0 if self.run_start <= 0 else min(1, self.depth - 1)

    @property
    def last_level(self) -> int:
        return self.depth - 1

    @staticmethod
    def half_width(k: int) -> float:
        return 0.5 ** (k + 1)

    def _grid_point(
        self, centre: list[float], k: int, gamma: list[float]
    ) -> tuple[list[float], bytes]:
        """The snapped grid point ``centre + h_k gamma`` and its key.

        Python floats, memoised per level: the walk looks at a handful of points per ask, and
        mostly at points it looked at before (its current point, cached neighbours).
        """
        level = (k, tuple(centre), self._counts())
        if level != self._memo_level:
            self._memo_level = level
            self._memo.clear()
        g = tuple(gamma)
        hit = self._memo.get(g)
        if hit is None:
            hit = self._memo[g] = _grid_point(centre, self.half_width(k), gamma, level[2])
        return hit

    def _finished_key(self, key: bytes) -> float | None:
        got = self._loss.get(key)
        return None if got is None else got[0]

    # ------------------------------------------------------------------ Strategy API
    def tell(self, record: Record) -> None:
        self._absorb(record)
        info = record.info
        if "t" not in info and "end" not in info:
            return
        walk = self._walks.get(record.generation)
        if walk is None:
            walk = self._walks[record.generation] = _Walk()
        if "c" in info and (walk.first_number is None or record.number < walk.first_number):
            walk.first_number = record.number
            walk.centre_number = int(info["c"])
        if "end" in info:
            walk.ended = True
        if "t" in info:
            rank = (int(info["t"]), record.number)
            latest = walk.latest
            if latest is None or rank >= (int(latest.info["t"]), latest.number):
                walk.latest = record

    def _centre(self, k: int, number: int) -> list[float] | None:
        """Trial ``number``'s position moved inward until the level-``k`` grid fits the box."""
        x = self._x.get(number)
        if x is None:
            return None
        h = self.half_width(k)
        return [min(max(v, h), 1.0 - h) for v in x.tolist()]

    def _accepted(self, k: int, centre: list[float], rec: Record) -> bool:
        if rec.loss is None:
            return False
        gc = rec.vectors.get("gc")
        gamma = [0.0] * self.dim if gc is None else np.asarray(gc, dtype=float).tolist()
        f_c = self._finished_key(self._grid_point(centre, k, gamma)[1])
        if f_c is None:
            return False
        t = int(rec.info["t"])
        p = acceptance_probability(f_c, float(rec.loss), temperature(t, self.n_points, self.t0))
        return float(rec.info.get("u", 1.0)) < p

    def current_level(self) -> int | None:
        return max(self._walks) if self._walks else None

    def _level_done(self, walk: _Walk) -> bool:
        latest = walk.latest
        return walk.ended or (latest is not None and int(latest.info["t"]) >= self.n_points - 1)

    def ask(self, number: int, rng: np.random.Generator) -> Proposal:
        if self.dim == 0:
            return Proposal(np.empty(0), 0, 0, display={"level": 0, "step": 0})
        k = self.current_level()
        if k is None:
            return self._start_run(number, rng)
        walk = self._walks[k]
        centre = self._centre(k, walk.centre_number)
        if centre is None:
            return self._explore(rng, k, "no centre yet")
        if self._level_done(walk):
            return self._start_level(k + 1, rng)
        latest = walk.latest
        gamma, t = [0.0] * self.dim, 0
        if latest is None:
            return self._walk(k, centre, walk.centre_number, gamma, t, rng)
        if int(latest.info["t"]) > 0:
            t = int(latest.info["t"])
            key = "g" if self._accepted(k, centre, latest) else "gc"
            stored = latest.vectors.get(key)
            if stored is not None:
                gamma = np.asarray(stored, dtype=float).tolist()
        # The walk from the latest step is drawn from a generator keyed by that step's own
        # draw, so every worker that sees the same latest step walks the same way; a trial
        # asked `skip` numbers after it skips that many new points, which the trials in
        # between (running, possibly not visible yet) are taking.
        walk_rng = self._walk_rngs.at(int(float(latest.info["u"]) * 2**53), latest.number, 1)
        skip = min(max(number - latest.number - 1, 0), self.n_points)
        return self._walk(k, centre, walk.centre_number, gamma, t, walk_rng, skip)

    def _start_run(self, number: int, rng: np.random.Generator) -> Proposal:
        k = self.first_level
        if k == 0:
            x = snap(np.full(self.dim, 0.5), self._cells())
        elif number == self.run_start:
            x = snap(rng.uniform(0.25, 0.75, self.dim), self._cells())
        else:
            return self._explore(rng, k, "no centre yet")
        zero = np.zeros(self.dim)
        return self._step_proposal(x, k, number, 0, zero, zero, float(rng.random()))

    def _start_level(self, k: int, rng: np.random.Generator) -> Proposal:
        if k > self.last_level:
            return self._explore(rng, k - 1, "depth reached")
        best = self._best
        if best is None:
            return self._explore(rng, k - 1, "waiting")
        centre = self._centre(k, best.number)
        assert centre is not None
        x, key = _grid_point(centre, 0.0, [0.0] * self.dim, self._counts())
        zero = np.zeros(self.dim)
        if key not in self._assigned:
            return self._step_proposal(
                np.array(x), k, best.number, 0, zero, zero, float(rng.random())
            )
        return self._walk(k, centre, best.number, [0.0] * self.dim, 0, rng)

    def _walk(
        self,
        k: int,
        centre: list[float],
        centre_number: int,
        gamma: list[float],
        t: int,
        rng: np.random.Generator,
        skip: int = 0,
    ) -> Proposal:
        f_c = self._finished_key(self._grid_point(centre, k, gamma)[1])
        in_a_row = 0
        taken: set[bytes] = set()  # new points skipped for the trials in between
        while t < self.n_points - 1:
            cand = _neighbour_values(gamma, rng)
            x, key = self._grid_point(centre, k, cand)
            u = float(rng.random())
            if key not in self._assigned and key not in taken:
                if skip <= 0:
                    return self._step_proposal(
                        np.array(x), k, centre_number, t + 1, np.array(cand), np.array(gamma), u
                    )
                skip -= 1  # running elsewhere: a step that is not accepted (yet)
                taken.add(key)
                t += 1
                in_a_row = 0
                continue
            got = self._loss.get(key)  # _finished(x) without recomputing the key
            f_n = None if got is None else got[0]
            temp = temperature(t + 1, self.n_points, self.t0)
            if f_n is not None and f_c is not None and u < acceptance_probability(f_c, f_n, temp):
                gamma, f_c = cand, f_n
            in_a_row += 1
            if in_a_row >= self.stuck:
                t += 1
                in_a_row = 0
        # The walk ended without a new point: the next level starts now.
        if k + 1 > self.last_level:
            prop = self._explore(rng, k, "depth reached")
            prop.info["end"] = 1
            return prop
        return self._start_level(k + 1, rng)

    def _step_proposal(
        self,
        x: np.ndarray,
        k: int,
        centre_number: int,
        t: int,
        gamma: np.ndarray,
        gamma_current: np.ndarray,
        u: float,
    ) -> Proposal:
        return Proposal(
            x,
            t,
            k,
            vectors={"g": np.array(gamma), "gc": np.array(gamma_current)},
            info={"t": t, "u": u, "c": centre_number},
            display={"level": k, "step": t},
        )

    def converged(self) -> bool:
        k = self.current_level()
        if self.dim == 0 or k is None or k < self.last_level:
            return False
        return self._level_done(self._walks[k])

    def budget(self) -> int:
        """``Lambda`` evaluations on every level."""
        return (self.last_level - self.first_level + 1) * self.n_points
