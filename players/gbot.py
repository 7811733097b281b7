"""Stand-ins for the live G-Bot: fixed-depth alpha-beta with seeded tie-breaking.

These are guesses of the live bot's strength, not copies: the live docs of
sibling games say their G-Bot replies with a fixed-depth minimax (depth 5 or
6), so each game's stand-in is the project's own alpha-beta at a fixed depth
with the game's stand-in weights (``GBOT`` in ``harness.games.<game>.search``).
Level ``auto`` takes the game's own level where it has one (Totality).

Because nobody knows which guess is right, ``depth`` and ``eval`` make a
ladder of them (``players.ladder``): ``gbot:depth=6,eval=material`` is the
level's stand-in searching six plies on material alone. The evaluations are
``GBOT_EVALS`` in ``harness.games.<game>.search``: ``material``, ``default`` (the
project's default weights when the ladder was made, frozen: Ravenward's and
Totality's ``LADDER_DEFAULTS``, today's defaults of 2026-12-08; Chinese
chess's textbook weights, from before its defaults were fitted) and one more
per game. Levels and evaluations name every feature, so the live defaults
never reach a stand-in: adopting new defaults into ``strong`` never moves one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from harness.errors import SpecError
from harness.games import Action, Rules, State
from players import search as searches
from players.alphabeta import technique_bits
from players.base import Limits, Param, Player
from players.features import weight_vector


class GBotPlayer(Player):
    """The G-Bot stand-in of whichever game it is asked to play."""

    kind = "gbot"
    PARAMS = {"level": Param(str, "auto", "stand-in level: auto (the game's own), easy, wise or default",
                             choices=("auto", "default", "easy", "wise")),
              "depth": Param(int, None, "search depth in plies (default: the level's)", minimum=1),
              "eval": Param(str, None, "evaluation: material, default or the game's third "
                                       "(harness.games.<game>.search.GBOT_EVALS; default: the level's)")}

    def settings(self, rules: Rules) -> dict:
        """The depth, weights and search extras of this stand-in for ``rules``.

        Raises:
            SpecError: a level or evaluation the game does not have (the message lists them).
        """
        module = searches.module(rules.name)
        table = module.GBOT
        level = self.params["level"]
        if level == "auto":
            level = rules.config.get("level", "default")
        if level not in table:
            raise SpecError(f"gbot for {rules.name} has no level {level!r}; valid levels: "
                            f"auto, {', '.join(table)}")
        settings = dict(table[level])
        if self.params["depth"] is not None:
            settings["depth"] = self.params["depth"]
        evaluation = self.params["eval"]
        if evaluation is not None:
            if evaluation not in module.GBOT_EVALS:
                raise SpecError(f"gbot for {rules.name} has no eval {evaluation!r}; valid evals: "
                                f"{', '.join(module.GBOT_EVALS)}")
            settings["weights"] = module.GBOT_EVALS[evaluation]
        return settings

    def check_game(self, rules: Rules) -> None:
        """Raise SpecError now, before any match, if ``rules`` lacks this stand-in's level or eval."""
        self.settings(rules)

    def search_arguments(self, rules: Rules) -> tuple[np.ndarray, dict[str, Any]]:
        """The weight vector and the keyword arguments (``depth`` and the extras) this stand-in's search
        takes for ``rules``: what ``choose`` searches with, and what a benchmark times."""
        settings = self.settings(rules)
        # Keys beside depth and weights (Totality's ``endgame``) are passed on to the search.
        extra = {key: value for key, value in settings.items() if key != "weights"}
        if "techniques" in extra:   # named as in an alphabeta spec (``none``)
            extra["techniques"] = technique_bits(searches.module(rules.name).TECHNIQUES, extra["techniques"])
        return weight_vector(rules.name, settings.get("weights")), extra

    def choose(self, rules: Rules, state: State, limits: Limits | None = None) -> Action:
        weights, arguments = self.search_arguments(rules)
        return searches.module(rules.name).search(rules, state, weights, nodes=None, deadline=None,
                                                  seed=self.rng.randrange(2**31), **arguments).action
