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

Foreign trials
    A trial that is COMPLETE or PRUNED without a record of this sampler (``study.add_trial``,
    a trial of another sampler or algorithm, an enqueued trial another sampler ran, a record
    that fails validation) takes no slot in PSO, pattern search and the focused grids: trial
    numbers after it shift down by one, as after a retry, so that no particle loses an
    iteration and no sweep a column to it. It is still told to the strategy, as information
    from before the run (:meth:`Numbering.slot` gives it ``-1 - number``): PSO counts it in
    the global best, pattern search and the focused grids in their best point. In UMDA,
    BUMDA and dynamic random search (``foreign_trials_take_slots = True`` on the sampler),
    whose samples have no identity across generations, it keeps its slot: it joins the
    generation of its slot as one of its samples, and the model of the next generation is
    fitted to it too. A FAILed trial without a record keeps its slot everywhere (it may be
    a trial of this sampler whose worker died before writing the record). An enqueued trial
    this sampler asks is not foreign: it is the member's trial of its slot, at the enqueued
    point.

    Exact when a foreign trial is finished before the later trials are created (``add_trial``
    creates a finished trial; another sampler's trials run earlier in the study): every
    process then sees it finished and shifts the same trials. A foreign trial still running
    while later trials are asked (another sampler's workers running at the same time) keeps
    the slot those trials reserved for it, and in a narrow race between two workers a slot
    may be evaluated twice.

    Every record stores its slot (``sl``), so a trial's slot never changes once asked and a
    fresh process replays the same slots. A study with a record without ``sl`` (written
    before this rule) keeps the earlier rule (foreign trials take a slot), so that it
    continues exactly.

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
        self._foreign: list[int] = []  # sorted numbers of the foreign trials (no slot)
        self._foreign_set: set[int] = set()
        self._stored: dict[int, int] = {}  # trial number -> slot stored in its record
        self._anchors: list[int] = []  # sorted trials whose stored slot was asked for them
        #: A record without a stored slot was read: foreign trials take a slot (older rule).
        self.legacy = False

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
        i = bisect_left(self._anchors, number)
        if i < len(self._anchors) and self._anchors[i] == number:
            del self._anchors[i]  # stored before it was known as a retry: no anchor
        return previous

    def add_foreign(self, number: int) -> None:
        """Register a finished trial without a record of this sampler (takes no slot)."""
        if number not in self._foreign_set:
            self._foreign_set.add(number)
            insort(self._foreign, number)

    def store(self, number: int, slot: int | None, anchor: bool = True) -> None:
        """The slot a record stores (``None``: a record written before slots were stored).

        ``anchor``: the slot was computed for this very trial's number, so later slots may
        be counted from it. Never for a retry (registered with :meth:`add_retry`): its slot
        is its dead trial's, whether its record was copied from the dead trial or written
        when the retry was asked (its dead trial had none); counted from it, the trials
        after a retry made ``k`` trials after its dead trial got slots ``k - 1`` too low.
        """
        if slot is None:
            self.legacy = True
        elif number not in self._stored:
            self._stored[number] = slot
            if anchor and number not in self._root:
                insort(self._anchors, number)

    def stored(self, number: int) -> int | None:
        """The slot trial ``number``'s record stores, if read."""
        return self._stored.get(number)

    def unslotted(self, number: int) -> bool:
        """Whether trial ``number`` is a foreign trial that takes no slot."""
        return not self.legacy and number in self._foreign_set

    def _between(self, numbers: list[int], low: int, high: int) -> int:
        """How many of the sorted ``numbers`` lie in ``[low, high)``."""
        return bisect_left(numbers, high) - bisect_left(numbers, low) if numbers else 0

    def start_slot(self, number: int) -> int:
        """The slot of a run starting at trial ``number``: the slot of the first trial of
        this sampler from ``number`` on (``number`` itself may be a foreign trial)."""
        stored = self._stored.get(number)
        if stored is not None:
            return stored
        return self._counted(number)

    def _counted(self, number: int) -> int:
        """The slot of a new trial ``number``: counted from the latest stored slot before it
        (a slot once stored never changes, even should an earlier trial turn foreign later,
        e.g. a record found invalid), shifted by the retries and foreign trials since."""
        i = bisect_left(self._anchors, number)
        if i:
            anchor = self._anchors[i - 1]
            shift, low = anchor - self._stored[anchor], anchor + 1
        else:
            shift, low = 0, 0
        shift += self._between(self._retries, low, number)
        if not self.legacy:
            shift += self._between(self._foreign, low, number)
        return number - shift

    def slot(self, number: int) -> int:
        """The number a strategy sees for trial ``number`` (its record's, once stored)."""
        stored = self._stored.get(number)
        if stored is not None:
            return stored
        if self.unslotted(number):
            return -1 - number  # before every slot, and unique
        root = self._root.get(number)
        if root is not None:
            stored = self._stored.get(root)
            return stored if stored is not None else self._counted(root)
        return self._counted(number)


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
