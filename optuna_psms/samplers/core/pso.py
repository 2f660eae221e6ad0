"""Particle swarm optimisation as used by PSMS (Escalante, Montes & Sucar, JMLR 2009).

Pure numpy. The update for particle ``i`` at iteration ``t >= 1`` is (paper, Eqs. 1-2)::

    v <- W_t * v + c1 * r1 * (p_i - x) + c2 * r2 * (p_g - x)
    x <- x + v

with ``r1, r2 ~ U[0, 1]`` drawn per dimension and the adaptive inertia ``W_t`` of
:func:`inertia_weight`. Choices the paper leaves open, made here and documented in
:class:`~optuna_psms.PSOSampler`:

* positions live in the unit box; iteration 0 draws ``x ~ U[0, 1]^d`` and
  ``v ~ U[-v_max, v_max]^d``;
* every velocity component is clamped to ``[-v_max, v_max]`` (``v_max = 0.5``: half the
  range of a coordinate);
* a boundary rule for a coordinate that would leave ``[0, 1]`` (:data:`BOUNDARIES`,
  :func:`move`): ``"damping"`` (:class:`~optuna_psms.PSOSampler`'s default), ``"reflect"``,
  ``"random"``, or ``"absorb"`` (put on the wall, velocity component zero; this package's
  earlier rule, the paper does not state one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import math
from typing import Any

import numpy as np

from optuna_psms.samplers.core.base import better
from optuna_psms.samplers.core.base import check_indices
from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.base import Proposal
from optuna_psms.samplers.core.base import Record
from optuna_psms.samplers.core.base import Strategy
from optuna_psms.samplers.core.settings import choice
from optuna_psms.samplers.core.settings import integer
from optuna_psms.samplers.core.settings import real


def inertia_weight(
    iteration: int, n_iterations: int, w_start: float, w_fraction: float, w_end: float
) -> float:
    """The PSMS adaptive inertia weight ``W = (w_start, w_fraction, w_end)``.

    ``W`` equals ``w_start`` at the first update (``iteration == 1``), falls by
    ``w_dec = (w_start - w_end) / (n_iterations * w_fraction)`` per iteration, and stays at
    ``w_end`` from iteration ``1 + n_iterations * w_fraction`` on.

    Args:
        iteration: The iteration being computed (1-based; iteration 0 is the random start).
        n_iterations: The number of iterations ``I`` the schedule is laid out over.
        w_start: Initial inertia.
        w_fraction: Fraction of the iterations during which the inertia decreases.
        w_end: Final inertia.

    Returns:
        The inertia weight.
    """
    span = n_iterations * w_fraction
    if span <= 0:
        return float(w_end)
    w_dec = (w_start - w_end) / span
    w = w_start - max(iteration - 1, 0) * w_dec
    return float(max(w, w_end)) if w_start >= w_end else float(min(w, w_end))


def velocity_update(
    x: np.ndarray,
    v: np.ndarray,
    personal_best: np.ndarray,
    global_best: np.ndarray,
    *,
    w: float,
    c1: float,
    c2: float,
    r1: np.ndarray,
    r2: np.ndarray,
    v_max: float,
) -> np.ndarray:
    """Eq. 1 of the paper followed by clamping to ``[-v_max, v_max]``."""
    v_new = w * v + c1 * r1 * (personal_best - x) + c2 * r2 * (global_best - x)
    clamped: np.ndarray = np.minimum(np.maximum(v_new, -v_max), v_max)  # np.clip, faster
    return clamped


#: Boundary rules of :func:`move` (Helwig, Branke & Mostaghim, IEEE TEC 2013, review them).
BOUNDARIES = ("absorb", "reflect", "random", "damping")


def move(
    x: np.ndarray,
    v: np.ndarray,
    boundary: str = "absorb",
    rng: np.random.Generator | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 2 with a boundary rule: returns the new position and the corrected velocity.

    ``x`` is in ``[0, 1]`` and ``|v| <= 1``, so ``x + v`` overshoots a wall by at most 1.
    For each coordinate that would leave the box, with ``o`` the overshoot past the wall:

    * ``"absorb"``: stop on the wall, velocity component 0;
    * ``"reflect"``: mirror at the wall (``o`` inside), velocity component negated;
    * ``"random"``: uniform between the old position and the crossed wall, velocity the
      displacement actually made;
    * ``"damping"`` (Huang & Mohan 2005): mirror with the overshoot and the velocity scaled
      by ``-r``, ``r ~ U[0, 1]``.

    ``"random"`` and ``"damping"`` draw one uniform per coordinate from ``rng`` (always, so
    the stream does not depend on which coordinates left the box).
    """
    x_new = x + v
    low, high = x_new < 0.0, x_new > 1.0
    out = low | high
    if boundary == "absorb":
        v_new = np.where(out, 0.0, v)
        return np.minimum(np.maximum(x_new, 0.0), 1.0), v_new
    if boundary == "reflect":
        pos = np.where(low, -x_new, np.where(high, 2.0 - x_new, x_new))
        return np.minimum(np.maximum(pos, 0.0), 1.0), np.where(out, -v, v)
    if rng is None:
        raise ValueError(f"boundary={boundary!r} needs a random generator.")
    r = rng.random(x.shape)
    if boundary == "random":
        wall = np.where(low, 0.0, 1.0)
        pos = np.where(out, x + r * (wall - x), x_new)
        return pos, np.where(out, pos - x, v)
    if boundary == "damping":
        pos = np.where(low, -r * x_new, np.where(high, 1.0 - r * (x_new - 1.0), x_new))
        return np.minimum(np.maximum(pos, 0.0), 1.0), np.where(out, -r * v, v)
    raise ValueError(f"boundary must be one of {BOUNDARIES}, got {boundary!r}.")


#: Neighbourhoods of the social term: the whole swarm, or particles ``i - 1, i, i + 1``.
TOPOLOGIES = ("global", "ring")


@dataclass(frozen=True)
class PSOSettings:
    """The settings of a PSMS swarm (validated on construction).

    Attributes:
        swarm_size: Number of particles ``m``.
        c1: Weight of the personal best.
        c2: Weight of the global (or ring-neighbourhood) best.
        inertia: ``(w_start, w_fraction, w_end)`` of :func:`inertia_weight`.
        n_iterations: Iterations the inertia schedule is laid out over.
        v_max: Velocity clamp, as a fraction of the unit range.
        topology: One of :data:`TOPOLOGIES`.
        boundary: One of :data:`BOUNDARIES` (see :func:`move`).
    """

    swarm_size: int = 5
    c1: float = 2.0
    c2: float = 2.0
    inertia: tuple[float, float, float] = (1.2, 0.5, 0.4)
    n_iterations: int = 50
    v_max: float = 0.5
    topology: str = "global"
    boundary: str = "damping"

    def __post_init__(self) -> None:
        inertia: Any = self.inertia
        if not isinstance(inertia, tuple | list) or len(inertia) != 3:
            raise ValueError(f"inertia must be (w_start, w_fraction, w_end), got {inertia!r}.")
        checked = {
            "swarm_size": integer("swarm_size", self.swarm_size, 1),
            "c1": real("c1", self.c1, 0.0),
            "c2": real("c2", self.c2, 0.0),
            "inertia": (
                real("inertia w_start", inertia[0], -math.inf),
                real("inertia w_fraction", inertia[1], 0.0, 1.0),
                real("inertia w_end", inertia[2], -math.inf),
            ),
            "n_iterations": integer("n_iterations", self.n_iterations, 1),
            "v_max": real("v_max", self.v_max, 0.0, 1.0, open_low=True),
            "topology": choice("topology", self.topology, TOPOLOGIES),
            "boundary": choice("boundary", self.boundary, BOUNDARIES),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)


class PSOStrategy(Strategy):
    """Synchronous PSMS swarm over trial numbers.

    Trial ``n`` of a run that started at trial ``s`` drives particle ``(n - s) % m`` at
    iteration ``(n - s) // m``: every (particle, iteration) pair is exactly one trial, whatever
    the number of workers. The global best used at iteration ``t`` is the best finished trial
    of iterations ``< t`` (the paper's synchronous update) plus any trial the sampler did not
    create; the personal best is the particle's best finished trial. The step starts from the
    particle's latest trial that has not failed (a running one counts: its position and
    velocity are known), so a failed trial leaves the particle's state as it was.

    Args:
        dim: Number of coordinates.
        run_start: First trial number of the run.
        settings: The swarm's settings (:class:`PSOSettings`).
        dims: Per-coordinate descriptions.
    """

    vector_names = ("v",)

    def __init__(
        self,
        dim: int,
        run_start: int,
        *,
        settings: PSOSettings = PSOSettings(),
        dims: Sequence[Dim] = (),
    ) -> None:
        super().__init__(dim, run_start, dims)
        self.settings = settings
        self.swarm_size = settings.swarm_size
        self.c1 = settings.c1
        self.c2 = settings.c2
        self.inertia = settings.inertia
        self.n_iterations = settings.n_iterations
        self.v_max = settings.v_max
        self.topology = settings.topology
        self.boundary = settings.boundary
        self._by_member: dict[int, dict[int, Record]] = {}
        self._personal_best: dict[int, Record] = {}
        self._foreign_best: Record | None = None
        self._gen_best: list[Record | None] = []
        self._prefix: list[Record | None] = []

    def check(self, record: Record) -> str | None:
        # Iteration t of a particle is trial run_start + t * m + particle, so t <= n - start.
        reach = max(record.number - self.run_start, 0)
        problem = check_indices(record, self.swarm_size, reach)
        if problem is not None:
            return problem
        v = record.vectors.get("v")
        if v is not None and not bool((np.abs(v) <= self.v_max * (1 + 1e-9)).all()):
            return f"a velocity component beyond v_max = {self.v_max}"
        return None

    def tell(self, record: Record) -> None:
        if record.member < 0:
            if record.ok:
                self._foreign_best = better(self._foreign_best, record)
            return
        self._by_member.setdefault(record.member, {})[record.generation] = record
        if not record.ok:
            return
        best = better(self._personal_best.get(record.member), record)
        assert best is not None
        self._personal_best[record.member] = best
        g = record.generation
        while len(self._gen_best) <= g:
            self._gen_best.append(None)
        if better(self._gen_best[g], record) is record:
            self._gen_best[g] = record
            del self._prefix[g:]

    def _best_before(self, iteration: int) -> Record | None:
        """Best finished record of iterations ``< iteration`` (amortised O(1))."""
        upto = min(iteration, len(self._gen_best))
        while len(self._prefix) < upto:
            prev = self._prefix[-1] if self._prefix else None
            self._prefix.append(better(prev, self._gen_best[len(self._prefix)]))
        best = self._prefix[upto - 1] if upto > 0 else None
        return better(best, self._foreign_best)

    def _neighbourhood_best(self, member: int) -> Record | None:
        best = self._foreign_best
        for k in (member - 1, member, member + 1):
            best = better(best, self._personal_best.get(k % self.swarm_size))
        return best

    def _base(self, member: int, iteration: int) -> Record | None:
        history = self._by_member.get(member, {})
        for g in range(iteration - 1, -1, -1):  # usually stops at the first step
            rec = history.get(g)
            if rec is not None and (rec.loss is None or rec.ok):
                return rec
        return None

    def ask(self, number: int, rng: np.random.Generator) -> Proposal:
        i = number - self.run_start
        member, iteration = i % self.swarm_size, i // self.swarm_size
        display = {"particle": member, "iteration": iteration}
        base = self._base(member, iteration) if iteration > 0 else None
        if base is None:
            x = rng.uniform(0.0, 1.0, self.dim)
            v = rng.uniform(-self.v_max, self.v_max, self.dim)
            return Proposal(x, member, iteration, {"v": v}, {}, display)
        r1, r2 = rng.random((2, self.dim))
        own = self._personal_best.get(member)
        p_i = own.x if own is not None else base.x
        social = (
            self._neighbourhood_best(member)
            if self.topology == "ring"
            else self._best_before(iteration)
        )
        p_g = social.x if social is not None else p_i
        w = inertia_weight(iteration, self.n_iterations, *self.inertia)
        v_base = base.vectors.get("v")
        v = velocity_update(
            base.x,
            np.zeros(self.dim) if v_base is None else v_base,
            p_i,
            p_g,
            w=w,
            c1=self.c1,
            c2=self.c2,
            r1=r1,
            r2=r2,
            v_max=self.v_max,
        )
        x, v = move(base.x, v, self.boundary, rng)
        return Proposal(x, member, iteration, {"v": v}, {"w": w}, display)

    def budget(self) -> int:
        return self.swarm_size * self.n_iterations
