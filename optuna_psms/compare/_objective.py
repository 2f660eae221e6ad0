"""What a comparison optimises: a benchmark function, a dataset (full model selection) or a
user's ``module:function``, described by a small picklable value that each worker process
turns back into an objective."""

from __future__ import annotations

from collections.abc import Callable
import dataclasses
from dataclasses import dataclass
import importlib
import os
import re
import sys
from typing import Any
from typing import cast
from typing import Literal

import optuna


Objective = Callable[[optuna.Trial], float]
Kind = Literal["function", "dataset", "csv", "callable"]


class ObjectiveError(ValueError):
    """The objective cannot be built (unknown name, unreadable file, bad import)."""


_BBOB = re.compile(r"bbob:f?(\d+)", re.IGNORECASE)
#: The end of :meth:`ObjectiveSpec.describe` for a full model selection that starts from
#: initial pipelines (followed by the set's name unless it is ``"defaults"``).
INITIAL_NOTE = ", starting from the initial pipelines"


def resume_hint(made_on: Any, wanted: str) -> str:
    """The way out when a resumed study was made on ``made_on``, not on ``wanted`` (two
    :meth:`ObjectiveSpec.describe` lines): the ``--initial-pipelines`` setting it was made
    with when only that differs, else another ``--name``."""

    def split(description: str) -> tuple[str, str]:
        head, note, name = description.partition(INITIAL_NOTE)
        return head, (name.strip() or "defaults") if note else "none"

    if isinstance(made_on, str) and split(made_on)[0] == split(wanted)[0]:
        return f"resume it with --initial-pipelines {split(made_on)[1]}, or choose another --name"
    return "choose another --name"


def parse_bbob(name: str) -> int | None:
    """The COCO function id of ``bbob:f7`` (or ``bbob:7``); ``None`` for another name.

    Raises:
        ObjectiveError: ``bbob:`` followed by something other than a function id 1-24.
    """
    if not name.lower().startswith("bbob:"):
        return None
    match = _BBOB.fullmatch(name.strip())
    if match is None or not 1 <= int(match.group(1)) <= 24:
        raise ObjectiveError(f"unknown bbob function {name!r}; use bbob:f1 ... bbob:f24")
    return int(match.group(1))


@dataclass(frozen=True)
class ObjectiveSpec:
    """A comparison's objective, rebuilt by each worker from this description.

    Attributes:
        kind: ``"function"`` (one of the nine benchmark functions, or a COCO ``bbob``
            function as ``bbob:f7``, see :func:`parse_bbob`), ``"dataset"`` (a bundled
            dataset, full model selection), ``"csv"`` (a CSV file, full model selection) or
            ``"callable"`` (``module:function``).
        name: Function name, dataset name, CSV path or ``module:function``.
        dim: Dimensions of a benchmark function.
        shifted: Move a benchmark function's minimiser off the box centre (see
            :func:`optuna_psms.benchmarks.functions.shift_of`); not for ``bbob`` functions,
            whose instances place the optimum.
        instance: Instance of a ``bbob`` function (COCO's ``instance_indices``, from 1).
        target: Label column of a CSV file.
        cv: Cross-validation folds of full model selection.
        metric: Loss of full model selection.
        subsample: Fraction of the samples per trial in full model selection.
        path: Directory put first on ``sys.path`` before importing ``module``.
        drop: Columns of the dataset or CSV file left out of full model selection (e.g. an
            identifier).
        initial_pipelines: Full model selection: the name of a set of
            :data:`optuna_psms.fms._initial.PORTFOLIOS` (``"defaults"``: the four textbook
            pipelines that ``optuna-psms select`` and ``FullModelSelector`` start from),
            enqueued as the first trials of every new study, the same for every sampler and
            seed (:meth:`initial_trials`); ``None`` (the default here): every trial is the
            sampler's. Part of :meth:`describe`, so that a comparison is resumed only with
            the setting it was made with.
    """

    kind: Kind
    name: str
    dim: int = 10
    shifted: bool = True
    instance: int = 1
    target: str | None = None
    cv: int = 2
    metric: str = "ber"
    subsample: float = 1.0
    path: str | None = None
    drop: tuple[str, ...] = ()
    initial_pipelines: str | None = None

    def describe(self) -> str:
        """One line saying what is optimised (stored in each study's user attrs).

        A full model selection's metric is named as ``optuna-psms select`` names it: the
        loss minimised for a built-in one (``ber``, ``1-AUC``), a scikit-learn scorer as the
        score with its direction (``accuracy (higher is better)``), a ``neg_*`` scorer as
        the loss it negates (``log_loss``).
        """
        return self._describe(shown=True)

    def _describe(self, *, shown: bool) -> str:
        """:meth:`describe`; with ``shown=False`` the metric as given (``auc``,
        ``accuracy``): the text :meth:`identity` matches, as stored before the metric was
        named for reading, so that those comparisons are still resumed."""
        bbob = parse_bbob(self.name) if self.kind == "function" else None
        if bbob is not None:
            from optuna_psms.benchmarks.bbob import FUNCTION_NAMES

            return (
                f"bbob f{bbob} ({FUNCTION_NAMES[bbob]}) instance {self.instance}, "
                f"{self.dim} dimensions, regret f(x) - f_opt, minimize"
            )
        if self.kind == "function":
            shift = "shifted" if self.shifted else "unshifted"
            return f"{self.name} function, {self.dim} dimensions, {shift}, minimize"
        if self.kind in ("dataset", "csv"):
            data = self.name if self.kind == "dataset" else f"{self.name} (target {self.target})"
            sub = f", subsample {self.subsample:g}" if self.subsample < 1 else ""
            if self.drop:
                data += f" without column(s) {', '.join(map(repr, self.drop))}"
            start = ""
            if self.initial_pipelines is not None:
                named = "" if self.initial_pipelines == "defaults" else self.initial_pipelines
                start = f"{INITIAL_NOTE} {named}".rstrip()
            metric = self.metric
            if shown:
                from optuna_psms.fms.metrics import shown_loss

                name, sign = shown_loss(metric)
                metric = f"{name} (higher is better)" if sign < 0 else name
            return f"full model selection on {data}, {self.cv}-fold CV {metric}{sub}{start}"
        return f"objective {self.name}"

    def identity(self) -> str:
        """What a resumed study must have been made on: :meth:`describe`, where a CSV file is
        named by a digest of its data (columns, rows, labels) instead of its path, so that
        ``wine.csv`` and ``/data/wine.csv`` are one objective and an edited file is another.

        Raises:
            ObjectiveError: The CSV file cannot be read.
        """
        if self.kind != "csv":
            return self._describe(shown=False)
        X, y = self.load()
        from optuna_psms.fms.datasets import data_digest

        # The digest is of the columns kept: the dropped ones are named by describe().
        named = dataclasses.replace(self, name=f"CSV data {data_digest(X, y)}")
        return named._describe(shown=False)

    def load(self) -> tuple[Any, Any]:
        """The features (without the ``drop`` columns) and labels of a dataset or CSV file.

        Read once per spec object: later calls (the check of the data, :meth:`identity`, the
        objective of every seed) return the same data, so a comparison reads and parses its
        CSV file once per process, and a file edited during the run does not change the
        data of the studies still to run. The data is not pickled with the spec: each
        worker process reads it again.

        Raises:
            ObjectiveError: Unknown dataset, unreadable CSV file, or a column of ``target``
                or ``drop`` that the data does not have.
        """
        loaded: tuple[Any, Any] | None = self.__dict__.get("_loaded")
        if loaded is None:
            loaded = self._read()
            object.__setattr__(self, "_loaded", loaded)  # a cache, not a field
        return loaded

    def _read(self) -> tuple[Any, Any]:
        from optuna_psms._messages import InputError
        from optuna_psms.fms import datasets
        from optuna_psms.fms.datasets import drop_columns

        try:
            if self.kind == "dataset":
                X, y = datasets.load_dataset(self.name)
                return drop_columns(X, list(self.drop), self.name), y
            if self.kind != "csv":
                raise ObjectiveError(f"a {self.kind} objective has no data to load")
            if self.target is None:
                raise ObjectiveError("--csv needs --target COLUMN (the label column)")
            return datasets.load_csv(self.name, self.target, list(self.drop))
        except InputError as exc:
            raise ObjectiveError(str(exc)) from None

    def __getstate__(self) -> dict[str, Any]:
        # Sent to every worker task: the fields only, not the data read (see load()).
        return {k: v for k, v in self.__dict__.items() if k != "_loaded"}

    def shown_value(self) -> tuple[str, float]:
        """``(name, sign)``: how the comparison shows the objective's values, the number shown
        being ``sign * value``. A full model selection on a scikit-learn scorer ``s``, whose
        studies minimise ``-s``, is shown as the score: ``("CV accuracy", -1.0)``, higher is
        better; a ``neg_*`` scorer as the loss it negates (``("CV log_loss", 1.0)``), ``auc``
        as ``optuna-psms select`` prints it (``"CV 1-AUC"``); anything else as
        :meth:`metric_name` (``"CV BER"``) with sign 1.
        """
        if self.kind in ("dataset", "csv"):
            from optuna_psms.fms.metrics import LOSS_NAMES
            from optuna_psms.fms.metrics import shown_score

            score = shown_score(self.metric)
            if score is not None:
                return f"CV {score[0]}", score[1]
            if self.metric in LOSS_NAMES:
                return f"CV {LOSS_NAMES[self.metric]}", 1.0
        return self.metric_name(), 1.0

    def slug(self) -> str:
        """A short name for the comparison, e.g. ``rastrigin-d10``."""
        bbob = parse_bbob(self.name) if self.kind == "function" else None
        if bbob is not None:
            base = f"bbob-f{bbob}-i{self.instance}-d{self.dim}"
        elif self.kind == "function":
            base = f"{self.name}-d{self.dim}" + ("" if self.shifted else "-unshifted")
        elif self.kind == "csv":
            base = os.path.splitext(os.path.basename(self.name))[0]
        else:
            base = self.name
        return re.sub(r"[^A-Za-z0-9_.-]+", "_", base).strip("_") or "objective"

    def metric_name(self) -> str:
        """Name of the objective value (for plots and ``study.set_metric_names``)."""
        if self.kind == "function":
            return "regret" if parse_bbob(self.name) is not None else "f(x)"
        if self.kind in ("dataset", "csv"):  # the name the objective gives its study too
            from optuna_psms.samplers._study_info import metric_label

            return metric_label(self.metric)
        return "objective"

    def build(self, seed: int | None) -> Objective:
        """The objective for one seed (full model selection seeds its folds with it).

        Raises:
            ObjectiveError: Unknown function or dataset, unreadable CSV, failed import, or
                ``initial_pipelines`` for an objective other than full model selection.
        """
        self._check_initial()
        if self.kind == "function" and parse_bbob(self.name) is not None:
            return self._bbob_objective()
        if self.kind == "function":
            from optuna_psms.benchmarks.functions import FUNCTIONS
            from optuna_psms.benchmarks.functions import make_objective

            if self.name not in FUNCTIONS:
                from optuna_psms._names import did_you_mean

                hint = did_you_mean(self.name, FUNCTIONS)
                raise ObjectiveError(
                    f"unknown function {self.name!r}; {hint}choose one of {', '.join(FUNCTIONS)}, "
                    "or bbob:f1 ... bbob:f24"
                )
            if self.dim < 1:
                raise ObjectiveError("--dim must be at least 1")
            return make_objective(FUNCTIONS[self.name], self.dim, shifted=self.shifted)
        if self.kind in ("dataset", "csv"):
            return self._fms_objective(seed)
        return self._import()

    def _check_initial(self) -> None:
        if self.initial_pipelines is None:
            return
        if self.kind not in ("dataset", "csv"):
            raise ObjectiveError(
                "initial pipelines are only for full model selection (a dataset or CSV file), "
                f"not for a {self.kind} objective"
            )
        from optuna_psms.fms._initial import PORTFOLIOS

        if self.initial_pipelines not in PORTFOLIOS:
            raise ObjectiveError(
                f"unknown initial pipelines {self.initial_pipelines!r}; choose one of "
                f"{', '.join(PORTFOLIOS)} (or None)"
            )

    def initial_trials(self, objective: Objective | None = None) -> list[dict[str, Any]]:
        """The parameters of the initial pipelines that every new study of the comparison
        enqueues first (empty without ``initial_pipelines``).

        They depend on the data (columns, classes) and the metric only, not on the seed, so
        every sampler and seed starts from the same ones.

        Args:
            objective: This spec's built objective, if at hand (else built here).

        Raises:
            ObjectiveError: As :meth:`build`.
        """
        self._check_initial()
        if self.initial_pipelines is None:
            return []
        from optuna_psms.fms._initial import default_pipelines

        built: Any = objective if objective is not None else self.build(0)
        return default_pipelines(built.space, built.context, built.metric, self.initial_pipelines)

    def _bbob_objective(self) -> Objective:
        from optuna_psms.benchmarks import bbob

        function_id = parse_bbob(self.name)
        assert function_id is not None
        if not self.shifted:
            raise ObjectiveError("--no-shift is for the nine functions; bbob instances move f")
        if self.dim < 1:
            raise ObjectiveError("--dim must be at least 1")
        if self.instance < 1:
            raise ObjectiveError(f"--instance must be at least 1, not {self.instance}")
        try:
            return bbob.make_objective(function_id, self.dim, self.instance)
        except ImportError as exc:
            raise ObjectiveError(str(exc)) from None

    def _fms_objective(self, seed: int | None) -> Objective:
        from optuna_psms.fms import make_objective

        X, y = self.load()
        self._check_classification(y)
        try:
            # Single-objective (no complexity=): the objective returns one float.
            return cast(
                Objective,
                make_objective(
                    X,
                    y,
                    cv=self.cv,
                    metric=self.metric,
                    subsample=self.subsample,
                    random_state=seed,
                ),
            )
        except ValueError as exc:
            raise ObjectiveError(str(exc)) from None

    def _check_classification(self, y: Any) -> None:
        """Refuse a continuous target with the way out: compare is classification only."""
        from optuna_psms.fms.target import check_not_continuous

        try:
            check_not_continuous(y, self.cv)
        except ValueError as exc:
            # The message names the Python class; on the command line it is select --task.
            head = str(exc).split(": for regression", 1)[0].removeprefix("y ")
            where = f"column {self.target!r}" if self.kind == "csv" else f"of {self.name}"
            raise ObjectiveError(
                f"the target {where} {head}: compare does classification only; for a "
                "regression use optuna-psms select --task regression, or compare "
                "--objective MODULE:NAME with NAME = optuna_psms.fms.make_objective(X, y, "
                "space=RegressionSpace()) (docs/compare.md shows how)"
            ) from None

    def _import(self) -> Objective:
        module_name, sep, attr = self.name.partition(":")
        if not sep or not module_name or not attr:
            raise ObjectiveError(f"--objective must be MODULE:FUNCTION, got {self.name!r}")
        if self.path and self.path not in sys.path:
            sys.path.insert(0, self.path)
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:  # ImportError, or whatever the module raises on import
            raise ObjectiveError(
                f"cannot import module {module_name!r}: {type(exc).__name__}: {exc}"
            ) from None
        target: Any = module
        for part in attr.split("."):
            if not hasattr(target, part):
                raise ObjectiveError(f"module {module_name!r} has no attribute {attr!r}")
            target = getattr(target, part)
        if not callable(target):
            raise ObjectiveError(f"{self.name} is not callable")
        objective: Objective = target
        return objective
