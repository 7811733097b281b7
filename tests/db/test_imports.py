"""The database stands on plain values: recording, listing, leaderboards and exports import
neither the players nor the match loop (the layer table of tests/test_layers.py, at run time)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import json, sys
from harness.db import open_database
from harness.db.export import export_lines
from harness.db.queries import leaderboard_document, ratings_document
from harness.results import MatchResult, canonical_match_key

with open_database(sys.argv[1]) as db:
    run = db.start_run("tournament", "totality", {"players": ["greedy"]})
    for seed, outcome in enumerate(["win", "loss", "draw"]):
        db.record(run, MatchResult(
            game="totality", player="greedy", opponent="random", seed=seed, outcome=outcome, reason="test",
            score={"win": 1.0, "draw": 0.5, "loss": 0.0}[outcome], counters={}, actions=[], plies=0,
            duration_s=0.0, player_s=0.0, opponent_s=0.0,
            key=canonical_match_key("totality", "greedy", "random", seed)))
    board = leaderboard_document(db, "totality")
    ratings = ratings_document(db, "totality")
    lines = list(export_lines(db, game="totality"))
loaded = sorted(m for m in sys.modules if m == "players" or m.startswith(("players.", "harness.match",
                                                                         "harness.envs", "harness.cluster")))
print(json.dumps({"games": board["rows"][0]["games"], "lines": len(lines), "loaded": loaded,
                  "rated": len(ratings["ratings"])}))
"""


def test_recording_and_reading_results_imports_no_player_and_no_match_loop(tmp_path):
    done = subprocess.run([sys.executable, "-c", SCRIPT, f"sqlite:///{tmp_path / 'h.db'}"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["games"] == 3 and report["lines"] == 3 and report["rated"] == 2
    assert report["loaded"] == []
