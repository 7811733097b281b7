"""The study report: pruned trials show their last intermediate value and games; an empty study says so."""

from __future__ import annotations

from harness.cli import main
from harness.db import open_database
from harness.report import trial_rows
from harness.tuning import open_study, parse_study_file
from tests.tuning_studies import tiny_study


def test_a_pruned_trial_shows_its_last_intermediate_value_and_games():
    rows = trial_rows([{"number": 3, "state": "pruned", "value": None, "intermediate": {4: 120.0, 8: 95.5},
                        "games": 8, "params": {"corners": 1.0}},
                       {"number": 4, "state": "complete", "value": 130.0, "intermediate": {}, "games": 16,
                        "params": {}}])
    assert rows[0]["last intermediate"] == "95.5 at step 8" and rows[0]["games"] == 8 and rows[0]["value"] is None
    assert rows[1]["last intermediate"] is None and rows[1]["value"] == 130.0


def test_a_study_without_a_complete_trial_is_reported_with_one_line(tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'harness.db'}"
    config = parse_study_file(tiny_study("unfinished"))
    open_database(url).close()  # as harness tune does: a report only reads a harness results database
    study = open_study(config, url)
    trial = study.ask(config, 0)
    for step, value in ((0, 40.0), (1, 12.5)):
        trial.report(value, step)
    trial.set_attr("games", 2)
    study.tell_pruned(trial)
    out_file = tmp_path / "report.html"
    assert main(["report", "unfinished", "--out", str(out_file), "--db", url]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["study unfinished has no complete trial yet (1 pruned, 0 running); "
                     "harness tune runs more", f"wrote {out_file}"]
    page = out_file.read_text()
    assert "12.5 at step 1" in page and "last intermediate" in page
    assert main(["report", "unfinished", "--out", str(tmp_path / "no" / "r.html"), "--db", url]) == 2
    assert "does not exist" in capsys.readouterr().err
