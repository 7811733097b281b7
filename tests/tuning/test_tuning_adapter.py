"""Every call of the Optuna adapter against a real Optuna RDB storage on SQLite: an upgrade breaks here.

No Ray: the adapter only talks to the storage. The heartbeat thread is tested
here too, with a "batch" (the main thread busy) longer than the grace period.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from harness.errors import DatabaseError, InvalidInput, StudyFileError
from harness.tuning import adapter, parse_study_file
from harness.tuning.heartbeat import Heartbeat
from tests.tuning_studies import tiny_study


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'harness.db'}"


@pytest.fixture
def config():
    return parse_study_file(tiny_study("unit", trials=4))


def test_open_study_creates_it_with_the_baseline_enqueued_and_the_file_stored(url, config) -> None:
    study = adapter.open_study(config, url)
    assert study.name == "unit"
    assert study.user_attrs["study_file"] == config.text and study.user_attrs["game"] == config.game
    assert study.counts() == {"complete": 0, "pruned": 0, "fail": 0, "running": 0, "waiting": 1}
    assert adapter.study_names(url) == ["unit"]


def test_opening_again_resumes_and_a_changed_search_space_is_refused(url, config) -> None:
    adapter.open_study(config, url)
    assert adapter.open_study(config, url).counts()["waiting"] == 1  # not enqueued twice
    changed = parse_study_file(tiny_study("unit", trials=4).replace("games = 8", "games = 6")
                               .replace("rungs = [4, 8]", "rungs = [3, 6]"))
    with pytest.raises(StudyFileError, match="different game, player, search space"):
        adapter.open_study(changed, url)


def test_ask_takes_the_baseline_first_then_suggests_within_the_choices(url, config) -> None:
    study = adapter.open_study(config, url)
    first = study.ask()
    assert first.number == 0
    assert {w.name: first.suggest(w) for w in config.weights} == config.default_weights()
    second = study.ask()
    for weight in config.weights:
        assert second.suggest(weight) in weight.choices
    assert study.counts()["running"] == 2 and sorted(study.numbers("running")) == [0, 1]


def test_tell_complete_makes_the_best_trial_with_its_attributes(url, config) -> None:
    study = adapter.open_study(config, url)
    assert study.best() is None
    trial = study.ask()
    {w.name: trial.suggest(w) for w in config.weights}
    trial.set_attr("spec", "alphabeta:depth=1")
    study.tell_complete(trial, 12.5)
    best = study.best()
    assert (best.number, best.value, best.spec) == (0, 12.5, "alphabeta:depth=1")
    assert best.params == config.default_weights()
    with pytest.raises(adapter.TrialTaken):  # told twice: someone finished it already
        study.tell_complete(trial, 1.0)


def test_report_and_should_prune_follow_the_wilcoxon_pruner(url, config) -> None:
    study = adapter.open_study(config, url)
    best = study.ask()
    for weight in config.weights:
        best.suggest(weight)
    for step in range(8):
        best.report(100.0 + step, step)
    study.tell_complete(best, 103.5)
    worse = study.ask()
    for weight in config.weights:
        worse.suggest(weight)
    verdicts = []
    for step in range(4):
        worse.report(float(step), step)
        verdicts.append(worse.should_prune())
    assert verdicts[:3] == [False, False, False]  # fewer than the 4 startup steps (the first rung)
    assert verdicts[3] is True
    study.tell_pruned(worse)
    assert study.counts()["pruned"] == 1
    assert study.trials()[1]["intermediate"] == {0: 0.0, 1: 1.0, 2: 2.0, 3: 3.0}


def test_a_failed_trial_is_enqueued_again_with_its_history(url, config) -> None:
    study = adapter.open_study(config, url)
    trial = study.ask()
    params = {w.name: trial.suggest(w) for w in config.weights}
    study.tell_failed_and_retry(trial)
    retry = study.ask()
    assert {w.name: retry.suggest(w) for w in config.weights} == params
    assert study.retry_history(retry) == [0]
    assert [t["retry_of"] for t in study.trials()] == [None, 0]
    assert study.numbers("fail") == [0]


def test_load_study_reads_a_stored_study_and_names_the_known_ones_when_missing(url, config) -> None:
    adapter.open_study(config, url)
    assert adapter.load_study("unit", url).counts()["waiting"] == 1
    with pytest.raises(InvalidInput, match="no study 'nosuch'.*known studies: unit"):
        adapter.load_study("nosuch", url)


def test_study_figures_are_optunas_plots(url, config) -> None:
    study = adapter.open_study(config, url)
    for value in (1.0, 2.0):
        trial = study.ask()
        for weight in config.weights:
            trial.suggest(weight)
        trial.report(value, 0)
        study.tell_complete(trial, value)
    titles = [title for title, _ in adapter.study_figures("unit", url)]
    assert titles[0] == "Optimisation history" and "Intermediate values" in titles


def test_a_read_only_storage_is_a_database_error_naming_it(url, config, tmp_path: Path) -> None:
    adapter.open_study(config, url)
    read_only = f"sqlite:///file:{tmp_path / 'harness.db'}?mode=ro&uri=true"
    study = adapter.load_study("unit", read_only)
    with pytest.raises(DatabaseError, match="database sqlite.*readonly.*read-only"):
        study.set_attr("note", "x")


def test_a_storage_whose_file_was_moved_away_says_so_as_the_results_database_does(url, config, tmp_path) -> None:
    study = adapter.open_study(config, url)
    (tmp_path / "harness.db").rename(tmp_path / "elsewhere.db")
    with pytest.raises(DatabaseError, match=r"^database sqlite:.*harness\.db: the file was moved or deleted while in use"):
        study.set_attr("note", "x")


def test_the_heartbeat_thread_keeps_a_trial_alive_through_a_batch_longer_than_the_grace_period(
        url, config) -> None:
    study = adapter.open_study(config, url, grace_period=2)
    other_driver = adapter.open_study(config, url, grace_period=2)
    trial = study.ask()
    for weight in config.weights:
        trial.suggest(weight)
    with Heartbeat(study.beat, interval_s=0.5) as heartbeat:
        heartbeat.add(trial.storage_id)
        time.sleep(4.0)  # the main thread busy with one long batch: no result, no beat from it
        other_driver.fail_stale()
        assert other_driver.counts()["running"] == 1, "a live trial was failed as stale"
        assert heartbeat.beats >= 3 and heartbeat.last_error is None
    time.sleep(3.0)  # no beat any more: now it is stale, and the other driver retries it
    other_driver.fail_stale()
    assert other_driver.numbers("fail") == [trial.number]
    assert other_driver.counts()["waiting"] == 1


def test_a_trial_whose_driver_died_before_its_first_heartbeat_is_failed_and_retried(url, config) -> None:
    """Optuna's stale check skips a running trial with no heartbeat: the adapter's does not, after the grace."""
    study = adapter.open_study(config, url, grace_period=1)
    study._study.ask()  # Optuna's ask, as a driver killed before its first beat left it: no heartbeat
    live = study.ask()  # beating, but its driver stopped beating it: Optuna's own check fails it too
    study.fail_stale()
    assert study.counts()["running"] == 2, "failed before the grace period had passed"
    time.sleep(2.5)
    study.fail_stale()
    assert study.numbers("fail") == [0, live.number] and study.counts()["waiting"] == 2
    study.fail_stale()  # failed once: nothing more to do
    assert study.numbers("fail") == [0, live.number] and study.counts()["waiting"] == 2


def test_validation_means_of_bounded_values_stay_inside_the_bounds():
    from harness.tuning.objectives import value_bounds
    from harness.tuning.validation import _interval
    assert value_bounds("totality", "win_rate") == (0.0, 1.0)
    low, high = value_bounds("totality", "mean_score")
    near_top = _interval([1.0] * 9 + [0.0], (0.0, 1.0))
    assert 0.0 <= near_top.low <= near_top.mean <= near_top.high <= 1.0
    near_floor = _interval([low] * 8 + [low + 10.0, low + 20.0], (low, high))
    assert low <= near_floor.low and near_floor.high <= high


def test_rank1_wins_is_the_rank1_rate_with_wins_as_the_tie_break():
    """Stored Chinese chess games (wins, draws and losses of one player): a loss is 0, a draw 1, a win 1.1,
    so the mean is the rank-1 rate plus a tenth of the win rate, inside its bounds."""
    from pathlib import Path

    from harness.results import MatchResult, read_results_file
    from harness.tuning.objectives import WIN_BONUS, game_value, objective_value, value_bounds
    rows = read_results_file(Path(__file__).parents[2] / "docs" / "ladder" / "xiangqi-200k-default.jsonl")[0]
    results = [MatchResult(**row) for row in rows]
    assert {r.outcome for r in results} == {"win", "draw", "loss"}
    values = [game_value(r, "rank1_wins") for r in results]
    assert {r.outcome: v for r, v in zip(results, values)} == {"loss": 0.0, "draw": 1.0, "win": 1.0 + WIN_BONUS}
    rank1 = objective_value([game_value(r, "rank1_rate") for r in results], "rank1_rate")
    wins = objective_value([game_value(r, "win_rate") for r in results], "win_rate")
    assert objective_value(values, "rank1_wins") == pytest.approx(rank1 + WIN_BONUS * wins)
    low, high = value_bounds("xiangqi", "rank1_wins")
    assert low <= min(values) and max(values) <= high == 1.0 + WIN_BONUS
