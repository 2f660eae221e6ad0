"""Optuna's private API is used only inside ``optuna_psms/_compat/``.

An Optuna upgrade that moves an internal should break one package and ``test_compat.py``,
not the samplers. This scans the source of every other module for imports of Optuna's
private modules or names and for the private attributes ``_compat`` reads.
"""

from __future__ import annotations

import ast
from pathlib import Path

import optuna_psms


PACKAGE = Path(optuna_psms.__file__).parent
#: The Optuna-private attributes ``optuna_psms._compat`` touches (study, trial, storages).
PRIVATE_ATTRS = frozenset(
    {
        "_storage",
        "_study_id",
        "_trial_id",
        "_backend",
        "_get_trials",
        "_sync_with_backend",
        "_thread_lock",
        "_studies",
        "_study_id_to_trial_ids",
        "_stub",
        "_replay_result",
        "_from_proto_trial",
    }
)


def _violations(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            modules = [node.module or ""]
            if (node.module or "").split(".")[0] == "optuna":
                found += [
                    f"line {node.lineno}: imports {alias.name} from {node.module}"
                    for alias in node.names
                    if alias.name.startswith("_")
                ]
        else:
            modules = []
            if isinstance(node, ast.Attribute) and node.attr in PRIVATE_ATTRS:
                found.append(f"line {node.lineno}: reads .{node.attr}")
        for module in modules:
            parts = module.split(".")
            if parts[0] == "optuna" and any(part.startswith("_") for part in parts[1:]):
                found.append(f"line {getattr(node, 'lineno', 0)}: imports {module}")
    return found


def test_scanner_finds_each_kind_of_private_use() -> None:
    source = (
        "from optuna.storages._cached_storage import _CachedStorage\n"
        "import optuna.samplers._tpe.sampler\n"
        "from optuna.study import _optimize\n"
        "x = study._storage.get_trial(trial._trial_id)\n"
        "from optuna.storages import RDBStorage\n"  # public: not reported
        "y = self._cache\n"  # our own private attribute: not reported
    )
    assert sorted(_violations(source)) == [
        "line 1: imports _CachedStorage from optuna.storages._cached_storage",
        "line 1: imports optuna.storages._cached_storage",
        "line 2: imports optuna.samplers._tpe.sampler",
        "line 3: imports _optimize from optuna.study",
        "line 4: reads ._storage",
        "line 4: reads ._trial_id",
    ]


def test_no_module_outside_compat_uses_optuna_internals() -> None:
    compat = PACKAGE / "_compat"
    assert (compat / "__init__.py").is_file() and (compat / "_write.py").is_file()
    offenders = {
        str(path.relative_to(PACKAGE)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if compat not in path.parents and (found := _violations(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}
