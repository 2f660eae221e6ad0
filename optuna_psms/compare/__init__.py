"""Compare samplers on one objective: several samplers x seeds, one study each, a table with
a paired test against a baseline, and an HTML report. Behind ``optuna-psms compare``.

.. testcode::

    from optuna_psms.compare import compare_samplers

    result = compare_samplers(
        "rastrigin", ["pso", "random"], dim=3, n_seeds=2, n_trials=20, baseline="random"
    )
    print(result.format_table())
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from typing import Any

import optuna

from optuna_psms.compare._objective import Objective
from optuna_psms.compare._objective import ObjectiveError
from optuna_psms.compare._objective import ObjectiveSpec
from optuna_psms.compare._run import execute
from optuna_psms.compare._stats import format_table
from optuna_psms.compare._stats import Row
from optuna_psms.compare._stats import summarize
from optuna_psms.compare._studies import ATTR_NAME
from optuna_psms.compare._studies import ATTR_OBJECTIVE
from optuna_psms.compare._studies import ATTR_OBJECTIVE_ID
from optuna_psms.compare._studies import ATTR_SAMPLER
from optuna_psms.compare._studies import ATTR_SEED
from optuna_psms.compare._studies import ComparisonError
from optuna_psms.compare._studies import open_comparison_storage
from optuna_psms.compare._studies import parse_samplers
from optuna_psms.compare._studies import prepare
from optuna_psms.compare._studies import study_name


__all__ = [
    "ATTR_NAME",
    "ATTR_OBJECTIVE",
    "ATTR_OBJECTIVE_ID",
    "ATTR_SAMPLER",
    "ATTR_SEED",
    "Comparison",
    "ComparisonError",
    "ObjectiveError",
    "ObjectiveSpec",
    "Row",
    "compare_samplers",
    "study_name",
]

# What a full-model-selection comparison's values are, for its HTML report (the terminal
# table's title says the same in short).
FMS_VALUE_NOTE = (
    "Each value is a search's own cross-validated score on all rows (no rows held out), "
    "the best of its trials: optimistic, not an estimate of the error on new data "
    "(optuna-psms select holds rows out for that). Use it to compare the samplers."
)


@dataclass
class Comparison:
    """The studies of a finished (or resumed) comparison.

    Attributes:
        name: The comparison's name, prefix of its study names.
        description: What was optimised.
        metric_name: Name of the values shown (the table's title, the report's axes).
        baseline: Sampler the others are tested against (``None``: no test).
        studies: ``sampler -> studies``, one per seed, in seed order.
        direction: ``"minimize"`` or ``"maximize"``: the studies' direction.
        value_note: What the values are, when it needs saying (full model selection: each
            search's CV score on all rows, not a held-out estimate); empty otherwise.
        value_sign: The factor from a study's values to the values shown: ``-1.0`` for a
            full model selection on a scikit-learn scorer such as ``accuracy``, whose
            studies minimise ``-accuracy`` and whose table shows the accuracy (higher is
            better; see :meth:`ObjectiveSpec.shown_value`), else ``1.0``.
    """

    name: str
    description: str
    metric_name: str
    baseline: str | None
    studies: dict[str, list[optuna.Study]] = field(default_factory=dict)
    direction: str = "minimize"
    value_note: str = ""
    value_sign: float = 1.0

    @property
    def higher_is_better(self) -> bool:
        """Whether a higher value shown (``value_sign`` times a study's value) is better."""
        return (self.direction == "maximize") == (self.value_sign > 0)

    def finals(self) -> dict[str, dict[int, float]]:
        """``sampler -> {seed: best value}`` over the studies with a completed trial, as
        shown (``value_sign`` times the study's best value: an accuracy, not its negative)."""
        from optuna_psms.visualization._comparison import best_so_far

        out: dict[str, dict[int, float]] = {}
        for sampler, members in self.studies.items():
            out[sampler] = {}
            for study in members:
                curve = best_so_far(study)
                if len(curve):
                    seed = int(study.user_attrs[ATTR_SEED])
                    out[sampler][seed] = self.value_sign * float(curve[-1])
        return out

    def rows(self) -> list[Row]:
        """The table's rows (see :func:`optuna_psms.compare._stats.summarize`), of the values
        shown."""
        return summarize(self.finals(), baseline=self.baseline, maximize=self.higher_is_better)

    def format_table(self) -> str:
        """The table as text: median, IQR, wins/ties/losses and Wilcoxon p per sampler."""
        return format_table(self.rows(), self.baseline)

    def write_report(self, path: str, *, command: str | None = None) -> None:
        """Write the self-contained HTML report (figures and table) to ``path``."""
        from optuna_psms.compare._report import write_report

        write_report(self, path, command=command)


def compare_samplers(
    objective: str | ObjectiveSpec | Objective,
    samplers: str | Sequence[str],
    *,
    n_seeds: int = 5,
    n_trials: int = 100,
    dim: int = 10,
    storage: str | None = None,
    name: str | None = None,
    baseline: str | None = "tpe",
    direction: str = "minimize",
    n_workers: int = 1,
    resume: bool = False,
    publish_every: int = 0,
    progress: Callable[[int], None] | None = None,
    on_start: Callable[[int, int], None] | None = None,
    workers_sim: int = 1,
) -> Comparison:
    """Run every sampler on seeds ``0..n_seeds-1``, one study per sampler and seed.

    Each study, named ``<name>/<sampler>/seed<k>``, gets ``n_trials`` COMPLETE trials
    (failed trials are retried) and the user attrs ``compare:sampler``, ``compare:seed``,
    ``compare:objective`` and ``compare:name``. With ``resume=True`` existing studies of
    the comparison are topped up to ``n_trials`` and complete ones are left alone;
    without it, existing studies are an error. A full model selection whose
    :class:`ObjectiveSpec` has ``initial_pipelines`` enqueues them as the first trials of
    each new study (counted in ``n_trials``; those beyond it wait for a resume), never into
    a resumed one.

    Args:
        objective: A benchmark function's name (``"rastrigin"``), an
            :class:`ObjectiveSpec`, or ``objective(trial) -> float`` (a module-level
            function when ``n_workers > 1``).
        samplers: Names from :data:`optuna_psms.samplers._registry.SAMPLERS` (list or
            comma-separated).
        n_seeds: Seeds per sampler.
        n_trials: COMPLETE trials per study.
        dim: Dimensions when ``objective`` is a benchmark function's name.
        storage: Storage URL; ``None`` keeps the studies in memory (``n_workers=1``).
        name: Prefix of the study names (default: from the objective).
        baseline: Sampler the others are tested against; added to ``samplers`` when
            missing. ``None``: no test.
        direction: ``"minimize"`` or ``"maximize"`` (benchmark functions and full model
            selection minimise).
        n_workers: Worker processes, each running whole studies.
        resume: Continue an existing comparison.
        publish_every: Publish each study's figures for optuna-dashboard every this many
            trials while it runs (:class:`optuna_psms.visualization.PublishCallback`, at
            most every 10 s per study; needs plotly and optuna-dashboard). ``0``: never.
        progress: Called with the number of newly completed trials.
        on_start: Called once before running with the number of trials and of studies
            still to run.
        workers_sim: Run each study as this many asynchronous workers sharing it
            (:func:`optuna_psms.benchmarks.parallel.simulate`: that many trials running at
            once in one process, seeded log-normal durations, the same for every sampler):
            what the samplers do when trials run in parallel. ``1``: one trial after the
            other. A resumed comparison must use the number it was started with.

    Returns:
        The :class:`Comparison`.

    Raises:
        ComparisonError: Bad settings, existing studies without ``resume``, or a failing
            objective.
        ObjectiveError: The objective cannot be built.
    """
    names = parse_samplers(samplers)
    if baseline is not None:
        baseline = baseline.strip().lower()
        parse_samplers([baseline])
        if baseline not in names:
            names.append(baseline)
    if n_seeds < 1:
        raise ComparisonError("the number of seeds must be at least 1")
    if n_trials < 1:
        raise ComparisonError("the number of trials must be at least 1")
    if publish_every < 0:
        raise ComparisonError("publish_every must be 0 (never) or a number of trials")
    if isinstance(workers_sim, bool) or not isinstance(workers_sim, int) or workers_sim < 1:
        raise ComparisonError(f"workers_sim must be a whole number >= 1, not {workers_sim!r}")
    if direction not in ("minimize", "maximize"):
        raise ComparisonError(f"direction must be minimize or maximize, not {direction!r}")
    spec: ObjectiveSpec | Objective
    if isinstance(objective, str):
        spec = ObjectiveSpec("function", objective, dim=dim)
    else:
        spec = objective
    initial: list[dict[str, Any]] = []
    if isinstance(spec, ObjectiveSpec):
        built = spec.build(0)  # fail here, in one line, rather than in every worker
        initial = spec.initial_trials(built)
        description, metric_name = spec.describe(), spec.metric_name()
        shown_name, value_sign = spec.shown_value()
        identity = spec.identity()
        if spec.kind in ("function", "dataset", "csv") and direction != "minimize":
            raise ComparisonError(f"{description} is to minimize; drop the direction")
        default_name = spec.slug()
    else:
        qualname = getattr(spec, "__qualname__", type(spec).__name__)
        description = f"objective {getattr(spec, '__module__', '?')}:{qualname}"
        metric_name, default_name = "objective", qualname
        shown_name, value_sign = metric_name, 1.0
        identity = description
    name = name or default_name
    store = open_comparison_storage(storage)
    seeds = list(range(n_seeds))
    plan = prepare(
        store,
        name,
        names,
        seeds,
        n_trials,
        description,
        metric_name,
        direction,
        resume,
        identity,
        initial,
        workers_sim,
    )
    todo = [task for task, done in plan if done < task.n_trials]
    if on_start is not None:
        on_start(sum(task.n_trials - done for task, done in plan if task in todo), len(todo))
    execute(
        todo,
        spec,
        store,
        storage,
        n_workers,
        progress or (lambda n: None),
        publish_every,
    )
    result = Comparison(
        name, description, shown_name, baseline, direction=direction, value_sign=value_sign
    )
    if isinstance(spec, ObjectiveSpec) and spec.kind in ("dataset", "csv"):
        result.value_note = FMS_VALUE_NOTE
    for task, _ in plan:
        study = optuna.load_study(study_name=task.study_name, storage=store)
        result.studies.setdefault(task.sampler, []).append(study)
    return result
