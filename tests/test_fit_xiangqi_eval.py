"""scripts/fit_xiangqi_eval.py: the ridge fit recovers the weights behind its readings, the real
Fairy-Stockfish reads stored positions once (kept across runs), the tables are written, the weights
alone are left to harness fit, and bad input is exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.games.xiangqi.features import correction_tables, square_table
from harness.match import MatchSpec
from tests.scripts import export_file, script_module

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "fit_xiangqi_eval.py"


@pytest.fixture(scope="module")
def script():
    with script_module("fit_xiangqi_eval") as module:
        yield module


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600,
                          cwd=ROOT)


def test_the_fit_recovers_the_weights_behind_the_readings_on_the_priors_scale(script):
    rng = np.random.default_rng(1)
    features = rng.normal(size=(400, 5))
    truth = np.array([9.0, 4.5, 4.0, 1.0, 0.2])
    readings = 0.8 * features @ truth  # an engine whose pawn is 0.8 of the evaluation's
    factor = script.scale(features @ truth, readings)
    assert factor == pytest.approx(0.8)
    assert script.fit(features, readings / factor, truth * 2.0, ridge=0.0) == pytest.approx(truth)
    # on another prior's scale the weights are the truth on that scale
    assert script.fit(features, readings / script.scale(features @ truth * 2.0, readings), truth, ridge=0.0) \
        == pytest.approx(truth * 2.0)
    # a strong ridge keeps the prior
    assert script.fit(features, readings, np.ones(5), ridge=1e9) == pytest.approx(np.ones(5), abs=1e-3)


def test_every_weight_but_the_limit_has_its_own_contribution(script):
    start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
    assert "move_limit" not in script.FITTED and "squares" not in script.FITTED
    assert len(script.FITTED) == len(script.FEATURES) - 1 - len(script.TABLES)
    assert np.allclose(script.contributions(script.RULES.from_fen(start)), 0.0)  # the start is symmetric: every term cancels
    after = script.contributions(script.RULES.from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/1NBAKABNR w - - 0 1"))
    assert after[script.FITTED.index("chariot")] == -1.0  # red without a chariot


def test_the_engine_reads_each_position_once_and_the_fit_is_repeatable(script, fairy_stockfish, tmp_path):
    labels = tmp_path / "labels.jsonl"
    results = export_file(tmp_path / "results.jsonl", [MatchSpec("xiangqi", "random", "random", seed, 2)
                                                       for seed in range(8)])
    weights_only = run(str(results), "--labels", str(labels), "--depth", "2", "--json")
    assert weights_only.returncode == 2 and "harness fit xiangqi --label search" in weights_only.stderr
    assert not labels.exists()  # refused before any reading: the weights alone are harness fit's
    table = tmp_path / "squares.json"
    first = run(str(results), "--labels", str(labels), "--depth", "2", "--json", "--squares", str(table))
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["positions"] == len(labels.read_text().splitlines()) > report["quiet"] > 180
    assert len(report["weights"]) == 19 and report["spec"].startswith("w.advisor=")
    assert set(report["correlation"]) == {"defaults", "fitted"}
    again = run(str(results), "--labels", str(labels), "--depth", "2", "--json", "--squares", str(table))
    assert "new positions" not in again.stderr  # every reading came from LABELS
    assert json.loads(again.stdout) == report
    # the move counts held: the table is written in the form the engine reads
    held = ["mobility", "horse_mobility", "chariot_mobility", "cannon_mobility"]
    squares = run(str(results), "--labels", str(labels), "--depth", "2", "--json", "--squares", str(table),
                  *[arg for name in held for arg in ("--without", name)])
    assert squares.returncode == 0, squares.stderr
    weights = json.loads(squares.stdout)["weights"]
    assert weights["squares"] == 1.0 and all(weights[name] == 0.0 for name in held + list(script.SUBSUMED))
    values = square_table(table)
    assert values.shape == (8, 90) and np.abs(values).sum() > 0
    # the corrections over the evaluation as it is: every weight kept, the three tables written and read
    corrections = tmp_path / "corrections.json"
    fitted = run(str(results), "--labels", str(labels), "--depth", "2", "--json", "--corrections", str(corrections))
    assert fitted.returncode == 0, fitted.stderr
    report = json.loads(fitted.stdout)
    kept = {name: feature.default for name, feature in script.FEATURES.items() if name in script.FITTED}
    assert {name: report["weights"][name] for name in kept} == kept
    assert all(report["weights"][name] == 1.0 for name in ("early_squares", "late_squares", "attack_squares"))
    assert report["correlation"]["fitted"] > report["correlation"]["defaults"]
    tables = correction_tables(corrections)
    assert tables.shape == (3, 8, 90) and all(np.abs(tables[plane]).sum() > 0 for plane in range(3))
    assert np.abs(tables[2, [1, 2, 3]]).sum() == 0.0  # general, advisor, elephant: no attack values
    # the start position: 32 pieces, each of red's on the square of its black twin seen from black
    start = script.RULES.initial_state()
    signed, present = script.square_counts(start)
    assert present.sum() == 32 and signed.sum() == 0.0


@pytest.mark.parametrize("args, says", [
    (["missing.jsonl", "--labels", "labels.jsonl"], "missing.jsonl is not a file"),
    (["--labels", "no/such/folder/labels.jsonl"], "--labels: the folder no/such/folder does not exist"),
    (["--labels", "labels.jsonl", "--depth", "0"], "--depth must be at least 1"),
    (["--labels", "labels.jsonl", "--engine", "no-such-engine-here", "--squares", "t.json"],
     "--engine no-such-engine-here"),
    (["--labels", "labels.jsonl"], "give --squares or --corrections; the named weights alone are fitted by harness fit"),
    (["--labels", "labels.jsonl", "--without", "horsepower"], "--without horsepower: not a fitted weight"),
    (["--labels", "labels.jsonl", "--squares", "no/such/folder/t.json"], "--squares: the folder no/such/folder"),
    (["--labels", "labels.jsonl", "--corrections", "no/such/t.json"], "--corrections: the folder no/such does"),
    (["--labels", "labels.jsonl", "--squares", "a.json", "--corrections", "b.json"], "not both"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, says):
    results = tmp_path / "results.jsonl"
    results.write_text("")
    files = [] if args[0].endswith(".jsonl") and not args[0].startswith("--") else [str(results)]
    done = subprocess.run([sys.executable, str(SCRIPT), *files, *args], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 2
    assert says in done.stderr and done.stdout == ""


def test_export_lines_and_match_result_lines_give_the_same_positions(script, tmp_path):
    specs = [MatchSpec("xiangqi", "random", "random", seed, 2) for seed in range(2)]
    exported = export_file(tmp_path / "exported.jsonl", specs)
    lines = tmp_path / "lines.jsonl"
    lines.write_text("".join(json.dumps(json.loads(line) | {"match_id": None}) + "\n"
                             for line in exported.read_text().splitlines()))
    found = script.positions([exported])
    assert found and found == script.positions([lines])
