"""The package's samplers by name, for parametrised tests (the table of
optuna_psms.samplers._registry)."""

from __future__ import annotations

import optuna

from optuna_psms.samplers._registry import OURS


SAMPLERS = OURS


def make(name: str, seed: int | None = None) -> optuna.samplers.BaseSampler:
    return SAMPLERS[name](seed)
