"""scripts/rename_player.py: export lines of one player renamed to another spec, each key recomputed, so
harness db import loads them (every key checked) as the new player's games."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from harness.cli import main
from harness.db import open_database
from harness.match import MatchSpec, match_key
from tests.scripts import export_file

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "rename_player.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT)


def test_renamed_lines_carry_the_new_specs_keys_and_import_as_its_games(tmp_path, capsys):
    specs = [MatchSpec("totality", "alphabeta:depth=1", "random", seed, 2) for seed in range(2)]
    source = export_file(tmp_path / "source.jsonl", specs + [MatchSpec("totality", "greedy", "random", 0, 2)])
    target = tmp_path / "renamed.jsonl"
    done = run(str(source), str(target), "--player", "alphabeta:depth=1", "--as", "alphabeta:depth=1,nodes=100000000")
    assert done.returncode == 0, done.stderr
    assert "2 matches renamed" in done.stderr
    rows = [json.loads(line) for line in target.read_text().splitlines()]
    renamed = [row for row in rows if row["player"] != "greedy"]
    new = rows[0]["player"]
    assert len(renamed) == 2 and "match_id" not in rows[0] and new != "alphabeta:depth=1"
    assert {row["key"] for row in renamed} == {match_key(MatchSpec("totality", new, "random", s, 2)) for s in (0, 1)}
    db = f"sqlite:///{tmp_path / 'renamed.db'}"
    assert main(["db", "import", str(target), "--quiet", "--db", db]) == 0
    assert "3 matches: 3 stored" in capsys.readouterr().out
    with open_database(db) as database:
        assert sorted(m.player for m in database.matches()) == sorted([new, new, "greedy"])


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    target = tmp_path / "out.jsonl"
    missing = run(str(tmp_path / "missing.jsonl"), str(target), "--player", "greedy", "--as", "random")
    assert missing.returncode == 2 and "no such file of match lines" in missing.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"game": "totality"}\n')
    done = run(str(bad), str(target), "--player", "greedy", "--as", "random")
    assert done.returncode == 2 and "bad.jsonl line 1 lacks the key 'player'" in done.stderr
