"""Cross-check against an implementation nobody here wrote: OpenSpiel's ``othello``.

Coordinate mapping. OpenSpiel's action id is ``row * 8 + col`` with row 0 the
top row printed as rank 1 and col 0 the left column printed as file a, and
its id 64 is the pass. That is exactly our ``{"type": "place", "row": r,
"col": c}`` with ``r = id // 8`` and ``c = id % 8``, and our ``pass``. Its
first player ("Black", ``x``) is our Sun (side 0), "White" (``o``) our Moon.
The board is read from OpenSpiel's text form: one line per rank, ``x``/``o``/
``-`` per file.

OpenSpiel's game ends when neither side can move (no double pass is played),
as ours does, so the two play identical games move for move.
"""

from __future__ import annotations

import random

from harness.games import load
from tests.requirements import import_or_unavailable

pyspiel = import_or_unavailable("pyspiel", "open-spiel (the test extra)")

RULES = load("totality")
OPENSPIEL_PASS = 64


def openspiel_board(state) -> tuple[set[int], set[int]]:
    """(black squares, white squares) as ``row * 8 + col`` from OpenSpiel's text form."""
    rows = [line.split() for line in str(state).splitlines() if line[:1].isdigit()]
    assert len(rows) == 8
    black, white = set(), set()
    for row, fields in enumerate(rows):
        assert fields[0] == str(row + 1)  # rank r + 1 is our row r
        for col, cell in enumerate(fields[1:9]):
            (black if cell == "x" else white if cell == "o" else set()).add(row * 8 + col)
    return black, white


def our_board(state) -> tuple[set[int], set[int]]:
    return ({i for i in range(64) if state.sun >> i & 1}, {i for i in range(64) if state.moon >> i & 1})


def to_openspiel(action: dict) -> int:
    return OPENSPIEL_PASS if action["type"] == "pass" else action["row"] * 8 + action["col"]


def test_start_cells_and_openings_agree_with_openspiel():
    theirs = pyspiel.load_game("othello").new_initial_state()
    ours = RULES.initial_state()
    assert openspiel_board(theirs) == our_board(ours)
    assert [theirs.action_to_string(a) for a in theirs.legal_actions()] == ["d3", "c4", "f5", "e6"]
    assert [to_openspiel(a) for a in RULES.legal_actions(ours)] == theirs.legal_actions()


def test_three_hundred_seeded_random_games_agree_move_by_move_with_openspiel():
    game = pyspiel.load_game("othello")
    passes = no_moves_ends = 0
    for seed in range(300):
        rng = random.Random(seed)
        theirs, ours = game.new_initial_state(), RULES.initial_state()
        while True:
            where = f"seed {seed} ply {ours.ply}"
            assert theirs.is_terminal() == RULES.is_terminal(ours), where
            assert openspiel_board(theirs) == our_board(ours), where
            if theirs.is_terminal():
                break
            assert theirs.current_player() == RULES.to_move(ours), where
            legal = RULES.legal_actions(ours)
            assert [to_openspiel(a) for a in legal] == theirs.legal_actions(), where
            action = rng.choice(legal)
            passes += action["type"] == "pass"
            theirs.apply_action(to_openspiel(action))
            ours = RULES.apply(ours, action)
        counts = RULES.counters(ours)
        black, white = openspiel_board(theirs)
        assert (counts["sun"], counts["moon"]) == (len(black), len(white)), seed
        sign = (counts["sun"] > counts["moon"]) - (counts["sun"] < counts["moon"])
        assert theirs.returns()[0] == sign, seed
        no_moves_ends += RULES.outcome(ours)[1] == "no_moves"
    assert passes > 0 and no_moves_ends > 0  # the rare branches were exercised
