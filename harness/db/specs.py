"""Spec helpers of the database: canonical game and player specs, the player hash.

Game specs are read with ``harness.games``' registry functions (``parse_spec``,
``canonical_spec``): pure functions of the spec text and the registry's table,
no engine loaded. Player specs are stored canonical, as the match layer made
them; the two places where text a user typed meets the database (an opponent
or anchor to filter by, a ``tuned:`` alias's engine check) still need the
players' registry, and both go through ``player_spec_surface`` below, the one
import of ``players`` left in the database (``tests/test_layers.py`` lists it
as pending until the caller passes canonical specs; docs/db.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from harness.db.models import MatchRow
from harness.games import canonical_spec, parse_spec


def spec_hash(spec: str) -> str:
    """Stable hash of a canonical player spec: one configuration, one ``players`` row."""
    return hashlib.sha256(spec.encode()).hexdigest()


def spec_parts(spec: str) -> tuple[str, dict[str, str]]:
    """A canonical player spec's kind and its ``key=value`` parameters as text."""
    kind, _, rest = spec.partition(":")
    params = dict(part.partition("=")[::2] for part in rest.split(",") if part)
    return kind, params


def player_spec_surface() -> tuple[Callable[[str], str], Callable[[str, str, bool], Any]]:
    """The players' canonicaliser and engine guard: ``(canonical(spec), guard(spec, source, allow_engines))``.

    Imported when first needed, so opening a database never imports the players.
    """
    from players import guard_engine, load
    return (lambda spec: load(spec).spec), guard_engine


def game_parts(game: str) -> tuple[str, str | None]:
    """A canonical game spec's name and its seat (None when the game has no seats)."""
    name, config = parse_spec(game)
    return name, config.get("seat")


def canonical_game(game: str) -> str:
    """The canonical form of a game spec (``totality:level=wise`` -> ``totality``).

    Raises:
        UnknownGame: not a registered game or configuration.
    """
    return canonical_spec(*parse_spec(game))


def explicit_game(game: str) -> str:
    """A game spec with every option spelled out (``totality`` -> ``totality:level=wise``)."""
    name, config = parse_spec(game)
    return name + (":" + ",".join(f"{k}={v}" for k, v in sorted(config.items())) if config else "")


def game_condition(game: str, pool_configurations: bool = False) -> Any:
    """The WHERE clause selecting a game's matches.

    A spec with options, or any spec when not pooling, selects its canonical
    configuration exactly; a bare name with ``pool_configurations`` selects
    every configuration of that game.

    Raises:
        UnknownGame: not a registered game or configuration.
    """
    if pool_configurations and ":" not in game:
        return MatchRow.game_name == game_parts(game)[0]
    return MatchRow.game == canonical_game(game)
