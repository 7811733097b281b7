"""A script under ``scripts/`` loaded as a module, for tests that call its functions directly; files of match
lines as ``harness export`` writes them, which the scripts read."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from harness.db import open_database
from harness.db.export import export_lines
from harness.match import MatchSpec, play_match

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


def export_file(path: Path, specs: list[MatchSpec]) -> Path:
    """``path`` holding the matches of ``specs``, played, recorded in a scratch database and exported."""
    with open_database(f"sqlite:///{path.with_suffix('.db')}") as database:
        database.record_many(database.start_run("play", specs[0].game, {}), [play_match(spec) for spec in specs])
        path.write_text("".join(line + "\n" for line in export_lines(database)))
    return path
