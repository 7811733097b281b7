"""Evaluation features of Chinese chess: named weights in pawns, with defaults and tuning ranges.

The compiled evaluation (``harness.games.xiangqi.search``) reads them as one float64
vector in this order. The defaults are fitted to Fairy-Stockfish's readings of
43,002 quiet positions from the stored games (``scripts/fit_xiangqi_eval.py``;
held-out correlation 0.868 against the textbook weights' 0.825), the change that
cut the losses to the hardest stand-in from 12 to 3 in 80 paired games
(docs/players.md, Chinese chess). Some fitted weights are negative (guards near
the general, chariot and cannon move counts: what the other terms already
count), so those ranges reach below 0. ``hanging`` fitted at 0.005, worth
nothing, and costs an attack test per piece at every evaluation: it stays 0, as
does ``empty_cannon`` (fitted 0.001).

``TEXTBOOK`` keeps the weights of before the fit (chariot 9, cannon 4.5, horse 4,
advisor and elephant 2, soldier 1, a crossed soldier 2): ``material`` counts
with them, and the G-Bot stand-ins' evaluations are built on them, so a rung
means what it meant when its games were stored. The general has no material
value because losing it ends the game.

``move_limit`` is not an evaluation term but the value of the 120-ply limit
for the side the search plays (its opponent the negative): the rules give
both seats rank 1 there, the score of a win, so a player that only wants
its score may value surviving to the limit above any material. It stays at
0, a draw: at 50 it changed none of the 12 late losses (docs/players.md).
"""

from __future__ import annotations

from harness.games import Rules, State
from harness.games.gamekit import Feature

FEATURES: dict[str, Feature] = {f.name: f for f in (
    Feature("advisor", 2.6, 0.5, 4.0, "value of an advisor"),
    Feature("elephant", 1.8, 0.5, 4.0, "value of an elephant"),
    Feature("horse", 2.53, 2.0, 7.0, "value of a horse"),
    Feature("chariot", 8.1, 5.0, 14.0, "value of a chariot"),
    Feature("cannon", 5.02, 2.0, 7.0, "value of a cannon"),
    Feature("soldier", 0.77, 0.3, 3.0, "value of a soldier on its own side of the river"),
    Feature("soldier_crossed", 0.26, 0.0, 3.0, "extra value of a soldier over the river (it may move sideways)"),
    Feature("soldier_advance", 0.36, 0.0, 0.8, "per row a crossed soldier has advanced beyond the river"),
    Feature("piece_square", 4.49, 0.0, 8.0, "scale of the piece-square terms (central horses and cannons, "
            "advanced chariots, a general kept home)"),
    Feature("mobility", 0.109, 0.0, 0.3, "per pseudo-legal move more than the other side"),
    Feature("general_safety", -0.24, -1.0, 2.0, "per advisor or elephant guarding the general (a quarter "
            "each) less each enemy attacker (chariot, horse, cannon, soldier) near the palace"),
    Feature("horse_mobility", 0.022, 0.0, 0.3, "per pseudo-legal horse move more than the other side "
            "(beside mobility: a horse with blocked legs is a weak piece)"),
    Feature("chariot_mobility", -0.018, -0.2, 0.2, "per pseudo-legal chariot move more than the other side"),
    Feature("cannon_mobility", -0.086, -0.2, 0.2, "per pseudo-legal cannon move more than the other side"),
    Feature("pieces_across", 0.13, 0.0, 1.0, "per chariot, horse or cannon over the river, more than the "
            "other side"),
    Feature("exposed_general", 0.57, 0.0, 2.0, "per enemy chariot (at most one piece between) or cannon (at "
            "most two between) on the general's file or row: pins, and checks a move away"),
    Feature("hanging", 0.0, 0.0, 0.5, "fraction of its value lost per piece attacked by the enemy and "
            "defended by no chariot, horse, cannon, soldier or general"),
    Feature("move_limit", 0.0, 0.0, 100.0, "value for the side the search plays of reaching the 120-ply "
            "limit, where both seats get rank 1 and so the score of a win (0: a draw, worth nothing)"),
    Feature("empty_cannon", 0.0, 0.0, 4.0, "per enemy cannon facing the general along a file or row with "
            "nothing between (the empty-head cannon: any piece put between becomes its screen)"),
)}

# The weights of before the fit: textbook piece values, hand-set terms, the later features off. The
# G-Bot stand-ins are built on them, so a feature added later is added here at 0 (a test checks).
TEXTBOOK: dict[str, float] = {
    "advisor": 2.0, "elephant": 2.0, "horse": 4.0, "chariot": 9.0, "cannon": 4.5, "soldier": 1.0,
    "soldier_crossed": 1.0, "soldier_advance": 0.1, "piece_square": 1.0, "mobility": 0.05, "general_safety": 0.5,
    "horse_mobility": 0.0, "chariot_mobility": 0.0, "cannon_mobility": 0.0, "pieces_across": 0.0,
    "exposed_general": 0.0, "hanging": 0.0, "move_limit": 0.0, "empty_cannon": 0.0}

# Piece kinds (``side * 8 + kind`` codes of the engine) to their weight's name.
KIND_WEIGHTS = {2: "advisor", 3: "elephant", 4: "horse", 5: "chariot", 6: "cannon", 7: "soldier"}


def material(rules: Rules, state: State, side: int) -> float:
    """The material balance for ``side`` at the textbook piece values (crossed soldiers count 2)."""
    balance = 0.0
    for index, code in enumerate(state.cells):
        kind = code & 7
        if kind not in KIND_WEIGHTS:
            continue
        value = TEXTBOOK[KIND_WEIGHTS[kind]]
        owner = code >> 3
        row = index // 9
        if kind == 7 and (row <= 4 if owner == 0 else row >= 5):
            value += TEXTBOOK["soldier_crossed"]
        balance += value if owner == side else -value
    return balance
