"""Text columns of numbers or dates ("45%", "$1,200", "2024-01-03"): said before the search.

A fresh user's trial (28 Nov 2026): such a column was one-hot encoded as categories and the
only sign was a line about unseen held-out values after the search. ``select``, ``compare``
and ``FullModelSelector.fit`` now say it first, once per column; the encoding is unchanged.
"""

from __future__ import annotations

from typing import Any
import warnings

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import numpy as np
import pandas as pd
import pytest

from optuna_psms.cli import main
from optuna_psms.fms import FullModelSelector
from optuna_psms.fms import FullModelSpace


SPACE = FullModelSpace(classifiers=["logistic"], selectors=["none"], preprocessors=[])
N = 40


def _frame(n: int = N) -> pd.DataFrame:
    """A table with every kind of text column, flagged or not, and a label."""
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "size": rng.normal(size=n),
            "pct": [f"{i % 17 * 5}%" for i in range(n)],
            "price": [f"${1000 + 137 * (i % 13):,}" for i in range(n)],
            "weight": [f"{0.5 * (i % 9) + 1} kg" for i in range(n)],
            "day": [f"2024-{i % 12 + 1:02d}-{i % 28 + 1:02d}" for i in range(n)],
            "city": [["Paris", "Lyon", "Nice", "Lille", "Metz", "Brest"][i % 6] for i in range(n)],
            "code": [f"A{i % 9}" for i in range(n)],
            "flat": [f"{i % 8 + 1}{'ABCDEFGH'[i % 8]}" for i in range(n)],  # 1A, 2B: codes
            "answer": ["yes", "no", "maybe"] * (n // 3) + ["yes"] * (n % 3),
            "note": [
                ["3 dogs", "the cat sat", "5 apples", "hello", "x-ray", "no idea"][i % 6]
                for i in range(n)
            ],
            "pair": [str(i % 2 + 1) + "%" for i in range(n)],  # 2 values: maybe on purpose
            "label": ["a", "b"] * (n // 2),
        }
    )


def test_text_number_columns_flags_numbers_and_dates_and_nothing_else() -> None:
    from optuna_psms.fms.data import identifier_columns
    from optuna_psms.fms.data import text_number_columns
    from optuna_psms.fms.data import text_number_message

    X = _frame().drop(columns="label")
    X["mostly"] = [str(i) for i in range(N - 1)] + ["?"]  # numbers and a '?': text
    X["plain"] = [str(i) for i in range(N)]  # read as numbers already: never flagged
    found = text_number_columns(X)
    assert found == [
        ("pct", "numbers", "0%", None),
        ("price", "numbers", "$1,000", None),
        ("weight", "numbers", "1.0 kg", None),
        ("day", "dates", "2024-01-01", None),
        ("mostly", "numbers", "0", "?"),
    ]
    assert [text_number_message(*f) for f in found[2:]] == [
        "column 'weight' holds numbers written as text (e.g. '1.0 kg'); it is encoded as "
        "categories: convert it to numbers first",
        "column 'day' holds dates written as text (e.g. '2024-01-01'); it is encoded as "
        "categories: convert it to numbers first, e.g. the year and month or the days since a "
        "reference date",
        "column 'mostly' holds numbers written as text (e.g. '0'; not a number: '?'); it is "
        "encoded as categories: convert it to numbers first",
    ]
    assert text_number_columns(X.to_numpy()) == []  # no names: not checked
    # A date per row is a feature to convert, not a row identifier to drop: one warning.
    days = pd.DataFrame({"day": pd.date_range("2024-01-01", periods=N).strftime("%Y-%m-%d")})
    assert text_number_columns(days) == [("day", "dates", "2024-01-01", None)]
    assert identifier_columns(days.assign(id=[f"P-{i}" for i in range(N)])) == [
        ("id", f"a different value in each of the {N} rows")
    ]
    # Fewer than 5 distinct values, or a share of numbers under 90%: not flagged.
    assert text_number_columns(X.assign(pct=["1%", "2%", "3%", "4%"] * (N // 4))) == found[1:]
    mixed = [f"{i}%" for i in range(8)] + ["none", "few"]
    assert text_number_columns(X[["pct"]].assign(pct=mixed * (N // 10))) == []


_WORDS = st.builds(
    str.__add__,
    st.sampled_from("abcxyzABCXYZé"),
    st.text(alphabet="abcxyzABCXYZ0123456789 -_.,'%", max_size=8),
)


@settings(max_examples=80, deadline=None)
@given(st.lists(_WORDS, min_size=5, max_size=30))
def test_words_and_codes_are_never_flagged(words: list[str]) -> None:
    # Anything that starts with a letter ('Paris', 'A1', 'x 3%') is no number nor date.
    from optuna_psms.fms.data import text_number_columns

    assert text_number_columns(pd.DataFrame({"w": words})) == []


def test_fit_warns_once_per_column_before_the_search() -> None:
    frame = _frame()
    X, y = frame.drop(columns="label"), frame["label"].to_numpy()
    model = FullModelSelector(
        final_check=None, space=SPACE, sampler="random", n_trials=1, random_state=0
    )
    with pytest.warns(UserWarning) as record:
        model.fit(X, y)
    said = [str(w.message) for w in record if "written as text" in str(w.message)]
    assert [m.split(" holds")[0] for m in said] == [
        "column 'pct'",
        "column 'price'",
        "column 'weight'",
        "column 'day'",
    ]
    assert said[1] == (
        "column 'price' holds numbers written as text (e.g. '$1,000'); it is encoded as "
        "categories: convert it to numbers first"
    )
    # At the user's call, as the identifier warning.
    assert {w.filename for w in record if "written as text" in str(w.message)} == {__file__}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X[["size", "city", "code", "answer"]], y)
    assert not [w for w in caught if "written as text" in str(w.message)]


def _cli(argv: list[str], capsys: Any) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_select_says_it_once_per_column_before_the_search(tmp_path: Any, capsys: Any) -> None:
    _frame(80).to_csv(tmp_path / "data.csv", index=False)
    argv = ["select", "--final-check", "none", "--csv", str(tmp_path / "data.csv")]
    argv += ["--target", "label", "--sampler", "random", "--classifiers", "naive_bayes"]
    argv += ["--selectors", "none", "--seed", "3", "--no-progress-bar", "--n-trials", "1"]
    argv += ["--ensemble-top", "1", "--storage", f"sqlite:///{tmp_path}/s.db"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code, out, err = _cli([*argv, "--output", str(tmp_path / "m.joblib")], capsys)
    assert code == 0, err
    assert [w for w in caught if "written as text" in str(w.message)] == []
    lines = err.strip().splitlines()
    assert lines[:4] == [
        "warning: column 'pct' holds numbers written as text (e.g. '0%'); it is encoded as "
        "categories: convert it to numbers first",
        "warning: column 'price' holds numbers written as text (e.g. '$1,000'); it is encoded "
        "as categories: convert it to numbers first",
        "warning: column 'weight' holds numbers written as text (e.g. '1.0 kg'); it is "
        "encoded as categories: convert it to numbers first",
        "warning: column 'day' holds dates written as text (e.g. '2024-01-01'); it is encoded "
        "as categories: convert it to numbers first, e.g. the year and month or the days "
        "since a reference date",
    ]
    assert out.startswith("Full model selection")  # the lines came before the search
    for name in ("pct", "price", "weight", "day"):  # not again below the search
        assert len([line for line in lines if f"'{name}'" in line]) == 1, err


def test_compare_says_it_once_per_column(tmp_path: Any, capsys: Any) -> None:
    _frame(60).to_csv(tmp_path / "data.csv", index=False)
    argv = ["compare", "--csv", str(tmp_path / "data.csv"), "--target", "label"]
    argv += ["--samplers", "random", "--baseline", "none", "--seeds", "1", "--n-trials", "1"]
    argv += ["--storage", f"sqlite:///{tmp_path}/c.db", "--report", "none"]
    argv += ["--n-workers", "1", "--no-progress-bar", "--initial-pipelines", "none"]
    code, _, err = _cli(argv, capsys)
    assert code == 0, err
    said = [line for line in err.splitlines() if "written as text" in line]
    assert [line.split(" holds")[0] for line in said] == [
        "warning: column 'pct'",
        "warning: column 'price'",
        "warning: column 'weight'",
        "warning: column 'day'",
    ]
