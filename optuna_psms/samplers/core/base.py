"""The contract between the Optuna adapter and an algorithm core.

A *strategy* sees the study as a set of :class:`Record` objects (one per trial, in the
unit box) and proposes the next point. Its state must be a function of the *set* of records
it has been told about, never of the order in which they arrived: this is what lets a fresh
process that reads all trials at once continue a study exactly, and what lets the adapter
rebuild a strategy from scratch when the search space grows.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
import math
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Dim:
    """What a strategy may know about one coordinate (no Optuna types).

    Attributes:
        name: The parameter name.
        kind: ``"float"``, ``"int"`` or ``"categorical"``.
        cells: Number of distinct values for a discrete coordinate (categorical, int,
            float with ``step``); ``0`` for a continuous one. Cell ``k`` of ``cells`` covers
            ``[k / cells, (k + 1) / cells)``; its centre ``(k + 0.5) / cells`` is its snap point.
        log: Whether the coordinate is on a log scale.
    """

    name: str
    kind: str
    cells: int
    log: bool = False


@dataclass(slots=True)
class Record:
    """One trial as a strategy sees it.

    Attributes:
        number: The trial number.
        member: The population member (particle, slot) the trial belongs to; ``-1`` for a
            trial the sampler did not create (added with ``add_trial``, another sampler).
        generation: The member's iteration or the population's generation; ``-1`` when
            unknown.
        x: The position in the unit box, aligned with the adapter's parameter names.
        vectors: Further per-dimension vectors the strategy stored (e.g. ``"v"``).
        info: Further JSON scalars the strategy stored.
        loss: ``None`` while running; otherwise the value to minimise, ``inf`` for a failed,
            pruned, NaN or infinite trial; an infeasible trial's is
            :func:`constrained_loss`'s, above every feasible one.
        ours: Whether the record was written by this kind of sampler.
    """

    number: int
    member: int
    generation: int
    x: np.ndarray
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    loss: float | None = None
    ours: bool = True

    @property
    def finished(self) -> bool:
        return self.loss is not None

    def with_loss(self, loss: float | None) -> Record:
        """This record with another loss (``dataclasses.replace``, without its overhead)."""
        return Record(
            self.number,
            self.member,
            self.generation,
            self.x,
            self.vectors,
            self.info,
            loss,
            self.ours,
        )

    @property
    def ok(self) -> bool:
        """Finished with a finite loss."""
        return self.loss is not None and math.isfinite(self.loss)


def check_indices(record: Record, members: int, generations: int) -> str | None:
    """Why ``record``'s member and generation are not in ``[0, members)`` x ``[0, generations]``.

    ``(-1, -1)`` (the adapter's fallback proposal, told like a foreign trial) is accepted.
    """
    if record.member == -1 and record.generation == -1:
        return None
    if not 0 <= record.member < members:
        return f"member {record.member} outside [0, {members - 1}]"
    if not 0 <= record.generation <= generations:
        return f"generation {record.generation} outside [0, {generations}]"
    return None


#: Every infeasible trial's loss is at least this (2**300, about 2e90): above any feasible
#: loss, so a core that ranks losses ranks by Deb's rules (see :func:`constrained_loss`).
INFEASIBLE = 2.0**300
#: The largest infeasible loss (2**400): violations above ``2**100`` tie. Squares and sums of
#: such losses stay finite (no core overflows computing a spread or a weight from them).
_INFEASIBLE_MAX = 2.0**400


def constrained_loss(loss: float, violation: float) -> float:
    """The loss a core sees for a trial with ``loss`` and total constraint ``violation``.

    Deb's rules in one number, so that every core ranks constrained trials without knowing
    about constraints: a feasible trial (``violation <= 0``) keeps its loss (capped just below
    :data:`INFEASIBLE`); an infeasible one gets ``INFEASIBLE * (1 + violation)``, above every
    feasible loss, lower for a smaller violation, whatever its objective value. A failed
    trial (``loss`` infinite) stays infinite. ``INFEASIBLE`` is a power of two, so the
    product is exact: two violations rank as ``1 + violation`` rounds (violations closer
    than about ``1e-16 * (1 + violation)`` tie, and ties go to the lower trial number).
    """
    if math.isinf(loss) and loss > 0:
        return loss
    if not violation > 0.0:  # feasible (NaN never reaches here: the reader maps it to inf)
        return min(loss, _BELOW_INFEASIBLE)
    return min(INFEASIBLE * (1.0 + violation), _INFEASIBLE_MAX)


_BELOW_INFEASIBLE = math.nextafter(INFEASIBLE, 0.0)


def beats(b: Record, a: Record | None) -> bool:
    """Whether finished record ``b`` is strictly better than ``a`` (``None``: no record).

    Lower loss wins; between equal losses the lower trial number wins, so the order of
    records is total and does not depend on the order in which they were told.
    """
    if a is None:
        return True
    assert a.loss is not None and b.loss is not None
    return (b.loss, b.number) < (a.loss, a.number)


def better(a: Record | None, b: Record | None) -> Record | None:
    """The better of two finished records (either may be ``None``), as in :func:`beats`."""
    if b is None:
        return a
    return b if beats(b, a) else a


@dataclass
class Proposal:
    """The next point a strategy asks to evaluate.

    Attributes:
        x: Position in the unit box (values outside ``[0, 1]`` are clipped by the adapter).
        member: The member this trial drives.
        generation: Its iteration or generation.
        vectors: Per-dimension vectors to store with the trial (e.g. the velocity).
        info: JSON scalars to store with the trial.
        display: Small scalars shown in optuna-dashboard as ``psms:<key>`` user attrs.
    """

    x: np.ndarray
    member: int
    generation: int
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    display: dict[str, Any] = field(default_factory=dict)


class Strategy(abc.ABC):
    """An algorithm core working in ``[0, 1]^dim``.

    Args:
        dim: Number of coordinates.
        run_start: The trial number at which this run (a start or a restart) began.
        dims: Per-coordinate descriptions (same order as ``x``); may be empty in unit tests.
    """

    #: Names of the per-dimension vectors this strategy stores besides ``x``.
    vector_names: tuple[str, ...] = ()

    def __init__(self, dim: int, run_start: int, dims: Sequence[Dim] = ()) -> None:
        self.dim = dim
        self.run_start = run_start
        self.dims: tuple[Dim, ...] = tuple(dims)

    @abc.abstractmethod
    def tell(self, record: Record) -> None:
        """Take a record into account.

        Called once when the adapter first sees a trial (``record.loss`` may be ``None``) and
        once more when that trial finishes. A finished trial seen for the first time is told
        once. The resulting state must not depend on the order of calls.
        """

    @abc.abstractmethod
    def ask(self, number: int, rng: np.random.Generator) -> Proposal:
        """Propose the point for trial ``number``; must not change the strategy's state."""

    def space_changed(self, dims: Sequence[Dim]) -> None:
        """The adapter's call when a parameter's distribution changed (same coordinates).

        ``dims`` replaces :attr:`dims`, one per coordinate in the same order (a new range,
        a new number of cells). Records keep their unit-box coordinates, so a strategy only
        refreshes what it derived from the old descriptions. A parameter that appears
        mid-study is not this call: the adapter then makes fresh strategies and replays
        every record. Default: keep the new descriptions.
        """
        if len(dims) != self.dim:
            raise ValueError(f"space_changed got {len(dims)} dims for {self.dim} coordinates.")
        self.dims = tuple(dims)

    def check(self, record: Record) -> str | None:
        """Why the strategy cannot use a record of its own kind (``None``: it can).

        Records come from storage, which anyone may write to. The adapter has already
        checked their types and generic ranges (``optuna_psms/samplers/_records.py``: coordinates
        in
        ``[0, 1]``, finite vectors, bounded indices); this checks what only the algorithm
        knows (a member of the population, a level of the grid, ...), so that no stored
        number can make :meth:`tell` or :meth:`ask` allocate, loop or index by it. A record
        refused here is told as a foreign trial. The answer must depend only on the record
        and the strategy's settings (never on what it was told), so that every process
        reads a study alike. Default: every record is usable.
        """
        return None

    def converged(self) -> bool:
        """Whether this run has nothing more to learn (see ``on_converged``)."""
        return False

    def budget(self) -> int | None:
        """The number of evaluations a full run is designed for (the PFC denominator)."""
        return None
