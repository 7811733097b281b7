"""Alpha-beta's ``behind``: a longer search when the side to move is settled material behind.

The trigger reads the position alone, so a game in which it never holds is
played move for move as without it; these tests pin the trigger on
hand-built positions and check the extended search is exactly the search at
the larger budget.
"""

from __future__ import annotations

import pytest

import players
from harness.cli import main as cli_main
from harness.errors import SpecError
from harness.games import load
from harness.games.xiangqi.search import material_deficit
from harness.live.seat import clock_limits
from players.base import Limits

RULES = load("xiangqi")
# Red has taken black's right horse (h10); black to move, three plies since that capture.
HORSE_DOWN = "rnbakab1r/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 3 3"
# The same material, the capture made by the last move: black may be about to take back.
JUST_TAKEN = "rnbakab1r/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 3"
# Red to move and a horse up.
HORSE_UP = "rnbakab1r/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 3 3"


def test_the_deficit_is_the_side_to_moves_settled_material_shortfall():
    assert material_deficit(RULES, RULES.from_fen(HORSE_DOWN)) == 4.0
    assert material_deficit(RULES, RULES.from_fen(JUST_TAKEN)) == 0.0  # an exchange may be half played
    assert material_deficit(RULES, RULES.from_fen(HORSE_UP)) == 0.0  # ahead is not behind
    assert material_deficit(RULES, RULES.initial_state()) == 0.0


@pytest.mark.parametrize(("threshold", "factor"), [(4, 4), (3.5, 2), (4.5, 1)])
def test_the_extension_holds_from_the_threshold(threshold, factor):
    player = players.load(f"alphabeta:nodes=1000,behind={threshold},extend={max(factor, 2)}")
    assert player.extension(RULES, RULES.from_fen(HORSE_DOWN)) == factor
    assert player.extension(RULES, RULES.from_fen(JUST_TAKEN)) == 1
    assert players.load("alphabeta:nodes=1000").extension(RULES, RULES.from_fen(HORSE_DOWN)) == 1


def test_behind_the_search_is_the_search_at_extend_times_the_nodes_and_otherwise_unchanged():
    behind, state = players.load("alphabeta:depth=60,nodes=6000,behind=4"), RULES.from_fen(HORSE_DOWN)
    plain, larger = players.load("alphabeta:depth=60,nodes=6000"), players.load("alphabeta:depth=60,nodes=24000")
    for player in (behind, plain, larger):
        player.reset(11)
    extended = behind.search(RULES, state)
    assert extended == larger.search(RULES, state) != plain.search(RULES, state)
    assert extended.nodes > 6000
    level = RULES.from_fen(JUST_TAKEN)
    for player in (behind, plain):
        player.reset(11)
    assert behind.search(RULES, level) == plain.search(RULES, level)


def test_a_callers_time_is_never_extended_the_specs_own_is():
    timed, state = players.load("alphabeta:time=0.5,behind=4"), RULES.from_fen(HORSE_DOWN)
    assert timed.budget(RULES, state).time == 2.0
    assert timed.budget(RULES, state, Limits(time=0.5)).time == 0.5  # a clock's share belongs to the clock
    assert timed.budget(RULES, RULES.from_fen(JUST_TAKEN)).time == 0.5
    nodes = players.load("alphabeta:nodes=1000,behind=4,extend=3")
    assert nodes.budget(RULES, state).nodes == 3000
    assert nodes.budget(RULES, state, Limits(nodes=500)).nodes == 1500


def test_under_a_clock_a_move_behind_gets_its_longer_own_time_as_far_as_the_clocks_share():
    timed, behind, level = players.load("strong:time=2"), RULES.from_fen(HORSE_DOWN), RULES.from_fen(JUST_TAKEN)
    assert timed.budget(RULES, behind).time == 8.0 and timed.budget(RULES, level).time == 2.0
    assert clock_limits(timed, RULES, behind, share=20.0).time == 8.0
    assert clock_limits(timed, RULES, behind, share=5.0).time == 5.0  # the clock caps the longer search
    assert clock_limits(timed, RULES, level, share=20.0).time == 2.0
    assert clock_limits(timed, RULES, None, share=20.0).time == 2.0  # the position unknown: the spec's own time
    for untimed in ("strong", "greedy"):  # no time of its own: the clock's share
        assert clock_limits(players.load(untimed), RULES, behind, share=5.0).time == 5.0


@pytest.mark.parametrize("game", ["ravenward", "totality"])
def test_a_game_without_the_measure_is_refused_before_any_match(game, capsys):
    player = players.load("alphabeta:behind=4")
    with pytest.raises(SpecError, match=f"{game} has no settled material measure.*games with one: xiangqi"):
        players.check_weights(player, game)
    code = cli_main(["play", game, "--player", "alphabeta:depth=1,behind=4", "--opponent", "random"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "behind" in err
