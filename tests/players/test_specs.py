"""Player specs: the string and table forms, canonical round trips, and every way a spec is wrong."""

from __future__ import annotations

import json
import tomllib

import pytest

import players
from harness.errors import InvalidInput, SpecError, UnknownGame
from harness.games import names as game_names
from players.features import feature_names

ENGINE = "python scripts/example_engine.py"

ROUND_TRIPS = [
    "random",
    "greedy",
    "alphabeta",
    "alphabeta:depth=6",
    "alphabeta:nodes=20000",
    "alphabeta:depth=3,time=0.5",
    "alphabeta:w.zeta=1,w.alpha=-2.5",
    "mcts",
    "mcts:iterations=50",
    "mcts:c=0.7,rollout=eval,eval_depth=2,eval_scale=30",
    "mcts:time=0.25",
    "gbot",
    "gbot:level=easy",
    "gbot:wise",
    f"external:command={ENGINE}",
    f"external:command={ENGINE} --strategy first,timeout=2.5",
    'external:command="python -c \'print(1, 2)\'"',
    'external:command="say \\"hi\\""',
    {"kind": "alphabeta", "depth": 5, "weights": {"mobility": 2}},
    {"kind": "mcts", "iterations": 64, "rollout": "eval"},
    {"kind": "external", "command": "engine --a,b", "timeout": 3},
    {"kind": "external", "command": " padded "},
]


@pytest.mark.parametrize("spec", ROUND_TRIPS, ids=lambda spec: json.dumps(spec))
def test_every_spec_round_trips_through_its_canonical_form(spec):
    player = players.load(spec)
    again = players.load(player.spec)
    assert again == player
    assert again.spec == player.spec
    assert again.params == player.params and again.weights == player.weights
    assert type(again) is type(player)


def test_canonical_spec_sorts_parameters_and_weights_and_drops_defaults():
    player = players.load("alphabeta: w.zeta = 1.50 , time=2,depth=8 ,w.alpha=3.0")
    assert player.spec == "alphabeta:depth=8,time=2,w.alpha=3,w.zeta=1.5"
    assert players.load("mcts:iterations=1000").spec == "mcts"
    assert players.load("alphabeta:depth=4").spec == "alphabeta"


def test_a_node_or_time_budget_lifts_alphabetas_depth_cap_and_a_depth_given_keeps_it():
    """`alphabeta:time=2` once searched only four plies deep (the default depth still applied)."""
    from harness.games import load as load_game
    rules = load_game("totality")
    state = rules.initial_state()
    bounded = players.load("alphabeta:nodes=20000", "totality").search(rules, state)
    capped = players.load("alphabeta:depth=4,nodes=20000", "totality").search(rules, state)
    plain = players.load("alphabeta", "totality").search(rules, state)
    assert players.load("alphabeta:depth=4,nodes=20000").spec == "alphabeta:depth=4,nodes=20000"
    assert capped.depth == plain.depth == 4 < bounded.depth


@pytest.mark.parametrize("bare, full", [
    ("alphabeta:6", "alphabeta:depth=6"),
    ("mcts:200", "mcts:iterations=200"),
    ("gbot:easy", "gbot:level=easy"),
    (f"external:{ENGINE}", f"external:command={ENGINE}"),
])
def test_a_bare_value_sets_the_primary_parameter_of_its_kind(bare, full):
    assert players.load(bare) == players.load(full)
    assert players.load(bare).spec == full


def test_the_table_form_equals_the_string_form():
    assert players.load({"kind": "alphabeta", "depth": 5, "weights": {"mobility": 2.5}}) == \
        players.load("alphabeta:depth=5,w.mobility=2.5")
    assert players.load({"kind": "alphabeta", "w.mobility": 2.5}) == players.load("alphabeta:w.mobility=2.5")


def test_a_player_table_read_from_toml_loads():
    table = tomllib.loads('[player]\nkind = "alphabeta"\nnodes = 5000\n'
                          '[player.weights]\nmobility = 1.25\ncorners = 4\n')["player"]
    player = players.load(table)
    assert player.spec == "alphabeta:nodes=5000,w.corners=4,w.mobility=1.25"
    assert players.load(player.spec) == player


def test_loading_a_player_returns_it_unchanged():
    player = players.load("mcts:iterations=10")
    assert players.load(player) is player


def test_equal_specs_make_equal_hashable_players():
    assert {players.load("alphabeta:depth=4"), players.load("alphabeta"), players.load({"kind": "alphabeta"})} \
        == {players.load("alphabeta")}
    assert players.load("alphabeta:depth=3") != players.load("alphabeta:depth=4")
    assert players.load("random") != "random"


def test_parameters_take_their_declared_types():
    assert players.load("alphabeta:depth=7").params["depth"] == 7
    assert players.load({"kind": "alphabeta", "depth": 7.0}).params["depth"] == 7
    assert players.load("mcts:c=0.5").params["c"] == 0.5
    assert players.load("external:command=engine,timeout=3").params["timeout"] == 3.0


def test_a_quoted_value_keeps_its_commas_and_quotes():
    player = players.load('external:command="engine --weights 1,2,3 --name \\"x\\"",timeout=4')
    assert player.params["command"] == 'engine --weights 1,2,3 --name "x"'
    assert player.argv == ["engine", "--weights", "1,2,3", "--name", "x"]
    assert player.params["timeout"] == 4.0


def test_an_unknown_kind_names_every_valid_kind():
    with pytest.raises(SpecError) as error:
        players.load("alphabeat:depth=3")
    assert "alphabeat" in str(error.value)
    for kind in players.kinds():
        assert kind in str(error.value)


@pytest.mark.parametrize("spec", ["", ":depth=3", {"depth": 3}])
def test_a_spec_without_a_kind_is_an_error(spec):
    with pytest.raises(SpecError, match="valid kinds: alphabeta"):
        players.load(spec)


@pytest.mark.parametrize("spec, valid", [
    ("alphabeta:dpeth=3", "behind, depth, endgame, extend, nodes, techniques, tiebreak, time"),
    ("mcts:depth=3", "c, eval_depth, eval_scale, iterations, rollout, time"),
    ("random:depth=3", "none"),
    ("gbot:nodes=3", "depth, eval, level"),
    ("external:command=x,seed=3", "command, depth, nodes, time, timeout"),
    ({"kind": "greedy", "depth": 2}, "none"),
])
def test_an_unknown_parameter_names_the_valid_parameters(spec, valid):
    with pytest.raises(SpecError, match=f"valid parameters: {valid}$"):
        players.load(spec)


@pytest.mark.parametrize("spec, message", [
    ("alphabeta:depth=deep", "not a valid int"),
    ("alphabeta:depth=2.5", "not a valid int"),
    ("alphabeta:depth=0", "at least 1"),
    ("alphabeta:nodes=-5", "at least 1"),
    ("alphabeta:time=-1", "at least 0"),
    ("mcts:iterations=0", "at least 1"),
    ("mcts:c=nan", "at least 0"),
    ("mcts:rollout=smart", "valid values: random, eval"),
    ("gbot:hard", "valid values: auto, default, easy, wise"),
    ("external:command=x,timeout=0", "at least 0.001"),
    ({"kind": "alphabeta", "depth": True}, "not a valid int"),
    ({"kind": "alphabeta", "depth": [4]}, "not a valid int"),
])
def test_a_malformed_parameter_value_says_what_is_valid(spec, message):
    with pytest.raises(SpecError, match=message):
        players.load(spec)


@pytest.mark.parametrize("spec, message", [
    ("alphabeta:w.mobility=lots", "not a number"),
    ("alphabeta:w.mobility=inf", "not a finite number"),
    ("alphabeta:w.mobility=nan", "not a finite number"),
    ({"kind": "alphabeta", "weights": {"mobility": None}}, "not a number"),
    ({"kind": "alphabeta", "weights": [1, 2]}, "weights must be a table"),
])
def test_a_weight_must_be_a_finite_number(spec, message):
    with pytest.raises(SpecError, match=message):
        players.load(spec)


@pytest.mark.parametrize("kind", ["random", "greedy", "gbot"])
def test_kinds_without_an_evaluation_take_no_weights(kind):
    with pytest.raises(SpecError, match="takes no weights"):
        players.load(f"{kind}:w.mobility=1")


@pytest.mark.parametrize("spec, message", [
    ("alphabeta:depth=3,depth=4", "depth given twice"),
    ("alphabeta:w.a=1,w.a=2", "w.a given twice"),
    ({"kind": "alphabeta", "w.a": 1, "weights": {"a": 2}}, "weight a given twice"),
    ("alphabeta:=3", "is not key=value"),
    ("alphabeta:depth=", "is not key=value"),
    ("random:fast", "is not key=value"),
    ('external:command="engine', "never closed"),
    ('external:command="engine"x', "not a valid quoted value"),
    (42, "a string or a table, not int"),
])
def test_malformed_spec_text_is_an_error(spec, message):
    with pytest.raises(SpecError, match=message):
        players.load(spec)


def test_external_needs_a_command_that_shlex_can_split():
    with pytest.raises(SpecError, match="needs command="):
        players.load("external")
    with pytest.raises(SpecError, match="cannot be split"):
        players.load("external:command=engine 'unclosed")


def test_spec_errors_are_bad_input_and_value_errors():
    with pytest.raises(InvalidInput):
        players.load("nope")
    with pytest.raises(ValueError):
        players.load("nope")


@pytest.mark.parametrize("game", game_names())
def test_every_game_feature_is_a_valid_weight_and_round_trips(game):
    names = feature_names(game)
    assert names, f"{game} has no evaluation features"
    spec = "alphabeta:" + ",".join(f"w.{name}={index + 0.5}" for index, name in enumerate(names))
    player = players.load(spec, game=game)
    assert players.load(player.spec, game=game) == player
    assert players.load(spec.replace("alphabeta", "mcts", 1), game=game).weights == player.weights


@pytest.mark.parametrize("game", game_names())
def test_an_unknown_weight_names_the_games_valid_features(game):
    with pytest.raises(SpecError) as error:
        players.load("alphabeta:w.no_such_feature=1", game=f"{game}")
    message = str(error.value)
    assert "no_such_feature" in message and game in message
    assert message.endswith("valid features: " + ", ".join(feature_names(game)))


def test_weights_are_checked_against_the_game_of_a_game_spec():
    with pytest.raises(SpecError, match="totality has no evaluation feature"):
        players.load("mcts:w.no_such_feature=1", game="totality:easy")


def test_an_unknown_game_is_reported_when_checking_weights():
    with pytest.raises(UnknownGame):
        players.load("alphabeta:w.mobility=1", game="chess")
