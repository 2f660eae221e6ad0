"""The settings an ``optuna-psms select`` study stores: typed, and read back as untrusted."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
import pytest

from optuna_psms._messages import InputError
from optuna_psms.fms._join import StudySettings


def test_the_stored_object_reads_back_as_the_same_settings() -> None:
    settings = StudySettings(data="d", task="regression", cv=3, metric="rmse", seed=7)
    assert StudySettings.from_stored(settings.stored(), "s") == settings


def test_a_study_stored_before_task_existed_is_a_classification() -> None:
    old = {k: v for k, v in StudySettings(seed=1).stored().items() if k != "task"}
    assert StudySettings.from_stored(old, "s").task == "classification"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)
FIELDS = [f.name for f in dataclasses.fields(StudySettings)]


@given(st.one_of(JSON, st.dictionaries(st.sampled_from(FIELDS), JSON)))
def test_anything_stored_is_read_or_refused_in_one_line(value: Any) -> None:
    try:
        settings = StudySettings.from_stored(value, "s")
    except InputError as exc:
        assert str(exc) == "study 's' has unreadable settings; choose another --study-name"
    else:
        assert isinstance(settings.cv, int) and isinstance(settings.metric, str)


def test_the_seed_of_a_study_not_joined_yet_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="before the study is joined"):
        _ = StudySettings().study_seed
