"""FullModelSelector(sampler=None, load_if_exists=True) continues a study with the sampler it
was made with (optuna_psms.load_study's rule; issue 31, item 3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from optuna_psms.fms import FullModelSelector
from optuna_psms.samplers import _records


def _tags(study: Any) -> list[str | None]:
    return [(_records.load(t.system_attrs) or {}).get("a") for t in study.trials]


@pytest.mark.slow
def test_a_resumed_search_keeps_the_study_sampler(tmp_path: Path) -> None:
    X, y = load_breast_cancer(return_X_y=True)
    rows = np.r_[0:40, 300:360]
    X, y = X[rows, :6], y[rows]
    kwargs: dict[str, Any] = dict(
        final_check=None,
        initial_pipelines=None,
        random_state=0,
        storage=f"sqlite:///{tmp_path / 'fms.db'}",
        study_name="s",
        load_if_exists=True,
        cv=2,
        ensemble_top=1,
    )
    FullModelSelector(sampler="umda", n_trials=2, **kwargs).fit(X, y)
    model = FullModelSelector(n_trials=2, **kwargs).fit(X, y)  # sampler=None: the study's
    assert _tags(model.study_) == ["umda"] * 4
