"""Chinese chess: every rule on hand-built positions, perft, FEN, and agreement with Fairy-Stockfish."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from harness.errors import IllegalAction, NotationError
from harness.games import load
from harness.games.xiangqi import _core as core
from harness.games.xiangqi import START_FEN
from harness.testing import check_rules, random_positions
from tests.requirements import import_or_unavailable

STRICT = load("xiangqi")
PSEUDO = load("xiangqi:legality=pseudo")


def destinations(rules, fen: str, row: int, col: int) -> set[tuple[int, int]]:
    """The points the piece on (row, col) may move to in ``fen``."""
    state = rules.from_fen(fen)
    return {tuple(a["to"]) for a in rules.legal_actions(state) if a["from"] == [row, col]}


def play(rules, state, *moves):
    for source, target in moves:
        state = rules.apply(state, {"from": list(source), "to": list(target)})
    return state


# -- configuration ------------------------------------------------------------


def test_seat_sets_user_side_and_the_primary_option_is_the_seat():
    assert load("xiangqi").user_side == 0
    assert load("xiangqi:black").user_side == 1
    assert load("xiangqi:black").spec == "xiangqi:seat=black"
    assert load("xiangqi:seat=black,legality=pseudo").config == {"seat": "black", "legality": "pseudo"}


def test_start_position_red_moves_first_with_44_moves():
    state = STRICT.initial_state()
    assert STRICT.to_move(state) == 0
    assert STRICT.to_fen(state) == START_FEN
    assert len(STRICT.legal_actions(state)) == 44
    assert STRICT.counters(state) == {"ply": 0, "red_rank": 0, "black_rank": 0, "halfmove": 0, "fullmove": 1,
                                      "red_pieces": 16, "black_pieces": 16}


@pytest.mark.parametrize("depth,count", [(1, 44), (2, 1920), (3, 79666), (4, 3290240)])
def test_perft_from_the_start_matches_the_published_table(depth, count):
    board, slot_of, plist, st = STRICT.position(STRICT.initial_state())
    buffers = np.empty((depth + 1, core.MAX_MOVES), dtype=np.int64)
    assert core.perft(board, slot_of, plist, st, depth, buffers, 0) == count


def test_perft_through_the_public_protocol_matches_at_depth_two():
    def count(state, depth):
        if depth == 0:
            return 1
        return sum(count(STRICT.apply(state, a), depth - 1) for a in STRICT.legal_actions(state))
    assert count(STRICT.initial_state(), 2) == 1920


# -- pieces -------------------------------------------------------------------


def test_general_steps_orthogonally_inside_the_palace_only():
    # Red general in the palace corner (9, 3); black general far away on file 5.
    fen = "5k3/9/9/9/9/9/9/9/9/3K5 w - - 0 1"
    assert destinations(STRICT, fen, 9, 3) == {(8, 3), (9, 4)}
    fen = "3k5/9/9/9/9/9/9/4K4/9/9 w - - 0 1"
    assert destinations(STRICT, fen, 7, 4) == {(7, 5), (8, 4)}  # (7, 3) faces the black general


def test_advisor_steps_diagonally_inside_the_palace_only():
    fen = "3k5/9/9/9/9/9/9/9/9/3AK4 w - - 0 1"
    assert destinations(STRICT, fen, 9, 3) == {(8, 4)}
    fen = "3k5/4a4/9/9/9/9/9/9/9/4K4 b - - 0 1"  # (0, 3) holds its own general
    assert destinations(STRICT, fen, 1, 4) == {(0, 5), (2, 3), (2, 5)}


def test_elephant_stays_on_its_side_of_the_river_and_is_blocked_by_the_eye():
    # Red elephant on the river bank (5, 2): it may not cross to row 3.
    fen = "3k5/9/9/9/9/2B6/9/9/9/4K4 w - - 0 1"
    assert destinations(STRICT, fen, 5, 2) == {(7, 0), (7, 4)}
    # A piece on the eye (6, 3) blocks the move to (7, 4).
    fen = "3k5/9/9/9/9/2B6/3p5/9/9/4K4 w - - 0 1"
    assert destinations(STRICT, fen, 5, 2) == {(7, 0)}
    # Black elephant on its bank (4, 6) may not cross to row 6.
    fen = "4k4/9/9/9/6b2/9/9/9/9/3K5 b - - 0 1"
    assert destinations(STRICT, fen, 4, 6) == {(2, 4), (2, 8)}


def test_horse_moves_one_straight_one_diagonal_and_is_blocked_by_its_leg():
    fen = "4k4/9/9/9/9/4N4/9/9/9/3K5 w - - 0 1"
    assert destinations(STRICT, fen, 5, 4) == {(3, 3), (3, 5), (7, 3), (7, 5), (4, 2), (6, 2), (4, 6), (6, 6)}
    # Legs filled north (4, 4) and west (5, 3): those four jumps are gone.
    fen = "4k4/9/9/9/4p4/3pN4/9/9/9/3K5 w - - 0 1"
    assert destinations(STRICT, fen, 5, 4) == {(7, 3), (7, 5), (4, 6), (6, 6)}


def test_chariot_slides_and_captures_the_first_enemy_on_its_line():
    fen = "3k5/9/9/9/4p4/1P2R2n1/9/9/9/5K3 w - - 0 1"
    assert destinations(STRICT, fen, 5, 4) == {
        (4, 4), (6, 4), (7, 4), (8, 4), (9, 4), (5, 2), (5, 3), (5, 5), (5, 6), (5, 7)}


def test_cannon_moves_like_a_chariot_and_captures_over_exactly_one_screen():
    # Red cannon (5, 4): north a screen at (3, 4) then a black soldier at (1, 4) to capture;
    # west an adjacent black piece (5, 3) cannot be taken, the piece behind its screen can;
    # east two screens before the black horse: no capture.
    fen = "3k5/4p4/9/4P4/9/n2pC1PPn/9/9/9/5K3 w - - 0 1"
    assert destinations(STRICT, fen, 5, 4) == {
        (4, 4), (1, 4), (6, 4), (7, 4), (8, 4), (9, 4), (5, 0), (5, 5)}


def test_soldier_goes_forward_then_also_sideways_after_the_river_never_back():
    fen = "4k4/9/9/9/9/9/2P6/9/9/3K5 w - - 0 1"
    assert destinations(STRICT, fen, 6, 2) == {(5, 2)}
    fen = "4k4/9/9/9/2P6/9/9/9/9/3K5 w - - 0 1"
    assert destinations(STRICT, fen, 4, 2) == {(3, 2), (4, 1), (4, 3)}
    fen = "2P1k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1"
    assert destinations(STRICT, fen, 0, 2) == {(0, 1), (0, 3)}  # on the last rank only sideways
    fen = "3k5/9/9/9/9/2p6/9/9/9/4K4 b - - 0 1"
    assert destinations(STRICT, fen, 5, 2) == {(6, 2), (5, 1), (5, 3)}
    fen = "3k5/9/9/2p6/9/9/9/9/9/4K4 b - - 0 1"
    assert destinations(STRICT, fen, 3, 2) == {(4, 2)}


# -- legality -----------------------------------------------------------------


def test_strict_a_pinned_piece_may_not_expose_its_general():
    # The red horse on (8, 4) shields its general from the black chariot on (2, 4).
    fen = "3k5/9/4r4/9/9/9/9/9/4N4/4K4 w - - 0 1"
    assert destinations(STRICT, fen, 8, 4) == set()
    assert destinations(PSEUDO, fen, 8, 4) == {(6, 3), (6, 5), (7, 2), (7, 6), (9, 2), (9, 6)}


def test_strict_the_generals_may_not_face_on_an_open_file():
    # The red horse is the only piece between the generals: it may not leave the file.
    fen = "4k4/9/9/9/9/4N4/9/9/9/4K4 w - - 0 1"
    assert destinations(STRICT, fen, 5, 4) == set()
    assert {tuple(a["from"]) for a in STRICT.legal_actions(STRICT.from_fen(fen))} == {(9, 4)}
    # ... and a general may not step onto the other general's open file.
    assert destinations(STRICT, "4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1", 9, 3) == {(8, 3)}


def test_strict_a_general_in_check_must_be_covered():
    # Black chariot (4, 4) checks the red general (9, 4); the red chariot can block or the general step aside.
    fen = "3k5/9/9/9/4r4/9/9/R8/9/4K4 w - - 0 1"
    state = STRICT.from_fen(fen)
    moves = {(tuple(a["from"]), tuple(a["to"])) for a in STRICT.legal_actions(state)}
    assert moves == {((7, 0), (7, 4)), ((9, 4), (9, 5))}  # (9, 3) faces the black general


def test_cannon_checks_through_one_screen_and_a_second_screen_lifts_it():
    fen = "3k5/9/9/9/4c4/9/4P4/9/9/4K4 w - - 0 1"
    assert core.attacked_general(STRICT.from_fen(fen).array(), 0)
    fen = "3k5/9/9/9/4c4/4p4/4P4/9/9/4K4 w - - 0 1"
    assert not core.attacked_general(STRICT.from_fen(fen).array(), 0)


def test_no_legal_move_loses_checkmate():
    state = STRICT.from_fen("4k3R/R8/9/9/9/9/9/9/9/3K5 b - - 0 1")
    assert STRICT.is_terminal(state) and STRICT.legal_actions(state) == []
    assert STRICT.ranks(state) == [1, 2]
    assert STRICT.outcome(state) == ("win", "no_legal_moves") and STRICT.score(state) == 1
    black = load("xiangqi:black")
    assert black.outcome(state) == ("loss", "no_legal_moves") and black.score(state) == 0


def test_no_legal_move_loses_stalemate_too():
    state = STRICT.from_fen("4k4/R8/9/9/9/3R1R3/9/9/9/3K5 b - - 0 1")
    assert STRICT.ranks(state) == [1, 2] and STRICT.outcome(state)[1] == "no_legal_moves"


def test_the_move_that_leaves_no_legal_reply_ends_the_game():
    # Red chariot (1, 8) to (0, 8) mates: the other chariot holds row 1.
    before = STRICT.from_fen("4k4/R7R/9/9/9/9/9/9/9/3K5 w - - 0 1")
    after = play(STRICT, before, ((1, 8), (0, 8)))
    assert after.ranks == (1, 2) and after.reason == "no_legal_moves"
    with pytest.raises(IllegalAction):
        STRICT.apply(after, {"from": [0, 4], "to": [1, 4]})


def test_pseudo_capturing_the_general_wins_including_the_flying_general():
    # Red moves the horse off the file, exposing its general; black's general flies to capture it.
    state = PSEUDO.from_fen("4k4/9/9/9/9/4N4/9/9/9/4K4 w - - 0 1")
    state = play(PSEUDO, state, ((5, 4), (3, 3)))
    assert {"from": [0, 4], "to": [9, 4]} in PSEUDO.legal_actions(state)
    end = play(PSEUDO, state, ((0, 4), (9, 4)))
    assert end.ranks == (2, 1) and end.reason == "general_captured"
    assert PSEUDO.outcome(end) == ("loss", "general_captured")
    assert load("xiangqi:seat=black,legality=pseudo").outcome(end) == ("win", "general_captured")
    restored = PSEUDO.state_from_json(json.loads(json.dumps(PSEUDO.state_to_json(end))))
    assert restored == end and PSEUDO.is_terminal(restored)


def test_pseudo_a_chariot_takes_a_general_left_in_check():
    state = PSEUDO.from_fen("3k5/9/9/9/4r4/9/9/R8/9/4K4 w - - 0 1")
    state = play(PSEUDO, state, ((7, 0), (7, 1)), ((4, 4), (9, 4)))
    assert state.ranks == (2, 1) and state.reason == "general_captured"


def test_move_limit_after_120_plies_both_ranks_1():
    # Fullmove 60 with black to move is ply 119; the next move is the 120th.
    state = STRICT.from_fen("3k5/9/9/9/9/9/9/9/9/4K4 b - - 0 60")
    assert state.ply == 119 and not STRICT.is_terminal(state)
    end = play(STRICT, state, ((0, 3), (1, 3)))
    assert end.ranks == (1, 1) and end.reason == "move_limit"
    assert STRICT.outcome(end) == ("draw", "move_limit") and STRICT.score(end) == 1
    black = load("xiangqi:black")
    assert black.outcome(end) == ("draw", "move_limit") and black.score(end) == 1
    assert STRICT.counters(end)["red_rank"] == 1 and STRICT.counters(end)["black_rank"] == 1


def test_a_mate_on_the_120th_ply_beats_the_move_limit():
    # Black to move at ply 119 (fullmove 60): the chariot to (9, 8) mates on ply 120.
    state = STRICT.from_fen("3k5/9/9/9/9/9/9/9/r7r/4K4 b - - 0 60")
    assert state.ply == 119
    end = play(STRICT, state, ((8, 8), (9, 8)))
    assert end.ply == 120 and end.ranks == (2, 1) and end.reason == "no_legal_moves"
    quiet = play(STRICT, state, ((8, 8), (7, 8)))
    assert quiet.ranks == (1, 1) and quiet.reason == "move_limit"
    assert STRICT.from_fen("3k5/9/9/9/9/9/9/9/r7r/4K4 w - - 0 61").reason == "move_limit"


def quiet_checks(rules, state) -> tuple[list[int], list[int]]:
    """The side to move's quiet pseudo-legal moves that give check, and those that do not (compiled encoding)."""
    board, slot_of, plist, st = rules.position(state)
    side = int(st[core.SIDE])
    moves = np.empty(core.MAX_MOVES, dtype=np.int64)
    checking, quiet = [], []
    for m in moves[:core.generate(board, plist, side, moves)]:
        if board[m & 255] == 0:
            undo = core.make(board, slot_of, plist, st, m)
            (checking if core.in_check(board, plist, 1 - side) else quiet).append(int(m))
            core.unmake(board, slot_of, plist, st, m, undo)
    return checking, quiet


def test_may_check_passes_every_quiet_check_and_is_false_for_most_quiet_moves():
    """The search makes a quiet move to test it for check only when ``may_check`` lets it: it must let
    every check through (seeded random positions, both sides), and is worth calling only if it keeps
    most quiet moves from being made."""
    checks, stopped, moves = 0, 0, 0
    for state in random_positions(STRICT, 200, seed=14, step=3):
        general = int(STRICT.position(state)[2][(1 - state.side) * 16])
        checking, quiet = quiet_checks(STRICT, state)
        assert all(core.may_check(m, general) for m in checking), STRICT.to_fen(state)
        checks += len(checking)
        stopped += sum(not core.may_check(m, general) for m in quiet)
        moves += len(checking) + len(quiet)
    assert checks > 100 and stopped > moves / 2


def test_may_check_sees_a_horse_uncovered_by_a_piece_leaving_its_leg():
    """The chariot leaves the red horse's leg, a point diagonally next to the black general, for a point
    off the general's row and file and not a horse's move from it: a discovered horse check that only
    the leg rule lets through."""
    state = STRICT.from_fen("4k4/3R5/3N5/9/9/9/9/9/9/3K5 w - - 0 1")
    checking, _ = quiet_checks(STRICT, state)
    step = int(core.SQUARE_OF_INDEX[1 * 9 + 3]) << 8 | int(core.SQUARE_OF_INDEX[1 * 9 + 0])
    assert step in checking and core.may_check(step, int(core.SQUARE_OF_INDEX[4]))


# -- notation and protocol ------------------------------------------------------


def test_fen_round_trips_with_clocks_and_halfmove_resets_on_capture():
    fen = "r1bakab1r/9/1cn4c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2B2C1/9/RN1AKABNR b - - 3 7"
    state = STRICT.from_fen(fen)
    assert STRICT.to_fen(state) == fen and STRICT.notation(state) == fen
    assert state.ply == 13 and state.halfmove == 3
    state = play(STRICT, STRICT.initial_state(), ((7, 1), (0, 1)))  # cannon takes the horse
    assert STRICT.to_fen(state).endswith(" b - - 0 1")
    assert STRICT.to_fen(play(STRICT, state, ((0, 0), (0, 1)))).endswith(" w - - 0 2")
    assert STRICT.to_fen(STRICT.from_fen("4k4/9/9/9/9/4N4/9/9/9/4K4")) == "4k4/9/9/9/9/4N4/9/9/9/4K4 w - - 0 1"


@pytest.mark.parametrize("fen", [
    "",
    "rnbakabnr/9/1c5c1 w",  # too few ranks
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX w - - 0 1",  # unknown piece
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w - - 0 1",  # short rank
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x - - 0 1",  # side
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - z 1",  # clock
    "rnba1abnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",  # no black general
    "k8/9/9/9/9/9/9/9/9/4K4 w - - 0 1",  # general outside its palace
    "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1",  # facing generals: the side not to move is attacked
])
def test_bad_fen_raises_notation_error(fen):
    with pytest.raises(NotationError):
        STRICT.from_fen(fen)


def test_pseudo_reads_a_position_with_the_generals_facing():
    state = PSEUDO.from_fen("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1")
    assert {"from": [9, 4], "to": [0, 4]} in PSEUDO.legal_actions(state)


@pytest.mark.parametrize("action", [
    None, {"type": "nonsense"}, {"from": [6, 0]}, {"from": [6, 0], "to": [5, 9]},
    {"from": [6, 0], "to": [5]}, {"from": [6, 0], "to": [4, 0]}, {"from": [3, 0], "to": [4, 0]},
    {"from": [6, 0], "to": [5, 0], "extra": 1}, {"from": [6.0, 0], "to": [5, 0]},
])
def test_illegal_or_malformed_actions_raise_illegal_action(action):
    state = STRICT.initial_state()
    with pytest.raises(IllegalAction):
        STRICT.apply(state, action)
    assert STRICT.to_fen(state) == START_FEN


def test_platform_board_of_marks_reads_into_the_same_state():
    state = play(STRICT, STRICT.initial_state(), ((7, 1), (7, 4)), ((0, 1), (2, 2)))
    board = [{"mark": "", "side": ""} for _ in range(90)]
    for index, code in enumerate(state.cells):
        if code:
            side = "red" if code < 8 else "black"
            board[index] = {"mark": "帥仕相馬車炮兵將士象馬車砲卒"[(code & 7) - 1 + (7 if code > 8 else 0)],
                            "side": side}
    assert STRICT.from_marks(board, side=0, ply=2, halfmove=2) == state
    board[0] = {"mark": "帥", "side": "black"}
    with pytest.raises(NotationError):
        STRICT.from_marks(board, side=0, ply=2)


def test_render_shows_the_platform_marks_with_sides_or_fen_letters():
    text = STRICT.render(STRICT.initial_state())
    assert "車b馬b象b士b將b士b象b馬b車b" in text and "車r馬r相r仕r帥r仕r相r馬r車r" in text
    assert "砲b" in text and "炮r" in text and "卒b" in text and "兵r" in text
    letters = STRICT.render(STRICT.initial_state(), letters=True)
    assert "R  N  B  A  K  A  B  N  R" in letters and START_FEN in letters


def test_state_json_round_trips_exactly_including_clocks():
    state = play(STRICT, STRICT.initial_state(), ((7, 1), (7, 4)), ((0, 1), (2, 2)))
    restored = STRICT.state_from_json(json.loads(json.dumps(STRICT.state_to_json(state))))
    assert restored == state and restored.legal == state.legal
    with pytest.raises(NotationError):
        STRICT.state_from_json({"board": "9/9", "side": 0})


@pytest.mark.parametrize("spec", ["xiangqi", "xiangqi:black", "xiangqi:legality=pseudo",
                                  "xiangqi:seat=black,legality=pseudo"])
def test_rules_contract(spec):
    check_rules(load(spec), games=4, seed=11)


def test_compiled_playouts_end_every_game_and_count_plies():
    state = STRICT.initial_state()
    red, black, draws, plies = core.playouts(state.array(), 0, 20, 240, False, 5)
    assert red + black + draws == 20 and 0 < plies <= 20 * 240
    assert list(core.playouts(state.array(), 0, 20, 240, False, 5)) == [red, black, draws, plies]


def test_zobrist_hash_is_restored_by_unmake_and_independent_of_move_order():
    board, slot_of, plist, st = STRICT.position(STRICT.initial_state())
    start = st[core.HASH]
    a = core.square(9, 1) << 8 | core.square(7, 2)   # red horse
    b = core.square(0, 1) << 8 | core.square(2, 2)   # black horse
    c = core.square(9, 7) << 8 | core.square(7, 6)   # red horse
    d = core.square(0, 7) << 8 | core.square(2, 6)   # black horse
    undos = [core.make(board, slot_of, plist, st, m) for m in (a, b, c, d)]
    first = st[core.HASH]
    for m, undo in reversed(list(zip((a, b, c, d), undos))):
        core.unmake(board, slot_of, plist, st, m, undo)
    assert st[core.HASH] == start
    for m in (c, d, a, b):
        core.make(board, slot_of, plist, st, m)
    assert st[core.HASH] == first


# -- agreement with Fairy-Stockfish ----------------------------------------------

# pyffish writes squares as file letter a..i (our column 0..8) and rank 1..10
# counted from red's side, so rank 1 is our row 9: row = 10 - rank.


def pyffish_moves(fen: str) -> set[tuple[tuple[int, int], tuple[int, int]]]:
    pyffish = import_or_unavailable("pyffish", "pyffish (the test extra)")
    moves = set()
    for uci in pyffish.legal_moves("xiangqi", fen, []):
        source, target = _split_uci(uci)
        moves.add((_point(source), _point(target)))
    return moves


def _split_uci(uci: str) -> tuple[str, str]:
    """'a10a9' -> ('a10', 'a9'): the second square starts at the second letter."""
    second = next(i for i in range(1, len(uci)) if uci[i].isalpha())
    return uci[:second], uci[second:]


def _point(text: str) -> tuple[int, int]:
    return 10 - int(text[1:]), ord(text[0]) - ord("a")


def our_moves(state) -> set[tuple[tuple[int, int], tuple[int, int]]]:
    return {(tuple(a["from"]), tuple(a["to"])) for a in STRICT.legal_actions(state)}


def test_pyffish_square_mapping():
    assert _split_uci("a10a9") == ("a10", "a9") and _point("a10") == (0, 0) and _point("i1") == (9, 8)


def test_legal_moves_agree_with_pyffish_on_seeded_random_play():
    rng = random.Random(2026)
    compared = 0
    game = 0
    while compared < 400:
        state = STRICT.initial_state()
        game += 1
        while not STRICT.is_terminal(state):
            if rng.random() < 0.35:
                fen = STRICT.to_fen(state)
                assert our_moves(state) == pyffish_moves(fen), f"game {game}: {fen}"
                compared += 1
            state = STRICT.apply(state, rng.choice(STRICT.legal_actions(state)))
        if state.reason == "no_legal_moves":
            assert pyffish_moves(STRICT.to_fen(state)) == set()


TRICKY = [
    # discovered check: moving the red horse off the file uncovers the chariot's check
    "3k5/9/9/9/9/9/9/3N5/9/3RK4 w - - 0 1",
    # pinned black cannon between its general and a red chariot; a red cannon with screens
    "4k4/4c4/9/9/4R4/9/9/9/9/3K5 b - - 0 1",
    "3k5/9/3p5/3p5/9/3C5/9/9/9/4K4 w - - 0 1",
    # cannon checks through a screen that is the general's own piece; capture of the screen
    "4k4/9/4a4/9/4C4/9/9/9/9/3K5 b - - 0 1",
    # generals facing with one piece between (each side) and the general stepping aside
    "4k4/9/9/9/4n4/9/9/9/9/4K4 b - - 0 1",
    "3k5/9/9/9/9/9/9/9/9/5K3 w - - 0 1",
    # horse legs filled by both colours; a horse giving check whose leg a move can block
    "4k4/9/9/9/3pN4/4p4/9/9/9/3K5 w - - 0 1",
    "4k4/9/3N5/9/9/9/9/9/9/5K3 b - - 0 1",
    # elephant eyes filled and elephants on the river bank
    "2b1k1b2/3p1P3/9/9/2b3b2/2B3B2/9/9/3P1p3/2BK2B2 w - - 0 1",
    # crossed soldiers next to the general, a soldier checking from the front
    "3k5/3P5/9/9/9/9/9/9/4p4/3K5 b - - 0 1",
    "4k4/9/9/9/9/9/9/4p4/3p1P3/4K4 w - - 0 1",
    # double check by chariot and cannon
    "4k4/9/9/9/9/4r4/9/9/4c4/4K4 w - - 0 1",
    # a middlegame
    "r1ba1a3/4kn3/2n1b4/pN2p1p1p/2p6/6P2/P1P1c3P/2N1C4/4A4/1RBAK1B1c w - - 0 1",
]


@pytest.mark.parametrize("fen", TRICKY)
def test_legal_moves_agree_with_pyffish_on_tricky_positions(fen):
    assert our_moves(STRICT.from_fen(fen)) == pyffish_moves(fen)


# Golden playthroughs: seeded random games through the public protocol, their
# final positions and results stored. Any change to the rules shows up here.
GOLDEN = [
    (1, "1n1ak2nr/c1N1a4/9/7cp/2b1C1p2/2p6/p1P5P/3A4B/3R3CR/2B2K3 b - - 7 46", "no_legal_moves", (1, 2)),
    (2, "3a1n3/9/2Nk4b/4p1P2/1R4b1p/p4p3/2P3RrP/8B/N3K4/2B6 w - - 11 61", "move_limit", (1, 1)),
]


@pytest.mark.parametrize("seed,fen,reason,ranks", GOLDEN)
def test_golden_random_playthroughs(seed, fen, reason, ranks):
    rng = random.Random(seed)
    state = STRICT.initial_state()
    while not STRICT.is_terminal(state):
        state = STRICT.apply(state, rng.choice(STRICT.legal_actions(state)))
    assert (STRICT.to_fen(state), state.reason, state.ranks) == (fen, reason, ranks)


def test_make_rules_refuses_an_unknown_seat_or_legality():
    from harness.errors import UnknownGame
    from harness.games.xiangqi import make_rules
    with pytest.raises(UnknownGame):
        make_rules(seat="green")
    with pytest.raises(UnknownGame):
        make_rules(legality="loose")
