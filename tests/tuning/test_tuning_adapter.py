"""Every call of the Optuna adapter against a real Optuna RDB storage on SQLite: an upgrade breaks here.

No Ray: the adapter only talks to the storage. The lease and the heartbeat
thread that renews it are tested here too, with a "batch" (the main thread
busy) longer than the grace period.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from harness.errors import DatabaseError, InvalidInput, StudyFileError
from harness.tuning import adapter, parse_study_file
from harness.tuning.heartbeat import Heartbeat
from tests.tuning_studies import tiny_study
from tests.waiting import wait_until


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'harness.db'}"


@pytest.fixture
def config():
    return parse_study_file(tiny_study("unit", trials=4))


def test_open_study_creates_it_with_the_incumbent_enqueued_and_the_file_stored(url, config) -> None:
    study = adapter.open_study(config, url)
    assert study.name == "unit"
    assert study.user_attrs["study_file"] == config.text and study.user_attrs["game"] == config.game
    assert study.counts() == {"complete": 0, "pruned": 0, "fail": 0, "running": 0, "waiting": 1}
    assert adapter.study_names(url) == ["unit"]


def test_opening_again_resumes_and_a_changed_search_space_is_refused(url, config) -> None:
    adapter.open_study(config, url)
    assert adapter.open_study(config, url).counts()["waiting"] == 1  # not enqueued twice
    changed = parse_study_file(tiny_study("unit", trials=4).replace("block = 6", "block = 4"))
    with pytest.raises(StudyFileError, match="different game, player, search space"):
        adapter.open_study(changed, url)


def test_ask_takes_the_incumbent_first_then_suggests_within_the_choices(url, config) -> None:
    study = adapter.open_study(config, url)
    first = study.ask(config, 0)
    assert first.number == 0
    assert {w.name: first.suggest(w) for w in config.weights} == config.incumbent_weights()
    second = study.ask(config, 1)
    for weight in config.weights:
        assert second.suggest(weight) in weight.choices
    assert study.counts()["running"] == 2 and sorted(study.numbers("running")) == [0, 1]
    with pytest.raises(adapter.TrialTaken, match="asked for trial 5, Optuna gave trial 2"):
        study.ask(config, 5)


def test_a_trials_proposal_depends_on_the_seed_and_its_number_only(url, config, tmp_path) -> None:
    """Re-seeded per trial: two storages with the same history propose the same trial 1, whatever was
    asked before in the process."""
    other = f"sqlite:///{tmp_path / 'other.db'}"
    proposals = []
    for where in (url, other):
        study = adapter.open_study(config, where)
        incumbent = study.ask(config, 0)
        for weight in config.weights:
            incumbent.suggest(weight)
        study.tell_complete(incumbent, 0.0)
        if where == other:  # another sampler used in between in this process changes nothing
            adapter._sampler(config, 99).sample_independent
        trial = study.ask(config, 1)
        proposals.append({w.name: trial.suggest(w) for w in config.weights})
    assert proposals[0] == proposals[1]


def test_running_trials_are_reattached_with_their_parameters_and_told_in_order(url, config) -> None:
    study = adapter.open_study(config, url)
    asked = [study.ask(config, n) for n in range(3)]
    params = [{w.name: t.suggest(w) for w in config.weights} for t in asked]
    again = adapter.open_study(config, url)  # a new driver, after the first stopped
    running = again.running()
    assert [t.number for t in running] == [0, 1, 2]
    assert [{w.name: t.suggest(w) for w in config.weights} for t in running] == params
    running[0].report(-1.0, 0)
    again.tell_pruned(running[0])
    again.tell_complete(running[1], 2.5)
    assert again.told() == {0: ("pruned", -1.0), 1: ("complete", 2.5)}
    assert again.params_of(2) == params[2]


def test_tell_complete_makes_the_best_trial_with_its_attributes(url, config) -> None:
    study = adapter.open_study(config, url)
    assert study.best() is None
    trial = study.ask(config, 0)
    {w.name: trial.suggest(w) for w in config.weights}
    trial.set_attr("spec", "alphabeta:depth=1")
    study.tell_complete(trial, 12.5)
    best = study.best()
    assert (best.number, best.value, best.spec) == (0, 12.5, "alphabeta:depth=1")
    assert best.params == config.incumbent_weights()
    with pytest.raises(adapter.TrialTaken):  # told twice: someone finished it already
        study.tell_complete(trial, 1.0)


def test_a_trial_reported_again_after_a_resume_keeps_its_first_values(url, config) -> None:
    study = adapter.open_study(config, url)
    trial = study.ask(config, 0)
    trial.report(1.5, 0)
    trial.report(9.0, 0)  # a resumed driver reports its looks again
    study.tell_pruned(trial)
    assert study.trials()[0]["intermediate"] == {0: 1.5}


def test_load_study_reads_a_stored_study_and_names_the_known_ones_when_missing(url, config) -> None:
    adapter.open_study(config, url)
    assert adapter.load_study("unit", url).counts()["waiting"] == 1
    with pytest.raises(InvalidInput, match="no study 'nosuch'.*known studies: unit"):
        adapter.load_study("nosuch", url)


def test_study_figures_are_optunas_plots(url, config) -> None:
    study = adapter.open_study(config, url)
    for number, value in enumerate((1.0, 2.0)):
        trial = study.ask(config, number)
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


def test_the_lease_keeps_a_second_driver_out_until_it_goes_stale(url, config) -> None:
    study = adapter.open_study(config, url)
    other_driver = adapter.open_study(config, url)
    study.take_lease("first", grace_s=2)
    start = time.monotonic()
    with Heartbeat(lambda: study.renew_lease("first"), interval_s=0.5) as heartbeat:
        # the main thread busy with one long batch: the thread renews the lease past its grace
        wait_until(lambda: heartbeat.beats >= 3 and time.monotonic() - start > 2.5, "three renewals past the grace")
        with pytest.raises(InvalidInput, match="being run by another driver \\(first"):
            other_driver.take_lease("second", grace_s=2)
        assert heartbeat.beats >= 3 and heartbeat.last_error is None
    def taken() -> bool:  # no renewal any more: once the lease is stale the next driver takes the study
        try:
            other_driver.take_lease("second", grace_s=2)
        except InvalidInput:
            return False
        return True

    wait_until(taken, "the unrenewed lease goes stale", interval_s=0.2)
    assert study.user_attrs["lease"]["driver"] == "second"
    other_driver.release_lease("second")
    study.take_lease("first", grace_s=2)  # released: no wait


def test_mean_intervals_of_bounded_values_stay_inside_the_bounds():
    from harness.ratings import bounded_mean_interval
    from harness.tuning.objectives import value_bounds
    assert value_bounds("totality", "win_rate") == (0.0, 1.0)
    assert value_bounds("xiangqi", "wdl") == (-1.0, 1.0)
    low, high = value_bounds("totality", "mean_score")
    _, near_low, near_high = bounded_mean_interval([1.0] * 9 + [0.0], (0.0, 1.0))
    assert 0.0 <= near_low <= near_high <= 1.0
    _, floor_low, floor_high = bounded_mean_interval([low] * 8 + [low + 10.0, low + 20.0], (low, high))
    assert low <= floor_low and floor_high <= high


def test_wdl_counts_a_win_one_a_draw_nothing_and_a_loss_minus_one(tmp_path):
    """Stored Chinese chess games (wins, draws and losses of one player), from the ladder's backup."""
    from pathlib import Path

    from harness.db import open_database
    from harness.db.backup import restore
    from harness.tuning.objectives import game_value
    url = f"sqlite:///{tmp_path / 'xiangqi.db'}"
    restore(Path(__file__).parents[2] / "docs" / "ladder" / "xiangqi.db.gz", url)
    with open_database(url, create=False) as db:
        results = db.matches(run_id=db.run_id("xiangqi-200k-default"))
    assert {r.outcome for r in results} == {"win", "draw", "loss"}
    values = {r.outcome: game_value(r, "wdl") for r in results}
    assert values == {"loss": -1.0, "draw": 0.0, "win": 1.0}
