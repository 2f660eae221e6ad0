"""Where the scale benchmark's trials are stored: a storage opened from its spec, a service
checked for reachability, and Optuna's gRPC storage proxy server in a child process.

Split from :mod:`optuna_psms.benchmarks.scale`, which re-exports :func:`open_storage`,
:func:`reachable` and :class:`grpc_proxy`.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import warnings

import optuna
from optuna.storages.journal import JournalFileBackend


def open_storage(spec: str) -> optuna.storages.BaseStorage:
    """``journal:PATH``, ``grpc:HOST:PORT`` or an RDB URL."""
    kind, _, where = spec.partition(":")
    if kind == "journal":
        return optuna.storages.JournalStorage(JournalFileBackend(where))
    if kind == "grpc":
        host, _, port = where.rpartition(":")
        with warnings.catch_warnings():  # "experimental (supported from v4.2.0)"
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            return optuna.storages.GrpcStorageProxy(host=host, port=int(port))
    return optuna.storages.RDBStorage(spec)


def reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return True
    except OSError:
        return False


class grpc_proxy:
    """A gRPC storage proxy server in a child process; ``with`` gives its ``grpc:`` spec.

    The server holds ``optuna.storages.get_storage(url)``: the RDB behind Optuna's trial
    cache, as Optuna's documentation deploys it, so a ``GetTrials`` call reads only the new
    and unfinished trials from the database (docs/deployment.md).
    """

    def __init__(self, url: str) -> None:
        self.url = url
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> str:
        code = (
            "import warnings, optuna; warnings.simplefilter('ignore'); "
            "optuna.logging.set_verbosity(optuna.logging.WARNING); "
            "optuna.storages.run_grpc_proxy_server("
            f"optuna.storages.get_storage({self.url!r}), host='127.0.0.1', port={self.port})"
        )
        self.proc = subprocess.Popen([sys.executable, "-c", code])
        deadline = time.monotonic() + 60
        while not reachable("127.0.0.1", self.port):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the gRPC proxy server did not start")
            time.sleep(0.1)
        return f"grpc:127.0.0.1:{self.port}"

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=30)
