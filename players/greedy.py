"""The one-ply greedy player: the documented score at the end, material before it."""

from __future__ import annotations

from harness.games import Action, Rules, State
from players.base import Limits, Player
from harness.games import kit

# Far above any material balance, so every decided game outranks every open one.
DECIDED = 1_000_000.0


def terminal_value(rules: Rules, state: State, side: int) -> float:
    """The value of a finished game for ``side``: decided results first, then the score.

    The documented score is the user's; the other side prefers a lower one.
    """
    result, _ = rules.outcome(state)
    sign = 1.0 if side == rules.user_side else -1.0
    base = {"win": DECIDED, "draw": 0.0, "loss": -DECIDED}[result]
    return sign * (base + rules.score(state))


class GreedyPlayer(Player):
    """Takes the action whose resulting position is best one ply ahead.

    A finished game is valued by its result and documented score (so among
    wins it takes the better-paying one); an open one by the game's material
    balance. Ties are broken by the seeded generator.
    """

    kind = "greedy"

    def choose(self, rules: Rules, state: State, limits: Limits | None = None) -> Action:
        side = rules.to_move(state)
        material = kit(rules.name).material
        best: list[Action] = []
        best_value = float("-inf")
        for action in rules.legal_actions(state):
            child = rules.apply(state, action)
            if rules.is_terminal(child):
                value = terminal_value(rules, child, side)
            else:
                value = float(material(rules, child, side))
            if value > best_value:
                best, best_value = [action], value
            elif value == best_value:
                best.append(action)
        return self.rng.choice(best)
