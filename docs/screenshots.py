"""Screenshots of optuna-dashboard on a study made by ``optuna-psms select``.

Usage (headless Chromium from the distribution: ``apt-get install chromium``)::

    python docs/screenshots.py   # a fresh 12-trial study; PNGs in docs/img/dashboard
    python docs/screenshots.py --storage sqlite:///psms.db --study NAME --out /tmp/shots

It serves the storage with optuna-dashboard's WSGI app in this process, points headless
Chromium at the study's pages and writes one PNG per page (``dashboard-study.png``: the
history, importance and the figures of :func:`optuna_psms.visualization.publish`;
``dashboard-note.png``: the sampler's note; ``dashboard-trials.png``: the trial list on
the first trial the sampler proposed, with its ``psms:*`` attrs; ``dashboard-trial-mask.png``:
the first trial with the joint feature mask, if any), the files ``docs/dashboard.md``
shows. The helpers
(:func:`find_chromium`, :func:`serve`, :func:`render`) are also used by
``tests/test_dashboard_browser.py``.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from collections.abc import Sequence
import contextlib
from pathlib import Path
import shutil
import subprocess
import sys
import tempfile
import threading
from typing import Any
from wsgiref.simple_server import make_server
from wsgiref.simple_server import WSGIRequestHandler


#: Chromium flags: headless, no sandbox (root in containers), no network of its own.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)
#: The pages shot, by file name: path under /dashboard/studies/<id>.
PAGES = {"study": "", "note": "/note", "trials": "/trials"}
#: The trial pages shot (``/trials?numbers=N``), by file name: which trial (see
#: :func:`trial_pages`).
TRIAL_PAGES = {
    "trials": "the first trial the sampler proposed",
    "trial-mask": "the first trial with the joint feature mask",
}


def find_chromium() -> str | None:
    """The Chromium executable on PATH, if any."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@contextlib.contextmanager
def serve(storage_url: str) -> Iterator[str]:
    """Serve optuna-dashboard on ``storage_url`` from a thread; yields the base URL."""
    import optuna
    from optuna_dashboard import wsgi

    storage = optuna.storages.get_storage(storage_url)
    server = make_server("127.0.0.1", 0, wsgi(storage), handler_class=_Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def render(
    chromium: str,
    url: str,
    *,
    screenshot: Path | None = None,
    size: tuple[int, int] = (1400, 1000),
    budget_ms: int = 20_000,
) -> str:
    """Load ``url`` in a fresh headless Chromium; return the DOM after scripts ran.

    ``budget_ms`` of virtual time lets the dashboard fetch the study and draw its plots
    (Chromium advances virtual time only while nothing is loading). With ``screenshot``
    the page is also written there as a PNG.
    """
    with tempfile.TemporaryDirectory(prefix="psms-chromium-") as profile:
        command = [
            chromium,
            *FLAGS,
            f"--user-data-dir={profile}",
            f"--window-size={size[0]},{size[1]}",
            f"--virtual-time-budget={budget_ms}",
        ]
        if screenshot is not None:
            shot = subprocess.run(
                [*command, f"--screenshot={screenshot}", url],
                capture_output=True,
                text=True,
                timeout=180,
                check=False,
            )
            if not screenshot.exists():
                raise RuntimeError(f"chromium wrote no screenshot: {shot.stderr[-2000:]}")
        dom = subprocess.run(
            [*command, "--dump-dom", url],
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
    if dom.returncode != 0 or not dom.stdout:
        raise RuntimeError(f"chromium failed ({dom.returncode}): {dom.stderr[-2000:]}")
    return dom.stdout


def make_study(
    storage_url: str, study_name: str, n_trials: int, selectors: str | None = None
) -> None:
    """Run ``optuna-psms select`` (PSO, breast cancer, 2-fold CV) into ``storage_url``;
    ``selectors`` is its ``--selectors`` (default: all)."""
    from optuna_psms.cli import main

    extra = [] if selectors is None else ["--selectors", selectors]
    with tempfile.TemporaryDirectory() as tmp:
        code = main(
            [
                "select",
                "--dataset",
                "sklearn:breast_cancer",
                "--n-trials",
                str(n_trials),
                "--cv",
                "2",
                "--seed",
                "0",
                "--storage",
                storage_url,
                "--study-name",
                study_name,
                "--output",
                str(Path(tmp) / "model.joblib"),
                "--no-progress-bar",
                *extra,
            ]
        )
    if code != 0:
        raise RuntimeError(f"optuna-psms select exited with {code}")


def trial_pages(storage_url: str, study_name: str) -> dict[str, str]:
    """The trial-page paths of :data:`TRIAL_PAGES` that the study has.

    ``trials`` selects the first trial the sampler proposed (the list opens on trial 0, an
    initial pipeline, whose seventh user attr ``fms:initial`` pushes ``psms:particle`` below
    the box); ``trial-mask`` the first trial whose feature selector is the joint mask.
    """
    import optuna

    trials = optuna.load_study(study_name=study_name, storage=storage_url).trials
    found = {
        "trials": next((t for t in trials if "fms:initial" not in t.user_attrs), None),
        "trial-mask": next((t for t in trials if t.params.get("fs:method") == "mask"), None),
    }
    return {name: f"/trials?numbers={t.number}" for name, t in found.items() if t is not None}


def study_id(storage_url: str, study_name: str) -> int:
    """The id optuna-dashboard uses in the study's URL."""
    import optuna

    study = optuna.load_study(study_name=study_name, storage=storage_url)
    return int(study._study_id)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--storage", help="storage URL (default: a fresh study in a temp dir)")
    parser.add_argument("--study", default="screenshots", help="study name")
    parser.add_argument("--n-trials", type=int, default=12, help="trials of the fresh study")
    parser.add_argument(
        "--selectors",
        default=None,
        help="--selectors of the fresh study (e.g. none,mask,ftest for a joint-mask trial)",
    )
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "img" / "dashboard")
    parser.add_argument(
        "--pages",
        default=None,
        metavar="A,B",
        help="shoot only these pages (study, note, trials, trial-mask; default: all found)",
    )
    args = parser.parse_args(argv)
    wanted = None if args.pages is None else args.pages.split(",")
    unknown = [n for n in wanted or [] if n not in {*PAGES, *TRIAL_PAGES}]
    if unknown:
        parser.error(f"--pages: unknown page {unknown[0]!r}")
    chromium = find_chromium()
    if chromium is None:
        parser.error("no Chromium on PATH (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        storage = args.storage or f"sqlite:///{tmp}/screenshots.db"
        if args.storage is None:
            make_study(storage, args.study, args.n_trials, args.selectors)
        sid = study_id(storage, args.study)
        pages = {**PAGES, **trial_pages(storage, args.study)}
        if wanted is not None:
            missing = [n for n in wanted if n not in pages]
            if missing:
                parser.error(f"--pages: the study has no trial for {missing[0]!r}")
            pages = {n: pages[n] for n in wanted}
        args.out.mkdir(parents=True, exist_ok=True)
        with serve(storage) as base:
            for name, page in pages.items():
                path = args.out / f"dashboard-{name}.png"
                size = (1400, 2900) if name == "study" else (1400, 1000)
                url = f"{base}/dashboard/studies/{sid}{page}"
                render(chromium, url, screenshot=path, size=size)
                print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
