"""The comparison table prints every value with four significant digits, trailing zeros
kept: a new user's table had ``0.131`` (0.1310) above ``0.1223`` and ``[28.61, 34.8]``."""

from __future__ import annotations

from optuna_psms.compare._stats import format_table
from optuna_psms.compare._stats import Row


def test_values_keep_their_trailing_zeros() -> None:
    rows = [
        Row("pso", 3, 0.131, 0.1222, 0.1312, 0, 0, 3, None, "too few seeds differ"),
        Row("tpe", 3, 0.1223, 0.1104, 34.8, None, None, None, None, "baseline"),
    ]
    lines = format_table(rows, "tpe").splitlines()
    assert lines[2].split()[2:5] == ["0.1310", "[0.1222,", "0.1312]"]
    assert lines[3].split()[2:5] == ["0.1223", "[0.1104,", "34.80]"]
