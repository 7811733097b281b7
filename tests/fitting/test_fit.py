"""harness fit: labels on hand-built positions, a fit that recovers known weights, held-out loss, resume, bad input.

Real code throughout: the rules and searches of Totality, a SQLite database in
a temporary directory, a real local Ray cluster for the labelling pool.
"""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

from harness.cli import main
from harness.db import open_database
from harness.errors import InvalidInput
from harness.fitting.fit import RIDGE, fit_weights, logistic_loss
from harness.fitting.labels import Labeller, label_positions, make_labeller, search_value
from harness.fitting.positions import Position, extract_positions, position_key, replay_position
from harness.games import kit, load
from harness.games.totality import search as totality_search
from harness.results import MatchResult
from players import load as load_player
from players.features import weight_vector


def random_game(seed: int, plies: int | None = None) -> list[dict]:
    """The actions of a seeded random Totality game (to its end, or ``plies`` long)."""
    rules, rng = load("totality"), random.Random(seed)
    state, actions = rules.initial_state(), []
    while not rules.is_terminal(state) and (plies is None or len(actions) < plies):
        action = rng.choice(rules.legal_actions(state))
        actions.append(action)
        state = rules.apply(state, action)
    return actions


def match(actions: list[dict], outcome: str, seed: int = 0, opening_plies: int = 0) -> MatchResult:
    return MatchResult(game="totality", player="greedy", opponent="random", seed=seed, outcome=outcome,
                       reason="test", score=0.0, counters={}, actions=actions, plies=len(actions),
                       duration_s=0.0, player_s=0.0, opponent_s=0.0, key=f"k{seed}", opening_plies=opening_plies)


def exact_result(rules, state) -> float:
    """The side to move's result by plain minimax over the rules (1, 0.5, 0): the solver's independent check."""
    if rules.is_terminal(state):
        mover = rules.to_move(state)
        sun, moon = state.sun.bit_count(), state.moon.bit_count()
        lead = (sun - moon) if mover == rules.user_side else (moon - sun)
        return 1.0 if lead > 0 else 0.0 if lead < 0 else 0.5
    best = 0.0
    for action in rules.legal_actions(state):
        after = rules.apply(state, action)
        value = exact_result(rules, after)
        same_mover = not rules.is_terminal(after) and rules.to_move(after) == rules.to_move(state)
        best = max(best, value if same_mover else 1.0 - value)
    return best


def test_result_labels_are_each_positions_mean_result_from_its_side_to_move():
    actions = random_game(1, plies=6)
    # the same six plies (cut short) in two games: the user (Sun) won one and drew the other
    positions = extract_positions("totality", [match(actions, "win", 0), match(actions, "draw", 1)])
    rules = load("totality")
    assert len(positions) == 7 and all(p.games == 2 for p in positions)  # the start and six plies on
    for position in positions:
        _, state = replay_position("totality", position)
        sun_to_move = rules.to_move(state) == rules.user_side
        assert position.result == pytest.approx(0.75 if sun_to_move else 0.25)
        assert position.key == position_key("totality", state)


def test_opening_plies_and_the_final_position_are_skipped_and_a_sample_is_seeded():
    actions = random_game(2)
    every = extract_positions("totality", [match(actions, "loss", opening_plies=4)])
    assert len(every) == len(actions) - 4  # from ply 4 up to the last open position
    assert all(len(p.actions) >= 4 for p in every)
    assert extract_positions("totality", [match(actions, "loss")], limit=10, seed=3) == \
        extract_positions("totality", [match(actions, "loss")], limit=10, seed=3)


def test_exact_labels_agree_with_plain_minimax_and_are_missing_where_the_solver_does_not_reach():
    from harness.fitting.labels import label_batch
    rules = load("totality")
    batch = []
    for seed in range(6):
        actions = random_game(100 + seed)
        cut = max(0, len(actions) - 5)  # about five empty cells left: minimax over the rules is quick
        batch.append((f"end{seed}", tuple(actions[:cut])))
    batch.append(("start", ()))
    labelled = dict((key, value) for key, value, _ in label_batch(("totality", Labeller("exact"), batch)))
    assert labelled.pop("start") is None
    for key, actions in batch[:-1]:
        _, state = replay_position("totality", Position(key, actions, 0.0, 0))
        if not rules.is_terminal(state):
            assert labelled[key] == exact_result(rules, state), key


def test_search_labels_are_the_search_players_value_through_the_games_logistic_scale():
    from harness.fitting.labels import label_batch
    actions = tuple(random_game(7, plies=20))
    rules, state = replay_position("totality", Position("p", actions, 0.0, 0))
    player = load_player("alphabeta:depth=2", "totality")
    player.reset(0)
    value = player.search(rules, state).value
    [(key, label, raw)] = label_batch(("totality", make_labeller("search", "totality", "alphabeta:depth=2"),
                                       [("p", actions)]))
    assert raw == value and label == pytest.approx(1 / (1 + math.exp(-value / kit("totality").eval_scale)))
    assert search_value(1e9, 50.0) == pytest.approx(1.0) and search_value(-1e9, 50.0) == pytest.approx(0.0)


def synthetic_positions(count: int) -> list[tuple]:
    rules, seen, states = load("totality"), set(), []
    for seed in range(200):
        state = rules.initial_state()
        for action in random_game(seed):
            state = rules.apply(state, action)
            if not rules.is_terminal(state) and state.legal and state not in seen:
                seen.add(state)
                states.append((rules, state))
        if len(states) >= count:
            return states[:count]
    return states


TRUTH = {"mobility": 18.0, "corners": 40.0, "stability": 4.0, "frontier": -6.0}


def known_weight_labels(states: list[tuple], scale: float) -> list[float]:
    """Each position's label as ``TRUTH``'s evaluation predicts it on ``scale``: labels a fit can recover exactly."""
    return [1 / (1 + math.exp(-totality_search.static_value(r, s, weight_vector("totality", TRUTH)) / scale))
            for r, s in states]


def test_a_fit_on_positions_labelled_by_known_weights_recovers_them_and_lowers_the_held_out_loss():
    states = synthetic_positions(400)
    scale = 60.0
    labels = known_weight_labels(states, scale)
    fixed = [name for name in kit("totality").features if name not in TRUTH]
    result = fit_weights("totality", states, labels, holdout=0.25, seed=1, fixed=fixed, scale=scale, ridge=0.0)
    for name, value in TRUTH.items():
        assert result.weights[name] == pytest.approx(value, abs=0.05 * (abs(value) + 1)), name
    assert result.heldout_positions == 100 and result.train_positions == 300 and result.ridge == 0.0
    assert result.loss_after < result.loss_before
    assert all(result.weights[name] == result.defaults[name] for name in fixed)


def test_the_ridge_pulls_the_fit_toward_the_defaults_in_proportion_to_its_strength():
    states = synthetic_positions(200)
    fixed = [name for name in kit("totality").features if name not in TRUTH]
    features = kit("totality").features

    def distance(states: list[tuple], ridge: float) -> float:
        """How far the fit moved the weights from the defaults, each in units of its range."""
        result = fit_weights("totality", states, known_weight_labels(states, 60.0), seed=1, fixed=fixed, scale=60.0,
                             ridge=ridge)
        assert result.ridge == ridge
        return sum(abs(result.weights[name] - f.default) / (f.high - f.low) for name, f in features.items())

    free, default, strong = distance(states, 0.0), distance(states, RIDGE), distance(states, 1e7)
    assert strong < 1e-3 < default < free   # a strong ridge keeps the defaults; the default one moves less
    more = synthetic_positions(800)   # ... and it fades as positions grow: it is worth RIDGE positions
    assert default / free < distance(more, RIDGE) / distance(more, 0.0) < 1.0
    with pytest.raises(InvalidInput, match="ridge"):
        fit_weights("totality", states, known_weight_labels(states, 60.0), ridge=-1.0)


def test_the_scale_is_fitted_when_the_labels_come_from_the_default_weights():
    states = synthetic_positions(300)
    defaults = weight_vector("totality")
    labels = [1 / (1 + math.exp(-totality_search.static_value(r, s, defaults) / 80.0)) for r, s in states]
    result = fit_weights("totality", states, labels, seed=2, fixed=list(kit("totality").features))
    assert result.scale == pytest.approx(80.0, rel=0.02)
    values = np.array([totality_search.static_value(r, s, defaults) for r, s in states])
    assert logistic_loss(values, np.array(labels), 80.0) <= logistic_loss(values, np.array(labels), 40.0)


@pytest.fixture
def database(tmp_path):
    url = f"sqlite:///{tmp_path / 'fit.db'}"
    with open_database(url) as db:
        yield url, db


def test_labelling_on_the_ray_pool_stores_every_label_and_a_resumed_run_searches_only_the_rest(ray_cluster,
                                                                                               database):
    from harness.cluster import Pool
    url, db = database
    positions = extract_positions("totality", [match(random_game(seed), "win", seed) for seed in range(2)],
                                  limit=40, seed=0)
    labeller = make_labeller("search", "totality", "alphabeta:depth=2")
    calls: list[tuple[int, int]] = []
    with Pool(workers=2) as pool:
        first = label_positions("totality", positions[:15], labeller, database=db, pool=pool)  # then a stop
        assert len(db.labels("totality", labeller.name, [p.key for p in positions])) == 15
        again = label_positions("totality", positions, labeller, database=db, pool=pool,
                                progress=lambda done, total: calls.append((done, total)))
    assert calls[0] == (15, 40) and calls[-1] == (40, 40)  # the stored 15 were not searched again
    assert {key: again[key] for key in first} == first
    with Pool(workers=2) as pool:  # labelled from scratch: the same values
        fresh = label_positions("totality", positions, Labeller("search", labeller.player),
                                database=open_database(url.replace("fit.db", "fresh.db")), pool=pool)
    assert fresh == again


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_harness_fit_prints_held_out_loss_and_saves_a_fitted_player_usable_as_a_spec(database, capsys):
    url, db = database
    run_id = db.start_run("tournament", "totality", {})
    db.record_many(run_id, [match(random_game(seed), ("win", "loss", "draw")[seed % 3], seed) for seed in range(8)])
    code, out, err = run(["fit", "totality", "--db", url, "--positions", "200", "--name", "mine", "--json"], capsys)
    assert code == 0, err
    report = json.loads(out)
    assert report["format"] == "harness.fit/1" and report["positions"] == 200 and report["player"] == "fitted:mine"
    assert report["heldout_positions"] == 40 and report["loss_before"] > 0 and report["loss_after"] > 0
    assert report["ridge"] == RIDGE   # the JSON names the ridge used
    assert db.resolve_spec("fitted:mine") == report["spec"]
    assert load_player(db.resolve_spec("fitted:mine"), "totality").weights == report["weights"]
    code, out, err = run(["players", "--db", url, "--json"], capsys)
    assert [p["name"] for p in json.loads(out)["fitted"]] == ["fitted:mine"]


@pytest.mark.parametrize("argv, words", [
    (["fit", "nogame"], "unknown game"),
    (["fit", "totality", "--label", "search"], "--label-player"),
    (["fit", "totality", "--label", "exact", "--label-player", "strong"], "--label-player"),
    (["fit", "ravenward", "--label", "exact"], "no exact solver"),
    (["fit", "totality", "--fixed", "bogus"], "not a feature"),
    (["fit", "totality", "--positions", "3"], "--positions"),
    (["fit", "totality", "--name", "bad name"], "--name"),
    (["fit", "totality", "--from", "x.jsonl", "--run", "1"], "--from"),
    (["fit", "totality", "--run", "99"], "no run"),
    (["fit", "totality", "--holdout", "1.5"], "--holdout"),
    (["fit", "totality", "--ridge", "-1"], "--ridge"),
])
def test_bad_input_is_one_line_with_exit_code_2(argv, words, database, capsys):
    url, _ = database
    code, out, err = run(argv + ["--db", url], capsys)
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1 and out == ""


UCI_LABELLER = "uci:command=fairy-stockfish,nodes=400,option.Threads=1"


def lopsided_xiangqi_positions() -> list[tuple[tuple, float]]:
    """Positions of seeded random Chinese chess games where the evaluation sees a lead of 6 pawns or more for
    one side, with its value for the side to move."""
    from harness.games.xiangqi import search as xiangqi_search
    rules, found = load("xiangqi"), []
    for seed in range(6):
        rng, state, actions = random.Random(seed), rules.initial_state(), []
        while not rules.is_terminal(state) and len(actions) < 40:
            value = xiangqi_search.static_value(rules, state, weight_vector("xiangqi"))
            if abs(value) >= 6 and len(found) < 12:
                found.append((tuple(actions), value))
            action = rng.choice(rules.legal_actions(state))
            actions.append(action)
            state = rules.apply(state, action)
    return found


def test_uci_labels_are_the_engines_centipawns_from_the_side_to_move_and_depend_on_nothing_read_before(
        fairy_stockfish):
    from harness.fitting.labels import UCI_CENTIPAWNS, label_batch
    labeller = make_labeller("search", "xiangqi", UCI_LABELLER)
    assert labeller.name == f"search:{UCI_LABELLER}"
    lopsided = lopsided_xiangqi_positions()
    assert len(lopsided) >= 6
    batch = [(str(i), actions) for i, (actions, _value) in enumerate(lopsided)]
    labelled = label_batch(("xiangqi", labeller, batch))
    scale = kit("xiangqi").eval_scale * UCI_CENTIPAWNS
    for (key, label, raw), (_actions, value) in zip(labelled, lopsided):
        assert label == pytest.approx(search_value(raw, scale))
        assert (label > 0.5) == (value > 0), key  # the engine sees the same side ahead as the evaluation
    assert sorted(label_batch(("xiangqi", labeller, batch[::-1]))) == sorted(labelled)  # no order dependence


def test_harness_fit_labels_chinese_chess_with_fairy_stockfish_and_stores_the_labels(database, capsys,
                                                                                      fairy_stockfish):
    url, db = database
    run_id = db.start_run("tournament", "xiangqi", {})
    games = [random_xiangqi_game(seed) for seed in range(3)]
    db.record_many(run_id, [MatchResult(game="xiangqi", player="random", opponent="random", seed=seed,
                                        outcome="draw", reason="test", score=0.0, counters={}, actions=actions,
                                        plies=len(actions), duration_s=0.0, player_s=0.0, opponent_s=0.0,
                                        key=f"x{seed}") for seed, actions in enumerate(games)])
    argv = ["fit", "xiangqi", "--db", url, "--label", "search", "--label-player", UCI_LABELLER,
            "--positions", "80", "--workers", "1", "--json"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    report = json.loads(out)
    assert report["label"] == f"search:{UCI_LABELLER}" and report["labelled"] == 80
    assert report["loss_after"] <= report["loss_before"] + 0.05
    code, out, err = run(argv, capsys)  # a refit: every label read back (no engine started), the same fit
    again = json.loads(out)
    assert code == 0 and again["weights"] == report["weights"] and again["label_seconds"] < report["label_seconds"]


def random_xiangqi_game(seed: int) -> list[dict]:
    rules, rng = load("xiangqi"), random.Random(seed)
    state, actions = rules.initial_state(), []
    while not rules.is_terminal(state) and len(actions) < 60:
        action = rng.choice(rules.legal_actions(state))
        actions.append(action)
        state = rules.apply(state, action)
    return actions


def test_the_exact_labels_sample_is_drawn_among_the_positions_the_solver_reaches(database, capsys):
    url, db = database
    run_id = db.start_run("tournament", "totality", {})
    db.record_many(run_id, [match(random_game(seed), "win", seed) for seed in range(4)])
    code, out, err = run(["fit", "totality", "--db", url, "--label", "exact", "--positions", "30", "--workers", "1",
                          "--json"], capsys)
    assert code == 0, err
    report = json.loads(out)
    assert report["positions"] == 30 and report["labelled"] == 30  # every sampled position has its label
    reached = extract_positions("totality", [match(random_game(seed), "win", seed) for seed in range(4)],
                                keep=totality_search.reaches)
    assert reached and all(totality_search.reaches(*replay_position("totality", p)) for p in reached)
