"""play_match: a pure function of its spec, with stable keys and the two failure paths."""

from __future__ import annotations

import json

import pytest

from harness.errors import InvalidInput
from harness.games import load as load_game, names as game_names
from harness.games.openings import load_suite
from harness.match import MatchResult, MatchSpec, match_key, play_match, recorded_spec
from harness.replay import player_choices

FAILING = "external:command=no-such-engine-anywhere"


@pytest.mark.parametrize("game", game_names())
def test_the_same_spec_plays_the_same_match(game):
    spec = MatchSpec(game, "greedy", "random", seed=9, opening_plies=2)
    first, again = play_match(spec), play_match(spec)
    ignore = {"duration_s", "player_s", "opponent_s"}
    assert {k: v for k, v in first.to_dict().items() if k not in ignore} == \
        {k: v for k, v in again.to_dict().items() if k not in ignore}


def test_a_searching_player_replays_its_match_exactly():
    spec = MatchSpec("totality:easy", "mcts:iterations=20", "alphabeta:depth=1", seed=3)
    assert play_match(spec).actions == play_match(spec).actions


def test_different_seeds_play_different_matches():
    games = {json.dumps(play_match(MatchSpec("totality", "greedy", "random", seed)).actions) for seed in range(3)}
    assert len(games) == 3


@pytest.mark.parametrize("game", game_names())
def test_a_result_replays_to_its_outcome_score_and_counters(game):
    result = play_match(MatchSpec(game, "greedy", "random", seed=4))
    rules = load_game(game)
    state = rules.initial_state()
    for action in result.actions:
        state = rules.apply(state, action)
    assert rules.is_terminal(state)
    assert (result.outcome, result.reason) == rules.outcome(state)
    assert result.score == rules.score(state) and result.counters == rules.counters(state)
    assert result.plies == len(result.actions) and result.source == "local" and result.error is None
    assert result.game == rules.spec and result.player == "greedy" and result.opponent == "random"
    assert json.loads(json.dumps(result.to_dict())) == result.to_dict()
    assert MatchResult(**result.to_dict()) == result


def test_the_match_key_is_the_same_for_every_spelling_of_a_spec():
    key = match_key(MatchSpec("totality:easy", "alphabeta:depth=4", "gbot:level=auto", 3))
    assert key == match_key(MatchSpec("totality:level=easy", "alphabeta", "gbot", 3))
    assert key == MatchSpec("totality:easy", "alphabeta: depth = 4", "gbot", 3).key


def test_the_match_key_is_stable_across_processes_and_versions():
    # A stored result is found again by its key: the hash of the canonical spec must never drift.
    spec = MatchSpec("ravenward", "alphabeta:depth=3,w.mobility=2", "gbot", seed=17, opening_plies=2)
    assert match_key(spec) == "2753ac37891ffa97657b7d39"


@pytest.mark.parametrize("change", [
    {"game": "totality:easy"}, {"player": "alphabeta:depth=5"}, {"opponent": "random"},
    {"seed": 4}, {"opening_plies": 1},
])
def test_every_part_of_the_spec_changes_the_key(change):
    base = dict(game="totality", player="alphabeta", opponent="gbot", seed=3, opening_plies=0)
    assert match_key(MatchSpec(**base)) != match_key(MatchSpec(**(base | change)))


def test_a_failing_player_loses_with_reason_player_error():
    result = play_match(MatchSpec("ravenward", FAILING, "random", seed=1))
    assert (result.outcome, result.reason, result.score) == ("loss", "player_error", 0.0)
    assert "could not be started" in result.error and result.plies == 0


def test_a_failing_opponent_loses_for_its_side_with_reason_opponent_error():
    result = play_match(MatchSpec("totality", "random", FAILING, seed=1))
    assert (result.outcome, result.reason, result.score) == ("win", "opponent_error", 0.0)
    assert "opponent" in result.error and result.plies == 1


def test_a_failing_opponent_that_moves_first_is_caught_too():
    result = play_match(MatchSpec("xiangqi:black", "random", FAILING, seed=1))
    assert (result.outcome, result.reason) == ("win", "opponent_error") and result.plies == 0


def test_a_spec_without_a_suite_keeps_the_key_it_had_before_suites():
    # Keys computed before MatchSpec had ``openings``: recorded databases must find their matches again.
    assert MatchSpec("totality:easy", "alphabeta:depth=2", "gbot", 7).key == "1567d2391bb4d87ab5e6f943"
    assert MatchSpec("xiangqi:black", "greedy", "random", 3, 2).key == "d248c477be0d0656bb23183c"


def test_a_suite_changes_the_key():
    plain = MatchSpec("totality:easy", "alphabeta:depth=2", "gbot", 7)
    suited = MatchSpec("totality:easy", "alphabeta:depth=2", "gbot", 7, openings=load_suite("totality").name)
    assert suited.key != plain.key and len(suited.key) == len(plain.key)


def test_a_suite_and_random_plies_together_are_refused():
    with pytest.raises(ValueError, match="not both"):
        MatchSpec("totality", "greedy", "random", 1, opening_plies=2, openings=load_suite("totality").name)


def test_an_unknown_suite_is_bad_input_before_the_match():
    with pytest.raises(InvalidInput, match="valid suites"):
        MatchSpec("totality", "greedy", "random", 1, openings="nope").key


@pytest.mark.parametrize("game", ["totality:easy", "ravenward", "xiangqi", "xiangqi:black"])
def test_a_match_from_a_suite_starts_with_the_seeds_opening_and_records_its_length(game):
    suite = load_suite(game)
    spec = MatchSpec(game, "greedy", "random", seed=len(suite) + 3, openings=suite.name)
    result = play_match(spec)
    assert result.actions[:suite.plies] == suite.opening(3)
    assert result.opening_plies == suite.plies and result.extra == {"openings": suite.name}
    assert result.key == spec.key == recorded_spec(result.to_dict()).key
    # The replay skips the opening: the seat's moves inside it were the suite's, not the player's choice.
    inside = len(list(player_choices(result.game, result.actions[:suite.plies])))
    every = len(list(player_choices(result.game, result.actions)))
    assert inside > 0 and len(list(player_choices(result.game, result.actions, result.opening_plies))) == every - inside


def test_both_seats_of_a_pair_play_the_same_opening():
    suite = load_suite("xiangqi")
    red, black = (play_match(MatchSpec(seat, "greedy", "random", seed=11, openings=suite.name))
                  for seat in ("xiangqi", "xiangqi:black"))
    assert red.actions[:suite.plies] == black.actions[:suite.plies] == suite.opening(11)


def test_a_recorded_match_without_a_suite_gives_back_its_spec():
    spec = MatchSpec("ravenward", "greedy", "random", seed=2, opening_plies=2)
    assert recorded_spec(play_match(spec).to_dict()) == spec
