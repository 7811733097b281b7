"""Fixtures for the live tests: the emulator on a free loopback port, a fresh SQLite database."""

from __future__ import annotations

import pytest

from harness.db import open_database
from harness.live.emulator import Emulator
from harness.live.http import RetryPolicy

#: Short bounds so fault tests finish quickly; still real HTTP on loopback.
FAST = RetryPolicy(total_s=20.0, base_s=0.05, cap_s=0.5, malformed_retries=2, connect_s=2.0, read_s=5.0)


@pytest.fixture
def fast() -> RetryPolicy:
    return FAST


@pytest.fixture
def emulator():
    """The emulator with the random stand-in (fast), stopped after the test."""
    with Emulator(opponent="random", start_ms=100, poll_ms=30, standin_ms=30) as server:
        yield server


@pytest.fixture
def db(tmp_path):
    database = open_database(f"sqlite:///{tmp_path / 'results.db'}")
    yield database
    database.close()
