"""Tic-tac-toe's evaluation features, each "mine minus theirs" from the side to move's point of view."""

from __future__ import annotations

from harness.games import Rules, State
from harness.games.gamekit import Feature, feature_index
from tests.tictactoe import LINES

FEATURES: dict[str, Feature] = {f.name: f for f in (
    Feature("two_in_line", 10.0, 0.0, 30.0, "lines holding two of our marks and an empty cell"),
    Feature("open_lines", 1.0, 0.0, 5.0, "lines holding our marks and none of theirs"),
    Feature("center", 2.0, 0.0, 10.0, "1 for owning the center cell"),
    Feature("corners", 1.0, -5.0, 5.0, "corners owned"),
)}
INDEX = feature_index(FEATURES)


def material(rules: Rules, state: State, side: int) -> float:
    """Open lines for ``side`` minus open lines for the other side (the greedy player's balance)."""
    mine, theirs = side + 1, 2 - side
    value = 0
    for line in LINES:
        marks = {state.cells[cell] for cell in line}
        value += (theirs not in marks and mine in marks) - (mine not in marks and theirs in marks)
    return float(value)
