"""``harness tune`` as a user sees it: in-process for one worker, --json, a read-only database."""

from __future__ import annotations

import json
from pathlib import Path

from harness.cli import main
from harness.db import open_database
from tests.tuning_studies import tiny_study


def test_a_read_only_database_is_one_line_and_exit_1_and_the_study_resumes_after(
        tmp_path: Path, capsys) -> None:
    study = tmp_path / "ro.toml"
    study.write_text(tiny_study("ro", trials=4))
    path = tmp_path / "harness.db"
    assert main(["tune", str(study), "--workers", "1", "--trials", "2", "--db", f"sqlite:///{path}", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["trials_complete"] + first["trials_pruned"] == 2 and first["workers"] == 1
    with open_database(f"sqlite:///{path}") as db:
        rows_before = db.count_matches()

    read_only = f"sqlite:///file:{path}?mode=ro&uri=true"
    assert main(["tune", str(study), "--workers", "1", "--db", read_only]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("harness: error:") and "readonly" in err and "\n" not in err
    with open_database(f"sqlite:///{path}") as db:
        assert db.count_matches() == rows_before  # nothing half-written

    assert main(["tune", str(study), "--workers", "1", "--db", f"sqlite:///{path}", "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert resumed["trials_complete"] + resumed["trials_pruned"] == 4
    assert resumed["outcome"]["verdict"] in ("better", "no gain", "worse")
