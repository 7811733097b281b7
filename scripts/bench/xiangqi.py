"""Chinese chess engine speed beside the pure-Python ``cchess`` and Fairy-Stockfish's ``pyffish``.

Every figure is measured in the same run on the same machine:

* ``playouts_per_s``: random games on the compiled fast path from the start
  position, capped at 240 plies, the side with no legal move losing.
* ``public_playouts_per_s``: random games through the public protocol
  (``legal_actions`` + ``apply``), which end at the rules' 120-ply limit.
* ``perft_nodes_per_s``: strict perft leaves per second (depth 5, the
  published 133312995, when the time allows, else depth 4).
* ``movegen_per_s``: legal-move generations per second over positions from
  random games.
* ``search_nodes_per_s``: the alpha-beta of ``harness.games.xiangqi.search`` at
  depth 5 over twelve seeded middlegame positions (``search_nodes_per_cpu_s``
  by process time, which other load on the machine does not dilute).
* ``cchess_playouts_per_s`` and ``pyffish_playouts_per_s``: the same random
  games (240-ply cap) with those packages' own move generators.
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np

from harness.games import load
from harness.games.xiangqi import _core as core

CAP = 240


def _rate(step, seconds: float) -> tuple[float, int]:
    """Run ``step() -> units`` until ``seconds`` pass; returns (units per second, units)."""
    units, started = 0, time.perf_counter()
    while True:
        units += step()
        elapsed = time.perf_counter() - started
        if elapsed >= seconds:
            return units / elapsed, units


def fast_playouts(seconds: float) -> dict[str, float]:
    rules = load("xiangqi")
    cells = rules.initial_state().array()
    core.playouts(cells, 0, 1, CAP, False, 0)  # compile or load from the cache
    seeds = iter(range(1, 10**9))
    plies = []

    def batch() -> int:
        totals = core.playouts(cells, 0, 200, CAP, False, next(seeds))
        plies.append(totals[3])
        return 200

    rate, games = _rate(batch, seconds)
    return {"playouts_per_s": rate, "playout_plies_per_game": sum(plies) / games}


def public_playouts(seconds: float) -> dict[str, float]:
    rules = load("xiangqi")
    rng = random.Random(1)
    plies = []

    def game() -> int:
        state = rules.initial_state()
        while not rules.is_terminal(state):
            state = rules.apply(state, rng.choice(rules.legal_actions(state)))
        plies.append(state.ply)
        return 1

    rate, games = _rate(game, seconds)
    return {"public_playouts_per_s": rate, "public_plies_per_game": sum(plies) / games}


def perft(seconds: float) -> dict[str, Any]:
    rules = load("xiangqi")
    position = rules.position(rules.initial_state())
    buffers = np.empty((8, core.MAX_MOVES), dtype=np.int64)
    core.perft(*position, 1, buffers, 0)
    started = time.perf_counter()
    nodes = core.perft(*position, 4, buffers, 0)
    elapsed = time.perf_counter() - started
    depth = 4
    if elapsed * 40 <= 5 * seconds:  # depth 5 costs about 40x depth 4: run it if it fits in 5x seconds
        started = time.perf_counter()
        nodes = core.perft(*position, 5, buffers, 0)
        elapsed = time.perf_counter() - started
        depth = 5
    return {"perft_depth": depth, "perft_nodes": int(nodes), "perft_nodes_per_s": nodes / elapsed}


def movegen(seconds: float) -> dict[str, float]:
    rules = load("xiangqi")
    rng = random.Random(2)
    cells, sides = [], []
    while len(cells) < 1000:
        state = rules.initial_state()
        while not rules.is_terminal(state):
            cells.append(np.array(state.array(), dtype=np.int64))
            sides.append(state.side)
            state = rules.apply(state, rng.choice(rules.legal_actions(state)))
    positions, side_array = np.array(cells), np.array(sides, dtype=np.int64)
    core.generation_count(positions[:1], side_array[:1], 1, False)
    rate, _ = _rate(lambda: len(positions) * 20 * (core.generation_count(positions, side_array, 20, False) > 0),
                    seconds)
    return {"movegen_per_s": rate}


def search_speed(seconds: float) -> dict[str, float]:
    from players.features import weight_vector
    from harness.games.xiangqi.search import search
    rules, weights = load("xiangqi"), weight_vector("xiangqi")
    rng = random.Random(7)
    states = []
    while len(states) < 12:
        state = rules.initial_state()
        for _ in range(rng.randrange(6, 40)):
            if rules.is_terminal(state):
                break
            state = rules.apply(state, rng.choice(rules.legal_actions(state)))
        if not rules.is_terminal(state):
            states.append(state)
    search(rules, states[0], weights, depth=2)  # compile or load from the cache
    nodes, cpu, wall = 0, time.process_time(), time.perf_counter()
    while time.perf_counter() - wall < seconds or nodes == 0:
        for state in states:
            nodes += search(rules, state, weights, depth=5).nodes
    return {"search_nodes_per_s": nodes / (time.perf_counter() - wall),
            "search_nodes_per_cpu_s": nodes / (time.process_time() - cpu)}


def cchess_playouts(seconds: float) -> dict[str, float]:
    import cchess
    rng = random.Random(3)

    def game() -> int:
        board = cchess.ChessBoard(cchess.FULL_INIT_FEN)
        for _ in range(CAP):
            legal = [m for m in board.create_moves()
                     if board.is_valid_move_t(m) and not board.is_checked_move(*m)]
            if not legal:
                break
            source, target = rng.choice(legal)
            board._move_piece(source, target)
            board.next_turn()
        return 1

    return {"cchess_playouts_per_s": _rate(game, seconds)[0]}


def pyffish_playouts(seconds: float) -> dict[str, float]:
    import pyffish
    rng = random.Random(4)
    start = pyffish.start_fen("xiangqi")

    def game() -> int:
        moves: list[str] = []
        for _ in range(CAP):
            legal = pyffish.legal_moves("xiangqi", start, moves)
            if not legal:
                break
            moves.append(rng.choice(legal))
        return 1

    return {"pyffish_playouts_per_s": _rate(game, seconds)[0]}


def run(seconds: float) -> dict[str, Any]:
    """Measure everything for about ``seconds`` each; returns one flat dict."""
    result: dict[str, Any] = {"game": "xiangqi"}
    for measure in (fast_playouts, public_playouts, perft, movegen, search_speed, cchess_playouts,
                    pyffish_playouts):
        result.update(measure(seconds))
    for reference in ("cchess", "pyffish"):
        base = result[f"{reference}_playouts_per_s"]
        result[f"playouts_vs_{reference}"] = result["playouts_per_s"] / base
        result[f"public_playouts_vs_{reference}"] = result["public_playouts_per_s"] / base
    return {key: round(value, 3) if isinstance(value, float) else value for key, value in result.items()}
