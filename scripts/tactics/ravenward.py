#!/usr/bin/env python
"""Generate Ravenward's tactics suite: positions labelled by an exhaustive plain-Python search.

Usage: scripts/tactics/ravenward.py [--seed S] [--count N] [--out FILE]

How. A seeded rng picks an opening of the shipped suite
(``harness/games/ravenward/openings.json``) and plays 0 to 40 uniformly random
moves from it. The position reached is judged by ``Reference``: plain Python
over the rules' public protocol (``legal_actions``, ``apply``, ``outcome``,
``score``), every line played out to the end of its plies, no evaluation, no
pruning that could lose a line, none of the project's search code. A position
is kept when it fills a share of one of six buckets:

- ``win``, plies 1, the King's side: a move wins now (an escape, or the
  ravens left without a move);
- ``win``, plies 3, the King's side: no move wins now, but one wins by force
  in two moves (every raven reply leaves a winning move);
- ``win``, plies 1 and 3, the ravens: the same for a capture of the King (or
  the King's side left without a move), whatever the King's side replies;
- ``avoid``, plies 2, either side: nothing wins now; at least one move loses
  at once (the opponent wins with its reply), and at least one of the
  losing moves is tempting (it captures); at least one move does not lose.

The labels, all from the reference, the King's documented score being the
unit (the King's side wants it high, the ravens low):

- ``value`` (``win``): the King's score the mover forces within ``plies``
  at best (the King's side's best-paying win, or the ravens' cheapest
  capture), and ``moves``: the moves that force it;
- ``wins`` (``win``): every move that forces a result within ``plies``,
  with the score it forces (a longer search may rightly prefer one that is
  not best within ``plies`` when it pays more later);
- ``moves`` (``avoid``): the moves that do not lose within ``plies`` (every
  other legal move does); ``tempting``: the losing moves that capture;
- ``no_win_plies``: the mover forces no result within that many plies
  (1 for a win in 3, 3 or 1 for an avoid position): a search no deeper than
  that must not claim one.

States are stored without their history of earlier positions (only the
counters the score and the 60-ply limit read): the suite's positions are
those states, labelled as such. The same seed and count write the same file.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

from harness.games import Action, Rules, State, load as load_game
from harness.games.openings import load_suite
from harness.games.ravenward import make_state
from harness.testing import write_suite_file

FORMAT = "harness.tactics/1"
SIDE_NAMES = ("king", "ravens")
BUCKETS = (("win", 0, 1), ("win", 0, 3), ("win", 1, 1), ("win", 1, 3), ("avoid", 0, 2), ("avoid", 1, 2))
MAX_RANDOM_MOVES = 40


class Reference:
    """Exhaustive search over the rules' public protocol: every line to the end of its plies.

    A result is the King's documented score of a finished game that ``side``
    wins: for the King's side a win, for the ravens a loss of the King's side.
    ``forced`` is the best such score ``side`` forces within some plies (the
    King's side maximises it, the ravens minimise it), or None when the
    opponent can keep the game from ending in ``side``'s favour that long.
    Children are memoised per position for the life of the object.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._children: dict[State, list[tuple[Action, State]]] = {}
        self._forced: dict[tuple, Any] = {}

    def children(self, state: State) -> list[tuple[Action, State]]:
        """Every legal action of ``state`` with the state it leads to."""
        known = self._children.get(state)
        if known is None:
            known = [(action, self.rules.apply(state, action)) for action in self.rules.legal_actions(state)]
            self._children[state] = known
        return known

    def won_by(self, state: State, side: int) -> int | None:
        """The King's score of ``state`` if it is finished in ``side``'s favour, else None."""
        if not self.rules.is_terminal(state):
            return None
        result, _ = self.rules.outcome(state)
        if result == ("win" if side == 0 else "loss"):
            return int(self.rules.score(state))
        return None

    def forced(self, state: State, side: int, plies: int) -> int | None:
        """The best King's score of a win ``side`` forces within ``plies`` plies from ``state``, or None."""
        key = (state, side, plies)
        if key in self._forced:
            return self._forced[key]
        if self.rules.is_terminal(state) or plies <= 0:
            value = self.won_by(state, side)
        elif self.rules.to_move(state) == side:
            found = [v for _, child in self.children(state) if (v := self.forced(child, side, plies - 1)) is not None]
            value = (max if side == 0 else min)(found) if found else None
        else:
            value = None
            for _, child in self.children(state):
                reply = self.forced(child, side, plies - 1)
                if reply is None:   # this reply holds the result off
                    value = None
                    break
                value = reply if value is None else (min if side == 0 else max)(value, reply)
        self._forced[key] = value
        return value

    def forces(self, state: State, side: int, plies: int, bound: int) -> bool:
        """Whether ``side`` forces within ``plies`` a win scoring at least ``bound`` for the King (``side`` 0)
        or at most ``bound`` (the ravens): ``forced`` cut short, to check a longer search's claim.

        The mover's moves are tried finishing ones first (an escape, a move beside the King), and a proof
        stops at the first that works; every reply of the opponent is still tried.
        """
        key = (state, side, plies, bound)
        if key in self._forced:
            return self._forced[key]
        if self.rules.is_terminal(state) or plies <= 0:
            value = self.won_by(state, side)
            holds = value is not None and (value >= bound if side == 0 else value <= bound)
        elif self.rules.to_move(state) == side:
            king = state.cells[0]
            near = {king - 7, king + 7, king - 1, king + 1}
            order = sorted(self.rules.legal_actions(state),
                           key=lambda a: (a["to"] not in (0, 6, 42, 48) or a["from"] != king, a["to"] not in near))
            holds = False
            for action in order:
                child = next(c for a, c in self.children(state) if a == action)
                if self.forces(child, side, plies - 1, bound):
                    holds = True
                    break
        else:
            holds = all(self.forces(child, side, plies - 1, bound) for _, child in self.children(state))
        self._forced[key] = holds
        return holds

    def label(self, state: State, kind: str, plies: int) -> dict[str, Any]:
        """The labels of ``state`` (module docstring), for the side to move."""
        side = self.rules.to_move(state)
        label: dict[str, Any] = {}
        if kind == "win":
            value = self.forced(state, side, plies)
            wins = [(action, v) for action, child in self.children(state)
                    if (v := self.forced(child, side, plies - 1)) is not None]
            label["value"] = value
            label["moves"] = [action for action, v in wins if v == value]
            label["wins"] = [{"move": action, "value": v} for action, v in wins]
            if plies > 1:
                label["no_win_plies"] = plies - 2
        else:
            losing = [action for action, child in self.children(state)
                      if self.forced(child, 1 - side, plies - 1) is not None]
            label["moves"] = [action for action, _ in self.children(state) if action not in losing]
            label["tempting"] = [action for action in losing if self.captures(state, action)]
            label["no_win_plies"] = 3 if self.forced(state, side, 3) is None else 1
        return label

    def captures(self, state: State, action: Action) -> bool:
        """Whether ``action`` takes a piece (the opponent has fewer pieces after it)."""
        after = next(child for move, child in self.children(state) if move == action)
        before, later = self.rules.counters(state), self.rules.counters(after)
        if self.rules.to_move(state) == 0:
            return later["atkTaken"] > before["atkTaken"]
        return later["defAlive"] < before["defAlive"]

    def bucket(self, state: State, wanted: set[tuple[str, int, int]]) -> tuple[str, int, int] | None:
        """The bucket ``state`` belongs to among ``wanted`` (module docstring), or None."""
        side = self.rules.to_move(state)
        if self.forced(state, side, 1) is not None:
            return ("win", side, 1) if ("win", side, 1) in wanted else None
        if ("avoid", side, 2) in wanted:
            losing = [action for action, child in self.children(state) if self.forced(child, 1 - side, 1) is not None]
            if losing and len(losing) < len(self.children(state)) and any(self.captures(state, a) for a in losing):
                return "avoid", side, 2
        if ("win", side, 3) in wanted and self.forced(state, side, 3) is not None:
            return "win", side, 3
        return None


def walk(rules: Rules, rng: random.Random, opening: list[Action]) -> State | None:
    """An opening and 0 to ``MAX_RANDOM_MOVES`` random moves, the history dropped; None once over."""
    state = rules.initial_state()
    for action in opening:
        state = rules.apply(state, action)
    for _ in range(rng.randint(0, MAX_RANDOM_MOVES)):
        if rules.is_terminal(state):
            return None
        state = rules.apply(state, rng.choice(rules.legal_actions(state)))
    if rules.is_terminal(state):
        return None
    return make_state(state.cells, side=state.side, ply=state.ply, moves=state.moves)


def make_suite(seed: int, count: int, command: str, attempts: int = 400) -> dict[str, Any]:
    """The suite's document (the file's contents).

    Raises:
        SystemExit: ``attempts`` times ``count`` random positions did not fill every share.
    """
    rules = load_game("ravenward")
    openings = load_suite("ravenward")
    rng = random.Random(f"tactics:ravenward:{seed}")
    wanted = {bucket: count // len(BUCKETS) + (i < count % len(BUCKETS)) for i, bucket in enumerate(BUCKETS)}
    found: dict[tuple[str, int, int], list[dict[str, Any]]] = {bucket: [] for bucket in BUCKETS}
    seen: set[State] = set()
    for _ in range(attempts * count):
        open_buckets = {bucket for bucket, n in wanted.items() if len(found[bucket]) < n}
        if not open_buckets:
            break
        state = walk(rules, rng, openings.opening(rng.randrange(len(openings))))
        if state is None or state in seen:
            continue
        seen.add(state)
        reference = Reference(rules)
        bucket = reference.bucket(state, open_buckets)
        if bucket is None:
            continue
        kind, side, plies = bucket
        found[bucket].append({"state": rules.state_to_json(state), "side": SIDE_NAMES[side], "kind": kind,
                              "plies": plies, **reference.label(state, kind, plies)})
    short = {f"{kind} {SIDE_NAMES[side]} {plies}": f"{len(found[kind, side, plies])} of {n}"
             for (kind, side, plies), n in wanted.items() if len(found[kind, side, plies]) < n}
    if short:
        raise SystemExit(f"too few tactical positions after {attempts * count} draws: {short}")
    positions = [position for bucket in BUCKETS for position in found[bucket]]
    return {"format": FORMAT, "game": "ravenward", "command": command,
            "reference": "exhaustive plain-Python search over the rules' protocol (scripts/tactics/ravenward.py, "
                         "Reference)",
            "positions": positions}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1, help="seed of the openings and random moves")
    parser.add_argument("--count", type=int, default=300, help="positions in the suite")
    parser.add_argument("--out", type=Path, default=Path("tests/tactics/ravenward.json"), help="file to write")
    args = parser.parse_args()
    if args.count < 1:
        parser.error("--count must be at least 1")
    command = f"scripts/tactics/ravenward.py --seed {args.seed} --count {args.count} --out {args.out.as_posix()}"
    started = time.perf_counter()
    document = make_suite(args.seed, args.count, command)
    write_suite_file(document, args.out)
    kinds = {f"{kind} {SIDE_NAMES[side]} {plies}": sum(
        (p["kind"], p["side"], p["plies"]) == (kind, SIDE_NAMES[side], plies) for p in document["positions"])
        for kind, side, plies in BUCKETS}
    print(f"{len(document['positions'])} positions ({', '.join(f'{n} {k}' for k, n in kinds.items())}), "
          f"{time.perf_counter() - started:.0f}s; wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
