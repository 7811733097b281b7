"""A Ctrl-C or SIGTERM is never lost inside a command, even when Python drops the exception it raised."""

from __future__ import annotations

import gc
import os
import signal
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
