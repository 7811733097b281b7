"""A pool of Ray actors that play matches in batches: the only module that imports ``ray``.

Why actors and batches: a Ray task costs about a millisecond of dispatch, and
a process that has just imported a game engine still has to load (or compile)
its numba code. So each worker is a long-lived actor that builds players and
rules from plain-data specs and keeps every engine it has loaded warm, and
the driver hands it *batches* of matches sized from the measured match
duration (about ``target_batch_s`` of work, fewer near the end of the queue so
both workers finish together). Each worker has up to two batches in flight, so
it never idles between batches.

Results stream back as batches finish (``ray.wait``) and are handed to the
caller, who records them; workers never touch the database.

Faults: a worker process that dies (killed, out of memory, its node lost)
costs only its batches in flight. The driver notices the actor-died error,
starts a new actor in its place, never sends work to the dead one again, and
queues the lost batches first, to run again on a live actor. A batch that
kills ``max_attempts`` workers in a row is reported as a ``ClusterError``.
Because every match has a deterministic key and the database ignores a key it
already holds, a match that ran twice is still recorded once.

Any other exception on a worker (a bug in an engine, a bad spec) stops the
work: a harness error is re-raised as itself (``SpecError`` stays bad input),
anything else becomes a ``ClusterError`` naming the match.

Ray's own logging is kept off the user's terminal (``log_to_driver=False``,
errors only) and usage statistics are disabled; errors reach the user as
``ClusterError`` with Ray's message.

Example::

    with Pool(workers=2) as pool:
        pool.submit(specs, tag="gauntlet")
        for tag, result in pool.as_completed():
            db.record(run_id, result)
"""

from __future__ import annotations

import itertools
import logging
import math
import os
import re
import socket
import sys
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import ray
from ray import exceptions as ray_errors

from harness.errors import ClusterError, HarnessError, InvalidInput
from harness.match import MatchResult, MatchSpec, play_match

__all__ = ["Pool", "PoolStats", "RateLimiter", "Channel", "ray_session", "cluster_cpus"]

# Errors after which the actor that ran the work is gone (or unreachable) and
# the work it held must run again elsewhere.
_LOST_WORKER = (ray_errors.RayActorError, ray_errors.WorkerCrashedError,
                ray_errors.NodeDiedError, ray_errors.ObjectLostError)

_WAIT_S = 0.5  # ray.wait timeout, so Ctrl-C is seen promptly
_DISCARDED = object()  # the tag of results nobody wants any more (``cancel(running=True)``)


# ---------------------------------------------------------------- Ray session


def _init_options(address: str | None) -> dict[str, Any]:
    quiet = {"log_to_driver": False, "logging_level": logging.ERROR, "configure_logging": True}
    if address is None:
        return quiet | {"include_dashboard": False}  # a cluster we start: no dashboard either
    return quiet  # a running cluster keeps its own settings


def _check_address(address: str | None) -> None:
    if address is None or address == "auto" or address.startswith("ray://"):
        return
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise InvalidInput(f"Ray address {address!r} is not valid; use auto, HOST:PORT "
                           "(a head started with scripts/ray_head) or ray://HOST:10001")


def _use_token_auth_if_configured() -> None:
    """Join a token-protected head by HOST:PORT as Ray's own ``auto`` does.

    Ray turns token authentication on for ``address="auto"`` when a token is
    configured (``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH`` or
    ``~/.ray/auth_token``, which ``ray start --head`` writes), but not for an
    explicit address (nor for ``auto`` resolved through ``RAY_ADDRESS``), so
    the head refuses the driver. Ray reads the mode once
    at import, so its own helper (which also refreshes its config) is used
    where this Ray version has it. An explicit ``RAY_AUTH_MODE`` is respected.
    """
    if "RAY_AUTH_MODE" in os.environ:
        return
    try:
        from ray._private.authentication.authentication_token_setup import (
            maybe_enable_token_auth_if_token_available)
    except ImportError:  # a Ray without token authentication
        return
    maybe_enable_token_auth_if_token_available(warn_if_disabled=False)


def _driver_code_path() -> list[str]:
    """The driver's own source directories (not the Python installation's).

    A local cluster's workers get them on their path, so whatever the driver
    imported from a checkout (the harness, a test module, a script's module)
    the workers import the same way. Nodes joined by address run their own
    checkout instead (see scripts/ray_worker).
    """
    installed = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    paths = []
    for entry in sys.path:
        path = os.path.realpath(entry or os.getcwd())
        if os.path.isdir(path) and not any(path.startswith(root) for root in installed):
            paths.append(path)
    return list(dict.fromkeys(paths))


def _check_reachable(address: str, timeout_s: float = 5.0) -> None:
    """Fail fast on a HOST:PORT nobody answers: Ray itself retries for minutes, noisily."""
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=timeout_s).close()
    except OSError as error:
        raise ClusterError(f"cannot reach a Ray head at {address} ({error}); start one there with "
                           "scripts/ray_head, or leave out --address for a local cluster") from None


def _connect(workers: int | None, address: str | None) -> bool:
    """Start or join Ray unless already connected; True if this call started the session."""
    if ray.is_initialized():
        return False
    _check_address(address)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    options = _init_options(address)
    if address is not None and address != "auto" and not address.startswith("ray://"):
        _check_reachable(address)
    if address is not None and not address.startswith("ray://"):
        _use_token_auth_if_configured()
    try:
        if address is None:
            # "local" always starts a new cluster: never a stray one found on this machine
            ray.init(address="local", num_cpus=workers or os.cpu_count() or 1,
                     runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(_driver_code_path())}},
                     **options)
        else:
            ray.init(address=address, **options)
    except (ConnectionError, RuntimeError, ValueError, ray_errors.RayError) as error:
        where = "a local Ray cluster" if address is None else f"the Ray cluster at {address}"
        raise ClusterError(f"could not start or join {where}: {_one_line(error)}") from error
    return True


@contextmanager
def ray_session(num_cpus: int | None = None, address: str | None = None) -> Iterator[None]:
    """A Ray session for a block of code: started (or joined) if none is running, ended after.

    Pools inside the block share it (a pool never shuts down a session it did
    not start), which is how the tests share one local cluster.

    Args:
        num_cpus: CPUs of a local cluster (ignored when joining one).
        address: None for a local cluster, ``"auto"``, ``HOST:PORT`` or
            ``"ray://HOST:PORT"`` to join a running one.

    Raises:
        InvalidInput: a malformed address.
        ClusterError: Ray could not be started or joined.
    """
    started = _connect(num_cpus, address)
    try:
        yield
    finally:
        if started:
            ray.shutdown()


def cluster_cpus() -> int:
    """The CPUs of the connected Ray cluster (all nodes)."""
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


# ---------------------------------------------------------------- actors


class _MatchWorker:
    """One worker process: plays batches of matches, keeping engines warm.

    ``harness.games.load`` caches rules per spec and numba keeps compiled code
    per process, so only the first match of a game in this actor pays for
    importing and compiling it.
    """

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


class _TokenBucket:
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


class _Mailbox:
    """A list that workers append to and the driver empties."""

    def __init__(self) -> None:
        self.items: list[Any] = []

    def put(self, item: Any) -> None:
        self.items.append(item)

    def drain(self) -> list[Any]:
        items, self.items = self.items, []
        return items


_RemoteWorker = ray.remote(num_cpus=1, max_restarts=0)(_MatchWorker)
_RemoteBucket = ray.remote(num_cpus=0)(_TokenBucket)
_RemoteMailbox = ray.remote(num_cpus=0)(_Mailbox)


class RateLimiter:
    """A token bucket shared by every worker: ``acquire()`` blocks until a slot is free.

    Picklable: pass it to a function run by ``Pool.map`` and every copy draws
    from the same bucket (a small Ray actor).
    """

    def __init__(self, actor: Any, rate_per_s: float) -> None:
        self._actor = actor
        self.rate_per_s = rate_per_s

    def acquire(self, tokens: int = 1) -> float:
        """Wait for ``tokens`` slots; returns the seconds waited.

        Raises:
            ClusterError: the bucket is gone (its pool was closed).
        """
        try:
            delay = ray.get(self._actor.reserve.remote(tokens))
        except ray_errors.RayError as error:
            raise ClusterError(f"the rate limiter is gone: {_one_line(error)}") from error
        if delay > 0:
            time.sleep(delay)
        return delay


class Channel:
    """A mailbox from workers to the driver: ``put`` on workers, ``drain`` in the driver.

    Picklable like ``RateLimiter``. ``put`` returns once the item is stored, so
    everything a finished task put is in the next ``drain``.
    """

    def __init__(self, actor: Any) -> None:
        self._actor = actor

    def put(self, item: Any) -> None:
        """Store one item (any picklable object)."""
        self._call(self._actor.put, item)

    def drain(self) -> list[Any]:
        """Every item stored since the last drain, oldest first."""
        return self._call(self._actor.drain)

    @staticmethod
    def _call(method: Any, *args: Any) -> Any:
        try:
            return ray.get(method.remote(*args))
        except ray_errors.RayError as error:
            raise ClusterError(f"the channel is gone: {_one_line(error)}") from error


# ---------------------------------------------------------------- the pool


@dataclass(frozen=True)
class PoolStats:
    """What a pool has done so far (for benchmarks, tests and progress lines)."""

    workers: int
    matches: int
    batches: int
    replaced: int
    match_s: float | None  # smoothed duration of one match on a worker, None before a measure


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


class Pool:
    """Ray actors playing matches; see the module docstring for batching and faults.

    Args:
        workers: number of worker actors (one CPU each). None: the local
            machine's CPUs, or every CPU of a joined cluster.
        address: None starts a local Ray cluster with ``num_cpus=workers``;
            ``"auto"``, ``HOST:PORT`` or ``"ray://HOST:PORT"`` joins one.
        target_batch_s: seconds of matches per batch once a duration is measured.
        max_batch: upper bound on matches per batch.
        max_attempts: times a batch may lose its worker before the pool gives up.
        start_timeout_s: how long to wait for the workers to start.

    Raises:
        InvalidInput: a malformed address or a worker count below 1.
        ClusterError: Ray could not be started or joined, or workers did not start.
    """

    PIPELINE = 2  # batches in flight per worker

    def __init__(self, workers: int | None = None, address: str | None = None, *,
                 target_batch_s: float = 0.05, max_batch: int = 256, max_attempts: int = 3,
                 start_timeout_s: float = 120.0) -> None:
        if workers is not None and workers < 1:
            raise InvalidInput(f"workers must be at least 1, got {workers}")
        _check_address(address)
        self.requested_workers = workers
        self.address = address
        self.target_batch_s = target_batch_s
        self.max_batch = max_batch
        self.max_attempts = max_attempts
        self.start_timeout_s = start_timeout_s
        self._owns_ray = False
        self._started = False
        self._workers: list[_Worker] = []
        self._numbers = itertools.count()
        self._queue: deque[tuple[Hashable, MatchSpec]] = deque()
        self._ready: deque[tuple[Hashable, MatchResult]] = deque()
        self._plays = _Flight()
        self._helpers: list[Any] = []
        self._match_s: float | None = None
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
            ClusterError: Ray could not be started or joined, or the workers did
                not come up within ``start_timeout_s``.
        """
        if self._started:
            return
        self._owns_ray = _connect(self.requested_workers, self.address)
        self._started = True
        count = self.requested_workers or cluster_cpus()
        if count > cluster_cpus():
            self.close()
            raise ClusterError(f"the Ray cluster has {cluster_cpus()} CPUs and each worker takes one; "
                               f"ask for at most {cluster_cpus()} workers, not {count}")
        self._workers = [self._spawn() for _ in range(count)]
        try:
            ray.get([w.handle.pid.remote() for w in self._workers], timeout=self.start_timeout_s)
        except ray_errors.GetTimeoutError:
            self.close()
            raise ClusterError(
                f"{count} workers did not start within {self.start_timeout_s:g}s; the cluster "
                f"has {cluster_cpus()} CPUs (each worker takes one)") from None
        except ray_errors.RayError as error:
            self.close()
            raise ClusterError(f"workers could not start: {_one_line(error)}") from error

    def close(self) -> None:
        """Stop the workers, drop work in flight, and end the Ray session if the pool started it."""
        if not self._started:
            return
        # idle workers release their players' engines; busy ones are killed at once (work in
        # flight is dropped), and their engines see their input close and exit
        _close_workers([w.handle for w in self._workers if w.inflight == 0])
        for handle in [w.handle for w in self._workers] + self._helpers:
            try:
                ray.kill(handle)
            except Exception:  # noqa: BLE001 - already gone is fine
                pass
        self._workers, self._helpers = [], []
        self._plays = _Flight()
        self._queue.clear()
        self._started = False
        if self._owns_ray:
            ray.shutdown()
            self._owns_ray = False

    # -- matches

    def submit(self, specs: Sequence[MatchSpec], tag: Hashable = None) -> None:
        """Queue matches; ``as_completed`` hands their results back under ``tag``."""
        self.start()
        self._queue.extend((tag, spec) for spec in specs)

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
        kept = deque(item for item in self._queue if item[0] != tag)
        dropped = len(self._queue) - len(kept)
        self._queue = kept
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
            ClusterError: a batch lost its worker ``max_attempts`` times, or a
                worker failed with an unexpected error.
            HarnessError: a worker raised one (a bad spec stays ``SpecError``).
        """
        self.start()
        while True:
            while self._ready:
                yield self._ready.popleft()
            unit = self._next_finished(self._plays, self._next_batch)
            if unit is None:
                return
            self._ready.extend(item for item in unit.items if item[0] is not _DISCARDED)

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

    # -- arbitrary functions, rate limiting and messages

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        """Run ``fn(item)`` on the workers for every item; yield results as they finish.

        ``fn`` must be a picklable top-level function. A call whose worker died
        runs again on a new worker, so ``fn`` should be safe to repeat (a live
        game resumes from its saved state).

        Raises:
            ClusterError / HarnessError: as ``as_completed``.
        """
        self.start()
        todo = deque(_Unit("call", [(None, (fn, item))]) for item in items)
        flight = _Flight()  # this call's own: an abandoned map leaves nothing for the next one
        try:
            while True:
                unit = self._next_finished(flight, lambda: todo.popleft() if todo else None)
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
        actor = _RemoteBucket.remote(float(rate_per_s), int(burst))
        self._helpers.append(actor)
        return RateLimiter(actor, rate_per_s)

    def channel(self) -> Channel:
        """A new mailbox from workers (``put``) to the driver (``drain``)."""
        self.start()
        actor = _RemoteMailbox.remote()
        self._helpers.append(actor)
        return Channel(actor)

    # -- introspection

    @property
    def workers(self) -> int:
        """The number of live worker actors."""
        return len(self._workers)

    def worker_pids(self) -> list[int]:
        """The process ids of the live workers (for diagnostics and fault tests)."""
        self.start()
        try:
            return ray.get([w.handle.pid.remote() for w in self._workers])
        except ray_errors.RayError as error:
            raise ClusterError(f"a worker did not answer: {_one_line(error)}") from error

    @property
    def stats(self) -> PoolStats:
        """Counts so far: matches, batches, workers replaced, measured match time."""
        return PoolStats(len(self._workers), self._matches, self._batches, self._replaced,
                         self._match_s)

    # -- scheduling

    def batch_size(self) -> int:
        """Matches in the next batch.

        One match until a duration is measured (a slow game must not hide in a
        huge first batch); then about ``target_batch_s`` of work, but at most
        half of each worker's share of the queue (guided self-scheduling), so
        batches shrink towards the end and the workers finish together.
        """
        if self._match_s is None:
            return 1
        wanted = int(self.target_batch_s / max(self._match_s, 1e-6))
        share = math.ceil(len(self._queue) / (2 * max(1, len(self._workers))))
        return max(1, min(wanted, share, self.max_batch))

    def _next_batch(self) -> _Unit | None:
        if not self._queue:
            return None
        size = self.batch_size()
        return _Unit("play", [self._queue.popleft() for _ in range(min(size, len(self._queue)))])

    def _spawn(self) -> _Worker:
        return _Worker(_RemoteWorker.remote(), next(self._numbers))

    def _dispatch(self, flight: _Flight, next_unit: Callable[[], _Unit | None]) -> None:
        """Give every live worker work up to the pipeline depth, lost work first."""
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

    def _next_finished(self, flight: _Flight, next_unit: Callable[[], _Unit | None]) -> _Unit | None:
        """Wait for the next unit of ``flight`` to finish; its items hold the results.

        Returns None when nothing is queued or running.
        """
        while True:
            self._dispatch(flight, next_unit)
            if not flight.refs:
                return None
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
                raise ClusterError(f"the Ray cluster failed: {_one_line(error)}") from error
            if unit.kind == "play":
                self._learn(unit, output)
                unit.items = [(tag, result) for (tag, _), result in zip(unit.items, output)]
            else:
                unit.items = [(None, output)]
            return unit

    def _learn(self, unit: _Unit, results: list[MatchResult]) -> None:
        self._matches += len(results)
        self._batches += 1
        if unit.first_of_worker or not results:
            return  # the first batch of a worker pays for imports and compilation
        mean = sum(r.duration_s for r in results) / len(results)
        self._match_s = mean if self._match_s is None else 0.7 * self._match_s + 0.3 * mean

    def _lose(self, unit: _Unit, error: Exception, flight: _Flight) -> None:
        """A worker died under ``unit``: replace it once, and queue the unit to run again."""
        worker = unit.worker
        if not worker.dead:
            worker.dead = True
            try:
                ray.kill(worker.handle)
            except Exception:  # noqa: BLE001 - it is already gone
                pass
            self._workers = [w for w in self._workers if w is not worker]
            self._workers.append(self._spawn())
            self._replaced += 1
        unit.attempts += 1
        if unit.attempts >= self.max_attempts:
            raise ClusterError(
                f"a batch of {len(unit.items)} lost its worker {unit.attempts} times; "
                f"last error: {_one_line(error)}") from error
        unit.worker = None
        flight.retry.append(unit)

    @staticmethod
    def _translate(error: ray_errors.RayTaskError) -> HarnessError:
        cause = getattr(error, "cause", None)
        if isinstance(cause, HarnessError):
            return cause
        return ClusterError(f"a worker failed: {_one_line(cause or error)}")


def _close_workers(handles: list[Any], timeout_s: float = 5.0) -> None:
    """Ask live workers to release their players' processes before they are killed (best effort)."""
    try:
        ray.get([handle.close.remote() for handle in handles], timeout=timeout_s)
    except Exception:  # noqa: BLE001 - a dead or stuck worker is killed next anyway
        pass


def _one_line(error: BaseException) -> str:
    """One line for the user: the error's first line, and its root cause when Ray buried one.

    Ray's errors carry whole tracebacks; the line that names the cause (a
    ``ModuleNotFoundError: ...`` on a node with another checkout) is kept.
    """
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    head = f"{type(error).__name__}: {lines[0] if lines else ''}"
    causes = [line for line in lines[1:] if _CAUSE_LINE.match(line)]
    return f"{head} ({causes[-1]})" if causes and causes[-1] not in head else head


_CAUSE_LINE = re.compile(r"^[A-Za-z_.]*(Error|Exception): ")
