"""Totality rules: every sentence of the rules text on hand-built positions, perft, the contract suite.

Boards are written as eight strings, row 0 first (rank 1 at the top in
Othello notation), col 0 first in each (file a): ``X`` Sun, ``O`` Moon,
``-`` empty.
"""

from __future__ import annotations

import copy
import json

import pytest

from harness.errors import IllegalAction, NotationError
from harness.games import Rules, load
from harness.games.totality import _kernels as kernels
from harness.games.totality import PASS, TotalityRules
from harness.testing import check_rules

WISE = load("totality")
EASY = load("totality:easy")

# The published Othello perft table (passes counted as moves), depths 1..10.
PERFT = [4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288, 24571284]


def board(rows: list[str], side: str = "X", rules: TotalityRules = WISE):
    assert len(rows) == 8 and all(len(r) == 8 for r in rows)
    return rules.from_notation("".join(rows) + " " + side)


def place(row: int, col: int) -> dict:
    return {"type": "place", "row": row, "col": col}


def cells(state, side: str) -> set[tuple[int, int]]:
    mask = state.sun if side == "X" else state.moon
    return {(i // 8, i % 8) for i in range(64) if mask >> i & 1}


def test_registry_loads_both_levels_and_spec_names_easy_only():
    assert isinstance(WISE, TotalityRules) and isinstance(WISE, Rules)
    assert WISE.spec == "totality" and WISE.config == {"level": "wise"}
    assert EASY.spec == "totality:level=easy" and load("totality", level="easy") is EASY
    assert WISE.user_side == 0


def test_start_position_pins_cells_orientation_and_openings():
    # Row r is rank r + 1 (rank 1 on top), col c is file "abcdefgh"[c]:
    # Sun (dark) on d5 = (4, 3) and e4 = (3, 4), Moon on d4 = (3, 3) and e5 = (4, 4).
    state = WISE.initial_state()
    assert cells(state, "X") == {(4, 3), (3, 4)}
    assert cells(state, "O") == {(3, 3), (4, 4)}
    assert WISE.to_move(state) == 0
    # The Sun's openings d3, c4, f5, e6, sorted by (row, col).
    assert WISE.legal_actions(state) == [place(2, 3), place(3, 2), place(4, 5), place(5, 4)]
    assert WISE.notation(state) == "-" * 27 + "OX" + "-" * 6 + "XO" + "-" * 27 + " X"
    assert WISE.counters(state) == {"sun": 2, "moon": 2, "empty": 60, "ply": 0, "passes": 0, "to_move": 0}


DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


@pytest.mark.parametrize("dr,dc", DIRECTIONS)
def test_placement_flips_a_run_in_each_of_the_eight_directions(dr, dc):
    # From (3, 3) every direction has room for two Moon discs and a Sun anchor.
    rows = [list("--------") for _ in range(8)]
    run = [(3 + dr, 3 + dc), (3 + 2 * dr, 3 + 2 * dc)]
    for r, c in run:
        rows[r][c] = "O"
    rows[3 + 3 * dr][3 + 3 * dc] = "X"
    rows[7 if dr != 1 else 0][7 if dc != 1 else 0] = "O"  # an untouched Moon disc elsewhere
    state = board(["".join(r) for r in rows])
    assert WISE.legal_actions(state) == [place(3, 3)]
    after = WISE.apply(state, place(3, 3))
    assert cells(after, "X") == {(3, 3), (3 + 3 * dr, 3 + 3 * dc), *run}
    assert len(cells(after, "O")) == 1
    assert WISE.to_move(after) == 1


def test_one_placement_flips_every_captured_run_in_every_direction_at_once():
    state = board([
        "X--X--X-",
        "-O-O-O--",
        "--OOO---",
        "XOO-OOOX",
        "--OOO---",
        "-O-O-O--",
        "X--X--X-",
        "--------",
    ])
    after = WISE.apply(state, place(3, 3))
    assert cells(after, "O") == set()
    assert len(cells(after, "X")) == 8 + 17 + 1


def test_run_open_at_the_far_end_or_broken_by_a_gap_is_not_captured():
    state = board([
        "--------",
        "--------",
        "--------",
        "-XOO--OX",  # west of (3, 4): a Moon run closed by the Sun; east: a gap, so no run
        "----O---",
        "----O---",  # south: run reaches the edge with no Sun disc
        "----O---",
        "----O---",
    ])
    after = WISE.apply(state, place(3, 4))
    assert cells(after, "X") == {(3, 1), (3, 2), (3, 3), (3, 4), (3, 7)}
    assert cells(after, "O") == {(3, 6), (4, 4), (5, 4), (6, 4), (7, 4)}


def test_placement_that_captures_nothing_is_illegal():
    state = WISE.initial_state()
    with pytest.raises(IllegalAction, match="flips no disc"):
        WISE.apply(state, place(0, 0))
    with pytest.raises(IllegalAction, match="occupied"):
        WISE.apply(state, place(3, 3))
    # Adjacent to a Moon disc but with no Sun disc behind the run.
    with pytest.raises(IllegalAction):
        WISE.apply(state, place(2, 2))


@pytest.mark.parametrize("rows", [
    # east: (0, 6), (0, 7) are followed in bit order by (1, 0), which is not their neighbour
    ["------OO", "X-------", "--------", "--------", "--------", "--------", "--------", "--------"],
    # west: (1, 1), (1, 0) are preceded in bit order by (0, 7)
    ["-------X", "OO------", "--------", "--------", "--------", "--------", "--------", "--------"],
    # south-east: after (1, 7) comes bit 24 = (3, 0)
    ["--------", "-------O", "--------", "X-------", "--------", "--------", "--------", "--------"],
])
def test_runs_never_wrap_around_the_left_or_right_edge(rows):
    state = board(rows)
    assert kernels.legal_moves(state.sun, state.moon) == 0
    assert WISE.legal_actions(state) in ([], [PASS])


def test_side_without_placement_has_exactly_one_action_pass():
    # The Moon's corner disc cannot be flanked; the Moon can capture both Sun discs from (0, 3).
    state = board([
        "OXX-----",
        "--------", "--------", "--------", "--------", "--------", "--------", "--------",
    ])
    assert WISE.legal_actions(state) == [PASS]
    assert not WISE.is_terminal(state) and WISE.outcome(state) is None
    with pytest.raises(IllegalAction, match="must pass"):
        WISE.apply(state, place(0, 3))
    after = WISE.apply(state, PASS)
    assert WISE.to_move(after) == 1 and after.passes == 1 and after.ply == state.ply + 1
    assert (after.sun, after.moon) == (state.sun, state.moon)
    assert PASS not in WISE.legal_actions(after) and WISE.legal_actions(after)
    with pytest.raises(IllegalAction, match="placements exist"):
        WISE.apply(WISE.initial_state(), PASS)


def test_game_ends_when_neither_side_can_move_even_with_empty_cells():
    # One Moon move wipes out the Sun: then nobody can move on a board with empties.
    state = board([
        "OXX-----",
        "--------", "--------", "--------", "--------", "--------", "--------", "--------",
    ], side="O")
    assert WISE.legal_actions(state) == [place(0, 3)]
    after = WISE.apply(state, place(0, 3))
    assert WISE.is_terminal(after) and WISE.legal_actions(after) == []
    assert WISE.outcome(after) == ("loss", "no_moves") and WISE.score(after) == 0
    with pytest.raises(IllegalAction, match="over"):
        WISE.apply(after, PASS)
    # Both sides blocked with discs of both colours left: also over, lead decides, empties count for nobody.
    blocked = board(["XX-----O", "--------", "--------", "--------", "--------", "--------", "--------", "--------"])
    assert WISE.is_terminal(blocked) and WISE.outcome(blocked) == ("win", "no_moves")
    assert WISE.score(blocked) == 100 + 5 * 1


def test_game_ends_when_the_board_is_full_and_the_reason_says_so():
    rows = ["XXXXXXXX"] * 4 + ["OOOOOOOO"] * 3 + ["OOOOOOO-"]
    state = board(rows, side="X")  # the Sun captures (7, 7) along the diagonal and column
    assert WISE.legal_actions(state) == [place(7, 7)]
    after = WISE.apply(state, place(7, 7))
    assert WISE.is_terminal(after) and WISE.outcome(after)[1] == "board_full"
    sun, moon = WISE.counters(after)["sun"], WISE.counters(after)["moon"]
    assert sun + moon == 64
    assert WISE.outcome(after)[0] == ("win" if sun > moon else "draw" if sun == moon else "loss")


@pytest.mark.parametrize("sun,moon,wise,easy,result", [
    (64, 0, 420, 252, "win"),      # the sweep: 100 + 5 x 64
    (33, 31, 110, 66, "win"),      # 110 x 0.6 = 66
    (35, 29, 130, 78, "win"),
    (10, 3, 135, 81, "win"),       # a no_moves end: the lead counts discs only
    (32, 32, 50, 30, "draw"),
    (31, 33, 0, 0, "loss"),
    (0, 20, 0, 0, "loss"),
])
def test_score_is_100_plus_5_per_disc_of_lead_for_a_win_50_draw_0_loss_scaled_and_floored(
        sun, moon, wise, easy, result):
    assert WISE.result_of(sun, moon) == (result, wise)
    assert EASY.result_of(sun, moon) == (result, easy)


def test_easy_score_is_exactly_60_plus_3_per_disc_so_the_floor_never_bites():
    for lead in range(1, 65):
        assert EASY.result_of(lead, 0)[1] == 60 + 3 * lead
    assert WISE.score_bounds() == (0.0, 420.0) and EASY.score_bounds() == (0.0, 252.0)


def test_score_is_zero_while_the_game_is_on():
    assert WISE.score(WISE.initial_state()) == 0 and WISE.outcome(WISE.initial_state()) is None


@pytest.mark.parametrize("action", [
    {"type": "nonsense"}, {"type": "place"}, {"type": "place", "row": 8, "col": 0},
    {"type": "place", "row": -1, "col": 3}, {"type": "place", "row": "2", "col": 3},
    {"type": "place", "row": 2.0, "col": 3}, {"type": "place", "row": True, "col": 3},
    {"row": 2, "col": 3}, "d3", None,
])
def test_malformed_actions_raise_illegal_action_and_leave_the_state_alone(action):
    state = WISE.initial_state()
    before = copy.deepcopy(WISE.state_to_json(state))
    with pytest.raises(IllegalAction):
        WISE.apply(state, action)
    assert isinstance(IllegalAction("x"), ValueError)
    assert WISE.state_to_json(state) == before


def test_state_json_and_notation_round_trip_with_history_counters():
    state = WISE.initial_state()
    for action in ([place(2, 3), place(2, 2), place(3, 2)]):
        state = WISE.apply(state, action)
    data = json.loads(json.dumps(WISE.state_to_json(state)))
    assert data["ply"] == 3 and data["to_move"] == 1
    restored = WISE.state_from_json(data)
    assert restored == state and restored.legal == state.legal
    assert WISE.from_notation(WISE.notation(state)) == state
    with pytest.raises(NotationError):
        WISE.state_from_json({"board": "X" * 10, "to_move": 0, "ply": 0, "passes": 0})
    with pytest.raises(NotationError):
        WISE.from_notation("nonsense")


def test_render_shows_files_ranks_discs_legal_cells_and_the_side_to_move():
    text = WISE.render(WISE.initial_state())
    lines = text.splitlines()
    assert lines[0] == "  a b c d e f g h"
    assert lines[4] == "4 . . * M S . . ."  # rank 4 = row 3: Moon d4, Sun e4, c4 playable
    assert "Sun to move" in lines[-1]


def test_perft_from_the_start_matches_the_published_table_to_depth_8():
    start = WISE.initial_state()
    assert [kernels.perft(start.sun, start.moon, depth) for depth in range(1, 9)] == PERFT[:8]


def test_public_protocol_perft_matches_the_compiled_perft():
    def perft(state, depth):
        if depth == 0:
            return 1
        return sum(perft(WISE.apply(state, a), depth - 1) for a in WISE.legal_actions(state))
    assert [perft(WISE.initial_state(), depth) for depth in range(1, 5)] == PERFT[:4]


def test_public_protocol_finishes_games_and_keeps_its_contract():
    check_rules(WISE, games=30, seed=1)
    check_rules(EASY, games=10, seed=2)


def test_random_playout_kernel_ends_the_game_like_the_public_protocol():
    state = WISE.initial_state()
    sun, moon = kernels.random_playout(state.sun, state.moon, 11)
    final = WISE.make_state(sun, moon)
    assert WISE.is_terminal(final) and sun.bit_count() + moon.bit_count() > 4


def test_local_env_hands_back_only_the_users_turns_or_the_end():
    from harness.envs import LocalEnv
    from harness.testing import check_env
    env = LocalEnv("totality:easy", "random")
    check_env(env, seeds=range(6))
    # A forced pass of the user is played inside step, as the live API does.
    user_passes = 0
    for seed in range(40):
        observation = env.reset(seed)
        while not observation.done:
            observation = env.step(observation.legal_actions[0])
            assert observation.legal_actions != [PASS]
        state = EASY.initial_state()
        for action in env.actions:
            user_passes += action == PASS and EASY.to_move(state) == 0
            state = EASY.apply(state, action)
    assert user_passes > 0  # the branch was exercised


def test_golden_playthrough_of_a_seeded_random_game_is_unchanged():
    # Every position of one seeded random game, in notation, hashed: any change to the rules,
    # the move order of legal_actions or the notation shows up here.
    import hashlib
    import random
    rng, state = random.Random(2026), WISE.initial_state()
    lines = [WISE.notation(state)]
    while not WISE.is_terminal(state):
        state = WISE.apply(state, rng.choice(WISE.legal_actions(state)))
        lines.append(WISE.notation(state))
    assert len(lines) == 61 and WISE.outcome(state) == ("loss", "board_full")
    assert WISE.counters(state) == {"sun": 20, "moon": 44, "empty": 0, "ply": 60, "passes": 0, "to_move": 0}
    assert hashlib.sha256("\n".join(lines).encode()).hexdigest() == (
        "8f6477e08d4b9834e77c242bdecf742d2ee86f6f8a04a3609c3c28dcc0129c2d")
