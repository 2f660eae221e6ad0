"""optuna_psms.meta on tiny budgets: the outer study, the settings it produces, the score."""

from __future__ import annotations

import importlib.util
from typing import Any

import optuna
import pytest

from optuna_psms import meta
from optuna_psms import PSOSampler
from optuna_psms import UMDASampler
from optuna_psms.samplers.core.pso import TOPOLOGIES


TINY = {"suite": "nine", "dim": 2, "budget": 12, "seeds": 1, "functions": ["sphere", "step"]}


def test_tune_pso_searches_its_space_with_a_package_sampler() -> None:
    study = meta.tune("pso", n_trials=4, seed=0, **TINY)  # type: ignore[arg-type]
    assert len(study.trials) == 4
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    assert isinstance(study.sampler, PSOSampler)
    params = study.best_params
    assert set(params) == {"c1", "c2", "w_start", "w_end", "swarm_size", "topology"}
    assert 3 <= params["swarm_size"] <= 40 and 0.0 <= params["c1"] <= 3.0
    assert params["topology"] in ("global", "ring")
    settings = meta.settings_from_params("pso", params)
    assert settings["inertia"] == (params["w_start"], 0.5, params["w_end"])
    PSOSampler(**settings, budget=12)  # the settings build a valid sampler
    # The value of an outer trial is the score of its settings, recomputable.
    best = study.best_trial
    again = meta.evaluate("pso", meta.settings_from_params("pso", best.params), **TINY)  # type: ignore[arg-type]
    assert again == pytest.approx(best.value)


def test_tune_umda_with_another_outer_sampler() -> None:
    study = meta.tune(
        "umda",
        n_trials=2,
        outer_sampler=optuna.samplers.RandomSampler(seed=1),
        **TINY,  # type: ignore[arg-type]
    )
    assert set(study.best_params) == {"population_size", "top_fraction"}
    UMDASampler(**meta.settings_from_params("umda", study.best_params))


def _record_inner(monkeypatch: pytest.MonkeyPatch, sampler: str) -> list[Any]:
    """Make ``meta`` record the settings of every inner sampler it builds, in order."""
    cls = meta._CLASSES[sampler]
    built: list[Any] = []

    def make(**kwargs: Any) -> optuna.samplers.BaseSampler:
        inner = cls(**kwargs)
        built.append(inner._settings)  # type: ignore[attr-defined]
        return inner

    monkeypatch.setitem(meta._CLASSES, sampler, make)
    return built


def test_tune_pso_tunes_topology_and_reports_the_inner_configuration(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each outer trial chooses the topology (it does not fall to the budget rule's ring),
    # and the best settings, built as ``evaluate`` builds them, are exactly the inner
    # sampler the best trial flew.
    built = _record_inner(monkeypatch, "pso")
    study = meta.tune(
        "pso",
        n_trials=8,
        outer_sampler=optuna.samplers.RandomSampler(seed=0),
        **TINY,  # type: ignore[arg-type]
    )
    per_trial = 2  # inner runs per outer trial: TINY's two functions x one seed
    assert len(built) == per_trial * len(study.trials)
    topologies = set()
    for trial in study.trials:
        assert trial.params["topology"] in TOPOLOGIES
        topologies.add(trial.params["topology"])
        for inner in built[trial.number * per_trial : (trial.number + 1) * per_trial]:
            assert inner.topology == trial.params["topology"]
            assert inner.swarm_size == trial.params["swarm_size"]
    assert topologies == set(TOPOLOGIES)  # both values are flown (seed 0, 8 trials)
    best = study.best_trial
    settings = meta.settings_from_params("pso", best.params)
    assert settings["topology"] == best.params["topology"]
    rebuilt = PSOSampler(**settings, budget=TINY["budget"])._settings  # type: ignore[arg-type]
    assert rebuilt == built[best.number * per_trial]


@pytest.mark.parametrize("sampler", ["umda", "bumda", "drs"])
def test_reported_settings_of_the_other_samplers_are_the_inner_ones(
    monkeypatch: pytest.MonkeyPatch, sampler: str
) -> None:
    built = _record_inner(monkeypatch, sampler)
    study = meta.tune(
        sampler,
        n_trials=3,
        outer_sampler=optuna.samplers.RandomSampler(seed=2),
        **TINY,  # type: ignore[arg-type]
    )
    per_trial = 2  # inner runs per outer trial: TINY's two functions x one seed
    settings = meta.settings_from_params(sampler, study.best_params)
    assert set(settings) == {spec[0] for spec in meta.SPACES[sampler]}
    flown = built[study.best_trial.number * per_trial]
    meta._CLASSES[sampler](**settings, budget=TINY["budget"])  # recorded as built[-1]
    assert built[-1] == flown


def test_outer_samplers_by_name() -> None:
    assert isinstance(meta.make_outer("pso", 30, 0), PSOSampler)
    assert isinstance(meta.make_outer("random", 30, 0), optuna.samplers.RandomSampler)
    assert isinstance(meta.make_outer("tpe", 30, 0), optuna.samplers.TPESampler)
    with pytest.raises(ValueError, match="must be one of"):
        meta.make_outer("smac", 30, 0)


def test_random_scores_one_and_settings_change_the_score() -> None:
    # Random's own ratio is 1 by construction; PSO with c1 = c2 = 0 and w = 1 is a set of
    # straight lines, which differs from the paper's swarm.
    paper = meta.evaluate("pso", {"budget": None}, **TINY)  # type: ignore[arg-type]
    lines = meta.evaluate(
        "pso",
        {"c1": 0.0, "c2": 0.0, "inertia": (1.0, 0.0, 1.0)},
        **TINY,  # type: ignore[arg-type]
    )
    assert paper > 0 and lines > 0 and paper != lines


@pytest.mark.parametrize(
    "call",
    [
        lambda: meta.tune("tpe", n_trials=1),
        lambda: meta.tune("pso", n_trials=0),
        lambda: meta.tune("pso", n_trials=True),
        lambda: meta.evaluate("pso", {}, suite="nope"),
        lambda: meta.evaluate("pso", {}, functions=["nope"]),
        lambda: meta.settings_from_params("cmaes", {}),
    ],
)
def test_bad_arguments_are_one_line_errors(call: object) -> None:
    with pytest.raises(ValueError, match="must be|unknown"):
        call()  # type: ignore[operator]


def test_cli_prints_the_comparison(capsys: pytest.CaptureFixture[str]) -> None:
    meta.main(
        ["--dim", "2", "--budget", "10", "--seeds", "1", "--report-seeds", "1", "--trials", "2",
         "--report-suite", "nine"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert "tuned on nine by pso" in out
    for label in ("| paper |", "| paper + budget rule |", "| textbook |", "| tuned by pso |"):
        assert label in out


def test_cli_compares_outer_samplers(capsys: pytest.CaptureFixture[str]) -> None:
    meta.main(
        ["--sampler", "umda", "--dim", "2", "--budget", "10", "--seeds", "1", "--trials", "2",
         "--report-suite", "nine", "--outer", "random", "tpe", "--seed", "0", "1"]
    )  # fmt: skip
    out = capsys.readouterr().out
    for name in ("random", "tpe"):
        for seed in (0, 1):
            assert f"tuned on nine by {name} (seed {seed}, 2 outer trials)" in out
            assert f"| tuned by {name} (seed {seed}) |" in out
        assert f"| tuned by {name}, mean of 2 |" in out
    assert "by pso" not in out


def test_docstring_examples_run() -> None:
    from optuna_psms.benchmarks import bbob
    from tests.test_docstrings import _examples

    codes = _examples(meta.__doc__ or "")
    if importlib.util.find_spec("cocoex") is not None:
        codes += _examples(bbob.make_objective.__doc__ or "")
    assert codes
    for code in codes:
        exec(compile(code, "<docstring>", "exec"), {})


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--budget", "0"], "argument --budget: must be at least 1, got 0"),
        (["--dim", "x"], "argument --dim: expected a whole number, got 'x'"),
        (["--seeds", "-2"], "argument --seeds: must be at least 1, got -2"),
        (["--trials", "0"], "argument --trials: must be at least 1, got 0"),
    ],
)
def test_cli_rejects_bad_counts_in_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        meta.main(argv)
    assert exit_info.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == f"python -m optuna_psms.meta: error: {message}"
