#!/usr/bin/env python
"""Generate the Chinese chess tactics suite: forced wins and losses a few plies deep, checked by Fairy-Stockfish.

Usage: PYTHONPATH=$PWD python scripts/tactics/xiangqi.py --seed S --count N --out tests/tactics/xiangqi.json
                                                       [--engine COMMAND]

How (docs/players.md, "The tactics suite"): seeded semi-random games (an
opening of ``harness/games/xiangqi/openings.json``, then each ply a random
capture half the time when there is one, else a random move) pass by many
positions; some of them, with fresh clocks, are read by Fairy-Stockfish at
``SCREEN_DEPTH`` and kept while their kind's quota is open (at most one of
each kind a game, so they are not alike). Each position is labelled by two
references that share no search code with the project's: a full-width
prover (``Prover``: every move of both sides, nothing pruned, on the
compiled move generator that the game's tests check against
Fairy-Stockfish's) says what is forced, and Fairy-Stockfish must agree:

* ``win``: the side to move wins in 1, 2 or 3 moves at the soonest
  (``plies`` 1, 3 or 5); ``moves`` are all the moves that do. ``go mate N``
  finds a mate that long, one of those moves, and finds it again with each
  of them alone (``searchmoves``).
* ``avoid``: most moves lose within ``plies`` (2 or 4: the other side mates
  in 1 or 2 after them, some exactly that late), the side is not lost
  within 4; ``moves`` are those that do not lose within ``plies``. After
  each losing move ``go mate`` finds the other side's mate, after each of
  ``moves`` a search at ``LABEL_DEPTH`` sees none that soon. Found by
  passing the move: a side the other could then mate in 1 or 2 is under a
  threat (one in check always is).
* ``none``: no result is forced within ``plies`` (5) for either side, and
  Fairy-Stockfish at ``LABEL_DEPTH`` sees none either: a search that claims
  one there is wrong.

Why the prover and not Fairy-Stockfish's own scores: its mate lengths are
the lengths it found, not the shortest, and MultiPV scores of other moves
can be longer still (a quiet stalemating move reduced to its quiescence,
where stalemate is not seen), so the sets of winning moves it reports are
incomplete. ``go mate N`` with deeper search does find each mate the
prover finds (none was dropped for it at the shipped seed).

Quotas are a fifth of ``count`` for each mate length, a tenth for each loss
horizon and a fifth for ``none``, each split evenly between red and black to
move. Every move stored is the project's action notation of a legal move.

Where the rules text and Fairy-Stockfish's xiangqi differ, and why they
agree here: both make a side with no legal move (checkmate or stalemate)
lose and forbid facing generals (the project's ``strict`` legality). The
120-ply limit of the rules text cannot reach a stored position (fresh clocks,
``0 1``, and at most 5 plies to the result). Fairy-Stockfish's repetition
rules (perpetual check and chase lose, other repetitions draw) cannot change
a shortest forced result within 5 plies of a position without history: a
repetition needs 4 plies, so it could only return to the stored position
itself with the same side to move, and a line through it is never the
shortest way to a result. A position where the two references disagree is
dropped and counted in the summary the script prints (``skipped``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from harness.errors import NotationError, PlayerError, SpecError
from harness.games import load as load_game
from harness.games.openings import suite_file
from harness.games.xiangqi import SIDES, XiangqiRules, XiangqiState
from harness.games.xiangqi._core import (MAX_MOVES, SIDE, generate, generate_legal, is_attacked, make, make_legal,
                                         unmake)
from players.uci import MATE_CP, UCIEngine, action_to_move, move_to_action, parse_info, position_reader

FORMAT = "harness.tactics/1"
SCREEN_DEPTH = 8     # the depth each sampled position is first read at (about 10 ms)
LABEL_DEPTH = 10     # the depth at which the engine must see no result the prover rules out
FIRST_PLY = 12       # positions are sampled from this many plies into a game
SAMPLE = 0.2         # ... each with this chance
TIMEOUT = 120.0      # seconds an engine reply may take
MATE_LENGTHS = (1, 2, 3)   # moves of the side to move: plies 1, 3, 5
LOSS_HORIZONS = (2, 4)     # plies within which most moves lose, in ``avoid`` positions
NONE_PLIES = 5       # ``none``: no result forced within this many plies
CONFIRM_MS = 5000    # how long the engine may look for a mate the prover found


def fresh_fen(rules: XiangqiRules, state: XiangqiState) -> str:
    """The FEN of ``state`` with fresh clocks (halfmove 0, fullmove 1): the 120-ply limit stays far away."""
    return rules.to_fen(state).rsplit(" ", 2)[0] + " 0 1"


def mate_moves(score: int) -> int:
    """The moves to mate of a mate score (``MATE_CP - n``), negative when the side to move is mated; 0 if none."""
    if abs(score) < MATE_CP - 100:
        return 0
    return (MATE_CP - abs(score)) * (1 if score > 0 else -1)


class Reader:
    """Fairy-Stockfish reading positions one at a time."""

    def __init__(self, engine: UCIEngine) -> None:
        self.engine = engine

    def best(self, fen: str, go: str) -> tuple[str, int]:
        """The engine's move and score (centipawns, mates as ``+-(MATE_CP - n)``) after ``go ...``."""
        self.engine.search(fen, [], "go " + go, TIMEOUT + CONFIRM_MS / 1000)
        move, score = self.engine.last.split()[1], 0
        for line in self.engine.info_lines:
            info = parse_info(line)
            if "score" in info and "bound" not in line:
                score = info["score"]
        return move, score


@njit(cache=True)
def _has_legal_move(board, slot_of, plist, st, moves):
    side = st[SIDE]
    king = plist[side * 16]
    checked = is_attacked(board, king, side)
    for i in range(generate(board, plist, side, moves)):
        undo = make_legal(board, slot_of, plist, st, moves[i], king, checked, False)
        if undo >= 0:
            unmake(board, slot_of, plist, st, moves[i], undo)
            return True
    return False


@njit(cache=True)
def _loses_within(board, slot_of, plist, st, plies, buffers, ply):
    """Whether the side to move loses within ``plies`` plies whatever it plays: it has no legal move now,
    or every move lets the other side make it lose within ``plies - 2``. Full width, nothing pruned."""
    if plies < 2:
        return not _has_legal_move(board, slot_of, plist, st, buffers[ply])
    moves = buffers[ply]
    n = generate_legal(board, slot_of, plist, st, moves, False)
    for i in range(n):
        undo = make(board, slot_of, plist, st, moves[i])
        replies = buffers[ply + 1]
        answered = False
        for j in range(generate_legal(board, slot_of, plist, st, replies, False)):
            back = make(board, slot_of, plist, st, replies[j])
            answered = _loses_within(board, slot_of, plist, st, plies - 2, buffers, ply + 2)
            unmake(board, slot_of, plist, st, replies[j], back)
            if answered:
                break
        unmake(board, slot_of, plist, st, moves[i], undo)
        if not answered:
            return False
    return True


class Prover:
    """Exact forced results a few plies deep under the project's rules: a full-width search on the compiled
    move generator (which the game's tests check against Fairy-Stockfish's), nothing pruned or reduced.

    Args:
        rules: Chinese chess rules (strict legality).
        state: the position.
    """

    def __init__(self, rules: XiangqiRules, state: XiangqiState) -> None:
        self.rules = rules
        self.state = state
        self.position = rules.position(state)
        self.buffers = np.empty((8, MAX_MOVES), dtype=np.int64)

    def loses_within(self, plies: int) -> bool:
        """Whether the side to move loses within ``plies`` plies whatever it plays."""
        return bool(_loses_within(*self.position, plies, self.buffers, 0))

    def after(self, action: dict[str, Any]) -> Prover:
        """The prover of the position after ``action``."""
        return Prover(self.rules, self.rules.apply(self.state, action))

    def winning_moves(self, plies: int) -> list[dict[str, Any]]:
        """The moves after which the other side loses within ``plies - 1`` plies (win within ``plies``)."""
        return [action for action in self.rules.legal_actions(self.state)
                if self.after(action).loses_within(plies - 1)]

    def wins_within(self, plies: int) -> bool:
        """Whether the side to move wins within ``plies`` plies whatever the other side plays."""
        return any(self.after(action).loses_within(plies - 1) for action in self.rules.legal_actions(self.state))

    def mate_length(self) -> int:
        """The moves of the side to move's shortest forced win, up to ``max(MATE_LENGTHS)``; 0 if none."""
        for length in MATE_LENGTHS:
            if self.wins_within(2 * length - 1):
                return length
        return 0


def label(reader: Reader, rules: XiangqiRules, state: XiangqiState, screened: int,
          wanted: set[tuple[str, int]]) -> dict[str, Any] | str:
    """The suite entry of a position, or why it is not one (a reason counted in the summary).

    ``screened`` is the engine's score at ``SCREEN_DEPTH``; ``wanted`` the
    (kind, plies) whose quota is open for the side to move. The kind and the
    moves are the prover's; the engine must agree with each.
    """
    mate = mate_moves(screened)
    if not any(kind != "win" for kind, _ in wanted) and not 0 < mate <= max(MATE_LENGTHS) + 1:
        return "quota"   # only mates are wanted and the engine sees none
    prover = Prover(rules, state)
    length = prover.mate_length()
    if length:
        return win(reader, prover, length) if ("win", 2 * length - 1) in wanted else "quota"
    if 0 < mate <= max(MATE_LENGTHS):
        return "the engine sees a result the prover does not"
    if prover.loses_within(max(LOSS_HORIZONS)):
        return "the side to move is lost"
    if any(kind == "avoid" for kind, _ in wanted) and threatened(prover):
        entry = avoid(reader, prover, wanted)
        if not isinstance(entry, str):
            return entry
    if ("none", NONE_PLIES) not in wanted:
        return "quota"
    _, score = reader.best(fresh_fen(rules, state), f"depth {LABEL_DEPTH}")
    mate = mate_moves(score)
    if 0 < mate <= max(MATE_LENGTHS) or 0 < -mate <= max(LOSS_HORIZONS) // 2:
        return "the engine sees a result the prover does not"
    return {"fen": fresh_fen(rules, state), "side": SIDES[state.side], "kind": "none", "plies": NONE_PLIES,
            "moves": []}


def win(reader: Reader, prover: Prover, length: int) -> dict[str, Any] | str:
    """A ``win`` entry: every move that wins as soon as possible; ``go mate N`` finds a mate that short
    from the position, and with each of those moves alone (``searchmoves``)."""
    rules, state = prover.rules, prover.state
    winning = prover.winning_moves(2 * length - 1)
    fen = fresh_fen(rules, state)
    move, score = reader.best(fen, f"mate {length} movetime {CONFIRM_MS}")
    if mate_moves(score) != length or move_to_action(move, 1) not in winning:
        return "the engine finds no mate that short"
    for action in winning:
        _, score = reader.best(fen, f"mate {length} movetime {CONFIRM_MS} searchmoves {action_to_move(action, 1)}")
        if mate_moves(score) != length:
            return "the engine finds no mate that short with a winning move"
    return {"fen": fen, "side": SIDES[state.side], "kind": "win", "plies": 2 * length - 1,
            "moves": sorted(winning, key=rules.action_sort_key)}


def avoid(reader: Reader, prover: Prover, wanted: set[tuple[str, int]]) -> dict[str, Any] | str:
    """An ``avoid`` entry: most moves lose within the horizon (some not sooner), ``moves`` do not. The engine
    finds the other side's mate after each losing move, and none that soon after a safe one."""
    rules, state = prover.rules, prover.state
    for horizon in LOSS_HORIZONS:
        if ("avoid", horizon) not in wanted:
            continue
        legal = rules.legal_actions(state)
        losing = [action for action in legal if prover.after(action).wins_within(horizon - 1)]
        safe = [action for action in legal if action not in losing]
        if not safe or len(losing) <= len(safe) \
                or horizon > 2 and not any(not prover.after(action).wins_within(horizon - 3) for action in losing):
            continue
        for action in legal:
            after = fresh_fen(rules, rules.apply(state, action))
            if action in losing:
                _, score = reader.best(after, f"mate {horizon // 2} movetime {CONFIRM_MS}")
                if not 0 < mate_moves(score) <= horizon // 2:
                    return "the engine finds no mate after a losing move"
            else:
                _, score = reader.best(after, f"depth {LABEL_DEPTH}")
                if 0 < mate_moves(score) <= horizon // 2:
                    return "the engine finds a mate after a safe move"
        return {"fen": fresh_fen(rules, state), "side": SIDES[state.side], "kind": "avoid", "plies": horizon,
                "moves": sorted(safe, key=rules.action_sort_key)}
    return "no avoid horizon"


def threatened(prover: Prover) -> bool:
    """Whether the other side could win within ``max(LOSS_HORIZONS) - 1`` plies if the side to move passed
    (always, when it is in check: its evasions are all it has)."""
    rules, state = prover.rules, prover.state
    board = fresh_fen(rules, state).split()[0]
    try:
        passed = rules.from_fen(f"{board} {'bw'[state.side]} - - 0 1")
    except NotationError:
        return True
    return Prover(rules, passed).wins_within(max(LOSS_HORIZONS) - 1)


def quotas(count: int) -> dict[tuple[str, int, str], int]:
    """How many positions of each (kind, plies, side): a fifth of ``count`` per mate length and for
    ``none``, a tenth per loss horizon, half of each for either side."""
    shares = [(("win", 2 * n - 1), 0.2) for n in MATE_LENGTHS] + [(("avoid", h), 0.1) for h in LOSS_HORIZONS] \
        + [(("none", NONE_PLIES), 0.2)]
    table = {}
    for (kind, plies), share in shares:
        total = round(count * share)
        for number, side in enumerate(SIDES):
            table[(kind, plies, side)] = total // 2 + (total % 2 if number == 0 else 0)
    return table


def collect(reader: Reader, rules: XiangqiRules, count: int, rng: random.Random) -> tuple[list[dict[str, Any]],
                                                                                          dict[str, int]]:
    """The suite's positions in the order found, and why others were left out (reason -> count)."""
    openings = json.loads(suite_file("xiangqi").read_text())["openings"]
    left = quotas(count)
    found: list[dict[str, Any]] = []
    seen: set[str] = set()
    skipped: dict[str, int] = {}
    games = 0
    while any(left.values()):
        games += 1
        if games > 100 * count:
            raise SystemExit(f"too few positions after {games} games; left: {left}")
        state = rules.initial_state()
        for action in rng.choice(openings)["actions"]:
            state = rules.apply(state, action)
        taken: set[str] = set()  # a game gives at most one position of each kind, so they are not alike
        while not rules.is_terminal(state):
            legal = rules.legal_actions(state)
            captures = [action for action in legal if state.cells[action["to"][0] * 9 + action["to"][1]]]
            state = rules.apply(state, rng.choice(captures if captures and rng.random() < 0.5 else legal))
            if rules.is_terminal(state) or state.ply < FIRST_PLY or rng.random() >= SAMPLE:
                continue
            side = SIDES[state.side]
            wanted = {(kind, plies) for kind, plies, owner in left
                      if owner == side and left[kind, plies, owner] and kind not in taken}
            fen = fresh_fen(rules, state)
            if not wanted or fen in seen:
                continue
            seen.add(fen)
            _, screened = reader.best(fen, f"depth {SCREEN_DEPTH}")
            entry = label(reader, rules, rules.from_fen(fen), screened, wanted)
            if isinstance(entry, str):
                skipped[entry] = skipped.get(entry, 0) + 1
                continue
            left[entry["kind"], entry["plies"], side] -= 1
            taken.add(entry["kind"])
            found.append(entry)
    return found, skipped


def write(path: Path, command: str, positions: list[dict[str, Any]]) -> None:
    """The suite file: a header, then one position a line."""
    head = {"format": FORMAT, "game": "xiangqi", "command": command, "positions": []}
    lines = [json.dumps(entry, separators=(",", ":"), ensure_ascii=False) for entry in positions]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(head, indent=1)[:-2].rstrip("[]").rstrip() + " [\n" + ",\n".join(lines) + "\n ]\n}\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1, help="seeds the games the positions come from")
    parser.add_argument("--count", type=int, default=400, help="how many positions")
    parser.add_argument("--out", type=Path, required=True, help="the suite file to write")
    parser.add_argument("--engine", default="fairy-stockfish", metavar="COMMAND",
                        help="the UCI engine that labels (Fairy-Stockfish: UCI_Variant xiangqi)")
    args = parser.parse_args()
    if args.count < 10:
        parser.error("--count must be at least 10")
    rules = load_game("xiangqi")
    try:
        engine = position_reader(args.engine)
    except (PlayerError, SpecError, OSError) as error:
        parser.error(f"--engine {args.engine}: {error}")
    started = time.monotonic()
    try:
        positions, skipped = collect(Reader(engine), rules, args.count, random.Random(args.seed))
    finally:
        engine.close()
    command = f"scripts/tactics/xiangqi.py --seed {args.seed} --count {args.count} --out {args.out.as_posix()}"
    if args.engine != "fairy-stockfish":
        command += f" --engine {args.engine}"
    write(args.out, command, positions)
    kinds: dict[str, int] = {}
    for entry in positions:
        key = f"{entry['kind']} {entry['plies']} {entry['side']}"
        kinds[key] = kinds.get(key, 0) + 1
    print(json.dumps({"positions": len(positions), "by_kind": dict(sorted(kinds.items())), "skipped": skipped,
                      "seconds": round(time.monotonic() - started, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
