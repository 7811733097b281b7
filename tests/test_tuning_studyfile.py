"""Study files: every shipped file is valid, and each kind of mistake is one clear error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.errors import StudyFileError
from harness.tuning import load_study_file, parse_study_file
from players.features import features

ROOT = Path(__file__).resolve().parents[1]
STUDIES = sorted((ROOT / "studies").glob("*.toml"))
GAME = "totality"
FEATURES = list(features(GAME))


def study_text(**replace: str) -> str:
    """A valid study on Totality; ``replace`` swaps whole lines by their key."""
    lines = {
        "name": 'name = "check"',
        "game": 'game = "totality:easy"',
        "objective": 'objective = "mean_score"',
        "player": '[player]\nkind = "alphabeta"\ndepth = 1',
        "opponent": 'opponent = "greedy"',
        "budget": "[budget]\ntrials = 4\ngames = 8\nrungs = [2, 4, 8]",
        "seeds": "[seeds]\ntuning = [0, 100]\nvalidation = [1000, 1100]",
        "weights": f"[weights]\n{FEATURES[0]} = {{}}",
    }
    lines.update(replace)
    top = [v for k, v in lines.items() if not v.startswith("[") and v]
    tables = [v for k, v in lines.items() if v.startswith("[")]
    return "\n".join(top + tables) + "\n"


def error_of(text: str) -> str:
    with pytest.raises(StudyFileError) as caught:
        parse_study_file(text, "studies/check.toml")
    message = str(caught.value)
    assert message.startswith("studies/check.toml: "), message
    assert "\n" not in message
    return message


@pytest.mark.parametrize("path", STUDIES, ids=lambda p: p.name)
def test_every_shipped_study_file_is_valid_with_disjoint_seeds(path: Path) -> None:
    study = load_study_file(path)
    assert study.name == path.stem
    assert not set(study.tuning_seeds) & set(study.validation_seeds)
    assert study.player_spec(study.default_weights())


def test_the_required_study_files_are_shipped() -> None:
    names = {p.stem for p in STUDIES}
    assert {"totality-wise", "ravenward", "xiangqi", "demo-totality"} <= names


def test_a_valid_study_reads_its_budget_seeds_and_weight_ranges() -> None:
    study = parse_study_file(study_text())
    feature = features(GAME)[FEATURES[0]]
    assert study.game == "totality:level=easy"
    assert study.rungs == (2, 4, 8) and study.games == 8 and study.trials == 4
    assert (study.weights[0].low, study.weights[0].high, study.weights[0].default) == (
        feature.low, feature.high, feature.default)
    assert study.tuning_seeds == range(0, 100) and study.validation_seeds == range(1000, 1100)
    assert (study.objective, study.sampler, study.pruner) == ("mean_score", "tpe", "wilcoxon")


def test_weights_given_as_a_list_of_names_take_the_features_ranges() -> None:
    study = parse_study_file(study_text(weights=f"weights = {FEATURES[:2]!r}".replace("'", '"')))
    assert [w.name for w in study.weights] == FEATURES[:2]


def test_rungs_default_to_a_geometric_ladder_up_to_the_games() -> None:
    study = parse_study_file(study_text(budget="[budget]\ntrials = 4\ngames = 128",
                                        seeds="[seeds]\ntuning = [0, 200]\nvalidation = [1000, 1100]"))
    assert study.rungs == (8, 32, 128)


def test_an_unknown_top_level_key_names_the_key_and_the_valid_keys() -> None:
    message = error_of(study_text(name='name = "check"\nbugdet = 3'))
    assert "bugdet: unknown key" in message and "valid: name, description, game" in message


def test_an_unknown_weight_names_the_valid_features() -> None:
    message = error_of(study_text(weights="[weights]\nwobbliness = {}"))
    assert "weights.wobbliness" in message and ", ".join(FEATURES) in message


def test_an_unknown_key_inside_a_weight_names_the_weight_keys() -> None:
    message = error_of(study_text(weights=f"[weights]\n{FEATURES[0]} = {{ lo = 1 }}"))
    assert f"weights.{FEATURES[0]}.lo: unknown key; valid: low, high, log, choices" in message


def test_overlapping_seed_ranges_are_an_error() -> None:
    message = error_of(study_text(seeds="[seeds]\ntuning = [0, 100]\nvalidation = [50, 150]"))
    assert "seeds:" in message and "disjoint" in message


@pytest.mark.parametrize("key, value, choices", [
    ("objective", 'objective = "median"', "mean_score, lcb, rank1_rate, win_rate, rank1_wins"),
    ("sampler", 'sampler = "grid"', "tpe, random, cmaes"),
    ("pruner", 'pruner = "median"', "wilcoxon, halving, none"),
])
def test_an_unknown_choice_names_the_valid_choices(key: str, value: str, choices: str) -> None:
    message = error_of(study_text(**{key: value}))
    assert f"{key}: unknown {key}" in message and f"valid: {choices}" in message


def test_malformed_toml_is_one_error_naming_the_file() -> None:
    message = error_of(study_text() + "trials = = 3\n")
    assert "not valid TOML" in message


def test_a_missing_key_is_named() -> None:
    assert "opponent: missing" in error_of(study_text(opponent=""))


def test_halving_needs_rungs_growing_by_one_factor() -> None:
    message = error_of(study_text(name='name = "check"\npruner = "halving"',
                                  budget="[budget]\ntrials = 4\nrungs = [2, 5, 8]"))
    assert "budget.rungs" in message


def test_the_last_rung_must_equal_the_games() -> None:
    assert "budget.rungs" in error_of(study_text(budget="[budget]\ntrials = 4\ngames = 9\nrungs = [2, 8]"))


def test_too_few_tuning_seeds_for_the_games_is_an_error() -> None:
    message = error_of(study_text(seeds="[seeds]\ntuning = [0, 4]\nvalidation = [10, 20]"))
    assert "seeds.tuning" in message


def test_a_range_that_excludes_the_default_is_an_error() -> None:
    feature = features(GAME)[FEATURES[0]]
    low, high = feature.default + 1, feature.default + 2
    message = error_of(study_text(weights=f"[weights]\n{FEATURES[0]} = {{ low = {low}, high = {high} }}"))
    assert "excludes the default" in message


def test_a_bad_player_parameter_names_the_valid_parameters() -> None:
    message = error_of(study_text(player='[player]\nkind = "alphabeta"\ndeep = 2'))
    assert "player:" in message and "valid parameters" in message


def test_the_validation_may_play_the_weights_at_another_budget() -> None:
    study = parse_study_file(study_text(validation="[validation]\nplayer = { depth = 3 }"))
    assert study.validation_player == {"depth": 3}
    trial = study.player_spec(study.default_weights() | {FEATURES[0]: 1.234})
    assert "depth=1" in trial and study.validation_spec(trial) == trial.replace("depth=1", "depth=3")
    assert study.fingerprint() == parse_study_file(study_text()).fingerprint()  # added to a study, it resumes


@pytest.mark.parametrize(("table", "key", "says"), [
    ("[validation]\nplayers = { depth = 3 }", "validation.players", "unknown key; valid: player"),
    ("[validation]\nplayer = { kind = \"greedy\" }", "validation.player.kind", "trials' kind, weights"),
    ("[validation]\nplayer = { weights = { corners = 1.0 } }", "validation.player.weights", "trials' kind"),
    ("[validation]\nplayer = { depht = 3 }", "validation.player", "depht"),
    ("[validation]\nplayer = 3", "validation.player", "is not a table of the player's fixed parameters"),
])
def test_a_bad_validation_table_is_one_line_naming_the_key(table: str, key: str, says: str) -> None:
    message = error_of(study_text(validation=table))
    assert f"studies/check.toml: {key}: " in message and says in message


def test_the_validation_cannot_set_a_searched_parameter() -> None:
    text = study_text(validation="[validation]\nplayer = { nodes = 5000 }",
                      params="[params]\nnodes = { low = 100, high = 10000, default = 1000 }")
    assert "validation.player.nodes: the validation plays the trials'" in error_of(text)


def test_a_study_may_take_turns_against_several_opponents() -> None:
    study = parse_study_file(study_text(opponent='opponent = ["greedy", "random"]'))
    assert study.opponents == ("greedy", "random") and study.opponent == "greedy + random"
    assert [(m.seed, m.opponent) for m in study.matches("p", study.opponents, range(4, 7))] == [
        (4, "greedy"), (5, "random"), (6, "greedy")]
    single = parse_study_file(study_text())
    assert json.loads(single.fingerprint())["opponent"] == "greedy"  # a study of one opponent resumes as before
    assert json.loads(study.fingerprint())["opponent"] == ["greedy", "random"]


def test_a_study_may_take_turns_over_one_games_seats_or_levels() -> None:
    """Seeds take turns over the games after each round of the opponents: every 4 seeds of 2 x 2 play
    each game against each opponent once."""
    study = parse_study_file(study_text(game='game = ["totality:wise", "totality:easy"]',
                                        opponent='opponent = ["greedy", "random"]'))
    assert study.game_specs == ("totality", "totality:level=easy") and study.game == "totality"
    assert study.games_label == "totality + totality:level=easy"
    assert [(m.seed, m.game, m.opponent) for m in study.matches("p", study.opponents, range(4, 9))] == [
        (4, "totality", "greedy"), (5, "totality", "random"), (6, "totality:level=easy", "greedy"),
        (7, "totality:level=easy", "random"), (8, "totality", "greedy")]
    assert json.loads(study.fingerprint())["game"] == ["totality", "totality:level=easy"]
    single = parse_study_file(study_text())
    assert single.game_specs == ("totality:level=easy",)
    assert json.loads(single.fingerprint())["game"] == "totality:level=easy"  # one game resumes as before


@pytest.mark.parametrize(("line", "says"), [
    ('game = []', "is not a game spec or a non-empty list of one game's specs"),
    ('game = ["totality", 3]', "is not a game spec or a non-empty list of one game's specs"),
    ('game = ["totality", "totality:wise"]', "names a game configuration twice"),
    ('game = ["totality", "ravenward"]', "ravenward and totality are different games"),
    ('game = ["totality", "nosuch"]', "nosuch"),
])
def test_a_bad_game_list_is_one_line(line: str, says: str) -> None:
    message = error_of(study_text(game=line))
    assert "studies/check.toml: game: " in message and says in message


@pytest.mark.parametrize(("line", "says"), [
    ('opponent = []', "is not a player spec or a non-empty list of them"),
    ('opponent = ["greedy", 3]', "is not a player spec or a non-empty list of them"),
    ('opponent = ["greedy", "greedy"]', "names an opponent twice"),
    ('opponent = ["greedy", "nosuch"]', "nosuch"),
])
def test_a_bad_opponent_list_is_one_line(line: str, says: str) -> None:
    message = error_of(study_text(opponent=line))
    assert "studies/check.toml: opponent: " in message and says in message


def test_a_player_kind_without_weights_is_refused() -> None:
    assert "player.kind" in error_of(study_text(player='[player]\nkind = "greedy"'))


def test_the_tune_command_turns_a_bad_study_file_into_one_line_and_exit_2(tmp_path, capsys) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(study_text(sampler='sampler = "grid"'))
    assert main(["tune", str(path)]) == 2
    error = capsys.readouterr().err.strip()
    assert error.count("\n") == 0 and str(path) in error and "valid: tpe, random, cmaes" in error


def test_a_study_whose_creation_was_cut_short_is_finished_by_the_next_driver(tmp_path):
    """Optuna writes a study, its attributes and its baseline in separate transactions: a driver
    stopped in between must not leave a study without its baseline or its study file."""
    import optuna

    from harness.db import open_database
    from harness.tuning import open_study, parse_study_file, stored_study_file
    from tests.tuning_studies import tiny_study
    url = f"sqlite:///{tmp_path / 'h.db'}"
    open_database(url).close()
    config = parse_study_file(tiny_study("cut-short"))
    optuna.create_study(storage=url, study_name=config.name, direction="maximize")  # then the driver died
    open_study(config, url)
    (baseline,) = optuna.load_study(study_name=config.name, storage=url).get_trials(deepcopy=False)
    assert baseline.params == {} and baseline.user_attrs["baseline"] is True
    assert baseline.system_attrs["fixed_params"] == config.default_weights()
    assert stored_study_file(config.name, url).fingerprint() == config.fingerprint()
    again = open_study(config, url)  # finished once: nothing is added
    assert len(again.trials()) == 1


def test_a_trial_told_finished_whose_run_was_left_running_is_closed_on_resume(tmp_path):
    """Telling Optuna a trial's end and closing its run are two stores, two transactions: a driver
    stopped between them leaves the run running, and the next driver marks it done."""
    from harness.db import open_database
    from harness.tuning import Driver, open_study, parse_study_file
    from tests.tuning_studies import tiny_study
    url = f"sqlite:///{tmp_path / 'h.db'}"
    config = parse_study_file(tiny_study("left-running"))
    with open_database(url) as db:
        study = open_study(config, url)
        trial = study.ask()
        run_id = db.start_run("study", config.game, {}, name=f"{config.name}/trial-{trial.number}",
                              study=config.name, trial=trial.number)
        other = db.start_run("study", config.game, {}, name="another-study/trial-0")
        study.tell_complete(trial, 1.0)  # ... and the driver stopped here
        Driver(config, study, db, None, target=1, parallel=1, opponents=("greedy",)).close_finished_runs()
        assert db.run(run_id).status == "done" and db.run(other).status == "running"
