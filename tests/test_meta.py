"""optuna_psms.meta on tiny budgets: the outer study, the settings it produces, the score."""

from __future__ import annotations

import importlib.util

import optuna
import pytest

from optuna_psms import meta
from optuna_psms import PSOSampler
from optuna_psms import UMDASampler


TINY = {"suite": "nine", "dim": 2, "budget": 12, "seeds": 1, "functions": ["sphere", "step"]}


def test_tune_pso_searches_its_space_with_a_package_sampler() -> None:
    study = meta.tune("pso", n_trials=4, seed=0, **TINY)  # type: ignore[arg-type]
    assert len(study.trials) == 4
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    assert isinstance(study.sampler, PSOSampler)
    params = study.best_params
    assert set(params) == {"c1", "c2", "w_start", "w_end", "swarm_size"}
    assert 3 <= params["swarm_size"] <= 40 and 0.0 <= params["c1"] <= 3.0
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
    assert "tuned on nine" in out
    for label in ("| paper |", "| paper + budget rule |", "| textbook |", "| tuned |"):
        assert label in out


def test_docstring_examples_run() -> None:
    from optuna_psms.benchmarks import bbob
    from tests.test_docstrings import _examples

    codes = _examples(meta.__doc__ or "")
    if importlib.util.find_spec("cocoex") is not None:
        codes += _examples(bbob.make_objective.__doc__ or "")
    assert codes
    for code in codes:
        exec(compile(code, "<docstring>", "exec"), {})
