#!/usr/bin/env python
"""Generate Totality's tactics suite: endgames labelled by an exhaustive minimax over OpenSpiel's ``othello``.

Usage: scripts/tactics/totality.py [--seed S] [--count N] [--out FILE]

How. A seeded rng picks an opening of the shipped suite
(``harness/games/totality/openings.json``) and plays uniformly random
placements from it until a chosen number of cells (4 to 10) is empty. A
position where the side to move has fewer than two placements, or that was
already drawn, is skipped. The rest are judged by ``Reference``, plain
Python over OpenSpiel's C++ ``othello`` (rules nobody here wrote), replayed
from the start along the same moves: first an alpha-beta on the outcome
alone gives every placement's win, draw or loss (``Reference.outcomes``), and
a position is kept when it is tactical:

- ``avoid``: more than half of the mover's placements lose, and one does not;
- ``win``: otherwise, the mover can force a win and at most half of its
  placements do.

Each empties count and kind gets an equal share of ``--count``. A kept
position is then solved in full (``Reference.label``: minimax with no
pruning and no evaluation, every position memoised), which must agree with
the outcomes. The labels, all from the reference (never from the project's
search):

- ``moves``: the placements that reach the best final disc lead, ``value``
  that lead (the mover's discs minus the opponent's under perfect play by
  both sides, empty cells counting for nobody). The search's unit is
  ``+-DECIDED + lead``, 0 for a draw: it orders finishes as the lead does,
  and so as the documented score does (which is indifferent among the Sun's
  losses, all 0; the lead still prefers the smaller one);
- ``leads``: every placement's final lead;
- ``plies``: the most plies (a pass is one) the game can still last, so a
  fixed-depth search of at least that many plies sees every line end;
- ``win_plies`` (a won position): the fewest plies within which the mover
  forces a win, whatever the defence;
- ``avoid_plies`` (some placements lose, one does not): the fewest plies
  within which the opponent forces its win after every losing placement, so
  a search that deep sees each of them lose;
- ``history``: the moves from the start, as OpenSpiel replays them.

The same seed and count write the same file. OpenSpiel's action names
(``d3``, row 2 col 3) are the project's cell names (``cell_name``).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyspiel

from harness.games import Rules, State, load as load_game
from harness.games.openings import load_suite, position_key
from harness.games.totality import SIDE_NAMES, cell_name
from harness.testing import write_suite_file

FORMAT = "harness.tactics/1"
EMPTIES = range(4, 11)  # 11 empty cells cost the reference seconds a position, 12 a minute
KINDS = ("win", "avoid")
PASS_NAME = "pass"


@dataclass(frozen=True)
class Solved:
    """One position solved by the reference, in absolute terms (the first mover, Black, is the Sun).

    Attributes:
        lead: Black's final disc lead under perfect play by both sides.
        height: the most plies the game can still last.
        distance: when ``lead`` is not 0, the plies within which the winner
            forces its win (the winner shortens, the loser stretches); 0 at a
            finished game; None for a draw.
    """

    lead: int
    height: int
    distance: int | None


class Reference:
    """Exhaustive minimax over OpenSpiel's ``othello``: no pruning, no evaluation, every position memoised.

    About 6 microseconds a position: 10 empty cells take up to a second or
    two, 11 several seconds, 12 a minute.
    """

    def __init__(self) -> None:
        self.game = pyspiel.load_game("othello")
        start = self.game.new_initial_state()
        self.action_ids = {start.action_to_string(a): a for a in range(self.game.num_distinct_actions())}
        self._memo: dict[str, Solved] = {}
        self._outcome_memo: dict[tuple[str, bool, int, int], int] = {}

    def state(self, history: list[str]) -> pyspiel.State:
        """OpenSpiel's state after ``history`` (action names from the start)."""
        state = self.game.new_initial_state()
        for name in history:
            state.apply_action(self.action_ids[name])
        return state

    def board(self, state: pyspiel.State) -> str:
        """The board as 64 cells row by row, ``X`` Black (Sun), ``O`` White (Moon), ``-`` empty."""
        rows = [line.split()[1:9] for line in str(state).splitlines() if line[:1].isdigit()]
        return "".join({"x": "X", "o": "O"}.get(cell, "-") for row in rows for cell in row)

    def black_lead(self, state: pyspiel.State) -> int:
        """Black's discs minus White's on the board of ``state``."""
        board = self.board(state)
        return board.count("X") - board.count("O")

    def solve(self, state: pyspiel.State) -> Solved:
        """The exact result of ``state`` (memoised until the next ``label``)."""
        key = str(state)
        known = self._memo.get(key)
        if known is not None:
            return known
        if state.is_terminal():
            lead = self.black_lead(state)
            solved = Solved(lead, 0, 0 if lead else None)
        else:
            children = [self.solve(state.child(action)) for action in state.legal_actions()]
            black = state.current_player() == 0
            lead = (max if black else min)(child.lead for child in children)
            height = 1 + max(child.height for child in children)
            distance = None
            if lead:
                winner_moves = (lead > 0) == black
                same = [child.distance for child in children if (child.lead > 0) == (lead > 0) and child.lead]
                distance = 1 + (min(same) if winner_moves else max(same))
            solved = Solved(lead, height, distance)
        self._memo[key] = solved
        return solved

    def outcomes(self, history: list[str]) -> dict[str, int]:
        """Each placement's outcome for the mover of the position ``history`` reaches: 1 win, 0 draw, -1 loss.

        Alpha-beta on the outcome alone, far cheaper than ``solve``: it picks
        out the tactical positions before they are solved in full.
        """
        self._outcome_memo.clear()
        state = self.state(history)
        black = state.current_player() == 0
        return {state.action_to_string(action): -self._outcome(state.child(action), not black, -1, 1)
                for action in state.legal_actions()}

    def _outcome(self, state: pyspiel.State, black: bool, alpha: int, beta: int) -> int:
        """Negamax of the outcome (1, 0, -1) for ``black`` or White to move, within ``(alpha, beta)``."""
        key = (str(state), black, alpha, beta)  # a finished game's text does not say whose view it is
        known = self._outcome_memo.get(key)
        if known is not None:
            return known
        if state.is_terminal():
            lead = self.black_lead(state)
            best = (lead > 0) - (lead < 0) if black else (lead < 0) - (lead > 0)
        else:
            best = -1
            for action in state.legal_actions():
                value = -self._outcome(state.child(action), not black, -beta, -max(alpha, best))
                best = max(best, value)
                if best >= beta:
                    break
        self._outcome_memo[key] = best
        return best

    def label(self, history: list[str]) -> dict[str, Any]:
        """The labels of the position ``history`` reaches (module docstring), from the mover's view."""
        self._memo.clear()
        state = self.state(history)
        sign = 1 if state.current_player() == 0 else -1
        children = {state.action_to_string(action): self.solve(state.child(action))
                    for action in state.legal_actions()}
        leads = {name: sign * child.lead for name, child in children.items()}
        value = max(leads.values())
        label: dict[str, Any] = {
            "plies": 1 + max(child.height for child in children.values()),
            "moves": sorted(name for name, lead in leads.items() if lead == value),
            "value": value,
            "leads": dict(sorted(leads.items())),
        }
        if value > 0:
            label["win_plies"] = 1 + min(children[name].distance for name, lead in leads.items() if lead > 0)
        losing = [name for name, lead in leads.items() if lead < 0]
        if losing and value >= 0:
            label["avoid_plies"] = 1 + max(children[name].distance for name in losing)
        return label


def kind_of(outcomes: dict[str, int]) -> str | None:
    """``avoid``, ``win`` or None (not tactical) from each placement's outcome (module docstring)."""
    values = list(outcomes.values())
    if 2 * values.count(-1) > len(values) and max(values) >= 0:
        return "avoid"
    if max(values) > 0 and 2 * values.count(1) <= len(values):
        return "win"
    return None


def walk(rules: Rules, rng: random.Random, opening: list[dict[str, Any]],
         empties: int) -> tuple[State, list[str]] | None:
    """Random placements from ``opening`` until ``empties`` cells are empty: (state, action names), or None."""
    state, history = rules.initial_state(), []
    for action in opening:
        state = rules.apply(state, action)
        history.append(cell_name(action["row"], action["col"]))
    while rules.counters(state)["empty"] > empties:
        if rules.is_terminal(state):
            return None
        action = rng.choice(rules.legal_actions(state))
        state = rules.apply(state, action)
        history.append(PASS_NAME if action["type"] == "pass" else cell_name(action["row"], action["col"]))
    if rules.is_terminal(state) or len(rules.legal_actions(state)) < 2:
        return None
    return state, history


def make_suite(seed: int, count: int, command: str, attempts: int = 200) -> dict[str, Any]:
    """The suite's document (the file's contents).

    Raises:
        SystemExit: ``attempts`` times ``count`` random endgames did not fill every share.
    """
    rules = load_game("totality")
    openings = load_suite("totality")
    reference = Reference()
    rng = random.Random(f"tactics:totality:{seed}")
    buckets = [(empties, kind) for empties in EMPTIES for kind in KINDS]
    wanted = {bucket: count // len(buckets) + (i < count % len(buckets)) for i, bucket in enumerate(buckets)}
    found: dict[tuple[int, str], list[dict[str, Any]]] = {bucket: [] for bucket in buckets}
    seen: set[str] = set()
    for _ in range(attempts * count):
        open_empties = sorted({empties for (empties, kind), n in wanted.items() if len(found[empties, kind]) < n})
        if not open_empties:
            break
        empties = rng.choice(open_empties)
        walked = walk(rules, rng, openings.opening(rng.randrange(len(openings))), empties)
        if walked is None:
            continue
        state, history = walked
        key = position_key(rules, state)
        if key in seen:
            continue
        seen.add(key)
        if reference.board(reference.state(history)) != rules.notation(state).split()[0]:
            raise SystemExit(f"OpenSpiel and the project disagree on the board after {' '.join(history)}")
        outcomes = reference.outcomes(history)
        kind = kind_of(outcomes)
        if kind is None or len(found[empties, kind]) >= wanted[empties, kind]:
            continue
        label = reference.label(history)
        if {name: (lead > 0) - (lead < 0) for name, lead in label["leads"].items()} != outcomes:
            raise SystemExit(f"the reference's two searches disagree after {' '.join(history)}")
        found[empties, kind].append({"state": rules.state_to_json(state), "side": SIDE_NAMES[state.to_move],
                                     "kind": kind, "empties": empties, **label, "history": " ".join(history)})
    short = {f"{e} empties, {k}": f"{len(found[e, k])} of {n}" for (e, k), n in wanted.items()
             if len(found[e, k]) < n}
    if short:
        raise SystemExit(f"too few tactical endgames after {attempts * count} draws: {short}")
    positions = [position for bucket in buckets for position in found[bucket]]
    return {"format": FORMAT, "game": "totality", "command": command,
            "reference": "exhaustive minimax over OpenSpiel's othello (scripts/tactics/totality.py, Reference)",
            "positions": positions}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1, help="seed of the openings and random placements")
    parser.add_argument("--count", type=int, default=280, help="positions in the suite")
    parser.add_argument("--out", type=Path, default=Path("tests/tactics/totality.json"), help="file to write")
    args = parser.parse_args()
    if args.count < 1:
        parser.error("--count must be at least 1")
    command = f"scripts/tactics/totality.py --seed {args.seed} --count {args.count} --out {args.out.as_posix()}"
    started = time.perf_counter()
    document = make_suite(args.seed, args.count, command)
    write_suite_file(document, args.out)
    kinds = {kind: sum(p["kind"] == kind for p in document["positions"]) for kind in KINDS}
    print(f"{len(document['positions'])} positions ({', '.join(f'{n} {k}' for k, n in kinds.items())}), "
          f"{time.perf_counter() - started:.0f}s; wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
