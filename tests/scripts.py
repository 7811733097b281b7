"""A script under ``scripts/`` loaded as a module, for tests that call its functions directly."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def script_module(name: str) -> Iterator[ModuleType]:
    """``scripts/<name>.py`` as a module, registered under ``name`` while in use.

    Registered because a script's dataclasses and worker pools look their module up by name.
    """
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[name]
