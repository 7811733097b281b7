"""Totality search: legal and deterministic, finds forced and best-paying wins, exact endgame solver,
G-Bot stand-ins and alpha-beta through the player registry, features, rollouts.

Positions are the one-line notation of ``TotalityRules.notation``: 64 cells
row by row from the top left (X Sun, O Moon, - empty) and the side to move.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import players
from harness.cli import main as cli_main
from harness.errors import IllegalAction, SpecError
from harness.games import load
from harness.testing import check_player
from players.features import feature_names, weight_vector
from harness.games.totality.features import FEATURES, material
from harness.games.totality import search as search_module
from harness.games.totality.search import DECIDED, GBOT, feature_values, rollout, search

RULES = load("totality")
EASY = load("totality:easy")
WEIGHTS = weight_vector("totality")

# Eight empty cells, Sun to move: only the corner h1 (0, 7) wins (by 2); the other five lose.
CORNER_WIN = "OOOOOO--OOOOOO-OOOXXXOOXOOXXXOX-OOXXOXX-OOOOXXXOXO-OOXXO--OOOOXO X"
# Seven empty cells, Sun to move: four placements win, by 4, 4, 12 and 2 discs; the corner a8
# (7, 0) wins by 12, paying 160 where the others pay 120 or 110.
BEST_PAYING = "OOOOOOOOOOOOXXOXOXXXXXXXOOXXXXXXOOOOXOXX--OXOXOX-O-OXOOO--XXXX-O X"


def final_lead(state) -> int:
    counts = RULES.counters(state)
    return counts["sun"] - counts["moon"]


def brute_force(state) -> int:
    """The Sun's final lead under perfect play by both sides (plain minimax on the public protocol)."""
    if RULES.is_terminal(state):
        return final_lead(state)
    values = [brute_force(RULES.apply(state, action)) for action in RULES.legal_actions(state)]
    return max(values) if RULES.to_move(state) == 0 else min(values)


def test_corner_position_only_the_corner_wins_by_brute_force():
    state = RULES.from_notation(CORNER_WIN)
    leads = {(a["row"], a["col"]): brute_force(RULES.apply(state, a)) for a in RULES.legal_actions(state)}
    assert leads[(0, 7)] == 2 and all(v < 0 for k, v in leads.items() if k != (0, 7)), leads


@pytest.mark.parametrize("endgame", [0, 12])
def test_alphabeta_finds_the_only_winning_move_a_corner(endgame):
    # endgame=0: the midgame search alone, deep enough to see every finish; 12: the solver.
    state = RULES.from_notation(CORNER_WIN)
    for seed in range(3):
        result = search(RULES, state, WEIGHTS, depth=10, seed=seed, endgame=endgame)
        assert result.action == {"type": "place", "row": 0, "col": 7}
        assert result.value == DECIDED + 2


def test_alphabeta_player_takes_the_best_paying_win_not_just_a_win():
    state = RULES.from_notation(BEST_PAYING)
    after = {(a["row"], a["col"]): RULES.apply(state, a) for a in RULES.legal_actions(state)}
    assert brute_force(after[(7, 0)]) == 12
    assert sorted(brute_force(s) for s in after.values()) == [-6, 2, 4, 4, 12]
    for spec in ("alphabeta:depth=8,endgame=0", "alphabeta"):
        player = players.load(spec, "totality")
        for seed in range(3):
            player.reset(seed)
            assert player.choose(RULES, state) == {"type": "place", "row": 7, "col": 0}, spec
    # What that is worth in the documented score: 100 + 5 x 12.
    assert RULES.result_of(38, 26) == ("win", 160.0)


def random_position(seed: int, empties: int):
    rng = random.Random(seed)
    state = RULES.initial_state()
    while not RULES.is_terminal(state) and RULES.counters(state)["empty"] > empties:
        state = RULES.apply(state, rng.choice(RULES.legal_actions(state)))
    return state


def test_endgame_solver_agrees_with_brute_force_for_either_side_to_move():
    checked = 0
    for seed in range(40):
        state = random_position(seed, 6)
        if RULES.is_terminal(state) or state.legal == 0:
            continue
        result = search(RULES, state, WEIGHTS, depth=1, endgame=6, seed=seed)
        best = brute_force(state)
        mover_lead = best if RULES.to_move(state) == 0 else -best
        expected = (DECIDED + mover_lead if mover_lead > 0 else -DECIDED + mover_lead if mover_lead < 0 else 0.0)
        assert result.value == expected, (seed, RULES.notation(state))
        assert brute_force(RULES.apply(state, result.action)) == best, seed
        assert result.depth == RULES.counters(state)["empty"]
        checked += 1
    assert checked >= 20


def test_search_is_deterministic_for_a_seed_and_node_budget():
    state = random_position(3, 40)
    first = search(RULES, state, WEIGHTS, depth=20, nodes=20_000, seed=5)
    again = search(RULES, state, WEIGHTS, depth=20, nodes=20_000, seed=5)
    assert first == again and 20_000 <= first.nodes <= 21_000
    deep = search(RULES, state, WEIGHTS, depth=5, seed=5)
    assert deep.depth == 5 and deep == search(RULES, state, WEIGHTS, depth=5, seed=5)


def test_seed_breaks_ties_between_equal_openings():
    # The four openings are symmetric: every one is worth the same, so the seed picks.
    chosen = {tuple(search(RULES, RULES.initial_state(), WEIGHTS, depth=3, seed=s).action.values())
              for s in range(12)}
    assert len(chosen) > 1


def test_deadline_search_returns_a_legal_move_in_time():
    import time
    state = random_position(4, 40)
    started = time.monotonic()
    result = search(RULES, state, WEIGHTS, deadline=started + 0.2, seed=0)
    assert result.action in RULES.legal_actions(state)
    assert time.monotonic() - started < 1.0 and result.depth >= 1


def test_forced_pass_and_finished_game():
    passing = RULES.from_notation("OXX-----" + "-" * 56 + " X")
    assert search(RULES, passing, WEIGHTS, depth=3).action == {"type": "pass"}
    over = RULES.from_notation("XX-----O" + "-" * 56 + " X")
    with pytest.raises(IllegalAction):
        search(RULES, over, WEIGHTS, depth=3)


def test_players_choose_only_legal_actions_and_replay_with_the_same_seed():
    for spec in ("alphabeta:depth=2", "gbot:easy", "gbot"):
        check_player(players.load(spec, "totality"), RULES, games=2, seed=7)
    check_player(players.load("gbot:wise"), EASY, games=1, seed=9)


def test_gbot_levels_load_through_the_registry_and_differ():
    assert set(GBOT) == {"wise", "easy"}
    assert GBOT["easy"]["depth"] < GBOT["wise"]["depth"]
    auto = players.load("gbot")
    assert auto.settings(EASY) == GBOT["easy"] and auto.settings(RULES) == GBOT["wise"]
    assert players.load("gbot:easy").settings(RULES) == GBOT["easy"]
    with pytest.raises(SpecError, match="valid levels"):
        players.load("gbot:default").settings(RULES)
    for level in GBOT.values():
        assert set(level["weights"]) <= set(FEATURES)


def test_alphabeta_endgame_parameter_round_trips_in_the_spec():
    player = players.load("alphabeta:depth=3,endgame=8,w.corners=40", "totality")
    assert players.load(player.spec) == player and "endgame=8" in player.spec
    with pytest.raises(SpecError):
        players.load("alphabeta:w.nonsense=1", "totality")


def test_wise_gbot_beats_easy_gbot_and_alphabeta_beats_random():
    from harness.match import MatchSpec, play_match
    wise = [play_match(MatchSpec("totality", "gbot:wise", "gbot:easy", seed, 4)) for seed in range(6)]
    assert sum(r.outcome == "win" for r in wise) >= 4
    strong = [play_match(MatchSpec("totality", "alphabeta:depth=3", "random", seed)) for seed in range(4)]
    assert all(r.outcome == "win" for r in strong)


def test_features_on_a_hand_built_position():
    # Sun owns corner a1 with an unbroken top-edge run a1..c1; the Moon sits on the X-square
    # of the empty h8 corner (g7) and on the C-square h7.
    rows = ["XXX-----", "--------", "---OX---", "---XO---", "--------", "--------", "------O-", "-------O"]
    rows[7] = "--------"
    rows[6] = "------OO"
    state = RULES.from_notation("".join(rows) + " X")
    values = dict(zip(feature_names("totality"), feature_values(np.uint64(state.sun), np.uint64(state.moon))))
    assert values["corners"] == 1
    assert values["x_squares"] == -1  # g7 is the Moon's, h8 empty
    assert values["c_squares"] == -1  # h7 likewise
    assert values["stability"] == 3  # a1, b1, c1
    assert values["edges"] == 2 - 1  # b1, c1 against h7
    assert values["parity"] == (1 if RULES.counters(state)["empty"] % 2 else -1)
    assert values["discs_late"] == 0  # few discs on the board: the lead does not count yet
    assert values["mobility"] == len(RULES.legal_actions(state)) - len(
        RULES.legal_actions(RULES.from_notation("".join(rows) + " O")))
    assert material(RULES, state, 0) == RULES.counters(state)["sun"] - RULES.counters(state)["moon"]
    assert material(RULES, state, 1) == -material(RULES, state, 0)
    for feature in FEATURES.values():
        assert feature.low <= feature.default <= feature.high and feature.doc


def test_rollout_plays_to_the_end_deterministically():
    state = RULES.initial_state()
    results = {rollout(RULES, state, seed) for seed in range(20)}
    assert all(result in ("win", "draw", "loss") and 0 <= score <= 420 for result, score in results)
    assert len(results) > 3 and rollout(RULES, state, 7) == rollout(RULES, state, 7)
    easy = rollout(EASY, state, 7)
    wise = rollout(RULES, state, 7)
    assert easy[0] == wise[0] and easy[1] == (wise[1] * 6 // 10)
    over = RULES.from_notation("XX-----O" + "-" * 56 + " X")
    assert rollout(RULES, over, 1) == ("win", 105.0)


def test_cli_play_shows_the_board_with_alphabeta_against_gbot(capsys):
    code = cli_main(["play", "totality:easy", "--player", "alphabeta:depth=4", "--opponent", "gbot",
                     "--seed", "3", "--show"])
    out = capsys.readouterr().out
    assert code == 0
    assert "  a b c d e f g h" in out and "over:" in out
    assert "totality:level=easy: alphabeta vs gbot, seed 3:" in out


def test_search_module_is_found_by_game_name():
    from players import search as searches
    assert searches.module("totality:easy") is search_module


def test_an_unfinished_solve_leaves_the_midgame_search_the_rest_of_the_node_budget():
    state = random_position(21, 20)
    result = search(RULES, state, WEIGHTS, depth=30, nodes=30_000, endgame=20, seed=1)
    assert result.action in RULES.legal_actions(state)
    assert 0 < result.depth < 20 and 30_000 <= result.nodes <= 31_000  # not a solve: a midgame depth
    assert result == search(RULES, state, WEIGHTS, depth=30, nodes=30_000, endgame=20, seed=1)


def test_weight_vector_order_is_the_compiled_feature_order():
    assert feature_names("totality") == [
        "mobility", "potential_mobility", "frontier", "corners", "x_squares", "c_squares", "stability",
        "edges", "parity", "discs_late", "positional", "discs"]
    assert len(FEATURES) == search_module.FEATURE_COUNT
    with pytest.raises(ValueError, match="12 floats"):
        search(RULES, RULES.initial_state(), WEIGHTS[:5], depth=2)


@pytest.mark.parametrize("bits, nodes", [(0, 20530), (search_module.PVS, 19059), (search_module.ASPIRATE, 20357),
                                         (search_module.ALL_TECHNIQUES, 19030)])
def test_techniques_keep_the_value_of_a_fixed_depth_and_their_node_counts_are_golden(bits, nodes):
    """None (the stand-ins' search) is exactly the search before the techniques: 20530 nodes then too."""
    state = random_position(3, 40)
    result = search(RULES, state, WEIGHTS, depth=6, seed=5, endgame=0, techniques=bits)
    assert (result.nodes, result.action, result.value) == (nodes, {"type": "place", "row": 1, "col": 4}, 34.0)


def test_the_solver_stays_exact_without_the_techniques_and_the_stand_ins_keep_the_plain_search():
    for seed in range(8):
        state = random_position(seed, 6)
        if RULES.is_terminal(state) or state.legal == 0:
            continue
        plain = search(RULES, state, WEIGHTS, depth=1, endgame=6, seed=seed, techniques=0)
        assert plain.value == search(RULES, state, WEIGHTS, depth=1, endgame=6, seed=seed).value
    assert {level["techniques"] for level in GBOT.values()} == {"none"}
    player = players.load("alphabeta:depth=3,techniques=pvs+aspiration", "totality")
    player.reset(1)
    assert player.choose(RULES, RULES.initial_state()) in RULES.legal_actions(RULES.initial_state())
    with pytest.raises(SpecError, match="valid: default, all, none, pvs, aspiration, keep_pv"):
        players.load("alphabeta:techniques=lmr", "totality").choose(RULES, RULES.initial_state())
