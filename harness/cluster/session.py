"""The Ray session: start a local cluster or join a running one, quietly, with one-line errors.

Ray's own logging is kept off the user's terminal (``log_to_driver=False``,
errors only), usage statistics and the dashboard are off for a cluster we
start, and errors reach the user as one ``ClusterError`` line. Joining by
``HOST:PORT`` turns on token authentication when a token is configured, as
Ray's ``auto`` does, without Ray's warning about it.

Where a local start's seconds go (measured in docs/cluster.md): Ray's GCS
and raylet processes, then one Python worker process per actor that imports
the harness. A local cluster is started with only what a pool needs: no
dashboard, no usage statistics, no log monitor forwarding.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import ray
from ray import exceptions as ray_errors

from harness.errors import ClusterError, InvalidInput

__all__ = ["ray_session", "cluster_cpus", "connect", "check_address", "one_line"]


def _init_options(address: str | None) -> dict[str, Any]:
    quiet = {"log_to_driver": False, "logging_level": logging.ERROR, "configure_logging": True}
    if address is None:
        return quiet | {"include_dashboard": False}  # a cluster we start: no dashboard either
    return quiet  # a running cluster keeps its own settings


def check_address(address: str | None) -> None:
    """Refuse a malformed address before Ray retries it for minutes.

    Raises:
        InvalidInput: not ``auto`` nor ``HOST:PORT``.
    """
    if address is None or address == "auto":
        return
    if address.startswith("ray://"):
        raise InvalidInput(f"Ray address {address!r}: ray:// (Ray Client) is not supported; give the head's "
                           "HOST:PORT (scripts/ray_head prints it, port 6379 by default) or auto")
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise InvalidInput(f"Ray address {address!r} is not valid; use HOST:PORT (a head started with "
                           "scripts/ray_head) or auto (the cluster this machine joined with ray start)")


def _use_token_auth_if_configured() -> None:
    """Join a token-protected head by HOST:PORT as Ray's own ``auto`` does, without its warning.

    Ray turns token authentication on for ``address="auto"`` when a token is
    configured (``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH`` or
    ``~/.ray/auth_token``, which ``ray start --head`` writes), but not for an
    explicit address, so the head refuses the driver. Ray reads the mode once
    at import, so its own helper (which also refreshes its config) is used
    where this Ray version has it. An explicit ``RAY_AUTH_MODE`` is respected.
    """
    if "RAY_AUTH_MODE" in os.environ:
        return
    try:
        from ray._private.authentication import authentication_token_setup as setup
    except ImportError:  # a Ray without token authentication
        return
    chatty = logging.getLogger(setup.__name__)
    level = chatty.level
    chatty.setLevel(logging.ERROR)  # "Token authentication is enabled ...": expected here, not news
    try:
        setup.maybe_enable_token_auth_if_token_available(warn_if_disabled=False)
    finally:
        chatty.setLevel(level)


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
        raise ClusterError(f"cannot reach a Ray head at {address} ({error.strerror or error}); start one there "
                           "with scripts/ray_head, or leave out --address for a local cluster") from None


def connect(workers: int | None, address: str | None) -> bool:
    """Start or join Ray unless already connected; True if this call started the session.

    Raises:
        InvalidInput: a malformed address.
        ClusterError: Ray could not be started or joined.
    """
    if ray.is_initialized():
        return False
    check_address(address)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    options = _init_options(address)
    if address is not None and address != "auto":
        _check_reachable(address)
    if address is not None:
        _use_token_auth_if_configured()
    try:
        if address is None:
            # "local" always starts a new cluster: never a stray one found on this machine. The
            # workers find the driver's code through PYTHONPATH inherited from the raylet, not a
            # runtime_env: a runtime_env makes every worker wait for Ray's runtime-env agent
            # (4-6 s here) instead of taking a prestarted process (0.2 s)
            with _environment(PYTHONPATH=os.pathsep.join(_driver_code_path())):
                ray.init(address="local", num_cpus=workers or os.cpu_count() or 1, **options)
        else:
            ray.init(address=address, **options)
    except (ConnectionError, RuntimeError, ValueError, ray_errors.RayError) as error:
        where = "a local Ray cluster" if address is None else f"the Ray cluster at {address}"
        raise ClusterError(f"could not start or join {where}: {one_line(error)}") from error
    return True


@contextmanager
def _environment(**values: str) -> Iterator[None]:
    """Environment variables set for a block (the processes it starts inherit them)."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def shutdown() -> None:
    """End this process's Ray session."""
    ray.shutdown()


@contextmanager
def ray_session(num_cpus: int | None = None, address: str | None = None) -> Iterator[None]:
    """A Ray session for a block of code: started (or joined) if none is running, ended after.

    Pools inside the block share it (a pool never shuts down a session it did
    not start), which is how the tests share one local cluster.

    Args:
        num_cpus: CPUs of a local cluster (ignored when joining one).
        address: None for a local cluster, ``"auto"`` or ``HOST:PORT`` to join a running one.

    Raises:
        InvalidInput: a malformed address.
        ClusterError: Ray could not be started or joined.
    """
    started = connect(num_cpus, address)
    try:
        yield
    finally:
        if started:
            ray.shutdown()


def cluster_cpus() -> int:
    """The CPUs of the connected Ray cluster (all live nodes)."""
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def one_line(error: BaseException) -> str:
    """One line for the user: the error's first line, and its root cause when Ray buried one.

    Ray's errors carry whole tracebacks; the line that names the cause (a
    ``ModuleNotFoundError: ...`` on a node with another checkout) is kept.
    """
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    head = f"{type(error).__name__}: {lines[0] if lines else ''}"
    causes = [line for line in lines[1:] if _CAUSE_LINE.match(line)]
    return f"{head} ({causes[-1]})" if causes and causes[-1] not in head else head


_CAUSE_LINE = re.compile(r"^[A-Za-z_.]*(Error|Exception): ")
