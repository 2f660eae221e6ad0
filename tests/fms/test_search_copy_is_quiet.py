"""The in-memory copy of a study that a selection keeps logs nothing: a Python user of
``select_model`` with a storage read Optuna's "A new study created in memory" as if the
search had not used their storage; the verbosity is restored afterwards."""

from __future__ import annotations

from pathlib import Path

import optuna
import pytest

from optuna_psms.fms._join import search_copy


def test_search_copy_logs_nothing_and_restores_the_verbosity(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    storage = f"sqlite:///{tmp_path}/s.db"
    study = optuna.create_study(study_name="s", storage=storage)
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=2)
    before = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.INFO)
    optuna.logging.enable_propagation()
    try:
        with caplog.at_level("INFO", logger="optuna"):
            copy = search_copy(storage, "s")
        assert len(copy.trials) == 2
        assert not [r for r in caplog.records if "created in memory" in r.getMessage()]
        assert optuna.logging.get_verbosity() == optuna.logging.INFO
    finally:
        optuna.logging.disable_propagation()
        optuna.logging.set_verbosity(before)
