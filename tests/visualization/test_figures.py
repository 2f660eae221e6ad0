"""optuna_psms.visualization: the figures show what the samplers' records say."""

from __future__ import annotations

import inspect
import math
from typing import Any

import numpy as np
import optuna
from optuna.distributions import CategoricalDistribution
from optuna.distributions import FloatDistribution
import plotly.graph_objects as go
import pytest

from optuna_psms import PatternSearchSampler
from optuna_psms import visualization
from optuna_psms.samplers._records import load
from optuna_psms.visualization import plot_choice_importances
from optuna_psms.visualization import plot_generations
from optuna_psms.visualization import plot_loss_by_method
from optuna_psms.visualization import plot_model_choices
from optuna_psms.visualization import plot_population
from tests.samplers import make
from tests.samplers import SAMPLERS
from tests.test_docstrings import _examples


def _objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -5, 5)
    y = trial.suggest_int("y", -5, 5)
    c = trial.suggest_categorical("c", ["a", "b"])
    if x > 4.5:
        raise optuna.TrialPruned()  # some trials are not complete
    return x**2 + y**2 + (c == "b")


@pytest.fixture(scope="module")
def studies() -> dict[str, optuna.Study]:
    out = {}
    for name in SAMPLERS:
        study = optuna.create_study(sampler=make(name, seed=1))
        study.optimize(_objective, n_trials=45)
        out[name] = study
    return out


def _trace(figure: go.Figure, name: str) -> Any:
    (trace,) = [t for t in figure.data if t.name is not None and t.name.startswith(name)]
    return trace


def _records(study: optuna.Study) -> dict[int, dict[str, Any]]:
    out = {}
    for t in study.get_trials(deepcopy=False):
        rec = load(t.system_attrs)
        assert rec is not None
        out[t.number] = rec
    return out


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_population_shows_every_trial_coloured_by_generation(
    name: str, studies: dict[str, optuna.Study]
) -> None:
    study = studies[name]
    records = _records(study)
    figure = plot_population(study, params=["x", "y"])
    assert isinstance(figure, go.Figure)
    trials = _trace(figure, "trials")
    complete = [
        t for t in study.get_trials(deepcopy=False) if t.state == optuna.trial.TrialState.COMPLETE
    ]
    assert len(trials.x) == len(complete)
    # Each marker is its trial's parameters, coloured by its (run, generation) rank.
    keys = sorted({(r.get("r", 0), r["g"]) for r in records.values()})
    for t, x, y, colour in zip(complete, trials.x, trials.y, trials.marker.color):
        assert x == pytest.approx(t.params["x"], rel=1e-5)
        assert y == t.params["y"]
        rec = records[t.number]
        assert colour == keys.index((rec.get("r", 0), rec["g"]))
    others = [t for t in study.get_trials(deepcopy=False) if t not in complete]
    if others:
        assert len(_trace(figure, "failed").x) == len(others)
    # The best-so-far path ends at the study's best trial.
    best = _trace(figure, "best so far")
    assert best.text[-1].startswith(f"trial {study.best_trial.number}<br>")
    assert best.x[-1] == pytest.approx(study.best_params["x"], rel=1e-5)

    projected = plot_population(study)  # three parameters: principal components
    assert "PC1 of 3 parameters" in projected.layout.xaxis.title.text
    assert len(_trace(projected, "trials").x) == len(complete)


def test_pso_population_draws_each_particles_trajectory(studies: dict[str, optuna.Study]) -> None:
    study = studies["pso"]
    figure = plot_population(study, params=["x", "y"])
    paths = _trace(figure, "particle trajectories")
    xs = list(paths.x)
    segments: list[list[float]] = []
    current: list[float] = []
    for value in xs:
        if value is None:
            segments.append(current)
            current = []
        else:
            current.append(value)
    assert len(segments) == 5  # the default swarm: particle n % 5
    particle0 = [t.params["x"] for t in study.get_trials(deepcopy=False) if t.number % 5 == 0]
    assert segments[0] == pytest.approx(particle0, rel=1e-5)


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_generations_best_so_far_ends_at_the_best_value(
    name: str, studies: dict[str, optuna.Study]
) -> None:
    study = studies[name]
    records = _records(study)
    figure = plot_generations(study)
    so_far = _trace(figure, "best so far")
    n_generations = len({(r.get("r", 0), r["g"]) for r in records.values()})
    assert len(so_far.x) == n_generations
    assert so_far.y[-1] == pytest.approx(study.best_value, rel=1e-5)
    values = [v for v in so_far.y if v is not None]
    assert values == sorted(values, reverse=True)  # minimising: never gets worse
    spread = _trace(figure, "position spread")
    assert all(s is None or 0.0 <= s <= 0.5 for s in spread.y)


def test_generations_mark_restarts_and_convergence() -> None:
    study = optuna.create_study(sampler=PatternSearchSampler(resolution=0.1, seed=0))
    study.optimize(lambda t: (t.suggest_float("x", -1, 1) - 0.3) ** 2, n_trials=60)
    runs = {load(t.system_attrs)["r"] for t in study.trials}  # type: ignore[index]
    assert len(runs) >= 3, "the test needs restarts"
    figure = plot_generations(study)
    restarts = {s.x0 for s in figure.layout.shapes if s.line.dash == "dash"}  # both panels
    assert len(restarts) == len(runs) - 1
    converged = [t for t in study.trials if "psms:converged_run" in t.user_attrs]
    marks = _trace(figure, "run converged")
    assert len(marks.x) == len(converged)
    assert "PFC" in marks.text[0]
    assert "counted across restarts" in figure.layout.xaxis2.title.text


@pytest.mark.parametrize(
    "plot", [plot_population, plot_generations, plot_model_choices, plot_loss_by_method]
)
def test_a_tpe_study_gets_a_one_line_error(plot: Any) -> None:
    study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=0), study_name="tpe")
    study.optimize(_objective, n_trials=3)
    with pytest.raises(ValueError, match="TPESampler") as info:
        plot(study)
    message = str(info.value)
    assert "\n" not in message and plot.__name__ in message and "'tpe'" in message


def test_population_rejects_bad_params(studies: dict[str, optuna.Study]) -> None:
    with pytest.raises(ValueError, match="two parameter names"):
        plot_population(studies["pso"], params=["x"])
    with pytest.raises(ValueError, match="suggested both"):
        plot_population(studies["pso"], params=["x", "nope"])


# ------------------------------------------------------------------ full model selection
_CLASSIFIERS = ["svc", "knn", "naive_bayes"]
_N_MASK = 2000  # a wide joint mask (a 10,000-feature study has the same shape)


def _fms_study(n_trials: int = 30) -> optuna.Study:
    """A synthetic full-model-selection study: the parameter names of fms.space."""
    study = optuna.create_study(study_name="fms")
    study.set_metric_names(["BER"])
    bit = CategoricalDistribution([False, True])
    for n in range(n_trials):
        clf = _CLASSIFIERS[n % 3] if n < 15 else "svc"  # the search settles on svc
        fs = "mask" if n % 2 else "none"
        params: dict[str, Any] = {
            "clf:method": clf,
            "fs:method": fs,
            "pre:standardize": n % 4 == 0,
            f"clf:{clf}:C": 1.0 + n,
        }
        dists: dict[str, Any] = {
            "clf:method": CategoricalDistribution(_CLASSIFIERS),
            "fs:method": CategoricalDistribution(["none", "mask"]),
            "pre:standardize": bit,
            f"clf:{clf}:C": FloatDistribution(0.1, 100.0),
        }
        kept = _N_MASK
        if fs == "mask":
            bits = [(i * 7 + n) % 3 != 0 for i in range(_N_MASK)]
            params.update({f"fs:mask:{i:04d}": b for i, b in enumerate(bits)})
            dists.update({f"fs:mask:{i:04d}": bit for i in range(_N_MASK)})
            kept = sum(bits)
        value = {"svc": 0.1, "knn": 0.3, "naive_bayes": 0.5}[clf] + 0.001 * n
        study.add_trial(
            optuna.trial.create_trial(
                params=params,
                distributions=dists,
                value=value,
                user_attrs={"fms:n_features": kept},
            )
        )
    return study


def test_model_choices_shares_per_group_of_trials() -> None:
    study = _fms_study()
    figure = plot_model_choices(study, n_bins=3)
    bars = {t.name: t for t in figure.data if t.legendgroup == "classifier"}
    assert set(bars) == set(_CLASSIFIERS)
    assert list(bars["svc"].x) == ["0-9", "10-19", "20-29"]
    for i in range(3):
        assert sum(bars[c].y[i] for c in _CLASSIFIERS) == pytest.approx(1.0)
    # trials 0-9: 4 svc (0,3,6,9); 20-29: all svc.
    assert bars["svc"].y[0] == pytest.approx(0.4)
    assert bars["svc"].y[2] == pytest.approx(1.0)
    standardize = _trace(figure, "standardize")
    assert standardize.y[0] == pytest.approx(0.3)  # 0, 4, 8
    # Each preprocessing line is named in its panel's title, in the line's colour: the
    # dashboard's panel scrolls the legend, whose preprocessing entries were out of sight.
    title = figure.layout.annotations[2].text
    lines = [t for t in figure.data if t.legendgroup == "preprocessing"]
    assert lines and title.startswith("preprocessing on: ")
    for line in lines:
        assert f"<span style='color:{line.line.color}'>{line.name}</span>" in title
    with pytest.raises(ValueError, match="n_bins"):
        plot_model_choices(study, n_bins=0)


def _default_pool_study(seed: int, n_trials: int) -> optuna.Study:
    """Trials of the default FullModelSpace, suggested and not fitted (value 0)."""
    from optuna_psms.fms import FullModelSpace

    space = FullModelSpace()
    context = space.context(20, 2, 100)

    def objective(trial: optuna.Trial) -> float:
        space.suggest(trial, context)
        return 0.0

    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=seed))
    study.optimize(objective, n_trials=n_trials)
    return study


def _choice_colours(figure: go.Figure) -> dict[tuple[str, str], str]:
    colours = {}
    for trace in figure.data:
        colour = trace.line.color if trace.legendgroup == "preprocessing" else trace.marker.color
        colours[trace.legendgroup, trace.name] = colour
    return colours


def _lab(colour: str) -> np.ndarray[Any, Any]:
    """CIELAB (D65) of a plotly colour (``"#1f77b4"`` or ``"rgb(57, 105, 172)"``)."""
    from plotly.colors import hex_to_rgb
    from plotly.colors import unlabel_rgb

    rgb = np.asarray(
        hex_to_rgb(colour) if colour.startswith("#") else unlabel_rgb(colour), dtype=float
    )
    c = rgb / 255
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    xyz = (
        np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
        @ linear
        / np.array([0.95047, 1.0, 1.08883])
    )
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _ciede2000(lab1: np.ndarray[Any, Any], lab2: np.ndarray[Any, Any]) -> float:
    """The CIEDE2000 colour difference (Sharma, Wu and Dalal 2005): about 1 is just
    noticeable; plotly's D3 palette has no two colours closer than 16."""
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    mean_c = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(mean_c**7 / (mean_c**7 + 25.0**7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = np.hypot(a1, b1), np.hypot(a2, b2)
    h1, h2 = np.degrees(np.arctan2(b1, a1)) % 360, np.degrees(np.arctan2(b2, a2)) % 360
    dh = 0.0 if c1 * c2 == 0 else (h2 - h1 + 180) % 360 - 180
    dl, dc = l2 - l1, c2 - c1
    d_big_h = 2 * np.sqrt(c1 * c2) * np.sin(np.radians(dh / 2))
    mean_l, mean_c = (l1 + l2) / 2, (c1 + c2) / 2
    mean_h = h1 + h2
    if c1 * c2 != 0:
        mean_h = (h1 + h2) / 2 if abs(h1 - h2) <= 180 else (h1 + h2 + 360) / 2 % 360
    t = (
        1
        - 0.17 * np.cos(np.radians(mean_h - 30))
        + 0.24 * np.cos(np.radians(2 * mean_h))
        + 0.32 * np.cos(np.radians(3 * mean_h + 6))
        - 0.20 * np.cos(np.radians(4 * mean_h - 63))
    )
    rotation = -2 * np.sqrt(mean_c**7 / (mean_c**7 + 25.0**7))
    rotation *= np.sin(np.radians(60 * np.exp(-(((mean_h - 275) / 25) ** 2))))
    sl = 1 + 0.015 * (mean_l - 50) ** 2 / np.sqrt(20 + (mean_l - 50) ** 2)
    sc, sh = 1 + 0.045 * mean_c, 1 + 0.015 * mean_c * t
    return float(
        np.sqrt(
            (dl / sl) ** 2
            + (dc / sc) ** 2
            + (d_big_h / sh) ** 2
            + rotation * (dc / sc) * (d_big_h / sh)
        )
    )


def test_ciede2000_gives_the_published_differences() -> None:
    # Pairs 1, 7 and 17 of Sharma, Wu and Dalal's test data (2005).
    pairs = [
        ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
        ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
        ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ]
    for lab1, lab2, expected in pairs:
        assert _ciede2000(np.array(lab1), np.array(lab2)) == pytest.approx(expected, abs=1e-4)


def test_model_choices_colours_are_clearly_distinct() -> None:
    # The methods (22 then) of the default space had two oranges (naive_bayes and svcrfe, CIEDE2000
    # 5.9), two blues (7.1) and two pinks (8.5): a new user read them as one (26 Nov 2026).
    colours = _choice_colours(plot_model_choices(_default_pool_study(seed=0, n_trials=300)))
    assert len(colours) == 23  # hist_gradient_boosting joined the pool
    labs = {key: _lab(colour) for key, colour in colours.items()}
    closest = min(
        (_ciede2000(labs[a], labs[b]), a, b)
        for i, a in enumerate(labs)
        for b in list(labs)[i + 1 :]
    )
    assert closest[0] >= 15, closest  # D3's own closest pair, red and brown, is 16.2
    # Dark enough for the white background: no colour lighter than L* 80.
    assert max(lab[0] for lab in labs.values()) < 80


def test_model_choices_colours_are_distinct_and_stable_for_the_default_pool() -> None:
    # Coloured by position within each panel, xgboost (classifiers) and rf (selectors) were
    # both purple, random_forest and pca both grey (a new user's trial, 26 Nov 2026).
    study = _default_pool_study(seed=0, n_trials=300)
    colours = _choice_colours(plot_model_choices(study))
    first = study.trials[0].distributions
    for group, param in (("classifier", "clf:method"), ("feature selection", "fs:method")):
        choices = first[param]
        assert isinstance(choices, CategoricalDistribution)
        assert {m for g, m in colours if g == group} == set(map(str, choices.choices))
    assert len({m for g, m in colours if g == "preprocessing"}) >= 3
    assert len(set(colours.values())) == len(colours)
    # A method keeps its colour in a study that tried only some of the methods.
    few = _choice_colours(plot_model_choices(_default_pool_study(seed=1, n_trials=8)))
    assert len(few) < len(colours)
    assert all(colours[key] == colour for key, colour in few.items())
    # Selector bars are hatched, classifier bars solid: the two panels are not confused.
    figure = plot_model_choices(study)
    bars = [t for t in figure.data if isinstance(t, go.Bar)]
    assert {t.marker.pattern.shape for t in bars if t.legendgroup == "feature selection"} == {"/"}
    assert {t.marker.pattern.shape for t in bars if t.legendgroup == "classifier"} == {""}


@pytest.mark.parametrize("n_trials", [12, 20, 30])
def test_model_choices_x_axes_are_categories_not_dates(n_trials: int) -> None:
    # Labels such as '0-1', '2-3' are read as dates by plotly.js unless the axes are
    # category axes (a 20-trial study showed ticks like 'Oct 31, 2010' and an empty panel).
    figure = plot_model_choices(_fms_study(n_trials))
    axes = [k for k in figure.layout.to_plotly_json() if k.startswith("xaxis")]
    assert len(axes) == 3
    assert all(figure.layout[k].type == "category" for k in axes)
    if n_trials == 20:
        assert list(figure.data[0].x)[:2] == ["0-1", "2-3"]


def test_loss_by_method_has_one_box_per_method_with_its_values() -> None:
    study = _fms_study()
    figure = plot_loss_by_method(study)
    boxes = {t.name: t for t in figure.data}
    assert "svc (20)" in boxes and "knn (5)" in boxes and "naive_bayes (5)" in boxes
    assert max(boxes["knn (5)"].y) == pytest.approx(0.3 + 0.001 * 13)
    assert "mask (15)" in boxes and "standardize (8)" in boxes
    assert figure.layout.yaxis.title.text == "BER"


def test_choice_importances_summarise_the_mask_bits() -> None:
    study = _fms_study()
    figure = plot_choice_importances(study)
    (bars,) = figure.data
    names = set(bars.y)
    assert not any(n.startswith("fs:mask:") for n in names)
    assert {"clf:method", "features kept"} <= names
    importances = dict(zip(bars.y, bars.x))
    assert max(importances, key=importances.__getitem__) == "clf:method"
    assert sum(importances.values()) == pytest.approx(1.0, abs=1e-3)


def _tied_study(values: list[float]) -> optuna.Study:
    """Completed pipelines that differ in their classifier, with the given values."""
    study = optuna.create_study(study_name="tied")
    dist: dict[str, Any] = {"clf:method": CategoricalDistribution(_CLASSIFIERS)}
    for n, value in enumerate(values):
        study.add_trial(
            optuna.trial.create_trial(
                params={"clf:method": _CLASSIFIERS[n % 3]}, distributions=dist, value=value
            )
        )
    return study


def test_choice_importances_of_tied_trials_do_not_apply(caplog: Any) -> None:
    # Two iris trials both at BER 0.0273: fANOVA raised "RuntimeError: Encountered zero total
    # variance in all trees" and `select` printed its 16-line traceback (usertrial3, item 1).
    for values in ([0.0273, 0.0273], [0.1, 0.1, 0.1], [0.2, math.inf]):
        study = _tied_study(values)
        with pytest.raises(ValueError, match="plot_choice_importances"):
            plot_choice_importances(study)
        with caplog.at_level("WARNING"):
            caplog.clear()
            assert visualization.publish(study) == [
                "psms-model-choices",
                "psms-loss-by-method",
            ]
        assert caplog.records == []  # skipped silently, like any figure that does not apply
    assert plot_choice_importances(_tied_study([0.1, 0.3, 0.2])).data


def test_publish_picks_the_figures_that_apply(studies: dict[str, optuna.Study]) -> None:
    assert visualization.publish(_fms_study()) == [
        "psms-model-choices",
        "psms-loss-by-method",
        "psms-choice-importances",
    ]
    tpe = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=0))
    tpe.optimize(_objective, n_trials=3)
    assert visualization.publish(tpe) == []


def test_every_figure_is_exported_and_documented() -> None:
    for name in visualization.__all__:
        obj = getattr(visualization, name)
        doc = inspect.getdoc(obj) or ""
        assert ("Args:" if inspect.isclass(obj) else "Returns:") in doc, name
    for graph_id, plot in visualization.FIGURES.items():
        assert plot.__name__ in visualization.__all__, graph_id


CASES = [
    pytest.param(code, id=f"{name}[{i}]")
    for name in visualization.__all__
    for i, code in enumerate(_examples(inspect.getdoc(getattr(visualization, name)) or ""))
]


@pytest.mark.parametrize("code", CASES)
def test_docstring_example_runs(code: str) -> None:
    exec(compile(code, "<docstring example>", "exec"), {"__name__": "__example__"})


def test_short_keeps_six_significant_digits() -> None:
    from optuna_psms.visualization._data import short

    assert short(123456789.0) == 123457000.0
    assert short(0.000123456789) == pytest.approx(0.000123457)
    assert short(0.0) == 0.0 and math.isinf(short(math.inf))


def test_population_of_a_model_selection_has_a_symbol_per_model_and_names_pipelines() -> None:
    from sklearn.datasets import load_breast_cancer

    from optuna_psms.fms import FullModelSelector
    from optuna_psms.fms import FullModelSpace

    X, y = load_breast_cancer(return_X_y=True)
    rows = list(range(40)) + list(range(300, 340))
    space = FullModelSpace(classifiers=["naive_bayes", "logistic"], selectors=["none"])
    model = FullModelSelector(
        final_check=None, space=space, sampler="pso", n_trials=12, random_state=0
    )
    study = model.fit(X[rows, :5], y[rows]).study_
    figure = plot_population(study)
    traces = {t.name: t for t in figure.data if t.legendgroup == "models"}
    assert sorted(traces) == ["logistic", "naive_bayes"]
    assert {t.legendgrouptitle.text for t in traces.values()} == {"trials by model"}
    complete = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    assert sum(len(t.x) for t in traces.values()) == len(complete)
    assert len({t.marker.symbol for t in traces.values()}) == 2
    assert [t.marker.showscale for t in traces.values()] == [True, False]  # one colour bar
    by_number = {t.number: t for t in complete}
    for name, trace in traces.items():
        for text in trace.text:
            number = int(text.split("<br>")[0].removeprefix("trial "))
            trial = by_number[number]
            assert trial.params["clf:method"] == name
            assert text.endswith(trial.user_attrs["fms:pipeline"][:200])


def test_population_legend_of_many_models_stays_right_of_the_plot() -> None:
    # One legend entry per model (10 in the default pool) above the plot wrapped to 5 rows
    # over the title and the dashboard's toolbar (usertrial3, 26 Nov 2026): the legend is a
    # column right of the plot, the colour bar horizontal below it, both in the right margin.
    from optuna_psms import PSOSampler
    from optuna_psms.fms import FullModelSpace

    space = FullModelSpace()
    context = space.context(20, 2, 100)

    def objective(trial: optuna.Trial) -> float:
        space.suggest(trial, context)
        if trial.number % 7 == 3:
            raise optuna.TrialPruned()  # a "failed / pruned / running" entry too
        return 0.1 * (trial.number % 5)

    study = optuna.create_study(sampler=PSOSampler(seed=0))
    study.optimize(objective, n_trials=120)
    figure = plot_population(study)
    models = [t for t in figure.data if t.legendgroup == "models"]
    assert len(models) == 10
    legend = figure.layout.legend
    assert legend.orientation == "v" and legend.xanchor == "left" and legend.x > 1
    assert legend.yanchor == "top" and legend.y == 1
    (bar,) = [t.marker.colorbar for t in figure.data if t.marker.showscale]
    assert bar.orientation == "h" and bar.x == legend.x and bar.y == 0
    assert bar.yanchor == "bottom" and bar.lenmode == "pixels"
    # The entries (about 19 px each, and the group title) and the bar fit the plot's height.
    margin = figure.layout.margin
    plot_height = figure.layout.height - margin.t - margin.b
    entries = sum(t.showlegend is not False for t in figure.data) + 1
    assert entries == 14
    assert entries * 19 + bar.thickness + 40 <= plot_height


def test_model_choices_legends_show_every_method_most_chosen_first() -> None:
    # One legend of one entry a line scrolled in the dashboard's 450 px box: the most used
    # selectors ("none", "ftest") were out of sight, and a wine study showed a
    # "preprocessing" heading with no entries under it (usertrial3, 26 Nov 2026).
    study = _default_pool_study(seed=0, n_trials=300)
    figure = plot_model_choices(study)
    layout = figure.layout
    legends = {"classifier": layout.legend, "feature selection": layout.legend2}
    margin = layout.margin
    plot_height = layout.height - margin.t - margin.b
    bottoms = []
    for group, param, legend_id in (
        ("classifier", "clf:method", "legend"),
        ("feature selection", "fs:method", "legend2"),
    ):
        bars = [t for t in figure.data if t.legendgroup == group]
        assert {t.legend or "legend" for t in bars} == {legend_id}
        assert all(t.showlegend is not False for t in bars)
        counts = [sum(str(t.params.get(param)) == bar.name for t in study.trials) for bar in bars]
        assert len(bars) >= 9 and counts == sorted(counts, reverse=True)  # most chosen first
        legend = legends[group]
        assert legend.title.text == group and legend.orientation == "h"
        assert legend.x > 1 and legend.xanchor == "left" and legend.yanchor == "top"
        assert legend.traceorder == "normal"
        # Two columns: the title and ceil(n / 2) lines of 19 px (plotly.js's least line).
        top = (1 - legend.y) * plot_height
        bottoms.append((top, top + (1 + math.ceil(len(bars) / 2)) * 19))
        assert 2 * (legend.entrywidth + 40) <= 260 and legend.entrywidthmode == "pixels"
    (top1, bottom1), (top2, bottom2) = bottoms
    assert top1 == 0 and bottom1 < top2 and bottom2 <= plot_height  # no overlap, no scroll
    # The preprocessing lines are named in their panel's title, not in a legend: no heading.
    lines = [t for t in figure.data if t.legendgroup == "preprocessing"]
    assert lines and all(t.showlegend is False for t in lines)
    assert all(t.legendgrouptitle.text is None for t in figure.data)
