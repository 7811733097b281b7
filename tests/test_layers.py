"""The layers of DESIGN.md, enforced: each foreign library has one owner and
lower layers never import upper ones."""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOURCES = sorted(p for package in ("harness", "players") for p in (ROOT / package).rglob("*.py"))

# foreign library -> the only places allowed to import it
OWNERS = {
    "ray": ("harness/cluster/",),
    "optuna": ("harness/tuning/adapter.py",),
    "sqlalchemy": ("harness/db/",),
    "alembic": ("harness/db/",),
    "httpx": ("harness/live/",),
    "starlette": ("harness/web/",),
    "uvicorn": ("harness/web/",),
    "selenium": (),  # the browser test's alone: never in the package
}

# module prefix -> project packages it may import
ALLOWED_INTERNAL = {
    "harness/games/": ("harness.games", "harness.errors"),
    "players/": ("players", "harness.games", "harness.errors"),
}


def imported_modules(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_foreign_libraries_are_imported_only_by_their_owner(path: pathlib.Path) -> None:
    relative = path.relative_to(ROOT).as_posix()
    for module in imported_modules(path):
        library = module.partition(".")[0]
        owners = OWNERS.get(library)
        if owners is not None:
            assert relative.startswith(owners), f"{relative} imports {library}; only {owners} may"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_lower_layers_never_import_upper_layers(path: pathlib.Path) -> None:
    relative = path.relative_to(ROOT).as_posix()
    for prefix, allowed in ALLOWED_INTERNAL.items():
        if not relative.startswith(prefix):
            continue
        for module in imported_modules(path):
            if module.partition(".")[0] in ("harness", "players"):
                assert module.startswith(allowed), f"{relative} imports {module}; allowed: {allowed}"
