"""The layers of DESIGN.md, enforced: each foreign library has one owner, every module of
``harness`` and ``players`` sits in one layer of one ordered table, and a module imports
only its own layer and the layers below it.

The table is the contract (README.md's "Layers" section draws it); a new module that
fits no row fails ``test_every_module_sits_in_one_layer`` until it is given one.
"""

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
    "uvicorn": ("harness/serving.py",),
    "selenium": (),  # the browser test's alone: never in the package
}

# The layers, lowest first. A module belongs to the row naming it or its package
# (``harness`` alone means the package's ``__init__``: ``__version__``); it may import
# modules of its own row and of every row below, never above.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundation: errors, plain values, statistics, files, terminal, stop requests, the bounded HTTP server",
     ("harness", "harness.errors", "harness.results", "harness.ratings", "harness.sprt", "harness.files",
      "harness.serving",
      "harness.console", "harness.trust", "harness.spec_forms", "harness.interrupts", "harness.masking",
      "harness.verdicts")),
    ("games: rules engines, their registry and spec parsing, replay of a recorded match",
     ("harness.games", "harness.replay")),
    ("db: SQLAlchemy, migrations, leaderboards over stored results",
     ("harness.db",)),
    ("players: the Player protocol, kinds, features, searches",
     ("players",)),
    ("envs: a seat in a game",
     ("harness.envs",)),
    ("match: one match, the contract suites",
     ("harness.match", "harness.testing")),
    ("cluster: the Ray pool",
     ("harness.cluster",)),
    ("live: clients of the live servers, the emulator",
     ("harness.live",)),
    ("drivers and views: tournaments, tuning, series, reports, the web view",
     ("harness.tournament", "harness.strength", "harness.tuning", "harness.fitting", "harness.series", "harness.report", "harness.web",
      "harness.tuning_view", "harness.dbsource")),
    ("cli: click commands and their shared options",
     ("harness.cli", "harness.cli_options")),
)
EXACT = {"harness"}  # rows that hold a package's __init__ only, not its submodules

# The database reads game specs through the registry's pure spec functions (no engine is
# imported by them) and loads a game only for its score bounds, which a leaderboard's
# intervals need; it never reads states or actions.
DB_GAME_NAMES = {"parse_spec", "canonical_spec", "load"}

# Upward imports not fixed yet: module -> (imported module, why, what fixes it). Each must
# still be needed (test_pending_upward_imports_are_still_there), so the list only shrinks.
PENDING: dict[str, tuple[str, str, str]] = {}


def module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> int | None:
    """The row index of a project module (longest entry that names it or its package), or None."""
    best: tuple[int, int] | None = None
    for index, (_, entries) in enumerate(LAYERS):
        for entry in entries:
            if module == entry or (entry not in EXACT and module.startswith(entry + ".")):
                if best is None or len(entry) > best[0]:
                    best = (len(entry), index)
    return None if best is None else best[1]


def imports_of(path: pathlib.Path) -> list[tuple[str, tuple[str, ...]]]:
    """Every module the file imports (anywhere in it), with the names taken from it."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((alias.name, ()) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([module] if module else []))
            found.append((module, tuple(alias.name for alias in node.names)))
    return found


def project_imports(path: pathlib.Path) -> list[tuple[str, tuple[str, ...]]]:
    return [(module, names) for module, names in imports_of(path) if module.partition(".")[0] in ("harness", "players")]


def identity(path: pathlib.Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("path", SOURCES, ids=identity)
def test_foreign_libraries_are_imported_only_by_their_owner(path: pathlib.Path) -> None:
    relative = path.relative_to(ROOT).as_posix()
    for module, _ in imports_of(path):
        library = module.partition(".")[0]
        owners = OWNERS.get(library)
        if owners is not None:
            assert relative.startswith(owners), f"{relative} imports {library}; only {owners} may"


@pytest.mark.parametrize("path", SOURCES, ids=identity)
def test_every_module_sits_in_one_layer(path: pathlib.Path) -> None:
    assert layer_of(module_name(path)) is not None, \
        f"{module_name(path)} is in no row of LAYERS: give it the lowest row whose imports it needs"


@pytest.mark.parametrize("path", SOURCES, ids=identity)
def test_a_module_imports_only_its_own_layer_and_the_layers_below(path: pathlib.Path) -> None:
    module = module_name(path)
    own = layer_of(module)
    assert own is not None
    for imported, _ in project_imports(path):
        pending = PENDING.get(module)
        if pending is not None and (imported == pending[0] or imported.startswith(pending[0] + ".")):
            continue
        target = layer_of(imported)
        assert target is not None, f"{module} imports {imported}, which is in no layer"
        assert target <= own, (f"{module} ({LAYERS[own][0].partition(':')[0]}) imports {imported} "
                               f"({LAYERS[target][0].partition(':')[0]}), a layer above it")


@pytest.mark.parametrize("path", [p for p in SOURCES if module_name(p).startswith("harness.db")], ids=identity)
def test_the_database_takes_only_spec_parsing_and_score_bounds_from_the_games(path: pathlib.Path) -> None:
    for imported, names in project_imports(path):
        if imported == "harness.games" or imported.startswith("harness.games."):
            assert imported == "harness.games" and names and set(names) <= DB_GAME_NAMES, \
                f"{module_name(path)} takes {imported} {names} from the games; allowed: {sorted(DB_GAME_NAMES)}"


def test_pending_upward_imports_are_still_there() -> None:
    by_module = {module_name(path): path for path in SOURCES}
    for module, (imported, _, _) in PENDING.items():
        assert module in by_module, f"PENDING names {module}, which is gone: drop its entry"
        found = [name for name, _ in project_imports(by_module[module])
                 if name == imported or name.startswith(imported + ".")]
        assert found, f"{module} no longer imports {imported}: drop its PENDING entry"


def test_the_table_names_every_layer_once() -> None:
    entries = [entry for _, row in LAYERS for entry in row]
    assert len(entries) == len(set(entries))
    assert LAYERS[-1][1][0] == "harness.cli", "the CLI is the top layer"
    importers = {module_name(path) for path in SOURCES
                 if any(name == "harness.cli" or name.startswith("harness.cli.") for name, _ in project_imports(path))}
    assert importers <= {"harness.cli"}, f"nothing imports the CLI: {sorted(importers)}"
