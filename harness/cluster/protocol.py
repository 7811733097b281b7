"""What the schedulers (tournament, tuning, live runs) need of a pool, as a protocol.

``harness.cluster.Pool`` (Ray actors) and ``InProcessPool`` (this process)
both implement it; a scheduler typed by it works with either, and importing
it imports no Ray.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from harness.cluster.batching import PoolStats
    from harness.match import MatchResult, MatchSpec


@runtime_checkable
class MatchPool(Protocol):
    """A pool of match workers: queue tagged matches, hand back results, cancel by tag."""

    def start(self) -> None:
        """Start the workers (Ray and its actors for a Ray pool); idempotent."""

    def close(self) -> None:
        """Stop the workers and drop the queued work."""

    @property
    def workers(self) -> int:
        """Workers up now."""

    @property
    def stats(self) -> PoolStats:
        """Counters: batches run, workers replaced."""

    def submit(self, specs: Sequence[MatchSpec], tag: Hashable = None, priority: int = 0) -> None:
        """Queue ``specs`` under ``tag`` (a lower ``priority`` runs first)."""

    def run(self, specs: Sequence[MatchSpec], tag: Hashable = None) -> Iterator[MatchResult]:
        """Play ``specs`` and yield their results as they finish."""

    def as_completed(self) -> Iterator[tuple[Hashable, MatchResult]]:
        """Every submitted match's ``(tag, result)`` as it finishes."""

    def ready(self) -> int:
        """Results finished and waiting: what ``as_completed`` yields without waiting."""

    def pending(self) -> int:
        """Matches queued or on a worker, not yet handed back."""

    def cancel(self, tag: Hashable, running: bool = False) -> int:
        """Drop ``tag``'s queued matches (and its running ones with ``running``); returns how many."""

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        """``fn`` over ``items`` on the workers, results in order."""

    def __enter__(self) -> Any: ...

    def __exit__(self, *exc: object) -> Any: ...
