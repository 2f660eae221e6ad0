"""Every ``.. testcode::`` example in a public docstring runs."""

from __future__ import annotations

import inspect
import re
import textwrap
from typing import Any

import pytest

import optuna_psms


def _public_objects() -> list[tuple[str, Any]]:
    objects: list[tuple[str, Any]] = []
    modules = [optuna_psms]
    try:
        import optuna_psms.fms as fms

        modules.append(fms)
    except ImportError:  # pragma: no cover - fms is part of the package
        pass
    seen: set[int] = set()  # an object exported by both modules is run once
    for module in modules:
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and id(obj) not in seen:
                seen.add(id(obj))
                objects.append((f"{module.__name__}.{name}", obj))
    return objects


def _examples(doc: str) -> list[str]:
    blocks = []
    lines = doc.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == ".. testcode::":
            indent = len(line) - len(line.lstrip())
            body = []
            for nxt in lines[i + 1 :]:
                if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= indent:
                    break
                body.append(nxt)
            blocks.append(textwrap.dedent("\n".join(body)))
    return blocks


CASES = [
    pytest.param(code, id=f"{name}[{i}]")
    for name, obj in _public_objects()
    for i, code in enumerate(_examples(inspect.getdoc(obj) or ""))
]


def test_every_public_sampler_has_an_example() -> None:
    names = {name for name, obj in _public_objects() if name.endswith("Sampler")}
    with_examples = {
        name
        for name, obj in _public_objects()
        if name.endswith("Sampler") and _examples(inspect.getdoc(obj) or "")
    }
    assert names - {"optuna_psms.PopulationSampler"} <= with_examples


@pytest.mark.parametrize("code", CASES)
def test_example_runs(code: str) -> None:
    assert re.search(r"\S", code)
    exec(compile(code, "<docstring example>", "exec"), {"__name__": "__example__"})
