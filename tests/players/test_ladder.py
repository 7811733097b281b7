"""The ladder of reference opponents, and ``harness tournament --ladder`` playing every rung."""

from __future__ import annotations

import pytest

import players
from harness.cli import main
from harness.db import open_database
from harness.tournament import run_ladder
from players.ladder import fairy_stockfish, ladder


def test_every_game_has_its_stand_ins_weakest_first_and_chinese_chess_fairy_stockfish():
    assert ladder("ravenward") == ["gbot"]
    assert ladder("totality:easy") == ladder("totality") == ["gbot:level=easy", "gbot:level=wise"]
    rungs = ladder("xiangqi:black")
    assert rungs[0] == "gbot" and rungs[1:] == [fairy_stockfish(n) for n in (1_000, 10_000, 100_000)]
    assert rungs[1] == "uci:command=fairy-stockfish,nodes=1000,option.Threads=1"
    for rung in rungs:
        assert players.load(rung, game="xiangqi").spec == rung


def test_the_ladder_plays_a_gauntlet_per_rung(ray_cluster, tmp_path):
    url = f"sqlite:///{tmp_path / 'ladder.db'}"
    reports = run_ladder("totality:easy", ["random"], games=2, workers=2, db_url=url, run_name="climb")
    assert [r.config.opponent for r in reports] == ladder("totality:easy")
    assert all(r.recorded == 2 and not r.interrupted for r in reports)
    with open_database(url) as db:
        assert [db.run(f"climb/rung-{n}").id for n in (1, 2)] == [r.run_id for r in reports]


@pytest.mark.parametrize("extra, message", [
    (["--opponent", "gbot"], "--ladder chooses the opponents"),
    (["--round-robin"], "--ladder chooses the opponents"),
    ([], "--ladder needs GAME and --games N"),
])
def test_ladder_bad_input_is_one_line_and_exit_2(tmp_path, capsys, extra, message):
    code = main(["tournament", "totality", "--player", "random", "--ladder", *extra,
                 "--db", f"sqlite:///{tmp_path / 'x.db'}"])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
