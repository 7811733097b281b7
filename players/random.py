"""The uniform random player: the floor every other player must beat."""

from __future__ import annotations

from harness.games import Action, Rules, State
from players.base import Limits, Player


class RandomPlayer(Player):
    """Chooses uniformly among the legal actions with its seeded generator."""

    kind = "random"

    def choose(self, rules: Rules, state: State, limits: Limits | None = None) -> Action:
        return self.rng.choice(rules.legal_actions(state))
