"""Publishing figures while a study runs: PublishCallback, select and compare --publish-every."""

from __future__ import annotations

import threading
from typing import Any
import warnings

import optuna
from optuna.trial import TrialState
import pytest


pytest.importorskip("plotly")
pytest.importorskip("optuna_dashboard")

from optuna_dashboard._custom_plot_data import get_plotly_graph_objects

from optuna_psms import PSOSampler
from optuna_psms import visualization
from optuna_psms.cli import main
from optuna_psms.visualization import PublishCallback


def _objective(trial: optuna.Trial) -> float:
    return sum(trial.suggest_float(f"x{i}", -5, 5) ** 2 for i in range(2))


def _recorder(monkeypatch: Any) -> list[tuple[str, int]]:
    """Replace ``visualization.publish`` by a recorder of (study, COMPLETE trials then)."""
    calls: list[tuple[str, int]] = []

    def publish(study: optuna.Study) -> list[str]:
        done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        calls.append((study.study_name, len(done)))
        return []

    monkeypatch.setattr(visualization, "publish", publish)
    return calls


def test_publishes_every_n_trials_into_the_dashboard(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'p.db'}"
    study = optuna.create_study(study_name="p", storage=url, sampler=PSOSampler(seed=0))
    callback = PublishCallback(every=5, min_interval=0)
    study.optimize(_objective, n_trials=12, callbacks=[callback])
    assert callback.published == [4, 9]
    storage = optuna.storages.RDBStorage(url)
    figures = get_plotly_graph_objects(storage.get_study_system_attrs(study._study_id))
    assert {"psms-population", "psms-generations"} <= set(figures)


def test_each_milestone_is_published_by_one_worker_only(monkeypatch: Any) -> None:
    calls = _recorder(monkeypatch)
    storage = optuna.storages.InMemoryStorage()
    optuna.create_study(study_name="w", storage=storage)
    callbacks = [PublishCallback(every=4, min_interval=0) for _ in range(3)]

    def worker(callback: PublishCallback) -> None:
        study = optuna.load_study(study_name="w", storage=storage)
        study.optimize(_objective, n_trials=8, callbacks=[callback])

    threads = [threading.Thread(target=worker, args=(c,)) for c in callbacks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # 24 trials: milestones after trials 3, 7, ..., 23, each published by whichever
    # worker finished that trial, and by no other.
    assert sorted(n for c in callbacks for n in c.published) == [3, 7, 11, 15, 19, 23]
    assert len(calls) == 6


def test_min_interval_skips_milestones(monkeypatch: Any) -> None:
    calls = _recorder(monkeypatch)
    study = optuna.create_study()
    callback = PublishCallback(every=2, min_interval=1e9)
    study.optimize(_objective, n_trials=8, callbacks=[callback])
    assert callback.published == [1] and len(calls) == 1


def test_a_failing_publication_warns_once_and_the_study_goes_on(monkeypatch: Any) -> None:
    def broken(study: optuna.Study) -> list[str]:
        raise ImportError("publish needs optuna-dashboard: pip install optuna-dashboard")

    monkeypatch.setattr(visualization, "publish", broken)
    study = optuna.create_study()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        study.optimize(
            _objective, n_trials=9, callbacks=[PublishCallback(every=2, min_interval=0)]
        )
    ours = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(ours) == 1 and "pip install optuna-dashboard" in str(ours[0].message)
    assert [t.state for t in study.trials] == [TrialState.COMPLETE] * 9


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"every": 0}, "every must be a positive integer"),
        ({"every": 2.5}, "every must be a positive integer"),
        ({"every": 3, "min_interval": -1}, "min_interval must be >= 0"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PublishCallback(**kwargs)


def test_compare_publishes_while_running(tmp_path: Any, capsys: Any, monkeypatch: Any) -> None:
    calls = _recorder(monkeypatch)
    url = f"sqlite:///{tmp_path / 'c.db'}"
    argv = ["compare", "--function", "sphere", "--dim", "2", "--samplers", "random"]
    argv += ["--baseline", "none", "--seeds", "2", "--n-trials", "3", "--storage", url]
    argv += ["--publish-every", "2", "--n-workers", "1", "--report", "none"]
    assert main([*argv, "--no-progress-bar"]) == 0, capsys.readouterr().err
    # Per study: after its second trial (the milestone), then at the end.
    for seed in (0, 1):
        assert [n for s, n in calls if s == f"sphere-d2/random/seed{seed}"] == [2, 3]


@pytest.mark.parametrize(
    ("every", "expected"),
    [
        # The milestone is trial 2, published once it is stored (trials 0 to 2 in the
        # study, as FullModelSelector's callbacks see it); then the final publication.
        ("3", [("s", 3), ("s", 4)]),
        ("0", [("s", 4)]),  # only at the end
    ],
)
def test_select_publishes_while_running(
    every: str, expected: list[tuple[str, int]], tmp_path: Any, capsys: Any, monkeypatch: Any
) -> None:
    calls = _recorder(monkeypatch)
    url = f"sqlite:///{tmp_path / 's.db'}"
    argv = ["select", "--dataset", "sklearn:iris", "--sampler", "pso", "--n-trials", "4"]
    argv += ["--seed", "0", "--storage", url, "--study-name", "s"]
    argv += ["--output", str(tmp_path / "m.joblib"), "--classifiers", "naive_bayes"]
    argv += ["--publish-every", every, "--no-progress-bar"]
    assert main(argv) == 0, capsys.readouterr().err
    assert calls == expected
    # The sampler is the study's own (no wrapper): its study attrs are there.
    study = optuna.load_study(study_name="s", storage=url)
    assert study.user_attrs["psms:sampler"] == "PSOSampler"
