#!/usr/bin/env python
"""Benchmark live tracking under other board layouts: print one JSON line.

Usage: scripts/bench_live_layout.py [--game ravenward] [--games 3] [--player greedy] [--symmetry rotate90]

Plays ``--games`` live games over loopback against the emulator showing its
board under ``--symmetry`` (with integer codes), and reports how many
finished, the most candidates the tracker kept after any reply, the moves
played without one sure position, whether one layout was left (pinned), and
the seconds per game. The same games with ``--no-board`` show what the legal
actions alone leave.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from harness.db import open_database
from harness.live.emulator import BoardLayout, Emulator
from harness.live.http import RetryPolicy
from harness.live.runner import LiveRunConfig, run_live

CODES = {"ravenward": (("", 0), ("K", 3), ("D", 2), ("R", 1)), "totality": (("", 0), ("X", 1), ("O", 2))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="ravenward", choices=sorted(CODES))
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--player", default="greedy")
    parser.add_argument("--opponent", default="gbot")
    parser.add_argument("--symmetry", default="rotate90")
    parser.add_argument("--no-board", action="store_true", help="serve no board at all")
    args = parser.parse_args()
    layout = BoardLayout(args.symmetry, CODES[args.game], "flat")
    with tempfile.TemporaryDirectory() as folder, Emulator(opponent=args.opponent, board=layout) as server:
        if args.no_board:
            server.board = BoardLayout(args.symmetry, (("", 0),) + tuple((k, 0) for k, _ in CODES[args.game][1:]))
        db = open_database(f"sqlite:///{Path(folder) / 'bench.db'}")
        started = time.perf_counter()
        summary = run_live(db, LiveRunConfig(game=args.game, player=args.player, games=args.games, seed_start=1,
                                             base_url=server.url, rate=1000.0, policy=RetryPolicy(total_s=60)))
        seconds = time.perf_counter() - started
        db.close()
    results = summary.results
    print(json.dumps({
        "game": args.game, "symmetry": args.symmetry, "board": not args.no_board, "player": args.player,
        "games": args.games, "finished": sum(g.status == "done" for g in summary.games.values()),
        "max_candidates": max((r.extra["max_candidates"] for r in results), default=None),
        "ambiguous_moves": sum(r.counters["ambiguous_moves"] for r in results),
        "moves": sum(len(r.extra["sent"]) for r in results),
        "pinned": sum(len(r.extra["layout"]) == 1 for r in results),
        "score_mismatches": len(summary.mismatches), "seconds_per_game": round(seconds / args.games, 2)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
