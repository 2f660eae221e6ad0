"""A model-selection study opens in optuna-dashboard with the sampler's and fms' attrs."""

from __future__ import annotations

import json
import threading
from typing import Any
import urllib.request
from wsgiref.simple_server import make_server
from wsgiref.simple_server import WSGIRequestHandler

import optuna
from optuna_dashboard import wsgi
from sklearn.datasets import load_breast_cancer

from optuna_psms import FullModelSelector
from optuna_psms import FullModelSpace
from optuna_psms import PSOSampler


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def test_dashboard_serves_the_study_with_psms_and_fms_attrs(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path}/dash.db"
    X, y = load_breast_cancer(return_X_y=True)
    space = FullModelSpace(classifiers=["naive_bayes", "logistic"])
    FullModelSelector(
        space=space,
        sampler=PSOSampler(seed=0),
        n_trials=6,
        storage=url,
        study_name="dash",
        random_state=0,
    ).fit(X[:200], y[:200])

    storage = optuna.storages.RDBStorage(url)
    server = make_server("127.0.0.1", 0, wsgi(storage), handler_class=_Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_port}"
        with urllib.request.urlopen(f"{base}/api/studies", timeout=30) as response:
            studies = json.load(response)["study_summaries"]
        (summary,) = [s for s in studies if s["study_name"] == "dash"]
        with urllib.request.urlopen(
            f"{base}/api/studies/{summary['study_id']}", timeout=30
        ) as response:
            detail = json.load(response)
    finally:
        server.shutdown()
        server.server_close()
    trials = detail["trials"]
    assert len(trials) == 6
    for number, trial in enumerate(trials):
        attrs = {a["key"]: a["value"] for a in trial["user_attrs"]}
        assert attrs["psms:particle"] == str(number % 5)
        assert attrs["psms:iteration"] == str(number // 5)
        assert any(key.startswith("fms:") for key in attrs), attrs
