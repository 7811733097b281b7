"""A thread that keeps this driver's running trials alive in the storage's eyes.

Optuna's heartbeat is driven by ``study.optimize``; an ask-and-tell driver
must beat it itself. Beating only when a result arrives let a batch longer
than the grace period make a live trial look abandoned, and a second driver
failed it. The thread beats every ``interval_s`` whatever the main loop is
doing (waiting on Ray, writing a result); only a dead driver process stops it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class Heartbeat:
    """Beats ``beat(storage_ids)`` for the trials added, from a daemon thread, until stopped.

    A failing beat (the database is briefly unreachable) is kept in
    ``last_error`` and retried at the next interval: a missed beat costs
    nothing until the grace period has passed.
    """

    def __init__(self, beat: Callable[[list[int]], None], interval_s: float) -> None:
        self._beat = beat
        self.interval_s = interval_s
        self._trials: set[int] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.beats = 0
        self.last_error: BaseException | None = None

    def add(self, storage_id: int) -> None:
        """Beat for this trial from now on."""
        with self._lock:
            self._trials.add(storage_id)

    def discard(self, storage_id: int) -> None:
        """Stop beating for this trial (it ended)."""
        with self._lock:
            self._trials.discard(storage_id)

    def __enter__(self) -> Heartbeat:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="harness-heartbeat", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            with self._lock:
                trials = sorted(self._trials)
            if not trials:
                continue
            try:
                self._beat(trials)
                self.beats += 1
            except Exception as error:  # noqa: BLE001 - retried at the next beat
                self.last_error = error
