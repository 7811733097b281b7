#!/usr/bin/env python
"""Benchmark the results database: write 10,000 match results, print rows/s as one JSON line.

Usage: scripts/bench_db.py [--rows N] [--pg URL]

Each backend gets a throwaway database (a temporary SQLite file; a scratch
schema on PostgreSQL when --pg or HARNESS_TEST_PG names a server). Results
are written the way a driver writes them, one atomic ``record`` per result,
and once more in batches of 100 with ``record_many``; then the leaderboard
over all of them is timed. Results look like real Totality matches (about 60
actions each).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

from harness.db import open_database
from harness.db.database import scratch_database
from harness.match import MatchResult

PLAYERS = ["random", "greedy", "alphabeta:depth=2", "alphabeta:depth=3", "alphabeta:depth=4,w.corners=3.5"]


def results(count: int, salt: str) -> list[MatchResult]:
    """``count`` distinct, realistic results (seeded, so every run writes the same data)."""
    rng = random.Random(salt)
    made = []
    for index in range(count):
        actions = [{"row": rng.randrange(8), "col": rng.randrange(8)} for _ in range(60)]
        made.append(MatchResult(
            game="totality", player=PLAYERS[index % len(PLAYERS)], opponent="gbot", seed=index,
            outcome=rng.choice(["win", "draw", "loss"]), reason="board_full", score=rng.uniform(0, 64),
            counters={"sun": rng.randrange(64), "moon": rng.randrange(64), "ply": 60}, actions=actions, plies=60,
            duration_s=rng.uniform(0.1, 2), player_s=rng.uniform(0, 1), opponent_s=rng.uniform(0, 1),
            key=f"{salt}-{index:06d}"))
    return made


def measure(url: str, rows: int) -> dict[str, float]:
    """Rows/s for single and batched writes, and the leaderboard's time, on one backend."""
    with scratch_database(url) as scratch, open_database(scratch) as db:
        run_id = db.start_run("tournament", "totality", {"bench": True})
        single = results(rows, "single")
        started = time.perf_counter()
        for result in single:
            db.record(run_id, result)
        single_s = time.perf_counter() - started
        batched = results(rows, "batched")
        started = time.perf_counter()
        for first in range(0, rows, 100):
            db.record_many(run_id, batched[first:first + 100])
        batched_s = time.perf_counter() - started
        started = time.perf_counter()
        board = db.leaderboard("totality")
        leaderboard_s = time.perf_counter() - started
        assert sum(row.games for row in board) == 2 * rows
        return {"rows_per_s": round(rows / single_s, 1), "batched_rows_per_s": round(rows / batched_s, 1),
                "leaderboard_s": round(leaderboard_s, 4)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000, help="results written per mode and backend")
    parser.add_argument("--pg", default=os.environ.get("HARNESS_TEST_PG"),
                        help="PostgreSQL URL (default: $HARNESS_TEST_PG); omitted: SQLite only")
    args = parser.parse_args()
    report: dict[str, object] = {"rows": args.rows, "sqlite": measure("sqlite://", args.rows)}
    if args.pg:
        report["postgresql"] = measure(args.pg, args.rows)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
