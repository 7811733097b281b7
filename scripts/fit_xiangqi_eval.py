#!/usr/bin/env python
"""Fit Chinese chess's evaluation weights to a UCI engine's readings of stored positions.

Usage: scripts/fit_xiangqi_eval.py FILE [FILE ...] --labels LABELS [--engine COMMAND] [--depth N]
                                   [--ridge L] [--json]

FILE is a ``--results`` file of ``eval_players.py``. Every distinct position of
its Chinese chess games (from ply 3, before the end) is read once by the engine
(default ``fairy-stockfish``, one thread, depth ``--depth``, default 8) and the
reading kept in LABELS, a JSON-lines file that later runs extend rather than
redo (about 12 ms a position at depth 8: the 62,000 positions of
``docs/ladder`` take 12 minutes once).

The fit keeps the quiet positions (the side to move not in check, the
engine's best move not a capture, the reading within 15 pawns), where a
static evaluation can be right, and finds by ridge regression the weights
whose evaluation best matches the readings: each weight's contribution is the
evaluation with that weight alone at 1 (``hanging``, which scales the other
weights' piece values, by the difference it makes at the defaults), the
readings are first put on the evaluation's scale (the one factor that best
maps the default evaluation onto them), and the ridge pulls every weight
towards its default, so a weight the positions say little about stays put.
``move_limit`` is not fitted (no position here is at the limit).

It prints each weight's default and fitted value, the held-out correlation
with the readings of the defaults and of the fit (fitted on four fifths of
the positions, measured on the rest; the printed weights are then fitted on
all), and the fitted weights as a spec fragment for ``alphabeta``
(``w.NAME=VALUE,...``). ``--json`` prints one JSON line instead. A better
correlation is a hypothesis, not a result: only a paired match says whether
the fitted weights play better (docs/players.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from harness.cli import print_table
from harness.errors import PlayerError, SpecError
from harness.games import State, load as load_game
from harness.games.xiangqi import _core as core
from harness.games.xiangqi.features import FEATURES
from harness.games.xiangqi.search import evaluate
from harness.replay import replay_states
from harness.results import read_results_file
from players.uci import UCIEngine, move_to_action, position_reader

FIRST_PLY = 3  # after the two random opening plies and the first reply
QUIET_LIMIT = 1500  # centipawns: beyond this a position is decided, not evaluated
FITTED = [name for name in FEATURES if name != "move_limit"]
RULES = load_game("xiangqi")


def _probes() -> list[tuple[np.ndarray, np.ndarray | None]]:
    """Per fitted weight, the weight vector whose evaluation is its contribution (the weight alone at 1),
    or for ``hanging`` (a share of the piece values) two whose evaluations differ by it (1 and 0 at the
    defaults)."""
    defaults = np.array([f.default for f in FEATURES.values()])
    names = list(FEATURES)
    probes: list[tuple[np.ndarray, np.ndarray | None]] = []
    for name in FITTED:
        alone = np.zeros_like(defaults)
        alone[names.index(name)] = 1.0
        if name == "hanging":
            with_it, without = defaults.copy(), defaults.copy()
            with_it[names.index(name)], without[names.index(name)] = 1.0, 0.0
            probes.append((with_it, without))
        else:
            probes.append((alone, None))
    return probes


PROBES = _probes()


def positions(paths: list[Path]) -> list[str]:
    """The distinct positions (FEN) of the Chinese chess games in ``paths``, in a fixed order."""
    found: set[str] = set()
    for path in paths:
        try:
            matches = read_results_file(path)[0]
        except ValueError as error:
            raise SystemExit(f"fit_xiangqi_eval: {path} {error}") from None
        for match in matches:
            if match["game"].partition(":")[0] != "xiangqi":
                continue
            for rules, state, _action, _who in replay_states(match["game"], match["actions"]):
                if rules.is_terminal(state):
                    break
                if state.ply >= FIRST_PLY:
                    found.add(rules.to_fen(state))
    return sorted(found)


def read_labels(path: Path) -> dict[str, dict[str, Any]]:
    """The readings already in LABELS, by FEN (a torn last line is read again, not kept)."""
    labels = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            labels[row["fen"]] = row
    return labels


def label(fens: list[str], path: Path, engine: UCIEngine, depth: int) -> dict[str, dict[str, Any]]:
    """Every FEN's reading (red's view, centipawns; the engine's best move), reading only the new ones and
    appending each to ``path`` as it is made, so an interrupted run loses one position."""
    labels = read_labels(path)
    todo = [fen for fen in fens if fen not in labels]
    with path.open("a") as out:
        for number, fen in enumerate(todo, 1):
            best, info = engine.search(fen, [], f"go depth {depth}", 600.0)
            if "score" not in info:
                continue
            red = info["score"] if fen.split()[1] == "w" else -info["score"]
            labels[fen] = {"fen": fen, "red_cp": red, "best": best}
            out.write(json.dumps(labels[fen]) + "\n")
            if number % 1000 == 0 or number == len(todo):
                out.flush()
                print(f"read {number}/{len(todo)} new positions", file=sys.stderr, flush=True)
    return {fen: labels[fen] for fen in fens if fen in labels}


def contributions(state: State) -> np.ndarray:
    """Each fitted weight's contribution to red's evaluation of ``state`` (the weight alone at 1)."""
    board, _slot, plist, _ = RULES.position(state)
    moves = np.zeros(core.MAX_MOVES, dtype=np.int64)
    return np.array([evaluate(board, plist, 0, weights, moves)
                     - (0.0 if base is None else evaluate(board, plist, 0, base, moves))
                     for weights, base in PROBES])


def quiet(row: dict[str, Any], state: State) -> bool:
    """A position (``row``'s reading of ``state``) a static evaluation can be right about: not in check,
    no capture best, not decided."""
    if abs(row["red_cp"]) >= QUIET_LIMIT:
        return False
    target = move_to_action(row["best"], 1)["to"]
    if state.cells[target[0] * 9 + target[1]]:
        return False
    board, _slot, plist, _ = RULES.position(state)
    side = RULES.to_move(state)
    return not core.is_attacked(board, plist[side * 16], side)


def fit(features: np.ndarray, readings: np.ndarray, prior: np.ndarray, ridge: float) -> tuple[np.ndarray, float]:
    """Weights minimising |features @ w - readings / scale|^2 + ridge |w - prior|^2, and that scale (the
    factor that best maps the prior's evaluation onto the readings)."""
    prior_eval = features @ prior
    scale = float(prior_eval @ readings / (prior_eval @ prior_eval))
    gram = features.T @ features + ridge * np.eye(features.shape[1])
    return np.linalg.solve(gram, features.T @ (readings / scale) + ridge * prior), scale


def held_out(features: np.ndarray, readings: np.ndarray, prior: np.ndarray, ridge: float) -> dict[str, float]:
    """Correlation with the readings on a fixed fifth of the positions, of the defaults and of weights fitted
    on the other four fifths."""
    order = np.random.default_rng(0).permutation(len(readings))
    test, train = order[: len(order) // 5], order[len(order) // 5:]
    weights, _ = fit(features[train], readings[train], prior, ridge)
    return {"defaults": float(np.corrcoef(features[test] @ prior, readings[test])[0, 1]),
            "fitted": float(np.corrcoef(features[test] @ weights, readings[test])[0, 1])}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE", help="eval_players.py --results files")
    parser.add_argument("--labels", type=Path, required=True, metavar="LABELS",
                        help="the engine's readings, kept across runs (JSON lines; created if missing)")
    parser.add_argument("--engine", default="fairy-stockfish", metavar="COMMAND",
                        help="the UCI engine that reads the positions (one with UCI_Variant xiangqi)")
    parser.add_argument("--depth", type=int, default=8, help="the engine's depth a position")
    parser.add_argument("--ridge", type=float, default=30.0, metavar="L",
                        help="how strongly each weight is held to its default")
    parser.add_argument("--json", action="store_true", help="print one JSON line instead of a table")
    args = parser.parse_args()
    if args.depth < 1 or args.ridge < 0:
        parser.error("--depth must be at least 1 and --ridge at least 0")
    for path in args.files:
        if not path.is_file():
            parser.error(f"{path} is not a file; give eval_players.py --results files")
    if not args.labels.parent.is_dir():
        parser.error(f"--labels: the folder {args.labels.parent} does not exist")
    fens = positions(args.files)
    try:
        engine = position_reader(args.engine)
    except (PlayerError, SpecError, OSError) as error:
        parser.error(f"--engine {args.engine}: {error}")
    try:
        labels = label(fens, args.labels, engine, args.depth)
    finally:
        engine.close()
    read = [(row, RULES.from_fen(row["fen"])) for row in labels.values()]
    rows = [(row, state) for row, state in read if quiet(row, state)]
    if len(rows) < 10 * len(FITTED):
        parser.error(f"only {len(rows)} quiet positions in these files; the fit needs at least {10 * len(FITTED)}")
    features = np.array([contributions(state) for _row, state in rows])
    readings = np.array([row["red_cp"] / 100.0 for row, _state in rows])
    prior = np.array([FEATURES[name].default for name in FITTED])
    weights, scale = fit(features, readings, prior, args.ridge)
    fitted = {name: round(float(value), 4) for name, value in zip(FITTED, weights)}
    result = {"positions": len(labels), "quiet": len(rows), "depth": args.depth, "ridge": args.ridge,
              "scale": round(scale, 4), "correlation": held_out(features, readings, prior, args.ridge),
              "weights": fitted, "spec": ",".join(f"w.{name}={value:g}" for name, value in fitted.items())}
    if args.json:
        print(json.dumps(result))
        return 0
    print_table(f"{result['quiet']} quiet positions of {result['positions']}, read at depth {args.depth} "
                f"(1 pawn of the evaluation = {scale:.2f} of the engine's)", ["weight", "default", "fitted"],
                [[name, f"{FEATURES[name].default:g}", f"{value:g}"] for name, value in fitted.items()])
    correlation = result["correlation"]
    print(f"held-out correlation with the readings: defaults {correlation['defaults']:.3f}, "
          f"fitted {correlation['fitted']:.3f}")
    print(result["spec"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
