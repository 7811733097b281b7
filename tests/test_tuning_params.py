"""Studies that search numeric player parameters beside weights: ``[params]``, UCI options included."""

from __future__ import annotations

import pytest

from harness.cluster import Pool
from harness.db import open_database
from harness.errors import SpecError, StudyFileError
from harness.tuning import parse_study_file, spec_key, tune

SEEDS = """
[budget]
trials = 3
block = 1
blocks = 2

[openings]
tuning = [0, 10]
selection = [500, 502]
confirmation = [900, 902]
"""


def study(player: str, params: str, weights: str = "", name: str = "params", game: str = "xiangqi",
          opponent: str = "random") -> str:
    return (f'name = "{name}"\ngame = "{game}"\nopponent = "{opponent}"\npruner = "none"\nsampler = "random"\n'
            f"\n[player]\n{player}\n\n[params]\n{params}\n" + (f"\n[weights]\n{weights}\n" if weights else "")
            + SEEDS)


def test_a_study_searches_parameters_and_weights_and_builds_their_spec():
    config = parse_study_file(study('kind = "mcts"\niterations = 50\nrollout = "eval"',
                                    "c = { low = 0.5, high = 3.0 }\neval_depth = { low = 1, high = 3 }",
                                    weights="mobility = {}"))
    assert [(p.name, p.integer, p.default) for p in config.params] == [("c", False, 1.4), ("eval_depth", True, 1)]
    assert config.incumbent_weights()["c"] == 1.4 and "mobility" in config.incumbent_weights()
    assert config.player_spec({"c": 2.5, "eval_depth": 2, "mobility": 0.5}) == (
        "mcts:c=2.5,eval_depth=2,iterations=50,rollout=eval,w.mobility=0.5")
    assert '"params"' in config.fingerprint()


def test_a_uci_engines_options_are_parameters_with_the_defaults_the_study_gives():
    config = parse_study_file(study('kind = "uci"\ncommand = "fairy-stockfish"\nnodes = 300',
                                    '"option.Skill Level" = { low = 0, high = 20, integer = true, default = 20 }'))
    assert config.player_spec(config.incumbent_weights()) == (
        "uci:command=fairy-stockfish,nodes=300,option.Skill Level=20")


def test_spec_key_maps_weights_to_w_and_parameters_to_themselves():
    assert spec_key("mobility", ["mobility"]) == "w.mobility"
    assert spec_key("c", ["mobility"]) == "c" and spec_key("option.Hash", []) == "option.Hash"


def test_a_study_without_params_searches_weights_only():
    config = parse_study_file(open("studies/demo-totality.toml").read())
    assert config.params == () and '"params": []' in config.fingerprint()


@pytest.mark.parametrize("player, params, message", [
    ('kind = "mcts"', "cc = { low = 0.5, high = 3.0 }", "no numeric parameter 'cc'; valid: c, eval_depth"),
    ('kind = "mcts"', "c = { low = 2.0, high = 3.0 }", "excludes the default 1.4"),
    ('kind = "mcts"\nc = 2.0', "c = { low = 1.0, high = 3.0 }", "player.c: is both fixed and searched"),
    ('kind = "uci"\ncommand = "e"\nnodes = 9', '"option.Hash" = { low = 1, high = 64 }', "default: missing"),
    ('kind = "mcts"', "eval_depth = { low = 1, high = 2.5 }", "whole low, high and default"),
    ('kind = "alphabeta"', 'rollout = { low = 1, high = 2 }', "no numeric parameter 'rollout'"),
])
def test_bad_params_name_the_key_and_what_is_valid(player, params, message):
    with pytest.raises(StudyFileError, match=message):
        parse_study_file(study(player, params))


def test_tuning_a_uci_option_needs_allow_engines_then_runs_for_real(fairy_stockfish, ray_cluster, tmp_path):
    config = parse_study_file(study(f'kind = "uci"\ncommand = "{fairy_stockfish}"\nnodes = 200',
                                    '"option.Skill Level" = { choices = [20, 0], integer = true }'))
    url = f"sqlite:///{tmp_path / 'harness.db'}"
    with Pool(workers=2) as pool:
        with pytest.raises(SpecError, match="runs an engine command .* allow_engines"):
            tune(config, db_url=url, pool=pool)
        with open_database(url) as db:
            assert db.runs() == []  # refused before anything was written
        summary = tune(config, db_url=url, pool=pool, allow_engines=True)
    assert summary.trials_complete + summary.trials_pruned == 3 and summary.outcome is not None
    with open_database(url) as db:
        stored = db.named_player("params")
        assert stored is None or stored.startswith("uci:command=fairy-stockfish,nodes=200,option.Skill Level=")
        assert all(match.error is None for match in db.matches())
