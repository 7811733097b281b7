"""Helpers of the live fault tests: a restartable emulator and the log checks."""

from __future__ import annotations

import threading

from harness.live.emulator import Emulator


class Restartable:
    """An emulator on a fixed port that a test can restart mid-game, keeping its key file."""

    def __init__(self, key_file, **options) -> None:
        self.key_file, self.options = key_file, options
        self.server = Emulator(key_file=key_file, **options).start()
        self.port = self.server.server.server_address[1]
        self.url = self.server.url
        self.log: list = []
        self.restarts = 0
        self._thread: threading.Thread | None = None

    def restart(self, down_s: float = 0.4, key_file=None) -> None:
        """Stop now, serve again after ``down_s`` seconds (in a thread) on the same port."""
        self.log.extend(self.server.log)
        self.server.stop()
        self.restarts += 1

        def start() -> None:
            threading.Event().wait(down_s)
            self.server = Emulator(port=self.port, key_file=key_file or self.key_file, **self.options).start()
        self._thread = threading.Thread(target=start, daemon=True)
        self._thread.start()

    def wait(self) -> None:
        if self._thread is not None:
            self._thread.join()

    def all_requests(self) -> list:
        self.wait()
        return self.log + list(self.server.log)

    def stop(self) -> None:
        self.wait()
        self.server.stop()


def assert_no_refused_action_sent_again_at_once(log) -> None:
    """No action the server refused was the very next action sent."""
    posts = [entry for entry in log if entry.method == "POST" and entry.action is not None]
    for first, second in zip(posts, posts[1:]):
        assert not (first.refused and second.action == first.action), f"{first.action} sent again after a refusal"
