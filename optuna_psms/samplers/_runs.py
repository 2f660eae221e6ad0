"""Slot bookkeeping of the adapter: which trial number a strategy sees for each trial.

Every strategy assigns a trial to its slot (particle and iteration, generation and sample,
...) from its trial number. Two kinds of trials break the one-number-one-slot rule, and this
module maps trial numbers to the *slot numbers* a strategy is given instead:

Retries
    Optuna's :class:`~optuna.storages.RetryHeartbeatStaleTrialCallback` (Optuna >= 4.9;
    ``RetryFailedTrialCallback`` before, its deprecated alias from 4.9) with the heartbeat
    turns a dead worker's trial into ``FAIL`` and adds a ``WAITING`` copy of it: same parameters,
    same system attrs (so the same sampler record: same member, same iteration), with
    ``failed_trial`` naming the first trial of the chain. The copy *is* the dead trial for
    the strategy: it gets the dead trial's slot number, the dead trial itself is no longer
    told (it is *superseded*), and trial numbers after the copy are shifted down by one, so
    the slot of the copy's own number is still evaluated by the next trial. A member
    therefore continues from its state before the crash and no slot is repeated or skipped.
    A worker killed in ``ask`` before the sampler wrote the trial's record leaves a retry
    without one; it takes the dead trial's slot all the same (the view registers a retry
    when it first reads it, record or not), and its record is written when it is asked.

    The mapping of trial ``n`` depends only on the retries with a number below ``n``; a
    retry is created with its attrs in one storage call, before any later trial exists, so
    every process that asks trial ``n`` maps it the same way.

The rest of the adapter uses real trial numbers everywhere (records, run starts, the fill
draws); :class:`Renumbered` translates at the strategy boundary.
"""

from __future__ import annotations

from bisect import bisect_left
from bisect import insort
from collections.abc import Sequence
from typing import Any

import numpy as np

from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.base import Proposal
from optuna_psms.samplers.core.base import Record
from optuna_psms.samplers.core.base import Strategy


#: System attr written by :class:`~optuna.storages.RetryHeartbeatStaleTrialCallback` (and
#: its older name ``RetryFailedTrialCallback``): the first trial of a retry chain.
RETRY_ATTR = "failed_trial"


def retry_root(number: int, system_attrs: dict[str, Any]) -> int | None:
    """The trial that ``number`` retries (its chain's first trial), or ``None``."""
    root = system_attrs.get(RETRY_ATTR)
    if isinstance(root, bool) or not isinstance(root, int) or not 0 <= root < number:
        return None
    return root


class Numbering:
    """Trial number to slot number (see the module documentation)."""

    def __init__(self) -> None:
        self._retries: list[int] = []  # sorted trial numbers of the retries
        self._root: dict[int, int] = {}  # retry -> first trial of its chain
        self._latest: dict[int, int] = {}  # first trial of a chain -> its latest retry
        self.superseded: set[int] = set()
        self.predecessor: dict[int, int] = {}  # retry -> the trial it replaces

    def add_retry(self, number: int, root: int) -> int | None:
        """Register retry ``number`` of ``root``; returns the trial it supersedes, if new."""
        if number in self._root:
            return None
        previous = self._latest.get(root, root)
        if number < previous:  # an older retry read late: the newer one stands
            self.superseded.add(number)
            previous = number
        else:
            self._latest[root] = number
            self.superseded.add(previous)
        self._root[number] = root
        self.predecessor[number] = previous
        insort(self._retries, number)
        return previous

    def slot(self, number: int) -> int:
        """The number a strategy sees for trial ``number``."""
        number = self._root.get(number, number)
        if not self._retries:
            return number
        return number - bisect_left(self._retries, number)


class Renumbered(Strategy):
    """A strategy seen through a :class:`Numbering` (trial numbers in, slot numbers inside).

    ``run_start`` is the run's first *trial* number, as the adapter compares it.
    """

    def __init__(self, inner: Strategy, numbering: Numbering, run_start: int) -> None:
        # No super().__init__: ``dim`` and ``dims`` belong to the inner strategy.
        self.inner = inner
        self.numbering = numbering
        self.run_start = run_start
        self.vector_names = inner.vector_names

    @property
    def dim(self) -> int:  # type: ignore[override]
        return self.inner.dim

    @property
    def dims(self) -> tuple[Dim, ...]:
        return self.inner.dims

    @dims.setter
    def dims(self, value: tuple[Dim, ...]) -> None:
        self.inner.dims = value

    def space_changed(self, dims: Sequence[Dim]) -> None:
        self.inner.space_changed(dims)

    def _in_slots(self, record: Record) -> Record:
        slot = self.numbering.slot(record.number)
        if slot == record.number:
            return record
        return Record(
            slot,
            record.member,
            record.generation,
            record.x,
            record.vectors,
            record.info,
            record.loss,
            record.ours,
        )

    def check(self, record: Record) -> str | None:
        # The algorithm's own validation of a stored record, in slot numbers (without this,
        # the base class would accept every record: hostile records reached the core).
        return self.inner.check(self._in_slots(record))

    def tell(self, record: Record) -> None:
        self.inner.tell(self._in_slots(record))

    def ask(self, number: int, rng: np.random.Generator) -> Proposal:
        return self.inner.ask(self.numbering.slot(number), rng)

    def converged(self) -> bool:
        return self.inner.converged()

    def budget(self) -> int | None:
        return self.inner.budget()
