"""Totality evaluation features: the named weights of the compiled evaluation.

Every feature is a difference "mine minus theirs" from the side to move's
point of view (so one evaluation serves the Sun and the Moon), and the
evaluation is the weighted sum. Units are loosely "discs": a corner is worth
about thirty. Positive weights reward the side having more of the thing;
X-squares, C-squares and frontier discs are liabilities and default negative.

Cells: corners a1 h1 a8 h8; an X-square is diagonally next to a corner, a
C-square orthogonally next to one; both only count while that corner is
empty (once it is taken they are harmless). Stable discs here are the ones
that cannot be flipped again because they run along an edge from an owned
corner without a gap, or sit on a completely filled edge.

Defaults. The classic square table (``positional``, which already prices
corners, X- and C-squares) plus mobility, stability, frontier and the late
disc lead: in 40 seeded games at depth 4 against the wise G-Bot stand-in
(the table plus mobility alone) it won 36 and lost 4, where the stand-in's
own weights won 21 and lost 19. Adding potential mobility (weight 2) cost
eleven of those wins, so it starts at 0; the corner and X/C-square features
start at 0 too and are there for tuning to move.

The order of ``FEATURES`` is the order of the weight vector the compiled
search takes (``players.features.weight_vector``, indices by ``feature_index``).
"""

from __future__ import annotations

from harness.games import Rules, State
from harness.games.gamekit import Feature

FEATURES: dict[str, Feature] = {f.name: f for f in [
    Feature("mobility", 10.0, 0.0, 30.0,
            "legal placements of the side to move minus the opponent's: freedom now"),
    Feature("potential_mobility", 0.0, 0.0, 10.0,
            "empty cells next to an opponent disc minus empty cells next to one of ours: freedom later"),
    Feature("frontier", -3.0, -10.0, 5.0,
            "our discs next to an empty cell minus theirs (frontier discs give the opponent moves)"),
    Feature("corners", 0.0, 0.0, 100.0, "corners owned, ours minus theirs"),
    Feature("x_squares", 0.0, -60.0, 0.0,
            "X-squares (diagonal to an empty corner) owned, ours minus theirs: they give the corner away"),
    Feature("c_squares", 0.0, -30.0, 0.0,
            "C-squares (edge cells beside an empty corner) owned, ours minus theirs"),
    Feature("stability", 10.0, 0.0, 40.0,
            "stable discs (edge runs from an owned corner, full edges), ours minus theirs"),
    Feature("edges", 0.0, -5.0, 5.0, "discs on the edges but not in a corner, ours minus theirs"),
    Feature("parity", 0.0, 0.0, 15.0,
            "+1 when an odd number of cells is empty (the side to move would play last), else -1"),
    Feature("discs_late", 3.0, 0.0, 20.0,
            "disc difference, scaled in from 0 at 44 discs on the board to 1 at 64: the lead that pays"),
    Feature("positional", 1.0, 0.0, 3.0,
            "sum of the classic square-value table (corners 100, X -50, C -20, ...), ours minus theirs"),
    Feature("discs", 0.0, -5.0, 5.0,
            "disc difference at any stage (the material of a disc-counting bot; greedy play early is weak)"),
]}


# The default weights of 2026-12-08 (harness 0.1.0), frozen for the ladder: the G-Bot stand-ins and the
# rungs that use "the default evaluation" (``eval=default``) read this table, never ``FEATURES``'
# defaults, so adopting new defaults into ``strong`` does not move the ladder under the players it
# measures. It names every feature: a feature added later is listed here at 0 (a test checks it).
LADDER_DEFAULTS: dict[str, float] = {
    "mobility": 10.0, "potential_mobility": 0.0, "frontier": -3.0, "corners": 0.0, "x_squares": 0.0,
    "c_squares": 0.0, "stability": 10.0, "edges": 0.0, "parity": 0.0, "discs_late": 3.0, "positional": 1.0,
    "discs": 0.0}

def material(rules: Rules, state: State, side: int) -> float:
    """Disc difference for ``side``: its discs minus the other side's (what the greedy player maximises)."""
    counts = rules.counters(state)
    lead = counts["sun"] - counts["moon"]
    return float(lead if side == 0 else -lead)
