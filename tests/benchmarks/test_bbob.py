"""The BBOB runner: f_opt as COCO logs it, the objective, and the script end to end."""

from __future__ import annotations

import glob
import json
from pathlib import Path
import re
import statistics

import optuna
import pytest

from optuna_psms.benchmarks import bbob
from tests import REPO


cocoex = pytest.importorskip("cocoex", reason="coco-experiment (the bench extra) is missing")


def test_optimal_value_matches_coco_logger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # COCO's own logger writes f_opt into each data file header: compare for all 24
    # functions on three instances (1, 2 and the 7th index, instance 72 this year).
    monkeypatch.chdir(tmp_path)
    suite = cocoex.Suite("bbob", "", "dimensions:2 instance_indices:1,2,7 function_indices:1-24")
    observer = cocoex.Observer("bbob", "result_folder: fopt algorithm_name: check")
    seen: dict[int, set[int]] = {}
    for problem in suite:
        problem.observe_with(observer)
        problem([0.0, 0.0])
        seen.setdefault(problem.id_function, set()).add(problem.id_instance)
        problem.free()
    del observer
    logged: dict[int, set[float]] = {}
    for path in glob.glob(str(tmp_path / "exdata" / "fopt*" / "data_f*" / "*.dat")):
        fid = int(re.search(r"_f(\d+)_", path).group(1))  # type: ignore[union-attr]
        logged.setdefault(fid, set()).update(
            float(v) for v in re.findall(r"Fopt \(([^)]*)\)", Path(path).read_text())
        )
    assert sorted(logged) == list(range(1, 25))
    for fid, instances in seen.items():
        assert {bbob.optimal_value(fid, i) for i in instances} == logged[fid]


def test_objective_is_regret() -> None:
    problem = bbob.Problem(1, 3, 1)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(bbob.make_objective(1, 3, 1), n_trials=30)
    assert all(t.value is not None and t.value > 0 for t in study.trials)
    x = [study.best_params[f"x{i}"] for i in range(3)]
    assert problem(x) == pytest.approx(study.best_value)
    # Sphere: regret = squared distance to x_opt, so a huge x has a huge regret.
    assert problem([5.0, 5.0, 5.0]) > problem(x) or problem([-5.0, -5.0, -5.0]) > problem(x)


@pytest.mark.parametrize(
    "args", [(0, 5, 1), (1, 0, 1), (1, 5, 0), (25, 5, 1), (1, True, 1)], ids=str
)
def test_bad_problem_is_one_line_error(args: tuple[int, int, int]) -> None:
    with pytest.raises(ValueError, match="must be"):
        bbob.Problem(*args)


@pytest.mark.parametrize(
    "name",
    ["nope", "tpe@budget", "pso@later", 'tpe{"seed": 1}', "pso{bad", "pso[1]", 'pso{"nope": 1}'],
)
def test_unknown_sampler_is_rejected(name: str) -> None:
    with pytest.raises(ValueError, match="unknown sampler"):
        bbob.build_sampler(name, 0, 10)


def test_sampler_names_with_budget_and_arguments() -> None:
    from optuna_psms import PSOSampler

    plain = bbob.build_sampler("pso", 0, 200)
    budgeted = bbob.build_sampler("pso@budget", 0, 200)
    absorb = bbob.build_sampler('pso@budget{"boundary": "absorb", "swarm_size": 10}', 0, 200)
    assert isinstance(budgeted, PSOSampler) and isinstance(absorb, PSOSampler)
    assert plain._params["n_iterations"] == 50  # type: ignore[attr-defined]
    assert budgeted._params["n_iterations"] == 50  # 4 particles
    assert absorb._params["n_iterations"] == 20
    assert absorb._params["boundary"] == "absorb"


@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_script_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs.json"
    plots = tmp_path / "plots"
    argv = ["--samplers", "random", "pso", "--functions", "1,2", "--dim", "2"]
    argv += ["--trials", "12", "--seeds", "2", "--json", str(out), "--plots", str(plots)]
    bbob.main(argv)
    first = capsys.readouterr().out
    assert "| f1 sphere | 1 |" in first and "**normalized regret**" in first
    assert "| % coordinates exactly on a wall | 0.0 |" in first
    saved = json.loads(out.read_text())
    assert len(saved["runs"]) == 2 * 2 * 2
    for run in saved["runs"]:
        assert 0.0 <= run["wall"] <= 1.0 and 0.0 <= run["centre"] <= 1.0
        trace = run["trace"]
        assert len(trace) == 12 and all(a >= b for a, b in zip(trace, trace[1:]))
    assert (plots / "ecdf.png").stat().st_size > 0
    assert (plots / "convergence.png").stat().st_size > 0
    bbob.main(["--from-json", str(out)])
    again = capsys.readouterr().out
    assert again.splitlines()[:8] == first.splitlines()[:8]
    # A second invocation with another sampler merges into one table.
    other = tmp_path / "other.json"
    argv = ["--samplers", "random", "cmaes", "--functions", "1,2", "--dim", "2"]
    bbob.main(argv + ["--trials", "12", "--seeds", "2", "--json", str(other)])
    capsys.readouterr()
    bbob.main(["--from-json", str(out), str(other)])
    merged = capsys.readouterr().out
    assert "| function | random | pso | cmaes |" in merged


def test_merge_of_different_function_sets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # pso on f1 and f2, cmaes on f2 only (two invocations): one table over both functions,
    # cmaes's f1 cell and its mean over both blank, and the mean over f2 for everyone.
    common = ["--dim", "2", "--trials", "12", "--seeds", "2"]
    both, only2 = tmp_path / "both.json", tmp_path / "only2.json"
    bbob.main(["--samplers", "random", "pso", "--functions", "1,2", "--json", str(both)] + common)
    bbob.main(["--samplers", "random", "cmaes", "--functions", "2", "--json", str(only2)] + common)
    capsys.readouterr()
    bbob.main(["--from-json", str(only2), str(both)])
    lines = capsys.readouterr().out.splitlines()
    table = {line.split(" | ")[0]: line.split(" | ")[1:] for line in lines if line.startswith("|")}
    assert table["| function"] == ["random", "cmaes", "pso |"]
    assert table["| f1 sphere"][:2] == ["1", "-"]
    assert table["| f2 ellipsoid"][1] != "-"
    assert table["| **normalized regret** (all 2 functions)"][:2] == ["**1.000**", "-"]
    over_f2 = table["| normalized regret over the 1 function every sampler ran"]
    runs = json.loads(both.read_text())["runs"] + json.loads(only2.read_text())["runs"]
    f2 = [r for r in runs if r["function"] == 2]  # random's runs twice: once per file
    med = {
        s: statistics.median({r["seed"]: r["trace"][-1] for r in f2 if r["sampler"] == s}.values())
        for s in ("random", "cmaes", "pso")
    }
    expected = [med["cmaes"] / med["random"], med["pso"] / med["random"]]
    assert [float(c.rstrip(" |")) for c in over_f2[1:]] == pytest.approx(expected, abs=5e-4)
    assert table["| functions worse than random"][1] in ("0 of 1", "1 of 1")
    # --functions picks a subset of the saved runs: f2 alone is a complete table.
    bbob.main(["--from-json", str(only2), str(both), "--functions", "2"])
    sub = capsys.readouterr().out
    assert "| f1 sphere" not in sub and "every sampler ran" not in sub
    bold = " | ".join(f"**{c.rstrip(' |')}**" for c in over_f2[1:])
    assert f"| **normalized regret** | **1.000** | {bold} |" in sub
    # Without random on a function there is nothing to normalize by: a one-line error.
    noref = json.loads(only2.read_text())
    noref["runs"] = [r for r in noref["runs"] if r["sampler"] != "random"]
    noref["meta"]["functions"] = [3]
    for r in noref["runs"]:
        r["function"] = 3
    bad = tmp_path / "noref.json"
    bad.write_text(json.dumps(noref))
    with pytest.raises(SystemExit):
        bbob.main(["--from-json", str(both), str(bad)])
    assert "random did not run on functions [3]" in capsys.readouterr().err


def test_summary_normalizes_by_random() -> None:
    runs = [
        {"sampler": s, "function": f, "trace": [v]}
        for s, f, v in [("random", 1, 4.0), ("a", 1, 2.0), ("random", 2, 1.0), ("a", 2, 3.0)]
    ]
    summary = bbob.summarize(runs, ["random", "a"], [1, 2])
    assert summary["ratio"][("a", 1)] == 0.5 and summary["ratio"][("a", 2)] == 3.0
    assert summary["normalized"]["a"] == pytest.approx(1.75)
    assert summary["normalized"]["random"] == 1.0
    assert summary["losses"]["a"] == [2]


def test_a_loss_is_significant_only_when_the_runs_show_it() -> None:
    # Function 1: "a" loses every one of 8 runs to random (p = 1/12870 < 0.05): L*.
    # Function 2: "a" has the larger median but the samples interleave: a plain L.
    # Function 3: three seeds each, all of "a" above all of random: p = 0.05, never below.
    rows = [("random", 1, v) for v in range(8)] + [("a", 1, 10.0 + v) for v in range(8)]
    rows += [("random", 2, v) for v in (1.0, 3.0, 5.0, 7.0)]
    rows += [("a", 2, v) for v in (2.0, 4.0, 6.0, 8.0)]
    rows += [("random", 3, v) for v in (1.0, 2.0, 3.0)] + [("a", 3, v) for v in (4.0, 5.0, 6.0)]
    runs = [{"sampler": s, "function": f, "trace": [float(v)]} for s, f, v in rows]
    summary = bbob.summarize(runs, ["random", "a"], [1, 2, 3])
    assert summary["losses"]["a"] == [1, 2, 3]
    assert summary["significant_losses"] == {"random": [], "a": [1]}
    assert summary["loss_p"][("a", 3)] == pytest.approx(0.05)
    table = bbob.markdown(summary, ["random", "a"], [1, 2, 3])
    assert "| f1 sphere | 1 | 3.86 L* |" in table and "| f2 ellipsoid | 1 | 1.25 L |" in table
    assert "| f3 rastrigin | 1 | 2.5 L |" in table
    assert "| of which significant (one-sided Mann-Whitney, p < 0.05) | 0 | 1 |" in table
    assert bbob.loss_p_value([3.0], [1.0, 2.0]) == 1.0  # one run: no test


def test_summary_with_a_sampler_missing_functions() -> None:
    runs = [
        {"sampler": s, "function": f, "trace": [v]}
        for s, f, v in [("random", 1, 4.0), ("a", 1, 2.0), ("random", 2, 1.0), ("a", 2, 3.0)]
        + [("b", 2, 0.5)]
    ]
    summary = bbob.summarize(runs, ["random", "a", "b"], [1, 2])
    assert ("b", 1) not in summary["ratio"] and summary["ratio"][("b", 2)] == 0.5
    assert "b" not in summary["normalized"] and summary["normalized"]["a"] == 1.75
    assert summary["common_functions"] == [2]
    assert summary["common"] == {"random": 1.0, "a": 3.0, "b": 0.5}
    assert summary["losses"] == {"random": [], "a": [2], "b": []}
    table = bbob.markdown(summary, ["random", "a", "b"], [1, 2])
    assert "| f1 sphere | 1 | 0.5 | - |" in table
    assert "| **normalized regret** (all 2 functions) | **1.000** | **1.750** | - |" in table
    assert (
        "| normalized regret over the 1 function every sampler ran | 1.000 | 3.000 | 0.500 |"
        in table
    )
    assert "| functions worse than random | 0 | 1 | 0 of 1 |" in table
    with pytest.raises(ValueError, match="random did not run"):
        bbob.summarize(runs, ["random", "a"], [1, 2, 3])


def test_ecdf_counts_targets_reached() -> None:
    import numpy as np

    from optuna_psms.benchmarks._bbob_plots import ecdf

    values = ecdf([[1e3, 1e-9]], np.array([1.0, 1e-8]))
    assert values.tolist() == [0.0, 1.0]


def test_finals_script_keeps_the_table_and_cuts_the_traces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # docs/reproduce/bbob_finals.py merges like --from-json (one merge_saved) and keeps only each
    # run's final value: the table from its output is the table from the full traces.
    import runpy
    import sys

    common = ["--dim", "2", "--trials", "12", "--seeds", "2"]
    a, b, out = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "finals.json"
    bbob.main(["--samplers", "random", "pso", "--functions", "1", "--json", str(a)] + common)
    bbob.main(["--samplers", "random", "cmaes", "--functions", "1", "--json", str(b)] + common)
    capsys.readouterr()
    bbob.main(["--from-json", str(a), str(b)])
    full = capsys.readouterr().out
    script = REPO / "docs" / "reproduce" / "bbob_finals.py"
    monkeypatch.setattr(sys, "argv", ["bbob_finals.py", str(out), str(a), str(b)])
    runpy.run_path(str(script), run_name="__main__")
    saved = json.loads(out.read_text())
    assert saved["meta"]["files"] == ["a.json", "b.json"]
    assert len(saved["runs"]) == 3 * 2  # random (in both files, kept once), pso, cmaes
    assert all(len(run["trace"]) == 1 for run in saved["runs"])
    bbob.main(["--from-json", str(out)])
    assert capsys.readouterr().out == full


def test_ecdf_script_prints_the_plotted_curve_at_the_trials_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # docs/reproduce/bbob_ecdf.py gives the numbers reproductions.md quotes from ecdf.png: the
    # value of
    # the plotted curve (_bbob_plots.ecdf over a sampler's runs) at each trial asked for.
    import runpy
    import sys

    from optuna_psms.benchmarks._bbob_plots import ecdf

    runs_file, finals = tmp_path / "a.json", tmp_path / "finals.json"
    common = ["--dim", "2", "--trials", "12", "--seeds", "2", "--functions", "1,2"]
    bbob.main(["--samplers", "random", "pattern", "--json", str(runs_file)] + common)
    capsys.readouterr()
    script = str(REPO / "docs" / "reproduce" / "bbob_ecdf.py")
    monkeypatch.setattr(sys, "argv", ["bbob_ecdf.py", str(runs_file), "--at", "3", "12"])
    runpy.run_path(script, run_name="__main__")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "sampler trial 3 trial 12"
    saved = json.loads(runs_file.read_text())["runs"]
    for line in lines[1:]:
        sampler, *values = line.split()
        curve = ecdf([r["trace"] for r in saved if r["sampler"] == sampler])
        assert values == [f"{curve[2]:.3f}", f"{curve[11]:.3f}"]
    assert [line.split()[0] for line in lines[1:]] == ["random", "pattern"]
    # A file of final values only (docs/reproduce/bbob_finals.py) has no curve to read.
    monkeypatch.setattr(sys, "argv", ["bbob_finals.py", str(finals), str(runs_file)])
    runpy.run_path(str(Path(script).with_name("bbob_finals.py")), run_name="__main__")
    monkeypatch.setattr(sys, "argv", ["bbob_ecdf.py", str(finals)])
    with pytest.raises(SystemExit):
        runpy.run_path(script, run_name="__main__")
    assert "final values only" in capsys.readouterr().err


def test_first_seed_runs_merge_into_the_run_of_all_seeds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Seeded runs are reproducible, so seed 0 and seed 1 run apart and merged give the table
    # of one two-seed run; runs of other trials (or dimension, instances) are refused.
    common = ["--samplers", "random", "pso", "--functions", "1", "--dim", "2", "--trials", "10"]
    whole, s0, s1, other = (tmp_path / f"{n}.json" for n in ("whole", "s0", "s1", "other"))
    bbob.main(common + ["--seeds", "2", "--json", str(whole)])
    bbob.main(common + ["--seeds", "1", "--json", str(s0)])
    bbob.main(common + ["--seeds", "1", "--first-seed", "1", "--json", str(s1)])
    capsys.readouterr()
    assert json.loads(s1.read_text())["meta"]["seed_list"] == [1]
    bbob.main(["--from-json", str(whole)])
    expected = capsys.readouterr().out
    assert "seeds 0-1," in expected
    bbob.main(["--from-json", str(s0), str(s1)])
    assert capsys.readouterr().out == expected
    # A file saved before --first-seed existed ("seeds": N, no list) means seeds 0..N-1.
    old = json.loads(s0.read_text())
    del old["meta"]["seed_list"]
    s0.write_text(json.dumps(old))
    bbob.main(["--from-json", str(s1), str(s0)])
    assert capsys.readouterr().out == expected
    bbob.main(
        ["--samplers", "random", "--functions", "1", "--dim", "2", "--trials", "11"]
        + ["--seeds", "1", "--first-seed", "2", "--json", str(other)]
    )
    capsys.readouterr()
    with pytest.raises(SystemExit):
        bbob.main(["--from-json", str(whole), str(other)])
    assert "differs in trials" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bbob.main(common + ["--first-seed", "-1"])
    assert "--first-seed must be >= 0" in capsys.readouterr().err


def test_seed_lottery_script_counts_losses_over_seed_subsets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # docs/reproduce/bbob_seed_lottery.py: on f1, sampler "a" ties random over 4 seeds (median 1.0
    # vs
    # 1.0) but 2 of the 4 subsets of 3 seeds hold both of its bad seeds (2 and 3): a loss in
    # half the 3-seed tables. On f2 it always wins.
    import runpy
    import sys

    finals: dict[tuple[str, int], list[float]] = {("random", 1): [1.0] * 4}
    finals[("a", 1)] = [0.0, 0.0, 2.0, 2.0]
    finals |= {("random", 2): [1, 1, 1, 1], ("a", 2): [0.5, 0.5, 0.5, 0.5]}
    runs = [
        {"sampler": s, "function": f, "instance": 1, "seed": k, "trace": [v]}
        for (s, f), values in finals.items()
        for k, v in enumerate(values)
    ]
    meta = {"samplers": ["random", "a"], "functions": [1, 2], "dim": 2, "trials": 10}
    meta |= {"seeds": 4, "instances": [1], "command": "test"}
    path = tmp_path / "saved.json"
    path.write_text(json.dumps({"meta": meta, "runs": runs}))
    script = REPO / "docs" / "reproduce" / "bbob_seed_lottery.py"
    monkeypatch.setattr(sys, "argv", ["bbob_seed_lottery.py", str(path), "--k", "3"])
    runpy.run_path(str(script), run_name="__main__")
    out = capsys.readouterr().out
    assert "4 subsets of 3 seeds" in out
    assert "a: all 4 seeds 0.750, worse: none" in out
    assert "expected losses 0.5, no loss in 50% of them" in out
    assert "f1 0.50 (1.00)" in out and "f2 " not in out.split("per function")[1]
