"""The stored ladder games are the evidence for the docs' strength figures (docs/players.md), so they must still
replay: a change to the search, the weights or a budget that changes how a stored spec plays makes the stored
games stale, and this test says so on a clean clone before the docs' figures are believed.

The games are kept as `harness db backup` files, one per game (`docs/ladder/<game>.db.gz`, a run per
measurement). A run's player is the spec it played as: `strong` while it still plays so, the explicit
alphabeta spec (techniques named) once `strong` has changed (Ravenward's and Chinese chess's gained their
exact-to-the-depth techniques after their ladder runs). Each case replays one stored game against the rung
that holds the player lowest and asks the stored spec, as today's code plays it, for its first moves, in
order (its seeded tie-breaks run on from move to move, as in a match); a whole game takes a minute, the
first moves a few seconds. A changed weight or search technique shows in them; a budget a fifth smaller may
not (Chinese chess's first twelve moves stay the same at 1,000,000 nodes), so ``harness ladder RUN --verify
N`` replaying whole games stays the full check.
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


def _stored(url: str, run: str, game: str, player: str, opponent: str, seed: int) -> MatchRecord:
    with open_database(url, create=False) as database:
        return next(match for match in database.matches(run_id=database.run_id(run))
                    if (match.game, match.player, match.opponent, match.seed) == (game, player, opponent, seed))


RAVENWARD_BEFORE_EXACT = "alphabeta:depth=64,nodes=1500000,techniques=pvs+lmr+quiescence+aspiration+keep_pv+partial"
XIANGQI_BEFORE_EXACT = ("alphabeta:behind=4,depth=60,nodes=1250000,techniques=pvs+lmr+null_move+quiescence+aspiration"
                        "+keep_pv+ordering+check_extension+deep_lmr+adaptive_null+static_null+late_move_pruning")


@pytest.mark.parametrize("run, game, player, opponent", [
    ("ravenward-strong", "ravenward", RAVENWARD_BEFORE_EXACT, "gbot:depth=6,eval=default"),
    ("totality-strong", "totality", "strong", "gbot:depth=6,eval=default"),
    ("xiangqi-strong", "xiangqi", XIANGQI_BEFORE_EXACT, "gbot:depth=6,eval=active"),
    ("xiangqi-strong", "xiangqi:seat=black", XIANGQI_BEFORE_EXACT, "gbot:depth=6,eval=active"),
])
def test_a_stored_ladder_game_replays_its_first_moves_as_todays_code_plays_its_spec(run, game, player, opponent,
                                                                                     tmp_path_factory):
    url = _database(game.partition(":")[0], tmp_path_factory.getbasetemp())
    row = _stored(url, run, game, player, opponent, seed=0)
    chooser = players.load(player, game)
    chooser.reset(row.seed)
    try:
        played = [(chooser.choose(rules, state), action) for rules, state, action
                  in islice(player_choices(game, row.actions, row.opening_plies), OUR_MOVES)]
    finally:
        chooser.close()
    assert len(played) == OUR_MOVES
    assert [mine for mine, _ in played] == [stored for _, stored in played]
