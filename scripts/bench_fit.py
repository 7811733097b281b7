#!/usr/bin/env python
"""Benchmark ``harness fit`` per game: held-out loss fitted vs defaults, positions labelled per second and core.

Prints one JSON line. For each game, positions come from the ladder games the
project commits (``docs/ladder/<game>.db.gz``, restored into a temporary
SQLite file as ``harness db restore`` does): a seeded sample of ``--matches``
recorded matches, their distinct open positions, a seeded sample of
``--positions`` of them. They are labelled by a deeper search
(``--label-player GAME=SPEC``; defaults below: alpha-beta for Totality and
Ravenward, Fairy-Stockfish for Chinese chess when it is installed) on a Ray
pool of 1 worker and then of 2, each into a fresh label store, so both
search every position; the figure is positions labelled per second of the
labelling (the pool started and warmed first) divided by the workers, and
``identical`` says the two pools gave the same labels. The fit is
``harness fit``'s (``harness.fitting.fit_weights``): the held-out loss at
today's default weights and at the fitted ones.

The defaults are small, to finish in a couple of minutes on two cores; the
figures that matter come from larger ``--matches`` and ``--positions``.
The 1-minute load average is printed beside them: the machine may be shared.
Run it from the repository root:

    PYTHONPATH=$PWD .venv/bin/python scripts/bench_fit.py
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from harness.cluster import Pool, ray_session
from harness.db import open_database
from harness.db.backup import restore
from harness.fitting.fit import fit_weights
from harness.fitting.labels import label_positions, make_labeller
from harness.fitting.positions import MatchFilter, Position, extract_positions, recorded_matches, replay_position
from players.process import find_program

GAMES = ("totality", "ravenward", "xiangqi")
LADDER = Path(__file__).resolve().parents[1] / "docs" / "ladder"
FAIRY = "uci:command=fairy-stockfish,nodes=2000,option.Threads=1"


def default_label_player(game: str) -> str:
    """A searching player several plies deeper than the evaluation: quick enough to label hundreds a minute."""
    if game == "xiangqi":
        return FAIRY if find_program("fairy-stockfish") else "alphabeta:depth=3"
    return "alphabeta:depth=4"


def ladder_positions(game: str, folder: Path, matches: int, positions: int, seed: int) -> tuple[int, list[Position]]:
    """The sampled matches' count and the sampled positions of ``game``'s committed ladder games."""
    url = f"sqlite:///{folder / f'{game}.db'}"
    restore(LADDER / f"{game}.db.gz", url)
    with open_database(url) as db:
        every = list(recorded_matches(db, game, MatchFilter()))
    chosen = random.Random(seed).sample(every, min(matches, len(every)))
    return len(chosen), extract_positions(game, chosen, positions, seed)


def labelled_per_second(pool: Pool, game: str, spec: str, positions: list[Position], store: str,
                        warm: list[Position]) -> tuple[float, dict[str, float]]:
    """Positions labelled per second on ``pool`` into a fresh store (after labelling ``warm`` apart), and the labels."""
    labeller = make_labeller("search", game, spec)
    with open_database(f"{store}-warm.db") as db:
        label_positions(game, warm, labeller, database=db, pool=pool)  # workers up, engines started, code compiled
    with open_database(f"{store}.db") as db:
        started = time.perf_counter()
        labels = label_positions(game, positions, labeller, database=db, pool=pool)
        seconds = time.perf_counter() - started
    return len(positions) / seconds, labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", dest="games", action="append", choices=GAMES,
                        help="a game to measure (repeat; default all three)")
    parser.add_argument("--matches", type=int, default=200, help="recorded matches sampled per game")
    parser.add_argument("--positions", type=int, default=100, help="positions labelled and fitted per game")
    parser.add_argument("--label-player", action="append", default=[], metavar="GAME=SPEC",
                        help="the labelling player of a game (repeat); default alpha-beta, or Fairy-Stockfish")
    parser.add_argument("--seed", type=int, default=0, help="the sample's and the held-out split's seed")
    args = parser.parse_args()
    if args.matches < 1 or args.positions < 60:
        parser.error("--matches must be at least 1 and --positions at least 60 (Chinese chess fits 23 weights)")
    players = {game: default_label_player(game) for game in GAMES}
    for item in args.label_player:
        game, _, spec = item.partition("=")
        if game not in GAMES or not spec:
            parser.error(f"--label-player {item!r}: give GAME=SPEC with GAME one of {', '.join(GAMES)}")
        players[game] = spec
    games = args.games or list(GAMES)

    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        sampled = {}
        for game in games:
            count, positions = ladder_positions(game, folder, args.matches, args.positions + 4, args.seed)
            sampled[game] = (count, positions[4:], positions[:4])  # four apart, to warm the pool with
        rates: dict[str, dict[int, float]] = {game: {} for game in games}
        labels: dict[str, dict[int, dict[str, float]]] = {game: {} for game in games}
        with ray_session(num_cpus=2):
            for workers in (1, 2):
                with Pool(workers=workers) as pool:
                    for game in games:
                        _count, positions, warm = sampled[game]
                        store = f"sqlite:///{folder / f'labels-{game}-{workers}'}"
                        rates[game][workers], labels[game][workers] = labelled_per_second(
                            pool, game, players[game], positions, store, warm)
        for game in games:
            count, positions, _warm = sampled[game]
            found = labels[game][1]
            chosen = [position for position in positions if position.key in found]
            fit = fit_weights(game, [replay_position(game, position) for position in chosen],
                              [found[position.key] for position in chosen], seed=args.seed)
            results[game] = {
                "label_player": players[game], "matches": count, "positions": len(positions),
                "labelled": len(chosen), "loss_defaults": round(fit.loss_before, 4),
                "loss_fitted": round(fit.loss_after, 4), "heldout_positions": fit.heldout_positions,
                "scale": round(fit.scale, 4), "fit_seconds": round(fit.seconds, 2),
                "labels_per_second_per_core": {str(w): round(rates[game][w] / w, 2) for w in (1, 2)},
                "scaling_1_to_2": round(rates[game][2] / rates[game][1], 3),
                "identical": labels[game][1] == labels[game][2]}
    print(json.dumps({"format": "bench_fit/1", "load_1min": round(os.getloadavg()[0], 2),
                      "cpus": os.cpu_count(), "seed": args.seed, "games": results}))


if __name__ == "__main__":
    main()
