"""The recommended strong player of each game: ``strong`` in a spec, resolved per game.

``strong`` is alpha-beta at the game's default weights with no depth cap and
a node budget of about one second per move on one core of the reference
machine, so it is deterministic and replays exactly; ``strong:time=2`` is
the same search stopped by the clock instead (live play, where the server has
no clock of its own). ``strong_spec(game)`` names the alpha-beta spec it
plays as, so a result can be reproduced without the alias.

The node budgets are each game kit's ``strong`` (``harness/games/<game>/kit.py``); their measurements are in
``docs/players.md`` (Strength). Changing them changes what ``strong`` means,
so a results database that holds ``strong`` games from an older version
should compare them with care.
"""

from __future__ import annotations

from typing import Any

from harness.errors import SpecError
from harness.games import Action, Rules, State, kit, names, parse_spec
from players.alphabeta import AlphaBetaPlayer
from players.base import Limits, Param, Player

LIVE_SECONDS = 2.0


def strong_settings(game: str) -> dict[str, float]:
    """The alpha-beta settings (``depth``, ``nodes``, ...) of the strong player of ``game`` (its kit's ``strong``).

    Raises:
        UnknownGame: not a registered game.
        SpecError: a game without a strong player.
    """
    name, _ = parse_spec(game)
    settings = kit(name).strong
    if settings is None:
        with_one = [other for other in names() if kit(other).strong is not None]
        raise SpecError(f"no strong player for {name}; games with one: {', '.join(with_one)}")
    return dict(settings)


def strong_spec(game: str, live: bool = False, time: float | None = None, nodes: int | None = None) -> str:
    """The alpha-beta spec ``strong`` plays as in ``game`` (a name or spec).

    Args:
        game: the game.
        live: the time form (``time``, default ``LIVE_SECONDS``) instead of the node budget.
        time: seconds per move; implies the time form.
        nodes: a node budget other than the game's.

    Raises:
        SpecError: a game without a strong player.
    """
    settings = strong_settings(game)
    if live or time is not None:
        settings.pop("nodes")
        settings["time"] = LIVE_SECONDS if time is None else time
    elif nodes is not None:
        settings["nodes"] = nodes
    return AlphaBetaPlayer(settings).spec


class StrongPlayer(Player):
    """Alpha-beta with the game's recommended budget (its kit's ``strong``): by nodes, or by ``time`` for live play."""

    kind = "strong"
    PARAMS = {"time": Param(float, None, "seconds per move instead of the node budget (live play only)",
                            minimum=0.0),
              "nodes": Param(int, None, "node budget per move (default: the game's)", minimum=1)}

    def __init__(self, params: dict[str, Any] | None = None, weights: dict[str, float] | None = None) -> None:
        super().__init__(params, weights)
        if self.params["time"] is not None and self.params["nodes"] is not None:
            raise SpecError("player 'strong': give time or nodes, not both")
        self._players: dict[str, AlphaBetaPlayer] = {}

    def check_game(self, rules: Rules) -> None:
        """Raise SpecError now, before any match, if ``rules``'s game has no strong player."""
        strong_settings(rules.name)

    def player_for(self, rules: Rules) -> AlphaBetaPlayer:
        """The alpha-beta player this spec plays as in ``rules``, sharing this player's seed."""
        player = self._players.get(rules.name)
        if player is None:
            from players import load
            player = load(strong_spec(rules.name, time=self.params["time"], nodes=self.params["nodes"]))
            self._players[rules.name] = player
        player.rng = self.rng
        return player

    def budget(self, rules: Rules, state: State, limits: Limits | None = None) -> Limits:
        return self.player_for(rules).budget(rules, state, limits)

    def choose(self, rules: Rules, state: State, limits: Limits | None = None) -> Action:
        if limits is not None and limits.time is not None and self.params["time"] is None:
            # a per-move time from the caller (harness live --move-time): the time form, no node cap
            timed = StrongPlayer({"time": limits.time})
            timed.rng = self.rng
            return timed.player_for(rules).choose(rules, state, limits)
        return self.player_for(rules).choose(rules, state, limits)
