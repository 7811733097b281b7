"""Chinese chess players: the compiled alpha-beta, its features, the G-Bot stand-in and rollouts."""

from __future__ import annotations

import json

import numpy as np
import pytest

import players
from harness.cli import main as cli_main
from harness.errors import IllegalAction, SpecError
from harness.games import load
from harness.testing import check_player
from players.features import defaults, weight_vector
from harness.games.xiangqi.features import FEATURES, TEXTBOOK, fold, material, square_table
from harness.games.xiangqi import features as features_module, search as search_module
from harness.games.xiangqi.search import CORRECTIONS, SQUARES, WIN, evaluate, piece_values, rollout, search

RULES = load("xiangqi")
WEIGHTS = weight_vector("xiangqi")
# The weights the candidates' figures were measured at (docs/xiangqi.md), before the defaults were fitted.
TEXTBOOK_WEIGHTS = weight_vector("xiangqi", TEXTBOOK)


def evaluated(board: np.ndarray, plist: np.ndarray, side: int, weights: np.ndarray, moves: np.ndarray) -> float:
    """The compiled evaluation at ``weights``, with the piece values a search computes for them."""
    return evaluate(board, plist, side, weights, piece_values(weights, SQUARES, CORRECTIONS), moves)
# Red mates in two: chariot (2, 0) to (1, 0) shuts row 1, the general may only go to (0, 5)
# (the red general holds file 3), then the other chariot mates on row 0. No mate in one.
MATE_IN_TWO = "4k4/9/R8/8R/9/9/9/9/9/3K5 w - - 0 1"


def test_features_have_defaults_inside_their_ranges():
    assert list(FEATURES)[:6] == ["advisor", "elephant", "horse", "chariot", "cannon", "soldier"]
    for feature in FEATURES.values():
        assert feature.low <= feature.default <= feature.high and feature.doc
    assert TEXTBOOK["chariot"] == 9.0 and TEXTBOOK["cannon"] == 4.5 and set(TEXTBOOK) == set(FEATURES)


def test_the_stand_ins_name_every_weight_so_the_fitted_defaults_do_not_reach_them():
    # A rung keeps the meaning of its stored games: every weight it plays is its own, none a default.
    for weights in list(search_module.GBOT_EVALS.values()) + [level["weights"] for level in search_module.GBOT.values()]:
        assert set(weights) == set(FEATURES)
    assert search_module.GBOT_EVALS["default"] == TEXTBOOK
    assert search_module.GBOT_EVALS["material"]["chariot"] == 9.0 != FEATURES["chariot"].default


def test_material_is_balanced_at_the_start_and_counts_a_capture():
    state = RULES.initial_state()
    assert material(RULES, state, 0) == 0 == material(RULES, state, 1)
    after = RULES.apply(state, {"from": [7, 1], "to": [0, 1]})  # cannon takes the horse
    assert material(RULES, after, 0) == 4.0 and material(RULES, after, 1) == -4.0


def test_evaluation_reads_its_weights_from_the_vector():
    state = RULES.from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1")  # red is a chariot up
    board, _, plist, _ = RULES.position(state)
    moves = np.empty(256, dtype=np.int64)
    base = evaluated(board, plist, 0, WEIGHTS, moves)
    richer = evaluated(board, plist, 0, weight_vector("xiangqi", {"chariot": FEATURES["chariot"].default + 3.0}),
                       moves)
    assert richer - base == pytest.approx(3.0)
    assert evaluated(board, plist, 1, WEIGHTS, moves) == pytest.approx(-base)


def test_alphabeta_finds_the_mate_in_two():
    state = RULES.from_fen(MATE_IN_TWO)
    shallow = search(RULES, state, WEIGHTS, depth=1, seed=0)
    assert shallow.value < WIN - 100  # one ply sees no mate
    result = search(RULES, state, WEIGHTS, depth=3, seed=0)
    assert result.value == pytest.approx(WIN - 3)
    after = RULES.apply(state, result.action)
    for reply in RULES.legal_actions(after):
        position = RULES.apply(after, reply)
        finish = search(RULES, position, WEIGHTS, depth=1, seed=0)
        end = RULES.apply(position, finish.action)
        assert RULES.outcome(end) == ("win", "no_legal_moves")


def test_alphabeta_player_plays_the_mate_through_the_player_protocol():
    player = players.load("alphabeta:depth=3", game="xiangqi")
    player.reset(5)
    state = RULES.from_fen(MATE_IN_TWO)
    while not RULES.is_terminal(state):
        state = RULES.apply(state, player.choose(RULES, state))
    assert RULES.outcome(state)[0] == "win" and state.ply == 3


def test_pseudo_legality_search_takes_the_general():
    rules = load("xiangqi:legality=pseudo")
    state = rules.from_fen("3k5/9/9/9/4r4/9/9/R8/9/4K4 w - - 0 1")
    state = rules.apply(state, {"from": [7, 0], "to": [7, 1]})  # red ignores the check
    result = search(rules, state, WEIGHTS, depth=2, seed=0)
    assert result.action == {"from": [4, 4], "to": [9, 4]} and result.value >= WIN - 10


def test_a_mate_on_the_last_ply_is_found_and_the_limit_is_a_draw():
    state = RULES.from_fen("3k5/9/9/9/9/9/9/9/r7r/4K4 b - - 0 60")  # ply 119
    result = search(RULES, state, WEIGHTS, depth=4, seed=0)
    assert result.action == {"from": [8, 8], "to": [9, 8]} and result.value == pytest.approx(WIN - 1)
    quiet = RULES.from_fen("3k5/9/9/9/9/9/9/9/9/5K3 b - - 0 60")  # no mate: every move draws
    assert search(RULES, quiet, WEIGHTS, depth=4, seed=0).value == 0.0


def test_the_move_limit_is_worth_its_weight_to_the_side_the_search_plays():
    """Rank 1 for both at the limit: with ``move_limit`` the searching side values it like a win, however
    far behind, at either parity of the plies left (at 0, a draw); a mate before the limit still counts
    first."""
    behind = RULES.from_fen("3k5/9/9/9/9/9/9/9/R8/4K4 b - - 0 60")   # ply 119, black a chariot down
    assert search(RULES, behind, WEIGHTS, depth=3, seed=0).value == 0.0
    valued = weight_vector("xiangqi", {"move_limit": 50.0})
    assert search(RULES, behind, valued, depth=3, seed=0).value == pytest.approx(50.0)
    two_left = RULES.from_fen("3k5/9/9/9/r8/9/9/9/4K4/9 w - - 0 60")  # ply 118, red a chariot down
    assert search(RULES, two_left, valued, depth=4, seed=0).value == pytest.approx(50.0)
    assert search(RULES, two_left, WEIGHTS, depth=4, seed=0).value == 0.0
    mate = RULES.from_fen("3k5/9/9/9/9/9/9/9/r7r/4K4 b - - 0 60")
    assert search(RULES, mate, valued, depth=4, seed=0).value == pytest.approx(WIN - 1)
    assert search_module.GBOT_EVALS["default"]["move_limit"] == 0.0   # the stand-ins keep the draw


def test_search_is_deterministic_and_respects_node_limits():
    state = RULES.initial_state()
    first = search(RULES, state, WEIGHTS, nodes=5000, seed=3)
    assert first == search(RULES, state, WEIGHTS, nodes=5000, seed=3)
    assert first.nodes <= 5000 and first.action in RULES.legal_actions(state)
    timed = search(RULES, state, WEIGHTS, deadline=0.0, seed=3)  # a deadline already past: depth 1 only
    assert timed.action in RULES.legal_actions(state) and timed.depth <= 1


def test_seed_breaks_ties_between_equal_moves():
    state = RULES.initial_state()
    chosen = {tuple(map(tuple, search(RULES, state, np.zeros_like(WEIGHTS), depth=1, seed=s).action.values()))
              for s in range(8)}
    assert len(chosen) > 1  # with all weights zero every move is worth the same


def test_search_refuses_a_finished_game():
    with pytest.raises(IllegalAction):
        search(RULES, RULES.from_fen("4k3R/R8/9/9/9/9/9/9/9/3K5 b - - 0 1"), WEIGHTS, depth=2)


def test_rollout_plays_to_the_end_and_is_seeded():
    state = RULES.initial_state()
    results = [rollout(RULES, state, seed) for seed in range(20)]
    assert results == [rollout(RULES, state, seed) for seed in range(20)]
    assert all(r in (("win", 1.0), ("draw", 1.0), ("loss", 0.0)) for r in results)
    black = load("xiangqi:black")
    mirror = {"win": "loss", "draw": "draw", "loss": "win"}
    assert [rollout(black, state, seed)[0] for seed in range(20)] == [mirror[r[0]] for r in results]
    mated = RULES.from_fen("4k3R/R8/9/9/9/9/9/9/9/3K5 b - - 0 1")
    assert rollout(RULES, mated, 0) == ("win", 1.0) and rollout(black, mated, 0) == ("loss", 0.0)


def test_gbot_stand_in_is_fixed_depth_alphabeta_on_material():
    assert search_module.GBOT["default"]["depth"] >= 1
    assert set(search_module.GBOT["default"]["weights"]) <= set(defaults("xiangqi"))
    bot = players.load("gbot", game="xiangqi")
    assert bot.settings(RULES) == search_module.GBOT["default"]


@pytest.mark.parametrize("spec", ["alphabeta:depth=2", "gbot"])
def test_players_return_only_legal_moves_and_replay_by_seed(spec):
    check_player(players.load(spec, game="xiangqi"), load("xiangqi:black"), games=1, seed=4, max_plies=60)


def test_harness_play_alphabeta_against_gbot_from_the_black_seat(capsys):
    code = cli_main(["play", "xiangqi:black", "--player", "alphabeta:depth=3", "--opponent", "gbot",
                     "--seed", "1", "--show"])
    out = capsys.readouterr().out
    assert code == 0
    assert "xiangqi:seat=black: alphabeta:depth=3 vs gbot, seed 1:" in out
    assert "將b" in out and "帥r" in out


# The features added with the search techniques, each seen in one position: red horse over the
# river at (4, 2), red chariot over it at (2, 8); a black chariot at (7, 4) pins the red advisor
# to the red general (the general's file: one piece between) and attacks the undefended red cannon
# at (7, 0).
FEATURE_POSITION = "3k5/9/8R/9/2H6/9/9/C3r4/4A4/4K4 w - - 0 1"


@pytest.mark.parametrize("fen, gain", [
    ("4k4/9/9/9/9/4C4/9/9/9/3K5 w - - 0 1", 1.0),     # a red cannon faces the black general, nothing between
    ("4k4/4a4/9/4p4/9/4C4/9/9/9/3K5 w - - 0 1", 0.0),  # pieces between (two: no check either)
    ("4k4/9/9/9/9/9/9/9/9/c2K5 w - - 0 1", -1.0),     # along a row too: a black cannon faces the red general
    ("C3k4/9/9/9/9/4C4/9/9/9/3K5 w - - 0 1", 2.0),    # one a line, counted per cannon
    ("4k4/9/9/9/9/4R4/9/9/9/3K5 b - - 0 1", 0.0),     # a chariot there gives check: not this feature
])
def test_empty_cannon_counts_cannons_facing_the_general_with_nothing_between(fen, gain):
    board, _, plist, _ = RULES.position(RULES.from_fen(fen))
    moves = np.empty(256, dtype=np.int64)
    on = evaluated(board, plist, 0, weight_vector("xiangqi", {"empty_cannon": 1.0}), moves)
    off = evaluated(board, plist, 0, weight_vector("xiangqi", {"empty_cannon": 0.0}), moves)
    assert on - off == pytest.approx(gain)
    assert search_module.GBOT_EVALS["default"]["empty_cannon"] == 0.0   # the stand-ins keep their evaluation


@pytest.mark.parametrize("feature, gain", [
    ("pieces_across", 1.0),        # two red pieces over the river, one black
    ("exposed_general", -1.0),     # the black chariot on the red general's file, one piece between
    ("hanging", -4.5),             # the red cannon, attacked and undefended: its (textbook) value
    ("horse_mobility", 8.0),       # all eight horse moves, no black horse
    ("chariot_mobility", 1.0),     # red 17 chariot moves, black 16
    ("cannon_mobility", 12.0),     # the red cannon's moves, no black cannon
])
def test_each_new_feature_reads_its_own_weight(feature, gain):
    state = RULES.from_fen(FEATURE_POSITION)
    board, _, plist, _ = RULES.position(state)
    moves = np.empty(256, dtype=np.int64)
    on = evaluated(board, plist, 0, weight_vector("xiangqi", TEXTBOOK | {feature: 1.0}), moves)
    off = evaluated(board, plist, 0, weight_vector("xiangqi", TEXTBOOK | {feature: 0.0}), moves)
    assert on - off == pytest.approx(gain)
    assert evaluated(board, plist, 1, weight_vector("xiangqi", TEXTBOOK | {feature: 1.0}),
                    moves) == pytest.approx(-on)


def test_the_square_table_mirrors_each_folded_column_and_reads_every_kind(tmp_path):
    path = tmp_path / "squares.json"
    kinds = {name: [[0.0] * 5 for _ in range(10)] for name in
             ("general", "advisor", "elephant", "horse", "chariot", "cannon", "soldier")}
    kinds["horse"][7][1] = 0.5   # row 7 from red's side, the second file from either edge
    kinds["soldier"][3][4] = 2.0  # the middle file
    path.write_text(json.dumps({"kinds": kinds}))
    table = square_table(path)
    assert table.shape == (8, 90) and table.sum() == pytest.approx(0.5 * 2 + 2.0)
    assert table[4, 7 * 9 + 1] == table[4, 7 * 9 + 7] == 0.5 and table[7, 3 * 9 + 4] == 2.0
    assert fold(2, 7, 1) == (7, 1) and fold(7, 1, 0) == (7, 1)  # a black piece seen from its own side


def test_the_squares_weight_adds_each_pieces_square_value_seen_from_its_own_side():
    # red horse (7, 2), black horse (2, 6): the same square each from its own side, folded; they cancel
    # at any weight, and a lone red horse adds its square value times the weight
    table = SQUARES
    value = table[4, 7 * 9 + 2]
    assert value != 0.0 and table[4, 7 * 9 + 6] == value  # the shipped table: fitted, mirrored
    for fen, gain in (("3k5/9/6h2/9/9/9/9/2H6/9/4K4 w - - 0 1", 0.0), ("3k5/9/9/9/9/9/9/2H6/9/4K4 w - - 0 1", value)):
        board, _, plist, _ = RULES.position(RULES.from_fen(fen))
        moves = np.empty(256, dtype=np.int64)
        on = evaluated(board, plist, 0, weight_vector("xiangqi", TEXTBOOK | {"squares": 2.0}), moves)
        off = evaluated(board, plist, 0, weight_vector("xiangqi", TEXTBOOK | {"squares": 0.0}), moves)
        general = 2.0 * (table[1, 9 * 9 + 4] - table[1, 9 * 9 + 3])  # red's general on (9, 4), black's on (0, 3)
        assert on - off == pytest.approx(2.0 * gain + general)
    assert search_module.GBOT_EVALS["default"]["squares"] == 0.0   # the stand-ins keep their evaluation


def _corrected(fen: str, side: int, tables: np.ndarray, **weights: float) -> float:
    """The evaluation of ``fen`` for ``side`` at the textbook weights and ``weights``, with ``tables`` as
    the correction tables."""
    board, _, plist, _ = RULES.position(RULES.from_fen(fen))
    vector = weight_vector("xiangqi", TEXTBOOK | weights)
    return float(evaluate(board, plist, side, vector, piece_values(vector, SQUARES, tables),
                          np.empty(256, dtype=np.int64)))


def test_early_and_late_square_values_are_weighted_by_the_force_left_on_the_board():
    tables = np.zeros((3, 8, 90))
    tables[0, 4, 7 * 9 + 2] = tables[0, 4, 7 * 9 + 6] = 1.0   # a horse on (7, 2) or (7, 6) seen from its side
    tables[1, 4, 7 * 9 + 2] = tables[1, 4, 7 * 9 + 6] = 3.0
    lone = "3k5/9/9/9/9/9/9/2H6/9/4K4 w - - 0 1"   # one horse: 2 of the 32 of the start's force
    with_chariots = "r2k5/9/9/9/9/9/9/2H6/9/R3K4 w - - 0 1"   # and two chariots: 10 of 32
    for fen, share in ((lone, 2 / 32), (with_chariots, 10 / 32)):
        off = _corrected(fen, 0, tables)
        on = _corrected(fen, 0, tables, early_squares=1.0, late_squares=1.0)
        assert on - off == pytest.approx(share * 1.0 + (1 - share) * 3.0)
        assert _corrected(fen, 1, tables, early_squares=1.0, late_squares=1.0) == pytest.approx(-on)
        assert _corrected(fen, 0, tables, early_squares=2.0) - off == pytest.approx(2.0 * share)
    # a black horse on the same square from its own side cancels red's
    assert _corrected("3k5/9/6h2/9/9/9/9/2H6/9/4K4 w - - 0 1", 0, tables, early_squares=1.0, late_squares=1.0) \
        == _corrected("3k5/9/6h2/9/9/9/9/2H6/9/4K4 w - - 0 1", 0, tables)
    assert features_module.phase(RULES.initial_state().cells) == 1.0


def test_attack_values_go_by_rows_and_files_from_the_enemy_general_for_attackers_only():
    tables = np.zeros((3, 8, 90))
    tables[2, 5, 2 * 9 + 1] = 0.7   # a chariot two rows and one file from the enemy general
    tables[2, 2, 8 * 9 + 0] = 5.0   # advisors are not attackers: never read
    red = "4k4/9/5R3/9/9/9/9/9/9/3K5 w - - 0 1"   # red chariot on (2, 5), black general on (0, 4)
    both = "4k4/9/5R3/9/9/9/9/2r6/9/3K5 w - - 0 1"   # and black's on (7, 2), as far from red's on (9, 3)
    assert _corrected(red, 0, tables, attack_squares=1.0) - _corrected(red, 0, tables) == pytest.approx(0.7)
    assert _corrected(red, 0, tables, attack_squares=2.0) - _corrected(red, 0, tables) == pytest.approx(1.4)
    assert _corrected(both, 0, tables, attack_squares=1.0) == pytest.approx(_corrected(both, 0, tables))
    guarded = "4k4/9/5R3/9/9/9/9/9/4A4/3K5 w - - 0 1"   # a red advisor eight rows below the black general
    assert _corrected(guarded, 0, tables, attack_squares=1.0) - _corrected(guarded, 0, tables) \
        == pytest.approx(0.7)


def test_unweighted_corrections_leave_the_evaluation_as_it_was_to_the_last_bit():
    tables = np.random.default_rng(5).uniform(-2.0, 2.0, (3, 8, 90))
    weights = {name: feature.default for name, feature in FEATURES.items()} | {
        "early_squares": 0.0, "late_squares": 0.0, "attack_squares": 0.0}
    for fen in (FEATURE_POSITION, "r2k5/9/9/9/9/9/9/2H6/9/R3K4 w - - 0 1"):
        assert _corrected(fen, 0, tables, **weights) == _corrected(fen, 0, np.zeros((3, 8, 90)), **weights)
        assert _corrected(fen, 0, tables, **(weights | {"late_squares": 1.0})) \
            != _corrected(fen, 0, np.zeros((3, 8, 90)), **(weights | {"late_squares": 1.0}))


def test_the_shipped_corrections_read_mirrored_and_only_attackers_attack():
    assert CORRECTIONS.shape == (3, 8, 90)
    for plane in (0, 1):
        assert np.array_equal(CORRECTIONS[plane].reshape(8, 10, 9), CORRECTIONS[plane].reshape(8, 10, 9)[:, :, ::-1])
    assert np.abs(CORRECTIONS[2, [0, 1, 2, 3]]).sum() == 0.0


def test_node_counts_of_fixed_searches_are_golden():
    """Deterministic counts: the plain search (the stand-ins') is exactly the search before the
    techniques and the new features; every technique at the textbook weights prunes far more, and the
    fitted defaults search their own tree (the base techniques as before, the extension adds, the
    pruning trio prunes, and exact_mates searches more to keep forced wins within the depth, its proofs'
    positions counted as nodes)."""
    start = RULES.initial_state()
    plain = search_module.TECHNIQUES["quiescence"] | search_module.TECHNIQUES["ordering"]
    before = weight_vector("xiangqi", search_module.GBOT_EVALS["default"])
    assert [search(RULES, start, before, depth=d, seed=0, techniques=plain).nodes for d in (3, 4)] == [6475, 41357]
    base = search_module.BASE_TECHNIQUES  # each candidate on its own and together, beside the base set
    assert [search(RULES, start, WEIGHTS, depth=d, seed=0, techniques=base).nodes for d in (3, 4)] == [3130, 13640]
    before_pruning = search_module.EXTENDED_TECHNIQUES   # the default before the pruning trio
    assert [search(RULES, start, WEIGHTS, depth=d, seed=0, techniques=before_pruning).nodes
            for d in (3, 4)] == [3130, 14497]
    pruned = search_module.PRUNED_TECHNIQUES   # the default before exact_mates
    assert [search(RULES, start, WEIGHTS, depth=d, seed=0, techniques=pruned).nodes for d in (3, 4)] == [1612, 4478]
    assert [search(RULES, start, WEIGHTS, depth=d, seed=0).nodes for d in (3, 4)] == [1612, 5239]
    # the corrections weighted (they are 0 by default, and at 0 the counts above are those of before them)
    corrected = weight_vector("xiangqi", defaults("xiangqi") | {
        "early_squares": 1.0, "late_squares": 1.0, "attack_squares": 1.0})
    assert [search(RULES, start, corrected, depth=d, seed=0, techniques=base).nodes for d in (3, 4)] == [3513, 14409]
    assert [search(RULES, start, corrected, depth=d, seed=0, techniques=before_pruning).nodes
            for d in (3, 4)] == [3513, 14261]
    assert [search(RULES, start, corrected, depth=d, seed=0, techniques=pruned).nodes for d in (3, 4)] == [1964, 4469]
    assert [search(RULES, start, corrected, depth=d, seed=0).nodes for d in (3, 4)] == [1964, 4840]
    assert [search(RULES, start, TEXTBOOK_WEIGHTS, depth=d, seed=0, techniques=base).nodes
            for d in (3, 4)] == [5648, 25647]
    extended = base | search_module.CHECK_EXTENSION
    assert [search(RULES, start, TEXTBOOK_WEIGHTS, depth=d, seed=0, techniques=extended).nodes for d in (3, 4)] == [5648, 25990]
    pruned = base | search_module.CAPTURE_PRUNING
    assert [search(RULES, start, TEXTBOOK_WEIGHTS, depth=d, seed=0, techniques=pruned).nodes for d in (3, 4)] == [3426, 15471]
    futility = base | search_module.FUTILITY
    assert [search(RULES, start, TEXTBOOK_WEIGHTS, depth=d, seed=0, techniques=futility).nodes for d in (3, 4)] == [5484, 24909]
    lazy = base | search_module.LAZY_EVAL   # no standing value of these searches lies near its bound
    assert [search(RULES, start, TEXTBOOK_WEIGHTS, depth=d, seed=0, techniques=lazy).nodes for d in (3, 4)] == [5648, 25647]
    static_null = base | search_module.STATIC_NULL
    assert [search(RULES, start, TEXTBOOK_WEIGHTS, depth=d, seed=0, techniques=static_null).nodes
            for d in (3, 4)] == [5648, 25013]
    late_move_pruning = base | search_module.LATE_MOVE_PRUNING
    assert [search(RULES, start, TEXTBOOK_WEIGHTS, depth=d, seed=0, techniques=late_move_pruning).nodes
            for d in (3, 4)] == [2467, 9506]
    adaptive = base | search_module.ADAPTIVE_NULL   # reduces more only from depth 4 of a null move on
    assert [search(RULES, start, TEXTBOOK_WEIGHTS, depth=d, seed=0, techniques=adaptive).nodes
            for d in (6, 7)] == [207784, 375717]
    assert [search(RULES, start, TEXTBOOK_WEIGHTS, depth=d, seed=0, techniques=base).nodes
            for d in (6, 7)] == [207782, 388860]
    quiescence_checks = base | search_module.QUIESCENCE_CHECKS
    assert [search(RULES, start, TEXTBOOK_WEIGHTS, depth=d, seed=0, techniques=quiescence_checks).nodes
            for d in (3, 4)] == [5854, 27384]
    every = search_module.ALL_TECHNIQUES
    assert [search(RULES, start, TEXTBOOK_WEIGHTS, depth=d, seed=0, techniques=every).nodes for d in (3, 4)] == [1295, 5934]
    inexact = every & ~search_module.EXACT_MATES   # every technique as before exact_mates
    assert [search(RULES, start, TEXTBOOK_WEIGHTS, depth=d, seed=0, techniques=inexact).nodes for d in (3, 4)] == [1295, 4748]
    before_checks = inexact & ~search_module.QUIESCENCE_CHECKS   # every technique as before quiescence_checks
    assert [search(RULES, start, TEXTBOOK_WEIGHTS, depth=d, seed=0, techniques=before_checks).nodes
            for d in (3, 4)] == [1247, 4543]


def test_the_check_extension_sees_a_mate_in_two_at_depth_two():
    """Check, the one evasion, mate: three plies, found at depth 2 only when the check is extended (by
    default since a paired match kept the extension)."""
    state = RULES.from_fen(MATE_IN_TWO)
    base = search_module.BASE_TECHNIQUES
    assert search_module.EXTENDED_TECHNIQUES == base | search_module.CHECK_EXTENSION | search_module.DEEP_LMR
    assert search_module.PRUNED_TECHNIQUES == search_module.EXTENDED_TECHNIQUES | search_module.ADAPTIVE_NULL \
        | search_module.STATIC_NULL | search_module.LATE_MOVE_PRUNING
    assert search_module.DEFAULT_TECHNIQUES == search_module.PRUNED_TECHNIQUES | search_module.EXACT_MATES
    assert search(RULES, state, WEIGHTS, depth=2, seed=0, techniques=base).value < WIN - 64
    extended = search(RULES, state, WEIGHTS, depth=2, seed=0)
    assert extended.value == pytest.approx(WIN - 3) and extended.action in RULES.legal_actions(state)


def test_quiescence_checks_see_a_quiet_mate_past_the_horizon():
    """Check, the one evasion, then a quiet mating check: at depth 2 the mate lies in quiescence, seen
    only when its first ply tries quiet checks (the candidate, off by default)."""
    state = RULES.from_fen(MATE_IN_TWO)
    base = search_module.BASE_TECHNIQUES
    assert not search_module.DEFAULT_TECHNIQUES & search_module.QUIESCENCE_CHECKS
    assert search(RULES, state, WEIGHTS, depth=2, seed=0, techniques=base).value < WIN - 64
    checks = search(RULES, state, WEIGHTS, depth=2, seed=0, techniques=base | search_module.QUIESCENCE_CHECKS)
    assert checks.value == pytest.approx(WIN - 3) and checks.action in RULES.legal_actions(state)
    # one ply of quiet checks only: at depth 1 the mating check lies two plies into quiescence
    assert search(RULES, state, WEIGHTS, depth=1, seed=0,
                  techniques=base | search_module.QUIESCENCE_CHECKS).value < WIN - 64


def test_capture_pruning_skips_a_losing_capture_and_keeps_a_free_one():
    """Black's chariot may take the red soldier the red chariot guards (9 for 1): pruned, so fewer
    nodes for the same move and value; an unguarded chariot is still taken."""
    material = weight_vector("xiangqi", search_module.GBOT_EVALS["material"])
    base = search_module.BASE_TECHNIQUES
    assert not search_module.DEFAULT_TECHNIQUES & search_module.CAPTURE_PRUNING   # a candidate until a match keeps it
    pruned = base | search_module.CAPTURE_PRUNING
    guarded = RULES.from_fen("r3k4/4a4/9/9/9/P8/9/9/9/R2K5 w - - 0 1")
    for depth in (1, 2, 3):
        full = search(RULES, guarded, material, depth=depth, seed=0, techniques=base)
        fewer = search(RULES, guarded, material, depth=depth, seed=0, techniques=pruned)
        assert (fewer.action, fewer.value) == (full.action, full.value) and fewer.nodes < full.nodes
    free = RULES.from_fen("4k4/4a4/9/9/9/r8/9/9/9/R2K5 w - - 0 1")
    taken = search(RULES, free, material, depth=2, seed=0, techniques=pruned)
    assert taken.action == {"from": [9, 0], "to": [5, 0]} and taken.value == pytest.approx(7.0)  # advisor left


MIDGAME = "r1bakab1r/9/1cn4c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R w - - 0 1"


@pytest.mark.parametrize("candidate, nodes", [("deep_lmr", 51382), ("futility", 80718)])
def test_deeper_reductions_and_futility_prune_a_middle_game_and_keep_its_move(candidate, nodes):
    """Depth 6 of a middle game at the textbook weights: the base search visits 103,551 nodes; each candidate far fewer,
    for the same move and value (both are unsound in general: a paired match decides)."""
    state = RULES.from_fen(MIDGAME)
    base = search_module.BASE_TECHNIQUES
    assert not base & search_module.TECHNIQUES[candidate]
    plain = search(RULES, state, TEXTBOOK_WEIGHTS, depth=6, seed=0, techniques=base)
    found = search(RULES, state, TEXTBOOK_WEIGHTS, depth=6, seed=0, techniques=base | search_module.TECHNIQUES[candidate])
    assert plain.nodes == 103551 and found.nodes == nodes
    assert (found.action, found.value) == (plain.action, pytest.approx(plain.value))


@pytest.mark.parametrize("side", [0, 1])
def test_the_move_counts_leave_the_side_to_moves_moves_for_quiescence(side):
    """The evaluation generates the other side's moves first, so the buffer then holds exactly what
    ``generate`` gives the side to move (quiescence searches them instead of generating again), and the
    value is the same from either side; with no move count weighted nothing is generated (-1)."""
    board, _, plist, _ = RULES.position(RULES.from_fen(FEATURE_POSITION))
    static = search_module._static_value(board, plist, TEXTBOOK_WEIGHTS,
                                          piece_values(TEXTBOOK_WEIGHTS, SQUARES, CORRECTIONS))
    moves, fresh = np.empty(256, dtype=np.int64), np.empty(256, dtype=np.int64)
    value, n = search_module._add_mobility(static, board, plist, side, TEXTBOOK_WEIGHTS, moves)
    expected = search_module.generate(board, plist, side, fresh)
    assert n == expected > 0 and list(moves[:n]) == list(fresh[:n])
    assert value == search_module._add_mobility(static, board, plist, 1 - side, TEXTBOOK_WEIGHTS, moves)[0]
    silent = weight_vector("xiangqi", TEXTBOOK | {"mobility": 0.0})
    assert search_module._add_mobility(static, board, plist, side, silent, moves) == (static, -1)


def test_lazy_evaluation_adds_the_move_counts_only_where_they_could_matter():
    """The split evaluation is the full one to the last bit; with ``lazy_eval`` quiescence skips the move
    counts a margin away from its window, so depth 6 of a middle game keeps the move and value of the
    full search (103,551 nodes) in 103,432."""
    state = RULES.from_fen(FEATURE_POSITION)
    board, _, plist, _ = RULES.position(state)
    moves = np.empty(256, dtype=np.int64)
    static = search_module._static_value(board, plist, TEXTBOOK_WEIGHTS,
                                          piece_values(TEXTBOOK_WEIGHTS, SQUARES, CORRECTIONS))
    full_value = evaluated(board, plist, 0, TEXTBOOK_WEIGHTS, moves)
    assert search_module._add_mobility(static, board, plist, 0, TEXTBOOK_WEIGHTS, moves)[0] == full_value
    per_move, none = (weight_vector("xiangqi", TEXTBOOK | {"mobility": m}) for m in (1.0, 0.0))
    counts = evaluated(board, plist, 0, per_move, moves) - evaluated(board, plist, 0, none, moves)
    assert 0 < abs(counts) <= search_module.LAZY_MOVES   # the bound covers this position's move-count difference
    assert search_module._mobility_bound(TEXTBOOK_WEIGHTS) == pytest.approx(search_module.LAZY_MOVES * 0.05)
    base = search_module.BASE_TECHNIQUES
    assert not search_module.DEFAULT_TECHNIQUES & search_module.LAZY_EVAL   # a candidate until a match keeps it
    midgame = RULES.from_fen(MIDGAME)
    full = search(RULES, midgame, TEXTBOOK_WEIGHTS, depth=6, seed=0, techniques=base)
    lazy = search(RULES, midgame, TEXTBOOK_WEIGHTS, depth=6, seed=0, techniques=base | search_module.LAZY_EVAL)
    assert (full.nodes, lazy.nodes) == (103551, 103432)
    assert (lazy.action, lazy.value) == (full.action, pytest.approx(full.value))


@pytest.mark.parametrize("names", ["", "pvs", "aspiration", "ordering", "pvs+aspiration+keep_pv+ordering"])
def test_sound_techniques_save_nodes_but_keep_the_value_of_a_fixed_depth(names):
    state = RULES.from_fen(MIDGAME)
    quiescence = search_module.TECHNIQUES["quiescence"]
    bits = quiescence | players.alphabeta.technique_bits(search_module.TECHNIQUES, names)
    plain = search(RULES, state, WEIGHTS, depth=4, seed=0, techniques=quiescence)
    found = search(RULES, state, WEIGHTS, depth=4, seed=0, techniques=bits)
    assert found.value == pytest.approx(plain.value) and found.action == plain.action
    assert found.nodes <= plain.nodes or names == "aspiration"   # a failed window costs a re-search


@pytest.mark.parametrize("without", list(search_module.TECHNIQUES))
def test_the_mate_in_two_is_found_with_any_one_technique_off(without):
    bits = search_module.ALL_TECHNIQUES & ~search_module.TECHNIQUES[without]
    result = search(RULES, RULES.from_fen(MATE_IN_TWO), WEIGHTS, depth=3, seed=0, techniques=bits)
    assert result.value == pytest.approx(WIN - 3)
    assert search(RULES, RULES.from_fen(MATE_IN_TWO), WEIGHTS, nodes=20000, seed=0).value == pytest.approx(WIN - 3)


def test_quiescence_sees_the_recapture_a_one_ply_search_misses():
    # Red's chariot may take the crossed black soldier on the a-file, but the black chariot behind it
    # takes back: one ply without quiescence grabs it, with quiescence it does not.
    state = RULES.from_fen("r3k4/4a4/9/9/9/p8/9/9/9/R2K5 w - - 0 1")
    grab = {"from": [9, 0], "to": [5, 0]}
    without = search_module.ALL_TECHNIQUES & ~search_module.TECHNIQUES["quiescence"]
    material = weight_vector("xiangqi", search_module.GBOT_EVALS["material"])
    greedy = search(RULES, state, material, depth=1, seed=0, techniques=without)
    assert greedy.action == grab and greedy.value == pytest.approx(-2.0)   # black's advisor left
    kept = search(RULES, state, material, depth=1, seed=0)
    assert kept.action != grab and kept.value == pytest.approx(-4.0)       # ... and its crossed soldier


def test_techniques_are_chosen_by_name_in_the_spec():
    player = players.load("alphabeta:depth=2,techniques=pvs+null_move", game="xiangqi")
    player.reset(0)
    assert player.choose(RULES, RULES.initial_state()) in RULES.legal_actions(RULES.initial_state())
    with pytest.raises(SpecError,
                       match="valid: default, all, none, pvs, lmr, null_move, quiescence, aspiration, keep_pv, "
                             "ordering, check_extension, capture_pruning, deep_lmr, futility, lazy_eval, adaptive_null, "
                             "static_null, late_move_pruning, quiescence_checks, exact_mates"):
        players.load("alphabeta:techniques=nosuch", game="xiangqi").choose(RULES, RULES.initial_state())
    bot = players.load("gbot:depth=4,eval=default", game="xiangqi")
    assert bot.settings(RULES)["techniques"] == search_module.PLAIN   # the stand-ins keep the plain search


@pytest.mark.parametrize("game", ["xiangqi", "xiangqi:black"])
@pytest.mark.parametrize("techniques", ["default", "all"])
def test_every_technique_plays_only_legal_moves_by_node_budget(game, techniques):
    check_player(players.load(f"alphabeta:depth=60,nodes=3000,techniques={techniques}", game=game), load(game),
                 games=1, seed=2, max_plies=40)


def test_piece_values_are_each_pieces_terms_summed_in_the_evaluations_order():
    """The table a search computes once holds, to the last bit, what the evaluation summed per piece before:
    the kind's weight, a crossed soldier's terms, then the piece-square bonus and the square value (and
    the first two alone for ``hanging``; the late correction with the whole, the early less the late
    apart), from each side's own view of the board."""
    rng = np.random.default_rng(7)
    weights = rng.uniform(-3.0, 3.0, len(FEATURES))
    values = piece_values(weights, SQUARES, CORRECTIONS)
    names = list(FEATURES)
    kinds = {2: "advisor", 3: "elephant", 4: "horse", 5: "chariot", 6: "cannon", 7: "soldier"}
    for owner, kind, row, col in ((0, 7, 3, 2), (1, 7, 6, 2), (0, 7, 6, 4), (1, 4, 2, 6), (0, 1, 9, 4), (1, 5, 0, 0)):
        red_row = row if owner == 0 else 9 - row
        value = weights[names.index(kinds[kind])] if kind in kinds else 0.0
        if kind == 7 and red_row <= 4:  # over the river
            value += weights[names.index("soldier_crossed")] + weights[names.index("soldier_advance")] * (4 - red_row)
        material_part = value
        value += weights[names.index("piece_square")] * search_module.PST[kind, red_row * 9 + col]
        value += weights[names.index("squares")] * SQUARES[kind, red_row * 9 + col]
        late = weights[names.index("late_squares")] * CORRECTIONS[1, kind, red_row * 9 + col]
        early = weights[names.index("early_squares")] * CORRECTIONS[0, kind, red_row * 9 + col]
        square = int(search_module.SQUARE_OF_INDEX[row * 9 + col])
        assert values[0, owner * 8 + kind, square] == value + late
        assert values[1, owner * 8 + kind, square] == material_part
        assert values[2, owner * 8 + kind, square] == early - late
