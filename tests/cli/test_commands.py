"""Tests of the ``optuna-psms`` command line."""

from __future__ import annotations

from collections.abc import Callable
import os
import subprocess
import sys
from typing import Any
import warnings

import joblib
import numpy as np
import optuna
import pandas as pd
import pytest

from optuna_psms.cli import load_dataset
from optuna_psms.cli import main
from tests._fms_models import quick_model


def _run(argv: list[str], capsys: Any) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow  # > 2 s: the default suite stays under 5 min (2026-11-28)
def test_select_bundled_dataset(tmp_path: Any, capsys: Any) -> None:
    db = tmp_path / "psms.db"
    model_path = tmp_path / "model.joblib"
    code, out, err = _run(
        [
            "select",
            "--dataset",
            "sklearn:iris",
            "--sampler",
            "random",
            "--n-trials",
            "4",
            "--seed",
            "0",
            "--storage",
            f"sqlite:///{db}",
            "--study-name",
            "iris-run",
            "--output",
            str(model_path),
            "--classifiers",
            "naive_bayes,logistic",
        ],
        capsys,
    )
    assert code == 0, err
    assert "Best search pipeline (trial " in out and "CV ber on search data (2-fold): " in out
    assert "held-out ber (" in out
    assert "saved to" in out and model_path.exists()
    study = optuna.load_study(study_name="iris-run", storage=f"sqlite:///{db}")
    assert len(study.trials) == 4
    model = joblib.load(model_path)
    X, y = load_dataset("sklearn:iris")
    assert np.mean(model.predict(X) == y) > 0.8
    assert f"{study.best_value:.4f}" in out
    code, out, err = _run(
        ["predict", "--model", str(model_path), "--dataset", "sklearn:iris"], capsys
    )
    assert code == 0, err
    lines = out.strip().splitlines()
    assert lines[0] == "prediction" and len(lines) == 151
    assert [int(v) for v in lines[1:]] == list(model.predict(X))


@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_model_from_a_bundled_dataset_takes_csv_columns_by_name(
    tmp_path: Any, capsys: Any
) -> None:
    # A model selected on ``--dataset sklearn:wine`` then applied to a CSV of the same
    # columns in another order (as a user exports new rows) must predict as on the
    # dataset: bundled sets load with their column names. Positionally, the reversed
    # columns give other labels (checked below, so this test can fail).
    model_path = tmp_path / "model.joblib"
    code, _, err = _run(
        [
            "select",
            "--dataset",
            "sklearn:wine",
            "--sampler",
            "random",
            "--n-trials",
            "3",
            "--seed",
            "0",
            "--storage",
            f"sqlite:///{tmp_path / 'w.db'}",
            "--output",
            str(model_path),
            "--classifiers",
            "logistic,naive_bayes",
            "--test-size",
            "0",
        ],
        capsys,
    )
    assert code == 0, err
    model = joblib.load(model_path)
    X, _ = load_dataset("sklearn:wine")
    assert list(model.feature_names_in_) == list(X.columns)
    reversed_frame = X[X.columns[::-1]]
    with pytest.warns(UserWarning, match="X has no column names"):
        positional = model.predict(reversed_frame.to_numpy())
    assert np.any(model.predict(X) != positional)
    csv = tmp_path / "new.csv"
    reversed_frame.to_csv(csv, index=False)
    code, out, err = _run(["predict", "--model", str(model_path), "--csv", str(csv)], capsys)
    assert code == 0, err
    assert "warning" not in err
    assert [int(v) for v in out.split()[1:]] == list(model.predict(X))


def test_predict_warns_when_the_model_has_no_column_names(tmp_path: Any, capsys: Any) -> None:

    X, y = load_dataset("sklearn:iris")
    model = quick_model(X.to_numpy(), y)
    model_path = tmp_path / "plain.joblib"
    joblib.dump(model, model_path)
    csv = tmp_path / "rows.csv"
    X.to_csv(csv, index=False)
    code, out, err = _run(["predict", "--model", str(model_path), "--csv", str(csv)], capsys)
    assert code == 0, err
    assert err.strip().splitlines() == [
        f"warning: {model_path} was fitted without column names, so the 4 columns of "
        f"{csv} are taken by position, in file order"
    ]
    assert len(out.split()) == 151


@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_select_csv_with_default_storage(tmp_path: Any, capsys: Any, monkeypatch: Any) -> None:
    rng = np.random.default_rng(0)
    n = 60
    label = np.where(rng.random(n) < 0.5, "spam", "ham")
    frame = pd.DataFrame(
        {
            "x": rng.normal(size=n) + (label == "spam"),
            "kind": rng.choice(["a", "b"], n),
            "label": label,
        }
    )
    frame.to_csv(tmp_path / "data.csv", index=False)
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(
        [
            "select",
            "--csv",
            "data.csv",
            "--target",
            "label",
            "--sampler",
            "tpe",
            "--n-trials",
            "3",
            "--classifiers",
            "naive_bayes",
            "--no-progress-bar",
        ],
        capsys,
    )
    assert code == 0, err
    assert (tmp_path / "psms.db").exists() and (tmp_path / "psms_model.joblib").exists()
    assert "sqlite:///psms.db" in out
    summaries = optuna.get_all_study_summaries("sqlite:///psms.db")
    assert len(summaries) == 1 and summaries[0].study_name.startswith("fms-data-")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--csv", "missing.csv", "--target", "y"], "CSV file not found: missing.csv"),
        # A typo gets the close file name; a URL is said to be one (usertrial8).
        (["--csv", "data.cvs", "--target", "y"], "not found: data.cvs; did you mean 'data.csv'?"),
        (
            ["--csv", "https://example.org/d.csv", "--target", "y"],
            "(--csv takes a local file, not a URL: download it first",
        ),
        (["--csv", "data.csv", "--target", "nope"], "column 'nope' not found in data.csv"),
        (["--csv", "data.csv"], "--csv needs --target"),
        (["--dataset", "sklearn:nope"], "unknown dataset 'sklearn:nope'"),
        (["--dataset", "keel:nope"], "unknown KEEL dataset 'nope'"),
        (["--dataset", "sklearn:iris", "--sampler", "nope"], "unknown sampler 'nope'"),
        (["--dataset", "sklearn:iris", "--metric", "nope"], "unknown metric 'nope'"),
        (["--dataset", "sklearn:iris", "--cv", "60"], "fewer than the 60"),
        (["--dataset", "sklearn:iris", "--classifiers", "svm"], "unknown classifier 'svm'"),
        (
            ["--csv", "one_class.csv", "--target", "y"],
            "the target has a single class (1) in all 4 rows; classification needs at least two",
        ),
        (
            ["--csv", "one_class.csv", "--target", "y", "--test-size", "0"],
            "y has a single class (1); classification needs at least two",
        ),
        # The value read "np.float64(1.5)" (numpy 2's repr of its scalars).
        (
            ["--csv", "constant.csv", "--target", "y", "--task", "regression", "--test-size", "0"],
            "y is constant (1.5); there is nothing to regress",
        ),
        # Said of the whole target, not "(in the 6 search rows left by --test-size 0.25)",
        # and without the warning "has 1 distinct numeric values" above it.
        (
            ["--csv", "constant.csv", "--target", "y"],
            "the target is constant (1.5) in all 8 rows; there is nothing to regress",
        ),
        (
            ["--csv", "unlabelled.csv", "--target", "y"],
            "column 'y' of unlabelled.csv has 2 empty value(s) (line 3, 6); drop those rows "
            "or fill in their labels",
        ),
        (
            ["--csv", "semicolons.csv", "--target", "y"],
            "semicolons.csv reads as one column named 'a;y': it looks ';'-separated; "
            "optuna-psms reads comma-separated files",
        ),
        (
            ["--csv", "words.csv", "--target", "y", "--task", "regression"],
            "--task regression needs a numeric target; this one has values such as 'no': "
            "use --task classification",
        ),
        # scikit-learn's messages here were "the resulting train set will be empty" and
        # "Classes with too few members are: [2]" (a class code, not the label).
        (
            ["--csv", "header_only.csv", "--target", "y"],
            "header_only.csv has a header row but no data rows",
        ),
        (
            ["--csv", "rare.csv", "--target", "y"],
            "--test-size 0.25: class 'w' has only 1 row; a stratified hold-out needs at least "
            "2 rows of each class (drop that row, or use --test-size 0 for no hold-out)",
        ),
    ],
)
def test_user_mistakes_give_one_line(
    tmp_path: Any, capsys: Any, monkeypatch: Any, argv: list[str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    pd.DataFrame({"a": [1, 2, 3, 4], "y": [0, 1, 0, 1]}).to_csv("data.csv", index=False)
    pd.DataFrame({"a": [1, 2, 3, 4], "y": [1, 1, 1, 1]}).to_csv("one_class.csv", index=False)
    pd.DataFrame({"a": range(8), "y": [1.5] * 8}).to_csv("constant.csv", index=False)
    # 12 rows, two without a label (file lines 3 and 6): the split must not hide them.
    unlabelled = pd.DataFrame(
        {"a": range(12), "y": ["u", None, "v", "u", None] + ["u", "v"] * 3 + ["v"]}
    )
    unlabelled.to_csv("unlabelled.csv", index=False)
    pd.DataFrame({"a": range(8), "y": ["no", "yes"] * 4}).to_csv("words.csv", index=False)
    pd.DataFrame({"a": [1, 2, 3, 4], "y": [0, 1, 0, 1]}).to_csv(
        "semicolons.csv", sep=";", index=False
    )
    pd.DataFrame({"a": [], "y": []}).to_csv("header_only.csv", index=False)
    pd.DataFrame({"a": range(13), "y": ["u", "v"] * 6 + ["w"]}).to_csv("rare.csv", index=False)
    code, out, err = _run(["select", *argv, "--n-trials", "1", "--no-progress-bar"], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("optuna-psms: error: "), err
    assert message in lines[0]
    assert "Traceback" not in err


def test_a_mistyped_column_name_suggests_the_close_one(
    tmp_path: Any, capsys: Any, monkeypatch: Any
) -> None:
    # --target, --drop and --keep only listed the columns; predict already suggested the
    # renamed column (a new user's trial, 26 Nov 2026: --target Wine_Class for 'wine class').
    monkeypatch.chdir(tmp_path)
    frame = pd.DataFrame(
        {"patient_id": range(8), "alcohol": range(8), "wine class": ["a", "b"] * 4}
    )
    frame.to_csv("wine.csv", index=False)
    columns = "columns: patient_id, alcohol, wine class"
    select = ["select", "--csv", "wine.csv", "--n-trials", "1", "--no-progress-bar"]
    compare = ["compare", "--csv", "wine.csv", "--samplers", "random", "--n-trials", "1"]
    for command in (select, compare):
        code, out, err = _run([*command, "--target", "Wine_Class"], capsys)
        assert code == 2 and out == ""
        assert err == (
            "optuna-psms: error: --target: column 'Wine_Class' not found in wine.csv; "
            f"did you mean 'wine class'? {columns}\n"
        )
        code, _, err = _run([*command, "--target", "wine class", "--drop", "patient id"], capsys)
        assert code == 2 and err == (
            "optuna-psms: error: --drop: column 'patient id' not found in wine.csv; "
            "did you mean 'patient_id'? columns: patient_id, alcohol\n"
        )
    # A name close to none of the columns gets no guess.
    code, _, err = _run([*select, "--target", "label"], capsys)
    assert code == 2 and err == (
        f"optuna-psms: error: --target: column 'label' not found in wine.csv; {columns}\n"
    )


def test_no_identifier_warning_above_a_refusal(
    tmp_path: Any, capsys: Any, monkeypatch: Any
) -> None:
    # The warning about 'id' came before the fatal error, where it was only noise (a new
    # user's trial, 26 Nov 2026); once the run is accepted it still comes, before the first line.
    monkeypatch.chdir(tmp_path)
    frame = pd.DataFrame({"id": range(30), "a": np.arange(30) % 7, "y": ["x"] * 30})
    frame.to_csv("one_class.csv", index=False)
    select = ["select", "--csv", "one_class.csv", "--target", "y", "--no-progress-bar"]
    compare = ["compare", "--csv", "one_class.csv", "--target", "y", "--samplers", "random"]
    for command in (select, compare):
        code, out, err = _run([*command, "--n-trials", "1"], capsys)
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and "single class" in err, err
    frame["y"] = ["u", "v"] * 15
    frame.to_csv("two_classes.csv", index=False)
    code, out, err = _run(
        [
            "select", "--csv", "two_classes.csv", "--target", "y", "--n-trials", "1",
            "--no-progress-bar", "--classifiers", "naive_bayes", "--storage",
            f"sqlite:///{tmp_path / 'psms.db'}", "--test-size", "0",
        ],
        capsys,
    )  # fmt: skip
    assert code == 0 and out.startswith("Full model selection"), err
    assert err.splitlines()[0].startswith("warning: column 'id' looks like a row identifier")


@pytest.mark.parametrize("terminal", [False, True])
@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_progress_bar_only_on_a_terminal(
    tmp_path: Any, capsys: Any, monkeypatch: Any, terminal: bool
) -> None:
    # Into a log file the bar wrote about 10 KB of "\r" updates for 60 trials (a new user's
    # trial, 26 Nov 2026): as tqdm-like tools, no bar when stderr is not a terminal.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: terminal)
    select = ["select", "--dataset", "sklearn:iris", "--classifiers", "naive_bayes"]
    select += ["--n-trials", "3", "--storage", f"sqlite:///{tmp_path / 's.db'}"]
    select += ["--final-check", "none"]  # the bar only
    compare = ["compare", "--function", "sphere", "--samplers", "random", "--seeds", "1"]
    compare += ["--n-trials", "3", "--n-workers", "1", "--report", "none"]
    compare += ["--storage", f"sqlite:///{tmp_path / 'c.db'}"]
    for command in (select, compare):
        code, _, err = _run(command, capsys)
        assert code == 0, err
        assert ("\r" in err and "100%|" in err) is terminal, err
        code, _, err = _run([*command, "--no-progress-bar"], capsys)
        assert "\r" not in err and "100%|" not in err, err
        select += ["--study-name", "again"]
        compare += ["--name", "again"]


def test_numpy_warnings_of_predicting_are_not_said_about_the_rows(
    tmp_path: Any, capsys: Any, monkeypatch: Any
) -> None:
    # GaussianNB on a constant column divides by its zero variance when it predicts; select
    # printed "warning: in the held-out rows, divide by zero encountered in log", as if about
    # the held-out values, and predict the same without the prefix (26 Nov 2026).
    monkeypatch.chdir(tmp_path)
    pd.DataFrame({"a": [1.0] * 40, "y": ["u", "v"] * 20}).to_csv("const.csv", index=False)
    code, _, err = _run(
        [
            "select", "--csv", "const.csv", "--target", "y", "--classifiers", "naive_bayes",
            "--selectors", "none", "--n-trials", "2", "--seed", "0", "--ensemble-top", "1",
            "--no-progress-bar", "--storage", f"sqlite:///{tmp_path / 'k.db'}",
            "--output", "k.joblib",
        ],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert "encountered" not in err and "in the held-out rows" not in err, err
    pd.DataFrame({"a": [1.0, 2.0]}).to_csv("new.csv", index=False)
    code, out, err = _run(["predict", "--model", "k.joblib", "--csv", "new.csv"], capsys)
    assert code == 0 and out.splitlines()[0] == "prediction" and err == "", err


def test_a_scorer_is_printed_positive_with_its_direction(
    tmp_path: Any, capsys: Any, monkeypatch: Any
) -> None:
    # --metric accuracy printed "CV -accuracy on search data (2-fold): -0.9554" (a new user's
    # trial, 26 Nov 2026); the study still minimises -accuracy (the dashboard's values).
    monkeypatch.chdir(tmp_path)
    argv = ["select", "--dataset", "sklearn:iris", "--classifiers", "naive_bayes", "--seed", "0"]
    argv += ["--n-trials", "2", "--no-progress-bar", "--ensemble-top", "1"]
    argv += ["--final-check", "none"]  # its own line is tested in test_fms_final_check
    code, out, err = _run([*argv, "--metric", "accuracy", "--study-name", "acc"], capsys)
    assert code == 0, err
    assert "-accuracy" not in out and "2-fold CV accuracy (higher is better), seed 0" in out
    study = optuna.load_study(study_name="acc", storage="sqlite:///psms.db")
    assert study.best_value < 0
    cv = f"CV accuracy on search data (2-fold, higher is better): {-study.best_value:.4f}"
    assert cv in out
    held = study.user_attrs["fms:held_out"]
    assert held["metric"] == "-accuracy" and held["loss"] < 0  # as stored before
    line = "held-out accuracy (38 rows the search never saw; higher is better): "
    assert f"{line}{-held['loss']:.4f}\n" in out
    # A neg_* scorer reads as the loss it negates, not "-neg_log_loss".
    code, out, err = _run([*argv, "--metric", "neg_log_loss", "--study-name", "ll"], capsys)
    assert code == 0, err
    assert "neg_" not in out and "better" not in out
    assert "CV log_loss on search data (2-fold): 0." in out


def test_keel_dataset_loads_raw_table() -> None:
    X, y = load_dataset("keel:heart")
    assert X.shape == (270, 13) and set(np.unique(y)) == {1, 2}
    X2, y2 = load_dataset("keel:crx")
    assert isinstance(X2, pd.DataFrame) and X2["x0"].dtype == object  # string column
    assert set(np.unique(y2)) == {"negative", "positive"}


def test_datasets_command(capsys: Any) -> None:
    code, out, _ = _run(["datasets"], capsys)
    assert code == 0 and "sklearn:breast_cancer" in out and "keel:heart" in out


def test_console_script_entry_point(tmp_path: Any) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "optuna_psms.cli", "select", "--dataset", "keel:nope"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "optuna-psms: error: unknown KEEL dataset 'nope'; run 'optuna-psms datasets' to list them"
    )


# ------------------------------------------------------------------ names, help, version
def test_help_lists_the_names_of_the_registries() -> None:
    from optuna_psms.cli import _common
    from optuna_psms.fms.metrics import BUILTIN_METRICS
    from optuna_psms.fms.space import CLASSIFIERS
    from optuna_psms.fms.space import SELECTORS
    from optuna_psms.samplers._registry import SAMPLERS

    assert _common.SAMPLER_NAMES == tuple(SAMPLERS)
    assert _common.CLASSIFIER_NAMES == tuple(CLASSIFIERS)
    assert _common.SELECTOR_NAMES == ("none", *SELECTORS)
    assert _common.METRIC_NAMES == tuple(BUILTIN_METRICS)


def test_help_version_datasets_import_nothing_heavy(tmp_path: Any) -> None:
    script = (
        "import sys, contextlib, io\n"
        "from optuna_psms.cli import main\n"
        "for argv in (['--help'], ['select', '--help'], ['--version'], ['datasets', 'iris']):\n"
        "    with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "        try:\n"
        "            main(argv)\n"
        "        except SystemExit:\n"
        "            pass\n"
        "    print(repr(out.getvalue()))\n"
        "heavy = sorted({'optuna', 'sklearn', 'pandas', 'numpy', 'xgboost'} & set(sys.modules))\n"
        "print('heavy', heavy)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "heavy []" in out
    assert "optuna-psms 0.1.0" in out
    for name in ("pso_ring", "random_forest", "mutual_info", "pi_svm", "redis://"):
        assert name in out


def test_datasets_table_with_filter(capsys: Any) -> None:
    code, out, _ = _run(["datasets", "HEART"], capsys)
    assert code == 0
    rows = [line.split() for line in out.strip().splitlines()]
    assert rows[0] == ["name", "samples", "features", "classes"]
    assert ["keel:heart", "270", "13", "2"] in rows
    assert all("heart" in r[0] for r in rows[1:-1])
    assert out.strip().splitlines()[-1].endswith(" datasets; use them as --dataset NAME")
    code, out, _ = _run(["datasets", "yeast1"], capsys)
    assert (
        code == 0 and out.strip().splitlines()[-1] == "1 dataset; use it as --dataset keel:yeast1"
    )
    # An empty listing is an answer, not an error: exit 0 (it was 1, a status the CLI does not
    # document), one line, and the close name when the word looks like a typo of one.
    n_all = len(_run(["datasets"], capsys)[1].strip().splitlines()) - 2
    code, out, err = _run(["datasets", "no-such-set"], capsys)
    assert (code, err) == (0, "")
    assert out == (
        f"no dataset name contains 'no-such-set'; 'optuna-psms datasets' lists all {n_all}\n"
    )
    code, out, err = _run(["datasets", "hart"], capsys)
    assert (code, err) == (0, "")
    assert out == (
        "no dataset name contains 'hart' (did you mean keel:heart?); "
        f"'optuna-psms datasets' lists all {n_all}\n"
    )


# ------------------------------------------------------------------ select + predict on a CSV
def _write_csv(path: Any, n: int = 80, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    label = rng.choice(["yes", "no"], n)
    pd.DataFrame(
        {
            "size": rng.normal(size=n) + 2.0 * (label == "yes"),
            "colour": rng.choice(["red", "blue"], n),
            "label": label,
        }
    ).to_csv(path, index=False)


def _select_argv(tmp_path: Any, *extra: str) -> list[str]:
    # --final-check none: these tests are about the search and its output; the check (the
    # default) has its own tests in test_fms_final_check, and costs each run ~50 refits.
    return [
        "select",
        "--final-check",
        "none",
        "--csv",
        str(tmp_path / "data.csv"),
        "--target",
        "label",
        "--sampler",
        "random",
        "--classifiers",
        "naive_bayes,logistic",
        "--selectors",
        "none",
        "--seed",
        "3",
        "--no-progress-bar",
        *extra,
    ]


@pytest.mark.parametrize(
    ("metric", "label", "stored"),
    [
        ("auc", "1-AUC", "1-AUC"),
        ("balanced_accuracy", "balanced_accuracy", "-balanced_accuracy"),
        ("ber", "ber", "ber"),
    ],
)
def test_select_names_the_loss_it_prints(
    metric: str, label: str, stored: str, tmp_path: Any, capsys: Any
) -> None:
    # "CV auc on search data: 0.0315" read as an AUC of 0.03; the value is 1 - AUC
    # (seen by a new user, 26 Nov 2026). A scikit-learn scorer s is minimised as -s, and
    # printed as s, higher is better (the output said "-balanced_accuracy" until 26 Nov).
    _write_csv(tmp_path / "data.csv")
    db = f"sqlite:///{tmp_path}/m.db"
    out_file = str(tmp_path / "m.joblib")
    argv = _select_argv(tmp_path, "--metric", metric, "--n-trials", "2", "--storage", db)
    code, out, err = _run([*argv, "--output", out_file, "--study-name", "m"], capsys)
    assert code == 0, err
    higher = stored != label
    first = f"2-fold CV {label}{' (higher is better)' if higher else ''}, seed 3"
    assert first in out.splitlines()[0]
    assert f"CV {label} on search data (2-fold{', higher is better' if higher else ''}): " in out
    assert f"held-out {label} (" in out
    study = optuna.load_study(study_name="m", storage=db)
    held = study.user_attrs["fms:held_out"]
    assert held["metric"] == stored
    assert held["cv_on_search_rows"] == study.best_value
    # A loss, lower is better: 1 - AUC in [0, 1], minus a balanced accuracy in [-1, 0].
    low, high = (-1.0, 0.0) if metric == "balanced_accuracy" else (0.0, 1.0)
    assert low <= held["loss"] <= high and low <= study.best_value <= high


def test_select_reselect_top_refits_the_re_evaluated_choice(tmp_path: Any, capsys: Any) -> None:
    _write_csv(tmp_path / "data.csv")
    db = f"sqlite:///{tmp_path}/r.db"
    model_path = tmp_path / "r.joblib"
    argv = _select_argv(tmp_path, "--n-trials", "6", "--storage", db, "--study-name", "rs")
    code, out, err = _run([*argv, "--reselect-top", "4", "--output", str(model_path)], capsys)
    assert code == 0, err
    study = optuna.load_study(study_name="rs", storage=db)
    record = study.user_attrs["fms:reselect"]
    assert record["cv"] == 5 and len(record["losses"]) == 4
    chosen = study.trials[record["trial"]]
    assert f"Best search pipeline (trial {chosen.number}): " in out
    assert f"CV ber on search data (2-fold): {chosen.value:.4f}" in out
    loss = record["losses"][str(chosen.number)]
    assert f"chosen among the 4 best by 5-fold CV: {loss:.4f}" in out
    assert joblib.load(model_path).best_trial_.number == chosen.number
    code, _, err = _run([*argv, "--reselect-top", "-1"], capsys)
    assert code != 0 and "--reselect-top must be 0 (off) or more" in err


def test_select_holdout_then_predict(tmp_path: Any, capsys: Any) -> None:
    _write_csv(tmp_path / "data.csv")
    db = f"sqlite:///{tmp_path}/s.db"
    model_path = tmp_path / "m.joblib"
    argv = _select_argv(tmp_path, "--n-trials", "3", "--storage", db, "--study-name", "hp")
    argv += ["--final-check", "none"]  # the vote's held-out line (the check: its own tests)
    code, out, err = _run([*argv, "--output", str(model_path)], capsys)
    assert code == 0, err
    assert "60 search rows, 20 held out" in out
    study = optuna.load_study(study_name="hp", storage=db)
    assert f"CV ber on search data (2-fold): {study.best_value:.4f}" in out
    # The held-out number is the saved pipeline refitted on the search rows, scored on the
    # 20 others: recompute it from the same split.
    from optuna_psms.fms.holdout import split as _split
    from optuna_psms.fms.metrics import balanced_error_rate

    X, y = load_csv_frame(tmp_path / "data.csv")
    X_s, y_s, X_h, y_h = _split(X, y, 0.25, 3)
    assert len(y_h) == 20 and sorted(set(y_h)) == ["no", "yes"]
    line = next(s for s in out.splitlines() if s.startswith("held-out ber (20 rows"))
    held = float(line.rsplit(" ", 1)[1])
    assert 0.0 <= held <= 1.0
    # The study keeps both numbers, so the dashboard (whose "Best Trial" is the CV value on
    # the search rows) also shows the held-out one.
    record = optuna.load_study(study_name="hp", storage=db).user_attrs["fms:held_out"]
    assert record["trial"] == study.best_trial.number and record["rows"] == 20
    assert record["metric"] == "ber" and f"{record['loss']:.4f}" == f"{held:.4f}"
    assert record["cv_on_search_rows"] == study.best_value
    # ... and the study's note, which the dashboard shows on the study's page
    from optuna_dashboard import get_note

    from optuna_psms.samplers._study_info import HELD_OUT_HEADING

    note = get_note(optuna.load_study(study_name="hp", storage=db))
    held_note = note.split(HELD_OUT_HEADING, 1)[1]
    assert f"ber **{held:.4f}** on 20 rows the search never saw (the vote of trials " in held_note
    assert f"CV ber on the search rows ({study.best_value:.4f})" in held_note
    # The held-out number is the saved model's: the vote of the 3 distinct pipelines here.
    assert "; the vote of 3 pipelines)" in line and len(record["vote_of_trials"]) == 3
    assert "it predicts by a vote of the 3 best distinct pipelines" in out
    model = joblib.load(model_path)
    assert [t.number for t in model.ensemble_trials_] == record["vote_of_trials"]
    assert "refitted on all 80 rows" in out
    # The saved model reports the search's CV value (on the 60 search rows), the one printed,
    # and where it comes from; not a CV of its own refit.
    printed = next(s for s in out.splitlines() if s.startswith("CV ber on search data"))
    cv_value = printed.split(": ", 1)[1].split()[0]
    assert (
        model.best_loss_ == study.best_value
        and model.best_trial_.number == study.best_trial.number
    )
    assert (
        f"[CV ber = {cv_value} on the search data, trial {study.best_trial.number} of study "
        f"'hp']; predicts by a vote of 3 pipelines" in model.describe()
    )
    assert len(model.cv_results_["state"]) == 3  # the search's trials, kept in memory
    # predict: one row per input row, the original labels, a probability column per class.
    pd.DataFrame(X).to_csv(tmp_path / "new.csv", index=False)
    code, out, err = _run(
        [
            "predict",
            "--model",
            str(model_path),
            "--csv",
            str(tmp_path / "new.csv"),
            "--proba",
            "--output",
            str(tmp_path / "pred.csv"),
        ],
        capsys,
    )
    assert code == 0, err
    pred = pd.read_csv(tmp_path / "pred.csv")
    assert list(pred.columns) == ["prediction", "proba_no", "proba_yes"]
    assert len(pred) == 80 and set(pred["prediction"]) <= {"yes", "no"}
    assert list(pred["prediction"]) == list(model.predict(X))
    np.testing.assert_allclose(pred[["proba_no", "proba_yes"]].sum(axis=1), 1.0)
    recomputed = balanced_error_rate(y_h, _refit_on(model, X_s, y_s).predict(X_h))
    assert abs(recomputed - held) <= 5e-5  # printed with 4 decimals


def test_select_ensemble_top_one_saves_the_chosen_pipeline_alone(
    tmp_path: Any, capsys: Any
) -> None:
    _write_csv(tmp_path / "data.csv")
    db = f"sqlite:///{tmp_path}/s.db"
    model_path = tmp_path / "m.joblib"
    argv = _select_argv(tmp_path, "--n-trials", "3", "--storage", db, "--study-name", "one")
    argv += ["--final-check", "none"]  # the single pipeline, not the check's choice
    code, out, err = _run([*argv, "--ensemble-top", "1", "--output", str(model_path)], capsys)
    assert code == 0, err
    assert "held-out ber (20 rows the search never saw): " in out and "vote" not in out
    model = joblib.load(model_path)
    study = optuna.load_study(study_name="one", storage=db)
    assert [t.number for t in model.ensemble_trials_] == [study.best_trial.number]
    assert study.user_attrs["fms:held_out"]["vote_of_trials"] == [study.best_trial.number]
    code, _, err = _run([*argv, "--ensemble-top", "0"], capsys)
    assert code == 2 and err.strip().endswith("--ensemble-top must be at least 1; got 0")
    assert len(err.strip().splitlines()) == 1


@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_select_initial_pipelines_come_first_and_default_as_the_selector(
    tmp_path: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import inspect

    from optuna_psms.fms import FullModelSelector
    from optuna_psms.fms._initial import INITIAL_ATTR

    monkeypatch.chdir(tmp_path)  # without --output, the model goes to ./psms_model.joblib
    _write_csv(tmp_path / "data.csv")
    db = f"sqlite:///{tmp_path}/s.db"
    argv = _select_argv(tmp_path, "--n-trials", "3", "--storage", db)
    code, out, err = _run([*argv, "--study-name", "d", "--initial-pipelines", "defaults"], capsys)
    assert code == 0, err
    trials = optuna.load_study(study_name="d", storage=db).trials
    # the CSV's space holds naive_bayes and logistic: only the logistic default applies
    assert [t.user_attrs.get(INITIAL_ATTR) for t in trials] == [0, None, None]
    assert trials[0].params["clf:method"] == "logistic"
    best = optuna.load_study(study_name="d", storage=db).best_trial
    start = " of the initial pipelines" if best.number == 0 else ""
    assert f"Best search pipeline (trial {best.number}{start}): " in out
    code, _, err = _run([*argv, "--study-name", "n", "--initial-pipelines", "none"], capsys)
    assert code == 0, err
    trials = optuna.load_study(study_name="n", storage=db).trials
    assert all(INITIAL_ATTR not in t.user_attrs for t in trials)
    # --help states the selector's default
    default = inspect.signature(FullModelSelector).parameters["initial_pipelines"].default
    helptext = subprocess.run(
        [sys.executable, "-m", "optuna_psms.cli", "select", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert f"(default: {default or 'none'}; see" in " ".join(helptext.split())


def load_csv_frame(path: Any) -> tuple[pd.DataFrame, np.ndarray[Any, Any]]:
    from optuna_psms.fms.datasets import load_csv

    return load_csv(str(path), "label")


def _refit_on(model: Any, X: Any, y: Any) -> Any:
    from optuna_psms.fms._join import StudySettings
    from optuna_psms.fms._select_steps import refit

    settings = StudySettings(
        task="classification",
        classifiers=["naive_bayes", "logistic"],
        selectors=["none"],
        cv=2,
        metric="ber",
        subsample=1.0,
        seed=3,
    )
    return refit(settings, model.study_, model.best_trial_, X, y, final_check=None)


def test_predict_mistakes_are_one_line(tmp_path: Any, capsys: Any) -> None:
    (tmp_path / "junk.joblib").write_text("not a model")
    for argv, message in [
        (["--model", "nope.joblib", "--dataset", "sklearn:iris"], "model file not found"),
        (
            ["--model", str(tmp_path / "junk.joblib"), "--dataset", "sklearn:iris"],
            f"{tmp_path / 'junk.joblib'} is not a model saved by optuna-psms select (",
        ),
    ]:
        code, _, err = _run(["predict", *argv], capsys)
        assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
        assert message in err


@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_join_continues_the_study_and_refuses_other_settings(tmp_path: Any, capsys: Any) -> None:
    _write_csv(tmp_path / "data.csv")
    db = f"sqlite:///{tmp_path}/j.db"
    base = _select_argv(tmp_path, "--storage", db, "--study-name", "shared")
    out_file = str(tmp_path / "m.joblib")
    assert _run([*base, "--n-trials", "2", "--output", out_file], capsys)[0] == 0
    # Without --seed and --sampler, a joining worker takes the study's.
    argv = [a for a in base if a not in ("--seed", "3", "--sampler", "random")]
    code, out, err = _run([*argv, "--n-trials", "2", "--output", out_file], capsys)
    assert code == 0, err
    assert "sampler random" in out and "seed 3" in out
    assert len(optuna.load_study(study_name="shared", storage=db).trials) == 4
    for extra, why in [
        (["--cv", "3"], "it uses --cv 2"),
        (["--metric", "error"], "it minimises --metric ber"),
        (["--test-size", "0.5"], "it holds out another fraction (--test-size 0.25)"),
        (["--sampler", "tpe"], "it runs --sampler random"),
    ]:
        code, _, err = _run([*base, "--n-trials", "1", *extra], capsys)
        assert code == 2 and "cannot join study 'shared': " + why in err, err
    _write_csv(tmp_path / "data.csv", seed=1)  # other rows under the same file name
    code, _, err = _run([*base, "--n-trials", "1"], capsys)
    assert code == 2 and "its data differ" in err
    assert len(optuna.load_study(study_name="shared", storage=db).trials) == 4


def test_missing_storage_driver_is_one_line(tmp_path: Any, capsys: Any, monkeypatch: Any) -> None:
    from optuna_psms import storages

    monkeypatch.setattr(storages, "_has", lambda name: False)
    _write_csv(tmp_path / "data.csv")
    argv = _select_argv(tmp_path, "--n-trials", "1", "--storage", "postgresql://u@h/d")
    code, _, err = _run(argv, capsys)
    assert code == 2 and err.count("\n") == 1
    assert "pip install 'optuna-psms[postgresql]'" in err


def test_unreachable_grpc_proxy_is_one_line(tmp_path: Any, capsys: Any, monkeypatch: Any) -> None:
    """No proxy at the address: one line naming it, not a gRPC traceback at the first call."""
    import socket

    from optuna_psms import storages

    pytest.importorskip("grpc")
    monkeypatch.setattr(storages, "GRPC_READY_TIMEOUT", 0.5)
    with socket.socket() as sock:  # a port nothing listens on once this socket is closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    _write_csv(tmp_path / "data.csv")
    argv = _select_argv(tmp_path, "--n-trials", "1", "--storage", f"grpc://127.0.0.1:{port}")
    code, _, err = _run(argv, capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert f"no gRPC storage proxy answered at 127.0.0.1:{port} within 0.5 s" in err


def test_no_holdout_and_default_seed_from_the_study_name(tmp_path: Any, capsys: Any) -> None:
    from optuna_psms.fms._join import name_seed

    _write_csv(tmp_path / "data.csv")
    db = f"sqlite:///{tmp_path}/n.db"
    argv = [a for a in _select_argv(tmp_path) if a not in ("--seed", "3")]
    out_file = str(tmp_path / "m.joblib")
    common = ["--storage", db, "--study-name", "noseed", "--output", out_file]
    code, out, err = _run([*argv, "--n-trials", "1", "--test-size", "0", *common], capsys)
    assert code == 0, err
    assert "80 search rows, no hold-out" in out and f"seed {name_seed('noseed')};" in out
    assert "held-out: none (--test-size 0)" in out and "refitted on all 80 rows" in out


@pytest.mark.slow  # > 2 s: the default suite stays under 5 min (2026-11-28)
def test_trial_timeout_reaches_the_search(tmp_path: Any, capsys: Any, monkeypatch: Any) -> None:
    from optuna_psms.fms import _search
    from optuna_psms.fms.objective import make_objective as real  # the one _search calls

    seen: list[Any] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs.get("trial_timeout"))
        return real(*args, **kwargs)

    monkeypatch.setattr(_search, "make_objective", spy)
    db = f"sqlite:///{tmp_path}/t.db"
    argv = ["select", "--dataset", "sklearn:iris", "--sampler", "random", "--seed", "0"]
    argv += ["--classifiers", "naive_bayes", "--n-trials", "3", "--no-progress-bar"]
    argv += ["--storage", db, "--study-name", "timed", "--output", str(tmp_path / "m.joblib")]
    code, out, err = _run([*argv, "--trial-timeout", "30"], capsys)
    assert code == 0, err
    assert seen[0] == 30.0  # the search's objective
    study = optuna.load_study(study_name="timed", storage=db)
    assert [t.state for t in study.trials] == [optuna.trial.TrialState.COMPLETE] * 3
    # A per-worker limit, not a setting of the study: a worker with another limit joins.
    assert "trial_timeout" not in study.user_attrs["psms:cli"]
    seen.clear()
    code, _, err = _run([*argv, "--trial-timeout", "60", "--n-trials", "1"], capsys)
    assert code == 0, err
    assert seen[0] == 60.0 and len(optuna.load_study(study_name="timed", storage=db).trials) == 4


@pytest.mark.parametrize("value", ["0", "-5", "inf", "nan"])
def test_bad_trial_timeout_is_one_line(tmp_path: Any, capsys: Any, value: str) -> None:
    argv = ["select", "--dataset", "sklearn:iris", "--storage", f"sqlite:///{tmp_path}/b.db"]
    code, _, err = _run([*argv, f"--trial-timeout={value}", "--n-trials", "1"], capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert f"--trial-timeout must be a positive number of seconds; got {float(value)}" in err
    assert not (tmp_path / "b.db").exists()  # refused before opening the storage


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--classifiers", "svm"],
            "--classifiers: unknown classifier 'svm'; did you mean 'svc'? built-in ones: ",
        ),
        (
            ["--selectors", "ftst"],
            "--selectors: unknown selector 'ftst'; did you mean 'ftest'? built-in ones: ",
        ),
        (["--classifiers", ","], "--classifiers: the space needs at least one classifier"),
        (["--cv", "1"], "--cv must be at least 2 (the number of CV folds); got 1"),
        (["--timeout", "-1"], "--timeout must be a positive number of seconds; got -1.0"),
        (["--n-jobs", "0"], "--n-jobs must be at least 1 (or -1: one per CPU); got 0"),
        (["--seed", "-1"], "--seed must be an integer in [0, 2**32); got -1"),
        (["--subsample", "0"], "--subsample must be in (0, 1]; got 0.0"),
        (["--subsample", "2"], "--subsample must be in (0, 1]; got 2.0"),
        (["--test-size", "0.99"], "--test-size 0.99: cannot split the rows"),
        (
            ["--cv", "50"],
            "class 'yes' has only 26 sample(s), fewer than the 50 cross-validation folds; use a "
            "smaller --cv or more data (in the 60 search rows left by --test-size 0.25)",
        ),
    ],
)
def test_bad_setting_is_refused_before_any_study_exists(
    tmp_path: Any, capsys: Any, extra: list[str], message: str
) -> None:
    # A typo must not create the study and store its settings: the corrected command with
    # the same --study-name would then be refused as another search, forever.
    _write_csv(tmp_path / "data.csv")
    db = f"sqlite:///{tmp_path}/s.db"
    base = _select_argv(tmp_path, "--storage", db, "--study-name", "typo", "--n-trials", "1")
    code, out, err = _run([*base, *extra], capsys)
    assert code == 2 and out == "", out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("optuna-psms: error: " + message), err
    assert not lines[0].endswith("."), lines[0]
    assert optuna.get_all_study_names(db) == []


def test_corrected_command_runs_the_study_a_typo_named(tmp_path: Any, capsys: Any) -> None:
    _write_csv(tmp_path / "data.csv")
    db = f"sqlite:///{tmp_path}/s.db"
    base = _select_argv(
        tmp_path,
        "--storage",
        db,
        "--study-name",
        "typo",
        "--n-trials",
        "1",
        "--output",
        str(tmp_path / "m.joblib"),
    )
    assert _run([*base, "--classifiers", "svm"], capsys)[0] == 2
    code, out, err = _run([*base, "--classifiers", "svc"], capsys)
    assert code == 0, err
    study = optuna.load_study(study_name="typo", storage=db)
    assert len(study.trials) == 1 and study.user_attrs["psms:cli"]["classifiers"] == ["svc"]


@pytest.mark.parametrize("content", [b"", b"garbage\n", b"a,b,label\n1,2,yes\n", b"bytes"])
def test_predict_on_a_file_that_is_not_a_model(tmp_path: Any, capsys: Any, content: bytes) -> None:
    path = tmp_path / "thing.joblib"
    if content == b"bytes":
        content = np.random.default_rng(0).bytes(300)
    path.write_bytes(content)
    joblib.dump({"a": 1}, tmp_path / "dict.joblib")
    for model in (path, tmp_path / "dict.joblib"):
        code, out, err = _run(
            ["predict", "--model", str(model), "--dataset", "sklearn:iris"], capsys
        )
        assert code == 2 and out == ""
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert lines[0].startswith(
            f"optuna-psms: error: {model} is not a model saved by optuna-psms select ("
        ), err


def test_predict_drops_extra_columns_with_one_warning_line(tmp_path: Any, capsys: Any) -> None:

    X, y = load_dataset("sklearn:iris")
    model = quick_model(X, y)
    model_path = tmp_path / "named.joblib"
    joblib.dump(model, model_path)
    with_label = X.assign(target=y).iloc[:, ::-1]
    with_label.to_csv(tmp_path / "labelled.csv", index=False)
    argv = ["predict", "--model", str(model_path), "--csv"]
    code, out, err = _run([*argv, str(tmp_path / "labelled.csv")], capsys)
    assert code == 0, err
    assert err.strip().splitlines() == [
        "warning: ignoring column(s) 'target' the model was not fitted with"
    ]
    assert [int(v) for v in out.split()[1:]] == list(model.predict(X))
    X.iloc[:, 1:].to_csv(tmp_path / "few.csv", index=False)  # only missing columns
    code, out, err = _run([*argv, str(tmp_path / "few.csv")], capsys)
    assert code == 2 and err == (
        f"optuna-psms: error: {tmp_path / 'few.csv'} lacks 1 column the model was fitted with: "
        f"{X.columns[0]!r} (to predict without it, add it to the file as an empty column: "
        "taken as missing)\n"
    )


def test_predict_names_exactly_the_missing_columns(tmp_path: Any, capsys: Any) -> None:
    # The message listed the identifier and the target as "column(s) not seen in fit", as if
    # they were the missing column renamed (a new user's trial, 26 Nov 2026).

    X, y = load_dataset("sklearn:iris")
    X.columns = ["a", "b", "colour", "d"]
    model = quick_model(X, y)
    model_path = tmp_path / "m.joblib"
    joblib.dump(model, model_path)
    csv = tmp_path / "new.csv"
    argv = ["predict", "--model", str(model_path), "--csv", str(csv)]
    X.drop(columns="colour").assign(id=range(len(y)), target=y).to_csv(csv, index=False)
    code, _, err = _run(argv, capsys)
    assert code == 2 and err == (
        f"optuna-psms: error: {csv} lacks 1 column the model was fitted with: 'colour' "
        "(to predict without it, add it to the file as an empty column: taken as missing)\n"
    )
    # A column removed by --drop, or renamed, is said to be.
    X.rename(columns={"colour": "Color"}).assign(id=range(len(y))).to_csv(csv, index=False)
    code, _, err = _run([*argv, "--drop", "a"], capsys)
    assert code == 2 and err == (
        f"optuna-psms: error: {csv} lacks 2 columns the model was fitted with: 'a', 'colour' "
        "(--drop removed 'a'; 'colour' renamed 'Color'?)\n"
    )


def test_predict_says_how_to_do_without_a_missing_column(tmp_path: Any, capsys: Any) -> None:
    # New rows without a column the model was fitted with ("age" was not measured): the error
    # named it and stopped there, though the model takes an empty column as missing (a new
    # user's trial, 28 Nov 2026). Following the hint gives predictions and one warning line.

    rng = np.random.default_rng(0)
    X = pd.DataFrame(
        {"size": rng.normal(size=40), "age": rng.normal(size=40), "city": ["a", "b"] * 20}
    )
    y = np.array(["x", "y"] * 20)
    model_path = tmp_path / "m.joblib"
    joblib.dump(quick_model(X, y), model_path)
    csv = tmp_path / "new.csv"
    argv = ["predict", "--model", str(model_path), "--csv", str(csv)]
    X[["size"]].head(3).to_csv(csv, index=False)
    code, _, err = _run(argv, capsys)
    assert code == 2 and err == (
        f"optuna-psms: error: {csv} lacks 2 columns the model was fitted with: 'age', 'city' "
        "(to predict without them, add them to the file as empty columns: taken as missing)\n"
    )
    X[["size"]].head(3).assign(age=np.nan, city=np.nan).to_csv(csv, index=False)
    code, out, err = _run(argv, capsys)
    assert code == 0 and len(out.split()) == 4, err  # the header and 3 predictions
    assert err.startswith("warning: column 'age': empty in all 3 rows, taken as missing"), err
    # Another file altogether (none of the model's columns) gets no such hint.
    pd.DataFrame({"other": [1.0, 2.0]}).to_csv(csv, index=False)
    code, _, err = _run(argv, capsys)
    assert code == 2 and err == (
        f"optuna-psms: error: {csv} lacks 3 columns the model was fitted with: "
        "'size', 'age', 'city'\n"
    )


def test_predict_warns_about_values_the_model_cannot_read(tmp_path: Any, capsys: Any) -> None:
    # Text in a numeric column becomes the training median and an unseen category none of
    # the known ones: the predictions still come, but the person is told, one line each.

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"size": rng.normal(size=40), "colour": ["red", "blue"] * 20})
    y = np.array(["a", "b"] * 20)
    model = quick_model(X, y)
    model_path = tmp_path / "m.joblib"
    joblib.dump(model, model_path)
    new = X.head(3).astype(object)
    new.to_csv(tmp_path / "plain.csv", index=False)
    new.loc[0, "size"] = "big"
    new.loc[1, "colour"] = "green"
    new.to_csv(tmp_path / "odd.csv", index=False)
    argv = ["predict", "--model", str(model_path), "--csv"]
    code, out, err = _run([*argv, str(tmp_path / "plain.csv")], capsys)
    assert code == 0 and err == "", err
    code, out, err = _run([*argv, str(tmp_path / "odd.csv")], capsys)
    assert code == 0, err
    median = float(np.median(X["size"]))
    assert err.strip().splitlines() == [
        "warning: column 'size': 1 value(s) that are not numbers (e.g. 'big'), taken as "
        f"missing (replaced by the training median {median:.6g})",
        "warning: column 'colour': 1 value(s) not seen in training (e.g. 'green'), encoded "
        "as none of the known ones",
    ]
    assert len(out.split()) == 1 + 3
    new.head(0).to_csv(tmp_path / "header.csv", index=False)
    code, out, err = _run([*argv, str(tmp_path / "header.csv")], capsys)
    assert code == 2 and out == "", out
    assert (
        err == f"optuna-psms: error: {tmp_path / 'header.csv'} has a header row but no data rows\n"
    )


def test_argument_type_error_is_one_line(capsys: Any) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["select", "--dataset", "sklearn:iris", "--n-trials", "ten"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.splitlines() == [
        "optuna-psms select: error: argument --n-trials: invalid int value: 'ten' "
        "(see 'optuna-psms select --help')"
    ]


def test_dataset_with_missing_labels_is_one_line(
    tmp_path: Any, capsys: Any, monkeypatch: Any
) -> None:
    # Checked before the split, so the count is of every row, not of the search rows.
    from optuna_psms.cli import _data

    X = pd.DataFrame({"a": range(12)})
    y = np.array(["u", None, "v", np.nan] + ["u", "v"] * 4, dtype=object)
    monkeypatch.setattr(_data, "load_dataset", lambda name: (X, y))
    db = f"sqlite:///{tmp_path}/s.db"
    argv = ["select", "--dataset", "keel:x", "--n-trials", "1", "--storage", db]
    code, out, err = _run(argv, capsys)
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        "optuna-psms: error: the target of keel:x has 2 missing value(s); drop those rows "
        "or fill in their labels"
    ]
    assert optuna.get_all_study_names(db) == []


@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_slow_refit_is_announced(tmp_path: Any, capsys: Any, monkeypatch: Any) -> None:
    # After the search the progress bar sits at 100 % while the chosen pipeline is refitted
    # on all rows; when its CV took long, a line says so (not for quick pipelines).
    from optuna_psms.cli import _select_run as select

    _write_csv(tmp_path / "data.csv")
    db = f"sqlite:///{tmp_path}/s.db"
    argv = _select_argv(tmp_path, "--n-trials", "2", "--storage", db, "--study-name", "slow")
    out_file = str(tmp_path / "m.joblib")
    code, out, err = _run([*argv, "--output", out_file], capsys)
    assert code == 0, err
    assert "refitting" not in out
    monkeypatch.setattr(select, "SLOW_REFIT_SECONDS", 0.0)
    code, out, err = _run([*argv, "--n-trials", "1", "--output", out_file], capsys)
    assert code == 0, err
    study = optuna.load_study(study_name="slow", storage=db)
    seconds = study.best_trial.user_attrs["fms:fit_time"]
    line = (
        f"  refitting trial {study.best_trial.number} on all 80 rows (its CV took "
        f"{seconds:.0f} s in the search) ..."
    )
    lines = out.splitlines()
    assert line in lines
    assert lines.index(line) < next(
        i for i, s in enumerate(lines) if s.startswith("Model refitted")
    )


def test_sqlalchemy_log_records_do_not_reach_a_user_of_the_command(
    capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ctrl-C inside a query made SQLAlchemy log "Error closing cursor" with tracebacks on
    # stderr before the command's one-line "interrupted" (seen in .ci/run, 25 Nov 2026).
    # A fresh interpreter: pytest's own log handlers would swallow the record here.
    code = (
        "import logging, sys\n"
        "from optuna_psms.cli import quiet_sqlalchemy_logs\n"
        "if sys.argv[1] == 'quiet':\n"
        "    quiet_sqlalchemy_logs()\n"
        "try:\n"
        "    raise KeyboardInterrupt\n"
        "except KeyboardInterrupt:\n"
        "    logger = logging.getLogger('sqlalchemy.pool.impl.QueuePool')\n"
        "    logger.error('Error closing cursor', exc_info=True)\n"
    )
    runs = {
        mode: subprocess.run(
            [sys.executable, "-c", code, mode],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )
        for mode in ("loud", "quiet")
    }
    assert "Error closing cursor" in runs["loud"].stderr  # what a user of the command saw
    assert runs["quiet"].returncode == 0 and runs["quiet"].stderr == ""
    # ... and the command line quiets them before running any command.
    import optuna_psms.cli as cli

    called: list[bool] = []
    monkeypatch.setattr(cli, "quiet_sqlalchemy_logs", lambda: called.append(True))
    assert _run(["datasets"], capsys)[0] == 0 and called == [True]


def test_ctrl_c_inside_optunas_last_write_is_still_an_interrupt(
    tmp_path: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Optuna 5.0's _run_trial raises UnboundLocalError from its `finally` when Ctrl-C lands
    # inside its final storage write; the command exited 1 with a traceback (.ci/run, 25 Nov).
    from optuna_psms.fms import FullModelSelector

    def fit(self: Any, X: Any, y: Any) -> Any:
        try:
            raise KeyboardInterrupt
        finally:
            raise UnboundLocalError("cannot access local variable 'updated_state'")

    monkeypatch.setattr(FullModelSelector, "fit", fit)
    _write_csv(tmp_path / "data.csv")
    db = f"sqlite:///{tmp_path}/s.db"
    argv = _select_argv(tmp_path, "--n-trials", "3", "--storage", db, "--study-name", "cut")
    code, _, err = _run(argv, capsys)
    assert code == 130 and "optuna-psms: interrupted; study 'cut' is kept" in err
    assert "Traceback" not in err and "UnboundLocalError" not in err


def test_ctrl_c_says_how_to_resume_a_study_the_command_named(
    tmp_path: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without --study-name, "the same command resumes it" was wrong: rerun, the command
    # started a new timestamped study (seen by a new user, 26 Nov 2026).
    from optuna_psms.fms import FullModelSelector

    def fit(self: Any, X: Any, y: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(FullModelSelector, "fit", fit)
    _write_csv(tmp_path / "data.csv")
    db = f"sqlite:///{tmp_path}/s.db"
    code, out, err = _run(_select_argv(tmp_path, "--storage", db), capsys)
    (name,) = optuna.get_all_study_names(db)
    assert code == 130 and name.startswith("fms-data-") and f"study '{name}'" in out
    assert err.strip().splitlines() == [
        f"optuna-psms: interrupted; study '{name}' is kept in {db} (0 complete): resume it "
        f"with the same command and --study-name {name} (it runs 100 more trials: --n-trials "
        "counts each run's)"
    ]
    # The rerun adds --n-trials trials: a user expecting it to top the study up to that
    # number was surprised by a second full run (26 Nov 2026).
    argv = _select_argv(tmp_path, "--storage", db, "--study-name", "x", "--n-trials", "7")
    code, _, err = _run(argv, capsys)
    assert code == 130 and err.strip().endswith(
        "(0 complete): the same command resumes it (it runs 7 more trials: --n-trials "
        "counts each run's)"
    )


def test_failed_count_names_the_trial_ctrl_c_cut(
    tmp_path: Any, capsys: Any, raise_in_trials: Callable[[dict[int, BaseException]], None]
) -> None:
    # "[27 complete, 1 failed]" after Ctrl-C read as a broken pipeline (a new user's trial,
    # 26 Nov 2026): Optuna fails the cut trial too. Trial 1's pipeline fails, trial 2 is cut.
    raise_in_trials({1: ValueError("a broken pipeline"), 2: KeyboardInterrupt()})
    _write_csv(tmp_path / "data.csv")
    db = f"sqlite:///{tmp_path}/s.db"
    argv = _select_argv(tmp_path, "--n-trials", "5", "--storage", db, "--study-name", "cut")
    code, out, err = _run([*argv, "--output", str(tmp_path / "m.joblib")], capsys)
    assert code == 130, err
    assert "[1 complete, 2 failed (1 interrupted by Ctrl-C) in the study]" in out
    trials = optuna.load_study(study_name="cut", storage=db).trials
    assert [t.user_attrs.get("fms:interrupted") for t in trials] == [None, None, True]
    assert "fms:error" in trials[1].user_attrs and "fms:error" not in trials[2].user_attrs


def test_ctrl_c_during_the_refit_says_no_model_was_saved(
    tmp_path: Any,
    capsys: Any,
    monkeypatch: pytest.MonkeyPatch,
    raise_in_trials: Callable[[dict[int, BaseException]], None],
) -> None:
    # A second Ctrl-C during the refit after a first one stopped the search saved nothing,
    # and the last line said only "optuna-psms: interrupted" (a new user's trial, 26 Nov
    # 2026). Both Ctrl-Cs are simulated: trial 2's CV and the refit raise KeyboardInterrupt.
    from optuna_psms.fms import _select_steps as steps
    from optuna_psms.fms import objective as objective_module
    from optuna_psms.fms._folds import run_folds as real

    def refit(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    real_refit = steps.refit
    raise_in_trials({1: KeyboardInterrupt()})
    monkeypatch.setattr(steps, "refit", refit)
    _write_csv(tmp_path / "data.csv")
    db = f"sqlite:///{tmp_path}/s.db"
    out_file = tmp_path / "m.joblib"
    argv = _select_argv(tmp_path, "--n-trials", "5", "--storage", db)
    code, out, err = _run([*argv, "--output", str(out_file)], capsys)
    (name,) = optuna.get_all_study_names(db)
    assert code == 130 and not out_file.exists()
    assert "[1 complete, 1 failed (1 interrupted by Ctrl-C) in the study]" in out
    assert err.strip().splitlines()[-1] == (
        f"optuna-psms: interrupted again before the model was saved: no model saved "
        f"({out_file} not written); study '{name}' is kept in {db}, and a rerun saves the "
        f"model: resume it with the same command and --study-name {name} (it runs 5 more "
        "trials: --n-trials counts each run's; --n-trials 1 runs one)"
    )
    # A search that ends by itself and is cut in the final refit keeps the file it replaces.
    monkeypatch.setattr(objective_module, "run_folds", real)
    monkeypatch.setattr(steps, "refit", real_refit)
    argv = [*_select_argv(tmp_path, "--n-trials", "1", "--storage", db), "--study-name", name]
    assert _run([*argv, "--output", str(out_file)], capsys)[0] == 0
    saved = out_file.read_bytes()
    monkeypatch.setattr(steps, "refit", refit)
    code, out, err = _run([*argv, "--output", str(out_file)], capsys)
    assert code == 130 and out_file.read_bytes() == saved
    assert err.strip().splitlines()[-1] == (
        f"optuna-psms: interrupted before the model was saved: no model saved ({out_file} is "
        f"unchanged, the model from before); study '{name}' is kept in {db}, and a rerun "
        "saves the model: the same command resumes it (it runs 1 more trial: --n-trials "
        "counts each run's; --n-trials 1 runs one)"
    )


def _interrupt_call(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, k: int) -> None:
    """Make the ``k``-th call (0-based) of ``owner.name`` raise KeyboardInterrupt first: a
    Ctrl-C simulated at a chosen point of Optuna's own code, with no timing involved."""
    real = getattr(owner, name)
    calls: list[int] = []

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) - 1 == k:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, interrupted)


@pytest.mark.parametrize(
    ("where", "k"),
    [
        ("sampler", 2),  # study.ask of trial 2, an enqueued initial pipeline
        ("sampler", 4),  # study.ask of trial 4, a trial the storage creates
        ("last write", 1),  # Optuna's tell of trial 1 (its UnboundLocalError)
    ],
)
@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_ctrl_c_in_optunas_code_leaves_no_trial_running(
    tmp_path: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch, where: str, k: int
) -> None:
    # A Ctrl-C in Optuna's own code, not in the objective, left the trial RUNNING for good;
    # the rerun took it for another worker's and saved no model ("1 trial(s) of other
    # workers still running: the last worker saves the model").
    from optuna.study import _optimize

    monkeypatch.chdir(tmp_path)
    _write_csv(tmp_path / "data.csv")
    db = f"sqlite:///{tmp_path}/s.db"
    argv = _select_argv(tmp_path, "--storage", db, "--study-name", "cut", "--n-trials", "6")
    with monkeypatch.context() as patch:
        if where == "sampler":
            _interrupt_call(patch, optuna.samplers.RandomSampler, "before_trial", k)
        else:
            _interrupt_call(patch, _optimize, "_tell_with_warning", k)
        code, out, err = _run(argv, capsys)
    assert code == 130, err
    assert f"[{k} complete, 1 failed (1 interrupted by Ctrl-C) in the study]" in out
    trials = optuna.load_study(study_name="cut", storage=db).trials
    assert [t.state.name for t in trials] == ["COMPLETE"] * k + ["FAIL"]
    assert trials[k].user_attrs["fms:interrupted"] is True
    # The rerun sees a clean study: it runs its trial, and as the last worker saves the model.
    code, out, err = _run([*argv[:-1], "1"], capsys)
    assert code == 0, err
    assert "still running" not in out and "saved to psms_model.joblib" in out
    assert (tmp_path / "psms_model.joblib").exists()


def test_select_says_when_it_continues_a_study(
    tmp_path: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Rerun after Ctrl-C, the first line read exactly as for a new study.
    monkeypatch.chdir(tmp_path)  # without --output, the model goes to ./psms_model.joblib
    _write_csv(tmp_path / "data.csv")
    db = f"sqlite:///{tmp_path}/s.db"
    argv = _select_argv(tmp_path, "--storage", db, "--study-name", "again", "--n-trials", "2")
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert out.splitlines()[0].endswith(f"study 'again' in {db}")
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert out.splitlines()[0].endswith(
        f"study 'again' in {db}, continued (2 trials so far, 2 complete)"
    )


def test_an_identifier_is_warned_about_once_with_a_hold_out(tmp_path: Any, capsys: Any) -> None:
    # A text identifier got its warning, then, below the search, "in the held-out rows,
    # column 'id': 20 value(s) not seen in training (e.g. 'P-0003'), encoded as the
    # infrequent categories": true of every identifier's held-out rows, so nothing new.
    # A column that is no identifier keeps its held-out line ('batch': pairs of rows, some
    # of whose values only the held-out rows have, with this seed's split).
    _write_csv(tmp_path / "data.csv")
    frame = pd.read_csv(tmp_path / "data.csv")
    frame.insert(0, "id", [f"P-{i:04d}" for i in range(len(frame))])
    frame["batch"] = [f"b{i // 2}" for i in range(len(frame))]
    frame.to_csv(tmp_path / "data.csv", index=False)
    argv = _select_argv(tmp_path, "--n-trials", "1", "--storage", f"sqlite:///{tmp_path}/i.db")
    code, _, err = _run([*argv, "--output", str(tmp_path / "m.joblib")], capsys)
    assert code == 0, err
    lines = err.strip().splitlines()
    assert lines[0] == (
        "warning: column 'id' looks like a row identifier (a different value in each of the "
        "80 rows); as a feature it can only memorise rows (or their order in the file): drop "
        "it with --drop id"
    )
    assert [line for line in lines if "'id'" in line] == lines[:1], err
    held = [line for line in lines if line.startswith("warning: in the held-out rows")]
    assert len(held) == 1 and held[0].startswith(
        "warning: in the held-out rows, column 'batch': "
    ), err


def test_select_says_when_it_replaces_the_default_model_file(
    tmp_path: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _write_csv(tmp_path / "data.csv")
    argv = _select_argv(tmp_path, "--storage", f"sqlite:///{tmp_path}/s.db", "--n-trials", "1")
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert "rows, saved to psms_model.joblib\n" in out
    code, out, err = _run(argv, capsys)  # another study, the same default file
    assert code == 0, err
    assert (
        "rows, saved to psms_model.joblib (replacing the model that was there; --output FILE "
        "saves elsewhere)\n" in out
    )
    code, out, err = _run([*argv, "--output", "psms_model.joblib"], capsys)
    assert code == 0 and "rows, saved to psms_model.joblib\n" in out  # asked for: no remark


@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_select_drop_and_the_identifier_warning(tmp_path: Any, capsys: Any) -> None:
    _write_csv(tmp_path / "data.csv")
    frame = pd.read_csv(tmp_path / "data.csv")
    frame.insert(0, "id", np.arange(1, len(frame) + 1))
    frame["name"] = [f"s{i:03d}" for i in range(len(frame))]
    frame.to_csv(tmp_path / "data.csv", index=False)
    db = f"sqlite:///{tmp_path}/d.db"
    # --ensemble-top 1: a vote of both trials would add its own warning line (test_cli_hints).
    argv = _select_argv(tmp_path, "--n-trials", "2", "--storage", db, "--ensemble-top", "1")
    # Without --drop: one line per identifier-like column, before the search, naming the
    # --drop that removes it; the model's own Python warning is not printed a second time.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code, out, err = _run([*argv, "--output", str(tmp_path / "with_id.joblib")], capsys)
    assert code == 0, err
    assert [str(w.message) for w in caught if "row identifier" in str(w.message)] == []
    lines = err.strip().splitlines()
    assert lines[:2] == [
        "warning: column 'id' looks like a row identifier (the integers 1..80, one per row); "
        "as a feature it can only memorise rows (or their order in the file): drop it with "
        "--drop id",
        "warning: column 'name' looks like a row identifier (a different value in each of "
        "the 80 rows); as a feature it can only memorise rows (or their order in the file): "
        "drop it with --drop name",
    ]
    # The held-out names were never among the search rows': the line saying so repeated the
    # warning above (a different value in each row), so it is gone.
    assert len(lines) == 3, err
    assert lines[2].startswith("warning: too few rows for these scores to mean much: the held")
    # With --drop (either spelling): no warning, and the model knows only the other columns.
    for drop in (["id", "name"], ["id,name"]):
        model_path = tmp_path / "no_id.joblib"
        code, out, err = _run([*argv, "--drop", *drop, "--output", str(model_path)], capsys)
        # Only the line about the 20 held-out rows (tests/cli/test_small_data.py).
        assert code == 0 and err.startswith("warning: too few rows") and err.count("\n") == 1
        assert out.startswith(
            "Full model selection (classification) on data without 'id', 'name': 60 search "
        )
    model = joblib.load(model_path)
    assert list(model.feature_names_in_) == ["size", "colour"]
    # It applies to new rows with or without the dropped columns.
    frame.drop(columns="label").to_csv(tmp_path / "new_with_id.csv", index=False)
    frame[["colour", "size"]].to_csv(tmp_path / "new.csv", index=False)
    predict = ["predict", "--model", str(model_path), "--csv"]
    code, plain, err = _run([*predict, str(tmp_path / "new.csv")], capsys)
    assert code == 0 and err == "", err
    code, out, err = _run([*predict, str(tmp_path / "new_with_id.csv")], capsys)
    assert code == 0 and out == plain
    assert err == "warning: ignoring column(s) 'id', 'name' the model was not fitted with\n"
    with_id = str(tmp_path / "new_with_id.csv")
    code, out, err = _run([*predict, with_id, "--drop", "id", "name"], capsys)
    assert code == 0 and out == plain and err == "", err
    # Mistakes are one line, naming the column.
    csv = tmp_path / "data.csv"
    code, _, err = _run([*argv, "--drop", "ID"], capsys)
    assert code == 2 and err == (
        f"optuna-psms: error: --drop: column 'ID' not found in {csv}; did you mean 'id'? "
        "columns: id, size, colour, name\n"
    )
    code, _, err = _run([*argv, "--drop", "label"], capsys)
    assert code == 2 and err.count("\n") == 1 and "'label' is the --target column" in err
    code, _, err = _run([*predict, str(tmp_path / "new.csv"), "--drop", "id"], capsys)
    assert code == 2 and err == (
        f"optuna-psms: error: --drop: column 'id' not found in {tmp_path / 'new.csv'}; "
        "columns: colour, size\n"
    )
    code, _, err = _run(
        ["select", "--dataset", "sklearn:iris", "--drop", "petal", "--storage", db], capsys
    )
    assert code == 2 and "--drop: column 'petal' not found in sklearn:iris; columns: " in err


def test_predict_dataset_takes_the_drop_of_select(tmp_path: Any, capsys: Any) -> None:

    X, y = load_dataset("sklearn:iris")
    kept = X.drop(columns="petal width (cm)")
    model = quick_model(kept, y)
    joblib.dump(model, tmp_path / "m.joblib")
    argv = ["predict", "--model", str(tmp_path / "m.joblib"), "--dataset", "sklearn:iris"]
    code, out, err = _run([*argv, "--drop", "petal width (cm)"], capsys)
    assert code == 0 and err == "", err
    assert [int(v) for v in out.split()[1:]] == list(model.predict(kept))
    code, again, err = _run(argv, capsys)
    assert code == 0 and again == out
    assert err == "warning: ignoring column(s) 'petal width (cm)' the model was not fitted with\n"
    code, _, err = _run([*argv, "--drop", "petal"], capsys)
    assert code == 2 and "--drop: column 'petal' not found in sklearn:iris; columns: " in err


def test_two_runs_in_one_second_get_two_studies(
    tmp_path: Any, capsys: Any, monkeypatch: Any
) -> None:
    # Without --study-name the name is made from the data's name and the time to the second;
    # a second run in the same second (other --drop, other data) must not try to join the
    # first one's study. The name is fixed here so both runs make the same one.
    from optuna_psms.cli import _study

    monkeypatch.setattr(_study, "new_study_name", lambda label: f"fms-{label}-20261126-062024")
    _write_csv(tmp_path / "data.csv")
    db = f"sqlite:///{tmp_path}/same.db"
    argv = _select_argv(tmp_path, "--n-trials", "1", "--storage", db)
    argv = [a for a in argv if a not in ("--seed", "3")]  # the seed comes from the name
    code, out, err = _run([*argv, "--output", str(tmp_path / "a.joblib")], capsys)
    assert code == 0, err
    code, out, err = _run(
        [*argv, "--drop", "colour", "--output", str(tmp_path / "b.joblib")], capsys
    )
    assert code == 0, err
    names = sorted(optuna.get_all_study_names(db))
    assert names == ["fms-data-20261126-062024", "fms-data-20261126-062024-2"]
    assert "study 'fms-data-20261126-062024-2'" in out
    assert f"seed {_study.name_seed(names[1])};" in out
