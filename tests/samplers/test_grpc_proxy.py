"""Many workers through Optuna's gRPC storage proxy in front of PostgreSQL form one population.

32 worker processes (the issue's "hundreds of workers" deployment, scaled to this machine)
each run ``python -m optuna_psms.benchmarks.scale worker`` against one
``run_grpc_proxy_server`` in front of PostgreSQL. Asserted: every trial completes, one run,
no (particle, iteration) slot twice, no particle skips an iteration. Throughput is the
benchmark's job (``python -m optuna_psms.benchmarks.scale --scenarios grpc``), not a test's.
"""

from __future__ import annotations

from collections import Counter
import importlib.util
import os
import subprocess
import sys
import uuid

import optuna
from optuna.trial import TrialState
import pytest

from optuna_psms.benchmarks import scale
from optuna_psms.samplers import _records
import tests
from tests.conftest import IN_CI
from tests.conftest import require_service


REPO = str(tests.REPO)
N_WORKERS = 32
N_EACH = 4
SWARM = 5  # PSOSampler's default, the registry's "pso"


@pytest.mark.services
@pytest.mark.slow
def test_32_workers_through_the_grpc_proxy_form_one_population() -> None:
    require_service("PostgreSQL", "127.0.0.1", 5432)
    if importlib.util.find_spec("grpc") is None:
        if IN_CI:
            pytest.fail("grpcio is not installed, and CI=true requires the gRPC proxy test.")
        pytest.skip("grpcio is not installed (pip install optuna-psms[grpc])")
    url = scale.POSTGRES
    name = f"i8h_grpc_{uuid.uuid4().hex[:10]}"
    storage = optuna.storages.RDBStorage(url)
    optuna.create_study(study_name=name, storage=storage)
    sampler = "pso"
    try:
        with scale.grpc_proxy(url) as spec:
            procs = [
                subprocess.Popen(
                    [sys.executable, "-m", "optuna_psms.benchmarks.scale", "worker"]
                    + [spec, name, sampler, str(N_EACH), "0.05", "0"],
                    cwd=REPO,
                    env={**os.environ, "PYTHONPATH": REPO},
                )
                for _ in range(N_WORKERS)
            ]
            assert [p.wait(timeout=900) for p in procs] == [0] * N_WORKERS
        trials = optuna.load_study(study_name=name, storage=storage).get_trials(deepcopy=False)
        assert len(trials) == N_WORKERS * N_EACH
        assert all(t.state == TrialState.COMPLETE for t in trials)
        slots: Counter[tuple[int, int, int]] = Counter()
        for t in trials:
            rec = _records.load(t.system_attrs)
            assert rec is not None
            slots[(int(rec["r"]), int(rec["m"]), int(rec["g"]))] += 1
        assert not [s for s, n in slots.items() if n > 1], "a slot was evaluated twice"
        assert {r for r, _, _ in slots} == {0}
        for m in range(SWARM):
            its = {g for _, mm, g in slots if mm == m}
            assert its == set(range(len(its))), f"particle {m} skipped: {sorted(its)}"
    finally:
        optuna.delete_study(study_name=name, storage=storage)
