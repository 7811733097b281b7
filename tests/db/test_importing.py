"""harness db import: export files (and MatchResult lines) back into a database, every key checked,
nothing doubled, a file whole or not at all; on SQLite, and on PostgreSQL when HARNESS_TEST_PG is set."""

from __future__ import annotations

import gzip
import json
from dataclasses import replace

import pytest

from harness.cli import main
from harness.db import open_database
from harness.db.export import export_lines
from harness.db.importing import import_files
from harness.errors import InvalidInput
from harness.results import MatchResult, canonical_match_key


def result(player: str = "greedy", seed: int = 0, *, game: str = "totality", opponent: str = "gbot:level=wise",
           score: float = 12.0, outcome: str = "win", opening_plies: int = 2, **fields) -> MatchResult:
    """A result whose key is the one its content gives (as the match layer makes it)."""
    key = canonical_match_key(game, player, opponent, seed, opening_plies)
    values = dict(game=game, player=player, opponent=opponent, seed=seed, outcome=outcome, reason="test",
                  score=score, counters={"ply": 2}, actions=[{"type": "pass"}, {"type": "pass"}], plies=2,
                  duration_s=0.5, player_s=0.25, opponent_s=0.125, key=key, opening_plies=opening_plies,
                  extra={"note": seed})
    return MatchResult(**(values | fields))


def write_lines(path, rows) -> str:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return str(path)


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_an_export_file_loads_back_as_the_same_matches_in_a_run_named_after_it(tmp_path, database_url, capsys):
    source = f"sqlite:///{tmp_path / 'source.db'}"
    with open_database(source) as db:
        run_id = db.start_run("tournament", "totality", {})
        db.record_many(run_id, [result(seed=seed, score=10.0 + seed) for seed in range(3)]
                       + [result("random", 0, game="totality:level=easy", outcome="loss", score=0.0)])
        original = {match.key: match.to_result() for match in db.matches()}
        lines = list(export_lines(db))
    path = tmp_path / "cup.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    code, out, _ = run_cli(capsys, "db", "import", str(path), "--quiet", "--db", database_url)
    assert code == 0 and "run 1 (cup), 4 matches: 4 stored, 0 already recorded" in out
    with open_database(database_url) as db:
        (run,) = db.runs()
        assert (run.kind, run.name, run.game, run.status) == ("import", "cup", "totality", "done")
        assert run.config["games"] == ["totality", "totality:level=easy"] and run.config["lines"] == 4
        loaded = {match.key: match.to_result() for match in db.matches(run_id=run.id)}
    assert loaded == original  # every field, the times and extra included


def test_match_result_lines_load_too_and_an_export_lines_openings_goes_to_extra(tmp_path, db):
    suite = replace(result(seed=4, opening_plies=8),
                    key=canonical_match_key("totality", "greedy", "gbot:level=wise", 4, 0, "totality-8ply"))
    plain = result(seed=5)
    exported = suite.to_dict() | {"match_id": 9, "run_id": 3, "openings": "totality-8ply"}
    path = write_lines(tmp_path / "mixed.jsonl", [plain.to_dict(), exported])
    (done,) = import_files(db, [path])
    assert (done.lines, done.stored, done.held) == (2, 2, 0)
    stored = {match.key: match for match in db.matches()}
    assert stored[suite.key].extra == {"note": 4, "openings": "totality-8ply"}
    assert stored[plain.key].to_result() == plain


def test_a_gzipped_file_loads_like_a_plain_one(tmp_path, db):
    path = tmp_path / "cup.jsonl.gz"
    with gzip.open(path, "wt") as handle:
        handle.write(json.dumps(result().to_dict()) + "\n")
    (done,) = import_files(db, [path])
    assert done.run_name == "cup" and done.stored == 1


def test_a_key_already_recorded_is_held_not_doubled_and_a_second_import_is_a_no_op(tmp_path, db, capsys,
                                                                                   database_url):
    first = write_lines(tmp_path / "first.jsonl", [result(seed=s).to_dict() for s in range(3)])
    overlapping = write_lines(tmp_path / "second.jsonl", [result(seed=s).to_dict() for s in range(2, 5)])
    code, out, _ = run_cli(capsys, "db", "import", first, overlapping, "--quiet", "--db", database_url)
    assert code == 0
    assert "first.jsonl: run 1 (first), 3 matches: 3 stored, 0 already recorded" in out
    assert "second.jsonl: run 2 (second), 3 matches: 2 stored, 1 already recorded (held, not doubled)" in out
    assert db.count_matches() == 5 and db.count_matches(run_id=2) == 3
    code, out, _ = run_cli(capsys, "db", "import", first, "--quiet", "--db", database_url)
    assert code == 0 and out.strip().endswith("already imported as run 1 (first); nothing to do")
    assert len(db.runs()) == 2 and db.count_matches() == 5


def test_run_name_puts_every_file_in_one_run(tmp_path, db):
    paths = [write_lines(tmp_path / f"{n}.jsonl", [result(seed=n).to_dict()]) for n in range(3)]
    (done,) = import_files(db, paths, run_name="together")
    assert (done.run_name, done.lines) == ("together", 3)
    assert db.count_matches(run_id=db.run_id("together")) == 3
    assert import_files(db, paths, run_name="together")[0].already


@pytest.mark.parametrize("line, says", [
    ("not json", "line 1 is not JSON"),
    (json.dumps([1, 2]), "line 1 is not a JSON object but list"),
    (json.dumps(result().to_dict() | {"colour": "red"}), "line 1 has the unknown key 'colour'"),
    (json.dumps({k: v for k, v in result().to_dict().items() if k != "seed"}), "line 1 lacks the key 'seed'"),
    (json.dumps(result().to_dict() | {"outcome": "won"}), "line 1 has outcome \"won\"; valid: win, draw, loss"),
    (json.dumps(result().to_dict() | {"seed": "7"}), "line 1 has seed \"7\"; seed must be an integer"),
    (json.dumps(result().to_dict() | {"plies": 3}), "line 1 has plies 3 but 2 actions"),
    (json.dumps(result().to_dict() | {"game": "chess"}), "line 1: unknown game"),
    (json.dumps(result().to_dict() | {"seed": 8}), "line 1: key .* does not match the line's match"),
])
def test_a_bad_line_is_one_line_exit_2_and_creates_no_database(tmp_path, capsys, line, says):
    good = json.dumps(result(seed=1).to_dict())
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n" + good + "\n")
    target = tmp_path / "never.db"
    code, out, err = run_cli(capsys, "db", "import", str(path), "--quiet", "--db", f"sqlite:///{target}")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert err.startswith(f"harness: error: {path} ")
    with pytest.raises(InvalidInput, match=says):
        import_files(open_database(f"sqlite:///{tmp_path / 'other.db'}"), [path])
    assert not target.exists()


def test_a_missing_file_or_a_key_repeated_with_another_result_is_refused(tmp_path, db):
    with pytest.raises(InvalidInput, match="no file 'missing.jsonl'"):
        import_files(db, ["missing.jsonl"])
    twice = write_lines(tmp_path / "twice.jsonl", [result().to_dict(), result(score=3.0).to_dict()])
    with pytest.raises(InvalidInput, match="line 2: key .* comes twice with different results"):
        import_files(db, [twice])
    assert db.runs() == []


def test_a_key_recorded_with_another_result_stops_the_import_and_writes_nothing(tmp_path, db):
    run_id = db.start_run("tournament", "totality", {})
    db.record(run_id, result(seed=1, score=5.0))
    stale = write_lines(tmp_path / "stale.jsonl", [result(seed=0).to_dict(), result(seed=1, score=9.0).to_dict()])
    with pytest.raises(InvalidInput, match="is recorded with another result .* one of them is stale"):
        import_files(db, [stale])
    assert [run.id for run in db.runs()] == [run_id] and db.count_matches() == 1
