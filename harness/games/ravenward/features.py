"""Ravenward evaluation features, always from the King's side's point of view.

The score formula pays for a fast escape (100 + max(0, 50 - 2 * moves)), for
every surviving defender (10) and every captured raven (5), so the features
measure how near the King is to a corner and how well the ravens guard them,
material both ways in the formula's own units, the King's danger, and the
capture threats that change material next move (``ravens_threatened`` counts
the ravens that can be pinched next move). The corner-path features follow
the King's shortest free paths (in moves, through empty squares) to each
corner and count the ravens that can block them. The search negates the value
for the ravens (who want the King's score low).

The compiled evaluation lives in ``harness.games.ravenward.search`` and reads the
weight vector by the index of each feature in ``FEATURES``.
"""

from __future__ import annotations

from harness.games import Rules, State
from harness.games.gamekit import Feature, feature_index

FEATURES: dict[str, Feature] = {f.name: f for f in (
    Feature("king_corner_distance", -4.0, -15.0, 0.0,
            "Manhattan distance from the King to the nearest corner (closer is better)."),
    Feature("king_open_corners", 40.0, 0.0, 150.0,
            "Corners the King reaches in one slide: a free line to a corner is a threat to win."),
    Feature("king_escape_routes", 8.0, 0.0, 40.0,
            "Squares the King reaches in one slide from which a corner line is free (escape in two)."),
    Feature("corner_guards", -3.0, -15.0, 5.0,
            "Ravens on the eight squares beside the corners, the classic blockade."),
    Feature("blocked_corners", -6.0, -30.0, 5.0,
            "Corners sealed by ravens on both of their neighbouring squares."),
    Feature("ravens_adjacent_king", -6.0, -30.0, 5.0,
            "Ravens orthogonally beside the King."),
    Feature("king_in_danger", -25.0, -80.0, 0.0,
            "Lines through the King that one raven move would close into a capture."),
    Feature("defenders", 10.0, 0.0, 40.0,
            "Defenders alive; the win score pays 10 for each."),
    Feature("ravens_taken", 6.0, 0.0, 30.0,
            "Ravens captured; every result pays for them (5 a win, 3 a draw or loss)."),
    Feature("defenders_threatened", -4.0, -20.0, 0.0,
            "Defenders a raven could capture with its next move."),
    Feature("ravens_threatened", 2.0, 0.0, 10.0,
            "Ravens the King's side could capture with its next move."),
    Feature("king_mobility", 1.0, 0.0, 5.0,
            "Squares the King can move to."),
    Feature("mobility", 0.2, 0.0, 2.0,
            "The King's side's legal moves minus the ravens' legal moves."),
    Feature("king_on_edge", 3.0, 0.0, 15.0,
            "1 when the King stands on an edge line, where both of its corners are one slide away."),
    Feature("moves_played", -2.0, -5.0, 0.0,
            "Moves the King's side has played: the win bonus max(0, 50 - 2 * moves) shrinks with each."),
    Feature("king_corner_paths", 4.0, 0.0, 20.0,
            "Per corner, 4 minus the fewest King moves to it through empty squares (3 for one move, "
            "2 for two, 1 for three, 0 beyond): how many free roads the King has."),
    Feature("corner_path_guards", -2.0, -15.0, 0.0,
            "Per corner within three King moves, the ravens that can land on one of its shortest "
            "paths next move (its stops, or the empty run beside the corner) and so block it."),
    Feature("unguarded_corner_paths", 30.0, 0.0, 120.0,
            "Corners within two King moves whose shortest paths no raven can block next move: an "
            "escape the ravens can only stop by capturing the King."),
    Feature("king_shields", 2.0, -10.0, 15.0,
            "Defenders orthogonally beside the King: a raven cannot close a pinch on that line."),
    Feature("draw_contempt", 0.0, -40.0, 40.0,
            "Added to a drawn end (40 + 3 * taken) relative to the evaluation: > 0 welcomes draws."),
)}

# The default weights of 2026-12-08 (harness 0.1.0), frozen for the ladder: the G-Bot stand-ins and the
# rungs that use "the default evaluation" (``eval=default``) read this table, never ``FEATURES``'
# defaults, so adopting new defaults into ``strong`` does not move the ladder under the players it
# measures. It names every feature: a feature added later is listed here at 0 (a test checks it).
LADDER_DEFAULTS: dict[str, float] = {
    "king_corner_distance": -4.0, "king_open_corners": 40.0, "king_escape_routes": 8.0, "corner_guards": -3.0,
    "blocked_corners": -6.0, "ravens_adjacent_king": -6.0, "king_in_danger": -25.0, "defenders": 10.0,
    "ravens_taken": 6.0, "defenders_threatened": -4.0, "ravens_threatened": 2.0, "king_mobility": 1.0,
    "mobility": 0.2, "king_on_edge": 3.0, "moves_played": -2.0, "king_corner_paths": 4.0,
    "corner_path_guards": -2.0, "unguarded_corner_paths": 30.0, "king_shields": 2.0, "draw_contempt": 0.0}

# Weight-vector indices, in FEATURES order; the compiled evaluation reads them.
INDEX = feature_index(FEATURES)

DEFENDER_VALUE = 10.0
RAVEN_VALUE = 5.0


def material(rules: Rules, state: State, side: int) -> float:
    """Material in the score formula's units: 10 per defender alive, 5 per raven taken.

    Args:
        rules: the Ravenward rules.
        state: any state.
        side: 0 for the King's side (the value as is), 1 for the ravens (negated).

    Returns:
        The balance from ``side``'s point of view.
    """
    counters = rules.counters(state)
    value = DEFENDER_VALUE * counters["defAlive"] + RAVEN_VALUE * counters["atkTaken"]
    return value if side == 0 else -value
