"""One worker in the driver's own process: the pool of ``--workers 1``, without Ray.

Why: starting Ray costs seconds per command (its GCS, raylet and one worker
process; figures in docs/cluster.md) and buys nothing for one worker. This
pool has the ``Pool`` surface the drivers use (submit, cancel, pending,
as_completed, run, map, rate_limiter, channel, stats) and runs the very same
``MatchWorker`` code, one match at a time, when results are asked for. Ctrl-C
interrupts the match being played; the work queued stays queued.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from harness.cluster.batching import DurationMeter, MatchQueue, PoolStats, TaggedRuns
from harness.cluster.work import Mailbox, MatchWorker, TokenBucket
from harness.errors import InvalidInput
from harness.interrupts import check as check_interrupted
from harness.cluster.protocol import MatchPool
from harness.match import MatchResult, MatchSpec

__all__ = ["InProcessPool", "LocalRateLimiter", "LocalChannel"]


class LocalRateLimiter:
    """``RateLimiter`` for the one in-process worker: the same token bucket, no actor."""

    def __init__(self, rate_per_s: float, burst: int) -> None:
        self._bucket = TokenBucket(rate_per_s, burst)
        self.rate_per_s = rate_per_s

    def acquire(self, tokens: int = 1) -> float:
        delay = self._bucket.reserve(tokens)
        if delay > 0:
            time.sleep(delay)
        return delay


class LocalChannel(Mailbox):
    """``Channel`` for the one in-process worker: a plain mailbox."""


class InProcessPool(TaggedRuns):
    """A pool of exactly one worker: this process. See the module docstring."""

    def __init__(self, workers: int | None = 1, address: str | None = None, **_: Any) -> None:
        if workers != 1 or address is not None:
            raise InvalidInput("the in-process pool has exactly one worker and joins no cluster")
        self.requested_workers = 1
        self.address = None
        self.on_resize: Callable[[int, int], None] | None = None
        self._worker = MatchWorker()
        self._queue = MatchQueue()
        self._ready: deque[tuple[Hashable, MatchResult]] = deque()
        self._meter = DurationMeter()
        self._matches = 0
        self._started = False

    def __enter__(self) -> InProcessPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        self._started = True

    def close(self) -> None:
        import players
        players.shutdown()  # engine processes the players kept between matches
        self._queue.clear()
        self._ready.clear()
        self._started = False

    @property
    def workers(self) -> int:
        return 1 if self._started else 0

    def worker_pids(self) -> list[int]:
        return [os.getpid()]

    @property
    def stats(self) -> PoolStats:
        return PoolStats(1, self._matches, self._matches, 0, self._meter.match_s)

    def submit(self, specs: Sequence[MatchSpec], tag: Hashable = None, priority: int = 0) -> None:
        self.start()
        self._queue.push(specs, tag, priority)

    def cancel(self, tag: Hashable, running: bool = False) -> int:
        dropped = self._queue.drop(tag)
        if running:
            self._ready = deque(item for item in self._ready if item[0] != tag)
        return dropped

    def pending(self) -> int:
        return len(self._queue) + len(self._ready)

    def as_completed(self) -> Iterator[tuple[Hashable, MatchResult]]:
        self.start()
        while True:
            check_interrupted()  # a Ctrl-C that Python dropped (see harness.interrupts)
            while self._ready:
                yield self._ready.popleft()
            if not len(self._queue):
                return
            tag, spec = self._queue.pop(1)[0]
            result = self._worker.play([spec])[0]
            self._matches += 1
            self._meter.add([result])
            self._ready.append((tag, result))

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        for item in items:
            check_interrupted()
            yield self._worker.call(fn, item)

    def rate_limiter(self, rate_per_s: float, burst: int = 1) -> LocalRateLimiter:
        if not rate_per_s > 0 or burst < 1:
            raise InvalidInput(f"a rate limiter needs rate > 0 and burst >= 1, got {rate_per_s}, {burst}")
        return LocalRateLimiter(float(rate_per_s), int(burst))

    def channel(self) -> LocalChannel:
        return LocalChannel()


def open_pool(workers: int | None = None, address: str | None = None, **options: Any) -> MatchPool:
    """The pool for ``--workers``/``--address``: in-process for one local worker, else Ray actors."""
    if workers == 1 and address is None:
        return InProcessPool()
    from harness.cluster.pool import Pool
    return Pool(workers=workers, address=address, **options)


@contextmanager
def using_pool(pool: MatchPool | None, workers: int | None = None,
               address: str | None = None) -> Iterator[MatchPool]:
    """``pool`` when one is given (its owner closes it), else a new one from ``open_pool`` closed on exit."""
    if pool is not None:
        yield pool
        return
    with open_pool(workers=workers, address=address) as own:
        yield own
