"""Stand-ins for the live G-Bot: fixed-depth alpha-beta with seeded tie-breaking.

These are guesses of the live bot's strength, not copies: the live docs of
sibling games say their G-Bot replies with a fixed-depth minimax (depth 5 or
6), so each game's stand-in is the project's own alpha-beta at a fixed depth
with the game's stand-in weights (``GBOT`` in ``players.search.<game>``).
Level ``auto`` takes the game's own level where it has one (Totality).
"""

from __future__ import annotations

from harness.errors import SpecError
from harness.games import Action, Rules, State
from players import search as searches
from players.base import Limits, Param, Player
from players.features import weight_vector


class GBotPlayer(Player):
    """The G-Bot stand-in of whichever game it is asked to play."""

    kind = "gbot"
    PARAMS = {"level": Param(str, "auto", "stand-in level: auto (the game's own), easy, wise or default")}

    def settings(self, rules: Rules) -> dict:
        """The depth and weights of this stand-in for ``rules``."""
        table = searches.module(rules.name).GBOT
        level = self.params["level"]
        if level == "auto":
            level = rules.config.get("level", "default")
        if level not in table:
            raise SpecError(f"gbot for {rules.name} has no level {level!r}; valid levels: "
                            f"auto, {', '.join(table)}")
        return table[level]

    def choose(self, rules: Rules, state: State, limits: Limits | None = None) -> Action:
        settings = self.settings(rules)
        # Keys beside depth and weights (Totality's ``endgame``) are passed on to the search.
        extra = {key: value for key, value in settings.items() if key not in ("depth", "weights")}
        return searches.module(rules.name).search(
            rules, state, weight_vector(rules.name, settings.get("weights")),
            depth=settings["depth"], nodes=None, deadline=None,
            seed=self.rng.randrange(2**31), **extra).action
