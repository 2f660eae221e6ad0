"""``optuna-psms select`` as one of several workers of a study: what it reports after its
search when other workers' trials finished in the meantime, and its first line.

The interleaving is made deterministic in one process: the search of "this worker" is
followed, before its report, by the trials of "another worker" (a second search on the same
storage and study), which is what happens when another process's trials finish later.
"""

from __future__ import annotations

from typing import Any

import joblib
import numpy as np
import optuna
import pandas as pd
import pytest

from optuna_psms.cli import main
from optuna_psms.fms import _select_steps as steps


def _write_csv(path: Any, n: int = 80) -> None:
    rng = np.random.default_rng(0)
    label = rng.choice(["yes", "no"], n)
    pd.DataFrame(
        {
            "size": rng.normal(size=n) + 1.0 * (label == "yes"),
            "weight": rng.normal(size=n),
            "label": label,
        }
    ).to_csv(path, index=False)


def _argv(tmp_path: Any, n_trials: int, *extra: str) -> list[str]:
    return [
        "select",
        "--csv",
        str(tmp_path / "data.csv"),
        "--target",
        "label",
        "--sampler",
        "random",
        # logistic only: its C is continuous, so every trial is a distinct pipeline.
        "--classifiers",
        "logistic",
        "--selectors",
        "none",
        "--initial-pipelines",
        "none",
        "--seed",
        "3",
        "--n-trials",
        str(n_trials),
        "--storage",
        f"sqlite:///{tmp_path}/w.db",
        "--study-name",
        "w",
        "--no-progress-bar",
        *extra,
    ]


def _other_worker_after_the_search(monkeypatch: pytest.MonkeyPatch, n_trials: int) -> None:
    """After this worker's search, ``n_trials`` trials of another worker complete in the
    study: distinct pipelines (another ``C``) worse than this worker's best, so the chosen
    trial stays the same while the vote of the best 10 grows."""
    real = steps.search

    def search(model: Any, X: Any, y: Any) -> bool:
        interrupted = real(model, X, y)
        study = optuna.load_study(study_name=model.study_name, storage=model.storage)
        done = study.get_trials(states=(optuna.trial.TrialState.COMPLETE,))
        worst = max(t.values[0] for t in done)
        for k in range(n_trials):
            source = done[k % len(done)]
            params = {**source.params, "clf:logistic:C": source.params["clf:logistic:C"] * 1.5}
            study.add_trial(
                optuna.trial.create_trial(
                    params=params,
                    distributions=source.distributions,
                    value=min(worst + 0.01 * (k + 1), 1.0),
                    user_attrs=source.user_attrs,
                )
            )
        return interrupted

    monkeypatch.setattr(steps, "search", search)


@pytest.mark.parametrize("check", ["svc", "none"])
@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_report_describes_the_saved_vote_after_other_workers_trials(
    check: str, tmp_path: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two PostgreSQL workers listed and saved the same vote but printed different final
    # check and held-out figures (usertrial6, item 9): each printed those of the vote at the
    # end of its own search, before the other's later trials joined the vote.
    _write_csv(tmp_path / "data.csv")
    _other_worker_after_the_search(monkeypatch, 3)
    path = tmp_path / "m.joblib"
    code = main([*_argv(tmp_path, 3, "--final-check", check), "--output", str(path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    study = optuna.load_study(study_name="w", storage=f"sqlite:///{tmp_path}/w.db")
    assert len(study.trials) == 6
    saved = joblib.load(path)
    # The vote of all 6 distinct trials (--ensemble-top 10), not the 3 of this worker's search.
    if check == "svc":
        voters = saved.final_check_["trials"]
        line = next(s for s in out.splitlines() if s.startswith("final check"))
        assert "vote of 6 = " in line
        from optuna_psms.fms._final_check import describe

        assert line == describe(saved.final_check_)
        assert saved.final_check_["rows"] == 60  # the search rows, as printed
    else:
        voters = [t.number for t in saved.ensemble_trials_]
        assert "final check" not in out
    assert sorted(voters) == list(range(6))
    held = next(s for s in out.splitlines() if s.startswith("held-out ber"))
    if saved.final_choice_ == "vote":
        assert "; the vote of 6 pipelines)" in held
        assert study.user_attrs["fms:held_out"]["vote_of_trials"] == voters
    else:
        assert "; the grid-tuned SVC the final check chose)" in held


def test_saved_choice_is_the_printed_check_when_another_worker_stored_its_own(
    tmp_path: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another worker whose search ended earlier stores its check (of its own vote) after
    # this worker's: the save must keep the check printed, not check again on all the rows.
    _write_csv(tmp_path / "data.csv")
    real = steps.search

    def search(model: Any, X: Any, y: Any) -> bool:
        interrupted = real(model, X, y)
        study = optuna.load_study(study_name=model.study_name, storage=model.storage)
        other = {**study.user_attrs["fms:final_check"], "trials": [0], "rows": 59}
        study.set_user_attr("fms:final_check", other)
        return interrupted

    monkeypatch.setattr(steps, "search", search)
    path = tmp_path / "m.joblib"
    code = main([*_argv(tmp_path, 3), "--output", str(path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    saved = joblib.load(path)
    line = next(s for s in out.splitlines() if s.startswith("final check"))
    from optuna_psms.fms._final_check import describe

    assert line == describe(saved.final_check_)
    assert sorted(saved.final_check_["trials"]) == [0, 1, 2]
    assert saved.final_check_["rows"] == 60


def test_ctrl_c_in_the_dashboard_figures_says_the_model_was_saved(
    tmp_path: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A Ctrl-C after the save, while the figures were written, printed a bare
    # "optuna-psms: interrupted" (usertrial6, item 7): the user was not told of the model.
    _write_csv(tmp_path / "data.csv")

    def publish(study: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(steps, "publish", publish)
    path = tmp_path / "m.joblib"
    code = main([*_argv(tmp_path, 2, "--final-check", "none"), "--output", str(path)])
    out, err = capsys.readouterr()
    assert code == 130 and path.exists()
    assert f"saved to {path}" in out
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"optuna-psms: interrupted after the model was saved to {path}: ")
    assert ": the dashboard figures were not written (optuna-dashboard sqlite:///" in last
    # The line's Python command runs publish on the study (which figures apply is
    # test_visualization_publish's business).
    import shlex

    from optuna_psms import visualization

    published: list[Any] = []
    monkeypatch.setattr(visualization, "publish", published.append)
    exec(shlex.split(last.split("to write them: python -c ", 1)[1].rstrip(")"))[0], {})
    assert [(s.study_name, len(s.trials)) for s in published] == [("w", 2)]


@pytest.mark.parametrize("running", [True, False])
def test_first_line_of_a_worker_joining_a_study_in_progress(
    running: bool, tmp_path: Any, capsys: Any
) -> None:
    # A worker started a moment after another said "continued (4 trials so far, 0 complete)"
    # of the other's enqueued initial pipelines, which read as a resumed old study
    # (usertrial6, item 14).
    _write_csv(tmp_path / "data.csv")
    argv = [*_argv(tmp_path, 1, "--final-check", "none"), "--output", str(tmp_path / "m.joblib")]
    assert main(argv) == 0
    assert ", continued (" not in capsys.readouterr()[0].splitlines()[0]
    assert main(argv) == 0  # a rerun: continued
    first = capsys.readouterr()[0].splitlines()[0]
    assert first.endswith(
        f"study 'w' in sqlite:///{tmp_path}/w.db, continued (1 trial so far, 1 complete)"
    )
    # Another worker in progress: one trial running (when `running`), two enqueued.
    study = optuna.load_study(study_name="w", storage=f"sqlite:///{tmp_path}/w.db")
    done = study.trials[0]
    if running:
        study.ask()  # before the enqueued trials, which ask would run first
    for factor in (2.0, 3.0):
        C = done.params["clf:logistic:C"] * factor
        study.enqueue_trial({**done.params, "clf:logistic:C": C})
    assert main(argv) == 0
    first = capsys.readouterr()[0].splitlines()[0]
    if running:
        expected = (
            "joined while another worker runs (5 trials so far: 2 complete, 1 running, 2 waiting)"
        )
    else:
        expected = "joined (4 trials so far: 2 complete, 2 waiting)"
    assert first.endswith(f", {expected}")
