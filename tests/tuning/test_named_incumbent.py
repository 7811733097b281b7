"""A study whose file names a ``fitted:<name>`` (or ``tuned:<name>``) player as its incumbent.

Real code throughout: the tiny study on a SQLite database in a temporary
directory, its games played in this process (one worker, no Ray).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.cluster import InProcessPool
from harness.db import open_database
from harness.errors import StudyFileError
from harness.tuning import load_stored_study, parse_study_file, study_reference, study_trials, tune
from players.features import features
from tests.tuning_studies import GAME, HARMED, tiny_study

TABLE = features(GAME)
# the tiny study's choices for its three searched weights: the default, or harmful
HARMFUL = {name: -2 * TABLE[name].high for name in HARMED}


def named_study(name: str, incumbent: str = "fitted:start", trials: int = 3) -> str:
    """The tiny study with ``incumbent = "<incumbent>"`` in place of its ``[incumbent]`` table."""
    text = tiny_study(name, trials=trials, incumbent=f'"{incumbent}"')
    start = text.index("[incumbent]")
    return text[:start] + text[text.index("[budget]"):]


def fitted(values: dict[str, float]) -> str:
    return "alphabeta:depth=3," + ",".join(f"w.{name}={value:g}" for name, value in sorted(values.items()))


def test_a_named_incumbent_is_parsed_without_the_database_and_checked_as_a_name():
    config = parse_study_file(named_study("p"))
    assert config.incumbent_player == "fitted:start" and config.incumbent == {} and config.incumbent_spec == ""
    assert parse_study_file(named_study("p", "tuned:other")).incumbent_player == "tuned:other"
    for bad, says in (("alphabeta:depth=2", "not a named player"), ("fitted:bad name", "not valid")):
        with pytest.raises(StudyFileError, match=says):
            parse_study_file(named_study("p", bad))


def test_the_named_players_weights_are_trial_0_its_other_weights_fixed_and_the_files_fixed_ones_win():
    config = parse_study_file(named_study("w").replace('depth = 1\n', 'depth = 1\nweights = { parity = 7 }\n'))
    values = {"corners": TABLE["corners"].default, "stability": HARMFUL["stability"],
              "mobility": TABLE["mobility"].default, "frontier": -3.0, "parity": 1.0}
    started = config.with_incumbent(fitted(values))
    assert started.incumbent_weights() == {name: values[name] for name in HARMED}
    assert started.player["weights"] == {"frontier": -3.0, "parity": 7}  # searched ones not fixed; the file's win
    assert started.player["depth"] == 1  # the study's search settings, not the named player's
    assert started.fingerprint() != parse_study_file(named_study("w")).with_incumbent(fitted({})).fingerprint()
    with pytest.raises(StudyFileError, match="incumbent fitted:start: incumbent.corners: 5 is not one of the choices"):
        config.with_incumbent(fitted(values | {"corners": 5.0}))


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'harness.db'}"


def test_a_study_starts_at_the_fitted_player_and_a_resume_keeps_its_weights_after_the_name_is_rebound(url):
    first = {"corners": TABLE["corners"].default, "stability": TABLE["stability"].default,
             "mobility": HARMFUL["mobility"], "frontier": -3.0}
    with open_database(url) as db:
        db.save_named_player("start", fitted(first), "totality", kind="fitted")
    config = parse_study_file(named_study("named", trials=2))
    with InProcessPool() as pool:
        tune(config, db_url=url, pool=pool, select=False)
    trial_0 = study_trials("named", url)[0]
    assert trial_0["params"] == {name: first[name] for name in HARMED}
    assert "w.frontier=-3" in trial_0["spec"]
    stored = load_stored_study("named", url).user_attrs["incumbent_spec"]
    assert stored == fitted(first)

    with open_database(url) as db:  # the name now stands for other weights
        db.save_named_player("start", fitted(first | {"mobility": TABLE["mobility"].default}), "totality",
                             kind="fitted")
    with InProcessPool() as pool:  # a resume: same fingerprint, same incumbent, one more trial
        summary = tune(parse_study_file(named_study("named", trials=2)), trials=3, db_url=url, pool=pool,
                       select=False)
    assert summary.trials_complete + summary.trials_pruned == 3
    assert study_trials("named", url)[0] == trial_0
    assert study_reference("named", url).incumbent_spec == fitted(first)  # as the report and --validate read it


def test_an_unknown_name_or_one_of_another_game_is_one_line_and_exit_code_2(url, tmp_path, capsys):
    with open_database(url) as db:
        db.save_named_player("raven", "alphabeta:depth=2", "ravenward", kind="fitted")
    for name, says in (("fitted:nobody", "unknown fitted player 'fitted:nobody'"),
                       ("fitted:raven", "fitted:raven is a player of ravenward, not of totality")):
        study = tmp_path / "s.toml"
        study.write_text(named_study("bad", name))
        assert main(["tune", str(study), "--workers", "1", "--db", url]) == 2
        out, err = capsys.readouterr()
        assert says in err and "incumbent" in err and len(err.strip().splitlines()) == 1 and out == ""
