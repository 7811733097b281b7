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
        "budget": "[budget]\ntrials = 4\nblock = 2\nblocks = 4",
        "openings": "[openings]\ntuning = [0, 100]\nselection = [100, 200]\nconfirmation = [300, 500]",
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
def test_every_shipped_study_file_is_valid_with_disjoint_openings(path: Path) -> None:
    study = load_study_file(path)
    assert study.name == path.stem
    parts = [set(study.tuning_openings), set(study.selection_openings), set(study.confirmation_openings)]
    assert not (parts[0] & parts[1] or parts[0] & parts[2] or parts[1] & parts[2])
    assert study.player_spec(study.incumbent_weights())


def test_the_required_study_files_are_shipped() -> None:
    names = {p.stem for p in STUDIES}
    assert {"totality-wise", "ravenward", "xiangqi", "demo-totality"} <= names


def test_a_valid_study_reads_its_budget_openings_and_weight_ranges() -> None:
    study = parse_study_file(study_text())
    feature = features(GAME)[FEATURES[0]]
    assert study.game == "totality:level=easy"
    assert (study.block, study.blocks, study.openings_per_trial, study.trials, study.parallel) == (2, 4, 8, 4, 4)
    assert (study.weights[0].low, study.weights[0].high, study.weights[0].default) == (
        feature.low, feature.high, feature.default)
    assert study.tuning_openings == range(0, 100) and study.selection_openings == range(100, 200)
    assert study.confirmation_openings == range(300, 500)
    assert (study.objective, study.sampler, study.pruner) == ("mean_score", "tpe", "incumbent")
    assert study.incumbent_weights() == {FEATURES[0]: feature.default}
    # the confirmation is sized for 2% of the score's range unless the file says, the tolerance twice that
    assert study.confirmation.smallest_gain == pytest.approx(0.02 * 420 * 0.6, rel=0.05)
    assert study.confirmation.tolerance == 2 * study.confirmation.smallest_gain


def test_weights_given_as_a_list_of_names_take_the_features_ranges() -> None:
    study = parse_study_file(study_text(weights=f"weights = {FEATURES[:2]!r}".replace("'", '"')))
    assert [w.name for w in study.weights] == FEATURES[:2]


def test_the_incumbent_may_start_elsewhere_than_the_defaults() -> None:
    feature = features(GAME)[FEATURES[0]]
    study = parse_study_file(study_text(incumbent=f"[incumbent]\n{FEATURES[0]} = {feature.low}"))
    assert study.incumbent_weights() == {FEATURES[0]: feature.low}
    assert "outside the range" in error_of(study_text(incumbent=f"[incumbent]\n{FEATURES[0]} = {feature.high + 1}"))
    assert "not a searched weight" in error_of(study_text(incumbent="[incumbent]\nnosuch = 1"))


@pytest.mark.parametrize(("key", "says"), [
    ("seeds", "replaced by [openings]"), ("opening_plies", "replaced by [openings] suite"),
    ("validation", "replaced by [confirmation]"),
])
def test_keys_of_the_old_study_files_say_what_replaced_them(key: str, says: str) -> None:
    extra = {"seeds": "[seeds]\ntuning = [0, 8]", "opening_plies": "opening_plies = 2",
             "validation": "[validation]\nplayer = { depth = 2 }"}[key]
    assert f"{key}: no longer a study key; {says}" in error_of(study_text(old=extra))


def test_an_unknown_top_level_key_names_the_key_and_the_valid_keys() -> None:
    message = error_of(study_text(name='name = "check"\nbugdet = 3'))
    assert "bugdet: unknown key" in message and "valid: name, description, game" in message


def test_an_unknown_weight_names_the_valid_features() -> None:
    message = error_of(study_text(weights="[weights]\nwobbliness = {}"))
    assert "weights.wobbliness" in message and ", ".join(FEATURES) in message


def test_an_unknown_key_inside_a_weight_names_the_weight_keys() -> None:
    message = error_of(study_text(weights=f"[weights]\n{FEATURES[0]} = {{ lo = 1 }}"))
    assert f"weights.{FEATURES[0]}.lo: unknown key; valid: low, high, log, choices" in message


def test_overlapping_parts_of_the_suite_are_an_error() -> None:
    message = error_of(study_text(openings="[openings]\ntuning = [0, 100]\nselection = [50, 150]\n"
                                           "confirmation = [300, 400]"))
    assert "openings: tuning and selection overlap" in message and "disjoint" in message


def test_a_part_past_the_end_of_the_suite_names_its_size() -> None:
    message = error_of(study_text(openings="[openings]\ntuning = [0, 100]\nselection = [100, 200]\n"
                                           "confirmation = [300, 99999]"))
    assert "openings.confirmation" in message and "goes past the suite" in message


@pytest.mark.parametrize("confirmation", ["[1000, 1101]", "[1100, 1200]", "[1150, 1160]"])
def test_the_openings_kept_for_strength_claims_are_refused(confirmation: str) -> None:
    message = error_of(study_text(openings="[openings]\ntuning = [0, 100]\nselection = [100, 200]\n"
                                           f"confirmation = {confirmation}"))
    assert "openings.confirmation" in message and "1100-1199, which are kept for strength claims" in message


def test_the_openings_just_below_those_kept_are_a_studys() -> None:
    config = parse_study_file(study_text(openings="[openings]\ntuning = [0, 100]\nselection = [100, 200]\n"
                                                  "confirmation = [300, 1100]"), "studies/check.toml")
    assert config.confirmation_openings == range(300, 1100)


def test_an_unknown_suite_names_the_known_ones() -> None:
    message = error_of(study_text(openings="[openings]\nsuite = \"nosuch\"\ntuning = [0, 100]\n"
                                           "selection = [100, 200]\nconfirmation = [300, 400]"))
    assert "openings.suite" in message and "nosuch" in message


@pytest.mark.parametrize("key, value, choices", [
    ("objective", 'objective = "median"', "mean_score, rank1_rate, win_rate, wdl"),
    ("sampler", 'sampler = "grid"', "tpe, cmaes, spsa, random"),
    ("pruner", 'pruner = "median"', "incumbent, none"),
])
def test_an_unknown_choice_names_the_valid_choices(key: str, value: str, choices: str) -> None:
    message = error_of(study_text(**{key: value}))
    assert f"{key}: unknown {key}" in message and f"valid: {choices}" in message


def test_malformed_toml_is_one_error_naming_the_file() -> None:
    message = error_of(study_text() + "trials = = 3\n")
    assert "not valid TOML" in message


def test_a_missing_key_is_named() -> None:
    assert "opponent: missing" in error_of(study_text(opponent=""))


def test_too_few_tuning_openings_for_a_trial_is_an_error() -> None:
    message = error_of(study_text(openings="[openings]\ntuning = [0, 4]\nselection = [10, 20]\n"
                                           "confirmation = [30, 40]"))
    assert "openings.tuning: 4 openings cannot fill a trial's 8" in message


def test_the_sampler_settings_are_checked_for_the_chosen_sampler() -> None:
    assert parse_study_file(study_text(sampler='sampler = "cmaes"', cmaes="[cmaes]\nsigma = 0.2")
                            ).sampler_settings == {"sigma": 0.2}
    assert "cmaes.sigma" in error_of(study_text(sampler='sampler = "cmaes"', cmaes="[cmaes]\nsigma = 3"))
    assert "settings of the spsa sampler" in error_of(study_text(spsa="[spsa]\nc = 0.1"))
    assert "spsa.alpha" in error_of(study_text(sampler='sampler = "spsa"', spsa="[spsa]\nalpha = 1.5"))
    study = parse_study_file(study_text(sampler='sampler = "spsa"', spsa="[spsa]\nc = 0.2\na = 2.0"))
    assert study.spsa_settings().c == 0.2 and study.spsa_settings().a == 2.0


def test_a_range_that_excludes_the_default_is_an_error() -> None:
    feature = features(GAME)[FEATURES[0]]
    low, high = feature.default + 1, feature.default + 2
    message = error_of(study_text(weights=f"[weights]\n{FEATURES[0]} = {{ low = {low}, high = {high} }}"))
    assert "excludes the default" in message


def test_a_bad_player_parameter_names_the_valid_parameters() -> None:
    message = error_of(study_text(player='[player]\nkind = "alphabeta"\ndeep = 2'))
    assert "player:" in message and "valid parameters" in message


def test_the_confirmation_may_play_the_weights_at_another_budget_against_more_opponents() -> None:
    from players.ladder import ladder
    study = parse_study_file(study_text(confirmation="[confirmation]\nplayer = { depth = 3 }\n"
                                                     "opponents = \"ladder\"\nsmallest_gain = 5\ntolerance = 7"))
    assert study.confirmation.player == {"depth": 3}
    assert study.confirmation.opponents == tuple(ladder("totality"))
    assert (study.confirmation.smallest_gain, study.confirmation.tolerance) == (5.0, 7.0)
    trial = study.player_spec(study.incumbent_weights() | {FEATURES[0]: 1.234})
    assert "depth=1" in trial and study.confirmation_spec(trial) == trial.replace("depth=1", "depth=3")
    assert study.fingerprint() == parse_study_file(study_text()).fingerprint()  # added to a study, it resumes


@pytest.mark.parametrize(("table", "key", "says"), [
    ("[confirmation]\nplayers = { depth = 3 }", "confirmation.players", "unknown key; valid: player"),
    ("[confirmation]\nplayer = { kind = \"greedy\" }", "confirmation.player.kind", "trials' kind, weights"),
    ("[confirmation]\nplayer = { weights = { corners = 1.0 } }", "confirmation.player.weights", "trials' kind"),
    ("[confirmation]\nplayer = { depht = 3 }", "confirmation.player", "depht"),
    ("[confirmation]\nplayer = 3", "confirmation.player", "is not a table of the player's fixed parameters"),
    ("[confirmation]\nsmallest_gain = 0", "confirmation.smallest_gain", "is not positive"),
    ("[confirmation]\npower = 0.3", "confirmation.power", "is not in [0.5, 1)"),
    ("[confirmation]\nopponents = [\"nosuch\"]", "confirmation.opponents", "nosuch"),
])
def test_a_bad_confirmation_table_is_one_line_naming_the_key(table: str, key: str, says: str) -> None:
    message = error_of(study_text(confirmation=table))
    assert f"studies/check.toml: {key}: " in message and says in message


def test_the_confirmation_cannot_set_a_searched_parameter() -> None:
    text = study_text(confirmation="[confirmation]\nplayer = { nodes = 5000 }",
                      params="[params]\nnodes = { low = 100, high = 10000, default = 1000 }")
    assert "confirmation.player.nodes: the confirmation plays the trials'" in error_of(text)


def test_every_opening_is_played_in_every_game_against_every_opponent() -> None:
    study = parse_study_file(study_text(game='game = ["totality:wise", "totality:easy"]',
                                        opponent='opponent = ["greedy", "random"]'))
    assert study.opponents == ("greedy", "random") and study.opponent == "greedy + random"
    assert study.game_specs == ("totality", "totality:level=easy") and study.game == "totality"
    assert study.games_label == "totality + totality:level=easy"
    matches = study.matches("greedy", [4, 5])
    assert [(m.seed, m.game, m.opponent) for m in matches] == [
        (4, "totality", "greedy"), (4, "totality", "random"), (4, "totality:level=easy", "greedy"),
        (4, "totality:level=easy", "random"), (5, "totality", "greedy"), (5, "totality", "random"),
        (5, "totality:level=easy", "greedy"), (5, "totality:level=easy", "random")]
    assert {m.openings for m in matches} == {study.suite} and all(m.opening_plies == 0 for m in matches)


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
    assert error.count("\n") == 0 and str(path) in error and "valid: tpe, cmaes, spsa, random" in error


def test_a_study_whose_creation_was_cut_short_is_finished_by_the_next_driver(tmp_path):
    """Optuna writes a study, its attributes and its incumbent in separate transactions: a driver
    stopped in between must not leave a study without its incumbent or its study file."""
    import optuna

    from harness.db import open_database
    from harness.tuning import open_study, parse_study_file, stored_study_file
    from tests.tuning_studies import tiny_study
    url = f"sqlite:///{tmp_path / 'h.db'}"
    open_database(url).close()
    config = parse_study_file(tiny_study("cut-short"))
    optuna.create_study(storage=url, study_name=config.name, direction="maximize")  # then the driver died
    open_study(config, url)
    (incumbent,) = optuna.load_study(study_name=config.name, storage=url).get_trials(deepcopy=False)
    assert incumbent.params == {} and incumbent.user_attrs["incumbent"] is True
    assert incumbent.system_attrs["fixed_params"] == config.incumbent_weights()
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
        trial = study.ask(config, 0)
        run_id = db.start_run("study", config.game, {}, name=f"{config.name}/trial-{trial.number}",
                              study=config.name, trial=trial.number)
        other = db.start_run("study", config.game, {}, name="another-study/trial-0")
        study.tell_complete(trial, 1.0)  # ... and the driver stopped here
        driver = Driver(config, study, db, None, target=1, opponents=("greedy",))
        driver.told = study.told()
        driver.close_finished_runs()
        assert db.run(run_id).status == "done" and db.run(other).status == "running"
