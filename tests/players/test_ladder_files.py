"""The stored ladder games are the evidence for the issue's targets (docs/players.md), so they must still describe
today's `strong`: a change to the search, the weights or a budget that changes its moves makes the stored
games stale, and this test says so on a clean clone before the docs' figures are believed.

The games are kept as `harness db backup` files, one per game (`docs/ladder/<game>.db.gz`, a run per
measurement). Each case replays one stored game of `strong` against the rung that holds it lowest and asks
today's `strong` for its first moves, in order (its seeded tie-breaks run on from move to move, as in a
match); a whole game takes a minute, the first moves a few seconds. A changed weight or search technique
shows in them; a budget a fifth smaller may not (Chinese chess's first twelve moves stay the same at
1,000,000 nodes), so ``harness ladder RUN --verify N`` replaying whole games stays the full check.
"""

from __future__ import annotations

from functools import cache
from itertools import islice
from pathlib import Path

import pytest

import players
from harness.db import MatchRecord, open_database
from harness.db.backup import restore
from harness.replay import player_choices

LADDER = Path(__file__).parents[2] / "docs" / "ladder"
OUR_MOVES = 3


@cache
def _database(game: str, directory: Path) -> str:
    url = f"sqlite:///{directory / f'{game}.db'}"
    restore(LADDER / f"{game}.db.gz", url)
    return url


def _stored(url: str, run: str, game: str, opponent: str, seed: int) -> MatchRecord:
    with open_database(url, create=False) as database:
        return next(match for match in database.matches(run_id=database.run_id(run))
                    if (match.game, match.player, match.opponent, match.seed) == (game, "strong", opponent, seed))


@pytest.mark.parametrize("run, game, opponent", [
    ("ravenward-strong", "ravenward", "gbot:depth=6,eval=default"),
    ("totality-strong", "totality", "gbot:depth=6,eval=default"),
    ("xiangqi-strong", "xiangqi", "gbot:depth=6,eval=active"),
    ("xiangqi-strong", "xiangqi:seat=black", "gbot:depth=6,eval=active"),
])
def test_todays_strong_plays_the_first_moves_of_its_stored_ladder_game(run, game, opponent, tmp_path_factory):
    url = _database(game.partition(":")[0], tmp_path_factory.getbasetemp())
    row = _stored(url, run, game, opponent, seed=0)
    player = players.load("strong", game)
    player.reset(row.seed)
    try:
        played = [(player.choose(rules, state), action) for rules, state, action
                  in islice(player_choices(game, row.actions, row.opening_plies), OUR_MOVES)]
    finally:
        player.close()
    assert len(played) == OUR_MOVES
    assert [mine for mine, _ in played] == [stored for _, stored in played]
