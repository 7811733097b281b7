"""Totality engine benchmark: fast-path playouts, public-protocol playouts, perft, and OpenSpiel beside them.

``run(seconds)`` measures, in one process on one core:

- ``playouts_per_s``: seeded uniformly random games on the compiled bitboard
  fast path (``random_playouts``), the path the searches and MCTS rollouts use;
- ``public_playouts_per_s``: the same games through the public protocol
  (``legal_actions`` / ``apply`` / ``is_terminal`` with JSON actions);
- ``anchor_playouts_per_s``: OpenSpiel's C++ ``othello`` driven from Python
  (``legal_actions`` / ``apply_action`` / ``is_terminal``), the reference, and
  ``ratio_vs_anchor`` = fast path / anchor;
- ``perft``: counts from the start to depth 10 (published Othello table) and
  ``perft_nodes_per_s`` (leaves per second over depths 9 and 10);
- ``search_nodes_per_s``: the compiled alpha-beta at default weights on
  eight seeded positions with 40 empty cells, and the depth each reached.

Every rate is per second of this process's CPU time (``time.process_time``),
not of the wall clock: on a machine shared with other jobs the wall clock
counts the time the process waited for a core, the CPU clock does not. All
measured code is single-threaded.

Run: ``scripts/bench_engines.py totality --json``.
"""

from __future__ import annotations

import random
import time

from harness.games import load
from harness.games.totality import _kernels as kernels

PERFT_TABLE = [4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288, 24571284]


class Meter:
    """Games and seconds of one measurement, accumulated over interleaved rounds."""

    def __init__(self, step) -> None:
        self.step, self.games, self.seconds = step, 0, 0.0

    def measure(self, seconds: float) -> None:
        """Call ``step()`` (it returns the games it played) for about ``seconds`` of CPU time."""
        started = time.process_time()
        while True:
            self.games += self.step()
            elapsed = time.process_time() - started
            if elapsed >= seconds:
                self.seconds += elapsed
                return

    @property
    def rate(self) -> float:
        return self.games / self.seconds


def fast_playouts() -> Meter:
    """Random games on the compiled fast path."""
    rules = load("totality")
    start = rules.initial_state()
    kernels.random_playouts(start.sun, start.moon, 10, 0)  # loaded from the cache, warmed
    seeds = iter(range(1, 1 << 30))
    batch = 20_000

    def step() -> int:
        kernels.random_playouts(start.sun, start.moon, batch, next(seeds))
        return batch
    return Meter(step)


def public_playouts() -> Meter:
    """Random games through the public Rules protocol."""
    rules = load("totality")
    rng = random.Random(0)

    def step() -> int:
        state = rules.initial_state()
        while not rules.is_terminal(state):
            state = rules.apply(state, rng.choice(rules.legal_actions(state)))
        return 1
    return Meter(step)


def openspiel_playouts() -> Meter | None:
    """Random games of OpenSpiel's C++ othello driven from Python (None if not installed)."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("othello")
    rng = random.Random(0)

    def step() -> int:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        return 1
    return Meter(step)


def perft_figures() -> dict:
    """Perft counts to depth 10, whether they match the table, and leaves per second at depths 9-10."""
    start = load("totality").initial_state()
    counts = [kernels.perft(start.sun, start.moon, depth) for depth in range(1, 9)]
    started = time.process_time()
    counts += [kernels.perft(start.sun, start.moon, depth) for depth in (9, 10)]
    elapsed = time.process_time() - started
    return {"perft": counts, "perft_matches_table": counts == PERFT_TABLE,
            "perft_nodes_per_s": round((counts[8] + counts[9]) / elapsed)}


def search_figures(seconds: float) -> dict:
    """Alpha-beta nodes per second at default weights on seeded midgame positions (one core)."""
    from players.features import weight_vector
    from harness.games.totality.search import search
    rules, weights = load("totality"), weight_vector("totality")
    positions = []
    for seed in range(8):
        rng, state = random.Random(seed), rules.initial_state()
        while rules.counters(state)["empty"] > 40 or not state.legal:
            state = rules.apply(state, rng.choice(rules.legal_actions(state)))
        positions.append(state)
    search(rules, positions[0], weights, depth=1)  # loaded from the cache
    nodes, depths, started = 0, [], time.process_time()
    per_position = seconds / len(positions)
    for state in positions:
        result = search(rules, state, weights, deadline=time.monotonic() + per_position, endgame=0)
        nodes += result.nodes
        depths.append(result.depth)
    return {"search_nodes_per_s": round(nodes / (time.process_time() - started)),
            "search_depths_in_%gs" % round(per_position, 3): depths}


def run(seconds: float = 3.0, rounds: int = 3) -> dict:
    """All figures as one dict (printed as one JSON line by ``scripts/bench_engines.py``).

    The three playout measurements take turns in ``rounds`` rounds, so a
    change in machine load during the run weighs on all of them alike and the
    ratio to OpenSpiel stays fair on a shared machine.
    """
    meters = {"fast": fast_playouts(), "public": public_playouts(), "anchor": openspiel_playouts()}
    for _ in range(rounds):
        for meter in meters.values():
            if meter is not None:
                meter.measure(seconds / rounds)
    fast, public = meters["fast"].rate, meters["public"].rate
    anchor = meters["anchor"].rate if meters["anchor"] is not None else None
    result = {
        "game": "totality",
        "playouts_per_s": round(fast),
        "public_playouts_per_s": round(public),
        "anchor": "open_spiel othello (C++) driven from Python",
        "anchor_playouts_per_s": None if anchor is None else round(anchor),
        "ratio_vs_anchor": None if anchor is None else round(fast / anchor, 1),
        "public_ratio_vs_anchor": None if anchor is None else round(public / anchor, 2),
    }
    result.update(perft_figures())
    result.update(search_figures(seconds))
    return result
