"""Tests of ``optuna-psms predict --keep``: input columns copied beside the predictions."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import joblib
import numpy as np
import pandas as pd
import pytest

from optuna_psms.cli import main
from tests._fms_models import quick_model


def _run(argv: list[str], capsys: Any) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:

    rng = np.random.default_rng(0)
    label = rng.choice(["yes", "no"], 60)
    X = pd.DataFrame(
        {
            "size": rng.normal(size=60) + 2.0 * (label == "yes"),
            "colour": rng.choice(["r", "b"], 60),
        }
    )
    model = quick_model(X, label)
    path = tmp_path_factory.mktemp("keep") / "m.joblib"
    joblib.dump(model, path)
    return path


def _new_rows(path: Path) -> pd.DataFrame:
    # Identifiers with leading zeros, rows in no particular order, a feature written "1.50".
    text = "id,colour,size\n007,r,1.50\n042,b,-0.3\n003,b,2.25\n010,r,0\n"
    path.write_text(text)
    return pd.read_csv(path)


def test_keep_copies_columns_as_written_in_input_order(
    model_path: Path, tmp_path: Path, capsys: Any
) -> None:
    csv = tmp_path / "new.csv"
    rows = _new_rows(csv)
    expected = list(joblib.load(model_path).predict(rows[["size", "colour"]]))
    argv = ["predict", "--model", str(model_path), "--csv", str(csv)]
    # 'size' is a feature: kept, it is still passed to the model (without it the model would
    # refuse the rows); 'id' is not one: kept, it is not reported as an ignored column.
    code, out, err = _run([*argv, "--keep", "id", "size"], capsys)
    assert code == 0 and err == "", err
    assert out.splitlines() == [
        "id,size,prediction",
        *(
            f"{i},{s},{p}"
            for i, s, p in zip(
                ["007", "042", "003", "010"], ["1.50", "-0.3", "2.25", "0"], expected, strict=True
            )
        ),
    ]
    # The comma form, and --keep given twice with a name repeated, give the same.
    for spelling in (["--keep", "id,size"], ["--keep", "id", "--keep", "size", "id"]):
        code, same, err = _run([*argv, *spelling], capsys)
        assert code == 0 and same == out and err == ""
    # A kept column may also be dropped (here one the model ignores anyway).
    code, out, err = _run([*argv, "--keep", "id", "--drop", "id", "--proba"], capsys)
    # The vote may predict another class than its mean probability's (a note line says so).
    assert code == 0 and all(line.startswith("note: ") for line in err.splitlines()), err
    frame = pd.read_csv(tmp_path / "new.csv", dtype=str)
    written = pd.read_csv(io.StringIO(out), dtype={"id": str})
    assert list(written.columns) == ["id", "prediction", "proba_no", "proba_yes"]
    assert list(written["id"]) == list(frame["id"]) and list(written["prediction"]) == expected


def test_keep_with_a_dataset(model_path: Path, capsys: Any) -> None:
    from optuna_psms.cli import load_dataset

    X, y = load_dataset("sklearn:iris")
    model = quick_model(X, y, n_trials=1)
    path = model_path.parent / "iris.joblib"
    joblib.dump(model, path)
    column = "sepal length (cm)"
    argv = ["predict", "--model", str(path), "--dataset", "sklearn:iris", "--keep", column]
    code, out, err = _run(argv, capsys)
    assert code == 0 and err == "", err
    written = pd.read_csv(io.StringIO(out))
    assert list(written.columns) == [column, "prediction"]
    assert np.array_equal(written[column], X[column]) and np.array_equal(
        written["prediction"], model.predict(X)
    )


def test_keep_mistakes_are_one_line(model_path: Path, tmp_path: Path, capsys: Any) -> None:
    csv = tmp_path / "new.csv"
    _new_rows(csv)
    argv = ["predict", "--model", str(model_path), "--csv", str(csv), "--keep"]
    code, out, err = _run([*argv, "ID"], capsys)
    assert code == 2 and out == ""
    assert err == (
        f"optuna-psms: error: --keep: column 'ID' not found in {csv}; did you mean 'id'? "
        "columns: id, colour, size\n"
    )
    code, _, err = _run(
        ["predict", "--model", str(model_path), "--dataset", "sklearn:iris", "--keep", "x"],
        capsys,
    )
    assert code == 2 and "--keep: column 'x' not found in sklearn:iris; columns: sepal" in err
    # An output's name that is no column is not found either: it said "has the name of an
    # output column", as if the file had one (a new user's trial, 26 Nov 2026).
    for name in ("prediction", "proba_yes"):
        code, out, err = _run([*argv, name, "--proba"], capsys)
        assert code == 2 and err == (
            f"optuna-psms: error: --keep: column {name!r} not found in {csv}; columns: id, "
            "colour, size\n"
        )
    pd.DataFrame({"prediction": [1, 2], "size": [0.0, 1.0], "colour": ["r", "b"]}).to_csv(
        csv, index=False
    )
    code, out, err = _run([*argv, "prediction"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err == (
        f"optuna-psms: error: --keep: column 'prediction' of {csv} has the name of an output "
        "column; rename it in the input\n"
    )


@pytest.mark.parametrize("command", ["select", "compare", "predict"])
def test_drop_given_twice_adds_up(command: str) -> None:
    from optuna_psms.cli import build_parser

    required = {
        "select": ["--dataset", "sklearn:iris"],
        "compare": ["--dataset", "sklearn:iris", "--samplers", "pso"],
        "predict": ["--model", "m.joblib", "--csv", "x.csv"],
    }[command]
    args = build_parser().parse_args([command, *required, "--drop", "id", "--drop", "code,name"])
    assert args.drop == ["id", "code,name"]  # drop_names splits the comma form
