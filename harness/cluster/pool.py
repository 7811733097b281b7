"""A pool of Ray actors that plays matches in batches and runs again the work a lost worker held.

Each worker is a long-lived actor (``harness.cluster.workers``) with up to
``PIPELINE`` batches in flight, so it never idles between batches; batches
are sized by ``harness.cluster.batching``. Results stream back as batches
finish (``ray.wait``) and are handed to the caller, who records them; workers
never touch the database.

Faults and capacity: a worker process that dies (killed, out of memory, its
node lost) costs only its batches in flight. The pool stops sending it work,
queues the lost batches first, to run again on the workers that are *up*,
and asks Ray for a replacement. A replacement (or any new worker) gets work
only once it has started, so lost work never waits for a CPU that is not
there: the pool shrinks, says so in one line (``on_resize``), and grows again
when the replacement starts (a node joined, or a local process restarted).
A pool of "every CPU" (``workers=None``) also grows onto nodes that join.
A batch that kills ``max_attempts`` workers in a row is a ``ClusterError``;
so is work that finds no worker up for ``start_timeout_s``: a run never
waits silently. Because every match has a deterministic key and the database
ignores a key it already holds, a match that ran twice is recorded once.

Any other exception on a worker (a bug in an engine, a bad spec) stops the
work: a harness error is re-raised as itself (``SpecError`` stays bad input),
anything else becomes a ``ClusterError`` naming the match.

Example::

    with Pool(workers=2) as pool:
        pool.submit(specs, tag="gauntlet")
        for tag, result in pool.as_completed():
            db.record(run_id, result)
"""

from __future__ import annotations

import itertools
import sys
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import ray
from ray import exceptions as ray_errors

from harness.cluster.batching import DurationMeter, MatchQueue, PoolStats, TaggedRuns, batch_size
from harness.cluster.session import check_address, cluster_cpus, connect, one_line
from harness.cluster.workers import Channel, RateLimiter, RemoteBucket, RemoteMailbox, RemoteWorker
from harness.errors import ClusterError, HarnessError, InvalidInput
from harness.interrupts import check as check_interrupted
from harness.games import added as added_games
from harness.match import MatchResult, MatchSpec

__all__ = ["Pool", "PoolStats", "announce_resize"]

# Errors after which the actor that ran the work is gone (or unreachable) and
# the work it held must run again elsewhere.
_LOST_WORKER = (ray_errors.RayActorError, ray_errors.WorkerCrashedError,
                ray_errors.NodeDiedError, ray_errors.ObjectLostError)

_WAIT_S = 0.5  # ray.wait timeout, so Ctrl-C is seen promptly
_DISCARDED = object()  # the tag of results nobody wants any more (``cancel(running=True)``)


def announce_resize(workers: int, previous: int) -> None:
    """The default ``on_resize``: one line on stderr."""
    if workers < previous:
        why = "a worker or its node was lost; its work runs again on the rest"
        print(f"harness: the pool shrank from {previous} to {workers} workers ({why})", file=sys.stderr)
    else:
        print(f"harness: the pool grew from {previous} to {workers} workers", file=sys.stderr)


@dataclass
class _Worker:
    handle: Any
    number: int
    inflight: int = 0
    batches: int = 0
    dead: bool = False


@dataclass
class _Unit:
    """One Ray call: a batch of matches (``play``) or one function call (``call``)."""

    kind: str
    items: list[tuple[Hashable, Any]]  # (tag, spec) for play, (None, (fn, item)) for call
    attempts: int = 0
    worker: _Worker | None = None
    first_of_worker: bool = False


@dataclass
class _Flight:
    refs: dict[Any, _Unit] = field(default_factory=dict)
    retry: deque[_Unit] = field(default_factory=deque)


class Pool(TaggedRuns):
    """Ray actors playing matches; see the module docstring for batching, faults and capacity.

    Args:
        workers: number of worker actors (one CPU each). None: the local
            machine's CPUs, or every CPU of a joined cluster (and of nodes
            that join later).
        address: None starts a local Ray cluster with ``num_cpus=workers``;
            ``"auto"`` or ``HOST:PORT`` joins one.
        target_batch_s: seconds of matches per batch once a duration is measured.
        max_batch: upper bound on matches per batch.
        max_attempts: times a batch may lose its worker before the pool gives up.
        start_timeout_s: how long to wait for the workers to start, and the
            longest that queued work may find no worker up.
        on_resize: called with (workers, previous) when the number of workers
            up changes; default one line on stderr.

    Raises:
        InvalidInput: a malformed address or a worker count below 1.
        ClusterError: Ray could not be started or joined, or workers did not start.
    """

    PIPELINE = 2  # batches in flight per worker
    GROW_EVERY_S = 5.0  # how often a pool of every CPU looks for nodes that joined

    def __init__(self, workers: int | None = None, address: str | None = None, *,
                 target_batch_s: float = 0.2, max_batch: int = 256, max_attempts: int = 3,
                 start_timeout_s: float = 120.0,
                 on_resize: Callable[[int, int], None] | None = announce_resize) -> None:
        if workers is not None and workers < 1:
            raise InvalidInput(f"workers must be at least 1, got {workers}")
        check_address(address)
        self.requested_workers = workers
        self.address = address
        self.target_batch_s = target_batch_s
        self.max_batch = max_batch
        self.max_attempts = max_attempts
        self.start_timeout_s = start_timeout_s
        self.on_resize = on_resize
        self._owns_ray = False
        self._started = False
        self._workers: list[_Worker] = []
        self._starting: dict[Any, _Worker] = {}  # pid() ref -> a worker not up yet
        self._size = 0  # the worker count last announced
        self._last_grow = 0.0
        self._numbers = itertools.count()
        self._queue = MatchQueue()
        self._ready: deque[tuple[Hashable, MatchResult]] = deque()
        self._plays = _Flight()
        self._helpers: list[Any] = []
        self._meter = DurationMeter()
        self._matches = 0
        self._batches = 0
        self._replaced = 0

    # -- lifecycle

    def __enter__(self) -> Pool:
        return self  # workers start on first use, so a pool with nothing to do costs nothing

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        """Connect to Ray and start the workers (idempotent; also done on first use).

        Raises:
            ClusterError: Ray could not be started or joined, the cluster has
                fewer CPUs than workers asked for, or the workers did not come
                up within ``start_timeout_s``.
        """
        if self._started:
            return
        self._owns_ray = connect(self.requested_workers, self.address)
        self._started = True
        cpus = cluster_cpus()
        count = self.requested_workers or cpus
        if count > cpus:
            self.close()
            raise ClusterError(f"the Ray cluster has {cpus} CPUs and each worker takes one; "
                               f"ask for at most {cpus} workers, not {count}")
        workers = [_Worker(RemoteWorker.remote(added_games()), next(self._numbers)) for _ in range(count)]
        self._workers = workers
        try:
            ray.get([w.handle.pid.remote() for w in workers], timeout=self.start_timeout_s)
        except ray_errors.GetTimeoutError:
            self.close()
            raise ClusterError(f"{count} workers did not start within {self.start_timeout_s:g}s; the cluster "
                               f"has {cpus} CPUs (each worker takes one)") from None
        except ray_errors.RayError as error:
            self.close()
            raise ClusterError(f"workers could not start: {one_line(error)}") from error
        self._size = count
        self._last_grow = time.monotonic()

    def close(self) -> None:
        """Stop the workers, drop work in flight, and end the Ray session if the pool started it."""
        if not self._started:
            return
        # idle workers release their players' engines; busy ones are killed at once (work in
        # flight is dropped), and their engines see their input close and exit
        _close_workers([w.handle for w in self._workers if w.inflight == 0])
        for handle in [w.handle for w in self._workers + list(self._starting.values())] + self._helpers:
            try:
                ray.kill(handle)
            except Exception:  # noqa: BLE001 - already gone is fine
                pass
        self._workers, self._helpers, self._starting = [], [], {}
        self._plays = _Flight()
        self._queue.clear()
        self._started = False
        if self._owns_ray:
            ray.shutdown()
            self._owns_ray = False

    # -- matches

    def submit(self, specs: Sequence[MatchSpec], tag: Hashable = None, priority: int = 0) -> None:
        """Queue matches; ``as_completed`` hands their results back under ``tag``.

        Args:
            specs: the matches.
            tag: handed back with each result, and what ``cancel`` names.
            priority: matches of a lower priority are dispatched first (the
                tuning driver gives older trials precedence, so they finish
                first); equal priorities go in submission order.
        """
        self.start()
        self._queue.push(specs, tag, priority)

    def cancel(self, tag: Hashable, running: bool = False) -> int:
        """Drop the queued matches of ``tag``; matches already on a worker still finish.

        Args:
            tag: the tag given to ``submit``.
            running: also discard the results of this tag's matches that are
                already on a worker or finished but not yet handed back, so a
                stopped piece of work leaves nothing behind in the pool.

        Returns:
            How many queued matches were dropped.
        """
        dropped = self._queue.drop(tag)
        if running:
            for unit in list(self._plays.refs.values()) + list(self._plays.retry):
                unit.items = [(_DISCARDED if item_tag == tag else item_tag, spec)
                              for item_tag, spec in unit.items]
            self._ready = deque(item for item in self._ready if item[0] != tag)
        return dropped

    def pending(self) -> int:
        """Matches queued or on a worker, not yet handed back."""
        inflight = sum(len(u.items) for u in list(self._plays.refs.values()) + list(self._plays.retry))
        return len(self._queue) + inflight + len(self._ready)

    def as_completed(self) -> Iterator[tuple[Hashable, MatchResult]]:
        """Yield ``(tag, result)`` as matches finish, until nothing is queued or running.

        Matches submitted while iterating are picked up. Breaking out early
        keeps the rest: a later call goes on where this one stopped.

        Raises:
            ClusterError: a batch lost its worker ``max_attempts`` times, no
                worker was up for ``start_timeout_s``, or a worker failed with
                an unexpected error.
            HarnessError: a worker raised one (a bad spec stays ``SpecError``).
        """
        self.start()
        while True:
            check_interrupted()  # a Ctrl-C that Python dropped (see harness.interrupts)
            while self._ready:
                yield self._ready.popleft()
            unit = self._next_finished(self._plays, self._next_batch, lambda: len(self._queue) > 0)
            if unit is None:
                return
            self._ready.extend(item for item in unit.items if item[0] is not _DISCARDED)

    # -- arbitrary functions, rate limiting and messages

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        """Run ``fn(item)`` on the workers for every item; yield results as they finish.

        ``fn`` must be a picklable top-level function. A call whose worker died
        runs again on another worker, so ``fn`` should be safe to repeat (a
        live game resumes from its saved state).

        Raises:
            ClusterError / HarnessError: as ``as_completed``.
        """
        self.start()
        todo = deque(_Unit("call", [(None, (fn, item))]) for item in items)
        flight = _Flight()  # this call's own: an abandoned map leaves nothing for the next one
        try:
            while True:
                check_interrupted()
                unit = self._next_finished(flight, lambda: todo.popleft() if todo else None, lambda: bool(todo))
                if unit is None:
                    return
                yield unit.items[0][1]
        finally:
            for unit in flight.refs.values():  # abandoned calls: their workers take new work
                unit.worker.inflight -= 1

    def rate_limiter(self, rate_per_s: float, burst: int = 1) -> RateLimiter:
        """A token bucket shared by all workers, ``rate_per_s`` acquisitions per second.

        Raises:
            InvalidInput: a rate that is not positive or a burst below 1.
        """
        if not rate_per_s > 0 or burst < 1:
            raise InvalidInput(f"a rate limiter needs rate > 0 and burst >= 1, got {rate_per_s}, {burst}")
        self.start()
        actor = RemoteBucket.remote(float(rate_per_s), int(burst))
        self._helpers.append(actor)
        return RateLimiter(actor, rate_per_s)

    def channel(self) -> Channel:
        """A new mailbox from workers (``put``) to the driver (``drain``)."""
        self.start()
        actor = RemoteMailbox.remote()
        self._helpers.append(actor)
        return Channel(actor)

    # -- introspection

    @property
    def workers(self) -> int:
        """The number of workers up now (0 before the pool starts)."""
        return len(self._workers)

    def worker_pids(self) -> list[int]:
        """The process ids of the workers, once every one asked for is up (diagnostics, fault tests)."""
        self.start()
        self._poll_starting(timeout=self.start_timeout_s)
        try:
            return ray.get([w.handle.pid.remote() for w in self._workers])
        except ray_errors.RayError as error:
            raise ClusterError(f"a worker did not answer: {one_line(error)}") from error

    @property
    def stats(self) -> PoolStats:
        """Counts so far: matches, batches, workers replaced, measured match time."""
        return PoolStats(len(self._workers), self._matches, self._batches, self._replaced, self._meter.match_s)

    # -- capacity

    def _spawn_pending(self) -> None:
        worker = _Worker(RemoteWorker.remote(added_games()), next(self._numbers))
        self._starting[worker.handle.pid.remote()] = worker

    def _poll_starting(self, timeout: float = 0) -> None:
        """Put the workers that have started to work (waiting up to ``timeout`` for all of them)."""
        if not self._starting:
            return
        ready, _ = ray.wait(list(self._starting), num_returns=len(self._starting), timeout=timeout)
        for ref in ready:
            worker = self._starting.pop(ref)
            try:
                ray.get(ref)
            except ray_errors.RayError:  # died while starting: ask again
                self._spawn_pending()
                continue
            self._workers.append(worker)
        self._announce()

    def _grow(self) -> None:
        """A pool of every CPU asks for a worker on each CPU that joined (checked now and then)."""
        if self.requested_workers is not None or time.monotonic() - self._last_grow < self.GROW_EVERY_S:
            return
        self._last_grow = time.monotonic()
        for _ in range(cluster_cpus() - len(self._workers) - len(self._starting)):
            self._spawn_pending()

    def _announce(self) -> None:
        if len(self._workers) != self._size:
            previous, self._size = self._size, len(self._workers)
            if self.on_resize is not None:
                self.on_resize(self._size, previous)

    # -- scheduling

    def batch_size(self) -> int:
        """Matches in the next batch (see ``harness.cluster.batching.batch_size``)."""
        return batch_size(self._meter.match_s, len(self._queue), len(self._workers), self.target_batch_s,
                          self.max_batch)

    def _next_batch(self) -> _Unit | None:
        if not len(self._queue):
            return None
        return _Unit("play", self._queue.pop(self.batch_size()))

    def _dispatch(self, flight: _Flight, next_unit: Callable[[], _Unit | None]) -> None:
        """Give every worker that is up work up to the pipeline depth, lost work first."""
        for worker in sorted(self._workers, key=lambda w: w.inflight):
            while worker.inflight < self.PIPELINE:
                unit = flight.retry.popleft() if flight.retry else next_unit()
                if unit is None:
                    return
                unit.worker, unit.first_of_worker = worker, worker.batches == 0
                worker.inflight += 1
                worker.batches += 1
                if unit.kind == "play":
                    ref = worker.handle.play.remote([spec for _, spec in unit.items])
                else:
                    fn, item = unit.items[0][1]
                    ref = worker.handle.call.remote(fn, item)
                flight.refs[ref] = unit

    def _next_finished(self, flight: _Flight, next_unit: Callable[[], _Unit | None],
                       has_more: Callable[[], bool]) -> _Unit | None:
        """Wait for the next unit of ``flight`` to finish; its items hold the results.

        Returns None when nothing is queued or running.
        """
        idle_since: float | None = None
        while True:
            self._poll_starting()
            self._grow()
            self._dispatch(flight, next_unit)
            if not flight.refs:
                if not flight.retry and not has_more():
                    return None
                idle_since = idle_since or time.monotonic()
                if not self._starting or time.monotonic() - idle_since > self.start_timeout_s:
                    raise ClusterError(
                        f"no worker has been up for {time.monotonic() - idle_since:.0f}s and work is waiting: "
                        f"the cluster has {cluster_cpus()} CPUs and none is free for a worker (nodes lost?); "
                        "resume the run once the cluster has CPUs again")
                ray.wait(list(self._starting), num_returns=1, timeout=_WAIT_S)
                continue
            idle_since = None
            ready, _ = ray.wait(list(flight.refs), num_returns=1, timeout=_WAIT_S)
            if not ready:
                continue
            ref = ready[0]
            unit = flight.refs.pop(ref)
            unit.worker.inflight -= 1
            try:
                output = ray.get(ref)
            except _LOST_WORKER as error:
                self._lose(unit, error, flight)
                continue
            except ray_errors.RayTaskError as error:
                raise self._translate(error) from error
            except ray_errors.RayError as error:
                raise ClusterError(f"the Ray cluster failed: {one_line(error)}") from error
            if unit.kind == "play":
                self._learn(unit, output)
                unit.items = [(tag, result) for (tag, _), result in zip(unit.items, output)]
            else:
                unit.items = [(None, output)]
            return unit

    def _learn(self, unit: _Unit, results: list[MatchResult]) -> None:
        self._matches += len(results)
        self._batches += 1
        if not unit.first_of_worker:  # the first batch of a worker pays for imports and compilation
            self._meter.add(results)

    def _lose(self, unit: _Unit, error: Exception, flight: _Flight) -> None:
        """A worker died under ``unit``: ask for a replacement once, and queue the unit to run again."""
        worker = unit.worker
        if not worker.dead:
            worker.dead = True
            try:
                ray.kill(worker.handle)
            except Exception:  # noqa: BLE001 - it is already gone
                pass
            self._workers = [w for w in self._workers if w is not worker]
            self._spawn_pending()
            self._replaced += 1
            self._announce()
        unit.attempts += 1
        if unit.attempts >= self.max_attempts:
            raise ClusterError(
                f"a batch of {len(unit.items)} lost its worker {unit.attempts} times; "
                f"last error: {one_line(error)}") from error
        unit.worker = None
        flight.retry.append(unit)

    @staticmethod
    def _translate(error: ray_errors.RayTaskError) -> HarnessError:
        cause = getattr(error, "cause", None)
        if isinstance(cause, HarnessError):
            return cause
        return ClusterError(f"a worker failed: {one_line(cause or error)}")


def _close_workers(handles: list[Any], timeout_s: float = 5.0) -> None:
    """Ask live workers to release their players' processes before they are killed (best effort)."""
    try:
        ray.get([handle.close.remote() for handle in handles], timeout=timeout_s)
    except Exception:  # noqa: BLE001 - a dead or stuck worker is killed next anyway
        pass
