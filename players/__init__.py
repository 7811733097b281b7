"""Players: the protocol, and ``load(spec)`` over a registry of kinds.

``load("alphabeta:depth=4,w.mobility=2.5")`` or ``load({"kind": "alphabeta",
"depth": 4, "weights": {"mobility": 2.5}})``. Passing ``game=`` also checks
weight names against that game's evaluation features, so a typo is caught
before any match is played.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

from harness.errors import SpecError
from harness.spec_forms import register_player_form
from harness.trust import guard_command
from players.base import Limits, Param, Player, shutdown
from players.spec import parse

__all__ = ["Limits", "Param", "Player", "KINDS", "load", "canonical", "kinds", "runs_command", "guard_engine", "shutdown"]

# kind -> (module, class, parameter a bare value sets)
KINDS: dict[str, tuple[str, str, str | None]] = {
    "random": ("players.random", "RandomPlayer", None),
    "greedy": ("players.greedy", "GreedyPlayer", None),
    "alphabeta": ("players.alphabeta", "AlphaBetaPlayer", "depth"),
    "mcts": ("players.mcts", "MCTSPlayer", "iterations"),
    "gbot": ("players.gbot", "GBotPlayer", "level"),
    "strong": ("players.strong", "StrongPlayer", None),
    "external": ("players.external", "ExternalPlayer", "command"),
    "uci": ("players.uci", "UCIPlayer", "command"),
}


def kinds() -> list[str]:
    """The registered player kinds, sorted."""
    return sorted(KINDS)


def player_class(kind: str) -> type[Player]:
    """The class of a registered kind, imported on first use."""
    module, name, _ = KINDS[kind]
    return getattr(importlib.import_module(module), name)


def load(spec: str | dict[str, Any] | Player, game: str | None = None) -> Player:
    """Build a player from its spec.

    Args:
        spec: a spec string, its dict form, or a player (returned as is).
        game: a game name or game spec; when given, weight names are checked
            against that game's features.

    Raises:
        SpecError: unknown kind, parameter or weight, or a malformed value;
            the message names the valid choices.
    """
    if isinstance(spec, Player):
        player = spec
    else:
        kind, params, weights = parse(spec, {k: v[2] for k, v in KINDS.items()})
        player = player_class(kind)(params, weights)
    if game is not None:
        check_weights(player, game)
    return player


@functools.lru_cache(maxsize=4096)
def canonical(spec: str) -> str:
    """A player spec's canonical text, computed once per spelling in a process.

    A run keys every match by its canonical specs and the database matches a
    spec a user typed by it; the same few specs are named thousands of times,
    and the form is a pure function of the text (the kinds are fixed).

    Raises:
        SpecError: a malformed spec.
    """
    return load(spec).spec


register_player_form(canonical)  # the database's view of a spec a user typed


def runs_command(spec: str | dict[str, Any] | Player) -> bool:
    """True if the player runs a program its spec names (``external``, ``uci``).

    Raises:
        SpecError: a malformed spec.
    """
    return load(spec).RUNS_COMMAND


def guard_engine(spec: str | dict[str, Any], source: str, allow_engines: bool) -> str | dict[str, Any]:
    """Return ``spec``, unless it runs a command that came from ``source`` and engines are not allowed.

    The rule is ``harness.trust``'s (the database applies it to the aliases it
    resolves); here the spec may be of any form, so it is loaded and named in
    canonical form.

    Raises:
        SpecError: the spec runs a command and ``allow_engines`` is False.
    """
    if not allow_engines:
        guard_command(load(spec).spec, source, allow_engines)
    return spec


def check_weights(player: Player, game: str) -> None:
    """Raise SpecError if the player does not play ``game`` or its weights are not its features.

    Raises:
        UnknownGame: ``game`` is not a registered game spec (the message lists them).
        SpecError: a game the kind does not play, a weight that is not one of
            the game's features, or a setting the game lacks (a stand-in's level or
            eval); the messages list the valid ones.
    """
    from harness.games import parse_spec
    from players.features import weight_vector
    name, _ = parse_spec(game)
    if player.GAMES is not None and name not in player.GAMES:
        raise SpecError(f"player {player.kind!r} plays {', '.join(player.GAMES)}, not {name}")
    if player.weights:
        weight_vector(name, player.weights)
    check_game = getattr(player, "check_game", None)
    if check_game is not None:
        from harness.games import load as load_game
        check_game(load_game(game))
