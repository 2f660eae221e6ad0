"""Old module paths keep working: each is the moved module itself."""

from __future__ import annotations

import importlib
import pickle

import pytest

from optuna_psms import _moved


@pytest.mark.parametrize("old", sorted(_moved.MOVED))
def test_an_old_module_path_is_the_new_module(old: str) -> None:
    new = _moved.new_name(old)
    assert new is not None
    module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    assert module.__spec__ is not None and module.__spec__.name == new


def test_a_submodule_of_a_moved_package_follows_it() -> None:
    old = importlib.import_module("optuna_psms.core.grid.afgs")
    assert old is importlib.import_module("optuna_psms.samplers.core.grid.afgs")


def test_a_class_pickled_under_its_old_module_loads_as_the_new_class() -> None:
    from optuna_psms.samplers.core.pso import PSOSettings

    # What 0.1.0 wrote: the class by its module then.
    old = pickle.dumps(PSOSettings(), protocol=0).replace(
        b"optuna_psms.samplers.core.pso", b"optuna_psms.core.pso"
    )
    assert b"optuna_psms.core.pso" in old
    assert type(pickle.loads(old)) is PSOSettings


def test_other_imports_are_left_alone() -> None:
    assert _moved.new_name("optuna_psms.fms") is None
    assert _moved.new_name("optuna_psms.core_extra") is None
    with pytest.raises(ImportError):
        importlib.import_module("optuna_psms._no_such_module")
