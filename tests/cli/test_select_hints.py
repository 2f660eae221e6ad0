"""optuna-psms select: one-line hints where the command's choice may surprise a new user."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from optuna_psms.cli import main
from optuna_psms.fms._select_steps import auto_task_warning


def _run(argv: list[str], capsys: Any) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _targets(n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    x = rng.normal(size=n)
    return pd.DataFrame(
        {
            "id": rng.permutation(np.arange(1, n + 1)),
            "x": x,
            "z": rng.normal(size=n),
            "sex": np.where(rng.random(n) < 0.5, -0.0446, 0.0507),  # sklearn's diabetes
            "score": 2 * x + rng.normal(scale=0.1, size=n),
            "grade": rng.choice([0.5, 1.0, 1.5, 2.0], size=n),
        }
    )


@pytest.mark.parametrize(
    ("target", "task", "expected"),
    [
        (
            "sex",
            "auto",
            "warning: target 'sex' has 2 distinct numeric values, not all whole numbers; "
            "running a regression: pass --task classification to classify",
        ),
        ("grade", "auto", "warning: target 'grade' has 4 distinct numeric values"),
        (
            "id",
            "auto",
            "warning: target 'id' looks like a row identifier (the integers 1..60, one per "
            "row); a regression will predict it, which means nothing: check --target",
        ),
        ("score", "auto", None),  # a measurement: a regression, nothing to say
        ("sex", "regression", None),  # asked for
    ],
)
def test_auto_task_warns_when_a_regression_looks_wrong(
    target: str, task: str, expected: str | None
) -> None:
    # `--target sex` on the diabetes data (2 values, +-0.05) and `--target id` on wine ran
    # as regressions and nothing said so (usertrial3, 26 Nov 2026).
    y = _targets()[target]
    warning = auto_task_warning(task, y, "regression", target)
    if expected is None:
        assert warning is None
    else:
        assert warning is not None and warning.startswith(expected)
    assert auto_task_warning(task, y, "classification", target) is None


def test_select_prints_the_task_warning_before_the_search(tmp_path: Any, capsys: Any) -> None:
    _targets().drop(columns=["id", "score", "grade"]).to_csv(tmp_path / "d.csv", index=False)
    argv = ["select", "--csv", str(tmp_path / "d.csv"), "--target", "sex", "--seed", "0"]
    argv += ["--n-trials", "1", "--sampler", "random", "--classifiers", "linear"]
    argv += ["--storage", f"sqlite:///{tmp_path}/s.db", "--output", str(tmp_path / "m.joblib")]
    code, out, err = _run([*argv, "--no-progress-bar"], capsys)
    assert code == 0, err
    assert err.splitlines()[0].startswith("warning: target 'sex' has 2 distinct numeric values")
    assert out.startswith("Full model selection (regression)")


def _study(values: list[float]) -> Any:
    import optuna
    from optuna.distributions import FloatDistribution

    study = optuna.create_study()
    for i, value in enumerate(values):
        study.add_trial(
            optuna.trial.create_trial(
                params={"x": float(i % 5)},  # trials 5.. repeat the pipelines of 0..
                distributions={"x": FloatDistribution(0, 10)},
                value=value,
            )
        )
    return study


def test_whole_study_vote_is_said_only_when_the_vote_takes_every_pipeline() -> None:
    # 10 trials and --ensemble-top 10: "the vote of the 10 best" was every trial, the bad
    # ones too, and nothing said so (usertrial3, 26 Nov 2026).
    from optuna_psms.fms._select_steps import whole_study_vote

    warning = whole_study_vote(_study([0.1, 0.2, 0.5, 0.3, 0.4]), 5, 10)
    assert warning == (
        "warning: the vote holds all 5 distinct complete pipelines of the study, the worst "
        "included (--ensemble-top 10): run more trials than that, or pass --ensemble-top 1 "
        "to keep the chosen pipeline alone"
    )
    # 10 trials, 5 distinct pipelines: still all of them.
    assert whole_study_vote(_study([0.1 * i for i in range(10)]), 5, 10) is not None
    assert whole_study_vote(_study([0.1, 0.2, 0.5, 0.3, 0.4]), 3, 3) is None  # 2 left out
    assert whole_study_vote(_study([0.1, 0.2]), 1, 1) is None  # no vote


@pytest.mark.slow  # > 2 s: the default suite stays under 5 min (2026-11-28)
def test_select_warns_below_the_save_when_every_trial_votes(tmp_path: Any, capsys: Any) -> None:
    argv = ["select", "--dataset", "sklearn:iris", "--seed", "0", "--sampler", "random"]
    argv += ["--storage", f"sqlite:///{tmp_path}/s.db", "--no-progress-bar"]
    argv += ["--classifiers", "naive_bayes,logistic", "--selectors", "none,ftest"]
    argv += ["--final-check", "none"]  # the vote is saved (the check may choose the SVC)
    code, out, err = _run([*argv, "--n-trials", "3", "--output", f"{tmp_path}/a"], capsys)
    assert code == 0, err
    assert "warning: the vote holds all 3 distinct complete pipelines" in err
    code, out, err = _run(
        [*argv, "--n-trials", "3", "--ensemble-top", "2", "--output", f"{tmp_path}/b"], capsys
    )
    assert code == 0 and "warning: the vote" not in err, err


def test_predict_with_a_csv_as_the_model_says_so_in_one_line(tmp_path: Any, capsys: Any) -> None:
    # `predict --model data.csv` quoted joblib's "invalid literal for int() with base 10:
    # b'atient_id,mean radius,mea", a bytes repr cut off with its quote open (usertrial3).
    data = tmp_path / "bc_new.csv"
    _targets().to_csv(data, index=False)
    (tmp_path / "latin.csv").write_bytes("name,city\nJos\xe9,M\xfcnchen\n".encode("latin-1"))
    (tmp_path / "noise.bin").write_bytes(np.random.default_rng(0).bytes(300).replace(b"\0", b"1"))
    text = "(it is a text file, such as a CSV; --model takes the .joblib file select saved)"
    for model in (data, tmp_path / "latin.csv", tmp_path / "noise.bin"):
        code, out, err = _run(["predict", "--model", str(model), "--csv", str(data)], capsys)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        head = f"optuna-psms: error: {model} is not a model saved by optuna-psms select "
        if model.suffix == ".csv":
            assert err == f"{head}{text}\n"
        else:  # no claim that it is text, and no bytes repr either
            assert err.startswith(f"{head}(joblib cannot read it: "), err
            assert "b'" not in err and "\\x" not in err, err


def _linnerud_like(tmp_path: Any) -> str:
    """scikit-learn's linnerud: 20 rows, Weight a whole number of pounds, 16 distinct."""
    weights = [191, 189, 193, 162, 189, 182, 211, 167, 176, 154]
    weights += [169, 166, 154, 247, 193, 202, 176, 157, 156, 138]
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {"Chins": rng.integers(1, 18, 20), "Weight": np.asarray(weights, dtype=np.float64)}
    )
    path = tmp_path / "linnerud.csv"
    frame.to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize("test_size", ["0.25", "0"])
def test_classes_of_whole_numbers_hint_at_regression(
    tmp_path: Any, capsys: Any, test_size: str
) -> None:
    # A new user's trial (usertrial7, 26 Nov 2026): "class 191.0 has only 1 row" and nothing
    # said that --task auto had made classes of a weight.
    argv = ["select", "--csv", _linnerud_like(tmp_path), "--target", "Weight"]
    argv += ["--test-size", test_size, "--storage", f"sqlite:///{tmp_path}/s.db"]
    code, out, err = _run(argv, capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "has only 1 " in err
    assert err.rstrip().endswith(
        "; --task auto took the target's 16 distinct whole numbers for class labels: if it "
        "is a measurement, pass --task regression"
    )
    assert not (tmp_path / "s.db").exists()


def test_no_regression_hint_for_a_few_codes_or_an_explicit_task(
    tmp_path: Any, capsys: Any
) -> None:
    path = tmp_path / "codes.csv"
    pd.DataFrame({"x": np.arange(12.0), "y": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 5]}).to_csv(
        path, index=False
    )
    argv = ["select", "--csv", str(path), "--target", "y"]
    argv += ["--storage", f"sqlite:///{tmp_path}/s.db"]
    code, _, err = _run(argv, capsys)
    assert code == 2 and "class 5 has only 1 row" in err and "--task" not in err
    argv = ["select", "--csv", _linnerud_like(tmp_path), "--target", "Weight"]
    argv += ["--task", "classification", "--storage", f"sqlite:///{tmp_path}/s.db"]
    code, _, err = _run(argv, capsys)
    assert code == 2 and "has only 1 row" in err and "pass --task regression" not in err


@pytest.mark.parametrize(
    ("name", "said"),
    [
        # A new user's trial (usertrial7, 26 Nov 2026): the name as `datasets` lists it,
        # less its source.
        ("contraceptive", "unknown dataset 'contraceptive'; did you mean 'keel:contraceptive'? "),
        ("Iris", "unknown dataset 'Iris'; did you mean 'sklearn:iris'? "),
        ("keel:contraceptve", "unknown KEEL dataset 'contraceptve'; did you mean "),
        ("sklearn:breastcancer", "did you mean 'sklearn:breast_cancer'? "),
        ("sklearn:nope", "unknown dataset 'sklearn:nope'; use sklearn:<"),
        ("keel:nope", "unknown KEEL dataset 'nope'; run 'optuna-psms datasets'"),
    ],
)
def test_unknown_dataset_suggests_the_name(capsys: Any, name: str, said: str) -> None:
    code, out, err = _run(["select", "--dataset", name], capsys)
    assert code == 2 and out == ""
    assert said in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("25", "--test-size must be in [0, 1); got 25 (a fraction of the rows: 0.25 for 25 %)"),
        ("1", "--test-size must be in [0, 1); got 1"),
        ("-0.1", "--test-size must be in [0, 1); got -0.1"),
    ],
)
def test_a_test_size_in_percent_is_said_to_be_a_fraction(
    capsys: Any, value: str, said: str
) -> None:
    # --test-size 25 meant 25 % (usertrial7, 26 Nov 2026).
    code, out, err = _run(["select", "--dataset", "sklearn:iris", "--test-size", value], capsys)
    assert code == 2 and out == "" and err == f"optuna-psms: error: {said}\n"


_SAMPLERS = "pso, pso_ring, pattern, dfgs, afgs, umda, bumda, drs, drs_nobatch, random, tpe, cmaes"
_CLASSIFIERS = (
    "mean_variance, naive_bayes, logistic, kridge, gradient_boosting, mlp, svc, random_forest, "
    "xgboost, hist_gradient_boosting"
)
_METRIC_LIST = (
    "use one of ber, error, auc, pi_svm or a scikit-learn scorer name "
    "(sklearn.metrics.get_scorer_names())"
)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        # `--sampler psoo` and `--classifiers svm` listed the names without the close one
        # (a user's trial, 26 Nov 2026), where --dataset and --target suggested it.
        (
            ["--sampler", "psoo"],
            f"unknown sampler 'psoo'; did you mean 'pso'? choose one of {_SAMPLERS}",
        ),
        (
            ["--classifiers", "svc,svm"],
            "--classifiers: unknown classifier 'svm'; did you mean 'svc'? built-in ones: "
            f"{_CLASSIFIERS}",
        ),
        (
            ["--classifiers", "zzz"],  # nothing close: the message as before
            f"--classifiers: unknown classifier 'zzz'; built-in ones: {_CLASSIFIERS}",
        ),
        (
            ["--selectors", "ftests"],
            "--selectors: unknown selector 'ftests'; did you mean 'ftest'? built-in ones: "
            "ftest, mutual_info, auc, s2n, pearson, rf, svcrfe, pca, mask",
        ),
        (
            ["--metric", "acuracy"],  # a scikit-learn scorer's name is a name too
            f"unknown metric 'acuracy'; did you mean 'accuracy'? {_METRIC_LIST} "
            "(--task auto chose classification for this target)",
        ),
        (
            ["--metric", "bre"],
            f"unknown metric 'bre'; did you mean 'ber'? {_METRIC_LIST} "
            "(--task auto chose classification for this target)",
        ),
    ],
)
def test_select_suggests_the_close_name_of_an_option(
    tmp_path: Any, monkeypatch: Any, capsys: Any, args: list[str], said: str
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["select", "--dataset", "sklearn:iris", "--final-check", "none", *args]
    code, out, err = _run(argv, capsys)
    assert code == 2 and out == "" and err == f"optuna-psms: error: {said}\n"


def test_select_regressors_suggest_the_close_name(
    tmp_path: Any, monkeypatch: Any, capsys: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(
        ["select", "--dataset", "sklearn:diabetes", "--regressors", "svm"], capsys
    )
    assert code == 2 and out == ""
    assert err.startswith(
        "optuna-psms: error: --regressors: unknown regressor 'svm'; did you mean 'svr'? "
        "built-in ones: linear, "
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["--samplers", "pso,psoo", "--function", "sphere"],
            f"unknown sampler 'psoo'; did you mean 'pso'? choose from {_SAMPLERS}",
        ),
        (
            ["--samplers", "pso", "--baseline", "tpee", "--function", "sphere"],
            f"unknown sampler 'tpee'; did you mean 'tpe'? choose from {_SAMPLERS}",
        ),
        (
            ["--samplers", "pso", "--function", "spheer"],
            "unknown function 'spheer'; did you mean 'sphere'? choose one of sphere, ackley, "
            "griewank, rastrigin, rosenbrock, schwefel, styblinski_tang, step, alpine, or "
            "bbob:f1 ... bbob:f24",
        ),
        (
            ["--samplers", "pso", "--dataset", "sklearn:iris", "--metric", "acuracy"],
            f"unknown metric 'acuracy'; did you mean 'accuracy'? {_METRIC_LIST}.",
        ),
    ],
)
def test_compare_suggests_the_close_name_of_an_option(
    tmp_path: Any, monkeypatch: Any, capsys: Any, args: list[str], said: str
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["compare", *args, "--n-trials", "1", "--seeds", "1", "--n-workers", "1"]
    code, out, err = _run(argv, capsys)
    assert code == 2 and out == "" and err == f"optuna-psms: error: {said}\n"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["select", "--dataset", "sklearn:iris", "--task", "clasification"],
            "optuna-psms select: error: argument --task: invalid choice: 'clasification' "
            "(choose from 'auto', 'classification', 'regression'); did you mean "
            "'classification'? (see 'optuna-psms select --help')",
        ),
        (
            ["select", "--dataset", "sklearn:iris", "--initial-pipelines", "default"],
            "did you mean 'defaults'? (see 'optuna-psms select --help')",
        ),
        (
            ["compare", "--samplers", "pso", "--function", "sphere", "--direction", "minimise"],
            "did you mean 'minimize'? (see 'optuna-psms compare --help')",
        ),
        (["selct"], "did you mean 'select'? (see 'optuna-psms --help')"),
    ],
)
def test_argparse_choices_suggest_the_close_one(capsys: Any, argv: list[str], said: str) -> None:
    # argparse's "invalid choice" (--task, --final-check, --initial-pipelines, --direction,
    # the command) lists the choices; the close one is said after the list, as for the names
    # checked after parsing. The choices are quoted up to Python 3.11, not from 3.12.8.
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    assert exc.value.code == 2 and out == "" and len(err.splitlines()) == 1
    assert err.rstrip("\n").endswith(said)
    if said.startswith("optuna-psms"):  # the whole line: argparse's message, then the hint
        assert _unquoted(err) == _unquoted(said) + "\n"


def _unquoted(line: str) -> str:
    return line.replace(
        "'auto', 'classification', 'regression'", "auto, classification, regression"
    )


def test_argparse_choice_without_a_close_one_is_unchanged(capsys: Any) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["select", "--dataset", "sklearn:iris", "--final-check", "zzzz"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "did you mean" not in err
    assert err.startswith("optuna-psms select: error: argument --final-check: invalid choice: ")
