"""How the built-in components' cost grows with the data, and the size rule of the pool.

Every built-in component declares a :class:`ComponentCost`: how its fit time grows with the
rows and with the features (the exponents of ``rows ** a * features ** b``), and the number of
rows above which one fit cannot finish in reasonable time or memory on a two-core machine
(``max_rows``; ``None``: no limit). The rule applies to the rows given to ``fit`` (the refit
of the chosen pipelines is on all of them; a CV fold sees fewer):

==================================  ==========  ============================================
component                           max rows    why
==================================  ==========  ============================================
``kridge`` (both pools)             5,000       a dense rows x rows kernel matrix (rows² memory,
                                                rows³ time): 200 MB and tens of seconds at
                                                5,000 rows, 5.6 GB at 15,000 (issue 32)
``svc``, ``svr``                    10,000      libsvm's time grows as rows² to rows³ (the same
                                                limit as the final check's SVC)
``knn`` (regression)                100,000     each prediction scans the training rows
``gradient_boosting`` (both)        100,000     exact split search over sorted columns;
                                                ``hist_gradient_boosting`` does the same on bins
``random_forest`` (both), ``rf``    200,000     full-depth trees hold about two nodes per row,
                                                up to 300 trees (memory)
``svcrfe``, ``mutual_info``         200,000     a linear SVC refitted per eliminated feature;
                                                k-nearest-neighbour estimates per feature
==================================  ==========  ============================================

In the default pool (``space=None``) a component above its limit is left out of the search,
and one ``UserWarning`` names what and why; a pool the user chose keeps its components and
the warning says which of them may not finish (``trial_timeout`` or ``time_budget`` bound
them). :func:`refit_seconds` uses the row exponent to estimate, from a trial's fold times,
what refitting its pipeline on all the rows costs (the time budget's reserve).
"""

from __future__ import annotations

import copy
import dataclasses
from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from optuna_psms.fms.space import FullModelSpace


@dataclasses.dataclass(frozen=True)
class ComponentCost:
    """How one component's fit time grows: ``rows ** rows_exponent * features **
    features_exponent``; ``max_rows``: the size above which it is left out (``None``: never);
    ``why``: the reason said when it is."""

    rows_exponent: float = 1.0
    features_exponent: float = 1.0
    max_rows: int | None = None
    why: str = ""


_KERNEL = "a dense rows x rows kernel matrix: memory grows as rows², time as rows³"
_LIBSVM = "libsvm's fit time grows as rows² to rows³"
_EXACT = "exact split search over sorted columns (hist_gradient_boosting bins them)"
_FOREST = "full-depth trees hold about two nodes per row, up to 300 trees (memory)"

#: The cost of each built-in component, keyed ``"<kind>:<name>"``; the regression pool's
#: regressors are ``"regressor:<name>"``. A component absent here costs ``ComponentCost()``.
COSTS: dict[str, ComponentCost] = {
    "classifier:kridge": ComponentCost(3.0, 1.0, 5_000, _KERNEL),
    "regressor:kridge": ComponentCost(3.0, 1.0, 5_000, _KERNEL),
    "classifier:svc": ComponentCost(2.0, 1.0, 10_000, _LIBSVM),
    "regressor:svr": ComponentCost(2.0, 1.0, 10_000, _LIBSVM),
    "regressor:knn": ComponentCost(2.0, 1.0, 100_000, "each prediction scans the training rows"),
    "classifier:gradient_boosting": ComponentCost(1.1, 1.0, 100_000, _EXACT),
    "regressor:gradient_boosting": ComponentCost(1.1, 1.0, 100_000, _EXACT),
    "classifier:random_forest": ComponentCost(1.1, 0.5, 200_000, _FOREST),
    "regressor:random_forest": ComponentCost(1.1, 0.5, 200_000, _FOREST),
    "selector:rf": ComponentCost(1.1, 0.5, 200_000, _FOREST),
    "selector:svcrfe": ComponentCost(
        1.5, 2.0, 200_000, "a linear SVC refitted for every eliminated feature"
    ),
    "selector:mutual_info": ComponentCost(
        1.1, 1.0, 200_000, "k-nearest-neighbour estimates for every feature"
    ),
    "classifier:hist_gradient_boosting": ComponentCost(1.0, 1.0),
    "regressor:hist_gradient_boosting": ComponentCost(1.0, 1.0),
    "classifier:xgboost": ComponentCost(1.0, 1.0),
    "regressor:xgboost": ComponentCost(1.0, 1.0),
}


def cost_of(kind: str, name: str) -> ComponentCost:
    """The declared cost of component ``name`` of ``kind`` (``ComponentCost()`` if none)."""
    return COSTS.get(f"{kind}:{name}", ComponentCost())


def too_large(space: FullModelSpace, n_rows: int) -> list[tuple[str, str, ComponentCost]]:
    """The ``(kind, name, cost)`` of the components of ``space`` above their ``max_rows``."""
    found: list[tuple[str, str, ComponentCost]] = []
    for kind, components in (
        (space.model_kind, space.classifiers),
        ("selector", space.selectors),
    ):
        for comp in components:
            cost = cost_of(kind, comp.name)
            if cost.max_rows is not None and n_rows > cost.max_rows:
                found.append((kind, comp.name, cost))
    return found


#: What :func:`size_line` says of the default pool's components above their size.
LEFT_OUT = "left out of the default pool"
#: What it says of a chosen pool's.
MAY_NOT_FINISH = "may not finish"


def size_line(found: list[tuple[str, str, ComponentCost]], n_rows: int, left_out: bool) -> str:
    """One line naming the components of ``found`` and why they do not scale to ``n_rows``."""
    parts = [f"{name} (above {cost.max_rows:,} rows: {cost.why})" for _, name, cost in found]
    what = LEFT_OUT if left_out else MAY_NOT_FINISH
    tail = "" if left_out else "; trial_timeout or time_budget bounds each trial"
    return f"{n_rows:,} rows: {what}: {'; '.join(parts)}{tail}"


def scaled_space(space: FullModelSpace, n_rows: int) -> tuple[FullModelSpace, str | None]:
    """``space`` without the components above their size limit for ``n_rows``, and the line
    saying which and why (``None`` when none is). The model kind keeps at least one."""
    found = too_large(space, n_rows)
    if not found:
        return space, None
    gone = {(kind, name) for kind, name, _ in found}
    models = [c for c in space.classifiers if (space.model_kind, c.name) not in gone]
    if not models:
        return space, size_line(found, n_rows, left_out=False)
    out = copy.copy(space)
    out.classifiers = models
    out.selectors = [c for c in space.selectors if ("selector", c.name) not in gone]
    return out, size_line(found, n_rows, left_out=True)


def fit_pool(
    space: FullModelSpace, n_rows: int, chosen: bool
) -> tuple[FullModelSpace, str | None]:
    """The pool a search on ``n_rows`` rows uses, and the line to say (``None``: nothing to
    say): the default pool (``chosen=False``) without the components above their limit; a
    pool the user chose, unchanged, with a line naming those that may not finish."""
    if not chosen:
        return scaled_space(space, n_rows)
    found = too_large(space, n_rows)
    return space, (size_line(found, n_rows, left_out=False) if found else None)


def refit_seconds(fold_seconds: float, fold_rows: int, n_rows: int, kind: str, name: str) -> float:
    """Seconds a fit on ``n_rows`` rows should take, from one fold's ``fold_seconds`` on
    ``fold_rows`` rows, by the component's row exponent (at least linear)."""
    exponent = max(cost_of(kind, name).rows_exponent, 1.0)
    return float(fold_seconds * (max(n_rows, 1) / max(fold_rows, 1)) ** exponent)
