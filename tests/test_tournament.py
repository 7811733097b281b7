"""Tournaments on a real local Ray cluster with a real SQLite database in tmp_path.

The library-level tests share one single-worker pool (one CPU of the
2-CPU session), so the command-line test can start its own one-worker pool
beside it.
"""

from __future__ import annotations

import json
import os
import signal
from collections import Counter

import pytest

from harness.cli import main
from harness.cluster import Pool
from harness.db import open_database
from harness.db.export import export_lines
from harness.errors import InvalidInput, SpecError
from harness.games.openings import load_suite
from harness.match import match_key
from players.named import SpecResolver
from harness.tournament import TournamentConfig, plan, play

GAME = "totality"


@pytest.fixture(scope="module")
def pool(ray_cluster):
    with Pool(workers=1) as shared:
        yield shared


@pytest.fixture
def database(tmp_path):
    with open_database(f"sqlite:///{tmp_path / 'results.db'}") as opened:
        yield opened


def start(database, config: TournamentConfig) -> int:
    return database.start_run("tournament", config.game, config.to_dict())


def assert_recorded_exactly(database, run_id: int, config: TournamentConfig) -> None:
    keys = Counter(match.key for match in database.matches(run_id=run_id))
    assert keys == Counter(match_key(spec) for spec in config.schedule())
    assert set(keys.values()) == {1}


def test_gauntlet_records_every_player_against_the_opponent(database, pool):
    config = plan(GAME, ["random", "greedy"], "gbot:easy", games=3, seed_start=10)
    run_id = start(database, config)
    report = play(database, run_id, config, pool)
    assert report.status == "done" and report.played == report.recorded == report.planned == 6
    assert_recorded_exactly(database, run_id, config)
    matches = database.matches(run_id=run_id)
    assert config.opponent == "gbot:level=easy"  # canonical spec
    assert {(m.player, m.opponent) for m in matches} == {("random", config.opponent),
                                                         ("greedy", config.opponent)}
    assert sorted(m.seed for m in matches) == [10, 10, 11, 11, 12, 12]
    run = database.run(run_id)
    assert run.status == "done" and TournamentConfig.from_dict(run.config) == config
    board = database.leaderboard(config.game, run_id=run_id)
    assert sorted(row.player for row in board) == ["greedy", "random"]
    assert all(row.games == 3 for row in board)


def test_round_robin_plays_every_pair_in_both_seats_with_the_same_seed(database, pool):
    config = plan(GAME, ["random", "greedy", "alphabeta:depth=1"], round_robin=True, games=2)
    run_id = start(database, config)
    report = play(database, run_id, config, pool)
    assert report.recorded == report.planned == 6  # 3 pairs x 1 seed x 2 seats
    assert_recorded_exactly(database, run_id, config)
    pairings = {(m.player, m.opponent, m.seed) for m in database.matches(run_id=run_id)}
    players = config.players
    for first in players:
        for second in players:
            if first != second:
                assert (first, second, 0) in pairings


def test_a_killed_worker_costs_only_its_batch_and_every_match_is_recorded_once(database, pool):
    config = plan(GAME, ["random", "greedy"], "random", games=15)
    run_id = start(database, config)
    killed: list[int] = []

    def kill_a_worker(result) -> None:
        if not killed:
            killed.append(pool.worker_pids()[0])
            os.kill(killed[0], signal.SIGKILL)

    report = play(database, run_id, config, pool, on_result=kill_a_worker)
    assert killed and report.workers_replaced == 1
    assert killed[0] not in pool.worker_pids()
    assert report.status == "done" and report.recorded == report.planned == 30
    assert_recorded_exactly(database, run_id, config)


def test_ctrl_c_marks_the_run_interrupted_and_resume_plays_only_the_missing_matches(database, pool):
    config = plan(GAME, ["random", "greedy"], "random", games=10, seed_start=100)
    run_id = start(database, config)
    seen: list[str] = []

    def press_ctrl_c_after_three(result) -> None:
        seen.append(result.key)
        if len(seen) == 3:
            os.kill(os.getpid(), signal.SIGINT)

    # Python's own Ctrl-C handler, as in a terminal: a suite started in the background by a shell
    # (`nohup ... &`) inherits SIGINT ignored, and the press would go unseen
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        first = play(database, run_id, config, pool, on_result=press_ctrl_c_after_three)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert first.interrupted and database.run(run_id).status == "interrupted"
    assert "harness tournament --resume" in first.summary()[-1]
    before = database.recorded_keys(run_id)
    assert 3 <= len(before) < 20

    replayed: list[str] = []
    second = play(database, run_id, config, pool, on_result=lambda result: replayed.append(result.key))
    assert second.status == "done" and database.run(run_id).status == "done"
    assert second.played == 20 - len(before) and not set(replayed) & before
    assert_recorded_exactly(database, run_id, config)


def test_sprt_stops_when_the_test_decides(database, pool):
    config = plan(GAME, ["alphabeta:depth=2"], "random", games=400, sprt="0,150")
    assert config.players == ("alphabeta:depth=2", "random") and config.opponent is None  # pairs
    run_id = start(database, config)
    report = play(database, run_id, config, pool)
    assert report.sprt.decision == "H1" and report.status == "done"
    assert report.recorded < report.planned
    assert "H1 accepted" in "\n".join(report.summary())
    # resuming a decided run plays nothing more
    again = play(database, run_id, config, pool)
    assert again.played == 0 and again.sprt.decision == "H1"


def test_a_ladder_gauntlet_plays_every_rung_and_reports_the_worst_beside_the_mean(database, pool):
    config = TournamentConfig(GAME, ("greedy",), None, 2, seed_start=5, ladder=("random", "gbot:level=easy"))
    assert config.mode == "ladder" and TournamentConfig.from_dict(config.to_dict()) == config
    run_id = start(database, config)
    report = play(database, run_id, config, pool)
    assert report.recorded == report.planned == 4
    assert_recorded_exactly(database, run_id, config)
    (standing,) = report.ladder
    assert [rung.rung for rung in standing.rungs] == list(config.ladder)
    scores = {rung: [m.score for m in database.matches(run_id=run_id) if m.opponent == rung]
              for rung in config.ladder}
    means = {rung: sum(values) / len(values) for rung, values in scores.items()}
    assert standing.worst.rung == min(means, key=means.get)
    assert standing.mean == pytest.approx(sum(means.values()) / 2)
    assert standing.worst.games == 2 and sum(r.games for r in standing.rungs) == 4
    assert any("worst rung" in line for line in report.summary())


def test_plan_with_ladder_meets_every_rung_of_the_games_ladder():
    from players.ladder import ladder
    config = plan("ravenward", ["alphabeta:depth=1"], ladder=True, games=2)
    assert config.ladder == tuple(ladder("ravenward")) and config.opponent is None
    assert len(config.schedule()) == 2 * len(config.ladder)
    assert {spec.opponent for spec in config.schedule()} == set(config.ladder)


def test_plan_rejects_contradictory_or_incomplete_settings():
    with pytest.raises(InvalidInput, match="give opponent SPEC for a gauntlet, ladder"):
        plan(GAME, ["random"], games=2)
    with pytest.raises(InvalidInput, match="choose one"):
        plan(GAME, ["random", "greedy"], "gbot", round_robin=True, games=2)
    with pytest.raises(InvalidInput, match="at least two different players"):
        plan(GAME, ["random", "random"], round_robin=True, games=2)
    with pytest.raises(InvalidInput, match="must be even"):
        plan(GAME, ["random", "greedy"], round_robin=True, games=3)
    with pytest.raises(InvalidInput, match="compares two players"):
        plan(GAME, ["random", "greedy"], "gbot", games=10, sprt="0,10")
    with pytest.raises(InvalidInput, match="choose one"):
        plan(GAME, ["random"], "gbot", ladder=True, games=2)
    with pytest.raises(InvalidInput, match="does not combine with ladder"):
        plan(GAME, ["random"], ladder=True, games=2, sprt="0,10")
    with pytest.raises(SpecError):
        plan(GAME, ["nosuchkind"], "gbot", games=2)
    with pytest.raises(InvalidInput):
        plan("chess", ["random"], "gbot", games=2)


class OneNamedPlayer:
    """An alias store holding tuned:best; counts its look-ups."""

    def __init__(self) -> None:
        self.lookups = 0

    def resolve_spec(self, spec: str, allow_engines: bool = False) -> str:
        self.lookups += 1
        return {"tuned:best": "alphabeta:depth=2"}.get(spec, spec)

    def named_player_record(self, name: str) -> None:
        return None  # no verdict to say anything about


def test_plan_canonicalizes_specs_and_round_trips_through_the_run_config():
    config = plan("totality:level=easy", ["alphabeta:depth=2", "greedy"], "gbot", games=4,
                  opening_plies=2, resolver=SpecResolver(OneNamedPlayer()))
    assert config.game == "totality:level=easy"
    assert TournamentConfig.from_dict(config.to_dict()) == config
    resolved = plan(GAME, ["tuned:best"], "gbot", games=1, resolver=SpecResolver(OneNamedPlayer()))
    assert resolved.players == ("alphabeta:depth=2",)
    assert resolved.aliases == {"alphabeta:depth=2": "tuned:best"}


def test_cli_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    assert main(["tournament", GAME, "--player", "random", "--games", "2", "--db", db]) == 2
    assert main(["tournament", GAME, "--player", "random", "--opponent", "gbot", "--games", "2",
                 "--sprt", "10,0", "--db", db]) == 2
    assert main(["tournament", "--resume", "99", "--db", db]) == 2
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 3 and all(line.startswith("harness: error:") for line in errors)


def test_cli_runs_a_gauntlet_prints_the_leaderboard_and_resumes_by_name(tmp_path, capsys, pool):
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    with open_database(db) as database:
        database.save_named_player("shallow", "alphabeta:depth=1", GAME)
    code = main(["tournament", GAME, "--player", "greedy", "--player", "tuned:shallow", "--opponent", "random",
                 "--games", "2", "--workers", "1", "--db", db, "--run-name", "smoke"])
    out, err = capsys.readouterr()
    assert code == 0
    assert "greedy" in out and "alphabeta:depth=1  (tuned:shallow: unconfirmed)" in out and "4/4 games recorded" in out
    notes = [line for line in err.splitlines() if line.startswith("harness: note:")]  # beside the progress
    assert notes == ["harness: note: tuned:shallow is not confirmed better than its study's incumbent "
                     "(verdict: unconfirmed)"]  # once, however often the run names it
    with open_database(db) as database:
        assert {m.player for m in database.matches()} == {"greedy", "alphabeta:depth=1"}
    assert main(["tournament", "--resume", "smoke", "--workers", "1", "--db", db]) == 0
    assert "0 played now" in capsys.readouterr().out
    assert main(["tournament", GAME, "--player", "greedy", "--player", "tuned:shallow", "--round-robin",
                 "--games", "2", "--workers", "1", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "Bradley-Terry Elo" in out and "2/2 games recorded" in out  # a round-robin also rates


def test_cli_bad_input_creates_no_database_file(tmp_path, capsys):
    path = tmp_path / "never.db"
    db = f"sqlite:///{path}"
    assert main(["tournament", GAME, "--player", "nonsense", "--opponent", "gbot", "--games", "2", "--db", db]) == 2
    assert main(["tournament", GAME, "--player", "tuned:missing", "--opponent", "gbot", "--games", "2",
                 "--db", db]) == 2
    assert main(["tournament", "--resume", "3", "--db", db]) == 2
    assert not path.exists()
    assert len(capsys.readouterr().err.strip().splitlines()) == 3


def test_cli_json_and_quiet_print_one_summary_line_and_no_progress(tmp_path, capsys, pool):
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    code = main(["tournament", GAME, "--player", "greedy", "--opponent", "random", "--games", "3", "--workers", "1",
                 "--json", "--quiet", "--db", db])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    (line,) = out.splitlines()
    summary = json.loads(line)
    assert summary["format"] == "harness.tournament/1" and summary["status"] == "done"
    assert (summary["planned"], summary["recorded"], summary["played"]) == (3, 3, 3)
    # the same formula as the bar's; seconds is rounded to the millisecond in the summary, which on a run of
    # a few milliseconds moves the rate by more than any fixed share, so the bound is the rounding's own
    seconds = summary["seconds"]
    low, high = summary["played"] / (seconds + 0.0005), summary["played"] / max(seconds - 0.0005, 1e-9)
    assert low - 0.001 <= summary["games_per_s"] <= high + 0.001
    with open_database(db) as database:
        assert database.count_matches(summary["run_id"]) == 3


def test_the_bar_and_the_summary_compute_the_rate_the_same_way():
    from rich.progress import Progress

    from harness.console import rate_text
    from harness.tournament import _RateColumn, games_per_second
    with Progress(disable=True) as progress:
        task_id = progress.add_task("t", total=10, completed=4, resumed=4)
        progress.advance(task_id, 3)
        progress.stop_task(task_id)  # a fixed elapsed time for both computations
        task = progress.tasks[0]
        shown = _RateColumn().render(task).plain
    assert shown == rate_text(games_per_second(3, task.elapsed))
    assert games_per_second(0, 0.0) == 0.0
    assert rate_text(10 / 354) == "0.0282 games/s" and rate_text(116.94) == "117 games/s"  # slow runs show a rate


def test_a_tournament_from_a_suite_plays_each_seeds_opening_in_every_pairing():
    suite = load_suite("xiangqi")
    config = plan("xiangqi", ["random", "greedy"], round_robin=True, games=4, seed_start=7, openings=suite.name)
    assert {spec.openings for spec in config.schedule()} == {suite.name}
    assert TournamentConfig.from_dict(config.to_dict()) == config
    without = plan("xiangqi", ["random", "greedy"], round_robin=True, games=4, seed_start=7)
    assert "openings" not in without.to_dict()  # a plan without a suite is stored as before suites
    assert {s.key for s in config.schedule()}.isdisjoint(s.key for s in without.schedule())


def test_a_tournament_refuses_an_unknown_suite_or_a_suite_with_random_plies():
    with pytest.raises(InvalidInput, match="valid suites"):
        plan(GAME, ["random"], "greedy", games=2, openings="nope")
    with pytest.raises(InvalidInput, match="not both"):
        plan(GAME, ["random"], "greedy", games=2, opening_plies=2, openings=load_suite(GAME).name)


def test_cli_tournament_with_a_suite_records_each_opening(tmp_path, capsys, pool):
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    suite = load_suite(GAME)
    code = main(["tournament", GAME, "--player", "greedy", "--opponent", "random", "--games", "2", "--seeds", "5",
                 "--openings", suite.name, "--workers", "1", "--db", db, "--json", "--quiet"])
    assert code == 0
    with open_database(db) as database:
        matches = database.matches()
        exported = [json.loads(line) for line in export_lines(database)]
    assert sorted(m.seed for m in matches) == [5, 6]
    assert [line["openings"] for line in exported] == [suite.name] * 2  # an export names the suite
    for match in matches:
        assert match.actions[:suite.plies] == suite.opening(match.seed)
        assert match.opening_plies == suite.plies and match.extra == {"openings": suite.name}


CHEAP_RUNGS = ("gbot:easy", "gbot:depth=3,eval=material")  # two quick rungs of Totality's ladder


def test_plan_with_rungs_keeps_those_rungs_in_ladder_order_and_refuses_others():
    config = plan(GAME, ["greedy"], ladder=True, rungs=reversed(CHEAP_RUNGS), games=2)
    assert config.ladder == ("gbot:level=easy", "gbot:depth=3,eval=material")  # canonical, in ladder order
    assert TournamentConfig.from_dict(config.to_dict()) == config
    with pytest.raises(InvalidInput, match="gbot:depth=9,eval=material is not a rung of totality's ladder"):
        plan(GAME, ["greedy"], ladder=True, rungs=["gbot:depth=9,eval=material"], games=2)
    with pytest.raises(InvalidInput, match="rungs choose rungs of the ladder"):
        plan(GAME, ["greedy"], "random", rungs=["gbot:easy"], games=2)


def test_a_second_run_of_a_plan_reuses_every_recorded_match_instead_of_playing_it(database, pool):
    config = plan(GAME, ["greedy"], ladder=True, rungs=CHEAP_RUNGS, games=2, opening_plies=2)
    first = play(database, start(database, config), config, pool)
    assert (first.played, first.reused) == (4, 0)
    replayed: list[str] = []
    second = play(database, start(database, config), config, pool, on_result=lambda r: replayed.append(r.key))
    assert (second.played, second.reused, second.recorded) == (0, 4, 4) and not replayed
    assert "4 reused (recorded by other runs)" in second.summary()[0]
    assert database.count_matches() == 4  # held, not doubled
    assert_recorded_exactly(database, second.run_id, config)


def test_cli_ladder_tournament_reports_paired_with_a_baseline_run_rescored_and_verified(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'ladder.db'}"
    common = [GAME, "--ladder", "--rung", CHEAP_RUNGS[0], "--rung", CHEAP_RUNGS[1], "--games", "2",
              "--opening-plies", "2", "--workers", "1", "--quiet", "--db", db]
    assert main(["tournament", *common, "--player", "greedy", "--run-name", "before"]) == 0
    capsys.readouterr()
    code = main(["tournament", *common, "--player", "alphabeta:depth=1", "--baseline", "before",
                 "--rescore", "totality:easy", "--verify", "2", "--markdown"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "| totality:level=easy (rescored) | gbot:level=easy |" in out
    assert "| game | against | pairs | before W/D/L, mean | run 2 W/D/L, mean |" in out
    assert "all rows, each distinct game once (4 rescored pairs not pooled) | 4 |" in out
    assert "2 stored matches replayed identically" in out
    assert main(["tournament", "--resume", "before", "--verify", "1", "--workers", "1", "--json", "--quiet",
                 "--db", db]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["played"] == 0 and report["strength"]["verification"]["checked"] == 1
    for args, says in ((["--baseline", "missing"], "no run 'missing'"),
                       (["--rescore", "ravenward"], "--rescore ravenward: give another configuration")):
        assert main(["tournament", *common, "--player", "random", *args]) == 2
        assert says in capsys.readouterr().err
    assert main(["tournament", GAME, "--player", "random", "--opponent", "greedy", "--games", "2", "--verify", "1",
                 "--db", db]) == 2
    assert "--baseline, --rescore and --verify report on a gauntlet against the rungs: they go with --ladder" in capsys.readouterr().err
