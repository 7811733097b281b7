"""A thread that renews this driver's lease on its study while the driver lives.

Renewing only when a result arrives let a batch longer than the grace period
make a live driver look dead, and a second driver took its study. The thread
renews every ``interval_s`` whatever the main loop is doing (waiting on Ray,
writing a result); only a dead driver process stops it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class Heartbeat:
    """Calls ``beat()`` from a daemon thread every ``interval_s`` until stopped.

    A failing beat (the database is briefly unreachable) is kept in
    ``last_error`` and retried at the next interval: a missed beat costs
    nothing until the grace period has passed.
    """

    def __init__(self, beat: Callable[[], None], interval_s: float) -> None:
        self._beat = beat
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.beats = 0
        self.last_error: BaseException | None = None

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
            try:
                self._beat()
                self.beats += 1
            except Exception as error:  # noqa: BLE001 - retried at the next beat
                self.last_error = error
