"""The ladder of G-Bot stand-ins per game, and the references measured beside it.

A rung is a player spec. Nobody knows how the live G-Bot searches or
evaluates, so a player is measured against a ladder of plausible ones rather
than one guess: the game's stand-in levels (``gbot``, ``gbot:wise`` ...),
then the stand-in at every depth of ``DEPTHS`` with every evaluation of the
game's ``GBOT_EVALS`` (``gbot:depth=6,eval=material``), leaving out a rung
that would play exactly like a level already listed. The rungs go from the
shallowest to the deepest search.

The ladder stays fixed: every level and evaluation names every feature from
a frozen table (``LADDER_DEFAULTS`` of Ravenward and Totality, the defaults
of 2026-12-08; Chinese chess's ``TEXTBOOK``), never the live defaults, so
adopting new default weights into ``strong`` never moves a rung under the
players it measures (``ladder_default_source`` names each game's table).

Chinese chess also has references nobody here wrote (``references``):
Fairy-Stockfish (Debian package ``fairy-stockfish``) at fixed node counts,
with one thread so each is deterministic. They are measured beside the
ladder, not on it: the issue's target is no loss against every rung, and a
full chess engine is far beyond any plausible G-Bot (alpha-beta lost 86 of
100 to it at 10,000 nodes a move each), so as a rung it would only say that
the target cannot be met.
"""

from __future__ import annotations

from harness.games import Rules, load as load_game, parse_spec
from players import load
from players import search as searches
from players.features import weight_vector

FAIRY_STOCKFISH = "fairy-stockfish"
FAIRY_NODES = (1_000, 10_000, 100_000)
DEPTHS = (3, 4, 5, 6)


def fairy_stockfish(nodes: int, command: str = FAIRY_STOCKFISH) -> str:
    """The canonical spec of Fairy-Stockfish at a fixed node count per move, one thread."""
    return load({"kind": "uci", "command": command, "nodes": nodes, "option.Threads": 1}).spec


def ladder(game: str) -> list[str]:
    """The G-Bot stand-ins of ``game`` (a game name or spec), the stand-in levels first.

    Args:
        game: a game name or spec (Totality's level picks the level's rungs).

    Raises:
        UnknownGame: not a registered game.
    """
    name, _ = parse_spec(game)
    rules = load_game(game)
    module = searches.module(name)
    levels = module.GBOT
    rungs = [load("gbot" if level == "default" else f"gbot:{level}").spec
             for level in sorted(levels, key=lambda level: levels[level]["depth"])]
    seen = [_settings(rung, rules) for rung in rungs]
    for depth in DEPTHS:
        for evaluation in module.GBOT_EVALS:
            rung = load(f"gbot:depth={depth},eval={evaluation}").spec
            settings = _settings(rung, rules)
            if settings not in seen:
                rungs.append(rung)
                seen.append(settings)
    return rungs


def ladder_default_source(game: str) -> str:
    """Which frozen table the rungs of ``game`` that use "the default evaluation" read (``GBOT_DEFAULT_SOURCE``).

    Raises:
        UnknownGame: not a registered game.
    """
    name, _ = parse_spec(game)
    load_game(game)
    return searches.module(name).GBOT_DEFAULT_SOURCE


def references(game: str) -> list[str]:
    """The engines measured beside the ladder of ``game``: Fairy-Stockfish for Chinese chess, else none.

    Raises:
        UnknownGame: not a registered game.
    """
    name, _ = parse_spec(game)
    load_game(game)
    return [fairy_stockfish(nodes) for nodes in FAIRY_NODES] if name == "xiangqi" else []


def _settings(spec: str, rules: Rules) -> tuple:
    """What a stand-in plays with in ``rules`` (depth, full weight vector, extras), comparable."""
    settings = dict(load(spec).settings(rules))
    weights = tuple(weight_vector(rules.name, settings.pop("weights", None)))
    return weights, tuple(sorted(settings.items()))
