"""Quiet by default (issue 9, item 6): no per-trial lines, no flood of warnings."""

from __future__ import annotations

from collections.abc import Iterator
import logging
import os
import re
import subprocess
import sys
import textwrap
from typing import Any
import warnings

import numpy as np
import optuna
import pytest
from sklearn.datasets import load_iris

from optuna_psms.fms import Component
from optuna_psms.fms import FullModelSelector
from optuna_psms.fms import FullModelSpace
from tests import REPO


DOC = REPO / "docs" / "full_model_selection.md"
SPACE = FullModelSpace(
    classifiers=["naive_bayes", "logistic"], selectors=["none", "ftest"], preprocessors=[]
)


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def lines(self, level: int) -> list[str]:
        return [r.getMessage() for r in self.records if r.levelno == level]


@pytest.fixture
def optuna_log() -> Iterator[_Records]:
    """Optuna's log records (its root logger does not propagate), at Optuna's default INFO."""
    handler = _Records()
    loggers = [logging.getLogger("optuna"), logging.getLogger("optuna_psms")]
    previous = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.INFO)  # Optuna's default in a fresh process
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield handler
    finally:
        for logger in loggers:
            logger.removeHandler(handler)
        optuna.logging.set_verbosity(previous)


@pytest.mark.parametrize("sampler", [None, "cmaes", "tpe"])
def test_fit_logs_no_trial_lines_by_default(optuna_log: _Records, sampler: str | None) -> None:
    X, y = load_iris(return_X_y=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = FullModelSelector(
            final_check=None, space=SPACE, sampler=sampler, n_trials=6, random_state=0
        )
        model.fit(X, y)
    assert optuna_log.records == []
    # 6 trials, a vote of up to 10: the one warning says that the vote holds them all.
    assert [str(w.message) for w in caught if "the vote holds all" not in str(w.message)] == []
    assert optuna.logging.get_verbosity() == optuna.logging.INFO  # restored


def test_verbose_one_logs_each_trial(optuna_log: _Records) -> None:
    X, y = load_iris(return_X_y=True)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    FullModelSelector(final_check=None, space=SPACE, sampler="random", n_trials=4, verbose=1).fit(
        X, y
    )
    finished = [m for m in optuna_log.lines(logging.INFO) if re.match(r"Trial \d+ finished", m)]
    assert len(finished) == 4
    assert optuna.logging.get_verbosity() == optuna.logging.ERROR  # restored


def _nothing(trial: Any) -> dict[str, Any]:
    return {}


def _fails(params: Any) -> Any:
    raise ValueError("cannot build this one")


def test_failed_trials_still_warn_by_default(optuna_log: _Records) -> None:
    X, y = load_iris(return_X_y=True)
    space = FullModelSpace(
        classifiers=[Component("bad", "classifier", _nothing, _fails), "naive_bayes"],
        selectors=[],
        preprocessors=[],
    )
    model = FullModelSelector(
        final_check=None, space=space, sampler="random", n_trials=8, random_state=0
    )
    model.fit(X, y)
    failed = [t for t in model.study_.trials if t.state == optuna.trial.TrialState.FAIL]
    assert failed  # the seed makes some trials pick the broken classifier
    warned = optuna_log.lines(logging.WARNING)
    assert any("cannot build this one" in m for m in warned)
    assert optuna_log.lines(logging.INFO) == []


def test_verbose_is_validated() -> None:
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="verbose must be a non-negative int; got -1"):
        FullModelSelector(final_check=None, space=SPACE, n_trials=1, verbose=-1).fit(X, y)


@pytest.mark.slow  # > 2 s: the default suite stays under 5 min (2026-11-28)
def test_fresh_process_prints_nothing_but_the_result() -> None:
    # A user's first run: Optuna at its default verbosity, no test-suite settings.
    code = textwrap.dedent(
        """
        from sklearn.datasets import load_iris
        from optuna_psms.fms import FullModelSelector, FullModelSpace
        X, y = load_iris(return_X_y=True)
        space = FullModelSpace(classifiers=["naive_bayes", "logistic"])
        model = FullModelSelector(space=space, n_trials=5, random_state=0).fit(X, y)
        print("done", len(model.study_.trials))
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert done.stdout == "done 5\n"
    # Nothing but the warning that the default vote of 10 holds all 5 trials (one of them at
    # chance level in this example: usertrial6, item 4).
    (line,) = done.stderr.splitlines()
    assert "UserWarning: the vote holds all 5 distinct complete pipelines" in line


def _doc_snippets(word: str) -> list[str]:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    return [b for b in blocks if word in b and "load_breast_cancer" in b]


@pytest.mark.parametrize(
    "snippet",
    _doc_snippets("make_objective(X, y"),
    ids=lambda s: "cmaes" if "CmaEs" in s else "tpe",
)
def test_documented_objective_snippets_do_not_flood(snippet: str, optuna_log: _Records) -> None:
    code = re.sub(r"n_trials=\d+", "n_trials=6", snippet)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(code, str(DOC), "exec"), {"__name__": "__doc_snippet__"})
    assert optuna_log.lines(logging.WARNING) == []
    assert [r for r in optuna_log.records if r.getMessage().startswith("Trial ")] == []
    assert [str(w.message) for w in caught] == []


def test_the_cmaes_fallback_is_what_the_docs_say(optuna_log: _Records) -> None:
    # Without warn_independent_sampling=False, CMA-ES warns for every parameter of every
    # trial: none of them is a float/int present in all trials. The docs explain this;
    # this test checks the explanation (and that the snippets' silencing is needed).
    snippet = next(s for s in _doc_snippets("make_objective(X, y") if "CmaEs" in s)
    code = re.sub(r"n_trials=\d+", "n_trials=6", snippet)
    code = code.replace(", warn_independent_sampling=False", "")
    namespace: dict[str, Any] = {"__name__": "__doc_snippet__"}
    exec(compile(code, str(DOC), "exec"), namespace)
    study = namespace["study"]
    n_params = sum(len(t.params) for t in study.trials[1:])  # trial 0 has no history
    warned = [m for m in optuna_log.lines(logging.WARNING) if "sampled independently" in m]
    assert len(warned) == n_params > 0
    assert np.isfinite(study.best_value)
