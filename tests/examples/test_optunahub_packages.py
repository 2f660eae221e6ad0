"""The OptunaHub packages of examples/optunahub/ load as OptunaHub loads a local registry and
run 20 trials; their READMEs carry the registry's front matter (issue 31, item 8)."""

from __future__ import annotations

import os
from pathlib import Path
import runpy
from typing import Any

import optuna
from optuna.trial import TrialState
import optunahub
import pytest
import yaml

import optuna_psms


REGISTRY = Path(__file__).resolve().parents[2] / "examples" / "optunahub"

#: Package folder -> the optuna-psms class it publishes.
PACKAGES = {
    "psms_pso": optuna_psms.PSOSampler,
    "psms_pattern_search": optuna_psms.PatternSearchSampler,
    "psms_focused_grid": optuna_psms.FocusedGridSampler,
    "psms_umda": optuna_psms.UMDASampler,
    "psms_bumda": optuna_psms.BUMDASampler,
    "psms_dynamic_random": optuna_psms.DynamicRandomSampler,
}


def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -5.0, 5.0)
    n = trial.suggest_int("n", 1, 10)
    kind = trial.suggest_categorical("kind", ["square", "abs"])
    return (x - 1.0) ** 2 + (n - 3) ** 2 if kind == "square" else abs(x - 1.0) + abs(n - 3)


def test_every_package_folder_is_listed() -> None:
    assert sorted(os.listdir(REGISTRY / "samplers")) == sorted(PACKAGES)


@pytest.mark.parametrize("name", list(PACKAGES))
def test_the_package_loads_locally_and_runs_20_trials(name: str) -> None:
    module = optunahub.load_local_module(package=f"samplers/{name}", registry_root=str(REGISTRY))
    cls = PACKAGES[name]
    sampler = getattr(module, cls.__name__)(seed=0)
    assert type(sampler) is cls and module.load_study is optuna_psms.load_study
    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=20)
    assert [t.state for t in study.trials] == [TrialState.COMPLETE] * 20


def _front_matter(text: str) -> dict[str, Any]:
    head, sep, _ = text.partition("\n---\n")
    assert text.startswith("---\n") and sep, "the README must open with --- front matter ---"
    matter = yaml.safe_load(head[len("---\n") :])
    assert isinstance(matter, dict)
    return matter


@pytest.mark.parametrize("name", list(PACKAGES))
def test_the_readme_and_files_follow_the_registry_format(name: str) -> None:
    folder = REGISTRY / "samplers" / name
    for file in ("__init__.py", "README.md", "example.py", "requirements.txt", "LICENSE"):
        assert (folder / file).is_file(), file
    assert (folder / "requirements.txt").read_text().split() == ["optuna-psms"]
    assert (folder / "LICENSE").read_text().startswith("MIT License")
    text = (folder / "README.md").read_text()
    matter = _front_matter(text)
    keys = ["author", "title", "description", "tags", "optuna_versions", "license"]
    assert list(matter) == keys
    assert all(isinstance(matter[k], str) for k in ("author", "title", "description"))
    assert "sampler" in matter["tags"] and matter["license"] == "MIT License"
    assert "5.0.0" in [str(v) for v in matter["optuna_versions"]]
    # One fact, one place: the description is the class docstring's summary line.
    cls = PACKAGES[name]
    assert cls.__doc__ is not None
    assert matter["description"] == cls.__doc__.strip().splitlines()[0]
    for section in ("## Abstract", "## APIs", "## Installation", "## Example"):
        assert f"\n{section}\n" in text, section
    assert f'optunahub.load_module(package="samplers/{name}")' in text
    # The README's example is example.py's code (what runs in CI is what the page shows).
    code = (folder / "example.py").read_text().split("from __future__ import annotations\n\n")[1]
    assert f"## Example\n\n```python\n{code}```\n" in text


@pytest.mark.parametrize("name", list(PACKAGES))
def test_the_example_runs_with_the_local_registry(
    name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def local(package: str, **_: Any) -> Any:
        return optunahub.load_local_module(package=package, registry_root=str(REGISTRY))

    monkeypatch.setattr(optunahub, "load_module", local)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    runpy.run_path(str(REGISTRY / "samplers" / name / "example.py"), run_name="__main__")
    assert capsys.readouterr().out.strip()
