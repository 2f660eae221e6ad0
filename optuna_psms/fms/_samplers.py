"""Samplers by name: the names :class:`~optuna_psms.fms.FullModelSelector`,
:class:`~optuna_psms.fms.FullModelRegressor` and ``optuna-psms select`` accept, and the
default one.

Split from :mod:`optuna_psms.fms._search`. :mod:`optuna_psms.fms.selector` re-exports
the three names, :mod:`optuna_psms.fms` :func:`make_sampler` and :data:`SAMPLER_NAMES`.
"""

from __future__ import annotations

import optuna

from optuna_psms.samplers._registry import DEFAULT
from optuna_psms.samplers._registry import make_sampler as _make
from optuna_psms.samplers._registry import SAMPLERS


#: Sampler names understood by :func:`make_sampler` and ``optuna-psms select --sampler``.
SAMPLER_NAMES: tuple[str, ...] = tuple(SAMPLERS)


def default_sampler_name() -> str:
    """The sampler :class:`FullModelSelector` and ``optuna-psms select`` use by default."""
    return DEFAULT


def make_sampler(name: str | None, seed: int | None = None) -> optuna.samplers.BaseSampler:
    """Create a sampler by name.

    Args:
        name: One of :data:`SAMPLER_NAMES`: ``pso``, ``pso_ring``, ``pattern``, ``dfgs``,
            ``afgs``, ``umda``, ``bumda``, ``drs``, ``drs_nobatch`` (optuna-psms samplers) or
            ``random``, ``tpe``, ``cmaes`` (Optuna's); ``None`` for the default (``pso``).
        seed: Sampler seed.

    Returns:
        The sampler.

    Raises:
        ValueError: Unknown name.
    """
    return _make(default_sampler_name() if name is None else name, seed)
