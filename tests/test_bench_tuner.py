"""scripts/bench_tuner.py: a tiny run prints one JSON line of the documented shape, and ``--out`` resumes.

A smoke test of the benchmark's plumbing on ``--quick`` (one in-process worker, one study), not a
measurement: the figures themselves are in docs/tuning.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "bench_tuner.py"
ARGS = ("--quick", "--games", "totality", "--problems", "null", "--samplers", "tpe", "--reps", "1",
        "--no-two-workers")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT)


def test_a_quick_run_prints_one_json_line_and_a_resumed_run_plays_nothing_again(tmp_path):
    out = tmp_path / "bench.jsonl"
    first = run(*ARGS, "--out", str(out))
    assert first.returncode == 0, first.stderr
    (line,) = first.stdout.splitlines()
    report = json.loads(line)
    assert report["format"] == "bench_tuner/1" and report["budget"] == "quick"
    assert report["setting"]["totality"]["budget"]["trials"] >= 2
    (row,) = report["results"]
    assert (row["game"], row["problem"], row["sampler"], row["reps"]) == ("totality", "null", "tpe", 1)
    assert sum(row["verdicts"].values()) == 1 and set(row["verdicts"]) == {"better", "no gain", "worse"}
    assert 0 <= row["wilson95"][0] <= row["false_better"] <= row["wilson95"][1] <= 1
    assert row["mean_games_tuning"] > 0 and row["identical_1_2"] is None  # no 2-worker run asked
    (record,) = map(json.loads, out.read_text().splitlines())
    assert (record["game"], record["problem"], record["sampler"], record["rep"]) == ("totality", "null", "tpe", 0)

    again = run(*ARGS, "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert len(out.read_text().splitlines()) == 1  # the study in the file was skipped
    assert json.loads(again.stdout)["results"] == report["results"]


def test_an_unknown_problem_is_one_usage_line():
    done = run("--problems", "nul")
    assert done.returncode == 2 and "valid: gain_large, gain_small, null" in done.stderr
