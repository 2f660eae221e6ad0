"""The PSMS Tables 6-7 ablation script (docs/reproduce/psms_ablation.py), end to end at a tiny
size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from optuna_psms import PSOSampler


# The docs script end to end (a reproduction command of docs/reproduce/reproductions.md on a small
# setting): in the slow set, which .ci/run runs, to keep the README's test command under
# five minutes.
pytestmark = pytest.mark.slow


DOCS = Path(__file__).parent


@pytest.fixture
def ablation(monkeypatch: pytest.MonkeyPatch) -> Any:
    import psms_ablation

    return psms_ablation


def test_variants_are_the_papers_settings(ablation: Any) -> None:
    paper = PSOSampler(seed=0, **ablation.VARIANTS["paper"])._settings
    assert (paper.swarm_size, paper.c1, paper.c2) == (5, 2.0, 2.0)
    assert paper.inertia == (1.2, 0.5, 0.4) and paper.n_iterations == 50
    assert paper.topology == "global"
    for name, (w, c1, c2, m) in {
        "W=(0,0,0)": ((0.0, 0.0, 0.0), 2.0, 2.0, 5),
        "W=(1,0,1)": ((1.0, 0.0, 1.0), 2.0, 2.0, 5),
        "c1=0,c2=2": ((1.2, 0.5, 0.4), 0.0, 2.0, 5),
        "c1=2,c2=0": ((1.2, 0.5, 0.4), 2.0, 0.0, 5),
        "m=20": ((1.2, 0.5, 0.4), 2.0, 2.0, 20),
    }.items():
        s = PSOSampler(seed=0, **ablation.VARIANTS[name])._settings
        assert (s.inertia, s.c1, s.c2, s.swarm_size) == (w, c1, c2, m), name
    assert set(ablation.DEFAULT_VARIANTS) <= set(ablation.VARIANTS)


def test_bad_variant_is_refused(ablation: Any) -> None:
    with pytest.raises(SystemExit):
        ablation.main(["--variants", "paper", "--variant", "c1=0.5"])


@pytest.mark.slow
def test_tiny_run_passes_each_variant_to_the_sampler(
    ablation: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    made: list[dict[str, Any]] = []

    class Recording(PSOSampler):
        def __init__(self, **kwargs: Any) -> None:
            made.append(kwargs)
            super().__init__(**kwargs)

    monkeypatch.setattr(ablation, "PSOSampler", Recording)
    rows = ablation.main(
        ["--sets", "heart", "--seeds", "1", "--trials", "6", "--variants", "paper", "m=20"]
        + ["--variant", 'half={"c1": 0.5, "c2": 1.5}']
    )
    assert made == [{"seed": 0}, {"seed": 0, "swarm_size": 20}, {"seed": 0, "c1": 0.5, "c2": 1.5}]
    assert [r["variant"] for r in rows] == ["paper", "m=20", "half"]
    for r in rows:
        assert r["set"] == "heart" and r["seed"] == 0 and r["trials"] == 6
        assert isinstance(r["study"].sampler, Recording)
        assert 0.0 <= r["test"] <= 100.0 and 0.0 <= r["cv"] <= 100.0
        assert r["cv"] <= r["mean_cv"] + 1e-9  # the pick is the best finished trial
    # The swarm size reaches the search: 6 trials are particles 0-4, 0 with 5 particles and
    # particles 0-5 with 20.
    particles = [
        sorted({t.user_attrs["psms:particle"] for t in r["study"].trials}) for r in rows[:2]
    ]
    assert particles == [[0, 1, 2, 3, 4], [0, 1, 2, 3, 4, 5]]
    assert rows[0]["pick_iteration"] in (0, 1) and rows[1]["pick_iteration"] == 0
    out = capsys.readouterr().out
    for v in ("paper", "m=20", "half"):
        assert out.count(f"heart seed=0 {v}: test BER") == 1
        assert f"| {v} | " in out
    assert "paper vs half: W/T/L" in out
