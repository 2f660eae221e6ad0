"""Publishing a study's figures while it runs: :class:`PublishCallback`."""

from __future__ import annotations

import math
import threading
import time
import warnings

import optuna
from optuna.study import Study
from optuna.trial import FrozenTrial


_logger = optuna.logging.get_logger(__name__)


class PublishCallback:
    """An Optuna callback that publishes the study's figures every ``every`` trials.

    It calls :func:`optuna_psms.visualization.publish` after the trial numbered ``k * every
    - 1`` finishes (whatever its state), so the dashboard's figures follow a long run
    without waiting for its end. Trial numbers are unique in a study, so when several
    workers (processes, machines or ``n_jobs`` threads) share the study, each milestone is
    reached by exactly one of them: the workers do not all publish at once. A milestone
    less than ``min_interval`` seconds after this callback's previous publication is
    skipped, which keeps publishing cheap next to a fast objective.

    Publishing never breaks the study: the first failure (optuna-dashboard missing, a
    storage error) is reported by one :class:`RuntimeWarning` and the run goes on; later
    failures are logged at debug level only. Publish once more after the run for the
    final figures (``optuna-psms select`` and ``compare`` do).

    Args:
        every: Publish after every ``every``-th trial (1 or more).
        min_interval: Seconds this callback waits at least between two publications.

    Example:

        .. testcode::

            import optuna
            from optuna_psms import PSOSampler
            from optuna_psms.visualization import PublishCallback

            study = optuna.create_study(sampler=PSOSampler(seed=0))
            objective = lambda t: t.suggest_float("x", -5, 5) ** 2
            callback = PublishCallback(every=10, min_interval=0)
            study.optimize(objective, n_trials=20, callbacks=[callback])
            assert callback.published == [9, 19]  # after trials 10 and 20
    """

    def __init__(self, every: int = 50, *, min_interval: float = 10.0) -> None:
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ValueError(f"every must be a positive integer, got {every!r}.")
        if not (isinstance(min_interval, int | float) and min_interval >= 0):
            raise ValueError(f"min_interval must be >= 0 seconds, got {min_interval!r}.")
        self.every = every
        self.min_interval = float(min_interval)
        self.published: list[int] = []  # trial numbers after which it published
        self._last = -math.inf
        self._busy = threading.Lock()
        self._warned = False

    def __call__(self, study: Study, trial: FrozenTrial) -> None:
        if (trial.number + 1) % self.every:
            return
        if not self._busy.acquire(blocking=False):
            return  # another thread of this process is publishing
        try:
            now = time.monotonic()
            if now - self._last < self.min_interval:
                return
            self._last = now
            from optuna_psms import visualization  # the module's publish, looked up now

            try:
                visualization.publish(study)
            except Exception as exc:
                self._failed(study, exc)
            else:
                self.published.append(trial.number)
        finally:
            self._busy.release()

    def _failed(self, study: Study, exc: Exception) -> None:
        message = (
            f"could not publish the figures of study {study.study_name!r} "
            f"({type(exc).__name__}: {exc}); the study goes on"
        )
        if self._warned:
            _logger.debug(message)
            return
        self._warned = True
        warnings.warn(message, RuntimeWarning, stacklevel=3)
