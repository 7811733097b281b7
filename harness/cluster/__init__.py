"""The cluster: the only package that imports ``ray``.

* ``session``: start a local Ray cluster or join one by address, quietly;
* ``work``: what a worker does (play a batch, call a function), without Ray;
* ``workers``: the Ray actors around it, and shared rate limiters and mailboxes;
* ``batching``: the match queue and batch sizes;
* ``pool``: the pool of actors that retries lost work and follows the capacity;
* ``inprocess``: one worker in the driver's own process (``--workers 1``, no Ray);
* ``protocol``: ``MatchPool``, what the schedulers need of either pool.

Names are loaded on first use, so a command that needs no Ray (the
in-process pool) never imports it.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_NAMES = {
    "Pool": "pool", "announce_resize": "pool",
    "PoolStats": "batching",
    "RateLimiter": "workers", "Channel": "workers",
    "ray_session": "session", "cluster_cpus": "session",
    "InProcessPool": "inprocess",
    "open_pool": "inprocess", "using_pool": "inprocess",
    "MatchPool": "protocol",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    if name not in _NAMES:
        raise AttributeError(f"module 'harness.cluster' has no attribute {name!r}")
    return getattr(import_module(f"harness.cluster.{_NAMES[name]}"), name)
