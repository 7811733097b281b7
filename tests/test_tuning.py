"""A tiny study end to end on a real local Ray cluster and a real SQLite database.

One study is run once per module and examined by several tests (trials
recorded on the same openings, the incumbent first, values as paired gains,
pruning only at block boundaries, the race, the confirmation and its verdict,
the saved player); other tests resume it, check that the outcome is the same
on one worker, two and after interruptions, and write its report.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from harness.cli import main
from harness.cluster import InProcessPool, Pool, ray_session
from harness.db import open_database
from harness.report import write_report
from harness.tuning import TuneSummary, parse_study_file, select, study_trials, tune
from harness.tuning_view import outcome_table
from tests.tuning_studies import GAME, HARMED, OPPONENT, tiny_study


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    with ray_session(num_cpus=2):
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


def _trials(name: str, url: str) -> list[tuple[Any, ...]]:
    """What decides a study's outcome, trial by trial: number, state, value, parameters."""
    return [(t["number"], t["state"], t["value"], t["params"], t["intermediate"]) for t in study_trials(name, url)]


def test_every_trial_plays_the_same_openings_and_the_incumbent_is_trial_0(studied: tuple[str, TuneSummary]) -> None:
    from players.features import features
    url, summary = studied
    assert summary.trials_complete + summary.trials_pruned == 6
    trials = {t["number"]: t for t in study_trials("tiny", url)}
    assert trials[0]["params"] == {w: features(GAME)[w].default for w in HARMED[:-1]} | {
        HARMED[-1]: -2 * features(GAME)[HARMED[-1]].high}  # the file's [incumbent]
    assert trials[0]["state"] == "complete" and trials[0]["value"] == 0.0  # a gain over itself
    with open_database(url) as db:
        for number, trial in trials.items():
            run = db.run(f"tiny/trial-{number}")
            assert (run.kind, run.study, run.trial, run.status) == ("study", "tiny", number, "done")
            seeds = sorted(m.seed for m in db.matches(run_id=run.id))
            if trial["state"] == "complete":
                assert seeds == list(range(12)) and trial["games"] == 12
            else:  # pruned at the end of the first block of 6 openings, never mid-block
                assert trial["games"] == 6 and set(seeds) >= set(range(6))


def test_a_trials_value_is_its_paired_gain_over_the_incumbent(studied: tuple[str, TuneSummary]) -> None:
    url, _ = studied
    with open_database(url) as db:
        incumbent = {m.seed: m.score for m in db.matches(run_id=db.run("tiny/trial-0").id)}
        for trial in study_trials("tiny", url):
            if trial["state"] != "complete" or trial["number"] == 0:
                continue
            mine = {m.seed: m.score for m in db.matches(run_id=db.run(f"tiny/trial-{trial['number']}").id)}
            gain = sum(mine[s] - incumbent[s] for s in range(12)) / 12
            assert trial["value"] == pytest.approx(gain)


def test_only_trials_confidently_worse_than_the_incumbent_are_pruned(studied: tuple[str, TuneSummary]) -> None:
    url, _ = studied
    trials = study_trials("tiny", url)
    pruned = [t for t in trials if t["state"] == "pruned"]
    assert pruned, "the harmful weights should lose clearly to the incumbent"
    for trial in pruned:
        assert set(trial["intermediate"]) == {0} and trial["intermediate"][0] < 0  # the look after block 0
        assert trial["value"] == trial["intermediate"][0] or trial["value"] is None


def test_the_race_and_the_confirmation_play_fresh_openings_and_save_the_verdict(
        studied: tuple[str, TuneSummary]) -> None:
    url, summary = studied
    outcome = summary.outcome
    assert outcome is not None and outcome.verdict in ("better", "no gain", "worse")
    trials = study_trials("tiny", url)
    complete = sorted((t for t in trials if t["state"] == "complete" and t["number"]),
                      key=lambda t: (-t["value"], t["number"]))
    finalists, seen = [], {trials[0]["spec"]}
    for trial in complete:  # the best three, each player once, never the incumbent's weights again
        if trial["spec"] not in seen and len(finalists) < 3:
            finalists.append(trial["number"])
            seen.add(trial["spec"])
    assert [entry.trial for entry in outcome.race] == finalists
    with open_database(url) as db:
        race = db.run("tiny/race/incumbent")
        assert sorted(m.seed for m in db.matches(run_id=race.id)) == list(range(100, 112))
        if outcome.confirmation is not None:
            confirmed = db.run("tiny/confirmation/incumbent")
            seeds = sorted(m.seed for m in db.matches(run_id=confirmed.id))
            assert seeds == list(range(200, 200 + outcome.confirmation.openings))
            assert 16 <= outcome.confirmation.openings <= 40  # sized in advance, within the part of the suite
            assert db.resolve_spec("tuned:tiny") == outcome.winner_spec
            record = db.named_player_record("tiny")
            assert record.verdict == outcome.verdict and "confirmation openings" in record.detail
        else:
            assert outcome.winner is None and outcome.verdict == "no gain"


def test_the_outcome_is_the_same_on_one_worker_in_process(studied: tuple[str, TuneSummary], tmp_path: Path) -> None:
    url, summary = studied
    alone = f"sqlite:///{tmp_path / 'alone.db'}"
    with InProcessPool() as one:
        again = tune(parse_study_file(tiny_study("tiny")), db_url=alone, pool=one)
    assert _trials("tiny", alone) == _trials("tiny", url)
    assert again.outcome == summary.outcome


class _Interrupting:
    """A pool that raises KeyboardInterrupt after ``after`` results, as a Ctrl-C at that moment would."""

    def __init__(self, pool: Pool, after: int) -> None:
        self._pool = pool
        self._after = after

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pool, name)

    def as_completed(self) -> Iterator[Any]:
        for item in self._pool.as_completed():
            if self._after <= 0:
                raise KeyboardInterrupt
            self._after -= 1
            yield item


def test_interrupted_at_random_points_the_study_resumes_to_the_same_outcome(
        studied: tuple[str, TuneSummary], pool: Pool, tmp_path: Path) -> None:
    url, summary = studied
    rng = random.Random(43)
    broken = f"sqlite:///{tmp_path / 'broken.db'}"
    config = parse_study_file(tiny_study("tiny"))
    stops = 0
    for _ in range(60):  # each stop loses at most the games in flight: a batch's results not yet recorded
        try:
            resumed = tune(config, db_url=broken, pool=_Interrupting(pool, rng.randrange(8, 60)), grace_period=2)
        except KeyboardInterrupt:
            stops += 1
            continue
        break
    else:
        pytest.fail("the study never finished")
    assert stops >= 2
    assert _trials("tiny", broken) == _trials("tiny", url)
    assert resumed.outcome == summary.outcome


def test_selecting_again_by_study_name_reads_the_recorded_games(studied: tuple[str, TuneSummary],
                                                                 pool: Pool) -> None:
    url, summary = studied
    started = pool.stats.matches
    again = select("tiny", db_url=url, pool=pool)
    assert pool.stats.matches == started
    assert again == summary.outcome


def test_a_study_plays_every_opening_against_every_opponent_and_confirms_against_each(
        pool: Pool, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'harness.db'}"
    text = tiny_study("pair", trials=3).replace(f'opponent = "{OPPONENT}"', f'opponent = ["{OPPONENT}", "random"]')
    summary = tune(parse_study_file(text), db_url=url, pool=pool)
    with open_database(url) as db:
        games = [m for m in db.matches(run_id=db.run("pair/trial-0").id)]
    assert sorted((m.seed, m.opponent) for m in games) == sorted((s, o) for s in range(12)
                                                                 for o in (OPPONENT, "random"))
    outcome = summary.outcome
    if outcome.confirmation is not None:
        assert [part.opponent for part in outcome.confirmation.by_opponent] == [OPPONENT, "random"]


def test_a_second_driver_is_refused_while_the_first_holds_the_study(studied: tuple[str, TuneSummary],
                                                                      pool: Pool) -> None:
    from harness.errors import InvalidInput
    from harness.tuning import load_stored_study
    url, _ = studied
    study = load_stored_study("tiny", url, read_only=False)  # a second driver's lease: a write
    study.take_lease("another-driver", 60)
    try:
        with pytest.raises(InvalidInput, match="one driver at a time"):
            tune(parse_study_file(tiny_study("tiny")), db_url=url, pool=pool, select=False)
    finally:
        study.release_lease("another-driver")


def test_the_validate_and_report_commands_print_the_outcome_and_write_the_page(
        studied: tuple[str, TuneSummary], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url, summary = studied
    assert main(["tune", "--validate", "tiny", "--db", url]) == 0  # all games recorded: nothing to play
    printed = capsys.readouterr().out
    assert "gain in score over the incumbent" in printed and "race" in printed
    assert f"verdict: {summary.outcome.verdict.upper()}" in printed
    assert main(["tune", "--validate", "tiny", "--db", url, "--json"]) == 0
    line = json.loads(capsys.readouterr().out)  # one JSON line, not the table
    assert line["format"] == "harness.outcome/1" and line["study"] == "tiny"
    assert line["verdict"] == summary.outcome.verdict
    out = tmp_path / "page.html"
    assert main(["report", "tiny", "--out", str(out), "--db", url]) == 0
    page = out.read_text()
    assert out.stat().st_size > 100_000  # plotly.js embedded
    for title in ("Optimisation history", "Race and confirmation", "Leaderboard", summary.outcome.verdict.upper()):
        assert title in page


def test_the_outcome_table_shows_the_study_the_race_and_the_confirmation_side_by_side(
        studied: tuple[str, TuneSummary]) -> None:
    _, summary = studied
    console = Console(record=True, width=220)
    console.print(outcome_table(summary.outcome))
    shown = console.export_text()
    for column in ("in study", "race", "confirmation", "verdict:"):
        assert column in shown
    for entry in summary.outcome.race:
        assert f"trial {entry.trial}" in shown


def test_an_unknown_study_name_is_one_line_naming_the_known_studies(
        studied: tuple[str, TuneSummary], capsys: pytest.CaptureFixture[str]) -> None:
    url, _ = studied
    assert main(["report", "nosuch", "--db", url]) == 2
    error = capsys.readouterr().err.strip()
    assert "no study 'nosuch'" in error and "tiny" in error and "\n" not in error


@pytest.mark.parametrize("sampler", ["cmaes", "spsa", "tpe"])
def test_each_sampler_runs_a_study_reproducibly(sampler: str, pool: Pool, tmp_path: Path) -> None:
    from players.features import features
    table = features(GAME)
    text = tiny_study(f"s-{sampler}", trials=5, sampler=f'"{sampler}"')
    ranges = "\n".join(f"{w} = {{ low = {table[w].low}, high = {table[w].high} }}" for w in ("stability", "frontier"))
    text = text.replace(text[text.index("[weights]\n"):text.index("[budget]")], f"[weights]\n{ranges}\n\n")
    config = parse_study_file(text)
    first = f"sqlite:///{tmp_path / 'first.db'}"
    summary = tune(config, db_url=first, pool=pool, select=False)
    assert summary.trials_complete + summary.trials_pruned == 5
    second = f"sqlite:///{tmp_path / 'second.db'}"
    with InProcessPool() as one:
        tune(config, db_url=second, pool=one, select=False)
    assert _trials(f"s-{sampler}", first) == _trials(f"s-{sampler}", second)
    params = [t["params"] for t in study_trials(f"s-{sampler}", first)]
    assert params[0] == {"stability": table["stability"].default, "frontier": table["frontier"].default}
    assert len({json.dumps(p, sort_keys=True) for p in params}) >= 3  # the sampler moved


# last: it changes the module's study
def test_the_same_command_resumes_the_study_with_a_larger_budget(studied: tuple[str, TuneSummary],
                                                                 pool: Pool) -> None:
    url, _ = studied
    summary = tune(parse_study_file(tiny_study("tiny")), trials=8, db_url=url, pool=pool, select=False)
    assert [t["number"] for t in study_trials("tiny", url)] == list(range(8))
    assert summary.trials_complete + summary.trials_pruned == 8


def test_selecting_with_a_changed_study_file_is_refused(studied: tuple[str, TuneSummary], pool: Pool) -> None:
    from harness.errors import InvalidInput
    url, _ = studied
    changed = parse_study_file(tiny_study("tiny").replace("block = 6", "block = 4"))
    with pytest.raises(InvalidInput, match="made from another study file"):
        select(changed, db_url=url, pool=pool)
