"""Ravenward: every sentence of the rules text, proved on hand-built positions,
plus a differential test against a plain-Python reading of the text written
independently of the engine (``Reference`` below shares no code with it)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from harness.errors import IllegalAction, NotationError
from harness.games import load
from harness.games.ravenward import _core as core
from harness.games.ravenward import RavenwardState, make_state
from harness.envs import LocalEnv
from harness.testing import check_env, check_rules

RULES = load("ravenward")


def position(king: int, defenders: list[int] = (), ravens: list[int] = (), *, side: int = 0,
             ply: int | None = None, moves: int | None = None,
             history: tuple[tuple[int, ...], ...] = ()) -> RavenwardState:
    """A state from an explicit placement; missing defenders/ravens count as captured.

    The ply defaults to the side to move (0 or 1) and moves to the King's-side
    moves that ply implies.
    """
    defenders = list(defenders) + [-1] * (4 - len(defenders))
    ravens = list(ravens) + [-1] * (8 - len(ravens))
    ply = side if ply is None else ply
    moves = (ply + 1) // 2 if moves is None else moves
    return make_state((king, *defenders, *ravens), side=side, ply=ply, moves=moves, history=history)


def move(state: RavenwardState, origin: int, target: int) -> RavenwardState:
    return RULES.apply(state, {"type": "move", "from": origin, "to": target})


def targets(state: RavenwardState, origin: int) -> list[int]:
    return [a["to"] for a in RULES.legal_actions(state) if a["from"] == origin]


def occupied(state: RavenwardState) -> dict[int, str]:
    return state.board


# --- the start ---------------------------------------------------------------------------------

def test_start_position_places_king_defenders_and_ravens_as_the_text_says():
    state = RULES.initial_state()
    assert occupied(state) == {24: "K", 17: "D", 23: "D", 25: "D", 31: "D",
                               **{c: "R" for c in (3, 10, 21, 22, 26, 27, 38, 45)}}
    assert RULES.to_move(state) == 0 and RULES.user_side == 0
    assert RULES.counters(state) == {"defAlive": 4, "atkTaken": 0, "moves": 0, "ply": 0}
    assert RULES.score(state) == 0 and RULES.outcome(state) is None


def test_perft_counts_from_the_start_are_golden():
    st = np.empty(core.SIZE, dtype=np.int64)
    core.initial(st)
    assert [core.perft(st, depth) for depth in (1, 2, 3, 4, 5)] == [24, 944, 23984, 975056, 25728368]


def test_legal_actions_are_sorted_by_from_then_to_and_both_sides_alternate():
    state = RULES.initial_state()
    legal = RULES.legal_actions(state)
    assert legal == sorted(legal, key=lambda a: (a["from"], a["to"]))
    assert all(set(a) == {"type", "from", "to"} and a["type"] == "move" for a in legal)
    after = RULES.apply(state, legal[0])
    assert RULES.to_move(after) == 1
    assert all(occupied(after)[a["from"]] == "R" for a in RULES.legal_actions(after))


# --- movement ---------------------------------------------------------------------------------

def test_a_piece_slides_like_a_rook_through_empty_squares_any_distance():
    state = position(24, [16], [44], side=0)
    assert targets(state, 16) == [2, 9, 14, 15, 17, 18, 19, 20, 23, 30, 37]  # no diagonal, stops before 44
    with pytest.raises(IllegalAction):
        move(state, 16, 16)  # zero squares is not a move
    with pytest.raises(IllegalAction):
        move(state, 16, 8)   # diagonal


def test_no_piece_jumps_over_any_piece_friend_or_enemy():
    state = position(24, [16, 18], [30], side=0)
    assert targets(state, 16) == [2, 9, 14, 15, 17, 23]


def test_only_the_king_may_stop_on_the_throne_or_a_corner():
    state = position(40, [1, 17], [8], side=0)  # throne empty, King away from it
    assert targets(state, 1) == [2, 3, 4, 5]      # neither corner 0 nor corner 6
    assert 24 not in targets(state, 17) and 31 in targets(state, 17)
    ravens = position(40, [30], [5, 23], side=1)
    assert targets(ravens, 5) == [1, 2, 3, 4, 12, 19, 26, 33]
    assert 24 not in targets(ravens, 23)
    king = position(22, [], [16], side=0)
    assert 24 in targets(king, 22)
    king_corner = position(35, [], [16], side=0)
    assert 42 in targets(king_corner, 35)


def test_any_piece_slides_across_the_empty_throne():
    state = position(40, [10], [23], side=1)
    assert set(targets(state, 23)) == {2, 9, 16, 30, 37, 44, 22, 21, 25, 26, 27}
    blocked_beyond = position(40, [17], [31], side=0)
    assert [t for t in targets(blocked_beyond, 17) if t % 7 == 3 and t > 17] == []
    open_beyond = position(40, [17], [38], side=0)
    assert [t for t in targets(open_beyond, 17) if t % 7 == 3 and t > 17] == [31]


def test_the_throne_blocks_passage_while_the_king_stands_on_it():
    state = position(24, [], [23], side=1)
    assert not {24, 25, 26, 27} & set(targets(state, 23))


def test_the_king_may_return_to_the_throne_and_slide_across_it():
    state = position(17, [], [40], side=0)
    assert {24, 31, 38, 45} <= set(targets(state, 17))
    state = move(state, 17, 10)
    state = move(state, 40, 39)
    state = move(state, 10, 24)
    assert state.cells[0] == 24 and not RULES.is_terminal(state)


def test_corners_end_their_lines_so_nothing_slides_through_them():
    state = position(3, [], [40], side=0)
    assert targets(state, 3) == [0, 1, 2, 4, 5, 6, 10, 17, 24, 31, 38, 45]


# --- captures ---------------------------------------------------------------------------------

@pytest.mark.parametrize("mover, landing, raven, flank", [
    (14, 16, 9, 2),     # the raven above the landing square
    (18, 16, 23, 30),   # below
    (2, 16, 15, 14),    # left
    (2, 16, 17, 18),    # right
])
def test_custodian_capture_in_each_of_the_four_directions(mover, landing, raven, flank):
    state = position(40, [mover, flank], [raven, 46], side=0)
    after = move(state, mover, landing)
    assert raven not in occupied(after) and after.cells[5] == -1
    assert RULES.counters(after) == {"defAlive": 2, "atkTaken": 7, "moves": 1, "ply": 1}


def test_captures_happen_only_around_the_landing_square():
    # a raven already standing between two defenders stays: only an incoming move captures
    state = position(40, [15, 17, 2], [16, 46], side=0)
    after = move(state, 2, 3)
    assert occupied(after)[16] == "R"


def test_moving_into_a_sandwich_is_safe():
    state = position(40, [15, 17], [30, 46], side=1)
    after = move(state, 30, 16)   # a raven lands between two defenders
    assert occupied(after)[16] == "R"
    king_side = position(24, [37], [29, 31, 46], side=0)
    after = move(king_side, 37, 30)  # a defender lands between two ravens
    assert occupied(after)[30] == "D"
    king = position(38, [], [30, 32, 46], side=0)
    after = move(king, 38, 31)       # the King lands between two ravens
    assert after.cells[0] == 31 and not RULES.is_terminal(after)


def test_up_to_three_pieces_are_captured_by_one_move_and_removed_together():
    # a defender lands on 16; ravens 9, 15, 17 are each flanked by defenders 2, 14, 18
    state = position(40, [2, 14, 18, 30], [9, 15, 17, 46], side=0)
    after = move(state, 30, 16)
    assert not {9, 15, 17} & set(occupied(after))
    assert RULES.counters(after)["atkTaken"] == 7


def test_corners_are_hostile_to_ravens_and_defenders():
    state = position(40, [3], [1, 46], side=0)
    assert 1 not in occupied(move(state, 3, 2))
    ravens = position(40, [7], [21, 46], side=1)
    assert 7 not in occupied(move(ravens, 21, 14))


def test_the_empty_throne_is_hostile_to_every_piece():
    state = position(40, [15], [23, 46], side=0)
    assert 23 not in occupied(move(state, 15, 22))
    ravens = position(40, [25], [27, 46], side=1)
    assert 25 not in occupied(move(ravens, 27, 26))


def test_an_occupied_throne_is_hostile_to_nobody():
    ravens = position(24, [25], [27, 46], side=1)
    assert occupied(move(ravens, 27, 26))[25] == "D"


def test_the_king_on_the_throne_still_flanks_for_a_defender_as_a_friendly_piece():
    state = position(24, [15], [23, 46], side=0)
    assert 23 not in occupied(move(state, 15, 22))


def test_the_king_is_armed_and_pinches_a_raven():
    state = position(15, [18], [17, 46], side=0)
    after = move(state, 15, 16)
    assert 17 not in occupied(after) and RULES.counters(after)["atkTaken"] == 7
    against_corner = position(3, [], [1, 46], side=0)
    assert 1 not in occupied(move(against_corner, 3, 2))


def test_the_king_flanks_for_a_defender():
    state = position(18, [14], [17, 46], side=0)
    assert 17 not in occupied(move(state, 14, 16))


def test_the_king_is_captured_by_two_attackers_on_opposite_sides():
    state = position(16, [], [15, 31, 46], side=1)
    after = move(state, 31, 17)   # the raven crosses the empty throne to close the pair
    assert RULES.outcome(after) == ("loss", "king_captured") and after.cells[0] == -1
    vertical = position(16, [], [9, 30, 46], side=1)
    assert RULES.outcome(move(vertical, 30, 23)) == ("loss", "king_captured")


def test_the_king_is_captured_against_a_corner_or_the_empty_throne():
    corner = position(1, [], [4, 46], side=1)
    assert RULES.outcome(move(corner, 4, 2)) == ("loss", "king_captured")
    throne = position(23, [], [29, 46], side=1)
    assert RULES.outcome(move(throne, 29, 22)) == ("loss", "king_captured")


def test_the_king_on_the_throne_falls_to_two_ravens_with_no_four_sided_rule():
    state = position(24, [], [17, 38], side=1)
    assert RULES.outcome(move(state, 38, 31)) == ("loss", "king_captured")
    # two ravens beside him but not opposite do not capture
    adjacent = position(16, [], [9, 14], side=1)
    after = move(adjacent, 14, 15)
    assert after.cells[0] == 16 and not RULES.is_terminal(after)


def test_friendly_pieces_are_never_captured():
    # a defender lands with its own defender between it and a raven
    state = position(40, [16, 30], [2, 46], side=0)
    after = move(state, 30, 23)
    assert occupied(after)[16] == "D" and occupied(after)[2] == "R"
    # a raven lands beside a raven that stands next to a corner
    ravens = position(40, [30], [1, 4], side=1)
    assert occupied(move(ravens, 4, 2))[1] == "R"
    # a defender lands beside a defender that stands next to a corner
    king_side = position(40, [1, 16], [46], side=0)
    assert occupied(move(king_side, 16, 2))[1] == "D"


def test_the_board_edge_never_captures():
    after = move(position(40, [29], [21, 46], side=0), 29, 22)
    assert occupied(after)[21] == "R"
    ravens = move(position(40, [14], [29, 46], side=1), 29, 15)
    assert occupied(ravens)[14] == "D"


# --- resolution order, repetition, limits ------------------------------------------------------

def test_escape_wins_after_its_own_captures_are_counted():
    state = position(21, [2], [1, 46], side=0, ply=10)
    after = move(state, 21, 0)
    assert RULES.outcome(after) == ("win", "escape")
    assert RULES.counters(after) == {"defAlive": 1, "atkTaken": 7, "moves": 6, "ply": 10}
    assert RULES.score(after) == 100 + 10 * 1 + 5 * 7 + (50 - 2 * 6)


def test_escape_on_the_last_move_before_the_limit_wins():
    state = position(5, [30], [46, 45], side=0, ply=58)
    after = move(state, 5, 6)
    assert RULES.outcome(after) == ("win", "escape") and RULES.counters(after)["moves"] == 30
    assert RULES.score(after) == 100 + 10 + 5 * 6 + 0


def test_a_lone_king_can_still_win_by_escape():
    state = position(35, [], [10, 11, 12], side=0, ply=20)
    after = move(state, 35, 42)
    assert RULES.outcome(after) == ("win", "escape")
    assert RULES.score(after) == 100 + 0 + 5 * 5 + (50 - 2 * 11)


def test_king_capture_is_a_loss_scoring_three_per_raven_taken():
    state = position(16, [30, 33], [15, 31, 46, 47], side=1, ply=9)
    after = move(state, 31, 17)
    assert RULES.outcome(after) == ("loss", "king_captured")
    assert RULES.score(after) == 3 * 4
    assert RULES.counters(after)["ply"] == 9  # ended at step (4), before the ply counter


def test_king_capture_on_the_last_ply_comes_before_the_move_limit():
    state = position(16, [30], [15, 31, 46], side=1, ply=59)
    assert RULES.outcome(move(state, 31, 17)) == ("loss", "king_captured")


def test_the_sixtieth_ply_is_a_draw_by_move_limit():
    state = position(40, [30], [46, 47], side=1, ply=59)
    after = move(state, 46, 44)
    assert RULES.outcome(after) == ("draw", "ply_limit")
    assert RULES.counters(after)["ply"] == 60 and RULES.score(after) == 40 + 3 * 6
    assert RULES.legal_actions(after) == []


BOXED = dict(king=8, defenders=[9], ravens=[1, 2, 10, 14, 15, 16])  # raven 14 -> 7 closes the box


def test_the_kings_side_without_a_legal_move_loses():
    state = position(BOXED["king"], BOXED["defenders"], BOXED["ravens"], side=1, ply=11)
    after = move(state, 14, 7)
    assert after.cells[0] == 8   # the King between raven 7 and defender 9 is not captured
    assert RULES.outcome(after) == ("loss", "king_side_no_moves")
    assert RULES.score(after) == 3 * 2


def test_the_move_limit_comes_before_the_no_legal_move_check():
    state = position(BOXED["king"], BOXED["defenders"], BOXED["ravens"], side=1, ply=59)
    assert RULES.outcome(move(state, 14, 7)) == ("draw", "ply_limit")


def test_ravens_without_a_legal_move_lose():
    # the defender landing on 10 takes raven 9; raven 1 is left boxed by corner 0 and defenders 2, 8
    state = position(40, [2, 8, 16, 17], [1, 9], side=0, ply=4)
    after = move(state, 17, 10)
    assert occupied(after)[1] == "R" and 9 not in occupied(after)
    assert RULES.outcome(after) == ("win", "ravens_no_moves")
    assert RULES.score(after) == 100 + 10 * 4 + 5 * 7 + (50 - 2 * 3)


def _shuffle(state: RavenwardState, plies: int) -> RavenwardState:
    """Defender 40<->39 and raven 46<->47 back and forth."""
    moves = [(40, 39), (46, 47), (39, 40), (47, 46)]
    for i in range(plies):
        state = move(state, *moves[i % 4])
    return state


def test_a_third_occurrence_of_a_position_key_is_a_draw_and_the_start_does_not_count():
    start = position(24, [40], [46, 10], side=0)
    # the start key recurs at plies 4 and 8; the start itself was never recorded, so ply 8
    # is only its second occurrence. The key after ply 1 recurs at plies 5 and 9: a draw there.
    assert not RULES.is_terminal(_shuffle(start, 8))
    after = _shuffle(start, 9)
    assert RULES.outcome(after) == ("draw", "repetition")
    assert RULES.counters(after)["ply"] == 9 and RULES.score(after) == 40 + 3 * 6


def test_repetition_keys_are_by_piece_identity():
    state = position(24, [40, 44], [46, 10], side=0)
    after_move = move(state, 40, 39)
    key = after_move.key
    swapped = list(key)
    swapped[1], swapped[2] = swapped[2], swapped[1]    # same squares, defenders trade identities
    twice_swapped = make_state(state.cells, side=0, ply=2, moves=1, history=(tuple(swapped), tuple(swapped)))
    assert not RULES.is_terminal(move(twice_swapped, 40, 39))
    twice_same = make_state(state.cells, side=0, ply=2, moves=1, history=(key, key))
    assert RULES.outcome(move(twice_same, 40, 39)) == ("draw", "repetition")


def test_repetition_on_the_sixtieth_ply_is_reported_as_repetition():
    state = position(24, [40], [46, 10], side=1, ply=59)
    after_key = position(24, [40], [47, 10], side=0).key
    state = make_state(state.cells, side=1, ply=59, moves=30, history=(after_key, after_key))
    assert RULES.outcome(move(state, 46, 47)) == ("draw", "repetition")


# --- the score formula ---------------------------------------------------------------------------

@pytest.mark.parametrize("moves, bonus", [(1, 48), (10, 30), (25, 0), (30, 0)])
def test_the_win_score_pays_for_fast_escapes_with_max_zero(moves, bonus):
    state = position(3, [9, 30], [46, 45, 44], side=0, ply=2 * moves - 2, moves=moves - 1)
    after = move(state, 3, 6)
    assert RULES.counters(after)["moves"] == moves
    assert RULES.score(after) == 100 + 10 * 2 + 5 * 5 + bonus


def test_every_win_beats_every_draw_and_every_draw_any_other_result():
    def finished(reason, defenders, taken, moves):
        king = {"escape": 0, "king_captured": -1}.get(reason, 8)
        cells = (king, *range(9, 9 + defenders), *[-1] * (4 - defenders),
                 *range(15, 15 + 8 - taken), *[-1] * taken)
        return RULES.score(make_state(cells, side=1, ply=60, moves=moves, reason=reason))
    wins = [finished("escape", d, t, m) for d in (0, 4) for t in (0, 7) for m in (1, 30)]
    draws = [finished(r, d, t, 30) for r in ("repetition", "ply_limit") for d in (0, 4) for t in (0, 7)]
    others = [finished(r, d, t, 30) for r in ("king_captured", "king_side_no_moves") for d in (0, 4)
              for t in (0, 7)]
    assert min(wins) == 100 and max(wins) == 100 + 40 + 35 + 48
    assert max(draws) == 40 + 21 and min(draws) == 40 and max(others) == 21 and min(others) == 0
    assert min(wins) > max(draws) and min(draws) > max(others)


def test_score_bounds_cover_the_formula():
    assert RULES.score_bounds() == (0.0, 228.0)


# --- the public protocol ------------------------------------------------------------------------

@pytest.mark.parametrize("action", [
    None, "3-4", [17, 16], {"type": "pass"}, {"type": "move", "from": 17},
    {"type": "move", "from": 17, "to": 49}, {"type": "move", "from": -1, "to": 16},
    {"type": "move", "from": "17", "to": "16"}, {"type": "move", "from": True, "to": 16},
    {"type": "move", "from": 17, "to": 24}, {"type": "move", "from": 3, "to": 2},
    {"type": "move", "from": 17, "to": 3},
])
def test_malformed_or_illegal_actions_raise_illegal_action_and_change_nothing(action):
    state = RULES.initial_state()
    before = RULES.state_to_json(state)
    with pytest.raises(IllegalAction):
        RULES.apply(state, action)
    assert RULES.state_to_json(state) == before


def test_a_finished_game_accepts_no_action():
    over = move(position(3, [], [46], side=0), 3, 0)
    with pytest.raises(IllegalAction, match="over"):
        RULES.apply(over, {"type": "move", "from": 46, "to": 47})


def test_state_json_round_trips_exactly_with_its_history():
    state = _shuffle(position(24, [40], [46, 10], side=0), 7)
    data = json.loads(json.dumps(RULES.state_to_json(state)))
    restored = RULES.state_from_json(data)
    assert restored == state and len(restored.history) == 7
    assert RULES.outcome(_shuffle_from(restored, 7, 2)) == ("draw", "repetition")


def _shuffle_from(state, done, plies):
    moves = [(40, 39), (46, 47), (39, 40), (47, 46)]
    for i in range(done, done + plies):
        state = move(state, *moves[i % 4])
    return state


def test_state_from_json_rejects_bad_placements():
    with pytest.raises(NotationError):
        RULES.state_from_json({"king": 24})
    good = RULES.state_to_json(RULES.initial_state())
    with pytest.raises(NotationError, match="only the King"):
        RULES.state_from_json(good | {"defenders": [0, 23, 25, 31]})
    with pytest.raises(NotationError, match="per ply"):
        RULES.state_from_json(good | {"history": [[24, 17, 23, 25, 31, 3, 10, 21, 22, 26, 27, 38, 45, 1]]})


def test_render_and_notation_show_the_position():
    state = RULES.initial_state()
    text = RULES.render(state)
    assert text.splitlines()[3].split()[1:] == ["R", "R", "D", "K", "D", "R", "R"]
    assert "\n" not in RULES.notation(state) and RULES.notation(state).startswith("K24 D17,23,25,31")


def test_the_contract_suite_passes():
    check_rules(RULES, games=30, seed=3)


def test_the_local_environment_replies_for_the_ravens_in_the_same_step():
    check_env(LocalEnv("ravenward", "random"), seeds=range(4))


def test_seeded_random_self_play_keeps_every_invariant():
    rng = random.Random(11)
    low, high = RULES.score_bounds()
    for _ in range(150):
        state = RULES.initial_state()
        while not RULES.is_terminal(state):
            state = RULES.apply(state, rng.choice(RULES.legal_actions(state)))
            for piece, cell in enumerate(state.cells[1:], 1):
                assert cell < 0 or not core.IS_SPECIAL[cell], (piece, cell)
        assert state.ply <= 60 and low <= RULES.score(state) <= high
        result, reason = RULES.outcome(state)
        assert (result, reason) in {("win", "escape"), ("win", "ravens_no_moves"), ("draw", "repetition"),
                                    ("draw", "ply_limit"), ("loss", "king_captured"),
                                    ("loss", "king_side_no_moves")}


# --- the differential test ----------------------------------------------------------------------

class Reference:
    """Ravenward written straight from the rules text, in plain Python and (row, col) terms.

    A position is a list of 13 entries, each None (captured) or (row, col):
    the King, four defenders, eight ravens, in the order of the text.
    """

    CORNER_SET = {(0, 0), (0, 6), (6, 0), (6, 6)}
    THRONE = (3, 3)

    def __init__(self, cells: tuple[int, ...], side: int, ply: int, moves: int, history=()):
        self.pieces = [None if c < 0 else divmod(c, 7) for c in cells]
        self.side = side
        self.ply = ply
        self.moves = moves
        self.over: tuple[str, str] | None = None
        self.recorded = [tuple(k) for k in history]

    def owner(self, index: int) -> int:
        return 0 if index <= 4 else 1

    def at(self, square):
        for index, where in enumerate(self.pieces):
            if where == square:
                return index
        return None

    def special(self, square) -> bool:
        return square == self.THRONE or square in self.CORNER_SET

    def hostile(self, square) -> bool:
        if square in self.CORNER_SET:
            return True
        return square == self.THRONE and self.at(square) is None

    def legal(self) -> list[tuple[int, int]]:
        if self.over:
            return []
        found = []
        for index, where in enumerate(self.pieces):
            if where is None or self.owner(index) != self.side:
                continue
            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                r, c = where
                while True:
                    r, c = r + dr, c + dc
                    if not (0 <= r < 7 and 0 <= c < 7) or self.at((r, c)) is not None:
                        break
                    if self.special((r, c)) and index != 0:
                        continue          # may cross the empty throne, never stop there
                    found.append((where[0] * 7 + where[1], r * 7 + c))
        return sorted(found)

    def key(self) -> tuple[int, ...]:
        return tuple(-1 if p is None else p[0] * 7 + p[1] for p in self.pieces) + (self.side,)

    def play(self, origin: int, target: int) -> None:
        assert (origin, target) in self.legal()
        mover = self.at(divmod(origin, 7))
        me = self.owner(mover)
        landing = divmod(target, 7)
        self.pieces[mover] = landing                       # (1)
        doomed = []
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):  # (2)
            beside = (landing[0] + dr, landing[1] + dc)
            beyond = (landing[0] + 2 * dr, landing[1] + 2 * dc)
            victim = self.at(beside)
            if victim is None or self.owner(victim) == me:
                continue
            if not (0 <= beyond[0] < 7 and 0 <= beyond[1] < 7):
                continue
            partner = self.at(beyond)
            if (partner is not None and self.owner(partner) == me) or self.hostile(beyond):
                doomed.append(victim)
        for victim in doomed:
            self.pieces[victim] = None
        if me == 0:
            self.moves += 1
            if self.pieces[0] in self.CORNER_SET:          # (3)
                self.over = ("win", "escape")
                return
        if self.pieces[0] is None:                         # (4)
            self.over = ("loss", "king_captured")
            return
        self.ply += 1                                      # (5)
        self.side = 1 - me
        self.recorded.append(self.key())
        if self.recorded.count(self.key()) >= 3:
            self.over = ("draw", "repetition")
            return
        if self.ply >= 60:                                 # (6)
            self.over = ("draw", "ply_limit")
            return
        if not self.legal():                               # (7)
            self.over = ("win", "ravens_no_moves") if self.side == 1 else ("loss", "king_side_no_moves")

    def score(self) -> int:
        alive = sum(p is not None for p in self.pieces[1:5])
        taken = sum(p is None for p in self.pieces[5:])
        if self.over is None:
            return 0
        if self.over[0] == "win":
            return 100 + 10 * alive + 5 * taken + max(0, 50 - 2 * self.moves)
        if self.over[0] == "draw":
            return 40 + 3 * taken
        return 3 * taken


def _differential_games(games: int, seed: int, shuffle: float) -> dict[str, int]:
    """Play seeded games through the public rules, the raw core and the reference in step.

    ``shuffle`` is the chance a side plays back its previous move when it can,
    so repetitions arise as well as escapes and captures.
    """
    reasons: dict[str, int] = {}
    rng = random.Random(seed)
    buffer = np.empty(core.MAX_MOVES, dtype=np.int64)
    undo = np.empty(core.UNDO_SIZE, dtype=np.int64)
    for game in range(games):
        state = RULES.initial_state()
        reference = Reference(state.cells, 0, 0, 0)
        st = np.empty(core.SIZE, dtype=np.int64)
        core.initial(st)
        last: dict[int, tuple[int, int]] = {}
        while True:
            where = f"game {game} ply {reference.ply} {RULES.notation(state)}"
            legal = [(a["from"], a["to"]) for a in RULES.legal_actions(state)]
            assert legal == reference.legal(), where
            count = core.generate(st, buffer)
            assert sorted((m >> 6, m & 63) for m in buffer[:count].tolist()) == legal, where
            assert state.cells == reference.key()[:13] or RULES.is_terminal(state), where
            assert RULES.outcome(state) == reference.over, where
            assert RULES.score(state) == reference.score() == core.score(st), where
            if reference.over:
                reasons[reference.over[1]] = reasons.get(reference.over[1], 0) + 1
                assert state.cells == tuple(-1 if p is None else p[0] * 7 + p[1] for p in reference.pieces)
                assert RULES.counters(state)["moves"] == reference.moves
                break
            back = last.get(state.side)
            if back and (back[1], back[0]) in legal and rng.random() < shuffle:
                choice = (back[1], back[0])
            else:
                choice = rng.choice(legal)
            last[state.side] = choice
            state = move(state, *choice)
            reference.play(*choice)
            core.make(st, choice[0] * 64 + choice[1], undo)
            assert RULES.counters(state) == {
                "defAlive": sum(p is not None for p in reference.pieces[1:5]),
                "atkTaken": sum(p is None for p in reference.pieces[5:]),
                "moves": reference.moves, "ply": reference.ply}, where
            assert state.history == tuple(reference.recorded), where
    return reasons


def test_engine_matches_an_independent_reading_of_the_text_on_random_games():
    reasons = _differential_games(250, seed=2026, shuffle=0.0)
    assert {"escape", "king_captured", "ply_limit"} <= set(reasons)


def test_engine_matches_the_reference_on_games_full_of_repetitions():
    reasons = _differential_games(150, seed=7, shuffle=0.7)
    assert reasons.get("repetition", 0) > 10


def test_engine_matches_the_reference_from_crowded_hand_built_positions():
    """Random play from positions where the no-move and multi-capture rules bite."""
    for cells, side in [((8, 2, 16, -1, -1, 1, 9, 15, -1, -1, -1, -1, -1), 0),
                        ((16, 2, 14, 18, 30, 9, 15, 17, 46, -1, -1, -1, -1), 0),
                        ((24, 17, 23, 25, 31, 10, 16, 18, 22, 26, 30, 32, 38), 1)]:
        rng = random.Random(sum(cells))
        for _ in range(20):
            state = make_state(cells, side=side, ply=side, moves=0)
            reference = Reference(cells, side, side, 0)
            while not RULES.is_terminal(state):
                legal = [(a["from"], a["to"]) for a in RULES.legal_actions(state)]
                assert legal == reference.legal()
                choice = rng.choice(legal)
                state = move(state, *choice)
                reference.play(*choice)
                assert state.cells == tuple(-1 if p is None else p[0] * 7 + p[1] for p in reference.pieces)
            assert RULES.outcome(state) == reference.over and RULES.score(state) == reference.score()


def _reference_perft(reference: Reference, depth: int) -> int:
    legal = reference.legal()
    if depth == 1:
        return len(legal)
    total = 0
    for origin, target in legal:
        child = Reference(reference.key()[:13], reference.side, reference.ply, reference.moves,
                          reference.recorded)
        child.play(origin, target)
        total += _reference_perft(child, depth - 1)
    return total


def test_the_reference_reading_confirms_the_golden_perft_counts():
    start = RULES.initial_state()
    assert [_reference_perft(Reference(start.cells, 0, 0, 0), depth) for depth in (1, 2, 3)] == [24, 944, 23984]
