"""What a test needs from outside the project: skipped where it is missing, a failure in CI.

``.ci/run`` sets ``HARNESS_CI=1`` and installs everything the tests use (the
``test`` extra, Fairy-Stockfish, Chromium), so there a missing package,
engine or browser means the check did not run: the test fails instead of
hiding behind a skip. On a developer's machine it is skipped with the reason.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import NoReturn

import pytest


def unavailable(reason: str) -> NoReturn:
    """Skip the test (or, at import, its module) with ``reason``; fail it when ``HARNESS_CI`` is set."""
    if os.environ.get("HARNESS_CI"):
        pytest.fail(f"CI must run this test: {reason}", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def import_or_unavailable(name: str, install: str) -> ModuleType:
    """The module ``name``; ``unavailable`` when it fails to import (the reason names ``install``)."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        unavailable(f"{name} cannot be imported ({error}); install {install}")
