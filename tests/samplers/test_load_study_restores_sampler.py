"""optuna_psms.load_study gives back the sampler a study was made with (issue 31, item 3)."""

from __future__ import annotations

import json
import os
from pathlib import Path
import subprocess
import sys
from typing import Any
import warnings

import optuna
import pytest

import optuna_psms
from optuna_psms.samplers._study_info import FORMAT_KEY
from optuna_psms.samplers._study_info import SAMPLER_KEY
from optuna_psms.samplers._study_info import SEED_KEY
from optuna_psms.samplers._study_info import SETTINGS_KEY
from tests.samplers import make
from tests.samplers import SAMPLERS


ROOT = Path(__file__).resolve().parents[2]


def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -3.0, 3.0)
    n = trial.suggest_int("n", 0, 8)
    c = trial.suggest_categorical("c", ["a", "b", "c"])
    return (x - 1.0) ** 2 + (n - 3) ** 2 + (0.0 if c == "b" else 1.0)


def _params(study: optuna.Study) -> list[dict[str, Any]]:
    return [t.params for t in study.get_trials(deepcopy=False)]


_CONTINUE = """
import json, sys, warnings
import optuna
import optuna_psms
from tests.samplers.test_load_study_restores_sampler import objective
optuna.logging.set_verbosity(optuna.logging.WARNING)
warnings.simplefilter("error", UserWarning)  # a restored sampler must not warn
out = {}
for name in json.loads(sys.argv[1]):
    study = optuna_psms.load_study(study_name=name, storage=sys.argv[2])
    study.optimize(objective, n_trials=15)
    out[name] = type(study.sampler).__name__
print(json.dumps(out))
"""


@pytest.mark.slow
def test_fifteen_then_fifteen_in_a_fresh_process_equal_thirty(tmp_path: Path) -> None:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    url = f"sqlite:///{tmp_path / 'studies.db'}"
    for name in SAMPLERS:
        study = optuna.create_study(study_name=name, storage=url, sampler=make(name, seed=3))
        study.optimize(objective, n_trials=15)
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run(
        [sys.executable, "-c", _CONTINUE, json.dumps(list(SAMPLERS)), url],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    classes = json.loads(done.stdout.strip().splitlines()[-1])
    for name in SAMPLERS:
        assert classes[name] == type(make(name)).__name__
        whole = optuna.create_study(sampler=make(name, seed=3))
        whole.optimize(objective, n_trials=30)
        resumed = optuna.load_study(study_name=name, storage=url)
        assert _params(resumed) == _params(whole), name


def test_restored_sampler_has_the_class_settings_and_seed() -> None:
    storage = optuna.storages.InMemoryStorage()
    sampler = optuna_psms.PSOSampler(
        swarm_size=4, topology="ring", inertia=(1.0, 0.4, 0.3), seed=9
    )
    study = optuna.create_study(study_name="s", storage=storage, sampler=sampler)
    study.optimize(objective, n_trials=2)
    again = optuna_psms.load_study(study_name="s", storage=storage)
    restored = again.sampler
    assert isinstance(restored, optuna_psms.PSOSampler)
    assert restored._seed == 9
    assert restored._settings == sampler._settings


def _study_with(attrs: dict[str, Any]) -> tuple[optuna.storages.BaseStorage, str]:
    storage = optuna.storages.InMemoryStorage()
    study = optuna.create_study(study_name="s", storage=storage)
    for key, value in attrs.items():
        study.set_user_attr(key, value)
    return storage, "s"


GOOD = {SAMPLER_KEY: "UMDASampler", SETTINGS_KEY: {"population_size": 10}, SEED_KEY: 4}


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({}, "not made by an optuna-psms sampler"),
        ({**GOOD, FORMAT_KEY: 2}, "newer optuna-psms"),
        ({**GOOD, FORMAT_KEY: "1"}, "malformed 'psms:format'"),
        ({**GOOD, SAMPLER_KEY: "os.system"}, "unknown sampler"),
        ({**GOOD, SAMPLER_KEY: ["PSOSampler"]}, "unknown sampler"),
        ({**GOOD, SETTINGS_KEY: "population_size=10"}, "malformed 'psms:settings'"),
        ({**GOOD, SETTINGS_KEY: {"population_size": 10, "warp": 1}}, "no setting 'warp'"),
        ({**GOOD, SETTINGS_KEY: {"population_size": "ten"}}, "settings are invalid"),
        ({**GOOD, SETTINGS_KEY: {"population_size": -1}}, "settings are invalid"),
        ({**GOOD, SEED_KEY: -1}, "malformed 'psms:seed'"),
        ({**GOOD, SEED_KEY: True}, "malformed 'psms:seed'"),
        ({**GOOD, SEED_KEY: None}, "malformed 'psms:seed'"),
    ],
)
def test_unreadable_attrs_are_a_one_line_error(attrs: dict[str, Any], message: str) -> None:
    storage, name = _study_with(attrs)
    with pytest.raises(ValueError, match=message) as info:
        optuna_psms.load_study(study_name=name, storage=storage)
    assert "\n" not in str(info.value)


def test_good_attrs_build_the_sampler() -> None:
    storage, name = _study_with(GOOD)
    sampler = optuna_psms.load_study(study_name=name, storage=storage).sampler
    assert isinstance(sampler, optuna_psms.UMDASampler)
    assert sampler._settings.population_size == 10


def test_another_sampler_or_settings_warns_once_per_sampler_and_study() -> None:
    storage = optuna.storages.InMemoryStorage()
    study = optuna.create_study(storage=storage, sampler=optuna_psms.UMDASampler(seed=1))
    study.optimize(objective, n_trials=2)
    for other in (
        optuna_psms.BUMDASampler(seed=1),
        optuna_psms.UMDASampler(seed=1, top_fraction=0.5),
    ):
        study.sampler = other
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            study.optimize(objective, n_trials=3)
        said = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
        assert len(said) == 1, said
        assert "another sampler or settings" in said[0]
    # The same sampler and settings again (only the display attrs differ): no warning.
    study.sampler = optuna_psms.UMDASampler(seed=1, top_fraction=0.5, record_user_attrs=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        study.optimize(objective, n_trials=2)
    assert not [w for w in caught if issubclass(w.category, UserWarning)]


@pytest.mark.slow  # 2.6 s at load 9.6 (SQLite commits of 3 threads; 28 Nov 2026)
def test_a_sqlite_url_opens_the_storage_whose_threads_take_a_trial_once(tmp_path: Path) -> None:
    from optuna_psms._compat._sqlite import SQLiteStorage

    url = f"sqlite:///{tmp_path / 's.db'}"
    study = optuna.create_study(study_name="s", storage=url, sampler=make("pso", seed=0))
    study.optimize(objective, n_trials=1)
    again = optuna_psms.load_study(study_name="s", storage=url)
    assert isinstance(getattr(again._storage, "_backend", again._storage), SQLiteStorage)
    for x in (0.5, 1.5, 2.5):
        again.enqueue_trial({"x": x, "n": 3, "c": "b"})
    again.optimize(objective, n_trials=6, n_jobs=3)
    xs = [t.params["x"] for t in again.trials]
    assert all(xs.count(x) == 1 for x in (0.5, 1.5, 2.5)) and len(xs) == 7


def test_an_unseeded_sampler_or_another_given_seed() -> None:
    storage = optuna.storages.InMemoryStorage()
    study = optuna.create_study(storage=storage, sampler=optuna_psms.PSOSampler(seed=1))
    study.optimize(objective, n_trials=2)
    for sampler, n_warnings in (
        (optuna_psms.PSOSampler(), 0),
        (optuna_psms.PSOSampler(seed=2), 1),
    ):
        study.sampler = sampler
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            study.optimize(objective, n_trials=2)
        said = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
        assert len(said) == n_warnings, said  # an unseeded one adopts the study's seed
