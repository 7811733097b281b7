"""The ladder files are the evidence for the issue's targets (docs/players.md), so they must still describe
today's `strong`: a change to the search, the weights or a budget that changes its moves makes the stored
games stale, and this test says so on a clean clone before the docs' figures are believed.

Each case replays one stored game of `strong` against the rung that holds it lowest and asks today's
`strong` for its first moves, in order (its seeded tie-breaks run on from move to move, as in a match); a whole
game takes a minute, the first moves a few seconds. A changed weight or search technique shows in them;
a budget a fifth smaller may not (Chinese chess's first twelve moves stay the same at 1,000,000 nodes), so
``scripts/eval_players.py --verify N`` replaying whole games stays the full check.
"""

from __future__ import annotations

from functools import cache
from itertools import islice
from pathlib import Path

import pytest

import players
from harness.replay import player_choices
from harness.results import read_results_file

LADDER = Path(__file__).parents[2] / "docs" / "ladder"
OUR_MOVES = 3


@cache
def _rows(file: str) -> list[dict]:
    return read_results_file(LADDER / file)[0]


def _stored(file: str, game: str, opponent: str, seed: int) -> dict:
    return next(row for row in _rows(file) if (row["game"], row["player"], row["opponent"], row["seed"])
                == (game, "strong", opponent, seed))


@pytest.mark.parametrize("file, game, opponent", [
    ("ravenward-strong.jsonl", "ravenward", "gbot:depth=6,eval=default"),
    ("totality-strong.jsonl", "totality", "gbot:depth=6,eval=default"),
    ("xiangqi-strong.jsonl", "xiangqi", "gbot:depth=6,eval=active"),
    ("xiangqi-strong.jsonl", "xiangqi:seat=black", "gbot:depth=6,eval=active"),
])
def test_todays_strong_plays_the_first_moves_of_its_stored_ladder_game(file, game, opponent):
    row = _stored(file, game, opponent, seed=0)
    player = players.load("strong", game)
    player.reset(row["seed"])
    try:
        played = [(player.choose(rules, state), action) for rules, state, action
                  in islice(player_choices(game, row["actions"], row["opening_plies"]), OUR_MOVES)]
    finally:
        player.close()
    assert len(played) == OUR_MOVES
    assert [mine for mine, _ in played] == [stored for _, stored in played]
