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


# What a line of match data may hold: the keys of ``MatchResult`` (``harness play --json``, the old
# ``--results`` files of scripts/eval_players.py) or of a ``harness export`` line (docs/db.md), which has the
# same keys but for three: ``match_id`` and ``run_id`` (where the line came from: not part of the match),
# and ``openings`` beside the other keys where a ``MatchResult`` keeps it in ``extra``.
LINE_KEYS_REQUIRED = ("game", "player", "opponent", "seed", "outcome", "reason", "score", "counters", "actions",
                      "plies", "key")
LINE_KEYS_OPTIONAL = ("opening_plies", "duration_s", "player_s", "opponent_s", "source", "server_score", "error",
                      "extra", "openings")
LINE_KEYS_IGNORED = ("match_id", "run_id", "recorded")
OUTCOMES = ("win", "draw", "loss")


def result_from_line(data: Any) -> MatchResult:
    """The ``MatchResult`` a line of match data holds: a ``MatchResult.to_dict()`` or a ``harness export`` line.

    Both formats are read alike: the keys of a ``MatchResult``; an export line's ``match_id`` and
    ``run_id`` are ignored, its ``openings`` goes to ``extra["openings"]``, and the times it may lack
    (export lines before they carried them) are 0. The key is not checked here: its canonical form needs
    the games' registry (``harness.db.importing`` checks it).

    Raises:
        InvalidInput: not an object, a missing or unknown key, or a value of the wrong type; the message
            names the key and what is valid.
    """
    if not isinstance(data, dict):
        raise InvalidInput(f"is not a JSON object but {type(data).__name__}")
    unknown = sorted(set(data) - set(LINE_KEYS_REQUIRED) - set(LINE_KEYS_OPTIONAL) - set(LINE_KEYS_IGNORED))
    if unknown:
        raise InvalidInput(f"has the unknown key {unknown[0]!r}; a line holds the keys of a match result: "
                           f"{', '.join(LINE_KEYS_REQUIRED + LINE_KEYS_OPTIONAL)} (docs/db.md)")
    missing = [name for name in LINE_KEYS_REQUIRED if name not in data]
    if missing:
        raise InvalidInput(f"lacks the key {missing[0]!r}; every line needs {', '.join(LINE_KEYS_REQUIRED)}")

    def typed(name: str, kinds: tuple[type, ...], what: str, default: Any = None) -> Any:
        value = data.get(name, default)
        if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
            raise InvalidInput(f"has {name} {json.dumps(value)[:60]}; {name} must be {what}")
        return value

    number = (int, float)
    optional_number = (int, float, type(None))
    if data["outcome"] not in OUTCOMES:
        raise InvalidInput(f"has outcome {json.dumps(data['outcome'])[:60]}; valid: {', '.join(OUTCOMES)}")
    extra = dict(typed("extra", (dict,), "an object", {}))
    openings = typed("openings", (str,), "a suite's name", "")
    if openings:
        extra["openings"] = openings
    actions = typed("actions", (list,), "a list of actions")
    plies = typed("plies", (int,), "an integer")
    if plies != len(actions):
        raise InvalidInput(f"has plies {plies} but {len(actions)} actions; plies counts the actions")
    return MatchResult(
        game=typed("game", (str,), "a game spec"), player=typed("player", (str,), "a player spec"),
        opponent=typed("opponent", (str,), "a player spec"), seed=typed("seed", (int,), "an integer"),
        outcome=data["outcome"], reason=typed("reason", (str,), "text"),
        score=float(typed("score", number, "a number")), counters=typed("counters", (dict,), "an object"),
        actions=actions, plies=plies, duration_s=float(typed("duration_s", number, "a number", 0.0)),
        player_s=float(typed("player_s", number, "a number", 0.0)),
        opponent_s=float(typed("opponent_s", number, "a number", 0.0)), key=typed("key", (str,), "text"),
        opening_plies=typed("opening_plies", (int,), "an integer", 0),
        source=typed("source", (str,), "local or live", "local"),
        server_score=typed("server_score", optional_number, "a number or null"),
        error=typed("error", (str, type(None)), "text or null"), extra=extra)
