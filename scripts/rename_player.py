#!/usr/bin/env python
"""Rename the player of stored match lines (a ``--results`` file of eval_players.py) to another spec.

Usage: scripts/rename_player.py SOURCE TARGET --player OLD --as NEW

For when two specs play the same games: a candidate that becomes ``strong``
(its lines become ``strong``'s), or ``strong`` before a change (its lines get
the explicit spec it played as, so they still replay). Each line's key is
recomputed for the new spec; lines of other players are copied unchanged.
Nothing checks that the games are the same: run ``eval_players.py --verify``
on TARGET afterwards, which replays stored matches and names any that differ.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from harness.match import MatchSpec
import players


def rename(source: Path, target: Path, old: str, new: str) -> int:
    """Write ``source``'s lines to ``target`` with ``old``'s matches renamed to ``new``; return how many."""
    old, new = players.load(old).spec, players.load(new).spec
    lines, renamed = [], 0
    for line in source.read_text().splitlines():
        result = json.loads(line)
        if players.load(result["player"]).spec == old:
            result["player"] = new
            result["key"] = MatchSpec(result["game"], new, result["opponent"], result["seed"],
                                      result["opening_plies"]).key
            renamed += 1
        lines.append(json.dumps(result, separators=(",", ":")) + "\n")
    target.write_text("".join(lines))
    return renamed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("target", type=Path)
    parser.add_argument("--player", required=True, metavar="OLD", help="the player spec the lines have")
    parser.add_argument("--as", dest="new", required=True, metavar="NEW", help="the spec to give them")
    args = parser.parse_args()
    if not args.source.is_file():
        parser.error(f"{args.source}: no such results file")
    if args.target.exists():
        parser.error(f"{args.target} exists: give a new file (nothing is overwritten)")
    try:
        count = rename(args.source, args.target, args.player, args.new)
    except ValueError as error:  # a spec that does not load (SpecError is a ValueError)
        parser.error(str(error))
    print(f"rename_player: {count} matches renamed; check them with eval_players.py --verify", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
