"""Column safety and labels of the fms estimators (issue 9, items 1-2).

scikit-learn's convention: a fitted estimator records ``n_features_in_`` and, for a
DataFrame with string column names, ``feature_names_in_``; a DataFrame given to
``predict``/``transform`` is matched by name, in any order.
"""

from __future__ import annotations

from collections.abc import Callable
import os
import subprocess
import sys
import textwrap
from typing import Any
import warnings

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression

from optuna_psms.fms import BiasClassifier
from optuna_psms.fms import FeatureMask
from optuna_psms.fms import FullModelSelector
from optuna_psms.fms import FullModelSpace
from optuna_psms.fms import KernelRidgeClassifier
from optuna_psms.fms import make_objective
from optuna_psms.fms import MeanVarianceClassifier
from optuna_psms.fms import Normalize
from optuna_psms.fms import PCAExtractor
from optuna_psms.fms import RankSelector
from optuna_psms.fms import ShiftScale
from optuna_psms.fms import TabularEncoder
from optuna_psms.fms._validation import encode_labels
from optuna_psms.fms._validation import labels_to_codes


SPACE = FullModelSpace(classifiers=["logistic"], selectors=["none"], preprocessors=[])


@pytest.fixture(scope="module")
def cancer() -> tuple[pd.DataFrame, pd.Series]:
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    return X, y


@pytest.fixture(scope="module")
def cancer_model(cancer: Any) -> FullModelSelector:
    X, y = cancer
    model = FullModelSelector(
        final_check=None, space=SPACE, sampler="random", n_trials=3, random_state=0
    )
    return model.fit(X, y)


def _run(code: str) -> str:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    ).stdout.strip()


@pytest.mark.slow  # > 2 s: the default suite stays under 5 min (2026-11-28)
def test_saved_model_takes_reordered_columns_by_name(
    tmp_path: Any, cancer: Any, cancer_model: FullModelSelector
) -> None:
    # The bug of issue 9: a model trained on a DataFrame, saved with joblib and loaded,
    # changed 8 of 20 predictions when the same rows came with their columns reordered.
    X, _ = cancer
    rows = X.iloc[:20]
    reordered = rows[rows.columns[::-1]]
    expected = cancer_model.predict(rows)
    # The model does depend on the column order: taken by position, the reordered rows
    # would be predicted differently (so this test can fail).
    with pytest.warns(UserWarning, match="no column names"):
        by_position = cancer_model.best_pipeline_.predict(reordered.to_numpy())
    assert (by_position != expected).any()
    path = tmp_path / "model.joblib"
    joblib.dump(cancer_model, path)
    reordered.to_pickle(tmp_path / "rows.pkl")
    out = _run(
        f"""
        import joblib, pandas as pd
        model = joblib.load({str(path)!r})
        rows = pd.read_pickle({str(tmp_path / "rows.pkl")!r})
        print(list(rows.columns) != list(model.feature_names_in_))
        print(",".join(str(v) for v in model.predict(rows)))
        """
    )
    assert out.splitlines() == ["True", ",".join(str(v) for v in expected)]


def test_fitted_attributes(cancer: Any, cancer_model: FullModelSelector) -> None:
    X, _ = cancer
    assert cancer_model.n_features_in_ == 30
    assert list(cancer_model.feature_names_in_) == list(X.columns)
    encoder = cancer_model.best_pipeline_.steps[0][1]
    assert list(encoder.feature_names_in_) == list(X.columns)
    proba = cancer_model.predict_proba(X.iloc[:5])
    assert np.allclose(cancer_model.predict_proba(X.iloc[:5, ::-1]), proba)


def test_renamed_and_missing_columns_are_refused(
    cancer: Any, cancer_model: FullModelSelector
) -> None:
    X, _ = cancer
    rows = X.iloc[:5]
    renamed = rows.rename(columns={"mean radius": "radius"})
    with pytest.raises(ValueError, match=r"missing 1 column.*'mean radius'.*not seen.*'radius'"):
        cancer_model.predict(renamed)
    with pytest.raises(ValueError, match="missing 1 column.*'worst area'"):
        cancer_model.predict_proba(rows.drop(columns="worst area"))


def test_extra_columns_warn_and_are_ignored(cancer: Any, cancer_model: FullModelSelector) -> None:
    X, _ = cancer
    rows = X.iloc[:20]
    with pytest.warns(UserWarning, match="not fitted with; they are ignored: 'id'") as record:
        pred = cancer_model.predict(rows.assign(id=np.arange(20)))
    assert record[0].filename == __file__  # points at the caller, not at the package
    assert np.array_equal(pred, cancer_model.predict(rows))


def test_numpy_input(cancer: Any, cancer_model: FullModelSelector) -> None:
    X, _ = cancer
    rows = X.iloc[:20]
    with pytest.warns(UserWarning, match="no column names"):
        pred = cancer_model.predict(rows.to_numpy())
    assert np.array_equal(pred, cancer_model.predict(rows))
    message = "X has 29 columns, but FullModelSelector was fitted with 30"
    with pytest.raises(ValueError, match=message):
        cancer_model.predict(rows.to_numpy()[:, 1:])
    with pytest.warns(UserWarning, match="column names are not all strings"):
        assert np.array_equal(cancer_model.predict(pd.DataFrame(rows.to_numpy())), pred)
    model = FullModelSelector(
        final_check=None, space=SPACE, sampler="random", n_trials=1, random_state=0
    )
    model.fit(X.to_numpy(), cancer[1])
    assert model.n_features_in_ == 30 and not hasattr(model, "feature_names_in_")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy in, numpy out: no warning
        model.predict(rows.to_numpy())
    with pytest.raises(ValueError, match="X has 31 columns, but FullModelSelector was fitted"):
        model.predict(np.hstack([rows.to_numpy(), rows.to_numpy()[:, :1]]))


def test_duplicate_column_names_are_refused(cancer: Any) -> None:
    X, y = cancer
    doubled = pd.concat([X.iloc[:, :4], X.iloc[:, [1]]], axis=1)
    message = "duplicate column names: 'mean texture'"
    with pytest.raises(ValueError, match=message):
        FullModelSelector(final_check=None, space=SPACE, n_trials=1).fit(doubled, y)
    with pytest.raises(ValueError, match=message):
        make_objective(doubled, y)
    with pytest.raises(ValueError, match=message):
        TabularEncoder().fit(doubled)
    model = FullModelSelector(
        final_check=None, space=SPACE, sampler="random", n_trials=1, random_state=0
    )
    model.fit(X.iloc[:, :4], y)
    with pytest.raises(ValueError, match=message):
        model.predict(doubled)


def _estimators() -> list[Any]:
    return [
        TabularEncoder(),
        Normalize(center=True),
        ShiftScale(take_log=True),
        RankSelector("ftest", fmax_frac=0.5),
        RankSelector("rf", fmax_frac=0.5, random_state=0),
        PCAExtractor(fmax_frac=0.5, random_state=0),
        FeatureMask(blocks=(True, False, True)),
        MeanVarianceClassifier(),
        KernelRidgeClassifier(kernel="linear"),
        BiasClassifier(LogisticRegression()),
    ]


@pytest.mark.parametrize("estimator", _estimators(), ids=lambda e: type(e).__name__)
def test_every_estimator_of_the_package_is_column_safe(estimator: Any) -> None:
    X_arr, y = make_classification(n_samples=60, n_features=6, random_state=0)
    X = pd.DataFrame(X_arr, columns=[f"f{i}" for i in range(6)])
    fitted = clone(estimator).fit(X, y)
    assert fitted.n_features_in_ == 6
    assert list(fitted.feature_names_in_) == list(X.columns)
    method = "predict" if hasattr(fitted, "predict") else "transform"
    out = getattr(fitted, method)(X)
    assert np.array_equal(getattr(fitted, method)(X[X.columns[::-1]]), out)
    with pytest.raises(ValueError, match="missing 1 column.*'f2'"):
        getattr(fitted, method)(X.drop(columns="f2"))
    with pytest.raises(ValueError, match="X has 5 columns"):
        getattr(fitted, method)(X_arr[:, :5])
    with pytest.raises(ValueError, match="duplicate column names: 'f0'"):
        clone(estimator).fit(pd.concat([X, X[["f0"]]], axis=1), y)
    plain = clone(estimator).fit(X_arr, y)  # numpy: no names
    assert plain.n_features_in_ == 6 and not hasattr(plain, "feature_names_in_")
    refit = fitted.fit(X_arr, y)  # refitting on numpy forgets the names
    assert not hasattr(refit, "feature_names_in_")


@settings(max_examples=60, deadline=None)
@given(
    kinds=st.lists(st.sampled_from(["float", "int", "str", "bool", "nan"]), min_size=1),
    order=st.randoms(use_true_random=False),
    n_extra=st.integers(0, 2),
)
def test_encoder_takes_any_column_order(kinds: list[str], order: Any, n_extra: int) -> None:
    kinds = kinds[:6]
    rng = np.random.default_rng(len(kinds))
    n = 15
    makers: dict[str, Callable[[], Any]] = {
        "float": lambda: rng.normal(size=n),
        "int": lambda: rng.integers(0, 5, size=n),
        "str": lambda: rng.choice(["a", "b", "c"], size=n),
        "bool": lambda: rng.random(n) < 0.5,
        "nan": lambda: np.where(rng.random(n) < 0.3, np.nan, rng.normal(size=n)),
    }
    X = pd.DataFrame({f"c{i}": makers[kind]() for i, kind in enumerate(kinds)})
    encoder = TabularEncoder().fit(X)
    expected = encoder.transform(X)
    columns = list(X.columns)
    order.shuffle(columns)
    shuffled = X[columns].assign(**{f"extra{j}": 1.0 for j in range(n_extra)})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert np.array_equal(encoder.transform(shuffled), expected)
    assert len(caught) == (1 if n_extra else 0)


# ------------------------------------------------------------------------------ labels
def _separable(labels: list[Any], n_per_class: int = 12) -> tuple[np.ndarray, list[Any]]:
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(4.0 * k, 0.3, size=(n_per_class, 2)) for k in range(len(labels))])
    y = [label for label in labels for _ in range(n_per_class)]
    return X, y


@pytest.mark.parametrize(
    "labels",
    [
        [3, "a", 2.5],
        [True, False],
        ["yes", "no"],
        [np.int64(7), np.int64(-1)],
        [1, "1"],
    ],
    ids=["mixed", "bool", "str", "numpy-int", "int-and-its-string"],
)
def test_predictions_are_the_original_labels(labels: list[Any]) -> None:
    X, y = _separable(labels)
    model = FullModelSelector(
        final_check=None, space=SPACE, sampler="random", n_trials=2, random_state=0
    )
    model.fit(X, y)
    pred = model.predict(X)
    # The check of issue 9: mixed labels used to come back as strings ('3' for 3), so this
    # scored 0.47 on a separable problem.
    assert (pred == np.asarray(y, dtype=object)).mean() == 1.0
    if len({type(v) for v in y}) > 1:  # mixed: the very objects, as an object array
        assert pred.dtype == object and [type(p) for p in pred] == [type(v) for v in y]
    else:  # one type: numpy's dtype for it, as scikit-learn classifiers do
        assert pred.dtype == np.asarray(y).dtype
    assert model.score(X, y) == 1.0
    assert len(model.classes_) == len(labels)
    assert model.predict_proba(X).shape == (len(y), len(labels))


def test_mixed_labels_keep_their_types() -> None:
    X, y = _separable([3, "a", 2.5])
    model = FullModelSelector(
        final_check=None, space=SPACE, sampler="random", n_trials=1, random_state=0
    )
    pred = model.fit(X, y).predict(X)
    assert pred.dtype == object
    assert pred[0] == 3 and type(pred[0]) is int
    assert pred[12] == "a" and pred[24] == 2.5 and type(pred[24]) is float
    assert list(model.classes_) == [2.5, 3, "a"]  # numbers by value, then other types


label_values = st.one_of(
    st.integers(-3, 3),
    st.sampled_from(["a", "b", "3"]),
    st.sampled_from([0.5, 2.0, -1.5]),
    st.booleans(),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(label_values, min_size=1, max_size=20))
def test_encode_labels_round_trip(y: list[Any]) -> None:
    codes, classes = encode_labels(y)
    assert codes.min() == 0 and codes.max() == len(classes) - 1
    back = classes[codes].tolist()
    # Equal labels share a class; a decoded label equals its original and, except for
    # numbers numpy treats as one (1 and 1.0), has its type.
    for original, decoded in zip(y, back):
        assert decoded == original
        assert isinstance(decoded, bool) == isinstance(original, bool)
        assert isinstance(decoded, str) == isinstance(original, str)
    assert np.array_equal(labels_to_codes(classes, y), codes)
    assert labels_to_codes(classes, ["never seen"]).tolist() == [-1]


def test_encode_labels_keeps_numpy_dtypes() -> None:
    codes, classes = encode_labels(np.array([5, 2, 5], dtype=np.int32))
    assert classes.dtype == np.int32 and codes.tolist() == [1, 0, 1]
    _, classes = encode_labels(pd.Series([True, False, True]))
    assert classes.dtype == bool
    with pytest.raises(ValueError, match="missing values"):
        encode_labels([1, None, 2])


def test_encoder_names_the_values_it_reads_other_than_as_written() -> None:
    from optuna_psms.fms.data import MAX_CATEGORIES

    # "many" has more categories than MAX_CATEGORIES: its rare ones are infrequent, so an
    # unseen value joins them; "city" has no missing value in the fit, so an empty cell
    # is an unseen category too.
    many = [f"c{i}" for i in range(MAX_CATEGORIES + 8)] * 2 + ["c0"] * 10
    n = len(many)
    X = pd.DataFrame(
        {"age": np.arange(n, dtype=float), "city": ["a", "b"] * (n // 2), "many": many}
    )
    encoder = TabularEncoder().fit(X)
    assert encoder.unexpected_values(X) == []
    new = pd.DataFrame({"many": ["zz", "c0"], "city": [None, "a"], "age": ["old", 3]})
    assert encoder.unexpected_values(new) == [
        f"column 'age': 1 value(s) that are not numbers (e.g. 'old'), taken as missing "
        f"(replaced by the training median {np.median(X['age']):.6g})",
        "column 'city': 1 value(s) not seen in training (e.g. a missing value: an empty cell "
        "or a mark such as 'n/a'), encoded as "
        "none of the known ones",
        "column 'many': 1 value(s) not seen in training (e.g. 'zz'), encoded as the "
        "infrequent categories",
    ]
    with pytest.raises(ValueError, match="missing 1 column"):
        encoder.unexpected_values(new.drop(columns="age"))


# ------------------------------------------------- identifiers and values read otherwise
def test_identifier_columns_flags_row_ids_and_nothing_else() -> None:
    from optuna_psms.fms.data import identifier_columns
    from optuna_psms.fms.data import MIN_IDENTIFIER_ROWS

    n = 40
    rng = np.random.default_rng(0)
    X = pd.DataFrame(
        {
            "id": np.arange(1, n + 1),  # 1..n in file order
            "row": rng.permutation(n),  # 0..n-1 shuffled
            "name": [f"s{i:03d}" for i in range(n)],  # text, a different value per row
            "height": rng.normal(size=n),  # distinct, but continuous: a feature
            "count": np.arange(2, n + 2),  # distinct integers, but not from 0 or 1
            "gap": [*range(1, n), n + 5],  # 1..n with a gap
            "city": ["a", "b"] * (n // 2),  # text with repeats
            "code": [f"c{i}" for i in range(n - 1)] + [None],  # distinct but a missing cell
            "number": [*range(1, n), np.nan],  # 1..n-1 and a missing cell
            "nullable": pd.array([*range(n - 1), None], dtype="Int64"),  # likewise
            "text_ids": [str(i) for i in range(n)],  # numbers as text: read as numbers
            "yes": [True, False] * (n // 2),
        }
    )
    assert identifier_columns(X) == [
        ("id", f"the integers 1..{n}, one per row"),
        ("row", f"the integers 0..{n - 1}, one per row"),
        ("name", f"a different value in each of the {n} rows"),
        ("text_ids", f"the integers 0..{n - 1}, one per row"),
    ]
    small = X.head(MIN_IDENTIFIER_ROWS - 1)
    assert identifier_columns(small) == []  # too few rows to tell
    assert identifier_columns(X.to_numpy()) == []  # no names: not checked


@pytest.mark.slow  # > 2 s: the default suite stays under 5 min (2026-11-28)
def test_fit_warns_about_an_identifier_column_and_not_about_ordinary_ones(cancer: Any) -> None:
    X, y = cancer
    model = FullModelSelector(
        final_check=None, space=SPACE, sampler="random", n_trials=2, random_state=0
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y)
    assert not [w for w in caught if "row identifier" in str(w.message)]
    with_id = X.assign(patient=[f"p{i}" for i in range(len(X))])
    with pytest.warns(UserWarning) as record:
        model.fit(with_id, y)
    messages = [str(w.message) for w in record if "row identifier" in str(w.message)]
    assert messages == [
        f"column 'patient' looks like a row identifier (a different value in each of the "
        f"{len(X)} rows); as a feature it can only memorise rows (or their order in the "
        f"file): drop it with X.drop(columns=['patient'])"
    ]
    # The warning points at the user's call, not at the package.
    assert [w.filename for w in record if "row identifier" in str(w.message)] == [__file__]


def test_predict_warns_about_values_read_otherwise_as_the_command_line_does() -> None:
    from optuna_psms.fms import FullModelRegressor
    from optuna_psms.fms import RegressionSpace

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"size": rng.normal(size=40), "colour": ["red", "blue"] * 20})
    y = np.array(["a", "b"] * 20)
    model = FullModelSelector(
        final_check=None, space=SPACE, sampler="random", n_trials=2, random_state=0
    )
    model.fit(X, y)
    odd = X.head(3).astype(object)
    odd.loc[0, "size"] = "big"
    odd.loc[1, "colour"] = "green"
    expected = model.best_pipeline_.named_steps["encoder"].unexpected_values(odd)
    assert len(expected) == 2 and "'big'" in expected[0] and "'green'" in expected[1]
    for method in (model.predict, model.predict_proba, lambda Z: model.score(Z, y[:3])):
        with pytest.warns(UserWarning) as record:
            method(odd)
        assert [str(w.message) for w in record] == expected
        assert {w.filename for w in record} == {__file__}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # plain rows: no warning
        model.predict(X.head(3))
        model.predict_proba(X.head(3))
    regressor = FullModelRegressor(
        space=RegressionSpace(regressors=["linear"], selectors=["none"], preprocessors=[]),
        sampler="random",
        n_trials=2,
        random_state=0,
    ).fit(X, rng.normal(size=40))
    with pytest.warns(UserWarning) as record:
        regressor.predict(odd)
    assert [str(w.message) for w in record] == expected  # the same encoder rule and text


@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_no_bundled_dataset_has_a_column_flagged_as_an_identifier() -> None:
    # The rule's false positives on real data: none of the sklearn:* and keel:* sets
    # (docs/full_model_selection.md says so); nor of the rule for numbers or dates written
    # as text (tests/fms/test_text_columns.py), on their text columns (240 in 30 sets).
    from optuna_psms.fms.data import identifier_columns
    from optuna_psms.fms.data import text_number_columns
    from optuna_psms.fms.datasets import dataset_table
    from optuna_psms.fms.datasets import load_dataset

    names = [row[0] for row in dataset_table()]
    assert len(names) > 100
    data = {name: load_dataset(name)[0] for name in names}
    flagged = {name: identifier_columns(X) + text_number_columns(X) for name, X in data.items()}
    assert {name: found for name, found in flagged.items() if found} == {}
    text = [c for X in data.values() for c, dtype in X.dtypes.items() if dtype.kind == "O"]
    assert len(text) >= 200  # the text rule had text columns to look at
