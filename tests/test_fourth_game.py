"""The tests' own fourth game plugs in through the one surface: a tournament and a tiny study on it.

Tic-tac-toe (``tests/tictactoe``) is registered with ``harness.games.register``
(the ``test_game`` fixture) and nothing else: its matches play on a real local
Ray pool, whose workers register it from the driver, and a real Optuna study
tunes its evaluation weights in a real SQLite database. The contract suites
run over it beside the shipped games (``tests/test_contracts.py``).
"""

from __future__ import annotations

import pytest

from harness.cluster import Pool
from harness.db import open_database
from harness.games import names
from harness.tournament import plan, play
from harness.tuning import parse_study_file, study_trials, tune
from players import load as load_player

STUDY = """name = "tictactoe-tiny"
game = "tictactoe"
opponent = "random"
sampler = "random"
seed = 3

[player]
kind = "alphabeta"
depth = 1

[weights]
two_in_line = { choices = [10.0, -30.0] }
center = { low = 0.0, high = 10.0 }

[budget]
trials = 3
block = 2
blocks = 2
parallel = 2

[openings]
tuning = [0, 20]
selection = [20, 30]
confirmation = [40, 72]
"""


@pytest.fixture(scope="module")
def pool(ray_cluster, test_game):
    with Pool(workers=2) as shared:
        yield shared


def test_the_test_game_is_registered_only_while_a_test_asks_for_it(test_game):
    assert test_game == "tictactoe" and test_game in names()


def test_a_gauntlet_of_the_test_game_plays_on_ray_workers_and_is_recorded_once(pool, tmp_path):
    config = plan("tictactoe:o", ["random", "alphabeta:depth=3"], "gbot", games=4, seed_start=1)
    with open_database(f"sqlite:///{tmp_path / 'results.db'}") as db:
        run_id = db.start_run("tournament", config.game, config.to_dict())
        report = play(db, run_id, config, pool)
        assert report.status == "done" and report.played == report.recorded == report.planned == 8
        matches = db.matches(run_id=run_id)
        assert {m.game for m in matches} == {"tictactoe:seat=o"}
        assert {m.player for m in matches} == {"random", "alphabeta:depth=3"}
        assert all(m.outcome in ("win", "draw", "loss") and 0 <= m.score <= 140 for m in matches)


def test_a_tiny_study_tunes_the_test_games_weights_and_saves_the_tuned_player(pool, tmp_path):
    url = f"sqlite:///{tmp_path / 'study.db'}"
    summary = tune(parse_study_file(STUDY), db_url=url, pool=pool)
    assert summary.trials_complete + summary.trials_pruned == 3
    trials = study_trials("tictactoe-tiny", url)
    assert trials[0]["params"] == {"two_in_line": 10.0, "center": 2.0}  # the defaults come first
    outcome = summary.outcome
    assert outcome is not None and outcome.verdict in ("better", "no gain", "worse")
    if outcome.winner_spec is not None:  # a finalist ahead in the race was confirmed and saved
        with open_database(url) as db:
            tuned = db.resolve_spec("tuned:tictactoe-tiny")
        assert load_player(tuned, "tictactoe").spec == outcome.winner_spec


def test_the_web_replay_of_a_game_without_a_drawer_shows_its_text_board(test_game):
    from harness.web.boards import replay_frames
    frames = replay_frames("tictactoe", [{"type": "place", "cell": 4}, {"type": "place", "cell": 0}])
    assert [frame["by"] for frame in frames] == ["", "player", "opponent"]
    assert frames[-1]["svg"].startswith("<svg") and ">O..</text>" in frames[-1]["svg"]
    assert ">.X.</text>" in frames[-1]["svg"]


def test_a_wdl_study_confirms_with_wins_draws_and_losses_and_its_loss_rule(pool, tmp_path):
    url = f"sqlite:///{tmp_path / 'wdl.db'}"
    text = STUDY.replace('name = "tictactoe-tiny"', 'name = "tictactoe-wdl"').replace(
        'opponent = "random"', 'opponent = "random"\nobjective = "wdl"')
    config = parse_study_file(text)
    outcome = tune(config, db_url=url, pool=pool).outcome
    assert outcome is not None and outcome.objective == "wdl"
    if outcome.confirmation is None:
        assert outcome.verdict == "no gain"
        return
    c = outcome.confirmation
    assert sum(c.tuned_wdl) == sum(c.incumbent_wdl) == c.games // 2
    values = {"win": 1, "draw": 0, "loss": -1}
    with open_database(url) as db:
        runs = {label: db.run(f"tictactoe-wdl/confirmation/{label}") for label in ("incumbent",
                                                                                   f"trial-{outcome.winner}")}
        games = {label: {m.seed: m.outcome for m in db.matches(run_id=run.id)} for label, run in runs.items()}
    tuned, incumbent = games[f"trial-{outcome.winner}"], games["incumbent"]
    gain = sum(values[tuned[s]] - values[incumbent[s]] for s in tuned) / len(tuned)
    assert c.gain.mean == pytest.approx(gain)  # win 1, draw 0, loss -1, paired by opening
    extra = [(tuned[s] == "loss") - (incumbent[s] == "loss") for s in tuned]
    from harness.tuning.gain import paired_interval, verdict_of
    assert outcome.verdict == verdict_of(c.gain, [part.gain.mean for part in c.by_opponent],
                                         config.confirmation.tolerance, paired_interval(extra))
