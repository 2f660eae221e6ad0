"""Hostile storage: records are untrusted input (issue 8, item 5).

Real records written by every sampler are tampered with (one field, or the whole stored value)
and put back into a study, which then keeps optimizing with a fresh sampler. Whatever the
tampering: no exception, no error logged, every suggested value inside its distribution, no
strategy container grown by a stored number, and exactly one warning for the study however
many records are bad and however often they are re-read.

The default run is a few seconds; ``HYPOTHESIS_PROFILE=hostile-slow`` (or the slow-marked
test) explores many more examples.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator
import contextlib
import functools
import json
import logging
import math
import os
from pathlib import Path
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
from typing import Any

from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
import optuna
from optuna.distributions import BaseDistribution
from optuna.distributions import CategoricalDistribution
from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution
from optuna.trial import create_trial
from optuna.trial import FrozenTrial
from optuna.trial import TrialState
import pytest

from optuna_psms import BUMDASampler
from optuna_psms import DynamicRandomSampler
from optuna_psms import FocusedGridSampler
from optuna_psms import PatternSearchSampler
from optuna_psms import PSOSampler
from optuna_psms import UMDASampler
from optuna_psms.samplers import _records
from optuna_psms.samplers._adapter import PopulationSampler
from tests import REPO


# Small populations, so that a short study goes through several generations.
SAMPLERS: dict[str, Callable[[], PopulationSampler]] = {
    "pso": lambda: PSOSampler(swarm_size=3, seed=0),
    "pattern": lambda: PatternSearchSampler(seed=0),
    "dfgs": lambda: FocusedGridSampler(mode="deterministic", depth=4, seed=0),
    "afgs": lambda: FocusedGridSampler(mode="annealed", depth=4, seed=0),
    "umda": lambda: UMDASampler(population_size=4, seed=0),
    "bumda": lambda: BUMDASampler(population_size=4, seed=0),
    "drs": lambda: DynamicRandomSampler(batch_size=4, seed=0),
}
PARAMS = ["x", "y", "k", "c"]
N_BASE = 14  # trials of the study the records come from (the last one left RUNNING)
N_MORE = 6  # trials run after the tampering
WARNING = "ignores the stored record"
LOGGER = "optuna_psms"  # the adapter, the study view and the lifecycle log under it


def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -5.0, 5.0)
    y = trial.suggest_float("y", 1e-3, 1.0, log=True)
    k = trial.suggest_int("k", 0, 10)
    c = trial.suggest_categorical("c", ["a", "b", "c"])
    return x**2 + math.log(y) ** 2 + (k - 3) ** 2 + (c != "b")


@functools.cache
def base_trials(name: str) -> tuple[FrozenTrial, ...]:
    """A real study of ``name``: N_BASE - 1 finished trials and one left RUNNING."""
    study = optuna.create_study(sampler=SAMPLERS[name]())
    study.optimize(objective, n_trials=N_BASE - 1)
    trial = study.ask()
    objective(trial)  # suggested (its record is written), never told
    return tuple(study.get_trials(deepcopy=False))


def record_of(trial: FrozenTrial) -> dict[str, Any]:
    rec = _records.load(trial.system_attrs)
    assert rec is not None
    return rec


def rec_attrs(system_attrs: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in system_attrs.items() if not k.startswith(_records.KEY)}


def text_attrs(text: str, chunks: int = 1) -> dict[str, Any]:
    """Record text stored as one value, or split in ``chunks`` chunks (as the writer does)."""
    if chunks == 1:
        return {_records.KEY: text}
    size = -(-len(text) // chunks)
    parts = [text[i : i + size] for i in range(0, len(text), size)]
    attrs: dict[str, Any] = {f"{_records.KEY}:{i}": p for i, p in enumerate(parts)}
    attrs[f"{_records.KEY}:n"] = len(parts)
    return attrs


def study_with(name: str, replaced: dict[int, dict[str, Any]]) -> optuna.Study:
    """A copy of ``name``'s base study, trial ``i``'s record attrs replaced by ``replaced[i]``."""
    study = optuna.create_study(sampler=SAMPLERS[name]())
    for t in base_trials(name):
        attrs = dict(t.system_attrs)
        if t.number in replaced:
            attrs = {**rec_attrs(attrs), **replaced[t.number]}
        study.add_trial(
            create_trial(
                state=t.state,
                value=t.value if t.state == TrialState.COMPLETE else None,
                params=t.params,
                distributions=t.distributions,
                user_attrs=t.user_attrs,
                system_attrs=attrs,
            )
        )
    return study


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextlib.contextmanager
def watched(seconds: int = 60) -> Iterator[_Collect]:
    """Collect the adapter's warnings; fail (instead of hanging forever) after ``seconds``.

    The watchdog is not a timing assertion: the work here takes well under a second, so it
    only fires on a genuine hang (a loop driven by a stored number).
    """

    def hung(signum: int, frame: Any) -> None:
        raise TimeoutError(f"no answer after {seconds} s: a stored number drives a loop")

    handler = _Collect()
    logger = logging.getLogger(LOGGER)
    logger.addHandler(handler)
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield handler
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        logger.removeHandler(handler)


def inside(value: Any, dist: BaseDistribution) -> bool:
    if isinstance(dist, CategoricalDistribution):
        return value in dist.choices
    if isinstance(dist, IntDistribution):
        return isinstance(value, int) and dist.low <= value <= dist.high
    assert isinstance(dist, FloatDistribution)
    return isinstance(value, float) and math.isfinite(value) and dist.low <= value <= dist.high


def container_sizes(obj: Any) -> Iterator[tuple[str, int]]:
    for key, value in vars(obj).items():
        if isinstance(value, (list, dict, set)):
            yield key, len(value)


def continue_and_check(study: optuna.Study, n_warnings: int) -> None:
    """Run N_MORE trials; check the outcome and the number of warnings."""
    sampler = study.sampler
    assert isinstance(sampler, PopulationSampler)
    with watched() as log:
        study.optimize(objective, n_trials=N_MORE)
        for _ in range(2):  # ask-and-tell re-reads the RUNNING trials too
            trial = study.ask()
            study.tell(trial, objective(trial))
    errors = [r.getMessage() for r in log.records if r.levelno >= logging.ERROR]
    assert not errors, errors
    warned = [r.getMessage() for r in log.records if WARNING in r.getMessage()]
    assert len(warned) == n_warnings, warned
    trials = study.get_trials(deepcopy=False)
    assert len(trials) == N_BASE + N_MORE + 2
    for t in trials[N_BASE:]:
        assert t.state == TrialState.COMPLETE
        for p, value in t.params.items():
            assert inside(value, t.distributions[p]), (t.number, p, value)
    # Never allocated by a stored number: every container of every strategy stays within
    # a multiple of the trials the study has (a generation of 10**12 would show here).
    (view,) = sampler._views.values()
    for strategy in view.strategies.values():
        for key, size in container_sizes(strategy):
            assert size <= 50 * len(trials), (type(strategy).__name__, key, size)


# --------------------------------------------------------------------------- the reader
names = st.text(min_size=1, max_size=12)
unit = st.floats(0.0, 1.0)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    number=st.integers(0, 10**6),
    data=st.data(),
    x=st.dictionaries(names, unit, max_size=20),
    v=st.dictionaries(names, st.floats(-1e6, 1e6), max_size=20),
    info=st.dictionaries(
        st.text(max_size=10),
        st.one_of(st.none(), st.booleans(), st.integers(-(2**53), 2**53), st.text(max_size=50)),
        max_size=5,
    ),
)
def test_every_record_the_writer_makes_reads_back_equal(
    number: int,
    data: st.DataObject,
    x: dict[str, float],
    v: dict[str, float],
    info: dict[str, Any],
) -> None:
    rec = _records.make(
        "pso",
        seed=data.draw(st.integers(0, 2**64)),
        run=data.draw(st.integers(0, number)),
        run_start=data.draw(st.integers(0, number)),
        member=data.draw(st.integers(-1, 2**53)),
        generation=data.draw(st.integers(-1, 2**53)),
        x=x,
        vectors={"v": v},
        info=info,
    )
    assert _records.read(_records.dump(rec), "pso", number) == rec
    assert _records.read(_records.dump(rec), "umda", number) == (
        "record of another sampler ('pso', not 'umda')"
    )


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        ({"rs": -(10**12)}, "field 'rs' is -1000000000000, outside [0, 7]"),
        ({"r": 8}, "field 'r' is 8, outside [0, 7]"),
        ({"g": "3"}, "field 'g' is '3', not an integer"),
        ({"m": True}, "field 'm' is True, not an integer"),
        ({"s": -1}, "field 's' is -1, outside [0, inf)"),
        ({"x": {"p": 1e308}}, "'p' of field 'x' is 1e+308, outside [0.0, 1.0]"),
        ({"x": [0.5]}, "field 'x' is [0.5], not an object"),
        ({"vec": {"v": {"p": "0.1"}}}, "'p' of vector 'v' is '0.1', not a number"),
        ({"info": {"w": "z" * 300}}, "info 'w' is a string of 300 characters"),
        ({"ver": 2}, "record version 2 (this package reads 1)"),
    ],
)
def test_an_invalid_field_is_named_in_one_line(edit: dict[str, Any], reason: str) -> None:
    rec = {
        **_records.make(
            "pso",
            seed=0,
            run=0,
            run_start=0,
            member=1,
            generation=2,
            x={"p": 0.5},
            vectors={"v": {"p": 0.1}},
            info={"w": 1.2},
        ),
        **edit,
    }
    assert _records.read(_records.dump(rec), "pso", 7) == reason


# --------------------------------------------------------------------------- controls
@pytest.mark.parametrize("name", list(SAMPLERS))
def test_an_untouched_copy_raises_no_warning(name: str) -> None:
    victim = base_trials(name)[5]
    # A record moved to chunks (as the writer does for long records) reads the same.
    chunked = text_attrs(_records.dump(record_of(victim))[_records.KEY], chunks=3)
    continue_and_check(study_with(name, {5: chunked}), n_warnings=0)


RESTARTING: dict[str, Callable[[], PopulationSampler]] = {
    "pso": lambda: PSOSampler(swarm_size=3, seed=0),  # never converges
    "pattern": lambda: PatternSearchSampler(resolution=0.2, seed=0),
    "dfgs": lambda: FocusedGridSampler(mode="deterministic", depth=3, seed=0),
    "afgs": lambda: FocusedGridSampler(mode="annealed", depth=2, points_per_level=3, seed=0),
    "umda": lambda: UMDASampler(population_size=4, n_generations=3, seed=0),
    "bumda": lambda: BUMDASampler(population_size=4, n_generations=3, seed=0),
    "drs": lambda: DynamicRandomSampler(batch_size=4, n_batches=3, seed=0),
}


@pytest.mark.parametrize("name", list(RESTARTING))
def test_every_record_a_sampler_writes_passes_its_own_checks(name: str) -> None:
    """No false alarm: restarts, threads, failures, enqueued and added trials, a resume."""

    def sometimes_failing(trial: optuna.Trial) -> float:
        value = objective(trial)
        if trial.number % 7 == 3:
            raise ValueError("a failing trial")
        return math.nan if trial.number % 11 == 5 else value

    study = optuna.create_study(sampler=RESTARTING[name]())
    study.enqueue_trial({"x": 1.0, "k": 3})
    with watched() as log:
        study.optimize(sometimes_failing, n_trials=30, n_jobs=2, catch=(ValueError,))
        study.add_trial(
            create_trial(
                params={"x": 0.0, "y": 0.5, "k": 2, "c": "b"},
                distributions=dict(base_trials(name)[5].distributions),
                value=1.0,
            )
        )
        study.optimize(sometimes_failing, n_trials=30, catch=(ValueError,))
        resumed = optuna.load_study(
            study_name=study.study_name, storage=study._storage, sampler=RESTARTING[name]()
        )
        resumed.optimize(sometimes_failing, n_trials=5, catch=(ValueError,))
    assert [r.getMessage() for r in log.records] == []
    runs = {t.user_attrs.get("psms:run", 0) for t in study.trials}
    # Restarted runs were written and read (PSO never converges; a DFGS level here has
    # 3^4 + 2^4 = 97 points, more than the study's trials).
    assert name in ("pso", "dfgs") or max(runs) >= 1, runs


# --------------------------------------------------------------------------- hostile values
HOSTILE_TYPES = [
    "1",
    "",
    [1],
    [0.5] * 2000,
    {"k": 1},
    None,
    True,
    1.5,
    1e308,
    -1e308,
    math.nan,
    math.inf,
    -math.inf,
]
BAD_NUMBERS = [-(10**12), 10**12, 10**400, *HOSTILE_TYPES]
OTHER_ALGORITHMS = ["pso", "pattern", "dfgs", "afgs", "umda", "bumda", "drs", "", "PSO"]


def bad_ints(field: str) -> list[Any]:
    """Values ``field`` can never hold (any non-negative integer is a valid seed)."""
    out: list[Any] = [-(10**12), -2, *HOSTILE_TYPES]
    if field != "s":
        out += [10**12, 2**64]
    return out


@st.composite
def tamper_field(draw: st.DrawFn, name: str) -> dict[str, Any]:
    """A real record of ``name`` with one field made invalid (as parsed JSON)."""
    trials = base_trials(name)
    rec: dict[str, Any] = json.loads(json.dumps(record_of(draw(st.sampled_from(trials)))))
    what = draw(st.sampled_from(["int", "x", "vec", "info", "ver", "a", "drop", "whole"]))
    if what == "int":
        field = draw(st.sampled_from(["s", "r", "rs", "m", "g"]))
        rec[field] = draw(st.sampled_from(bad_ints(field)))
    elif what == "x":
        coordinate = draw(st.sampled_from(PARAMS))  # trial 0's record has none: added
        rec["x"][coordinate] = draw(
            st.sampled_from([-(10**12), 10**12, 1.0001, -0.5, *HOSTILE_TYPES])
        )
    elif what == "vec" and rec["vec"]:
        key = draw(st.sampled_from(sorted(rec["vec"])))
        if draw(st.booleans()):
            coordinate = draw(st.sampled_from(PARAMS))
            rec["vec"][key][coordinate] = draw(
                st.sampled_from([-(10**12), 10**12, *HOSTILE_TYPES])
            )
        else:
            rec["vec"][key] = draw(st.sampled_from([[0.1, 0.2], "v", 3, None]))
    elif what == "info":
        bad = [[1], {"k": 1}, "z" * 1_000_000, math.nan, math.inf, 10**20]
        if draw(st.booleans()):
            rec["info"][draw(st.sampled_from(["w", "z" * 100, "t"]))] = draw(st.sampled_from(bad))
        else:
            rec["info"] = {f"k{i}": i for i in range(100)} if draw(st.booleans()) else [1, 2]
        if name == "afgs" and draw(st.booleans()):  # what only the annealed walk reads
            key, value = draw(
                st.sampled_from(
                    [
                        ("t", -(10**12)),
                        ("t", 10**12),
                        ("t", 1.5),
                        ("t", "3"),
                        ("u", -0.5),
                        ("u", 2.0),
                        ("u", "0.1"),
                        ("c", -5),
                        ("c", "0"),
                        ("c", 2.5),
                    ]
                )
            )
            rec["info"] = {"t": 1, "u": 0.5, "c": 0, key: value}
    elif what == "ver":
        rec["ver"] = draw(st.sampled_from([0, 2, 10**12, "1", 1.0, None, True]))
    elif what == "a":
        rec["a"] = draw(st.sampled_from([a for a in OTHER_ALGORITHMS if a != name] + [5, None]))
    elif what == "drop":  # a required field ('sl', the stored slot, is optional: records
        # written before it existed lack it and are read by the old rule)
        del rec[draw(st.sampled_from(sorted(k for k in rec if k != "sl")))]
    else:
        key = draw(st.sampled_from(["x", "vec", "info"]))
        rec[key] = draw(st.sampled_from([[0.5] * 100, "x", 7, None]))
    if what == "vec" and not rec["vec"]:
        rec["vec"] = draw(st.sampled_from([[0.1], "v", 3, None]))
    return rec


def whole_values(name: str) -> st.SearchStrategy[dict[str, Any]]:
    """Stored attrs that are not a record at all, or another sampler's record."""
    good = _records.dump(record_of(base_trials(name)[3]))[_records.KEY]
    other = st.sampled_from([n for n in SAMPLERS if n != name]).map(
        lambda n: dict(_records.dump(record_of(base_trials(n)[3])))
    )
    n_key = f"{_records.KEY}:n"
    return st.one_of(
        st.sampled_from(
            [
                {_records.KEY: "{"},
                {_records.KEY: "not json"},
                {_records.KEY: "[]"},
                {_records.KEY: "null"},
                {_records.KEY: '"text"'},
                {_records.KEY: "5"},
                {_records.KEY: "[" * 100_000 + "]" * 100_000},
                {_records.KEY: good[:-1]},
                {_records.KEY: good.replace('"x":{', '"x":{"zz":NaN,', 1)},
                {_records.KEY: good.replace('"x":{', '"x":{"zz":1e999,', 1)},
                {_records.KEY: good[:-1] + ',"pad":"' + "z" * 1_000_000 + '"}'},
                {_records.KEY: 5},
                {_records.KEY: [good]},
                {_records.KEY: {"ver": 1}},
                {_records.KEY: None},
                {**text_attrs(good, 2), n_key: 10**9},
                {**text_attrs(good, 2), n_key: 10**12},
                {**text_attrs(good, 2), n_key: -1},
                {**text_attrs(good, 2), n_key: 0},
                {**text_attrs(good, 2), n_key: "2"},
                {**text_attrs(good, 2), n_key: 2.0},
                {**text_attrs(good, 2), n_key: True},
                {**text_attrs(good, 2), n_key: 3},
                {f"{_records.KEY}:0": good, f"{_records.KEY}:1": 7, n_key: 2},
                {f"{_records.KEY}:1": good, n_key: 1},
            ]
        ),
        other,
    )


def hostile_attrs(name: str) -> st.SearchStrategy[dict[str, Any]]:
    def store(rec: dict[str, Any], chunks: int) -> dict[str, Any]:
        text = json.dumps(rec, separators=(",", ":"))  # NaN and inf as JS literals
        if len(text) > _records.CHUNK:
            chunks = max(chunks, -(-len(text) // _records.CHUNK))
        return text_attrs(text, chunks)

    return st.one_of(
        st.builds(store, tamper_field(name), st.sampled_from([1, 1, 2])),
        whole_values(name),
    )


def _check_hostile(name: str, data: st.DataObject) -> None:
    victims = data.draw(
        st.lists(st.integers(0, N_BASE - 1), min_size=1, max_size=3, unique=True), "victims"
    )
    replaced = {v: data.draw(hostile_attrs(name), f"attrs of trial {v}") for v in victims}
    continue_and_check(study_with(name, replaced), n_warnings=1)


_QUICK = settings(
    max_examples=int(os.environ.get("HOSTILE_EXAMPLES", "12")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)


@pytest.mark.parametrize("name", list(SAMPLERS))
@_QUICK
@given(data=st.data())
def test_tampered_records_are_ignored_with_one_warning(name: str, data: st.DataObject) -> None:
    _check_hostile(name, data)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SAMPLERS))
@settings(_QUICK, max_examples=300, derandomize=False)
@given(data=st.data())
def test_tampered_records_are_ignored_many_examples(name: str, data: st.DataObject) -> None:
    _check_hostile(name, data)


# --------------------------------------------------------------------------- a real RDB
CHILD = textwrap.dedent(
    """
    import sys
    import optuna
    sys.path.insert(0, {repo!r})
    from tests.samplers.test_hostile_records import SAMPLERS, objective
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    for name in SAMPLERS:
        study = optuna.load_study(study_name=name, storage={url!r}, sampler=SAMPLERS[name]())
        study.optimize(objective, n_trials={n})
        print(name, len(study.trials), file=sys.stderr)
    """
)


def tamper_sqlite(path: Path, study: optuna.Study) -> None:
    """The failures of issue 8, written into the SQLite file with SQL.

    A run start of -10**12 (hung every worker), a generation of 10**12 and a chunk count of
    10**9 (grew memory until MemoryError), a string where a number belongs (raised in every
    worker, for good), NaN and 1e308 coordinates (accepted silently).
    """
    ids = {t.number: t._trial_id for t in study.trials}
    rec = record_of(study.trials[4])
    edits: dict[int, str] = {
        2: json.dumps({**rec, "rs": -(10**12)}),
        4: json.dumps({**rec, "g": 10**12}),
        5: json.dumps({**rec, "m": "particle"}),
        6: json.dumps({**rec, "x": {k: math.nan for k in rec["x"]}}),
        7: json.dumps({**rec, "x": {k: 1e308 for k in rec["x"]}}),
    }
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        for number, text in edits.items():
            db.execute(
                "UPDATE trial_system_attributes SET value_json = ? WHERE trial_id = ? AND key = ?",
                (json.dumps(text), ids[number], _records.KEY),
            )
        # Trial 8's record becomes two chunks that claim to be 10**9.
        db.execute(
            "DELETE FROM trial_system_attributes WHERE trial_id = ? AND key = ?",
            (ids[8], _records.KEY),
        )
        db.executemany(
            "INSERT INTO trial_system_attributes (trial_id, key, value_json) VALUES (?, ?, ?)",
            [
                (ids[8], f"{_records.KEY}:0", json.dumps("{")),
                (ids[8], f"{_records.KEY}:1", json.dumps("}")),
                (ids[8], f"{_records.KEY}:n", json.dumps(10**9)),
            ],
        )


@pytest.mark.slow  # fresh processes over tampered files, ~7 s: with the slow tests
def test_tampered_sqlite_studies_keep_optimizing_in_a_fresh_process(tmp_path: Path) -> None:
    """Every sampler's study, tampered in the file, continues in a new process (one for all)."""
    # On tmpfs when there is one: SQLite's fsync per commit dominates on a busy disk.
    shm = Path("/dev/shm")
    folder = Path(tempfile.mkdtemp(dir=shm)) if shm.is_dir() else tmp_path
    try:
        _tamper_and_continue(folder / "hostile.db")
    finally:
        if folder != tmp_path:
            shutil.rmtree(folder, ignore_errors=True)


def _tamper_and_continue(path: Path) -> None:
    url = f"sqlite:///{path}"
    storage = optuna.storages.RDBStorage(url)
    for name, make in SAMPLERS.items():
        study = optuna.create_study(study_name=name, storage=storage, sampler=make())
        study.optimize(objective, n_trials=10)
        tamper_sqlite(path, study)
    del storage
    again = optuna.load_study(study_name="pso", storage=url)
    assert again.trials[2].system_attrs[_records.KEY].startswith('{"ver": 1')
    assert '"rs": -1000000000000' in again.trials[2].system_attrs[_records.KEY]
    code = CHILD.format(repo=str(REPO), url=url, n=6)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    for name, make in SAMPLERS.items():
        assert f"{name} 16" in done.stderr
        sampler = type(make()).__name__
        warned = [line for line in done.stderr.splitlines() if WARNING in line]
        # One warning per study: FocusedGridSampler runs two studies (dfgs, afgs).
        expected = 2 if sampler == "FocusedGridSampler" else 1
        assert sum(line.startswith(sampler) for line in warned) == expected, warned
        fresh = optuna.load_study(study_name=name, storage=url)
        for t in fresh.trials[10:]:
            assert t.state == TrialState.COMPLETE
            for p, value in t.params.items():
                assert inside(value, t.distributions[p]), (name, t.number, p, value)
