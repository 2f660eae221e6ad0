"""The small things of issue 32 (item 6): a text value in a numeric target is named, 'n/a' is
not called empty, a nearly unique integer column is flagged as a row identifier, a renamed
column gets a "did you mean"."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd
import pytest

from optuna_psms.fms import FullModelRegressor
from optuna_psms.fms import FullModelSelector
from optuna_psms.fms import target_task
from optuna_psms.fms._validation import check_features
from optuna_psms.fms.data import identifier_columns


def _prices() -> pd.Series:
    y = pd.Series(np.round(np.random.default_rng(0).normal(30, 5, 300), 1).astype(object))
    y[12] = "37,9"  # a decimal comma
    return y


def test_a_text_value_in_a_numeric_target_is_named() -> None:
    y = _prices()
    assert target_task(y) == "regression"
    said = "y holds numbers except 1 of 300 value(s) that are not: '37,9' at position 12"
    with pytest.raises(ValueError, match=re.escape(said)):
        FullModelRegressor(n_trials=1).fit(np.zeros((300, 2)), y)
    with pytest.raises(ValueError, match="'37,9' at position 12"):
        FullModelSelector(n_trials=1).fit(np.zeros((300, 2)), y)
    assert target_task(["yes", "no"] * 20) == "classification"  # labels stay labels


def test_a_nearly_unique_integer_column_is_flagged_and_a_measurement_is_not() -> None:
    rng = np.random.default_rng(0)
    ids = rng.choice(np.arange(1, 600), 488, replace=False)
    X = pd.DataFrame(
        {
            "visit": np.concatenate([ids, rng.choice(ids, 36)]),  # 488 distinct in 524 rows
            "patient_no": rng.choice(10**6, 524, replace=False),  # named so, any range
            "income": rng.integers(10_000, 200_000, 524),  # distinct, spread: a feature
            "age": rng.integers(18, 90, 524),
        }
    )
    found = dict(identifier_columns(X))
    assert set(found) == {"visit", "patient_no"}
    assert found["visit"] == "integers with 488 distinct values in 524 rows, filling " + (
        f"{X['visit'].min()}..{X['visit'].max()}"
    )
    assert found["patient_no"].endswith("named like an identifier")


def test_a_renamed_column_gets_the_closest_name() -> None:
    X = pd.DataFrame({"Outcome_A": [1.0, 2.0], "b": [3.0, 4.0]})

    class Fitted:
        feature_names_in_ = np.array(["outcome_a", "b"], dtype=object)
        n_features_in_ = 2

    with pytest.raises(ValueError, match="Did you mean 'Outcome_A' for 'outcome_a'\\?"):
        check_features(Fitted(), X)


@pytest.mark.parametrize("mark", ["n/a", "NA"])
def test_a_missing_value_mark_is_named_not_called_empty(tmp_path: Any, mark: str) -> None:
    from optuna_psms.cli._common import UserError
    from optuna_psms.fms.datasets import load_csv

    path = tmp_path / "t.csv"
    path.write_text(f"x,y\n1,a\n2,{mark}\n3,\n4,b\n")
    with pytest.raises(UserError) as caught:
        load_csv(str(path), "y")
    assert str(caught.value) == (
        f"column 'y' of {path} has 2 missing value(s) (line 3, 4; written as {mark!r}); "
        "drop those rows or fill in their labels"
    )
