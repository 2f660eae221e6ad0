"""Bookkeeping shared by the generational strategies (UMDA, BUMDA, dynamic random search).

Pure numpy, no Optuna. A *generational* strategy samples a population of ``size`` points per
generation (a *batch* in random search with dynamic updating) from a model, and fits the next
generation's model from the results of the previous one.

Trial assignment
    Trial ``n`` of a run that started at trial ``s`` is sample ``(n - s) % size`` of
    generation ``(n - s) // size``, whatever the number of workers, so every (generation,
    sample) slot is exactly one trial. A trial the sampler did not create (``add_trial``,
    another sampler) joins the generation whose slot its number occupies.

Models and concurrency
    The model of generation 0 is the strategy's initial one (uniform). The model of
    generation ``g >= 1`` is fitted from the trials of generation ``g - 1`` finished when a trial
    of generation ``g`` is asked (and from the previous model, for strategies that carry state
    over), provided that at least half of
    generation ``g - 1`` has finished (``ceil(size / 2)`` trials) and at least two of those
    succeeded; otherwise (workers still evaluating, mass failures) generation ``g`` reuses
    generation ``g - 1``'s model. When a trial of generation ``k`` finishes later, the models of
    generations ``> k`` are refitted the next time they are needed, so the state is always a
    function of the set of records told, never of their order.

Cost
    Each model is fitted once (``O(size x dims)``) and cached; a late result invalidates the
    cached models after its generation only. ``ask`` reads one cached model and samples
    ``O(dims)`` numbers; ``tell`` is ``O(1)``.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
import math
from typing import Generic
from typing import TypeVar

import numpy as np

from optuna_psms.samplers.core.base import check_indices
from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.base import Record
from optuna_psms.samplers.core.base import Strategy


M = TypeVar("M")


def n_required(size: int) -> int:
    """Finished trials of a generation needed before the next model is fitted from them."""
    return max(1, math.ceil(size / 2))


def sort_records(records: Sequence[Record]) -> list[Record]:
    """Records by trial number (the tie-break of every ranking in this package)."""
    return sorted(records, key=lambda r: r.number)


def rank_finite(losses: np.ndarray) -> np.ndarray:
    """Indices of the finite losses, best first; ties keep the given (trial-number) order."""
    losses = np.asarray(losses, dtype=float)
    finite = np.flatnonzero(np.isfinite(losses))
    order = np.argsort(losses[finite], kind="stable")
    return finite[order]


class GenerationalStrategy(Strategy, Generic[M]):
    """Base class: trial-to-slot assignment, per-generation records, cached models.

    Args:
        dim: Number of coordinates.
        run_start: First trial number of the run.
        size: Trials per generation (population or batch size).
        n_generations: Generations a run is designed for (``None``: unlimited); a run whose
            trials fill ``size * n_generations`` slots reports convergence (budget used up).
        dims: Per-coordinate descriptions.
    """

    def __init__(
        self,
        dim: int,
        run_start: int,
        *,
        size: int,
        n_generations: int | None,
        dims: Sequence[Dim] = (),
    ) -> None:
        super().__init__(dim, run_start, dims)
        if size < 1:
            raise ValueError(f"size must be positive, got {size!r}.")
        self.size = int(size)
        self.n_generations = n_generations
        self._records: dict[int, dict[int, Record]] = {}
        self._finished: dict[int, int] = {}
        self._models: list[M] = []
        self._last_number = run_start - 1
        self._latest_full = -1

    # ------------------------------------------------------------------ bookkeeping
    def generation_of(self, number: int) -> tuple[int, int]:
        """``(generation, sample)`` of trial ``number`` in this run."""
        return divmod(number - self.run_start, self.size)

    def check(self, record: Record) -> str | None:
        # Sample k of generation g is trial run_start + g * size + k, so g <= n - start.
        return check_indices(record, self.size, max(record.number - self.run_start, 0))

    def tell(self, record: Record) -> None:
        if record.number < self.run_start:
            return
        g, _ = self.generation_of(record.number)
        self._last_number = max(self._last_number, record.number)
        records = self._records.setdefault(g, {})
        old = records.get(record.number)
        records[record.number] = record
        if record.finished and (old is None or not old.finished):
            count = self._finished.get(g, 0) + 1
            self._finished[g] = count
            del self._models[g + 1 :]  # the models fitted from generation g onwards
            if count >= self.size:
                self._latest_full = max(self._latest_full, g)

    def space_changed(self, dims: Sequence[Dim]) -> None:
        if tuple(dims) != self.dims:  # models depend on the cells: refit everything
            self._models.clear()
        super().space_changed(dims)

    def finished_records(self, g: int) -> list[Record]:
        """The finished records of generation ``g``, by trial number."""
        return sort_records([r for r in self._records.get(g, {}).values() if r.finished])

    def model(self, g: int) -> M:
        """The (cached) model generation ``g`` samples from."""
        while len(self._models) <= g:
            k = len(self._models)
            if k == 0:
                self._models.append(self.initial_model())
                continue
            previous = self._models[k - 1]
            records = self.finished_records(k - 1)
            n_ok = sum(1 for r in records if r.ok)
            usable = len(records) >= n_required(self.size) and n_ok >= 2
            self._models.append(self.fit(k, previous, records, usable))
        return self._models[g]

    def budget_used_up(self) -> bool:
        """Whether the run's trials have filled every slot of its ``n_generations``."""
        if self.n_generations is None:
            return False
        return self._last_number - self.run_start + 1 >= self.size * self.n_generations

    @property
    def latest_full_generation(self) -> int:
        """The latest generation whose ``size`` trials have all finished (``-1``: none)."""
        return self._latest_full

    def budget(self) -> int | None:
        if self.n_generations is None:
            return None
        return self.size * self.n_generations

    # ------------------------------------------------------------------ subclass hooks
    @abc.abstractmethod
    def initial_model(self) -> M:
        """The model of generation 0."""

    @abc.abstractmethod
    def fit(self, g: int, previous: M, records: list[Record], usable: bool) -> M:
        """The model of generation ``g`` from generation ``g - 1``'s finished ``records``.

        ``usable`` is false when too few of them finished or succeeded (see the module
        documentation); the subclass then usually returns ``previous`` (possibly updated).
        """
