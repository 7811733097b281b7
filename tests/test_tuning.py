"""A tiny study end to end on a real local Ray cluster and a real SQLite database.

One study is run once per module and examined by several tests (trials
recorded, common seeds, baseline first, pruning, validation, the saved
player); other tests resume it, recover the trials of a driver that died, and
write its report.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from harness.cli import main
from harness.cluster import Pool, ray_session
from harness.db import open_database
from harness.report import write_report
from harness.tuning import Driver, TuneSummary, open_study, parse_study_file, study_trials, tune, validate
from harness.tuning_view import validation_table
from players import load as load_player
from tests.tuning_studies import GAME, HARMED, OPPONENT, tiny_study


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    # four logical CPUs on any machine: two for the shared pool, one each for
    # the second pools of the tests with a dead or a second driver
    with ray_session(num_cpus=4):
        yield


@pytest.fixture(scope="module")
def pool(cluster: None) -> Iterator[Pool]:
    with Pool(workers=2) as shared:
        yield shared


@pytest.fixture(scope="module")
def studied(pool: Pool, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, TuneSummary]:
    url = f"sqlite:///{tmp_path_factory.mktemp('study') / 'harness.db'}"
    summary = tune(parse_study_file(tiny_study("tiny")), db_url=url, pool=pool)
    return url, summary


def test_every_trial_is_recorded_as_a_run_on_the_same_tuning_seeds(studied: tuple[str, TuneSummary]) -> None:
    url, summary = studied
    assert summary.trials_complete + summary.trials_pruned == 6
    trials = {t["number"]: t for t in study_trials("tiny", url)}
    with open_database(url) as db:
        for number, trial in trials.items():
            run = db.run(f"tiny/trial-{number}")
            assert (run.kind, run.study, run.trial, run.status) == ("study", "tiny", number, "done")
            seeds = sorted(m.seed for m in db.matches(run_id=run.id))
            if trial["state"] == "complete":
                assert seeds == list(range(8)) and trial["games"] == 8  # the same first 8 tuning seeds
            else:  # pruned: told after fewer games; games already on a worker still finish and are kept
                assert set(seeds) <= set(range(8)) and trial["games"] < 8


def test_the_first_trial_is_the_baseline_of_default_weights(studied: tuple[str, TuneSummary]) -> None:
    from players.features import features
    url, _ = studied
    first = study_trials("tiny", url)[0]
    assert first["number"] == 0
    assert first["params"] == {w: features(GAME)[w].default for w in HARMED}


def test_pruning_stopped_some_trials_early(pool: Pool, tmp_path: Path) -> None:
    # One trial at a time, so the baseline is complete before any other trial reports: with three in
    # flight, a trial could report all its games before the baseline was done, and then whether any
    # trial was pruned depended on timing (it once failed that way on the 2-core CI machine).
    url = f"sqlite:///{tmp_path / 'harness.db'}"
    summary = tune(parse_study_file(tiny_study("tiny-one-by-one").replace("parallel = 3\n", "parallel = 1\n")),
                   db_url=url, pool=pool)
    assert summary.trials_pruned >= 1 and summary.max_trials_in_flight == 1
    pruned = [t for t in study_trials("tiny-one-by-one", url) if t["state"] == "pruned"]
    assert pruned and all(t["games"] < 8 for t in pruned)


def test_validation_pairs_the_best_and_the_defaults_and_saves_the_tuned_player(
        studied: tuple[str, TuneSummary]) -> None:
    url, summary = studied
    validation = summary.validation
    assert validation is not None and validation.games == 16
    assert validation.best_trial == summary.best_trial
    assert validation.verdict in ("better", "worse", "not distinguishable")
    assert validation.defaults.low <= validation.defaults.mean <= validation.defaults.high
    with open_database(url) as db:
        assert db.resolve_spec("tuned:tiny") == validation.tuned_spec
        assert load_player(db.resolve_spec("tuned:tiny"), GAME).spec == validation.tuned_spec
        labels = ["defaults"] + ([f"trial-{validation.best_trial}"]
                                 if validation.tuned_spec != validation.defaults_spec else [])
        for label in labels:  # when the baseline is the best it is played once
            run = db.run(f"tiny/validation/{label}")
            assert sorted(m.seed for m in db.matches(run_id=run.id)) == list(range(500, 516))


def test_validating_again_by_study_name_reuses_the_recorded_games(studied: tuple[str, TuneSummary],
                                                                   pool: Pool) -> None:
    url, summary = studied
    started = pool.stats.matches
    again = validate("tiny", db_url=url, pool=pool)
    assert pool.stats.matches == started
    assert again.difference == summary.validation.difference


def test_a_validation_at_another_budget_plays_runs_of_its_own(studied: tuple[str, TuneSummary], pool: Pool) -> None:
    url, summary = studied
    deeper = parse_study_file(tiny_study("tiny") + "\n[validation]\nplayer = { depth = 2 }\n")
    started = pool.stats.matches
    at_depth_2 = validate(deeper, db_url=url, pool=pool)
    for label in ("defaults_spec", "tuned_spec"):  # the trials' weights, at depth 2
        assert getattr(at_depth_2, label) == getattr(summary.validation, label).replace("depth=1", "depth=2")
    assert at_depth_2.settings == {"depth": 2} and at_depth_2.best_trial == summary.best_trial
    console = Console(record=True, width=200)
    console.print(validation_table(at_depth_2))
    assert "(both players at depth=2, not the trials' settings)" in console.export_text()
    played = 16 * (1 + (at_depth_2.tuned_spec != at_depth_2.defaults_spec))
    assert pool.stats.matches - started == played
    with open_database(url) as db:
        assert db.resolve_spec("tuned:tiny") == at_depth_2.tuned_spec  # the player that was validated
        run = db.run("tiny/validation/defaults@depth=2")
        assert {m.player for m in db.matches(run_id=run.id)} == {at_depth_2.defaults_spec}
        first = db.run("tiny/validation/defaults")
        assert {m.player for m in db.matches(run_id=first.id)} == {summary.validation.defaults_spec}
    again = validate(deeper, db_url=url, pool=pool)  # recorded: nothing is played
    assert pool.stats.matches - started == played and again.difference == at_depth_2.difference
    # the study's own validation is untouched, and saves its player back
    assert validate("tiny", db_url=url, pool=pool).difference == summary.validation.difference


def test_a_study_against_two_opponents_plays_them_by_turns_and_validates_against_each(
        pool: Pool, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'harness.db'}"
    text = tiny_study("pair", trials=2).replace(f'opponent = "{OPPONENT}"', f'opponent = ["{OPPONENT}", "random"]')
    summary = tune(parse_study_file(text), db_url=url, pool=pool)
    with open_database(url) as db:
        games = [m for run in db.runs(kind="study") for m in db.matches(run_id=run.id)]
    assert {(m.seed % 2, m.opponent) for m in games} == {(0, OPPONENT), (1, "random")}
    validation = summary.validation
    assert validation.opponent == f"{OPPONENT} + random"
    assert [(part.opponent, part.games) for part in validation.by_opponent] == [(OPPONENT, 8), ("random", 8)]
    halves = [part.defaults.mean for part in validation.by_opponent]
    assert validation.defaults.mean == pytest.approx(sum(halves) / 2)


def test_a_study_over_two_levels_plays_them_by_turns_and_validates_in_each(pool: Pool, tmp_path: Path) -> None:
    """A game's levels (or a two-seat game's seats) by turns: each seed's game recorded, the validation
    paired per game as well as in all, and the tuned player saved for the first game."""
    url = f"sqlite:///{tmp_path / 'harness.db'}"
    text = tiny_study("levels", trials=2).replace(f'game = "{GAME}"', 'game = ["totality:wise", "totality:easy"]')
    summary = tune(parse_study_file(text), db_url=url, pool=pool)
    with open_database(url) as db:
        games = [m for run in db.runs(kind="study") for m in db.matches(run_id=run.id)]
        assert db.resolve_spec("tuned:levels") == summary.validation.tuned_spec
    assert {(m.seed % 2, m.game) for m in games} == {(0, "totality"), (1, "totality:level=easy")}
    validation = summary.validation
    assert validation.game == "totality + totality:level=easy" and validation.by_opponent == ()
    assert [(part.game, part.games) for part in validation.by_game] == [("totality", 8), ("totality:level=easy", 8)]
    halves = [part.defaults.mean for part in validation.by_game]
    assert validation.defaults.mean == pytest.approx(sum(halves) / 2)
    assert halves[0] != halves[1]  # the easy level scores x0.6: the two games were played, not one twice
    console = Console(record=True, width=200)
    console.print(validation_table(validation))
    shown = console.export_text()
    assert "in totality (8 games)" in shown and "in totality:level=easy (8 games)" in shown
    page = write_report("levels", tmp_path / "report.html", url).read_text()
    assert "Leaderboard: totality + totality:level=easy" in page and "tuned - defaults in totality:level=easy" in page


def test_the_same_command_resumes_the_study_with_a_larger_budget(studied: tuple[str, TuneSummary],
                                                                 pool: Pool) -> None:
    url, _ = studied
    summary = tune(parse_study_file(tiny_study("tiny")), trials=8, db_url=url, pool=pool,
                   validate_best=False)
    trials = study_trials("tiny", url)
    assert [t["number"] for t in trials] == list(range(8))
    assert summary.trials_complete + summary.trials_pruned == 8
    with open_database(url) as db:
        assert sum(1 for r in db.runs(kind="study") if r.study == "tiny" and r.trial is not None) == 8


def test_the_report_holds_the_plots_and_the_leaderboard(studied: tuple[str, TuneSummary], pool: Pool,
                                                        tmp_path: Path) -> None:
    url, _ = studied
    validate("tiny", db_url=url, pool=pool)  # the best trial may have changed since (resume)
    path = write_report("tiny", tmp_path / "report.html", url)
    page = path.read_text()
    for title in ("Optimisation history", "Parameter importances", "Score distribution", "Leaderboard",
                  "tuned:tiny", "tuned - defaults (paired)"):
        assert title in page
    assert page.count("plotly.js v") == 1  # the library embedded once, for every figure
    assert page.count('class="plotly-graph-div"') >= 3


def test_trials_left_running_by_a_killed_driver_are_failed_and_retried(cluster: None, pool: Pool,
                                                                       tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'harness.db'}"
    config = parse_study_file(tiny_study("crash", trials=4))
    # A driver that dies mid-study: its trials are asked, running, partly
    # played and recorded, never told; its pool goes away with it.
    db = open_database(url)
    with Pool(workers=1) as doomed:
        dead = Driver(config, open_study(config, url, grace_period=2), db, doomed, target=4, parallel=2,
                      opponents=(OPPONENT,))
        dead.fill()
        for count, (tag, result) in enumerate(doomed.as_completed()):
            dead.on_results([(tag, result)])
            if count == 2:
                break
    db.close()
    abandoned = {n: dict(run.trial.params) for n, run in dead.active.items()}
    assert abandoned
    # resumed at once: the new driver waits until their heartbeats are older than the grace period
    summary = tune(config, db_url=url, pool=pool, validate_best=False, grace_period=2)
    trials = study_trials("crash", url)
    failed = [t for t in trials if t["state"] == "fail"]
    assert sorted(t["number"] for t in failed) == sorted(abandoned)
    assert summary.trials_complete + summary.trials_pruned == 4
    retried = [t for t in trials if t["number"] not in abandoned]
    for number, params in abandoned.items():
        assert any(t["params"] == params for t in retried), f"trial {number}'s parameters were not retried"
    with open_database(url) as db:
        for number in abandoned:
            dead_run = db.run(f"crash/trial-{number}")
            assert dead_run.status == "interrupted"
            played = {m.seed for m in db.matches(run_id=dead_run.id)}
            retry = next(t for t in trials if t["retry_of"] == number)
            assert retry["params"] == abandoned[number]
            retry_seeds = {m.seed for m in db.matches(run_id=db.run(f"crash/trial-{retry['number']}").id)}
            assert played <= retry_seeds  # the retry took over the games already played



def test_the_validate_and_report_commands_print_the_table_and_write_the_page(
        studied: tuple[str, TuneSummary], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url, summary = studied
    assert main(["tune", "--validate", "tiny", "--db", url]) == 0  # all games recorded: nothing to play
    printed = capsys.readouterr().out
    assert "validation of tiny" in printed and "tuned - defaults" in printed
    assert summary.validation.verdict.upper() in printed
    assert main(["tune", "--validate", "tiny", "--db", url, "--json"]) == 0
    line = json.loads(capsys.readouterr().out)  # one JSON line, not the table
    assert line["format"] == "harness.validate/1" and line["study"] == "tiny"
    assert line["verdict"].upper() in printed and f"{line['difference']['mean']:.2f}" in printed  # the table's
    out = tmp_path / "page.html"
    assert main(["report", "tiny", "--out", str(out), "--db", url]) == 0
    assert out.stat().st_size > 100_000  # plotly.js embedded


def test_an_unknown_study_name_is_one_line_naming_the_known_studies(
        studied: tuple[str, TuneSummary], capsys: pytest.CaptureFixture[str]) -> None:
    url, _ = studied
    assert main(["report", "nosuch", "--db", url]) == 2
    error = capsys.readouterr().err.strip()
    assert "no study 'nosuch'" in error and "tiny" in error and "\n" not in error


def test_cma_es_with_successive_halving_reports_per_rung(pool: Pool, tmp_path: Path) -> None:
    from players.features import features
    text = tiny_study("halving", trials=4, sampler='"cmaes"', pruner='"halving"')
    text = text.replace("rungs = [4, 8]", "rungs = [2, 4, 8]")
    text = text.replace("[weights]\n", f"[weights]\nstability = {{ low = 0.0, high = {features(GAME)['stability'].high} }}\n")
    url = f"sqlite:///{tmp_path / 'harness.db'}"
    summary = tune(parse_study_file(text), db_url=url, pool=pool, validate_best=False)
    assert summary.trials_complete + summary.trials_pruned == 4
    for trial in study_trials("halving", url):
        assert trial["intermediate"] and set(trial["intermediate"]) <= {2, 4}  # rung ends, not seeds
