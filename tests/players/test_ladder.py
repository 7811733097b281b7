"""The ladder of G-Bot stand-ins: parameterised stand-ins, distinct rungs, old specs unchanged."""

from __future__ import annotations

import pytest

import players
from harness.errors import SpecError
from harness.games import load as load_game
from players import search as searches
from players.features import weight_vector
from harness.games.ravenward.features import LADDER_DEFAULTS as RAVENWARD_FROZEN
from harness.games.totality.features import LADDER_DEFAULTS as TOTALITY_FROZEN
from harness.games.xiangqi.features import TEXTBOOK
from players.features import defaults, feature_names
from players.ladder import DEPTHS, ladder, ladder_default_source, references


def test_a_stand_in_takes_a_depth_and_an_evaluation_and_keeps_its_level_otherwise():
    rules = load_game("totality:easy")
    assert players.load("gbot").settings(rules) == searches.module("totality").GBOT["easy"]
    settings = players.load("gbot:depth=6,eval=material").settings(rules)
    assert settings["depth"] == 6 and settings["endgame"] == 0
    assert settings["weights"] == searches.module("totality").GBOT_EVALS["material"]
    ravenward = load_game("ravenward")
    pinned = players.load("gbot").settings(ravenward)   # the evaluation of its day: later features off
    later = {"king_corner_paths", "corner_path_guards", "unguarded_corner_paths", "king_shields"}
    assert pinned["depth"] == 5 and {pinned["weights"][name] for name in later} == {0.0}
    assert pinned["weights"] == RAVENWARD_FROZEN | {name: 0.0 for name in later}
    assert players.load("gbot:eval=default,depth=3").spec == "gbot:depth=3,eval=default"


@pytest.mark.parametrize("spec, message", [("gbot:eval=nosuch", "valid evals: material, default, blockade"),
                                           ("gbot:level=easy", "valid levels: auto, default"),
                                           ("gbot:depth=0", "at least 1")])
def test_a_stand_in_the_game_lacks_is_refused_when_loaded(spec, message):
    with pytest.raises(SpecError, match=message):
        players.load(spec, game="ravenward")


@pytest.mark.parametrize("game", ["ravenward", "totality", "totality:easy", "xiangqi"])
def test_every_rung_loads_and_no_two_stand_ins_play_alike(game):
    rules = load_game(game)
    rungs = ladder(game)
    assert len(rungs) == len(set(rungs)) >= len(DEPTHS) * 2
    settings = []
    for rung in rungs:
        player = players.load(rung, game=game)
        found = dict(player.settings(rules))
        settings.append((tuple(weight_vector(rules.name, found.pop("weights"))), sorted(found.items())))
    assert len(settings) == len(set(map(repr, settings)))
    levels = searches.module(rules.name).GBOT
    assert {players.load(rung).params["level"] for rung in rungs[:len(levels)]} <= {"auto", *levels}


def test_fairy_stockfish_is_a_reference_beside_the_chinese_chess_ladder_not_a_rung():
    assert all(rung.startswith("gbot") for rung in ladder("xiangqi") + ladder("xiangqi:black"))
    assert references("xiangqi") == references("xiangqi:black") == [
        f"uci:command=fairy-stockfish,nodes={n},option.Threads=1" for n in (1000, 10000, 100000)]
    assert references("ravenward") == references("totality:easy") == []


def test_the_material_stand_in_plays_differently_from_the_default_one():
    rules = load_game("ravenward")
    state = rules.initial_state()
    for _ in range(6):
        state = rules.apply(state, players.load("gbot:depth=2").choose(rules, state))
    search = searches.module("ravenward").search
    material = search(rules, state, weight_vector("ravenward", searches.module("ravenward").GBOT_EVALS["material"]),
                      depth=3, nodes=None, deadline=None, seed=0)
    default = search(rules, state, weight_vector("ravenward"), depth=3, nodes=None, deadline=None, seed=0)
    assert material.value != default.value


FROZEN = {"ravenward": RAVENWARD_FROZEN, "totality": TOTALITY_FROZEN, "xiangqi": TEXTBOOK}


@pytest.mark.parametrize("game", ["ravenward", "totality"])
def test_the_frozen_defaults_name_every_feature_and_hold_the_defaults_the_ladder_was_made_with(game):
    frozen = FROZEN[game]
    assert list(frozen) == feature_names(game)   # a feature added later must be listed, at 0
    assert searches.module(game).GBOT_EVALS["default"] == frozen
    assert "LADDER_DEFAULTS" in ladder_default_source(game) and "2026-12-08" in ladder_default_source(game)


@pytest.mark.parametrize("game", ["ravenward", "totality", "totality:easy", "xiangqi"])
def test_the_default_evaluation_rungs_play_the_frozen_table_not_the_live_defaults(game):
    rules = load_game(game)
    frozen = weight_vector(rules.name, FROZEN[rules.name])
    default_rungs = [rung for rung in ladder(game) if "eval=default" in rung]
    assert len(default_rungs) >= len(DEPTHS) - 1
    for rung in default_rungs:
        weights, _ = players.load(rung, game=game).search_arguments(rules)
        assert list(weights) == list(frozen)


@pytest.mark.parametrize("game", ["ravenward", "totality", "totality:easy", "xiangqi", "xiangqi:seat=black"])
def test_a_change_to_the_default_weights_moves_no_rung_of_the_ladder(game, monkeypatch):
    rules = load_game(game)

    def played(rung: str) -> tuple:
        weights, arguments = players.load(rung, game=game).search_arguments(rules)
        return tuple(weights), sorted(arguments.items())

    rungs = ladder(game)
    before = {rung: played(rung) for rung in rungs}
    # Every default moved (by its own size and one more): what adopting new weights into strong does.
    moved = {name: 2.0 * value + 1.0 for name, value in defaults(rules.name).items()}
    monkeypatch.setattr("players.features.defaults", lambda _game: dict(moved))
    assert list(weight_vector(rules.name)) == list(moved.values())   # the live defaults did move
    assert ladder(game) == rungs
    assert {rung: played(rung) for rung in rungs} == before
