"""The strong player of each game: the alpha-beta spec it stands for, node and time forms."""

from __future__ import annotations

import pytest

import players
from harness.cli import main
from harness.errors import SpecError
from harness.games import load as load_game
from players.base import Limits
from players.strong import strong_settings, strong_spec


@pytest.mark.parametrize("game, extra", [("ravenward", ""), ("totality:easy", ""), ("xiangqi:black", "behind=4,")])
def test_strong_stands_for_uncapped_alphabeta_with_the_games_node_budget_or_a_time(game, extra):
    settings = strong_settings(game)
    assert strong_spec(game) == f"alphabeta:{extra}depth={settings['depth']},nodes={settings['nodes']}"
    assert strong_spec(game, live=True) == f"alphabeta:{extra}depth={settings['depth']},time=2"
    assert strong_spec(game, nodes=500).endswith("nodes=500")
    assert players.load("strong:nodes=500").spec == "strong:nodes=500"


def test_strong_plays_its_alphabeta_exactly_and_a_callers_time_switches_to_the_time_form():
    rules = load_game("ravenward")
    state = rules.initial_state()
    strong, plain = players.load("strong:nodes=2000"), players.load(strong_spec("ravenward", nodes=2000))
    for player in (strong, plain):
        player.reset(4)
    assert strong.choose(rules, state) == plain.choose(rules, state)
    timed = strong.choose(rules, state, Limits(time=0.05))
    assert timed in rules.legal_actions(state)


def test_strong_refuses_both_forms_at_once():
    with pytest.raises(SpecError, match="time or nodes"):
        players.load("strong:time=1,nodes=5")


def test_harness_play_takes_strong_as_a_player(capsys):
    assert main(["play", "ravenward", "--player", "strong:nodes=1500", "--opponent", "gbot:depth=1",
                 "--seed", "3"]) == 0
    assert "ravenward: strong:nodes=1500 vs gbot:depth=1" in capsys.readouterr().out
