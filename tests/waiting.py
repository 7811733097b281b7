"""Waiting on a condition with a deadline, instead of sleeping a fixed time and hoping it was enough."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import pytest

T = TypeVar("T")


def wait_until(condition: Callable[[], T], what: str, timeout_s: float = 30.0, interval_s: float = 0.05) -> T:
    """Poll ``condition`` until it returns something true, and return that; fail the test after ``timeout_s``.

    The deadline is generous (a loaded CI machine is slow, never wrong); a
    fast machine returns at the first poll that sees the condition.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"not within {timeout_s:g} s: {what}")
        time.sleep(interval_s)
