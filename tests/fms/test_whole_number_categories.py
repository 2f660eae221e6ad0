"""A category written as a whole number, read back as a float, is still that category.

KEEL's car data has a column of the values ``2, 3, 4, 5more``: text, so one-hot encoded. New
rows with an empty cell in that column and no ``5more`` are read by pandas as floats
(``2.0``), which the encoder took as categories never seen in training: every row of that
column lost its value, and ``optuna-psms predict`` warned about "3 value(s) not seen in
training (e.g. '2.0')" (a new user's trial, 26 Nov 2026).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from optuna_psms.fms import TabularEncoder


_TRAIN = pd.DataFrame(
    {
        "doors": ["2", "3", "4", "5more", "2", "4"],
        "size": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
    }
)


def test_whole_floats_read_as_their_category() -> None:
    encoder = TabularEncoder().fit(_TRAIN)
    new = pd.DataFrame({"doors": [2.0, np.nan, 4.0], "size": [1.0, 2.0, 3.0]})
    as_text = pd.DataFrame({"doors": ["2", "3", "4"], "size": [1.0, 2.0, 3.0]})
    got = encoder.transform(new)
    want = encoder.transform(as_text)
    assert np.array_equal(got[[0, 2]], want[[0, 2]])
    # The empty cell is the one value training never had, and the only one reported.
    lines = encoder.unexpected_values(new)
    assert lines == [
        "column 'doors': 1 value(s) not seen in training (e.g. a missing value: an empty cell "
        "or a mark such as 'n/a'), encoded as "
        "none of the known ones"
    ]


def test_other_values_are_unchanged() -> None:
    encoder = TabularEncoder().fit(_TRAIN)
    # 2.5 names no category, 7.0 a whole number that is not one, "2.0" is text as written.
    new = pd.DataFrame({"doors": [2.5, 7.0, "2.0", "5more"], "size": [1.0] * 4})
    got = encoder.transform(new)
    onehot = got[:, 1:]
    assert onehot[:3].sum() == 0.0 and onehot[3].sum() == 1.0
    assert encoder.unexpected_values(new) == [
        "column 'doors': 3 value(s) not seen in training (e.g. '2.5'), encoded as none of "
        "the known ones"
    ]
