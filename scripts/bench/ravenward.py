"""Ravenward engine and search speed: ``run(seconds) -> dict`` for ``scripts/bench_engines.py``.

Measures, on one core after a warm-up call that compiles (or loads) the
numba code, per second of this process's CPU time (``time.process_time``),
so that other work sharing the machine does not distort the figures:

- ``playouts_per_s``: seeded uniformly random games from the start on the
  compiled fast path (``random_games``);
- ``public_playouts_per_s``: the same through the public protocol
  (``legal_actions`` + ``apply`` on plain Python states);
- ``perft_nodes_per_s``: leaves of the legal-move tree per second at
  ``perft_depth``, with the counts by depth (golden numbers);
- ``search_nodes_per_s``: alpha-beta nodes per second at default weights
  from the start position.
"""

from __future__ import annotations

import random
import time

import numpy as np


def _rate(step, seconds: float) -> tuple[float, int]:
    """Call ``step()`` (returning work done) until ``seconds`` pass; (work per second, work)."""
    done = 0
    started = time.process_time()
    while True:
        done += step()
        elapsed = time.process_time() - started
        if elapsed >= seconds:
            return done / elapsed, done


def run(seconds: float = 3.0) -> dict:
    """Measure the Ravenward engine; every figure is per second on one core."""
    from harness.games import load
    from harness.games.ravenward import _core as core
    from players.features import weight_vector
    from harness.games.ravenward import search as search

    rules = load("ravenward")
    core.random_games(2, 0)
    seeds = iter(range(1, 10**9))
    playouts, games = _rate(lambda: int(core.random_games(500, next(seeds)).sum()), seconds)

    rng = random.Random(0)

    def public_game() -> int:
        state = rules.initial_state()
        while not rules.is_terminal(state):
            state = rules.apply(state, rng.choice(rules.legal_actions(state)))
        return 1

    public, _ = _rate(public_game, seconds / 2)

    st = np.empty(core.SIZE, dtype=np.int64)
    core.initial(st)
    counts = {depth: int(core.perft(st, depth)) for depth in range(1, 5)}
    started = time.process_time()
    depth = 5
    leaves = int(core.perft(st, depth))
    perft_seconds = time.process_time() - started
    counts[depth] = leaves

    weights = weight_vector("ravenward")
    state = rules.initial_state()
    search.search(rules, state, weights, depth=2)
    searched = 0
    started = time.process_time()
    search_depth = 0
    while time.process_time() - started < seconds and search_depth < 8:
        search_depth += 1
        searched += search.search(rules, state, weights, depth=search_depth, seed=1).nodes
    search_seconds = time.process_time() - started

    return {
        "game": "ravenward",
        "playouts_per_s": round(playouts),
        "playout_games": games,
        "public_playouts_per_s": round(public),
        "perft_nodes_per_s": round(leaves / perft_seconds),
        "perft_depth": depth,
        "perft": counts,
        "search_nodes_per_s": round(searched / search_seconds),
        "search_depth_reached": search_depth,
        "baseline_plain_python_games_per_s": 1000,
        "speedup_vs_plain_python": round(playouts / 1000, 1),
    }
