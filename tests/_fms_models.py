"""A quickly fitted model for the tests of what is done with one (predict, columns)."""

from __future__ import annotations

from typing import Any


def quick_model(X: Any, y: Any, n_trials: int = 2) -> Any:
    """A naive-Bayes-only :class:`FullModelSelector` fitted on ``(X, y)`` in ``n_trials``
    trials, without the final check (the model, not the search, is under test)."""
    import warnings

    from optuna_psms.fms import FullModelSelector
    from optuna_psms.fms import FullModelSpace

    model = FullModelSelector(
        final_check=None,
        space=FullModelSpace(classifiers=["naive_bayes"]),
        n_trials=n_trials,
        random_state=0,
    )
    with warnings.catch_warnings():  # a vote of all its few trials, as meant here
        warnings.filterwarnings("ignore", message="the vote holds all", category=UserWarning)
        return model.fit(X, y)
