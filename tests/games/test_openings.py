"""Opening suites: every shipped opening is legal, open and distinct, and a seed picks one the same way every time."""

from __future__ import annotations

import statistics

import pytest

from harness.errors import InvalidInput, UnknownGame
from harness.games import SHIPPED, load as load_game
from harness.games.openings import Suite, load_suite, opening_state, position_key, suite_names

MINIMUM_SIZE = 1000


@pytest.fixture(scope="module", params=SHIPPED)
def suite(request) -> Suite:
    return load_suite(request.param)


def test_every_shipped_game_has_a_default_suite_named_after_it(suite):
    assert suite_names(suite.game)[0] == suite.name and suite.name.startswith(suite.game)
    assert suite.command.startswith(f"scripts/make_openings.py {suite.game} ")
    assert load_suite(suite.game, suite.name) is suite


def test_a_suite_holds_enough_openings_of_its_stated_length(suite):
    assert len(suite) >= MINIMUM_SIZE and len(suite.values) == len(suite)
    assert {len(opening) for opening in suite.openings} == {suite.plies}


def test_every_opening_applies_legally_from_the_start_and_leaves_the_game_open(suite):
    rules = load_game(suite.game)
    for opening in suite.openings:
        assert not rules.is_terminal(opening_state(rules, list(opening)))


def test_the_openings_reach_distinct_positions(suite):
    rules = load_game(suite.game)
    keys = {position_key(rules, opening_state(rules, list(opening))) for opening in suite.openings}
    assert len(keys) == len(suite)


def test_every_value_is_within_the_stated_margin_of_the_reference(suite):
    reference, margin = suite.balance["reference"], suite.balance["margin"]
    assert all(abs(value - reference) <= margin + 1e-9 for value in suite.values)
    assert suite.balance["candidates"] >= len(suite)


def test_the_order_is_shuffled_so_each_range_is_a_fair_sample(suite):
    # Kept by closeness to the reference, then shuffled: a sorted order would put the most even first.
    halves = suite.values[:len(suite) // 2], suite.values[len(suite) // 2:]
    assert abs(statistics.median(halves[0]) - statistics.median(halves[1])) <= suite.balance["margin"] / 2
    distances = [abs(v - suite.balance["reference"]) for v in suite.values]
    assert distances != sorted(distances)


def test_a_seed_picks_the_same_opening_every_time_and_wraps_around(suite):
    assert suite.opening(5) == suite.opening(5) == [dict(a) for a in suite.openings[5]]
    assert suite.opening(len(suite) + 5) == suite.opening(5)
    assert suite.index(-1) == len(suite) - 1
    assert suite.opening(5) != suite.opening(6)


def test_the_opening_handed_out_is_a_copy():
    suite = load_suite("totality")
    suite.opening(0)[0]["row"] = 99
    assert suite.opening(0) == [dict(a) for a in suite.openings[0]]


def test_every_configuration_of_a_game_shares_its_suites():
    assert load_suite("totality:easy") is load_suite("totality")
    assert load_suite("xiangqi:black") is load_suite("xiangqi")
    assert suite_names("xiangqi:seat=black") == suite_names("xiangqi")


def test_an_unknown_suite_is_bad_input_naming_the_valid_ones():
    with pytest.raises(InvalidInput, match=r"no opening suite 'nope'; valid suites: totality-"):
        load_suite("totality", "nope")


def test_an_unknown_game_is_bad_input():
    with pytest.raises(UnknownGame):
        load_suite("chess")


def test_a_game_without_suites_says_so(tmp_path, monkeypatch):
    """A registered game whose package has no openings.json (tic-tac-toe's kit in a package of its own)."""
    from harness import games
    package = tmp_path / "suiteless"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "kit.py").write_text("from tests.tictactoe.kit import KIT  # noqa: F401\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    games.register(games.GameInfo("suiteless", "suiteless.kit", "tic-tac-toe without a suite",
                                  {"seat": ("x", "o")}, "seat"))
    try:
        assert suite_names("suiteless") == ()
        with pytest.raises(InvalidInput, match="ships no opening suites"):
            load_suite("suiteless")
    finally:
        games.unregister("suiteless")


def test_the_fourth_game_ships_every_two_ply_opening(test_game):
    assert suite_names("tictactoe") == ("tictactoe-2ply",) and len(load_suite("tictactoe")) == 72
