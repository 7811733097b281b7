#!/usr/bin/env python
"""Rename the player of stored match lines (``harness export`` lines) to another spec.

Usage: scripts/rename_player.py SOURCE TARGET --player OLD --as NEW [--same-budget]

For when two specs play the same games: a candidate that becomes ``strong``
(its games become ``strong``'s), or ``strong`` before a change (its games get
the explicit spec it played as, so they still replay). Each renamed line's
key is recomputed for the new spec; lines of other players are copied
unchanged. TARGET holds ``MatchResult`` lines (without the source's
``match_id`` and ``run_id``: a renamed line is a new match), which ``harness
db import`` loads, every key checked. Nothing checks that the games are the
same: replay a few afterwards, which names any that differ::

    harness export --run candidate --db sqlite:///ladder.db > candidate.jsonl
    scripts/rename_player.py candidate.jsonl strong.jsonl --player "alphabeta:..." --as strong
    harness db import strong.jsonl --db sqlite:///ladder.db
    harness ladder strong --verify 4 --db sqlite:///ladder.db

``--same-budget`` is for a change to when alpha-beta searches longer (its
``behind`` and ``extend``), nothing else: NEW plays a stored game of OLD move
for move wherever it gives every one of the player's moves the same budget,
which the stored actions show without a search. Only those lines are renamed;
OLD's other lines are left out of TARGET, so a ladder tournament of NEW plays
them again (and reuses the renamed ones).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from functools import cache
from pathlib import Path

from harness.games import load
from harness.match import recorded_spec
from harness.replay import player_choices
from harness.results import result_from_line
import players
from players.alphabeta import BUDGET_RULES, AlphaBetaPlayer


def rename(source: Path, target: Path, old: str, new: str, same_budget: bool = False) -> int:
    """Write ``source``'s lines to ``target`` with ``old``'s matches renamed to ``new``; return how many.

    With ``same_budget`` only the matches ``new`` would search with ``old``'s budget at every move are
    renamed, and ``old``'s others are left out.
    """
    old, new = players.load(old).spec, players.load(new).spec
    lines, renamed = [], 0
    for number, line in enumerate(source.read_text().splitlines(), 1):
        try:
            result = result_from_line(json.loads(line)).to_dict()
        except ValueError as error:  # not JSON, or not a match line (InvalidInput is a ValueError)
            raise ValueError(f"{source} line {number} {error}") from None
        if players.load(result["player"]).spec == old:
            if same_budget and not budgets_agree(result, old, new):
                continue
            result["player"] = new
            result["key"] = replace(recorded_spec(result), player=new).key
            renamed += 1
        lines.append(json.dumps(result, separators=(",", ":")) + "\n")
    target.write_text("".join(lines))
    return renamed


def budgets_agree(result: dict, old: str, new: str) -> bool:
    """Whether ``new`` gives each of the player's moves in the stored match ``result`` ``old``'s budget.

    Raises:
        ValueError: a spec that is not alpha-beta, or two that differ in more than when they search longer.
    """
    first, second = searchers(old, new, result["game"])
    return all(first.budget(rules, state) == second.budget(rules, state)
               for rules, state, _ in player_choices(result["game"], result["actions"], result["opening_plies"]))


@cache
def searchers(old: str, new: str, game: str) -> tuple[AlphaBetaPlayer, AlphaBetaPlayer]:
    """The alpha-beta players ``old`` and ``new`` play as in ``game`` (``strong`` resolved), checked once a game.

    Raises:
        ValueError: a spec that is not alpha-beta, or two that differ in more than when they search longer.
    """
    rules = load(game)
    pair = []
    for spec in (old, new):
        player = players.load(spec)
        player = player.player_for(rules) if hasattr(player, "player_for") else player
        if not isinstance(player, AlphaBetaPlayer):
            raise ValueError(f"--same-budget compares alpha-beta budgets; {spec} is not alpha-beta")
        pair.append(player)
    if _without_budget_rules(pair[0]) != _without_budget_rules(pair[1]):
        raise ValueError(f"--same-budget: {old} and {new} differ in more than {', '.join(BUDGET_RULES)}")
    return pair[0], pair[1]


def _without_budget_rules(player: AlphaBetaPlayer) -> tuple[dict, dict]:
    return {k: v for k, v in player.params.items() if k not in BUDGET_RULES}, player.weights


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("target", type=Path)
    parser.add_argument("--player", required=True, metavar="OLD", help="the player spec the lines have")
    parser.add_argument("--as", dest="new", required=True, metavar="NEW", help="the spec to give them")
    parser.add_argument("--same-budget", action="store_true",
                        help="rename only the matches NEW searches with OLD's budget at every move (alpha-beta's "
                             "behind and extend); leave OLD's others out")
    args = parser.parse_args()
    if not args.source.is_file():
        parser.error(f"{args.source}: no such file of match lines (harness export writes them)")
    if args.target.exists():
        parser.error(f"{args.target} exists: give a new file (nothing is overwritten)")
    try:
        count = rename(args.source, args.target, args.player, args.new, args.same_budget)
    except ValueError as error:  # a spec that does not load (SpecError is a ValueError)
        parser.error(str(error))
    print(f"rename_player: {count} matches renamed; load them with harness db import, then replay a few with "
          "harness ladder RUN --verify N", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
