"""Match batching: the queue of matches waiting for a worker, and how many go in one batch.

Why batches: a Ray call costs about a millisecond of dispatch, so a worker
gets *batches* of matches sized from the measured match duration (about
``target_batch_s`` of work), but at most half of each worker's share of the
queue (guided self-scheduling), so batches shrink towards the end and the
workers finish together. The first match of a worker is never measured: it
pays for imports and numba compilation.

The queue is ordered by priority, then by submission: the tuning driver gives
older trials precedence so they finish in the order they started.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections import deque
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from harness.match import MatchResult, MatchSpec

__all__ = ["MatchQueue", "DurationMeter", "PoolStats", "TaggedRuns", "batch_size"]


class TaggedRuns:
    """``run`` for a pool that has ``submit``, ``as_completed`` and a ``_ready`` deque of (tag, result).

    Shared by the Ray pool and the in-process one, so both keep other tags'
    results for ``as_completed`` in the same way.
    """

    _ready: deque[tuple[Hashable, MatchResult]]

    def submit(self, specs: Sequence[MatchSpec], tag: Hashable = None, priority: int = 0) -> None:
        raise NotImplementedError

    def as_completed(self) -> Iterator[tuple[Hashable, MatchResult]]:
        raise NotImplementedError

    def ready(self) -> int:
        """Results finished and waiting to be handed back: what ``as_completed`` yields without waiting.

        A caller that records results can gather these and write them in one transaction.
        """
        return len(self._ready)

    def run(self, specs: Sequence[MatchSpec], tag: Hashable = None) -> Iterator[MatchResult]:
        """Play ``specs`` and yield their results as they finish (any order).

        Results of other tags that finish meanwhile are kept for ``as_completed``.

        Args:
            specs: the matches.
            tag: a tag for ``cancel``; by default a fresh one.
        """
        tag = object() if tag is None else tag
        if not specs:
            return
        self.submit(specs, tag)
        remaining = len(specs)
        held: list[tuple[Hashable, MatchResult]] = []
        try:
            for item_tag, result in self.as_completed():
                if item_tag != tag:
                    held.append((item_tag, result))
                    continue
                remaining -= 1
                yield result
                if remaining == 0:
                    return
        finally:
            self._ready.extendleft(reversed(held))


class MatchQueue:
    """Matches waiting for a worker, as (tag, spec), lowest priority first, then first submitted."""

    def __init__(self) -> None:
        self._heap: list[tuple[int, int, Hashable, MatchSpec]] = []
        self._order = itertools.count()

    def __len__(self) -> int:
        return len(self._heap)

    def push(self, specs: Iterable[MatchSpec], tag: Hashable, priority: int = 0) -> None:
        """Queue matches under ``tag``."""
        for spec in specs:
            heapq.heappush(self._heap, (priority, next(self._order), tag, spec))

    def pop(self, count: int) -> list[tuple[Hashable, MatchSpec]]:
        """Take up to ``count`` matches from the front."""
        items = [heapq.heappop(self._heap) for _ in range(min(count, len(self._heap)))]
        return [(tag, spec) for _, _, tag, spec in items]

    def drop(self, tag: Hashable) -> int:
        """Remove every queued match of ``tag``; returns how many."""
        kept = [item for item in self._heap if item[2] != tag]
        dropped = len(self._heap) - len(kept)
        heapq.heapify(kept)
        self._heap = kept
        return dropped

    def clear(self) -> None:
        self._heap = []


class DurationMeter:
    """A smoothed duration of one match on a worker (None before the first measure)."""

    def __init__(self) -> None:
        self.match_s: float | None = None

    def add(self, results: Sequence[MatchResult]) -> None:
        if not results:
            return
        mean = sum(r.duration_s for r in results) / len(results)
        self.match_s = mean if self.match_s is None else 0.7 * self.match_s + 0.3 * mean


def batch_size(match_s: float | None, queued: int, workers: int, target_batch_s: float, max_batch: int) -> int:
    """Matches in the next batch.

    One match until a duration is measured (a slow game must not hide in a
    huge first batch); then about ``target_batch_s`` of work, but at most
    half of each worker's share of the queue, so the workers finish together.
    """
    if match_s is None:
        return 1
    wanted = int(target_batch_s / max(match_s, 1e-6))
    share = math.ceil(queued / (2 * max(1, workers)))
    return max(1, min(wanted, share, max_batch))


@dataclass(frozen=True)
class PoolStats:
    """What a pool has done so far (for benchmarks, tests and progress lines)."""

    workers: int
    matches: int
    batches: int
    replaced: int
    match_s: float | None  # smoothed duration of one match on a worker, None before a measure
