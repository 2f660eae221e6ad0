"""Random search with dynamic updating (RSDU), in the unit box.

Pure numpy. The algorithm of Milletich & Asmar ("stochastic optimization of features and
hyperparameters"): sample a batch of configurations (40), keep the top 50%, and update the
sampling distribution from that elite before the next batch:

* every **numeric** coordinate (``Dim.kind`` ``"float"`` or ``"int"``) is drawn uniformly
  between bounds, and the bounds become the elite's minimum and maximum (in unit
  coordinates; for a discrete coordinate, the edges of the cells holding the elite's
  smallest and largest values, so that every value between them stays reachable);
* every **categorical** coordinate draws its choice with probabilities equal to the choices'
  frequencies in the elite (a choice absent from the elite is not drawn again);
* a **two-choice** categorical is a feature-inclusion flag whose *last* choice means
  "include" (``[False, True]``): when its include probability falls under
  ``muting_threshold`` (0.25) it is *muted*, i.e. always takes its first choice for the rest
  of the run, whatever later elites contain. The initial include probability is 0.5.

Choices the paper leaves open, made here:

* the elite of a batch is its best ``ceil(top_fraction * n)`` finished trials (``n``
  finished, failed ones never selected); ties go to the lower trial number;
* a batch updates the distribution only when at least half of it has finished with two or
  more successes (otherwise the next batch reuses the current distribution);
* bounds are set to the elite's min/max even when a trial the sampler did not create lies
  outside the current bounds (it is information like any other trial);
* a categorical coordinate is stored as its cell's centre.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import math

import numpy as np

from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.base import Proposal
from optuna_psms.samplers.core.base import Record
from optuna_psms.samplers.core.generations import GenerationalStrategy
from optuna_psms.samplers.core.generations import rank_finite
from optuna_psms.samplers.core.settings import integer
from optuna_psms.samplers.core.settings import optional_integer
from optuna_psms.samplers.core.settings import real


def is_categorical(dim: Dim | None) -> bool:
    """Whether a coordinate is a categorical with at least two choices."""
    return dim is not None and dim.kind == "categorical" and dim.cells >= 2


@dataclass(frozen=True)
class BatchDistribution:
    """The sampling distribution of one batch.

    Attributes:
        low: Per-coordinate lower bound in unit coordinates (``0`` for categoricals).
        high: Per-coordinate upper bound (``1`` for categoricals).
        probs: Per-coordinate choice probabilities, ``None`` for numeric coordinates.
        muted: Indices of muted two-choice coordinates (always their first choice).
        source: The batch whose elite produced this distribution (``-1``: initial).
        n_fit: Number of finished trials of that batch the elite was chosen from.
        n_elite: Size of that elite.
    """

    low: np.ndarray
    high: np.ndarray
    probs: tuple[np.ndarray | None, ...]
    muted: frozenset[int] = frozenset()
    source: int = -1
    n_fit: int = 0
    n_elite: int = 0

    def include_probability(self, k: int) -> float | None:
        """The "include" (last choice) probability of a two-choice coordinate ``k``."""
        p = self.probs[k]
        if p is None or p.size != 2:
            return None
        return float(p[1])

    def collapsed(self, dims: Sequence[Dim], width: float) -> bool:
        """Whether sampling is (nearly) deterministic: every numeric width under ``width``
        (a discrete one: a single cell) and every categorical on one choice."""
        if self.low.size == 0:
            return False
        for k in range(self.low.size):
            p = self.probs[k]
            if p is not None:
                if float(np.max(p)) < 1.0:
                    return False
                continue
            d = dims[k] if k < len(dims) else None
            if d is not None and d.cells > 0:
                lo, hi = _cell_range(self.low[k], self.high[k], d.cells)
                if hi > lo:
                    return False
            elif self.high[k] - self.low[k] >= width:
                return False
        return True


def initial_distribution(dim: int, dims: Sequence[Dim] = ()) -> BatchDistribution:
    """Full bounds, uniform choice probabilities (include probability 0.5 for flags)."""
    probs: list[np.ndarray | None] = []
    for k in range(dim):
        d = dims[k] if k < len(dims) else None
        probs.append(np.full(d.cells, 1.0 / d.cells) if d and is_categorical(d) else None)
    return BatchDistribution(np.zeros(dim), np.ones(dim), tuple(probs))


def select_elite(losses: np.ndarray, top_fraction: float = 0.5) -> np.ndarray:
    """Indices of the best ``ceil(top_fraction * n)`` of ``n`` losses (finite ones only)."""
    ranked = rank_finite(losses)
    n = np.asarray(losses).size
    return ranked[: max(1, math.ceil(top_fraction * n - 1e-9))]


def _cells(u: np.ndarray, cells: int) -> np.ndarray:
    out: np.ndarray = np.clip(np.floor(np.asarray(u) * cells), 0, cells - 1).astype(int)
    return out


def _cell_range(low: float, high: float, cells: int) -> tuple[int, int]:
    """The cells ``[lo, hi]`` covered by a discrete coordinate's bounds (cell edges)."""
    half = 0.5 / cells
    lo = int(_cells(np.array([low + half]), cells)[0])
    hi = int(_cells(np.array([high - half]), cells)[0])
    return lo, max(lo, hi)


def update_distribution(
    current: BatchDistribution,
    x: np.ndarray,
    losses: np.ndarray,
    dims: Sequence[Dim] = (),
    *,
    top_fraction: float = 0.5,
    muting_threshold: float = 0.25,
    source: int = -1,
) -> BatchDistribution:
    """The next batch's distribution from one batch's results.

    Args:
        current: The distribution the batch was sampled from (muting is inherited).
        x: The batch, shape ``(n, d)``, rows in trial-number order.
        losses: Losses (``inf`` for failed trials).
        dims: Per-coordinate descriptions (empty: every coordinate numeric, continuous).
        top_fraction: Elite fraction (paper: 0.5).
        muting_threshold: Include probability under which a flag is muted (paper: 0.25).
        source: The batch index, recorded in the result.

    Returns:
        The updated distribution (see the module documentation).
    """
    x = np.asarray(x, dtype=float)
    elite = x[select_elite(losses, top_fraction)]
    if elite.shape[0] == 0:
        return current
    dim = current.low.size
    low = elite.min(axis=0)
    high = elite.max(axis=0)
    probs: list[np.ndarray | None] = []
    muted = set(current.muted)
    for k in range(dim):
        d = dims[k] if k < len(dims) else None
        if d is not None and is_categorical(d):
            counts = np.bincount(_cells(elite[:, k], d.cells), minlength=d.cells)
            p = counts / counts.sum()
            if d.cells == 2 and (k in muted or p[1] < muting_threshold):
                muted.add(k)
                p = np.array([1.0, 0.0])
            probs.append(p.astype(float))
            low[k], high[k] = 0.0, 1.0
        else:
            probs.append(None)
            if d is not None and d.cells > 0:
                cells = _cells(elite[:, k], d.cells)
                low[k] = cells.min() / d.cells
                high[k] = (cells.max() + 1) / d.cells
    return BatchDistribution(
        low, high, tuple(probs), frozenset(muted), source, x.shape[0], elite.shape[0]
    )


def sample_distribution(
    dist: BatchDistribution, dims: Sequence[Dim], rng: np.random.Generator
) -> np.ndarray:
    """One configuration: one uniform draw per coordinate, mapped by inverse CDF."""
    dim = dist.low.size
    u = rng.uniform(0.0, 1.0, dim)
    x: np.ndarray = dist.low + u * (dist.high - dist.low)
    for k in range(dim):
        p = dist.probs[k]
        d = dims[k] if k < len(dims) else None
        if p is not None and d is not None and p.size == d.cells:
            if k in dist.muted:
                choice = 0
            else:
                cum = np.cumsum(p) / np.sum(p)
                cum[int(np.flatnonzero(p > 0)[-1]) :] = 1.0
                choice = int(np.searchsorted(cum, u[k], side="right"))
            x[k] = (choice + 0.5) / d.cells
        elif p is None and d is not None and d.cells > 0:
            lo, hi = _cell_range(dist.low[k], dist.high[k], d.cells)
            choice = min(lo + int(u[k] * (hi - lo + 1)), hi)
            x[k] = (choice + 0.5) / d.cells
    return x


@dataclass(frozen=True)
class DynamicRandomSettings:
    """The settings of an RSDU run (validated on construction).

    Attributes:
        batch_size: Trials per batch (paper: 40), at least 2.
        n_batches: Batches per run (paper: 5); ``None``: update for as long as the study runs.
        top_fraction: Elite fraction (paper: 0.5), in ``(0, 1]``.
        muting_threshold: Include probability under which a flag is muted (paper: 0.25).
        convergence_threshold: Numeric width under which the distribution has collapsed.
    """

    batch_size: int = 40
    n_batches: int | None = 5
    top_fraction: float = 0.5
    muting_threshold: float = 0.25
    convergence_threshold: float = 0.01

    def __post_init__(self) -> None:
        checked = {
            "batch_size": integer("batch_size", self.batch_size, 2),
            "n_batches": optional_integer("n_batches", self.n_batches, 1),
            "top_fraction": real("top_fraction", self.top_fraction, 0.0, 1.0, open_low=True),
            "muting_threshold": real("muting_threshold", self.muting_threshold, 0.0, 1.0),
            "convergence_threshold": real(
                "convergence_threshold", self.convergence_threshold, 0.0
            ),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)


class DynamicRandomStrategy(GenerationalStrategy[BatchDistribution]):
    """Random search with dynamic updating over batches of trials.

    Trial ``n`` of a run started at ``s`` is sample ``(n - s) % batch_size`` of batch
    ``(n - s) // batch_size``. Batch 0 samples the initial distribution; batch ``b`` samples
    the distribution updated from batch ``b - 1``'s elite (see
    :mod:`optuna_psms.samplers.core.generations` for running trials). The run has converged when
    its
    ``n_batches`` batches have been sampled (the paper's 5 x 40 = 200 evaluations) or,
    earlier, when the distribution has collapsed (every numeric width under
    ``convergence_threshold``, every categorical on a single choice).

    Args:
        dim: Number of coordinates.
        run_start: First trial number of the run.
        settings: The run's settings (:class:`DynamicRandomSettings`).
        dims: Per-coordinate descriptions.
    """

    def __init__(
        self,
        dim: int,
        run_start: int,
        *,
        settings: DynamicRandomSettings = DynamicRandomSettings(),
        dims: Sequence[Dim] = (),
    ) -> None:
        size, batches = settings.batch_size, settings.n_batches
        super().__init__(dim, run_start, size=size, n_generations=batches, dims=dims)
        self.settings = settings
        self.batch_size = size
        self.top_fraction = settings.top_fraction
        self.muting_threshold = settings.muting_threshold
        self.convergence_threshold = settings.convergence_threshold

    def initial_model(self) -> BatchDistribution:
        return initial_distribution(self.dim, self.dims)

    def fit(
        self, g: int, previous: BatchDistribution, records: list[Record], usable: bool
    ) -> BatchDistribution:
        if not usable:
            return previous
        x = np.array([r.x for r in records])
        losses = np.array([r.loss for r in records], dtype=float)
        return update_distribution(
            previous,
            x,
            losses,
            self.dims,
            top_fraction=self.top_fraction,
            muting_threshold=self.muting_threshold,
            source=g - 1,
        )

    def distribution(self, batch: int) -> BatchDistribution:
        """The distribution batch ``batch`` samples from."""
        return self.model(batch)

    def ask(self, number: int, rng: np.random.Generator) -> Proposal:
        b, k = self.generation_of(number)
        dist = self.model(b)
        x = sample_distribution(dist, self.dims, rng)
        info = {
            "fit_batch": dist.source,
            "fit_n": dist.n_fit,
            "n_elite": dist.n_elite,
            "muted": len(dist.muted),
        }
        return Proposal(x, k, b, info=info, display={"batch": b, "sample": k})

    def converged(self) -> bool:
        if self.budget_used_up():
            return True
        b = self.latest_full_generation
        if b < 0:
            return False
        return self.model(b + 1).collapsed(self.dims, self.convergence_threshold)
