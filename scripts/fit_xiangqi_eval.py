#!/usr/bin/env python
"""Fit Chinese chess's square tables to a UCI engine's readings of stored positions.

Usage: scripts/fit_xiangqi_eval.py FILE [FILE ...] --labels LABELS (--squares TABLE | --corrections TABLE)
                                   [--engine COMMAND] [--depth N] [--ridge L] [--without NAME ...] [--json]

Fitting the named weights alone is ``harness fit``'s job now, for every game
(docs/tuning.md, "Fitting weights to recorded games"); for Chinese chess to
Fairy-Stockfish's readings::

    harness fit xiangqi --label search --label-player uci:command=fairy-stockfish,nodes=20000,option.Threads=1

It reads the games from the results database or export files, stores the
readings in the database, fits by logistic loss with a held-out loss and
saves ``fitted:<name>``. This script keeps what only it does: the tables
(``--squares``, ``--corrections``), hundreds of values per kind and square
that are not named weights, fitted by ridge regression on quiet positions.

FILE is a file of match lines written by ``harness export`` (one match a line;
``MatchResult`` lines, as ``harness play --json`` prints them, read the same).
Every distinct position of its Chinese chess games (from ply 3, before the
end) is read once by the engine (default ``fairy-stockfish``, one thread, depth
``--depth``, default 8) and the reading kept in LABELS, a JSON-lines file that
later runs extend rather than redo (about 12 ms a position at depth 8: the
62,000 positions of the stored ladder games, ``docs/ladder/xiangqi.db.gz``,
take 12 minutes once). The stored games, as one file::

    harness db restore docs/ladder/xiangqi.db.gz --db sqlite:///xiangqi-ladder.db
    harness export xiangqi --db sqlite:///xiangqi-ladder.db > xiangqi-games.jsonl

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

``--squares TABLE`` fits, beside the weights, a value for every kind on every square (seen
from its own side, the two halves of the board folded onto one: 350 values)
and writes them to TABLE in the form ``harness/games/xiangqi/squares.json``
takes; the ``squares`` weight is then 1 and the terms the table subsumes
(``piece_square``, ``soldier_crossed``, ``soldier_advance``) are held at 0.
Each kind's values are centred on the squares it stood on in these
positions, their mean moved into its material weight, so a piece value
keeps meaning a piece's average worth. ``--corrections TABLE`` instead keeps every weight and the square table as they are
and fits, on what their evaluation leaves over, three tables written to TABLE
in the form ``harness/games/xiangqi/corrections.json`` takes: ``early`` and
``late`` square values (weighted by how much of the chariots', horses' and
cannons' force is on the board, and by how much is gone) and ``attack``, what a
chariot, horse, cannon or soldier adds by its files and rows from the enemy
general; their weights ``early_squares``, ``late_squares`` and
``attack_squares`` are then 1. ``--without NAME`` holds a weight at
0 (the four move counts, for example: they cost a move generation for both
sides at every evaluation).

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
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

from harness.cli import print_table
from harness.errors import PlayerError, SpecError
from harness.games import State, load as load_game
from harness.games.xiangqi import _core as core
from harness.games.xiangqi.features import (ATTACKERS, FEATURES, KIND_WEIGHTS, SQUARE_KINDS, fold, phase)
from harness.games.xiangqi.search import CORRECTIONS, SQUARES, evaluate, piece_values
from harness.replay import replay_states
from harness.results import read_results_file
from players.uci import UCIEngine, move_to_action, position_reader

FIRST_PLY = 3  # after the two random opening plies and the first reply
QUIET_LIMIT = 1500  # centipawns: beyond this a position is decided, not evaluated
TABLES = ("squares", "early_squares", "late_squares", "attack_squares")  # scales of fitted tables
FITTED = [name for name in FEATURES if name != "move_limit" and name not in TABLES]
CORRECTED = TABLES[1:]  # the weights of the --corrections tables
SUBSUMED = ("piece_square", "soldier_crossed", "soldier_advance")  # what a fitted square table stands for
RULES = load_game("xiangqi")


Probe = tuple[np.ndarray, np.ndarray]  # a weight vector and its piece values (``piece_values``)


def _probes() -> list[tuple[Probe, Probe | None]]:
    """Per fitted weight, the weight vector whose evaluation is its contribution (the weight alone at 1),
    or for ``hanging`` (a share of the piece values) two whose evaluations differ by it (1 and 0 at the
    defaults); each with the piece values the evaluation reads."""
    defaults = np.array([f.default for f in FEATURES.values()])
    names = list(FEATURES)
    probes: list[tuple[Probe, Probe | None]] = []
    for name in FITTED:
        alone = np.zeros_like(defaults)
        alone[names.index(name)] = 1.0
        if name == "hanging":
            with_it, without = defaults.copy(), defaults.copy()
            with_it[names.index(name)], without[names.index(name)] = 1.0, 0.0
            probes.append(((with_it, piece_values(with_it, SQUARES, CORRECTIONS)),
                           (without, piece_values(without, SQUARES, CORRECTIONS))))
        else:
            probes.append(((alone, piece_values(alone, SQUARES, CORRECTIONS)), None))
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
    return np.array([evaluate(board, plist, 0, *probe, moves)
                     - (0.0 if base is None else evaluate(board, plist, 0, *base, moves))
                     for probe, base in PROBES])


def square_counts(state: State) -> tuple[np.ndarray, np.ndarray]:
    """Per kind and folded square (``fold``): red's pieces less black's there (what a square value adds to
    red's evaluation), and how many pieces of either side stand there; each (8, 10, 5), flattened."""
    signed, present = np.zeros((8, 10, 5)), np.zeros((8, 10, 5))
    for index, code in enumerate(state.cells):
        if code:
            owner, kind = code >> 3, code & 7
            row, col = fold(index // 9, index % 9, owner)
            signed[kind, row, col] += 1.0 if owner == 0 else -1.0
            present[kind, row, col] += 1.0
    return signed.ravel(), present.ravel()


def correction_counts(state: State) -> np.ndarray:
    """The columns of the correction tables for ``state``: red's pieces less black's per kind and folded
    square, weighted by the phase (``early``) and by its rest (``late``), then per attacking kind and
    rows and files from the enemy general (``attack``); flattened, 400 + 400 + 360."""
    signed, _present = square_counts(state)
    share = phase(state.cells)
    attack = np.zeros((len(ATTACKERS), 10, 9))
    generals = {code >> 3: index for index, code in enumerate(state.cells) if code and code & 7 == 1}
    for index, code in enumerate(state.cells):
        owner, kind = code >> 3, code & 7
        if code and kind in ATTACKERS and 1 - owner in generals:
            row, col = divmod(generals[1 - owner], 9)
            attack[ATTACKERS.index(kind), abs(index // 9 - row), abs(index % 9 - col)] += 1.0 if owner == 0 else -1.0
    return np.concatenate([signed * share, signed * (1.0 - share), attack.ravel()])


def correction_values(values: np.ndarray, columns: np.ndarray) -> dict[str, dict[str, list[list[float]]]]:
    """The fitted corrections as the table file holds them (``correction_counts``' columns)."""
    table = np.zeros(800 + 10 * 9 * len(ATTACKERS))
    table[columns] = values
    early, late, attack = table[:400].reshape(8, 10, 5), table[400:800].reshape(8, 10, 5), table[800:]
    attack = attack.reshape(len(ATTACKERS), 10, 9)
    names = {kind: name for name, kind in SQUARE_KINDS.items()}

    def rounded(rows: np.ndarray) -> list[list[float]]:
        return [[round(float(value), 3) for value in row] for row in rows]
    return {"early": {name: rounded(early[kind]) for name, kind in SQUARE_KINDS.items()},
            "late": {name: rounded(late[kind]) for name, kind in SQUARE_KINDS.items()},
            "attack": {names[kind]: rounded(attack[i]) for i, kind in enumerate(ATTACKERS)}}


def evaluations(states: list[State], weights: dict[str, float]) -> np.ndarray:
    """Red's evaluation of each of ``states`` at ``weights`` (every feature named)."""
    vector = np.array([weights[name] for name in FEATURES])
    values, moves = piece_values(vector, SQUARES, CORRECTIONS), np.zeros(core.MAX_MOVES, dtype=np.int64)
    out = np.empty(len(states))
    for i, state in enumerate(states):
        board, _slot, plist, _ = RULES.position(state)
        out[i] = evaluate(board, plist, 0, vector, values, moves)
    return out


def write_table(path: Path, data: dict[str, Any]) -> None:
    """Write a table file, a row of numbers to a line so it reads as a board."""
    text = json.dumps(data, indent=1)
    path.write_text(re.sub(r"\[\s+([^\[\]]*?)\s+\]", lambda row: "[" + " ".join(row[1].split()) + "]", text) + "\n")


def square_values(values: np.ndarray, columns: np.ndarray, present: np.ndarray,
                  weights: dict[str, float]) -> dict[str, list[list[float]]]:
    """The fitted square values as the table file holds them, each kind centred on where its pieces stood
    (``present``, summed over the positions), the mean moved into ``weights``' material weight."""
    table = np.zeros(8 * 50)
    table[columns] = values
    table, present = table.reshape(8, 10, 5), present.reshape(8, 10, 5)
    kinds = {}
    for name, kind in SQUARE_KINDS.items():
        mean = float((table[kind] * present[kind]).sum() / present[kind].sum())
        table[kind][present[kind] > 0] -= mean
        if kind in KIND_WEIGHTS:
            weights[KIND_WEIGHTS[kind]] = round(weights[KIND_WEIGHTS[kind]] + mean, 4)
        kinds[name] = [[round(float(value), 3) for value in row] for row in table[kind]]
    return kinds


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


def scale(evaluation: np.ndarray, readings: np.ndarray) -> float:
    """The one factor that best maps an evaluation onto the readings (an engine's pawn against ours)."""
    return float(evaluation @ readings / (evaluation @ evaluation))


def fit(features: np.ndarray, readings: np.ndarray, prior: np.ndarray, ridge: float) -> np.ndarray:
    """Weights minimising |features @ w - readings|^2 + ridge |w - prior|^2."""
    gram = features.T @ features + ridge * np.eye(features.shape[1])
    return np.linalg.solve(gram, features.T @ readings + ridge * prior)


def held_out(features: np.ndarray, readings: np.ndarray, prior: np.ndarray, ridge: float,
             defaults: np.ndarray, fixed: np.ndarray) -> dict[str, float]:
    """Correlation with the readings on a fixed fifth of the positions, of the defaults' evaluation
    (``defaults``) and of weights fitted on the other four fifths (to what ``fixed``, the evaluation's
    part not fitted, leaves over)."""
    order = np.random.default_rng(0).permutation(len(readings))
    test, train = order[: len(order) // 5], order[len(order) // 5:]
    rest = readings - fixed
    weights = fit(features[train], rest[train], prior, ridge)
    return {"defaults": float(np.corrcoef(defaults[test], readings[test])[0, 1]),
            "fitted": float(np.corrcoef(features[test] @ weights + fixed[test], readings[test])[0, 1])}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE",
                        help="files of match lines (harness export; one match a line)")
    parser.add_argument("--labels", type=Path, required=True, metavar="LABELS",
                        help="the engine's readings, kept across runs (JSON lines; created if missing)")
    parser.add_argument("--engine", default="fairy-stockfish", metavar="COMMAND",
                        help="the UCI engine that reads the positions (one with UCI_Variant xiangqi)")
    parser.add_argument("--depth", type=int, default=8, help="the engine's depth a position")
    parser.add_argument("--ridge", type=float, default=30.0, metavar="L",
                        help="how strongly each weight is held to its default")
    parser.add_argument("--squares", type=Path, metavar="TABLE",
                        help="also fit a value per kind and square, written to TABLE (squares.json's form)")
    parser.add_argument("--corrections", type=Path, metavar="TABLE",
                        help="fit the early, late and attack tables over the evaluation as it is, written to "
                             "TABLE (corrections.json's form)")
    parser.add_argument("--without", action="append", default=[], metavar="NAME",
                        help="hold this weight at 0 (repeatable)")
    parser.add_argument("--json", action="store_true", help="print one JSON line instead of a table")
    args = parser.parse_args()
    if args.depth < 1 or args.ridge < 0:
        parser.error("--depth must be at least 1 and --ridge at least 0")
    unknown = [name for name in args.without if name not in FITTED]
    if unknown:
        parser.error(f"--without {unknown[0]}: not a fitted weight; fitted: {', '.join(FITTED)}")
    if args.squares is not None and args.corrections is not None:
        parser.error("give --squares or --corrections, not both")
    for option, table in (("--squares", args.squares), ("--corrections", args.corrections)):
        if table is not None and not table.parent.is_dir():
            parser.error(f"{option}: the folder {table.parent} does not exist")
    for path in args.files:
        if not path.is_file():
            parser.error(f"{path} is not a file; give files of match lines (harness export writes them)")
    if not args.labels.parent.is_dir():
        parser.error(f"--labels: the folder {args.labels.parent} does not exist")
    if args.squares is None and args.corrections is None:
        parser.error("give --squares or --corrections; the named weights alone are fitted by harness fit xiangqi "
                     "--label search --label-player uci:command=fairy-stockfish,nodes=20000 (docs/tuning.md)")
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
    states = [state for _row, state in rows]
    every = {name: feature.default for name, feature in FEATURES.items()}
    defaults = evaluations(states, every)
    readings = np.array([row["red_cp"] / 100.0 for row, _state in rows])
    # What a refit starts from: the defaults without the tables it refits (the corrections are fitted over
    # the square table, so a new square table drops them too); the readings are put on its scale.
    zeroed = CORRECTED if args.corrections else TABLES if args.squares else ()
    start = every | dict.fromkeys(zeroed, 0.0)
    reference = defaults if start == every else evaluations(states, start)
    factor = scale(reference, readings)
    if args.corrections:
        held = set(FITTED)
        counts = np.array([correction_counts(state) for state in states])
        columns = np.flatnonzero(np.abs(counts).sum(axis=0))
        features, prior, fixed = counts[:, columns], np.zeros(len(columns)), reference
    else:
        # the tables not refitted here keep their part of the evaluation
        off = dict.fromkeys(FEATURES, 0.0)
        fixed = evaluations(states, off | {name: every[name] for name in TABLES if name not in zeroed})
        held = set(args.without) | (set(SUBSUMED) if args.squares else set())
        kept = [i for i, name in enumerate(FITTED) if name not in held]
        contributed = np.array([contributions(state) for state in states])
        features, prior = contributed[:, kept], np.array([FEATURES[FITTED[i]].default for i in kept])
        if args.squares:
            signed, present = (np.array(part) for part in zip(*(square_counts(state) for state in states)))
            columns = np.flatnonzero(present.sum(axis=0))
            features = np.hstack([features, signed[:, columns]])
            prior = np.concatenate([prior, np.zeros(len(columns))])
    weights = fit(features, readings / factor - fixed, prior, args.ridge)
    if args.corrections:
        note = (f"pawns added to a piece's value: early and late per kind as squares.json (weighted by the share "
                f"of the chariots', horses' and cannons' force on the board, and by the rest), attack per "
                f"attacking kind by rows (10) and files (9) from the enemy general; fitted by "
                f"scripts/fit_xiangqi_eval.py --corrections to {len(rows)} quiet positions read at depth {args.depth}")
        write_table(args.corrections, {"about": note} | correction_values(weights, columns))
        fitted = {name: every[name] for name in FITTED} | dict.fromkeys(CORRECTED, 1.0)
    else:
        fitted = {name: 0.0 for name in FITTED}
        fitted.update({FITTED[i]: round(float(value), 4) for i, value in zip(kept, weights)})
    if args.squares:
        table = square_values(weights[len(kept):], columns, present.sum(axis=0), fitted)
        about = (f"pawns beyond the material weight, per kind, 10 rows from the far side to the own back rank, "
                 f"5 files from the edge to the middle; fitted by scripts/fit_xiangqi_eval.py --squares to "
                 f"{len(rows)} quiet positions read at depth {args.depth}")
        write_table(args.squares, {"about": about, "kinds": table})
        fitted["squares"] = 1.0
    result = {"positions": len(labels), "quiet": len(rows), "depth": args.depth, "ridge": args.ridge,
              "scale": round(factor, 4), "correlation": held_out(features, readings / factor, prior, args.ridge,
                                                                 defaults, fixed),
              "weights": fitted, "spec": ",".join(f"w.{name}={value:g}" for name, value in fitted.items())}
    if args.json:
        print(json.dumps(result))
        return 0
    print_table(f"{result['quiet']} quiet positions of {result['positions']}, read at depth {args.depth} "
                f"(1 pawn of the evaluation = {factor:.2f} of the engine's)", ["weight", "default", "fitted"],
                [[name, f"{FEATURES[name].default:g}", f"{value:g}" + (" (held)" if name in held else "")]
                 for name, value in fitted.items()])
    for table in (args.squares, args.corrections):
        if table:
            print(f"tables written to {table}")
    correlation = result["correlation"]
    print(f"held-out correlation with the readings: defaults {correlation['defaults']:.3f}, "
          f"fitted {correlation['fitted']:.3f}")
    print(result["spec"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
