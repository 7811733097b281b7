"""A small UCI engine for the tests: plays the first legal move, or misbehaves on purpose.

Usage: uci_engine.py LOG [--mode MODE] [--ranks 1-10|0-9]

It appends every line it receives to LOG (and its pid, environment and
any unknown arguments, as JSON, on the first line), so a test can see the protocol and what the engine
was given. ``--ranks 1-10`` answers like Fairy-Stockfish (it has
``UCI_Variant``), ``0-9`` like Pikafish (no ``UCI_Variant``). Modes:
``play`` (default), ``hang`` (never answers ``go``), ``hang-handshake``
(never answers ``uci``), ``garbage`` (``bestmove banana``), ``illegal``
(a well-formed move that is not legal), ``crash`` (exits on ``go``).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("log")
    parser.add_argument("--mode", default="play")
    parser.add_argument("--ranks", default="1-10", choices=("1-10", "0-9"))
    args, extra = parser.parse_known_args()
    first_rank = 1 if args.ranks == "1-10" else 0
    with open(args.log, "a") as log:
        log.write(json.dumps({"pid": os.getpid(), "environment": dict(os.environ), "extra": extra}) + "\n")
        log.flush()
        # imported after the start is logged: on a busy machine the import takes seconds
        from harness.games import load as load_game
        from players.uci import action_to_move, move_to_action
        rules = load_game("xiangqi")
        state = rules.initial_state()
        print("test engine 1.0 by the harness's tests", flush=True)
        for line in sys.stdin:
            log.write(line)
            log.flush()
            command = line.split()
            if not command:
                continue
            if command[0] == "uci":
                if args.mode == "hang-handshake":
                    time.sleep(600)
                print("id name Test Engine\nid author the tests", flush=True)
                if first_rank == 1:
                    print("option name UCI_Variant type combo default chess var chess var xiangqi", flush=True)
                print("option name Hash type spin default 16 min 1 max 1024\nuciok", flush=True)
            elif command[0] == "isready":
                print("readyok", flush=True)
            elif command[0] == "position":
                state = rules.from_fen(" ".join(command[2:8]))
                for move in command[9:]:
                    state = rules.apply(state, move_to_action(move, first_rank))
            elif command[0] == "go":
                if args.mode == "hang":
                    time.sleep(600)
                if args.mode == "crash":
                    print("segmentation fault (not really)", file=sys.stderr, flush=True)
                    return 139
                move = {"garbage": "banana", "illegal": "a1a1" if first_rank else "a0a0"}.get(
                    args.mode, action_to_move(rules.legal_actions(state)[0], first_rank))
                print(f"info depth 3 seldepth 4 score cp 42 nodes 1234 pv {move}", flush=True)
                print(f"bestmove {move}", flush=True)
            elif command[0] == "quit":
                return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
