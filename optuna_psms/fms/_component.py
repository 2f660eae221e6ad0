"""Components of the full-model search space: what a pool method is and what it sees.

A :class:`Component` is one method of the pool (a ``suggest`` and a ``build`` callable);
:class:`ComponentTrial` prefixes its parameter names; :class:`SpaceContext` tells it about
the data. The built-in components are in :mod:`optuna_psms.fms._builtin`, the space that
chains them in :mod:`optuna_psms.fms.space`.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
import dataclasses
from typing import Any
from typing import Literal

import optuna


Kind = Literal["preprocessor", "selector", "classifier", "regressor"]
Params = dict[str, Any]

#: Default number of joint-mask parameters above which features are grouped into blocks.
DEFAULT_MAX_MASK_PARAMS = 100


@dataclasses.dataclass(frozen=True)
class SpaceContext:
    """What a component may need to know about the data when it suggests.

    Attributes:
        n_features: Number of (encoded) input features.
        n_classes: Number of classes.
        n_samples: Number of training samples of a fold (approximately).
        max_mask_params: Joint-mask parameter limit (``None``: one per feature).
        mask_grouping: Block ordering rule of the joint mask (``"score"`` or ``"index"``).
        task: ``"classification"`` or ``"regression"`` (``n_classes`` is 0 for regression).
    """

    n_features: int
    n_classes: int
    n_samples: int
    max_mask_params: int | None = DEFAULT_MAX_MASK_PARAMS
    mask_grouping: str = "score"
    task: str = "classification"


class ComponentTrial:
    """A view of an Optuna trial that prefixes parameter names with a component prefix.

    A component written as ``trial.suggest_float("C", ...)`` stores ``clf:svc:C``.

    Args:
        trial: The Optuna trial (``Trial`` or ``FixedTrial``).
        prefix: Prefix added to every parameter name, e.g. ``"clf:svc:"``.
        context: Facts about the data (:class:`SpaceContext`).
    """

    def __init__(self, trial: optuna.trial.BaseTrial, prefix: str, context: SpaceContext) -> None:
        self.trial = trial
        self.prefix = prefix
        self.context = context

    def suggest_float(
        self, name: str, low: float, high: float, *, step: float | None = None, log: bool = False
    ) -> float:
        return self.trial.suggest_float(self.prefix + name, low, high, step=step, log=log)

    def suggest_int(
        self, name: str, low: int, high: int, *, step: int = 1, log: bool = False
    ) -> int:
        return self.trial.suggest_int(self.prefix + name, low, high, step=step, log=log)

    def suggest_categorical(self, name: str, choices: Sequence[Any]) -> Any:
        return self.trial.suggest_categorical(self.prefix + name, list(choices))


def _default_describe(name: str, params: Mapping[str, Any]) -> str:
    shown = []
    for key, value in params.items():
        if key.startswith("_"):
            continue
        text = f"{value:.4g}" if isinstance(value, float) else str(value)
        shown.append(f"{key}={text}")
    return f"{name}({', '.join(shown)})"


@dataclasses.dataclass(frozen=True)
class Component:
    """One method of the pool.

    Args:
        name: Unique name within its kind; parameters are stored as
            ``pre:<name>:<hp>``, ``fs:<name>:<hp>`` or ``clf:<name>:<hp>``.
        kind: ``"preprocessor"`` (a transformer that keeps the number of features),
            ``"selector"`` (a transformer; at most one per pipeline), ``"classifier"`` or
            ``"regressor"`` (for :class:`~optuna_psms.fms.RegressionSpace`, stored as
            ``reg:<name>:<hp>``).
        suggest: ``suggest(trial) -> params``; ``trial`` is a :class:`ComponentTrial`
            (already prefixed; ``trial.context`` describes the data). Keys starting with
            ``_`` are passed to ``build`` but hidden from descriptions.
        build: ``build(params) -> estimator``, an unfitted scikit-learn estimator. Leave
            ``random_state`` unset: the objective seeds every ``*random_state`` parameter.
        describe: Optional ``describe(params) -> str`` for the one-line pipeline description.

    For a selector model that pickles, define ``suggest`` and ``build`` at module level
    (lambdas and closures cannot be pickled).

    Example:

        .. testcode::

            from sklearn.neighbors import KNeighborsClassifier
            from optuna_psms.fms import Component
            from optuna_psms.fms import FullModelSpace


            def suggest_knn(trial):
                return {"n_neighbors": trial.suggest_int("n_neighbors", 1, 15)}


            def build_knn(params):
                return KNeighborsClassifier(**params)


            knn = Component("knn", "classifier", suggest_knn, build_knn)
            space = FullModelSpace(classifiers=["svc"]).register(knn)
            assert space.classifier_names == ["svc", "knn"]
    """

    name: str
    kind: Kind
    suggest: Callable[[ComponentTrial], Mapping[str, Any]]
    build: Callable[[Mapping[str, Any]], Any]
    describe: Callable[[Mapping[str, Any]], str] | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("preprocessor", "selector", "classifier", "regressor"):
            raise ValueError(
                f"Component kind must be 'preprocessor', 'selector', 'classifier' or "
                f"'regressor'; "
                f"got {self.kind!r}."
            )
        if not self.name or ":" in self.name or "__" in self.name or self.name == "none":
            raise ValueError(
                f"invalid component name {self.name!r}: it must be non-empty, not 'none', "
                f"and contain neither ':' nor '__'."
            )
        if not callable(self.suggest) or not callable(self.build):
            raise ValueError(f"Component {self.name!r}: suggest and build must be callables.")

    def text(self, params: Mapping[str, Any]) -> str:
        if self.describe is not None:
            return self.describe(params)
        return _default_describe(self.name, params)
