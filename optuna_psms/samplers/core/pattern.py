"""Pattern search as used by PATSMS (Escalante, Montes & Sucar, JMLR 2009, Algorithm 2).

Pure numpy. The pattern is the nearest-neighbour pattern ``P = [I_d, -I_d]``: a *sweep*
evaluates ``q_g + delta * p_j`` for the ``2 d`` columns ``p_j`` of ``P`` (``+e_0 ... +e_{d-1}``
then ``-e_0 ... -e_{d-1}``), where ``q_g`` is the best point found so far (Algorithm 2 moves it
as soon as a point improves on it). The step starts at half the range (``0.5`` in the unit
box). Choices where the paper is vague, made here and documented in
:class:`~optuna_psms.PatternSearchSampler`:

* **step rule**: the prose of the paper ("if a new minimum is found then the center of the
  pattern is changed, otherwise the search step is reduced by half") and the printed
  Algorithm 2 ("halve after each sweep") disagree; the default ``"on_failure"`` halves the
  step exactly when a sweep brings no improvement, ``"always"`` halves after every sweep;
* **walls**: a pattern point leaving ``[0, 1]`` is put on the wall;
* **discrete coordinates** move by a whole number of cells, at least one
  (``max(1, round(delta * K))`` cells), and snap to cell centres;
* **repeats**: a pattern point that was already evaluated in the run (the old centre after
  the centre moved, a wall point, a discrete point that snapped back) is replaced by a
  uniform random exploration point instead of being evaluated twice;
* **convergence**: a run has converged when the step is below the resolution of every
  coordinate (``resolution`` for a continuous one, half a cell for a discrete one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import math
import struct

import numpy as np

from optuna_psms.samplers.core.base import beats
from optuna_psms.samplers.core.base import check_indices
from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.base import Proposal
from optuna_psms.samplers.core.base import Record
from optuna_psms.samplers.core.base import Strategy
from optuna_psms.samplers.core.settings import choice
from optuna_psms.samplers.core.settings import real


STEP_RULES = ("on_failure", "always")
#: Decimals of a continuous coordinate in a point's identity (repeat detection).
_KEY_DECIMALS = 9


def cells_of(dims: Sequence[Dim], dim: int) -> np.ndarray:
    """Number of cells per coordinate (``0`` for continuous), aligned with ``x``."""
    if len(dims) != dim:
        return np.zeros(dim, dtype=np.int64)
    return np.array([max(int(d.cells), 0) for d in dims], dtype=np.int64)


_grid_cache: dict[bytes, tuple[bool, np.ndarray, np.ndarray]] = {}


def _grid(cells: np.ndarray) -> tuple[bool, np.ndarray, np.ndarray]:
    """(any discrete, discrete mask, cell counts with 1 for continuous), cached per grid."""
    raw = cells.tobytes()
    hit = _grid_cache.get(raw)
    if hit is None:
        disc = cells > 0
        hit = (bool(disc.any()), disc, np.where(disc, cells, 1).astype(float))
        if len(_grid_cache) > 256:
            _grid_cache.clear()
        _grid_cache[raw] = hit
    return hit


def snap(x: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """Put every discrete coordinate on the centre of its cell; continuous ones unchanged.

    Below 33 coordinates the point is snapped in plain Python (:func:`snap_values`, the
    same floats), several times faster than numpy's calls on tiny arrays; the grid samplers
    snap a few points per trial.
    """
    if len(x) <= 32:
        values = np.asarray(x, dtype=float).tolist()
        return np.array(snap_values(values, cells.tolist()), dtype=float)
    return _snap_numpy(x, cells)


def _snap_numpy(x: np.ndarray, cells: np.ndarray) -> np.ndarray:
    out = np.array(x, dtype=float)
    any_disc, disc, k = _grid(cells)
    if not any_disc:
        return out
    centre: np.ndarray = (np.clip(np.floor(out * k), 0, k - 1) + 0.5) / k
    return np.where(disc, centre, out)


def point_key(x: np.ndarray, cells: np.ndarray) -> bytes:
    """The identity of a point: cell index of discrete coordinates, rounded continuous ones.

    Continuous coordinates are rounded to ``_KEY_DECIMALS`` decimals exactly as
    ``numpy.round`` does (scale, round half to even, unscale). Below 33 coordinates the
    key is computed in plain Python, which is several times faster on tiny arrays than numpy
    and gives the same bytes (``tests/samplers/test_pattern.py`` checks both paths agree).
    """
    if len(x) <= 32:
        return _point_key_small(x, cells)
    return _point_key_numpy(x, cells)


def _point_key_numpy(x: np.ndarray, cells: np.ndarray) -> bytes:
    key = np.round(np.asarray(x, dtype=float), _KEY_DECIMALS)
    any_disc, disc, k = _grid(cells)
    if any_disc:
        key = np.where(disc, np.clip(np.floor(key * k), 0, k - 1), key)
    return (key + 0.0).tobytes()  # + 0.0 turns -0.0 into 0.0


_SCALE = 10.0**_KEY_DECIMALS


def _point_key_small(x: np.ndarray, cells: np.ndarray) -> bytes:
    return key_of_values(np.asarray(x, dtype=float).tolist(), cells.tolist())


def key_of_values(values: Sequence[float], counts: Sequence[int]) -> bytes:
    """:func:`point_key` of a point given as Python floats, with cell counts as Python ints."""
    out = []
    for v, k in zip(values, counts):
        r = round(v * _SCALE) / _SCALE
        if k > 0:
            r = float(min(max(math.floor(r * k), 0), k - 1))
        out.append(r + 0.0)
    return struct.pack(f"={len(out)}d", *out)


def snap_values(values: Sequence[float], counts: Sequence[int]) -> list[float]:
    """:func:`snap` of a point given as Python floats (the same floats, without numpy)."""
    return [
        v if k <= 0 else (min(max(math.floor(v * k), 0), k - 1) + 0.5) / k
        for v, k in zip(values, counts)
    ]


def pattern_column(j: int, dim: int) -> tuple[int, float]:
    """Column ``j`` of ``P = [I_d, -I_d]`` as ``(coordinate, sign)``."""
    if not 0 <= j < 2 * dim:
        raise ValueError(f"column {j} out of range for dimension {dim}")
    return (j, 1.0) if j < dim else (j - dim, -1.0)


def pattern_point(
    centre: np.ndarray, j: int, step: float, cells: np.ndarray | None = None
) -> np.ndarray:
    """``centre + step * p_j``, clipped to the box; discrete coordinates move by whole cells.

    Args:
        centre: The current best point ``q_g`` in the unit box.
        j: Column of the pattern ``[I_d, -I_d]``.
        step: The step ``delta`` (fraction of the unit range).
        cells: Cells per coordinate (``0`` continuous); ``None`` means all continuous.

    Returns:
        The pattern point, with every discrete coordinate on a cell centre.
    """
    dim = centre.shape[0]
    if cells is None:
        cells = np.zeros(dim, dtype=np.int64)
    k, sign = pattern_column(j, dim)
    x = snap(centre, cells)
    if cells[k] > 0:
        kk = int(cells[k])
        cell = min(max(int(math.floor(float(centre[k]) * kk)), 0), kk - 1)
        move = max(1, int(math.floor(step * kk + 0.5)))
        new = min(max(cell + int(sign) * move, 0), kk - 1)
        x[k] = (new + 0.5) / kk
    else:
        x[k] = min(max(float(centre[k]) + sign * step, 0.0), 1.0)
    return x


def convergence_threshold(resolution: float, cells: np.ndarray) -> float:
    """The step under which every coordinate is resolved.

    A continuous coordinate needs ``step < resolution``; a discrete one with ``K`` cells is
    resolved once a sweep with one-cell moves failed, i.e. ``step < 0.5 / K``
    (but never finer than ``resolution``).
    """
    per_coordinate = [resolution if k <= 0 else max(resolution, 0.5 / float(k)) for k in cells]
    return float(min(per_coordinate)) if per_coordinate else float(resolution)


@dataclass(frozen=True)
class PatternSettings:
    """The settings of a PATSMS run (validated on construction).

    Attributes:
        initial_step: The first step, a fraction of each coordinate's range, in ``(0, 1]``.
        resolution: The smallest step of a continuous coordinate, in
            ``(0, initial_step]``; the run converges below it.
        step_rule: One of :data:`STEP_RULES`.
    """

    initial_step: float = 0.5
    resolution: float = 1e-4
    step_rule: str = "on_failure"

    def __post_init__(self) -> None:
        step = real("initial_step", self.initial_step, 0.0, 1.0, open_low=True)
        object.__setattr__(self, "initial_step", step)
        name = f"resolution (with initial_step={step!r})"
        object.__setattr__(
            self, "resolution", real(name, self.resolution, 0.0, step, open_low=True)
        )
        object.__setattr__(self, "step_rule", choice("step_rule", self.step_rule, STEP_RULES))


class PatternStrategy(Strategy):
    """PATSMS pattern search over trial numbers.

    Trial ``n`` of a run that started at trial ``r`` has index ``i = n - r``. Index 0 is the
    initial centre (uniform random; an enqueued trial there is the centre). Index ``i >= 1``
    is column ``j = (i - 1) % (2 d)`` of sweep ``s = (i - 1) // (2 d) + 1``: the point
    ``c + delta_s * p_j`` around the best finished point ``c`` known when it is asked (the
    current best ``q_g`` of Algorithm 2; in a sequential study this is Algorithm 2 exactly).

    ``delta_1 = initial_step``; when sweep ``s`` failed (rule ``"on_failure"``: none of its
    finished trials beat the best of the trials before the sweep, and every trial of the sweep
    finished, or at least half of them, ``d`` of ``2 d``: the *partial-stencil* rule),
    ``delta_{s+1} = min(delta_s, u_s / 2)`` with ``u_s`` the step its points were asked with
    (the largest ``"step"`` of its records); otherwise ``delta_{s+1} = delta_s``. In a
    sequential study a sweep is complete before the next one is asked and ``u_s = delta_s``:
    Algorithm 2. With other workers, a sweep of which fewer than ``d`` points have finished
    and none improved keeps the step (outcome unknown); half a sweep without an improvement
    halves it without waiting for the stragglers (a straggler that improves later turns the
    sweep into a success; the steps after it are recomputed from the records); and several
    sweeps asked at one step before any of them finished halve that step once, not once each.

    Args:
        dim: Number of coordinates ``d``.
        run_start: First trial number of the run.
        settings: The run's settings (:class:`PatternSettings`).
        dims: Per-coordinate descriptions (discrete coordinates move by whole cells).
    """

    def __init__(
        self,
        dim: int,
        run_start: int,
        *,
        settings: PatternSettings = PatternSettings(),
        dims: Sequence[Dim] = (),
    ) -> None:
        super().__init__(dim, run_start, dims)
        self.settings = settings
        self.initial_step = settings.initial_step
        self.resolution = settings.resolution
        self.step_rule = settings.step_rule
        self._cells_cache = cells_of(self.dims, dim)
        self._best: Record | None = None  # best finished record of the run (any member)
        self._first: Record | None = None  # lowest-numbered record (a centre before results)
        self._state: dict[int, float | None] = {}  # number -> loss as last told
        self._sweep_min: dict[int, float] = {}  # sweep -> lowest finished loss
        self._sweep_used: dict[int, float] = {}  # sweep -> largest step its points used
        self._sweep_told: dict[int, int] = {}  # sweep -> records told
        self._sweep_running: dict[int, int] = {}  # sweep -> records still running
        self._keys: set[bytes] = set()  # points evaluated or running in this run
        self._max_number = run_start - 1
        # Lazily extended prefixes: _before[s] = best loss of sweeps < s, _steps[s] = delta_s.
        self._before: list[float] = []
        self._steps: list[float] = []

    # ------------------------------------------------------------------ bookkeeping
    @property
    def sweep_size(self) -> int:
        return 2 * self.dim

    def sweep_of(self, number: int) -> tuple[int, int]:
        """``(sweep, column)`` of trial ``number``; sweep 0 is the initial centre."""
        i = number - self.run_start
        if i <= 0 or self.dim == 0:
            return 0, 0
        return (i - 1) // self.sweep_size + 1, (i - 1) % self.sweep_size

    def space_changed(self, dims: Sequence[Dim]) -> None:
        super().space_changed(dims)
        self._cells_cache = cells_of(self.dims, self.dim)

    def _cells(self) -> np.ndarray:
        return self._cells_cache

    def check(self, record: Record) -> str | None:
        # Column j of sweep s is trial run_start + (s - 1) * 2d + j + 1, so s <= n - start.
        reach = max(record.number - self.run_start, 0)
        return check_indices(record, max(self.sweep_size, 1), reach)

    def tell(self, record: Record) -> None:
        number = record.number
        s, _ = self.sweep_of(number)
        if number not in self._state:
            self._sweep_told[s] = self._sweep_told.get(s, 0) + 1
            if record.loss is None:
                self._sweep_running[s] = self._sweep_running.get(s, 0) + 1
            self._keys.add(point_key(record.x, self._cells()))
            used = record.info.get("step")
            if isinstance(used, float) and 0.0 < used <= 1.0 and s > 0:
                self._sweep_used[s] = max(used, self._sweep_used.get(s, 0.0))
            self._max_number = max(self._max_number, number)
            if self._first is None or number < self._first.number:
                self._first = record
        elif self._state[number] is not None:
            return  # a finished trial never changes
        elif record.loss is not None:
            self._sweep_running[s] -= 1
        self._state[number] = record.loss
        if record.loss is None:
            self._invalidate(s)
            return
        if beats(record, self._best):
            self._best = record
        self._sweep_min[s] = min(record.loss, self._sweep_min.get(s, math.inf))
        self._invalidate(s)

    def _invalidate(self, sweep: int) -> None:
        # The outcome of `sweep` feeds _before[sweep + 1] and _steps[sweep + 1].
        del self._before[sweep + 1 :]
        del self._steps[sweep + 1 :]

    def _outcome(self, s: int) -> str:
        """``"success"``, ``"failure"`` or ``"unknown"`` for sweep ``s >= 1``."""
        best_before = self.best_before(s)
        if self._sweep_min.get(s, math.inf) < best_before:
            return "success"
        told = self._sweep_told.get(s, 0)
        finished = told - self._sweep_running.get(s, 0)
        if told >= self.sweep_size and finished == told:
            return "failure"
        # The partial-stencil rule: half of the sweep finished without an improvement counts
        # as a failure while the rest still runs (a late improvement turns it into a success).
        return "failure" if 2 * finished >= self.sweep_size else "unknown"

    def best_before(self, s: int) -> float:
        """The lowest finished loss of the sweeps before ``s`` (``inf`` when none)."""
        while len(self._before) <= s:
            t = len(self._before)
            prev = self._before[t - 1] if t > 0 else math.inf
            self._before.append(min(prev, self._sweep_min.get(t - 1, math.inf)) if t else prev)
        return self._before[s]

    def step(self, s: int) -> float:
        """The step ``delta_s`` of sweep ``s >= 1``."""
        if self.step_rule == "always":
            return self.initial_step * 0.5 ** max(s - 1, 0)
        while len(self._steps) <= s:
            t = len(self._steps)  # delta_t from the outcome of sweep t - 1
            if t <= 1:
                self._steps.append(self.initial_step)
                continue
            prev = self._steps[t - 1]
            if self._outcome(t - 1) == "failure":
                # Half the step the failed sweep was evaluated at (in a sequential study, its
                # step): sweeps asked at one step while none had finished halve it once.
                prev = min(prev, 0.5 * self._sweep_used.get(t - 1, prev))
            self._steps.append(prev)
        return self._steps[s]

    def centre(self) -> Record | None:
        """The current best ``q_g``: best finished record, else the run's first record."""
        return self._best if self._best is not None else self._first

    # ------------------------------------------------------------------ Strategy API
    def ask(self, number: int, rng: np.random.Generator) -> Proposal:
        cells = self._cells()
        if self.dim == 0:
            return Proposal(np.empty(0), 0, 0, display={"sweep": 0, "point": 0})
        s, j = self.sweep_of(number)
        centre = self.centre()
        if s == 0 or centre is None:
            x = snap(rng.uniform(0.0, 1.0, self.dim), cells)
            display: dict[str, float | int] = {"sweep": s, "point": j}
            if s > 0:
                display["explore"] = 1
            return Proposal(x, j, s, info={}, display=display)
        delta = self.step(s)
        x = pattern_point(centre.x, j, delta, cells)
        info: dict[str, float | int] = {"step": delta, "centre": centre.number}
        display = {"sweep": s, "point": j, "step": delta}
        if point_key(x, cells) in self._keys:
            x = snap(rng.uniform(0.0, 1.0, self.dim), cells)
            info["explore"] = 1
            display["explore"] = 1
        return Proposal(x, j, s, info=info, display=display)

    def current_step(self) -> float:
        """The step of the sweep the next trial belongs to."""
        s, _ = self.sweep_of(self._max_number + 1)
        return self.step(max(s, 1))

    def converged(self) -> bool:
        if self.dim == 0:
            return False
        return self.current_step() < convergence_threshold(self.resolution, self._cells())

    def levels(self) -> int:
        """Number of distinct steps a run goes through before it converges."""
        thr = convergence_threshold(self.resolution, self._cells())
        n, step = 0, self.initial_step
        while step >= thr and n < 200:
            n += 1
            step *= 0.5
        return max(n, 1)

    def budget(self) -> int:
        """Evaluations of a run in which every sweep fails: ``1 + 2 d * levels``."""
        return 1 + self.sweep_size * self.levels()
