"""A model-selection study opens in optuna-dashboard with the sampler's and fms' attrs,
the sampler's study note and settings, a named objective and the published figures."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
import re
import subprocess
import sys
import threading
from typing import Any
import urllib.request
from wsgiref.simple_server import make_server
from wsgiref.simple_server import WSGIRequestHandler

import optuna
from optuna_dashboard import get_note
from optuna_dashboard import save_note
from optuna_dashboard import wsgi
import pytest
from sklearn.datasets import load_breast_cancer

import optuna_psms
from optuna_psms import FullModelSelector
from optuna_psms import FullModelSpace
from optuna_psms import PopulationSampler
from optuna_psms import PSOSampler
from optuna_psms import visualization
from optuna_psms.samplers import _study_info
from optuna_psms.visualization import publish
from tests import REPO
from tests.conftest import IN_CI
from tests.samplers import make
from tests.samplers import SAMPLERS


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_dashboard_serves_the_study_with_psms_and_fms_attrs(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path}/dash.db"
    X, y = load_breast_cancer(return_X_y=True)
    space = FullModelSpace(classifiers=["naive_bayes", "logistic"])
    FullModelSelector(
        final_check=None,
        space=space,
        sampler=PSOSampler(seed=0),
        n_trials=6,
        storage=url,
        study_name="dash",
        random_state=0,
    ).fit(X[:200], y[:200])
    saved = publish(optuna.load_study(study_name="dash", storage=url))

    storage = optuna.storages.RDBStorage(url)
    server = make_server("127.0.0.1", 0, wsgi(storage), handler_class=_Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_port}"
        with urllib.request.urlopen(f"{base}/api/studies", timeout=30) as response:
            studies = json.load(response)["study_summaries"]
        (summary,) = [s for s in studies if s["study_name"] == "dash"]
        with urllib.request.urlopen(
            f"{base}/api/studies/{summary['study_id']}", timeout=30
        ) as response:
            detail = json.load(response)
    finally:
        server.shutdown()
        server.server_close()
    trials = detail["trials"]
    assert len(trials) == 6
    for number, trial in enumerate(trials):
        attrs = {a["key"]: a["value"] for a in trial["user_attrs"]}
        assert attrs["psms:particle"] == str(number % 5)
        assert attrs["psms:iteration"] == str(number // 5)
        assert any(key.startswith("fms:") for key in attrs), attrs
    # What the dashboard shows on the study page: our figures, the note, the metric name.
    graphs = {g["id"]: json.loads(g["graph_object"]) for g in detail["plotly_graph_objects"]}
    assert (
        set(graphs)
        == set(saved)
        == {
            "psms-population",
            "psms-generations",
            "psms-model-choices",
            "psms-loss-by-method",
            "psms-choice-importances",
        }
    )
    assert graphs["psms-population"]["layout"]["title"]["text"] == (
        "Population of PSOSampler by iteration"
    )
    assert any(t.get("name") == "best so far" for t in graphs["psms-generations"]["data"])
    assert detail["note"]["body"].startswith(_study_info.NOTE_HEADING + " PSOSampler")
    assert "psms:particle" in detail["note"]["body"]
    assert detail["objective_names"] == ["CV BER"]
    study_attrs = {a["key"]: a["value"] for a in detail["user_attrs"]}
    assert study_attrs["psms:sampler"] == "PSOSampler"
    assert json.loads(study_attrs["psms:seed"]) == 0


def _objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -5, 5)
    return x**2 + trial.suggest_int("y", -3, 3) ** 2


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_study_attrs_rebuild_the_sampler_that_made_the_study(name: str) -> None:
    study = optuna.create_study(sampler=make(name, seed=None))  # an unseeded study
    study.optimize(_objective, n_trials=12)
    attrs = study.user_attrs
    cls: type[PopulationSampler] = getattr(optuna_psms, attrs["psms:sampler"])
    assert cls is type(study.sampler)
    rebuilt = cls(seed=attrs["psms:seed"], **attrs["psms:settings"])
    again = optuna.create_study(sampler=rebuilt)
    again.optimize(_objective, n_trials=12)
    assert [t.params for t in again.trials] == [t.params for t in study.trials]
    note = get_note(study)
    assert note.startswith(f"{_study_info.NOTE_HEADING} {attrs['psms:sampler']}")
    assert f"seed `{attrs['psms:seed']}`" in note


def test_a_users_own_note_is_kept() -> None:
    study = optuna.create_study(sampler=PSOSampler(seed=0))
    save_note(study, "my experiment")
    study.optimize(_objective, n_trials=3)
    assert get_note(study) == "my experiment"
    assert study.user_attrs["psms:sampler"] == "PSOSampler"


def test_the_held_out_paragraph_joins_our_note_once_and_never_a_users() -> None:
    study = optuna.create_study(sampler=PSOSampler(seed=0))
    study.optimize(_objective, n_trials=3)
    sampler_note = get_note(study)
    _study_info.note_held_out(study, "ber **0.1000** on 20 rows")
    _study_info.note_held_out(study, "ber **0.2000** on 20 rows")  # a rerun replaces it
    heading = _study_info.HELD_OUT_HEADING
    assert (
        get_note(study) == f"{sampler_note.rstrip()}\n\n{heading}\n\nber **0.2000** on 20 rows\n"
    )
    mine = optuna.create_study()
    save_note(mine, "my experiment")
    _study_info.note_held_out(mine, "ber **0.1000** on 20 rows")
    assert get_note(mine) == "my experiment"


def test_without_optuna_dashboard_the_attrs_are_still_written(monkeypatch: Any) -> None:
    monkeypatch.setitem(sys.modules, "optuna_dashboard", None)  # import fails
    study = optuna.create_study(sampler=PSOSampler(seed=3))
    study.optimize(_objective, n_trials=3)
    assert study.user_attrs["psms:seed"] == 3
    monkeypatch.undo()
    assert get_note(study) == ""


@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_the_note_is_written_without_importing_the_dashboard_app() -> None:
    # ``import optuna_dashboard`` costs its web app, scikit-learn and SciPy (1-2 s): the
    # first ask of a process writes the note through optuna-dashboard's note functions
    # alone. In a fresh process, so that no earlier test imported the package.
    code = (
        "import sys, optuna\n"
        "from optuna_psms import PSOSampler\n"
        "optuna.logging.set_verbosity(optuna.logging.WARNING)\n"
        "study = optuna.create_study(sampler=PSOSampler(seed=0))\n"
        "study.optimize(lambda t: t.suggest_float('x', -1, 1) ** 2, n_trials=2)\n"
        "print('optuna_dashboard' in sys.modules, 'sklearn' in sys.modules)\n"
        "from optuna_dashboard import get_note\n"
        "print(get_note(study).splitlines()[0])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.splitlines()
    assert out[0] == "False False"
    assert out[1].startswith(_study_info.NOTE_HEADING) and "PSOSampler" in out[1]


def test_study_info_is_read_once_per_study() -> None:
    storage = optuna.storages.InMemoryStorage()
    calls = []
    original = storage.get_study_user_attrs

    def counting(study_id: int) -> dict[str, Any]:
        calls.append(study_id)
        return original(study_id)

    storage.get_study_user_attrs = counting  # type: ignore[method-assign]
    study = optuna.create_study(storage=storage, sampler=PSOSampler(seed=0))
    study.optimize(_objective, n_trials=2)
    first = len(calls)
    study.optimize(_objective, n_trials=20)
    assert first >= 1 and len(calls) == first


def test_a_study_attr_is_written_once_per_study_and_never_from_a_fixed_trial() -> None:
    storage = optuna.storages.InMemoryStorage()
    writes = []
    original = storage.set_study_user_attr

    def counting(study_id: int, key: str, value: Any) -> None:
        writes.append((study_id, key))
        original(study_id, key, value)

    storage.set_study_user_attr = counting  # type: ignore[method-assign]
    study = optuna.create_study(storage=storage)
    other = optuna.create_study(storage=storage)
    for _ in range(3):
        _study_info.study_attr_once(study.ask(), "fms:mask_rule", "rule")
    _study_info.study_attr_once(other.ask(), "fms:mask_rule", "rule")
    _study_info.study_attr_once(optuna.trial.FixedTrial({}), "fms:mask_rule", "ignored")
    assert study.user_attrs == other.user_attrs == {"fms:mask_rule": "rule"}
    assert writes == [(study._study_id, "fms:mask_rule"), (other._study_id, "fms:mask_rule")]


def _screenshots() -> Any:
    """docs/screenshots.py, whose helpers drive headless Chromium."""
    path = REPO / "docs" / "screenshots.py"
    spec = importlib.util.spec_from_file_location("psms_screenshots", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tag(dom: str, element_id: str) -> str:
    match = re.search(rf'<div[^>]*id="{re.escape(element_id)}"[^>]*>', dom)
    assert match is not None, f"no element {element_id!r} in the page"
    return match.group(0)


@pytest.mark.slow
def test_chromium_shows_the_published_figures_and_the_note(tmp_path: Path) -> None:
    shots = _screenshots()
    chromium = shots.find_chromium()
    if chromium is None:
        message = "chromium is not installed (apt-get install -y chromium)"
        if IN_CI:
            pytest.fail(f"{message}, and CI=true requires it.")
        pytest.skip(message)
    url = f"sqlite:///{tmp_path}/browser.db"
    shots.make_study(url, "browser", n_trials=4)  # optuna-psms select, PSO
    study_id = shots.study_id(url, "browser")
    with shots.serve(url) as base:
        page = shots.render(chromium, f"{base}/dashboard/studies/{study_id}", budget_ms=10_000)
        note = shots.render(
            chromium, f"{base}/dashboard/studies/{study_id}/note", budget_ms=10_000
        )
        trial = shots.render(
            chromium, f"{base}/dashboard/studies/{study_id}/trials?numbers=0", budget_ms=10_000
        )
    for graph_id in visualization.FIGURES:
        # plotly.js has drawn into the dashboard's box for the figure.
        assert "js-plotly-plot" in _tag(page, f"user-defined-plot:{graph_id}"), graph_id
    for title in (
        "Population of PSOSampler by iteration",
        "Generations of PSOSampler",
        "Model choices over the trials (PSOSampler)",
        "BER by method (PSOSampler)",
    ):
        assert title in page
    assert "optuna-psms: PSOSampler</h2>" in note
    assert "Particle swarm optimisation" in note
    # The trial page lists the parameters as stored: the model first (docs/dashboard.md).
    assert trial.index(">clf:method ") < trial.index(">pre:normalize ")
    assert trial.index(">fms:pipeline ") < trial.index(">psms:iteration ")
