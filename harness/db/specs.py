"""Spec helpers of the database: canonical game and player specs, the player hash.

Game specs are read with ``harness.games``' registry functions (``parse_spec``,
``canonical_spec``): pure functions of the spec text and the registry's table,
no engine loaded. Player specs are stored canonical, as the match layer made
them, and the database never loads a player: a spec a user typed (an
opponent or anchor to filter by) is put in canonical form by the function
the players register in ``harness.spec_forms``, and a ``tuned:`` alias's
engine check is ``harness.trust``'s rule on the stored text.
"""

from __future__ import annotations

import hashlib
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
