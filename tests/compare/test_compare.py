"""Tests of ``optuna-psms compare`` and the comparison figures."""

from __future__ import annotations

from collections import Counter
import html
import os
import signal
import subprocess
import sys
import textwrap
import time
from typing import Any
from typing import Literal

import optuna
from optuna.trial import TrialState
import pytest


pytest.importorskip("plotly")

from optuna_psms.cli import main
from optuna_psms.compare import compare_samplers
from optuna_psms.compare import ComparisonError
from optuna_psms.compare._stats import summarize
from optuna_psms.visualization import plot_best_so_far
from optuna_psms.visualization import plot_final_values
import tests
from tests._sqlite_watch import trial_states


REPO = str(tests.REPO)


def _run(argv: list[str], capsys: Any) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _states(url: str) -> dict[str, Counter[str]]:
    return {
        name: Counter(t.state.name for t in optuna.load_study(study_name=name, storage=url).trials)
        for name in optuna.get_all_study_names(url)
    }


def _compare(url: str, *extra: str) -> list[str]:
    return [
        "compare",
        "--function",
        "rastrigin",
        "--dim",
        "2",
        "--samplers",
        "random,pso",
        "--storage",
        url,
        "--n-workers",
        "1",
        "--no-progress-bar",
        *extra,
    ]


# ---- figures ------------------------------------------------------------------------


def _study(
    values: list[float],
    direction: Literal["minimize", "maximize"] = "minimize",
    label: str | None = None,
) -> Any:
    study = optuna.create_study(direction=direction)
    dist = optuna.distributions.FloatDistribution(0, 1)
    for v in values:
        study.add_trial(
            optuna.trial.create_trial(params={"x": 0.5}, distributions={"x": dist}, value=v)
        )
    if label is not None:
        study.set_user_attr("compare:sampler", label)
    return study


def test_best_so_far_median_and_band() -> None:
    runs = {"a": [_study([3, 1, 2]), _study([5, 4, 0])], "b": [_study([1, 1, 1, 1])]}
    fig = plot_best_so_far(runs)
    medians = [t for t in fig.data if t.name and t.name.startswith("a ")]
    assert len(medians) == 1
    # best so far: [3, 1, 1] and [5, 4, 0]; medians per trial count
    assert list(medians[0].y) == [4.0, 2.5, 0.5]
    q25 = fig.data[1].y  # band's lower edge of label "a"
    assert list(q25) == [3.5, 1.75, 0.25]
    (median_b,) = [t for t in fig.data if t.name and t.name.startswith("b ")]
    assert list(median_b.x) == [1, 2, 3, 4]


def test_best_so_far_maximize_and_grouping_by_attr() -> None:
    studies = [_study([1, 3, 2], "maximize", "s"), _study([2, 0, 5], "maximize", "s")]
    fig = plot_best_so_far(studies, show_runs=True)
    (median,) = [t for t in fig.data if t.name == "s (n=2)"]
    assert list(median.y) == [1.5, 2.5, 4.0]  # running maxima [1,3,3] and [2,2,5]


def test_final_values_one_box_per_label() -> None:
    fig = plot_final_values({"a": [_study([3, 1]), _study([2])], "b": [_study([7])]})
    assert [t.name for t in fig.data] == ["a", "a", "b", "b"]  # a box, then its points
    assert sorted(fig.data[1].y) == [1.0, 2.0]


def test_final_values_boxes_are_the_tables_quartiles() -> None:
    # With few seeds plotly's own box statistics differ from the table's IQR (a new user saw
    # a box over the whole range of two seeds beside a narrower IQR): the box is precomputed.
    from optuna_psms.compare._stats import summarize

    finals = {"a": {0: 1.0, 1: 2.0, 2: 4.0, 3: 10.0}}
    studies = {
        "a": [_study([v]) for v in finals["a"].values()],
    }
    fig = plot_final_values(studies)
    box = fig.data[0]
    (row,) = summarize(finals, baseline=None)
    assert (box.q1[0], box.median[0], box.q3[0]) == (row.q25, row.median, row.q75)
    assert (box.lowerfence[0], box.upperfence[0]) == (1.0, 10.0)
    assert (box.q1[0], box.q3[0]) == (1.75, 5.5)  # numpy's linear rule; plotly's gives 1.5, 7


def test_figures_reject_bad_inputs() -> None:
    with pytest.raises(ValueError, match="no study"):
        plot_best_so_far([])
    with pytest.raises(ValueError, match="mix minimize and maximize"):
        plot_final_values([_study([1]), _study([1], "maximize")])
    multi = optuna.create_study(directions=["minimize", "minimize"])
    with pytest.raises(ValueError, match="multi-objective"):
        plot_best_so_far([multi])


# ---- table --------------------------------------------------------------------------


def test_summarize_wins_and_wilcoxon() -> None:
    from scipy.stats import wilcoxon

    base = {k: float(k) for k in range(8)}
    better = {k: float(k) - 1 - 0.1 * k for k in range(8)}
    rows = summarize({"x": better, "tpe": base}, baseline="tpe")
    assert (rows[0].wins, rows[0].ties, rows[0].losses) == (8, 0, 0)
    expected = wilcoxon(list(better.values()), list(base.values())).pvalue
    assert rows[0].p_value == pytest.approx(expected)
    assert rows[0].p_value is not None and rows[0].p_value < 0.05
    assert rows[1].note == "baseline" and rows[1].wins is None
    flipped = summarize({"x": better, "tpe": base}, baseline="tpe", maximize=True)
    assert (flipped[0].wins, flipped[0].losses) == (0, 8)


def test_summarize_says_when_too_few_seeds() -> None:
    rows = summarize({"x": {0: 1.0, 1: 2.0, 2: 5.0}, "tpe": {0: 1.0, 1: 3.0, 2: 4.0}})
    assert rows[0].p_value is None
    assert rows[0].note == "too few seeds differ (2; the test needs 6)"
    assert (rows[0].wins, rows[0].ties, rows[0].losses) == (1, 1, 1)


# ---- the command --------------------------------------------------------------------


@pytest.mark.slow  # > 2 s: the default suite stays under 5 min (2026-11-28)
def test_compare_function_studies_table_and_report(tmp_path: Any, capsys: Any) -> None:
    url = f"sqlite:///{tmp_path / 'c.db'}"
    report = tmp_path / "r.html"
    code, out, err = _run(
        _compare(url, "--seeds", "2", "--n-trials", "6", "--report", str(report)), capsys
    )
    assert code == 0, err
    names = sorted(optuna.get_all_study_names(url))
    assert names == [f"rastrigin-d2/{s}/seed{k}" for s in ("pso", "random", "tpe") for k in (0, 1)]
    for name, states in _states(url).items():
        assert states == Counter({"COMPLETE": 6}), name
    study = optuna.load_study(study_name="rastrigin-d2/pso/seed1", storage=url)
    assert study.user_attrs["compare:sampler"] == "pso"
    assert study.user_attrs["compare:seed"] == 1
    assert study.user_attrs["compare:objective"].startswith("rastrigin function, 2 dimensions")
    for sampler in ("pso", "random", "tpe"):
        assert any(line.startswith(sampler + " ") for line in out.splitlines()), out
    assert "vs tpe W/T/L" in out and "too few" in out
    # TPE runs as the baseline although --samplers did not name it: the first line says so.
    assert out.startswith("Comparing random,pso and the baseline tpe on rastrigin function")
    text = report.read_text()
    assert "Plotly.newPlot" in text and "plotly.js" in text.lower()  # plotly.js embedded
    assert "<script src=" not in text  # nothing to fetch: opens offline
    assert "Best value so far" in text and '<td class="num">pso</td>' in text
    assert "no rows held out" not in text  # said of full model selection only


@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_the_default_report_says_when_it_replaces_one(
    tmp_path: Any, capsys: Any, monkeypatch: Any
) -> None:
    # Its default name is the data's: a comparison of other samplers, or in another storage,
    # on the same data replaced the earlier report silently (usertrial8).
    monkeypatch.chdir(tmp_path)
    said = "(replacing the report that was there; --report FILE writes elsewhere)"
    first = _compare("sqlite:///a.db", "--seeds", "1", "--n-trials", "2")
    code, out, err = _run(first, capsys)
    assert code == 0, err
    line = next(s for s in out.splitlines() if s.startswith("Report: "))
    assert said not in line and (tmp_path / line.split()[1]).exists()
    code, out, err = _run(_compare("sqlite:///b.db", "--seeds", "1", "--n-trials", "2"), capsys)
    assert code == 0, err
    assert f"{line} {said}" in out
    # A --report FILE given on purpose is not announced as a replacement.
    argv = _compare("sqlite:///c.db", "--seeds", "1", "--n-trials", "2", "--report", "x.html")
    assert _run(argv, capsys)[0] == 0
    code, out, err = _run([*argv, "--resume"], capsys)
    assert code == 0 and "Report: x.html" in out and said not in out


def test_report_says_full_model_selection_values_are_cv_on_all_rows(tmp_path: Any) -> None:
    # The terminal's table title says so; the HTML report, read later by others, too.
    from optuna_psms.compare import FMS_VALUE_NOTE
    from optuna_psms.compare import ObjectiveSpec

    spec = ObjectiveSpec("dataset", "sklearn:iris")
    result = compare_samplers(spec, "random", n_seeds=1, n_trials=2, baseline=None)
    assert result.value_note == FMS_VALUE_NOTE
    report = tmp_path / "r.html"
    result.write_report(str(report))
    assert "no rows held out" in FMS_VALUE_NOTE
    assert html.escape(FMS_VALUE_NOTE) in report.read_text()


@pytest.mark.slow  # > 2 s: the default suite stays under 5 min (2026-11-28)
def test_resume_runs_only_what_is_missing(tmp_path: Any, capsys: Any) -> None:
    url = f"sqlite:///{tmp_path / 'c.db'}"
    code, out, err = _run(
        _compare(url, "--seeds", "1", "--n-trials", "4", "--report", "none"), capsys
    )
    assert code == 0, err
    assert ": 1 seed x 4 trials, storage" in out  # not "1 seeds"
    before = {
        n: [t.params for t in optuna.load_study(study_name=n, storage=url).trials]
        for n in optuna.get_all_study_names(url)
    }
    # Same command without --resume: refused, nothing run.
    code, _, err = _run(
        _compare(url, "--seeds", "1", "--n-trials", "4", "--report", "none"), capsys
    )
    assert code == 2 and "--resume" in err and len(err.strip().splitlines()) == 1
    # A failed trial in one study is not counted: topped up to n COMPLETE trials.
    hurt = optuna.load_study(study_name="rastrigin-d2/pso/seed0", storage=url)
    hurt.tell(hurt.ask(), state=TrialState.FAIL)
    code, out, err = _run(
        _compare(url, "--seeds", "2", "--n-trials", "6", "--report", "none", "--resume"), capsys
    )
    assert code == 0, err
    assert "Running 24 trials in 6 studies" in out  # 3 x 2 top-ups of 2, 3 new studies of 6
    states = _states(url)
    assert len(states) == 6
    for name, counts in states.items():
        assert counts["COMPLETE"] == 6, name
        assert counts["RUNNING"] == 0
    assert states["rastrigin-d2/pso/seed0"]["FAIL"] == 1
    for name, params in before.items():  # the first runs are kept as they were
        trials = optuna.load_study(study_name=name, storage=url).trials
        assert [t.params for t in trials[:4]] == params
    # Everything complete: nothing runs, the table is printed again.
    code, out, err = _run(
        _compare(url, "--seeds", "2", "--n-trials", "6", "--report", "none", "--resume"), capsys
    )
    assert code == 0 and "nothing to run" in out and "random" in out
    assert sum(sum(c.values()) for c in _states(url).values()) == 6 * 6 + 1


def test_objective_module_function(tmp_path: Any, capsys: Any, monkeypatch: Any) -> None:
    (tmp_path / "my_objective_mod.py").write_text(
        textwrap.dedent(
            """
            def score(trial):
                x = trial.suggest_float("x", -1.0, 1.0)
                return 1.0 - x * x
            """
        )
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "my_objective_mod", raising=False)
    url = f"sqlite:///{tmp_path / 'o.db'}"
    code, out, err = _run(
        [
            "compare",
            "--objective",
            "my_objective_mod:score",
            "--direction",
            "maximize",
            "--samplers",
            "random",
            "--baseline",
            "none",
            "--seeds",
            "2",
            "--n-trials",
            "5",
            "--storage",
            url,
            "--report",
            "none",
            "--n-workers",
            "1",
            "--no-progress-bar",
        ],
        capsys,
    )
    assert code == 0, err
    assert "higher is better" in out  # select's word for it ("larger" until 26 Nov 2026)
    study = optuna.load_study(study_name="my_objective_mod_score/random/seed0", storage=url)
    assert study.direction == optuna.study.StudyDirection.MAXIMIZE
    assert all(t.value == pytest.approx(1.0 - t.params["x"] ** 2) for t in study.trials)
    assert study.user_attrs["compare:objective"] == "objective my_objective_mod:score"


@pytest.mark.slow  # > 2 s: a compare run (5 s on 28 Nov 2026)
def test_the_regression_recipe_of_the_docs_runs(
    tmp_path: Any, capsys: Any, monkeypatch: Any
) -> None:
    # docs/compare.md's way to compare samplers on a regression CSV file, which --csv refuses
    # (a new user's trial, 28 Nov 2026): its module, as written, on a small houses.csv.

    import numpy as np
    import pandas as pd

    doc = (tests.REPO / "docs" / "compare.md").read_text()
    section = doc.split("**Classification only, for `--dataset` and `--csv`.**", 1)[1]
    module = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert "RegressionSpace()" in module
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"sqm": rng.uniform(30, 200, 40), "city": ["a", "b"] * 20})
    frame["price"] = 2000 * frame["sqm"] + rng.normal(0, 100, 40)
    frame.to_csv(tmp_path / "houses.csv", index=False)
    (tmp_path / "housesobj.py").write_text(module)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "housesobj", raising=False)
    url = f"sqlite:///{tmp_path / 'o.db'}"
    argv = ["compare", "--objective", "housesobj:objective", "--samplers", "random"]
    argv += ["--name", "houses", "--baseline", "none", "--seeds", "1", "--n-trials", "2"]
    argv += ["--storage", url, "--report", "none", "--n-workers", "1", "--no-progress-bar"]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    study = optuna.load_study(study_name="houses/random/seed0", storage=url)
    values = [t.value for t in study.trials if t.state == TrialState.COMPLETE]
    assert len(values) == 2 and all(v is not None and v > 0 for v in values)  # CV RMSEs


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--function", "nope", "--samplers", "pso"], "unknown function 'nope'"),
        (["--function", "sphere", "--samplers", "pso,bogus"], "unknown sampler 'bogus'"),
        (["--function", "sphere", "--samplers", "pso", "--baseline", "x"], "unknown sampler 'x'"),
        (["--function", "sphere", "--samplers", "pso", "--seeds", "0"], "seeds must be"),
        (["--function", "sphere", "--samplers", "pso", "--dim", "0"], "--dim must be"),
        (["--function", "sphere", "--samplers", "pso", "--target", "y"], "--target is only"),
        (["--csv", "missing.csv", "--samplers", "pso"], "--csv needs --target"),
        (["--csv", "missing.csv", "--target", "y", "--samplers", "pso"], "CSV file not found"),
        (["--dataset", "sklearn:nope", "--samplers", "pso"], "unknown dataset"),
        (["--objective", "no_colon", "--samplers", "pso"], "MODULE:FUNCTION"),
        (["--objective", "no_such_mod_xyz:f", "--samplers", "pso"], "cannot import module"),
        (["--objective", "os.path:nope", "--samplers", "pso"], "has no attribute 'nope'"),
        (
            ["--function", "sphere", "--samplers", "pso", "--direction", "maximize"],
            "--direction is only used with --objective",
        ),
        (
            ["--function", "sphere", "--samplers", "pso", "--initial-pipelines", "none"],
            "--initial-pipelines is only used with --csv or --dataset",
        ),
        (
            ["--objective", "m:f", "--samplers", "pso", "--initial-pipelines", "defaults"],
            "--initial-pipelines is only used with --csv or --dataset",
        ),
        # Options of another kind of objective were ignored without a word (26 Nov 2026).
        (
            ["--function", "sphere", "--samplers", "pso", "--metric", "accuracy"],
            "--metric is only used with --csv or --dataset",
        ),
        (
            ["--function", "sphere", "--samplers", "pso", "--cv", "5"],
            "--cv is only used with --csv or --dataset",
        ),
        (
            ["--objective", "m:f", "--samplers", "pso", "--subsample", "0.5"],
            "--subsample is only used with --csv or --dataset",
        ),
        (
            ["--dataset", "sklearn:iris", "--samplers", "pso", "--dim", "3"],
            "--dim is only used with --function",
        ),
        (
            ["--csv", "x.csv", "--target", "y", "--samplers", "pso", "--no-shift"],
            "--no-shift is only used with --function",
        ),
        (
            ["--function", "sphere", "--samplers", "pso", "--report", "no/such/dir/r.html"],
            "--report no/such/dir/r.html: directory ",
        ),
        (
            ["--function", "sphere", "--samplers", "pso", "--report", "."],
            "--report .: is a directory",
        ),
    ],
)
def test_bad_input_is_one_line(
    argv: list[str], message: str, tmp_path: Any, capsys: Any, monkeypatch: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    url = f"sqlite:///{tmp_path / 'bad.db'}"
    code, _, err = _run(["compare", *argv, "--storage", url, "--no-progress-bar"], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("optuna-psms: error: "), err
    assert message in lines[0]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--n-trials", "0"], "--n-trials must be at least 1"),
        (["--seeds", "0"], "--seeds must be at least 1"),
        (["--samplers", "pso,psox"], "unknown sampler 'psox'"),
        (["--baseline", "tpee"], "unknown sampler 'tpee'"),
    ],
)
def test_bad_settings_are_refused_before_the_first_line(
    extra: list[str], message: str, tmp_path: Any, capsys: Any
) -> None:
    # The first line announces the run ("Comparing ... 1 seed x 0 trials"): a refused one
    # prints nothing but the error, which names the option.
    url = f"sqlite:///{tmp_path / 'bad.db'}"
    argv = ["compare", "--dataset", "sklearn:iris", "--samplers", "pso", "--storage", url]
    code, out, err = _run([*argv, *extra, "--no-progress-bar"], capsys)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"optuna-psms: error: {message}"), err


def test_failing_objective_is_one_line(tmp_path: Any, capfd: Any, monkeypatch: Any) -> None:
    (tmp_path / "bad_objective_mod.py").write_text(
        "def boom(trial):\n    trial.suggest_float('x', 0, 1)\n    raise RuntimeError('broken')\n"
        "def nan(trial):\n    return float('nan')\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "bad_objective_mod", raising=False)
    url = f"sqlite:///{tmp_path / 'b.db'}"
    for target, message in [
        ("boom", "the objective raised RuntimeError: broken"),
        ("nan", "no trial completed in 12 tries in a row"),  # rounds of 3, up to 10
    ]:
        argv = ["compare", "--objective", f"bad_objective_mod:{target}", "--samplers", "random"]
        argv += ["--baseline", "none", "--seeds", "1", "--n-trials", "3", "--storage", url]
        code, _, err = _run([*argv, "--report", "none", "--no-progress-bar"], capfd)
        assert code == 2
        lines = err.strip().splitlines()  # file-descriptor level: Optuna's log included
        assert len(lines) == 1 and message in lines[0], err


def test_parallel_workers_in_memory_refused() -> None:
    with pytest.raises(ComparisonError, match="storage URL"):
        compare_samplers("sphere", ["random", "pso"], dim=2, n_seeds=1, n_trials=2, n_workers=2)


@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_parallel_workers(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'p.db'}"
    seen: list[int] = []
    result = compare_samplers(
        "sphere",
        "pso,random",
        dim=2,
        n_seeds=2,
        n_trials=5,
        storage=url,
        baseline="random",
        n_workers=2,
        progress=seen.append,
    )
    assert sum(seen) == 4 * 5
    assert {s: len(m) for s, m in result.studies.items()} == {"pso": 2, "random": 2}
    assert all(c == Counter({"COMPLETE": 5}) for c in _states(url).values())
    assert "random" in result.format_table()
    # Each study runs sequentially in one worker: the same trials as the sampler alone.
    alone = compare_samplers(
        "sphere", "pso,random", dim=2, n_seeds=2, n_trials=5, baseline="random"
    )
    values = {s: [[t.value for t in st.trials] for st in m] for s, m in result.studies.items()}
    assert values == {
        s: [[t.value for t in st.trials] for st in m] for s, m in alone.studies.items()
    }


@pytest.mark.slow  # two spawned workers plus a resume: ~15 s on an idle machine
def test_ctrl_c_is_one_line_and_resumable(tmp_path: Any, monkeypatch: Any) -> None:
    # From trial 3 on, the objective waits: when Ctrl-C comes, every running study is inside
    # its trial 3 and none can be complete, whatever the scheduling. Each worker marks that it
    # is inside the wait (past the sampler and the trial's creation): Ctrl-C is sent only once
    # both are, so it cannot land between two trials of one. In a worker the wait ends when
    # the main process has set the workers' stop event (its Ctrl-C handler; the module's
    # private `_stop`), not after a pause: a pause too short for a loaded machine let a
    # worker end trial 3 and begin trial 4 before the stop. The resume, in this process,
    # passes the wait by the file `go`, written once the interrupted run has exited.
    go = tmp_path / "go"
    (tmp_path / "gated_objective_mod.py").write_text(
        textwrap.dedent(
            f"""
            import os, time
            from optuna_psms.compare import _run

            def stopping():
                return _run._stop is not None and _run._stop.is_set()

            def f(trial):
                x = trial.suggest_float("x", -1.0, 1.0)
                if trial.number >= 3:
                    open(os.path.join({str(tmp_path)!r}, f"waiting-{{os.getpid()}}"), "w").close()
                while trial.number >= 3 and not stopping() and not os.path.exists({str(go)!r}):
                    time.sleep(0.05)
                return x * x
            """
        )
    )
    url = f"sqlite:///{tmp_path / 'i.db'}"
    argv = [sys.executable, "-m", "optuna_psms.cli", "compare"]
    argv += ["--objective", "gated_objective_mod:f", "--samplers", "random,pso", "--seeds", "2"]
    argv += ["--n-trials", "8", "--storage", url, "--report", "none", "--n-workers", "2"]
    env = {**os.environ, "PYTHONPATH": REPO}
    proc = subprocess.Popen(
        [*argv, "--no-progress-bar"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:  # both workers blocked in trial 3
            seen = trial_states(tmp_path / "i.db")  # read-only: the file may be new
            waiting = len(list(tmp_path.glob("waiting-*")))
            if len(seen) == 6 and sum(c["COMPLETE"] for c in seen.values()) >= 6 and waiting == 2:
                break
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.2)
        else:
            pytest.fail("the two workers did not both reach trial 3 within 300 s")
        os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C in a terminal: the whole group
        out, err = proc.communicate(timeout=300)  # the workers go on once the stop is set
    finally:
        if proc.poll() is None:
            proc.kill()
    go.touch()  # for the resume below
    assert proc.returncode == 130, err
    assert err.strip().splitlines() == [
        "optuna-psms: interrupted; finished trials are saved, add --resume to continue"
    ]
    states = _states(url)
    # Each worker finished the trial it was in, then stopped; nothing RUNNING or FAILed.
    assert sorted(c["COMPLETE"] for c in states.values()) == [0, 0, 0, 0, 4, 4]
    assert all(sum(c.values()) == c["COMPLETE"] for c in states.values())
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "gated_objective_mod", raising=False)
    code = main([*argv[3:], "--resume", "--n-workers", "1", "--no-progress-bar"])
    assert code == 0
    assert all(c == Counter({"COMPLETE": 8}) for c in _states(url).values())


def test_csv_full_model_selection(tmp_path: Any, capsys: Any) -> None:
    from sklearn.datasets import load_iris

    frame = load_iris(as_frame=True).frame
    csv = tmp_path / "flowers.csv"
    frame.to_csv(csv, index=False)
    url = f"sqlite:///{tmp_path / 'f.db'}"
    argv = ["compare", "--csv", str(csv), "--target", "target", "--samplers", "random"]
    argv += ["--baseline", "none", "--seeds", "1", "--n-trials", "2", "--storage", url]
    code, out, err = _run([*argv, "--report", "none", "--n-workers", "1"], capsys)
    assert code == 0, err
    assert out.startswith("Comparing random on full model selection")  # no baseline added
    study = optuna.load_study(study_name="flowers/random/seed0", storage=url)
    assert study.metric_names == ["CV BER"]
    assert study.user_attrs["compare:objective"].startswith("full model selection on ")
    assert len(study.get_trials(states=(TrialState.COMPLETE,))) == 2
    assert all(
        "fms:pipeline" in t.user_attrs for t in study.get_trials(states=(TrialState.COMPLETE,))
    )
    assert (
        "Final best CV BER per seed (cross-validated on all rows, no hold-out, so optimistic; "
        "smaller is better):" in out
    )
    assert "too few rows" not in err  # 50 rows of each class: no caution
    # The dashboard's note says what its Best Trial value is: no held-out estimate here, as
    # there is in a select study's note (a new user's trial, 28 Nov 2026).
    from optuna_dashboard import get_note

    note = " ".join(get_note(study).split())
    assert note.startswith("## optuna-psms: compare ### In a comparison This study is one run")
    assert study.user_attrs["compare:objective"] in note
    assert "cross-validated scores on all rows (no rows held out): optimistic" in note


def test_tiny_data_gets_selects_small_data_caution(tmp_path: Any, capsys: Any) -> None:
    # 4 rows of each class, 2 per fold of the 2-fold CV: the CV values move in steps of 1/6
    # and are easily 0; `select` says so in one line, and so does compare (no hold-out part).
    from sklearn.datasets import load_iris

    frame = load_iris(as_frame=True).frame.groupby("target").head(4)
    frame.to_csv(tmp_path / "few.csv", index=False)
    argv = ["compare", "--csv", str(tmp_path / "few.csv"), "--target", "target"]
    argv += ["--samplers", "random", "--baseline", "none", "--seeds", "1", "--n-trials", "1"]
    argv += ["--initial-pipelines", "none", "--storage", f"sqlite:///{tmp_path / 'few.db'}"]
    code, out, err = _run(
        [*argv, "--report", "none", "--n-workers", "1", "--no-progress-bar"], capsys
    )
    assert code == 0, err
    assert err.splitlines() == [
        "warning: too few rows for these scores to mean much: class 0 has 4 search rows, 2 per "
        "fold of the 2-fold CV (fewer than 5)"
    ]
    assert "Final best CV BER per seed" in out


def test_small_data_caution_counts_the_rows_subsample_leaves(tmp_path: Any, capsys: Any) -> None:
    # 50 rows of each class, but --subsample 0.1 cross-validates each trial on 5 of them:
    # compare printed the values with no caution.
    from sklearn.datasets import load_iris

    load_iris(as_frame=True).frame.to_csv(tmp_path / "iris.csv", index=False)
    argv = ["compare", "--csv", str(tmp_path / "iris.csv"), "--target", "target"]
    argv += ["--samplers", "random", "--baseline", "none", "--seeds", "1", "--n-trials", "1"]
    argv += ["--initial-pipelines", "none", "--storage", f"sqlite:///{tmp_path / 'i.db'}"]
    argv += ["--subsample", "0.1", "--report", "none", "--n-workers", "1", "--no-progress-bar"]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert err.splitlines() == [
        "warning: too few rows for these scores to mean much: class 0 has 5 search rows in "
        "each trial (of its 50; --subsample 0.1), 2-3 per fold of the 2-fold CV (fewer than 5)"
    ]


@pytest.mark.parametrize("where", ["sampler", "last write"])
def test_a_second_ctrl_c_in_optunas_code_leaves_no_trial_running(
    tmp_path: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    # A second Ctrl-C stops at once; landing in Optuna's own code (the sampler in study.ask,
    # or its last storage write, which Optuna turns into an UnboundLocalError) it left the
    # trial RUNNING, or was reported as "the objective raised UnboundLocalError". Simulated:
    # the 3rd call raises KeyboardInterrupt, as the SIGINT handler does on a second Ctrl-C.
    from optuna.study import _optimize

    owner: Any
    if where == "sampler":
        owner, name = optuna.samplers.RandomSampler, "before_trial"
    else:
        owner, name = _optimize, "_tell_with_warning"
    real: Any = getattr(owner, name)
    calls: list[int] = []

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    url = f"sqlite:///{tmp_path / 'c.db'}"
    argv = ["compare", "--function", "sphere", "--dim", "2", "--samplers", "random"]
    argv += ["--seeds", "1", "--n-trials", "4", "--baseline", "none", "--storage", url]
    argv += ["--n-workers", "1", "--report", "none", "--no-progress-bar"]
    with monkeypatch.context() as patch:
        patch.setattr(owner, name, interrupted)
        code, out, err = _run(argv, capsys)
    assert code == 130, err
    assert err.strip().splitlines()[-1] == (
        "optuna-psms: interrupted; finished trials are saved, add --resume to continue"
    )
    study = optuna.load_study(study_name="sphere-d2/random/seed0", storage=url)
    assert [t.state.name for t in study.trials] == ["COMPLETE", "COMPLETE", "FAIL"]
    assert study.trials[2].user_attrs["fms:interrupted"] is True
    code, out, err = _run([*argv, "--resume"], capsys)
    assert code == 0, err
    assert _states(url) == {"sphere-d2/random/seed0": Counter(COMPLETE=4, FAIL=1)}


def _initial_marks(url: str) -> dict[str, list[Any]]:
    return {
        name: [t.user_attrs.get("fms:initial") for t in study.trials]
        for name in optuna.get_all_study_names(url)
        for study in [optuna.load_study(study_name=name, storage=url)]
    }


@pytest.mark.slow  # 7 s: six full-model studies; test_csv_full_model_selection runs by default
def test_fms_studies_start_from_selects_initial_pipelines_once(tmp_path: Any, capsys: Any) -> None:
    # compare runs the search `select` runs: the four textbook pipelines first, the same in
    # every study (paired), and a resumed comparison does not enqueue them again.
    from optuna_psms.fms import make_objective
    from optuna_psms.fms._initial import default_pipelines
    from optuna_psms.fms.datasets import load_dataset

    url = f"sqlite:///{tmp_path / 'i.db'}"
    argv = ["compare", "--dataset", "sklearn:iris", "--samplers", "random,pso"]
    argv += ["--baseline", "none", "--seeds", "1", "--storage", url, "--report", "none"]
    argv += ["--n-workers", "1", "--no-progress-bar"]
    code, out, err = _run([*argv, "--n-trials", "5"], capsys)
    assert code == 0, err
    assert "2-fold CV ber, starting from the initial pipelines: 1 seed x 5 trials" in out
    built = make_objective(*load_dataset("sklearn:iris"), cv=2, metric="ber")
    expected = default_pipelines(built.space, built.context, "ber")
    assert len(expected) == 4
    for name in ("sklearn_iris/random/seed0", "sklearn_iris/pso/seed0"):
        study = optuna.load_study(study_name=name, storage=url)
        assert [t.params for t in study.trials[:4]] == expected, name
        assert study.user_attrs["compare:objective"].endswith(
            "starting from the initial pipelines"
        )
    assert _initial_marks(url) == {n: [0, 1, 2, 3, None] for n in optuna.get_all_study_names(url)}
    # Resumed: topped up by the samplers, the initial pipelines are not enqueued again.
    code, out, err = _run([*argv, "--n-trials", "7", "--resume"], capsys)
    assert code == 0, err
    assert "Running 4 trials in 2 studies" in out
    assert _initial_marks(url) == {n: [0, 1, 2, 3] + [None] * 3 for n in _initial_marks(url)}
    assert all(c == Counter({"COMPLETE": 7}) for c in _states(url).values())
    # Resumed with the other setting: another search, refused with the way out.
    code, out, err = _run(
        [*argv, "--n-trials", "8", "--resume", "--initial-pipelines", "none"], capsys
    )
    assert code == 2
    (line,) = err.strip().splitlines()
    assert line.endswith("resume it with --initial-pipelines defaults, or choose another --name")
    # --initial-pipelines none: every trial is the sampler's.
    code, out, err = _run(
        [*argv, "--n-trials", "2", "--initial-pipelines", "none", "--name", "n"], capsys
    )
    assert code == 0, err
    assert "2-fold CV ber: 1 seed x 2 trials" in out
    study = optuna.load_study(study_name="n/random/seed0", storage=url)
    assert [t.user_attrs.get("fms:initial") for t in study.trials] == [None, None]
    code, out, err = _run([*argv, "--n-trials", "3", "--resume", "--name", "n"], capsys)
    assert code == 2
    assert err.strip().endswith(
        "resume it with --initial-pipelines none, or choose another --name"
    )


def test_csv_resume_matches_the_data_not_the_path(
    tmp_path: Any, capsys: Any, monkeypatch: Any
) -> None:
    from sklearn.datasets import load_iris

    frame = load_iris(as_frame=True).frame.iloc[::3]
    frame.to_csv(tmp_path / "wine.csv", index=False)
    url = f"sqlite:///{tmp_path / 'r.db'}"
    argv = ["compare", "--target", "target", "--samplers", "random", "--baseline", "none"]
    argv += ["--seeds", "1", "--storage", url, "--report", "none", "--n-workers", "1"]
    argv += ["--name", "w", "--no-progress-bar"]
    code, _, err = _run([*argv, "--csv", str(tmp_path / "wine.csv"), "--n-trials", "1"], capsys)
    assert code == 0, err
    # The same file named by a relative path: the same objective, resumed.
    monkeypatch.chdir(tmp_path)
    code, _, err = _run([*argv, "--csv", "wine.csv", "--n-trials", "2", "--resume"], capsys)
    assert code == 0, err
    study = optuna.load_study(study_name="w/random/seed0", storage=url)
    assert len(study.get_trials(states=(TrialState.COMPLETE,))) == 2
    # Other contents under the same path: refused, in one line, nothing run.
    frame.assign(sepal_extra=1.0).to_csv(tmp_path / "wine.csv", index=False)
    code, _, err = _run([*argv, "--csv", "wine.csv", "--n-trials", "3", "--resume"], capsys)
    assert code == 2
    (line,) = err.strip().splitlines()
    assert "was made on 'full model selection on CSV data " in line and "--name" in line
    assert len(study.get_trials(states=(TrialState.COMPLETE,))) == 2


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        (["a"] * 40, "y has a single class ('a')"),
        (["a"] * 39 + ["b"], "class 'b' has only 1 sample(s), fewer than the 2"),
    ],
)
def test_data_errors_come_before_the_first_line(
    labels: list[str], message: str, tmp_path: Any, capsys: Any
) -> None:
    # A refused run printed "Comparing random and the baseline tpe on ..." above its error,
    # announcing a run that never started (a new user's trial, 26 Nov 2026).
    import pandas as pd

    pd.DataFrame(
        {"a": [i % 5 for i in range(40)], "b": [i % 7 for i in range(40)], "y": labels}
    ).to_csv(tmp_path / "d.csv", index=False)
    argv = ["compare", "--csv", str(tmp_path / "d.csv"), "--target", "y", "--samplers", "random"]
    url = f"sqlite:///{tmp_path / 'c.db'}"
    code, out, err = _run([*argv, "--storage", url, "--no-progress-bar"], capsys)
    assert code == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith(f"optuna-psms: error: {message}"), line


def test_existing_comparison_is_refused_before_the_first_line(tmp_path: Any, capsys: Any) -> None:
    url = f"sqlite:///{tmp_path / 'c.db'}"
    argv = [*_compare(url, "--seeds", "1", "--n-trials", "2", "--baseline", "none")]
    assert _run([*argv, "--report", "none"], capsys)[0] == 0
    code, out, err = _run([*argv, "--report", "none"], capsys)
    assert code == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert "already has 2 of 2 studies in this storage; add --resume" in line
    code, out, err = _run([*argv, "--report", "none", "--resume"], capsys)
    assert code == 0 and out.splitlines()[:2] == [
        f"Comparing random,pso on rastrigin function, 2 dimensions, shifted, minimize: 1 seed "
        f"x 2 trials, storage {url}",
        "Every study is complete: nothing to run.",
    ]


def test_csv_with_a_continuous_target_points_to_select_regression(
    tmp_path: Any, capsys: Any
) -> None:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=40), "yield_t": rng.normal(size=40)})
    frame.to_csv(tmp_path / "fried.csv", index=False)
    argv = ["compare", "--csv", str(tmp_path / "fried.csv"), "--target", "yield_t"]
    argv += ["--samplers", "random", "--storage", f"sqlite:///{tmp_path / 'c.db'}"]
    code, out, err = _run([*argv, "--no-progress-bar"], capsys)
    assert code == 2 and out == ""  # "Comparing random and the baseline tpe ..." came first
    (line,) = err.strip().splitlines()
    assert "column 'yield_t' looks continuous" in line
    assert "classification only" in line and "optuna-psms select --task regression" in line
    # ... and how to compare samplers on it all the same (a new user's trial, 28 Nov 2026).
    assert "--objective MODULE:NAME" in line and "space=RegressionSpace()" in line
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    helped = " ".join(capsys.readouterr().out.split())
    assert "classification only" in helped and "space=RegressionSpace()" in helped


def test_resume_of_a_study_without_an_objective_id_matches_the_description(
    tmp_path: Any, capsys: Any
) -> None:
    from optuna_psms.compare import ATTR_OBJECTIVE
    from optuna_psms.compare import ATTR_SAMPLER
    from optuna_psms.compare import ATTR_SEED

    url = f"sqlite:///{tmp_path / 'old.db'}"
    for sampler in ("random", "pso"):  # as made before compare:objective_id existed
        old = optuna.create_study(study_name=f"old/{sampler}/seed0", storage=url)
        old.set_user_attr(ATTR_OBJECTIVE, "rastrigin function, 2 dimensions, shifted, minimize")
        old.set_user_attr(ATTR_SAMPLER, sampler)
        old.set_user_attr(ATTR_SEED, 0)
    argv = _compare(url, "--seeds", "1", "--n-trials", "2", "--report", "none", "--name", "old")
    argv += ["--baseline", "none"]
    assert _run([*argv, "--resume"], capsys)[0] == 0
    code, _, err = _run([*argv[:4], "3", *argv[5:], "--resume"], capsys)  # --dim 3
    assert code == 2 and "was made on 'rastrigin function, 2 dimensions" in err


@pytest.mark.parametrize("obj", ["compare", "plot_best_so_far", "plot_final_values"])
def test_docstring_examples_run(obj: str) -> None:
    import inspect

    import optuna_psms.compare as compare_module
    from tests.test_docstrings import _examples

    target = compare_module if obj == "compare" else globals()[obj]
    blocks = _examples(inspect.getdoc(target) or "")
    assert blocks
    for code in blocks:
        exec(compile(code, f"<{obj} docstring>", "exec"), {})


def test_studies_are_published_for_the_dashboard(
    tmp_path: Any, capsys: Any, monkeypatch: Any
) -> None:
    import optuna_psms.visualization as visualization

    published: list[str] = []

    def publish(study: optuna.Study) -> list[str]:
        published.append(study.study_name)
        return []

    monkeypatch.setattr(visualization, "publish", publish, raising=False)
    url = f"sqlite:///{tmp_path / 'd.db'}"
    code, out, err = _run(
        _compare(url, "--seeds", "1", "--n-trials", "2", "--report", "none"), capsys
    )
    assert code == 0, err
    assert sorted(published) == sorted(optuna.get_all_study_names(url))
    assert "Figures saved into the 3 studies" in out


def test_failed_trials_are_retried(tmp_path: Any) -> None:
    def flaky(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", 0.0, 1.0)
        return float("nan") if trial.number in (2, 3) else x  # the second round fails whole

    result = compare_samplers(flaky, ["random"], baseline=None, n_seeds=1, n_trials=3)
    (study,) = result.studies["random"]
    assert Counter(t.state.name for t in study.trials) == Counter({"COMPLETE": 3, "FAIL": 2})


def test_an_objective_that_always_fails_names_the_last_reason() -> None:
    # --metric roc_auc on three classes failed every pipeline; the error said only "every
    # trial failed or returned NaN", the reason being in the warnings above it (26 Nov 2026).
    def broken(trial: optuna.Trial) -> float:
        trial.suggest_float("x", 0.0, 1.0)
        trial.set_user_attr("fms:error", "ValueError: multi_class must be\nin ('ovo', 'ovr')")
        return float("nan")

    with pytest.raises(ComparisonError) as info:
        compare_samplers(broken, ["random"], baseline=None, n_seeds=1, n_trials=1)
    assert str(info.value).endswith(
        "(every trial failed or returned NaN; the last: ValueError: multi_class must be in "
        "('ovo', 'ovr'))"
    )


# ---- storages other than a database, and BBOB by name ---------------------------------


def _journal_states(storage: Any) -> dict[str, Counter[str]]:
    return {
        name: Counter(
            t.state.name for t in optuna.load_study(study_name=name, storage=storage).trials
        )
        for name in optuna.get_all_study_names(storage)
    }


@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_compare_on_a_journal_file_with_workers_and_resume(tmp_path: Any, capsys: Any) -> None:
    from optuna_psms.storages import open_storage

    log = tmp_path / "c.log"
    argv = _compare(f"journal://{log}", "--seeds", "1", "--n-trials", "4", "--report", "none")
    argv[argv.index("--n-workers") + 1] = "2"  # two processes append to one journal file
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert f"optuna-dashboard {log}" in out  # the dashboard takes the file's path
    states = _journal_states(open_storage(str(log)))
    assert states == {
        f"rastrigin-d2/{s}/seed0": Counter({"COMPLETE": 4}) for s in ("pso", "random", "tpe")
    }
    code, out, err = _run([*argv[:-4], "--n-trials", "5", "--report", "none", "--resume"], capsys)
    assert code == 0, err
    assert "Running 3 trials in 3 studies" in out
    assert all(
        c == Counter({"COMPLETE": 5}) for c in _journal_states(open_storage(str(log))).values()
    )


@pytest.mark.services
def test_compare_on_redis(capsys: Any) -> None:
    import uuid

    from tests.conftest import require_service

    require_service("Redis", "127.0.0.1", 6379)
    pytest.importorskip("redis")
    url = "redis://127.0.0.1:6379/0"
    name = f"compare-redis-{uuid.uuid4().hex[:10]}"
    argv = _compare(url, "--seeds", "1", "--n-trials", "3", "--report", "none", "--name", name)
    storage = optuna.storages.JournalStorage(optuna.storages.journal.JournalRedisBackend(url))
    try:
        code, out, err = _run(argv, capsys)
        assert code == 0, err
        ours = [n for n in optuna.get_all_study_names(storage) if n.startswith(name + "/")]
        assert sorted(ours) == [f"{name}/{s}/seed0" for s in ("pso", "random", "tpe")]
        for study_name in ours:
            trials = optuna.load_study(study_name=study_name, storage=storage).trials
            assert [t.state.name for t in trials] == ["COMPLETE"] * 3
    finally:
        for study_name in optuna.get_all_study_names(storage):
            if study_name.startswith(name + "/"):
                optuna.delete_study(study_name=study_name, storage=storage)


def test_bad_storage_url_is_one_line(tmp_path: Any, capsys: Any) -> None:
    code, _, err = _run(_compare("ftp://nowhere/x", "--seeds", "1", "--n-trials", "2"), capsys)
    assert code == 2
    (line,) = err.strip().splitlines()
    assert "unknown storage scheme 'ftp://'" in line


def test_bbob_function_by_name(tmp_path: Any, capsys: Any) -> None:
    pytest.importorskip("cocoex")
    from optuna_psms.benchmarks.bbob import Problem

    url = f"sqlite:///{tmp_path / 'b.db'}"
    argv = _compare(url, "--seeds", "1", "--n-trials", "5", "--report", "none")
    argv[argv.index("rastrigin")] = "bbob:f7"
    argv[argv.index("--dim") + 1] = "3"
    code, out, err = _run([*argv, "--instance", "2"], capsys)
    assert code == 0, err
    assert "bbob f7 (step ellipsoid) instance 2, 3 dimensions" in out
    study = optuna.load_study(study_name="bbob-f7-i2-d3/pso/seed0", storage=url)
    assert study.metric_names == ["regret"]
    problem = Problem(7, 3, instance=2)
    for trial in study.trials:  # each value is that instance's regret at the trial's point
        x = [trial.params[f"x{i}"] for i in range(3)]
        assert trial.value == pytest.approx(problem(x))
        assert trial.value is not None and trial.value >= 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--function", "bbob:f25"], "unknown bbob function 'bbob:f25'"),
        (["--function", "bbob:f1", "--no-shift"], "--no-shift is for the nine functions"),
        (["--function", "bbob:f1", "--instance", "0"], "--instance must be at least 1"),
        (["--function", "sphere", "--instance", "2"], "--instance is only used with"),
    ],
)
def test_bbob_bad_input_is_one_line(
    argv: list[str], message: str, tmp_path: Any, capsys: Any
) -> None:
    pytest.importorskip("cocoex")
    url = f"sqlite:///{tmp_path / 'bad.db'}"
    base = ["compare", *argv, "--samplers", "random", "--storage", url, "--no-progress-bar"]
    code, _, err = _run(base, capsys)
    assert code == 2
    (line,) = err.strip().splitlines()
    assert message in line


def test_trials_are_not_pruned() -> None:
    """Full model selection reports each fold; Optuna's default MedianPruner would prune
    most trials, which a comparison would count as not completed."""

    def reports(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", 0.0, 1.0)
        for step in range(3):
            trial.report(x, step)
            if trial.should_prune():
                raise optuna.TrialPruned()
        return x

    result = compare_samplers(reports, ["random"], baseline=None, n_seeds=1, n_trials=30)
    (study,) = result.studies["random"]
    assert Counter(t.state.name for t in study.trials) == Counter({"COMPLETE": 30})


def test_csv_drop_leaves_columns_out_of_the_search(tmp_path: Any, capsys: Any) -> None:
    from sklearn.datasets import load_iris

    from optuna_psms.compare._objective import ObjectiveSpec

    frame = load_iris(as_frame=True).frame
    frame.insert(0, "id", range(len(frame)))
    csv = tmp_path / "flowers.csv"
    frame.to_csv(csv, index=False)
    spec = ObjectiveSpec("csv", str(csv), target="target", drop=("id",))
    X, _ = spec.load()
    assert list(X.columns) == list(frame.columns[1:-1])
    url = f"sqlite:///{tmp_path / 'd.db'}"
    argv = ["compare", "--csv", str(csv), "--target", "target", "--samplers", "random"]
    argv += ["--baseline", "none", "--seeds", "1", "--n-trials", "1", "--storage", url]
    argv += ["--report", "none", "--n-workers", "1", "--no-progress-bar"]
    code, out, err = _run([*argv, "--drop", "id"], capsys)
    assert code == 0 and "row identifier" not in err, err
    study = optuna.load_study(study_name="flowers/random/seed0", storage=url)
    assert study.user_attrs["compare:objective"] == (
        f"full model selection on {csv} (target target) without column(s) 'id', 2-fold CV ber"
        ", starting from the initial pipelines"
    )
    # Without --drop the id column is searched, and `compare` says so once, as `select` does.
    code, out, err = _run([*argv, "--name", "with-id"], capsys)
    assert code == 0, err
    warned = [line for line in err.splitlines() if "row identifier" in line]
    assert warned == [
        "warning: column 'id' looks like a row identifier (the integers 0..149, one per row); "
        "as a feature it can only memorise rows (or their order in the file): drop it with "
        "--drop id"
    ]
    code, out, err = _run([*argv, "--drop", "ID", "--name", "other"], capsys)
    assert code == 2 and out == ""
    assert err.startswith(
        f"optuna-psms: error: --drop: column 'ID' not found in {csv}; did you mean 'id'? "
        "columns: id, sepal "
    )
    assert err.count("\n") == 1
    code, out, err = _run(
        ["compare", "--function", "sphere", "--samplers", "pso", "--drop", "id"], capsys
    )
    assert code == 2 and "--drop is only used with --csv or --dataset" in err


# ---- the values as shown: a scorer as the score, metrics by their names ----------------


def test_a_scorer_is_shown_as_the_score_higher_is_better(tmp_path: Any, capsys: Any) -> None:
    # --metric accuracy printed "Final best CV -accuracy ... smaller is better" over a table
    # of -0.98 (the studies minimise -accuracy); select prints the accuracy (26 Nov 2026).
    url = f"sqlite:///{tmp_path / 'a.db'}"
    report = tmp_path / "a.html"
    argv = ["compare", "--dataset", "sklearn:iris", "--metric", "accuracy", "--samplers"]
    argv += ["random", "--baseline", "none", "--seeds", "1", "--n-trials", "2", "--storage", url]
    argv += ["--initial-pipelines", "none", "--report", str(report), "--n-workers", "1"]
    code, out, err = _run([*argv, "--no-progress-bar"], capsys)
    assert code == 0, err
    study = optuna.load_study(study_name="sklearn_iris/random/seed0", storage=url)
    assert study.best_value < 0  # the study keeps the value minimised
    assert "on full model selection on sklearn:iris, 2-fold CV accuracy (higher is better)" in out
    assert "Final best CV accuracy per seed (" in out and "; higher is better):" in out
    (row,) = [line.split() for line in out.splitlines() if line.startswith("random ")]
    assert float(row[2]) == pytest.approx(-study.best_value, abs=1e-3) and "-accuracy" not in out
    text = report.read_text()
    assert "Values shown:\nCV accuracy, higher is better." in text
    assert f'<td class="num">{-study.best_value:#.4g}</td>' in text
    # The stored identity keeps the metric as given, so older comparisons still resume.
    assert study.user_attrs["compare:objective_id"].endswith("2-fold CV accuracy")


def test_shown_values_and_wins_of_a_negated_score() -> None:
    from optuna_psms.compare import Comparison

    def seeded(values: list[float], seed: int) -> Any:
        study = _study(values)
        study.set_user_attr("compare:seed", seed)
        return study

    # Studies minimise -accuracy: pso ends at 0.95 and 0.90, tpe at 0.90 and 0.92.
    studies = {
        "pso": [seeded([-0.5, -0.95], 0), seeded([-0.9], 1)],
        "tpe": [seeded([-0.9], 0), seeded([-0.8, -0.92], 1)],
    }
    result = Comparison("c", "d", "CV accuracy", "tpe", studies, value_sign=-1.0)
    assert result.higher_is_better
    assert result.finals() == {"pso": {0: 0.95, 1: 0.9}, "tpe": {0: 0.9, 1: 0.92}}
    pso = result.rows()[0]
    assert (pso.wins, pso.ties, pso.losses) == (1, 0, 1)
    assert pso.median == pytest.approx(0.925)
    curve = plot_best_so_far(studies, value_sign=-1.0).data[2]  # pso: band, then median
    assert list(curve.y) == pytest.approx([0.7, 0.95])
    box = plot_final_values(studies, value_sign=-1.0).data[0]
    assert (box.q1[0], box.median[0], box.q3[0]) == pytest.approx((0.9125, 0.925, 0.9375))


@pytest.mark.parametrize(
    ("metric", "described", "shown"),
    [
        ("ber", "2-fold CV ber", ("CV BER", 1.0)),
        ("auc", "2-fold CV 1-AUC", ("CV 1-AUC", 1.0)),
        ("accuracy", "2-fold CV accuracy (higher is better)", ("CV accuracy", -1.0)),
        ("neg_log_loss", "2-fold CV log_loss", ("CV log_loss", 1.0)),
    ],
)
def test_metrics_are_named_as_select_names_them(
    metric: str, described: str, shown: tuple[str, float]
) -> None:
    # describe() said "2-fold CV auc" of a search minimising 1 - ROC AUC, and the table's
    # title "CV -neg_log_loss" of a log loss.
    from optuna_psms.compare import ObjectiveSpec

    spec = ObjectiveSpec("dataset", "sklearn:iris", metric=metric)
    assert spec.describe() == f"full model selection on sklearn:iris, {described}"
    assert spec.shown_value() == shown
    # What a resumed comparison is matched on is unchanged: the metric as given.
    assert spec.identity() == f"full model selection on sklearn:iris, 2-fold CV {metric}"


def test_the_csv_file_is_read_once(tmp_path: Any, capsys: Any, monkeypatch: Any) -> None:
    # The check of the data, identity(), build(0) and each study's objective read and parsed
    # the file again: 7 times for 2 samplers x 2 seeds (26 Nov 2026).
    import pickle

    from sklearn.datasets import load_iris

    from optuna_psms.compare import ObjectiveSpec
    from optuna_psms.fms import datasets

    load_iris(as_frame=True).frame.to_csv(tmp_path / "iris.csv", index=False)
    reads = []
    load_csv = datasets.load_csv

    def counted(*args: Any, **kwargs: Any) -> Any:
        reads.append(args[0])
        return load_csv(*args, **kwargs)

    monkeypatch.setattr(datasets, "load_csv", counted)
    argv = ["compare", "--csv", str(tmp_path / "iris.csv"), "--target", "target", "--samplers"]
    argv += ["random", "--seeds", "2", "--n-trials", "1", "--initial-pipelines", "none"]
    argv += ["--storage", f"sqlite:///{tmp_path / 'i.db'}", "--report", "none"]
    code, _, err = _run([*argv, "--n-workers", "1", "--no-progress-bar"], capsys)
    assert code == 0, err
    assert reads == [str(tmp_path / "iris.csv")]
    # A worker gets the spec without the data (read once per worker, not sent per study).
    spec = ObjectiveSpec("csv", str(tmp_path / "iris.csv"), target="target")
    spec.load()
    assert "_loaded" in spec.__dict__
    copy = pickle.loads(pickle.dumps(spec))
    assert copy == spec and "_loaded" not in copy.__dict__


def test_one_trial_one_study_in_the_singular(tmp_path: Any, capsys: Any) -> None:
    url = f"sqlite:///{tmp_path / 'c.db'}"
    argv = _compare(url, "--seeds", "1", "--n-trials", "1", "--report", "none")
    code, out, err = _run([*argv[:6], "random", *argv[7:], "--baseline", "none"], capsys)
    assert code == 0, err
    assert ": 1 seed x 1 trial, storage" in out and "Running 1 trial in 1 study " in out
    assert "studies for optuna-dashboard" not in out  # "into the 1 studies" before
