"""Ctrl-C and SIGTERM that a long command never loses.

Python runs a signal handler in whatever frame is current. When that frame
is a weakref callback or a ``__del__`` (an import's clean-up, the garbage
collector), the ``KeyboardInterrupt`` the handler raises is printed as
"Exception ignored" and dropped, and a study or tournament runs on to its end
as if the key had never been pressed (seen: a Ctrl-C landing while SciPy
imported for the pruner). So the handler installed here also records the
request, and the loops that wait for results call ``check()``: a stop that
was swallowed is raised again at the next result. The dropped exception is
not printed either (a traceback on a clean stop would look like a crash).

When the frame is a class being created (an import defining a descriptor),
Python 3.11 wraps the ``KeyboardInterrupt`` in a ``RuntimeError`` ("Error
calling __set_name__"); ``stops_unwrapped`` raises such an error as the stop it
was, so it ends the command as Ctrl-C does (resumable, exit 130), not as a crash.

A library that logs an error while it unwinds from the stop (SQLAlchemy's
"Error closing cursor" when Ctrl-C lands inside a fetch: the interrupted
connection is closed first) would print a traceback on a clean stop too; a
log record whose exception a stop caused is dropped within the block.

SIGTERM (a scheduler, ``kill``) is taken as Ctrl-C: cleanly, resumable.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_requested = threading.Event()


def _stop(signum: int, frame: Any) -> None:
    _requested.set()
    raise KeyboardInterrupt


def _not_from_a_stop(record: logging.LogRecord) -> bool:
    """A log filter: False for a record whose exception a stop caused."""
    error = record.exc_info[1] if record.exc_info else None
    return error is None or not is_stop(error)


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """Within: SIGINT and SIGTERM raise ``KeyboardInterrupt`` and are remembered until the block ends.

    Outside the main thread (a test calling the CLI from a thread) signals
    cannot be handled there, and the block leaves them as they are.
    """
    _requested.clear()
    try:
        previous = {sig: signal.signal(sig, _stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread
        yield
        return
    hook = sys.unraisablehook

    def unraisable(args: Any) -> None:
        if not (isinstance(args.exc_value, KeyboardInterrupt) and _requested.is_set()):
            hook(args)  # recorded stops are raised again by check(); anything else as before

    sys.unraisablehook = unraisable
    # lastResort prints when no handler is configured (the CLI), the root's handlers when some are
    handlers = [h for h in (logging.lastResort, *logging.getLogger().handlers) if h is not None]
    for handler in handlers:
        handler.addFilter(_not_from_a_stop)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(_not_from_a_stop)
        sys.unraisablehook = hook
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        _requested.clear()


def check() -> None:
    """Raise ``KeyboardInterrupt`` when a stop was asked for inside ``stop_on_signals``.

    Called where a loop waits for work; harmless anywhere else (nothing was
    asked for, nothing is raised).
    """
    if _requested.is_set():
        raise KeyboardInterrupt


def is_stop(error: BaseException) -> bool:
    """Whether ``error`` is a ``KeyboardInterrupt`` or was caused by one (its ``__cause__``/``__context__`` chain)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


@contextmanager
def stops_unwrapped() -> Iterator[None]:
    """Within: an error a stop turned into (see the module docstring) is raised as ``KeyboardInterrupt``."""
    try:
        yield
    except Exception as error:
        if is_stop(error):
            raise KeyboardInterrupt from error
        raise
