#!/usr/bin/env python
"""Generate a game's opening suite (``harness/games/<game>/openings.json``); prints a short summary.

Usage: scripts/make_openings.py GAME [--plies N] [--count K] [--keep F] [--depth D] [--reference R]
                                   [--seed S] [--workers W]

How (docs/tuning.md, "Opening suites"): seeded uniformly random plies from the
start, ``count / keep`` distinct candidate positions (the side to move counts;
positions where the game ended are skipped); each is searched by
``alphabeta:depth=D`` with the default weights and valued from the first
mover's side; the ``count`` candidates closest to the reference value are
kept. The reference is what "even" means for the game: 0 for Chinese chess
(the sides are mirror images), the median of the candidates' values for
Ravenward and Totality (not symmetric, so 0 is not even: the median is the
game's typical value after N random plies). Then a seeded shuffle, so any
contiguous range of the suite is a fair sample. The same arguments write the
same file on any number of workers: each search is deterministic and
independent of the searches before it.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

from harness.games import load as load_game
from harness.games.openings import position_key, suite_file
import players

# Per game: plies, the search depth that values a position in about 0.05-0.3 s on one core, and what "even" is.
DEFAULTS = {"totality": {"plies": 8, "depth": 10, "reference": "median"},
            "ravenward": {"plies": 4, "depth": 7, "reference": "median"},
            "xiangqi": {"plies": 4, "depth": 8, "reference": "0"}}


def candidates(game: str, plies: int, wanted: int, rng: random.Random) -> list[list[dict[str, Any]]]:
    """``wanted`` random openings of ``plies`` plies reaching distinct open positions, in the order found.

    Raises:
        SystemExit: far more draws than ``wanted`` found too few distinct positions.
    """
    rules = load_game(game)
    found: dict[str, list[dict[str, Any]]] = {}
    for _ in range(100 * wanted):
        state, actions = rules.initial_state(), []
        for _ in range(plies):
            if rules.is_terminal(state):
                break
            action = rng.choice(rules.legal_actions(state))
            state, actions = rules.apply(state, action), actions + [action]
        if not rules.is_terminal(state):
            found.setdefault(position_key(rules, state), actions)
            if len(found) == wanted:
                return list(found.values())
    raise SystemExit(f"only {len(found)} distinct positions after {plies} plies; ask for fewer or more plies")


_WORKER: dict[str, Any] = {}


def _start_worker(game: str, depth: int) -> None:
    _WORKER["rules"] = load_game(game)
    _WORKER["player"] = players.load(f"alphabeta:depth={depth}", game)


def value_of(actions: list[dict[str, Any]]) -> float:
    """The search value of the position ``actions`` reach, from the first mover's side (side 0)."""
    rules, player = _WORKER["rules"], _WORKER["player"]
    state = rules.initial_state()
    for action in actions:
        state = rules.apply(state, action)
    player.reset(0)  # the tie-break seed: the same on every worker
    value = player.search(rules, state).value
    return round(value if rules.to_move(state) == 0 else -value, 3) + 0.0


def make_suite(game: str, plies: int, count: int, keep: float, depth: int, reference_rule: str, seed: int,
               workers: int, command: str) -> dict[str, Any]:
    """The suite's document (the file's contents)."""
    rng = random.Random(f"openings:{game}:{seed}")
    drawn = candidates(game, plies, math.ceil(count / keep), rng)
    with Pool(workers, initializer=_start_worker, initargs=(game, depth)) as pool:
        values = pool.map(value_of, drawn, chunksize=8)
    median = reference_rule == "median"
    reference = statistics.median(values) if median else float(reference_rule)
    closest = sorted(range(len(drawn)), key=lambda i: (abs(values[i] - reference), i))[:count]
    rng.shuffle(closest)
    margin = max(abs(values[i] - reference) for i in closest)
    return {
        "name": f"{game}-{plies}ply", "game": game, "plies": plies, "command": command,
        "search": f"alphabeta:depth={depth}",
        "balance": {"rule": f"the {count} of {len(drawn)} distinct random openings whose search value (first "
                            "mover's side) is closest to "
                            + ("the median of all their values" if median else f"{reference:g}, even"),
                    "reference": reference, "margin": margin, "candidates": len(drawn)},
        "openings": [{"actions": drawn[i], "value": values[i]} for i in closest],
    }


def write_suite(document: dict[str, Any], path: Path) -> None:
    """The suite as JSON, one opening a line, so a regenerated suite diffs line by line."""
    head = {k: v for k, v in document.items() if k != "openings"}
    lines = [json.dumps(entry, separators=(",", ":")) for entry in document["openings"]]
    text = json.dumps(head, indent=1)[:-2] + ',\n "openings": [\n' + ",\n".join(lines) + "\n ]\n}\n"
    path.write_text(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=sorted(DEFAULTS))
    parser.add_argument("--plies", type=int, help="plies of every opening (default: the game's)")
    parser.add_argument("--count", type=int, default=1200, help="openings in the suite")
    parser.add_argument("--keep", type=float, default=0.5, help="share of the candidates kept (the most even)")
    parser.add_argument("--depth", type=int, help="alpha-beta depth that values a candidate (default: the game's)")
    parser.add_argument("--reference", help="the value that is even: a number, or median (of the candidates' "
                                            "values; default: the game's)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random plies and of the suite's order")
    parser.add_argument("--workers", type=int, default=2, help="processes searching (the suite does not depend on it)")
    parser.add_argument("--out", type=Path, help="file to write (default: the game's shipped suite)")
    args = parser.parse_args()
    plies = args.plies or DEFAULTS[args.game]["plies"]
    depth = args.depth or DEFAULTS[args.game]["depth"]
    reference = args.reference or DEFAULTS[args.game]["reference"]
    if args.count < 1 or not 0 < args.keep <= 1 or plies < 1 or depth < 1:
        parser.error("--count, --plies and --depth must be at least 1, --keep in (0, 1]")
    if reference != "median":
        try:
            reference = f"{float(reference):g}"
        except ValueError:
            parser.error(f"--reference must be a number or median, got {reference!r}")
    command = (f"scripts/make_openings.py {args.game} --plies {plies} --count {args.count} --keep {args.keep:g} "
               f"--depth {depth} --reference {reference} --seed {args.seed}")
    started = time.perf_counter()
    document = make_suite(args.game, plies, args.count, args.keep, depth, reference, args.seed, args.workers,
                          command)
    path = args.out or suite_file(args.game)
    write_suite(document, path)
    balance = document["balance"]
    print(f"{document['name']}: {len(document['openings'])} openings of {plies} plies from "
          f"{balance['candidates']} candidates, values within {balance['margin']:g} of {balance['reference']:g}, "
          f"{time.perf_counter() - started:.0f}s; wrote {path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
