"""``harness openings GAME``: a game's suites as a table or JSON, one opening's board, bad input as exit code 2."""

from __future__ import annotations

import json
import re

import pytest

from harness.cli import main
from harness.games import load as load_game
from harness.games.openings import load_suite, opening_state


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_table_shows_the_suite_its_size_values_and_command(capsys):
    suite = load_suite("totality")
    code, out, err = run(capsys, "openings", "totality:easy")
    assert code == 0 and err == ""
    assert suite.name in out and str(len(suite)) in out and "make_openings.py" in out
    assert f"{min(suite.values):g}" in out and f"{max(suite.values):g}" in out


def test_json_gives_the_statistics_of_every_suite(capsys):
    code, out, _ = run(capsys, "openings", "xiangqi:black", "--json")
    document = json.loads(out)
    suite = load_suite("xiangqi")
    assert code == 0 and document["game"] == "xiangqi"
    (shown,) = document["suites"]
    assert shown["name"] == suite.name and shown["openings"] == len(suite) and shown["plies"] == suite.plies
    assert shown["values"]["min"] <= shown["values"]["median"] <= shown["values"]["max"]
    assert shown["command"] == suite.command


def test_show_prints_an_openings_moves_and_board(capsys):
    suite = load_suite("ravenward")
    rules = load_game("ravenward")
    code, out, _ = run(capsys, "openings", "ravenward", "--show", "3")
    assert code == 0 and f"{suite.name} opening 3" in out
    assert len(re.findall(r"^ply \d+: \{", out, flags=re.MULTILINE)) == suite.plies
    assert rules.render(opening_state(rules, list(suite.openings[3]))) in out


def test_show_with_json_gives_the_actions_and_the_board(capsys):
    code, out, _ = run(capsys, "openings", "totality", "--show", "0", "--json")
    document = json.loads(out)
    assert code == 0 and document["actions"] == list(load_suite("totality").openings[0])
    assert "Sun" in document["board"]


@pytest.mark.parametrize("args, message", [
    (("openings", "chess"), "unknown game 'chess'"),
    (("openings", "totality", "--suite", "nope"), "valid suites: totality-"),
    (("openings", "xiangqi", "--show", "-1"), "--show -1 is not an opening"),
    (("openings", "xiangqi", "--show", "100000"), "--show 100000 is not an opening"),
    (("openings", "xiangqi", "--suite", "nope", "--show", "1"), "valid suites"),
])
def test_bad_input_is_one_line_and_exit_code_2(capsys, args, message):
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1
