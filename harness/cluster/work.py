"""The work itself, without Ray: a match-playing worker, a token bucket and a mailbox.

Plain classes, so the in-process pool (one worker, no Ray) runs the very same
code that the Ray actors wrap in ``harness.cluster.workers``.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from harness.errors import ClusterError, HarnessError
from harness.games import GameInfo, names, register
from harness.match import MatchResult, MatchSpec, play_match

__all__ = ["MatchWorker", "TokenBucket", "Mailbox"]


class MatchWorker:
    """One worker process: plays batches of matches, keeping engines warm.

    ``harness.games.load`` caches rules per spec and numba keeps compiled code
    per process, so only the first match of a game in this actor pays for
    importing and compiling it. ``games`` are the games the driver registered
    beside the shipped ones (``harness.games.added()``); the worker registers
    them too, so their matches play here as they do in the driver.
    """

    def __init__(self, games: Sequence[GameInfo] = ()) -> None:
        for info in games:
            if info.name not in names():
                register(info)

    def pid(self) -> int:
        return os.getpid()

    def play(self, specs: list[MatchSpec]) -> list[MatchResult]:
        results = []
        for spec in specs:
            try:
                results.append(play_match(spec))
            except HarnessError:
                raise
            except Exception as error:  # a bug: name the match that hit it
                raise ClusterError(
                    f"{spec.game} {spec.player} vs {spec.opponent} seed {spec.seed} failed on a "
                    f"worker: {type(error).__name__}: {error}") from error
        return results

    def call(self, fn: Callable[[Any], Any], item: Any) -> Any:
        return fn(item)

    def close(self) -> None:
        """Release what players keep between matches (idle engine processes) before the actor ends."""
        import players
        players.shutdown()


class TokenBucket:
    """Hands out time slots at ``rate`` per second, bursts of up to ``burst`` at once.

    It returns how long the caller must wait instead of sleeping itself, so one
    slow caller never holds up the others (virtual scheduling, as in GCRA).
    """

    def __init__(self, rate: float, burst: int) -> None:
        self.interval = 1.0 / rate
        self.burst = burst
        self.next_free = -math.inf

    def reserve(self, tokens: int) -> float:
        now = time.monotonic()
        start = max(self.next_free, now - (self.burst - 1) * self.interval)
        self.next_free = start + tokens * self.interval
        return max(0.0, start - now)


class Mailbox:
    """A list that workers append to and the driver empties."""

    def __init__(self) -> None:
        self.items: list[Any] = []

    def put(self, item: Any) -> None:
        self.items.append(item)

    def drain(self) -> list[Any]:
        items, self.items = self.items, []
        return items
