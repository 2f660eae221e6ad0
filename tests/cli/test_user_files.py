"""optuna-psms select/predict on a file that is not a UTF-8 CSV: one line saying what it is.

A new user's trial (26 Nov 2026) passed a spreadsheet and a saved model as ``--csv`` and read
pandas' "'utf-8' codec can't decode byte 0x80 in position 0: invalid start byte".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
import zipfile

import pytest

from optuna_psms.cli import main


def _error(argv: list[str], capsys: Any) -> str:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return str(lines[0])


def _xlsx(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>" * 40)
        z.writestr("xl/workbook.xml", "<workbook/>" * 40)


@pytest.mark.parametrize(
    ("name", "make", "said"),
    [
        (
            "data.xlsx",
            _xlsx,
            "it is a zip archive, as an Excel .xlsx or .ods file is, not text; save the "
            "data as a comma-separated CSV file",
        ),
        (
            "model.joblib",
            lambda p: p.write_bytes(b"\x80\x04\x95" + bytes(range(256))),
            "it is a Python pickle, such as the model file select saves, not a CSV file; "
            "--csv takes the data",
        ),
        (
            "old.xls",
            lambda p: p.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00\xff" * 200),
            "it is an old Excel (.xls) or Office file, not text",
        ),
        (
            "latin1.csv",
            lambda p: p.write_bytes("city,y\nZürich,1\nBern,0\n".encode("latin-1")),
            "it is not UTF-8 text (it has the byte 0xfc, a letter such as é in another "
            "encoding?); save it as UTF-8 (in a spreadsheet: CSV UTF-8)",
        ),
    ],
)
def test_select_says_what_the_file_is(
    tmp_path: Path, capsys: Any, name: str, make: Any, said: str
) -> None:
    path = tmp_path / name
    make(path)
    argv = ["select", "--csv", str(path), "--target", "y", "--n-trials", "1"]
    argv += ["--storage", f"sqlite:///{tmp_path}/s.db"]
    line = _error(argv, capsys)
    assert line.startswith(f"optuna-psms: error: cannot read CSV file {path}: {said}"), line
    assert not (tmp_path / "s.db").exists()


def test_predict_says_what_the_file_is(tmp_path: Path, capsys: Any) -> None:
    import joblib
    from sklearn.dummy import DummyClassifier

    model = tmp_path / "m.joblib"
    joblib.dump(DummyClassifier().fit([[0.0], [1.0]], [0, 1]), model)
    data = tmp_path / "new.xlsx"
    _xlsx(data)
    line = _error(["predict", "--model", str(model), "--csv", str(data)], capsys)
    assert line == (
        f"optuna-psms: error: cannot read CSV file {data}: it is a zip archive, as an Excel "
        ".xlsx or .ods file is, not text; save the data as a comma-separated CSV file"
    )


def _with_inf(tmp_path: Path) -> Path:
    path = tmp_path / "inf.csv"
    path.write_text("a,b,y\n1,2,0\n2,inf,1\n3,4,0\n4,-inf,1\n5,6,0\n6,7,1\n")
    return path


def test_select_names_the_infinite_values(tmp_path: Path, capsys: Any) -> None:
    # Was: "X contains infinite values in column 'b' (in the 4 search rows left by
    # --test-size 0.25)": neither the file nor the line (usertrial7, 26 Nov 2026).
    path = _with_inf(tmp_path)
    argv = ["select", "--csv", str(path), "--target", "y"]
    argv += ["--storage", f"sqlite:///{tmp_path}/s.db"]
    assert _error(argv, capsys) == (
        f"optuna-psms: error: column 'b' of {path} has 2 infinite value(s) (line 3, 5); drop "
        "those rows, or empty those cells to have them taken as missing"
    )
    # --drop b leaves none.
    argv += ["--drop", "b", "--n-trials", "1", "--test-size", "0", "--cv", "2"]
    argv += ["--final-check", "none", "--ensemble-top", "1", "--output", str(tmp_path / "m")]
    assert main(argv) == 0


def test_predict_names_infinite_values_of_the_model_columns_only(
    tmp_path: Path, capsys: Any
) -> None:
    import joblib
    import pandas as pd
    from sklearn.dummy import DummyClassifier

    model = tmp_path / "m.joblib"
    train = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    joblib.dump(DummyClassifier().fit(train, [0, 1]), model)
    path = _with_inf(tmp_path)
    line = _error(["predict", "--model", str(model), "--csv", str(path), "--drop", "y"], capsys)
    assert line == (
        f"optuna-psms: error: column 'b' of {path} has 2 infinite value(s) (line 3, 5); drop "
        "those rows, or empty those cells to have them taken as missing"
    )
    (tmp_path / "ok.csv").write_text("a,b,junk\n1,2,inf\n")
    assert main(["predict", "--model", str(model), "--csv", str(tmp_path / "ok.csv")]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == "prediction" and "ignoring column(s) 'junk'" in err


@pytest.mark.parametrize(("width", "hinted"), [(3, False), (5, True)])
def test_predict_suggests_a_label_column_only_for_too_many_columns(
    tmp_path: Path, capsys: Any, width: int, hinted: bool
) -> None:
    # A model fitted without column names takes the file's columns by position; with fewer
    # columns than it was fitted with, "(a label column? leave it out with --drop COLUMN)"
    # pointed the wrong way (usertrial7, 26 Nov 2026).
    import joblib
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    model = tmp_path / "m.joblib"
    joblib.dump(LogisticRegression().fit(np.eye(4), [0, 1, 0, 1]), model)
    data = tmp_path / "new.csv"
    data.write_text(",".join(f"c{i}" for i in range(width)) + "\n" + ",".join("1" * width))
    assert main(["predict", "--model", str(model), "--csv", str(data)]) == 2
    warning, line = capsys.readouterr().err.strip().splitlines()
    assert warning.startswith("warning: ") and "taken by position" in warning
    assert line.startswith("optuna-psms: error: cannot apply the model to this data: ")
    assert ("(a label column? leave it out with --drop COLUMN)" in line) is hinted
