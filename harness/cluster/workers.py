"""What runs on the workers: the match-playing actor, and the small shared actors beside it.

``MatchWorker`` is one long-lived process that builds players and rules from
plain-data specs and keeps every engine it has loaded warm. ``RateLimiter``
(a token bucket) and ``Channel`` (a mailbox from workers to the driver) are
picklable handles on tiny zero-CPU actors, for functions run by ``Pool.map``.
"""

from __future__ import annotations

import time
from typing import Any

import ray
from ray import exceptions as ray_errors

from harness.cluster.session import one_line
from harness.cluster.work import Mailbox, MatchWorker, TokenBucket
from harness.errors import ClusterError

__all__ = ["RateLimiter", "Channel", "RemoteWorker", "RemoteBucket", "RemoteMailbox"]


RemoteWorker = ray.remote(num_cpus=1, max_restarts=0)(MatchWorker)
RemoteBucket = ray.remote(num_cpus=0)(TokenBucket)
RemoteMailbox = ray.remote(num_cpus=0)(Mailbox)


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
            raise ClusterError(f"the rate limiter is gone: {one_line(error)}") from error
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
            raise ClusterError(f"the channel is gone: {one_line(error)}") from error
