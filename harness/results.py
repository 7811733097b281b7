"""What a match produced, and the key it is stored under: plain values shared by the layers.

This module imports nothing of the project but ``harness.errors``' level: the
match layer builds these values, the database stores and hands them back, and
neither has to import the other (DESIGN.md's layer table, enforced by
``tests/test_layers.py``). The key is a hash of *canonical* specs; turning a
spec as written into its canonical form needs the games' and players'
registries, so that stays with ``harness.match.match_key``, which calls
``canonical_match_key`` here.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any

from harness.errors import InvalidInput

Action = dict[str, Any]


def canonical_match_key(game: str, player: str, opponent: str, seed: int, opening_plies: int = 0,
                        openings: str = "") -> str:
    """A short stable hash of a match whose game and player specs are already canonical.

    The one definition of the key's format: stored results are found again by
    it, so it must never drift (``tests/test_match.py`` pins one value). A
    match from an opening suite (``openings``, the suite's name) hashes the
    name too; one without hashes exactly what it hashed before suites existed.
    """
    parts: list[object] = [game, player, opponent, seed, opening_plies] + ([openings] if openings else [])
    text = json.dumps(parts, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


@dataclass(frozen=True)
class MatchResult:
    """The record of one finished match, from the player's (user's) seat."""

    game: str
    player: str
    opponent: str
    seed: int
    outcome: str
    reason: str
    score: float
    counters: dict[str, int]
    actions: list[Action]
    plies: int
    duration_s: float
    player_s: float
    opponent_s: float
    key: str
    opening_plies: int = 0
    source: str = "local"
    server_score: float | None = None
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data."""
        return asdict(self)


def read_results_file(path: str | os.PathLike[str]) -> tuple[list[dict[str, Any]], int]:
    """The match results stored one JSON line each in ``path`` (``MatchResult.to_dict``), and the byte length
    of its whole lines. A torn last line (a write cut short by an interruption) is left out: where the
    length is shorter than the file, a writer cuts the file there before appending.

    Raises:
        InvalidInput: a line before the last is not JSON; the message starts with its line number.
    """
    with open(path, "rb") as handle:
        lines = handle.read().splitlines(keepends=True)
    rows, length = [], 0
    for number, line in enumerate(lines, 1):
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as error:
            if number == len(lines) and not line.endswith(b"\n"):
                break
            raise InvalidInput(f"line {number} is not a match result ({error})") from None
        length += len(line)
    return rows, length
