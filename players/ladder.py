"""The ladder of reference opponents per game: the G-Bot stand-ins, and for Chinese chess Fairy-Stockfish.

A rung is a player spec. Chinese chess gets a reference nobody here wrote:
Fairy-Stockfish (Debian package ``fairy-stockfish``) at fixed node counts,
with one thread so every rung is deterministic. The rungs are listed from
the weakest to the strongest as measured in ``docs/players.md``.
"""

from __future__ import annotations

from harness.games import parse_spec
from players import load
from players import search as searches

FAIRY_STOCKFISH = "fairy-stockfish"
FAIRY_NODES = (1_000, 10_000, 100_000)


def fairy_stockfish(nodes: int, command: str = FAIRY_STOCKFISH) -> str:
    """The canonical spec of Fairy-Stockfish at a fixed node count per move, one thread."""
    return load({"kind": "uci", "command": command, "nodes": nodes, "option.Threads": 1}).spec


def ladder(game: str) -> list[str]:
    """The reference opponents of ``game`` (a game name or spec), weakest first.

    Raises:
        UnknownGame: not a registered game.
    """
    name, _ = parse_spec(game)
    levels = searches.module(name).GBOT
    rungs = [load("gbot" if level == "default" else f"gbot:{level}").spec
             for level in sorted(levels, key=lambda level: levels[level]["depth"])]
    if name == "xiangqi":
        rungs += [fairy_stockfish(nodes) for nodes in FAIRY_NODES]
    return rungs
