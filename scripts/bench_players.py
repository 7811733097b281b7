#!/usr/bin/env python
"""Benchmark the searching players per game; prints one JSON line.

Usage: scripts/bench_players.py [--json] [--seconds S] [--positions N] [--with NAMES] [--gbot-depth D] [GAME ...]

For each game (default: every game with a compiled search) it takes the start
position and positions after seeded random openings, and measures on one core

- alpha-beta: nodes per second of wall time and of CPU time (from
  ``SearchResult.nodes``; CPU time is robust on a shared machine) and the
  depth its iterative deepening completes within ``--seconds`` per move;
  with ``--with lazy_eval`` (techniques joined by ``+``) the same again with
  those added to the default, side by side in one run;
- MCTS: iterations per CPU second with random playouts (compiled when the
  game has a compiled rollout, else Python), and with evaluation-guided leaves;
- the G-Bot stand-ins: nodes per CPU second of each ladder evaluation
  (``GBOT_EVALS``) searching ``--gbot-depth`` plies as its rungs do (the
  ladder's games spend part of their time in them, a study's most);
- Chinese chess: Fairy-Stockfish (when installed) on the same positions for
  the same time per move, one thread: its nodes per second of wall time and
  of the engine process's CPU time, and the depth it reports.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import players
from harness.errors import SpecError
from harness.games import Rules, State, load as load_game
from harness.testing import random_positions
from players import search as searches
from players.alphabeta import technique_bits
from players.features import weight_vector
from players.ladder import FAIRY_STOCKFISH
from players.mcts import compiled_rollout
from players.process import find_program
from players.uci import UCIEngine

MCTS_ITERATIONS = 200


def bench_alphabeta(rules: Rules, states: list[State], seconds: float, techniques: int | None = None) -> dict:
    """Time-limited searches from each position: nodes per second and the depth reached."""
    search = searches.module(rules.name).search
    weights = weight_vector(rules.name)
    chosen = {} if techniques is None else {"techniques": techniques}
    search(rules, states[0], weights, depth=2, nodes=None, deadline=None, seed=0, **chosen)  # compile / warm up
    nodes, elapsed, cpu, depths = 0, 0.0, 0.0, []
    for index, state in enumerate(states):
        started, cpu_started = time.perf_counter(), time.process_time()
        result = search(rules, state, weights, depth=64, nodes=None,
                        deadline=time.monotonic() + seconds, seed=index, **chosen)
        elapsed += time.perf_counter() - started
        cpu += time.process_time() - cpu_started
        nodes += result.nodes
        depths.append(result.depth)
    return {"nodes_per_s": round(nodes / elapsed), "nodes_per_cpu_s": round(nodes / cpu),
            "depth_median": statistics.median(depths), "depth_min": min(depths), "depth_max": max(depths)}


def bench_gbot(rules: Rules, states: list[State], depth: int) -> dict[str, int]:
    """Nodes per CPU second of each ladder evaluation's stand-in searching ``depth`` plies."""
    search = searches.module(rules.name).search
    rates = {}
    for evaluation in searches.module(rules.name).GBOT_EVALS:
        weights, arguments = players.load(f"gbot:depth={depth},eval={evaluation}").search_arguments(rules)
        search(rules, states[0], weights, seed=0, **(arguments | {"depth": 1}))  # compile / warm up
        nodes, started = 0, time.process_time()
        for index, state in enumerate(states):
            nodes += search(rules, state, weights, seed=index, **arguments).nodes
        rates[evaluation] = round(nodes / (time.process_time() - started))
    return rates


def bench_mcts(rules: Rules, states: list[State], spec: str) -> float:
    """MCTS iterations per CPU second over the positions at a fixed iteration count."""
    player = players.load(spec)
    player.reset(0)
    player.choose(rules, states[0])  # compile / warm up
    started = time.process_time()
    for state in states:
        player.choose(rules, state)
    iterations = player.params["iterations"] * len(states)
    return round(iterations / (time.process_time() - started), 1)


def engine_cpu_seconds(pid: int) -> float | None:
    """User and system CPU seconds of a process (Linux ``/proc``), or None elsewhere."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def bench_fairy_stockfish(rules: Rules, states: list[State], seconds: float) -> dict | None:
    """Fairy-Stockfish's nodes per second from the same positions, ``seconds`` per move; None if missing."""
    if find_program(FAIRY_STOCKFISH) is None:
        return None
    engine = UCIEngine([FAIRY_STOCKFISH], {"Threads": "1"}, "auto", timeout=30)
    try:
        nodes, elapsed, depths = 0, 0.0, []
        cpu_started = engine_cpu_seconds(engine.process.pid)
        for state in states:
            engine.new_game(30)
            started = time.perf_counter()
            _, info = engine.search(rules.to_fen(state), [], f"go movetime {round(seconds * 1000)}", seconds + 30)
            elapsed += time.perf_counter() - started
            nodes += info.get("nodes", 0)
            depths.append(info.get("depth", 0))
        cpu_ended = engine_cpu_seconds(engine.process.pid)
    finally:
        engine.close()
    cpu = None if cpu_started is None or cpu_ended is None else cpu_ended - cpu_started
    return {"engine": engine.name, "nodes_per_s": round(nodes / elapsed),
            "nodes_per_cpu_s": round(nodes / cpu) if cpu else None,
            "depth_median": statistics.median(depths), "depth_min": min(depths), "depth_max": max(depths)}


def run(games: list[str], seconds: float, count: int, added: str | None = None, gbot_depth: int = 4) -> dict:
    """The measurements of every game, keyed by game spec (``added``: techniques to measure on top)."""
    report: dict = {"seconds_per_move": seconds, "positions": count, "gbot_depth": gbot_depth, "games": {}}
    for game in games:
        rules = load_game(game)
        module = searches.module(rules.name)
        bits = None  # a bad name is refused before any measuring
        if added and hasattr(module, "TECHNIQUES"):
            bits = module.DEFAULT_TECHNIQUES | technique_bits(module.TECHNIQUES, added)
        states = random_positions(rules, count)
        report["games"][rules.spec] = {
            "alphabeta": bench_alphabeta(rules, states, seconds),
            "mcts_random_iterations_per_s": bench_mcts(rules, states, f"mcts:iterations={MCTS_ITERATIONS}"),
            "mcts_rollout": "compiled" if compiled_rollout(rules.name) else "python",
            "mcts_eval_iterations_per_s": bench_mcts(rules, states,
                                                     f"mcts:iterations={MCTS_ITERATIONS},rollout=eval"),
            "gbot_nodes_per_cpu_s": bench_gbot(rules, states, gbot_depth),
        }
        if bits is not None:
            report["games"][rules.spec][f"alphabeta_with_{added}"] = bench_alphabeta(rules, states, seconds, bits)
        if rules.name == "xiangqi":
            report["games"][rules.spec]["fairy_stockfish"] = bench_fairy_stockfish(rules, states, seconds)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help="game specs (default: every game with a search)")
    parser.add_argument("--json", action="store_true", help="print one JSON line (the default output)")
    parser.add_argument("--seconds", type=float, default=1.0, help="alpha-beta time per move")
    parser.add_argument("--positions", type=int, default=4, help="positions per game")
    parser.add_argument("--with", dest="added", metavar="NAMES",
                        help="also measure alpha-beta with these techniques (joined by +) added to the default")
    parser.add_argument("--gbot-depth", type=int, default=4, metavar="D",
                        help="plies the G-Bot stand-ins search in their measurement (default 4)")
    args = parser.parse_args()
    if args.gbot_depth < 1:
        parser.error(f"--gbot-depth must be at least 1, not {args.gbot_depth}")
    try:
        print(json.dumps(run(args.games or searches.available(), args.seconds, args.positions, args.added,
                             args.gbot_depth)))
    except SpecError as error:
        print(f"bench_players: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
