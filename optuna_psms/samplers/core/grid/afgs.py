"""Annealed focused grid search, AFGS (Barbero, López & Dorronsoro, 2009, Section 3.2).

Only the outer ``3^M`` grid, ``h_k = 2^-(k+1)``, levels ``k = 0 .. K - 1`` (the last spacing
is ``2^-K``). On each level an annealing walk starts at the centre and visits at most
``Lambda`` new grid points: a neighbour changes one uniformly chosen coordinate (centre value
-> ``+/- h`` by a coin toss, ``+/- h`` -> centre value), is accepted with probability
``min(1, exp((F_C - F_N) / T))`` and the temperature falls linearly,
``T_t = T0 (1 - t / (Lambda - 1))`` for the ``t``-th new neighbour. A neighbour that was
already evaluated costs nothing; after ``S`` such neighbours in a row the temperature falls one
step anyway, and the level ends when ``T`` reaches 0. The best point of the run then centres
the next, halved grid (moved inward just enough for the grid to stay in the box).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
import math

import numpy as np

from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.base import Proposal
from optuna_psms.samplers.core.base import Record
from optuna_psms.samplers.core.grid.cells import grid_point
from optuna_psms.samplers.core.grid.cells import GridBase
from optuna_psms.samplers.core.grid.cells import GridSettings
from optuna_psms.samplers.core.pattern import snap
from optuna_psms.samplers.core.rng import TrialRng


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


def default_points_per_level(dim: int) -> int:
    """``Lambda`` when not given: ``5 M`` (at least 5), never more than the ``3^M`` grid."""
    return int(min(3 ** min(dim, 20), max(5, 5 * dim)))


@dataclass
class _Walk:
    first_number: int | None = None  # lowest trial number of the level's walk records
    centre_number: int = -1  # the record whose position centres the level
    latest: Record | None = None  # walk record with the largest (t, number)
    ended: bool = False  # the walk ended without a new point (stuck at T = 0)
    running: set[int] = field(default_factory=set)  # walk records (not extras) running
    extras: set[int] = field(default_factory=set)  # records of the level's extra points


#: The settings of a AFGS run given none (the paper's).
_DEFAULTS = GridSettings(mode="annealed")


class AFGSStrategy(GridBase):
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
    walk of a level ends (``t = Lambda - 1``, or no new neighbour is left), the next trial
    starts the next level around the best finished point once the level's walk points have
    finished; while some still run (many workers), it gets an extra point of the same level
    instead: a new grid point one or two coordinates away from the best point (marked
    ``info["x"]``, step ``Lambda - 1``, at most ``Lambda`` per level, so a trial left running
    for ever costs one level at most ``Lambda`` points). A sequential run never has a running
    point at an ask and never takes an extra point.

    Args:
        dim: Number of coordinates ``M``.
        run_start: First trial number of the run.
        settings: The run's settings (:class:`~optuna_psms.samplers.core.grid.cells.GridSettings`):
            ``depth`` ``K`` (the final grid spacing is ``2^-K`` of each range, levels
            ``0 .. K-1``), ``points_per_level`` ``Lambda`` (the points evaluated per level at
            most), ``initial_temperature`` ``T0`` and ``stuck`` ``S`` (the already-evaluated
            neighbours in a row that lower the temperature).
        dims: Per-coordinate descriptions (discrete coordinates snap to their cells).
    """

    vector_names = ("g", "gc")

    def __init__(
        self,
        dim: int,
        run_start: int,
        *,
        settings: GridSettings = _DEFAULTS,
        dims: Sequence[Dim] = (),
    ) -> None:
        super().__init__(dim, run_start, settings, dims)
        self.n_points = int(settings.points_per_level or default_points_per_level(dim))
        self.t0 = settings.initial_temperature
        self.stuck = int(settings.stuck or max(2 * dim, 3))
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
            hit = self._memo[g] = grid_point(centre, self.half_width(k), gamma, level[2])
        return hit

    def _finished_key(self, key: bytes) -> float | None:
        got = self._loss.get(key)
        return None if got is None else got[0]

    # ------------------------------------------------------------------ Strategy API
    @property
    def member_limit(self) -> int:
        return self.n_points  # the walk step t

    def check(self, record: Record) -> str | None:
        problem = super().check(record)
        if problem is not None:
            return problem
        info = record.info
        if "t" in info:
            t, u = info["t"], info.get("u")
            if type(t) is not int or not 0 <= t <= self.n_points - 1:
                return f"walk step {t!r:.40} outside [0, {self.n_points - 1}]"
            if type(u) not in (int, float) or not 0.0 <= float(u) <= 1.0:  # type: ignore[arg-type]
                return f"acceptance draw {u!r:.40} outside [0, 1]"
        if "x" in info and info["x"] != 1:
            return f"extra-point mark {info['x']!r:.40} is not 1"
        if "c" in info and (type(info["c"]) is not int or info["c"] < -1):
            return f"centre {info['c']!r:.40} is not a trial number"
        for key in self.vector_names:
            gamma = record.vectors.get(key)
            if gamma is not None and not bool(((gamma == 0.0) | (np.abs(gamma) == 1.0)).all()):
                return f"grid offset {key!r} not in {{-1, 0, 1}}"
        return None

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
            if "x" in info:
                walk.extras.add(record.number)
            elif record.loss is None:
                walk.running.add(record.number)
            else:
                walk.running.discard(record.number)
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
            if walk.running and len(walk.extras) < self.n_points:
                extra = self._extra(k, centre, walk.centre_number, rng)
                if extra is not None:
                    return extra
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

    def _extra(
        self, k: int, centre: list[float], centre_number: int, rng: np.random.Generator
    ) -> Proposal | None:
        """A new neighbour of the best point on the level-``k`` grid, while the level's walk
        points still run (``None`` when every neighbour is taken).

        Starting the next level now would centre it on a best point that ignores them: with
        many workers every level would be laid around the level before last's best and the
        grid would halve on stale information. The extra points are marked ``"x"``.
        """
        gamma = [0.0] * self.dim
        best = self._best
        x_best = None if best is None else self._x.get(best.number)
        if x_best is not None:
            h = self.half_width(k)
            g = [(v - c) / h for v, c in zip(x_best.tolist(), centre)]
            if all(abs(v - round(v)) < 1e-9 and abs(round(v)) <= 1 for v in g):
                gamma = [float(round(v)) + 0.0 for v in g]
        # One coordinate changed, then two: a few draws each (the level grid is 3^M points).
        for changed in (1, 2):
            for _ in range(4 * self.dim if changed <= self.dim else 0):
                cand = list(gamma)
                for i in rng.choice(self.dim, changed, replace=False).tolist():
                    others = [v for v in (-1.0, 0.0, 1.0) if v != cand[i]]
                    cand[i] = others[int(rng.random() < 0.5)]
                x, key = self._grid_point(centre, k, cand)
                if key not in self._assigned:
                    prop = self._step_proposal(
                        np.array(x),
                        k,
                        centre_number,
                        self.n_points - 1,
                        np.array(cand),
                        np.array(gamma),
                        float(rng.random()),
                    )
                    prop.info["x"] = 1
                    return prop
        return None

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
        x, key = grid_point(centre, 0.0, [0.0] * self.dim, self._counts())
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
        # The walk ended without a new point: the next level starts now, unless its points
        # still run (then an extra point of this level, see _extra).
        walk = self._walks.get(k)
        if walk is not None and walk.running and len(walk.extras) < self.n_points:
            extra = self._extra(k, centre, centre_number, rng)
            if extra is not None:
                return extra
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
