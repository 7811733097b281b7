"""A Ctrl-C or SIGTERM is never lost inside a command, even when Python drops the exception it raised."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys

import pytest

from harness.interrupts import check, is_stop, stop_on_signals, stops_unwrapped


class RaisesInItsFinaliser:
    """A signal whose handler runs in a ``__del__``: Python prints "Exception ignored" and drops it."""

    def __init__(self, sig: int) -> None:
        self.sig = sig

    def __del__(self) -> None:
        os.kill(os.getpid(), self.sig)
        for _ in range(1000):  # bytecodes: the handler runs here, inside the finaliser
            pass


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_python_dropped_is_raised_at_the_next_check_and_not_printed(sig: int) -> None:
    before, hook = signal.getsignal(sig), sys.unraisablehook
    dropped: list[BaseException] = []
    sys.unraisablehook = lambda args: dropped.append(args.exc_value)  # what Python would print
    try:
        with stop_on_signals():
            RaisesInItsFinaliser(sig)  # dropped at once: its __del__ takes the signal, Python the exception
            gc.collect()
            with pytest.raises(KeyboardInterrupt):
                check()
            error = ValueError("not a stop")
            sys.unraisablehook(type("Args", (), {"exc_value": error})())
        assert dropped == [error], "a dropped stop was printed, or another unraisable error was not"
    finally:
        sys.unraisablehook = hook
    assert signal.getsignal(sig) is before
    check()  # the block ended: the request is forgotten


def test_without_a_stop_check_raises_nothing() -> None:
    with stop_on_signals():
        check()
    check()


class SignalsWhenNamed:
    """A descriptor whose ``__set_name__`` takes the signal, as a Ctrl-C landing while an import defines a class."""

    def __init__(self, sig: int) -> None:
        self.sig = sig

    def __set_name__(self, owner: type, name: str) -> None:
        os.kill(os.getpid(), self.sig)
        for _ in range(1000):  # bytecodes: the handler runs here
            pass


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_python_wrapped_in_another_error_is_raised_as_the_stop(sig: int) -> None:
    with stop_on_signals():
        with pytest.raises(KeyboardInterrupt) as raised:
            with stops_unwrapped():
                type("Quadrature", (), {"nodes": SignalsWhenNamed(sig)})
    wrapped = raised.value.__cause__
    assert wrapped is not None and not isinstance(wrapped, KeyboardInterrupt), "nothing was wrapped to unwrap"
    assert is_stop(wrapped)


def test_errors_that_are_not_stops_pass_through_unchanged() -> None:
    error = ValueError("bad input")
    with pytest.raises(ValueError) as raised:
        with stops_unwrapped():
            raise error
    assert raised.value is error and not is_stop(error)
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise RuntimeError("while stopping")  # noqa: B904 - the context is the point
    except RuntimeError as during:
        assert is_stop(during)


UNWINDING_LIBRARY = """
import logging, sys
from harness.interrupts import stop_on_signals

pool = logging.getLogger("sqlalchemy.pool.impl.QueuePool")  # where SQLAlchemy logs "Error closing cursor"
with stop_on_signals():
    try:
        try:
            raise KeyboardInterrupt  # the stop, landing inside a fetch
        except KeyboardInterrupt:
            try:
                raise RuntimeError("Cannot operate on a closed database.")  # closing the cursor it cut short
            except RuntimeError:
                pool.error("Error closing cursor", exc_info=True)
            raise
    except KeyboardInterrupt:
        pass
    try:
        raise ValueError("a real fault")
    except ValueError:
        pool.error("Error of its own", exc_info=True)
try:
    raise KeyboardInterrupt
except KeyboardInterrupt:
    try:
        raise RuntimeError("after the block")
    except RuntimeError:
        pool.error("Outside the block", exc_info=True)
"""


def test_a_library_logging_its_unwinding_from_a_stop_prints_no_traceback() -> None:
    """SQLAlchemy logs "Error closing cursor" with a traceback when Ctrl-C lands in a fetch; a clean stop hides it."""
    done = subprocess.run([sys.executable, "-c", UNWINDING_LIBRARY], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Error closing cursor" not in done.stderr and "closed database" not in done.stderr
    assert "Error of its own" in done.stderr and "ValueError: a real fault" in done.stderr
    assert "Outside the block" in done.stderr  # the filter ends with the block
