"""Samplers by name: the one table of them.

Every name ``optuna-psms select --sampler``, :func:`optuna_psms.fms.make_sampler`,
``optuna-psms compare``, the benchmarks and meta-optimisation accept is a key of
:data:`SAMPLERS`, which maps it to a ``"module:Class"`` string and fixed keyword arguments.
This module imports nothing (``--help`` lists the names without importing Optuna); a class
is imported when a sampler is made. What an algorithm is (its tag, title, description and
labels) is written on its class (:class:`~optuna_psms.samplers._identity.Identity`) and read
through :func:`identities`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
import functools
import importlib
from typing import Any
from typing import TYPE_CHECKING


if TYPE_CHECKING:
    import optuna

    from optuna_psms.samplers._identity import Identity


@dataclass(frozen=True)
class Entry:
    """A sampler of the table: ``target`` is ``"module:Class"``, ``kwargs`` fixed arguments."""

    target: str
    kwargs: dict[str, Any] = field(default_factory=dict)

    def load(self) -> Callable[..., optuna.samplers.BaseSampler]:
        """The sampler class (imported on first use)."""
        module, _, name = self.target.partition(":")
        cls: Callable[..., optuna.samplers.BaseSampler] = getattr(
            importlib.import_module(module), name
        )
        return cls

    def __call__(self, seed: int | None = None, **kwargs: Any) -> optuna.samplers.BaseSampler:
        """A sampler seeded with ``seed``, with ``kwargs`` on top of the fixed arguments."""
        return self.load()(seed=seed, **{**self.kwargs, **kwargs})

    @property
    def ours(self) -> bool:
        """Whether it is a sampler of this package (a population sampler)."""
        return self.target.startswith("optuna_psms.")


#: Every sampler by name: this package's with their papers' defaults (and two documented
#: variants), then Optuna's own, the baselines.
SAMPLERS: dict[str, Entry] = {
    "pso": Entry("optuna_psms.samplers.pso:PSOSampler"),
    "pso_ring": Entry("optuna_psms.samplers.pso:PSOSampler", {"topology": "ring"}),
    "pattern": Entry("optuna_psms.samplers.pattern:PatternSearchSampler"),
    "dfgs": Entry("optuna_psms.samplers.grid:FocusedGridSampler", {"mode": "deterministic"}),
    "afgs": Entry("optuna_psms.samplers.grid:FocusedGridSampler", {"mode": "annealed"}),
    "umda": Entry("optuna_psms.samplers.eda:UMDASampler"),
    "bumda": Entry("optuna_psms.samplers.eda:BUMDASampler"),
    "drs": Entry("optuna_psms.samplers.dynamic_random:DynamicRandomSampler"),
    "drs_nobatch": Entry(
        "optuna_psms.samplers.dynamic_random:DynamicRandomSampler", {"n_batches": None}
    ),
    "random": Entry("optuna.samplers:RandomSampler"),
    "tpe": Entry("optuna.samplers:TPESampler"),
    "cmaes": Entry("optuna.samplers:CmaEsSampler", {"warn_independent_sampling": False}),
}

#: This package's samplers.
OURS: dict[str, Entry] = {name: e for name, e in SAMPLERS.items() if e.ours}
#: Optuna's samplers, the baselines.
BASELINES: dict[str, Entry] = {name: e for name, e in SAMPLERS.items() if not e.ours}
#: The sampler of full model selection when none is named.
DEFAULT = "pso"


def make_sampler(name: str, seed: int | None = None, **kwargs: Any) -> optuna.samplers.BaseSampler:
    """The sampler called ``name`` (case-insensitive), seeded with ``seed``; ``kwargs`` are
    passed to its class on top of the table's fixed arguments.

    Raises:
        ValueError: ``name`` is not in :data:`SAMPLERS`.
    """
    key = name.lower()
    if key not in SAMPLERS:
        from optuna_psms._names import did_you_mean

        hint = did_you_mean(name, SAMPLERS)
        raise ValueError(f"unknown sampler {name!r}; {hint}choose one of {', '.join(SAMPLERS)}.")
    return SAMPLERS[key](seed, **kwargs)


@functools.cache
def identities() -> dict[str, tuple[str, Identity]]:
    """Every algorithm of this package by tag: ``(class name, identity)`` (read once: the
    classes and their identities do not change in a process)."""
    out: dict[str, tuple[str, Identity]] = {}
    for entry in OURS.values():
        cls = entry.load()
        for identity in getattr(cls, "identities", ()):
            out.setdefault(identity.tag, (getattr(cls, "__name__", ""), identity))
    return out
