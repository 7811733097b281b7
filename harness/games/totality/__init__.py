"""Totality: standard 8x8 Reversi, the user is the Sun (dark, side 0) and moves first.

Coordinates. An action is ``{"type": "place", "row": r, "col": c}`` with row
0 the top row and col 0 the left column. In Othello notation (files a..h
left to right, ranks 1..8 top to bottom) row ``r`` is rank ``r + 1`` and col
``c`` is file ``"abcdefgh"[c]``; this is also OpenSpiel's ``othello``
orientation (its action id is ``row * 8 + col``). The standard start puts the
Sun on d5 ``(4, 3)`` and e4 ``(3, 4)``, the Moon on d4 ``(3, 3)`` and e5
``(4, 4)``; the Sun's four openings are d3, c4, f5, e6.

Readings of the rules text (``rules/totality.md``) where it leaves a choice:

- A side with no legal placement while the other side has one has exactly
  one action, ``{"type": "pass"}`` (the action grammar lists only ``place``;
  the text says the side "passes", and the live API resolves the user's
  forced pass itself, as ``harness.envs.LocalEnv`` does).
- The game ends as soon as neither side can place (reason ``no_moves``) or
  the board is full (reason ``board_full``); a finished game has no actions.
- "Lead" is ``sunCount - moonCount`` of the discs on the board; empty cells
  left at a ``no_moves`` end are not awarded to anyone (the text names the
  two counts only).
- The score is computed in integers, ``floor(base * 6 / 10)`` at easy, so
  no floating-point rounding can move it. Since every base is a multiple of
  5, the easy score is exactly 60 + 3 x lead for a win and 30 for a draw:
  the floor never removes anything, which a test pins.

States are immutable values holding the two bitboards (bit ``row * 8 + col``)
plus the side to move, the ply and the number of passes so far; they also
carry the mover's legal placements, computed once by the compiled kernels in
``harness.games.totality._kernels``, which are the engine's fast path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from harness.errors import IllegalAction, NotationError, UnknownGame
from harness.games import Action, Outcome, canonical_spec
from harness.games.totality import _kernels as kernels

SUN, MOON = 0, 1
SIDE_NAMES = ("Sun", "Moon")
LEVEL_FACTORS = {"wise": (10, 10), "easy": (6, 10)}  # numerator, denominator of the scale
FULL_BOARD = (1 << 64) - 1
PASS: Action = {"type": "pass"}
FILES = "abcdefgh"
# One-line notation: 64 cells row by row from (0, 0), then the side to move.
# X is the Sun (dark), O the Moon (light), - an empty cell, as in the common
# Othello position format.
NOTATION_CELLS = {SUN: "X", MOON: "O"}
_NOTATION = re.compile(r"^([XO-]{64})\s+([XO])$")


def cell_name(row: int, col: int) -> str:
    """Othello name of a cell: ``cell_name(4, 3) == "d5"``."""
    return f"{FILES[col]}{row + 1}"


@dataclass(frozen=True)
class TotalityState:
    """One position: the two bitboards, whose turn it is and how the game got here.

    ``legal`` is the mask of the mover's placements and ``over`` whether the
    game has ended; both follow from the board and are filled in by the
    rules (``TotalityRules.make_state``), never by hand.
    """

    sun: int
    moon: int
    to_move: int = SUN
    ply: int = 0
    passes: int = 0
    legal: int = field(default=0, compare=False, repr=False)
    over: bool = field(default=False, compare=False, repr=False)

    def mover_boards(self) -> tuple[int, int]:
        """(mover's discs, opponent's discs): the kernels' point of view."""
        return (self.sun, self.moon) if self.to_move == SUN else (self.moon, self.sun)


class TotalityRules:
    """Exact Reversi rules with the documented Totality score at one level."""

    name = "totality"
    user_side = SUN

    def __init__(self, level: str = "wise") -> None:
        if level not in LEVEL_FACTORS:
            raise UnknownGame(f"unknown Totality level {level!r}; valid levels: wise, easy")
        self.level = level
        self.config: dict[str, Any] = {"level": level}

    @property
    def spec(self) -> str:
        return canonical_spec(self.name, self.config)

    def __repr__(self) -> str:
        return f"<rules {self.spec}>"

    # -- states --------------------------------------------------------------

    def make_state(self, sun: int, moon: int, to_move: int = SUN, ply: int = 0,
                   passes: int = 0) -> TotalityState:
        """A state from two bitboards, with its legal placements and end flag worked out.

        A position where the side to move has no placement but the other side
        has one is a live position whose only action is the pass.

        Raises:
            NotationError: overlapping boards or a side other than 0/1.
        """
        if sun & moon or not (0 <= sun <= FULL_BOARD and 0 <= moon <= FULL_BOARD):
            raise NotationError("sun and moon boards must be disjoint 64-bit masks")
        if to_move not in (SUN, MOON):
            raise NotationError(f"to_move must be 0 (Sun) or 1 (Moon), got {to_move!r}")
        mover, other = (sun, moon) if to_move == SUN else (moon, sun)
        legal = kernels.legal_moves(mover, other)
        over = legal == 0 and kernels.legal_moves(other, mover) == 0
        return TotalityState(sun, moon, to_move, ply, passes, legal, over)

    def initial_state(self) -> TotalityState:
        return self.make_state(kernels.START_SUN, kernels.START_MOON)

    def to_move(self, state: TotalityState) -> int:
        return state.to_move

    def is_terminal(self, state: TotalityState) -> bool:
        return state.over

    def legal_actions(self, state: TotalityState) -> list[Action]:
        """Placements sorted by (row, col); ``[{"type": "pass"}]`` when the mover must pass; [] at the end."""
        if state.over:
            return []
        if state.legal == 0:
            return [dict(PASS)]
        actions, mask = [], state.legal
        while mask:
            low = mask & -mask
            square = low.bit_length() - 1
            actions.append({"type": "place", "row": square >> 3, "col": square & 7})
            mask ^= low
        return actions

    def action_sort_key(self, action: Action) -> tuple[int, int]:
        """Placements by (row, col); the pass (alone whenever legal) sorts first."""
        if action.get("type") == "pass":
            return (-1, -1)
        return (action["row"], action["col"])

    def apply(self, state: TotalityState, action: Action) -> TotalityState:
        """The state after ``action``; the input state is left unchanged.

        Raises:
            IllegalAction: a malformed action, a placement that flips nothing or
                is off the board or on a disc, a pass while a placement exists,
                or any action in a finished game.
        """
        square = self._square(state, action)
        if square is None:
            return self.make_state(state.sun, state.moon, 1 - state.to_move, state.ply + 1,
                                   state.passes + 1)
        mover, other = state.mover_boards()
        mover, other, next_legal, mover_legal = kernels.play(mover, other, square)
        sun, moon = (mover, other) if state.to_move == SUN else (other, mover)
        return TotalityState(sun, moon, 1 - state.to_move, state.ply + 1, state.passes,
                             next_legal, next_legal == 0 and mover_legal == 0)

    def _square(self, state: TotalityState, action: Action) -> int | None:
        """The square a legal placement targets, or None for a legal pass."""
        if state.over:
            raise IllegalAction("the game is over: no action is legal")
        if not isinstance(action, dict):
            raise IllegalAction(f"an action is a JSON object, got {action!r}")
        kind = action.get("type")
        if kind == "pass":
            if state.legal:
                raise IllegalAction("pass is legal only when no placement is; placements exist: "
                                    + ", ".join(cell_name(a["row"], a["col"])
                                                for a in self.legal_actions(state)))
            return None
        if kind != "place":
            raise IllegalAction(f"unknown action type {kind!r}; valid: place (row, col 0..7), pass")
        row, col = action.get("row"), action.get("col")
        if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 7 for v in (row, col)):
            raise IllegalAction(f"place needs integer row and col in 0..7, got row={row!r} col={col!r}")
        square = row * 8 + col
        if not state.legal >> square & 1:
            if (state.sun | state.moon) >> square & 1:
                why = "the cell is occupied"
            elif state.legal == 0:
                why = "the side to move has no placement and must pass"
            else:
                why = "it flips no disc"
            raise IllegalAction(f"placing on {cell_name(row, col)} (row {row}, col {col}) is illegal: {why}")
        return square

    # -- result --------------------------------------------------------------

    def outcome(self, state: TotalityState) -> Outcome | None:
        """("win"|"draw"|"loss", reason) for the Sun once the game is over, else None.

        The reason is ``board_full`` when every cell is taken, ``no_moves``
        when neither side can place on a board with empty cells.
        """
        if not state.over:
            return None
        reason = "board_full" if (state.sun | state.moon) == FULL_BOARD else "no_moves"
        return self.result_of(state.sun.bit_count(), state.moon.bit_count())[0], reason

    def result_of(self, sun_count: int, moon_count: int) -> tuple[str, float]:
        """The Sun's result and documented score for final disc counts.

        Win: 100 + 5 x (sun - moon); draw: 50; loss: 0; then x1.0 (wise) or
        x0.6 (easy), floored, in exact integer arithmetic.
        """
        lead = sun_count - moon_count
        if lead > 0:
            result, base = "win", 100 + 5 * lead
        elif lead == 0:
            result, base = "draw", 50
        else:
            result, base = "loss", 0
        numerator, denominator = LEVEL_FACTORS[self.level]
        return result, float(base * numerator // denominator)

    def score(self, state: TotalityState) -> float:
        """The Sun's documented score; 0 while the game is on."""
        if not state.over:
            return 0.0
        return self.result_of(state.sun.bit_count(), state.moon.bit_count())[1]

    def score_bounds(self) -> tuple[float, float]:
        """(0, the score of a 64-0 sweep): 420 at wise, 252 at easy."""
        return 0.0, self.result_of(64, 0)[1]

    def counters(self, state: TotalityState) -> dict[str, int]:
        """Disc counts, empty cells, plies and passes played, and the side to move."""
        sun, moon = state.sun.bit_count(), state.moon.bit_count()
        return {"sun": sun, "moon": moon, "empty": 64 - sun - moon, "ply": state.ply,
                "passes": state.passes, "to_move": state.to_move}

    # -- text ----------------------------------------------------------------

    def render(self, state: TotalityState) -> str:
        """The board with files and ranks: S Sun, M Moon, * a legal placement, . empty."""
        lines = ["  " + " ".join(FILES)]
        for row in range(8):
            cells = []
            for col in range(8):
                bit = 1 << (row * 8 + col)
                cells.append("S" if state.sun & bit else "M" if state.moon & bit
                             else "*" if state.legal & bit and not state.over else ".")
            lines.append(f"{row + 1} " + " ".join(cells))
        counts = self.counters(state)
        status = (f"over: {self.outcome(state)[0]} for the Sun, score {self.score(state):g}" if state.over
                  else f"{SIDE_NAMES[state.to_move]} to move" + (" (must pass)" if not state.legal else ""))
        lines.append(f"Sun {counts['sun']}  Moon {counts['moon']}  ply {state.ply}  {status}")
        return "\n".join(lines)

    def notation(self, state: TotalityState) -> str:
        """64 cells row by row (X Sun, O Moon, - empty), a space, the side to move (X or O)."""
        cells = ["X" if state.sun >> i & 1 else "O" if state.moon >> i & 1 else "-" for i in range(64)]
        return "".join(cells) + " " + NOTATION_CELLS[state.to_move]

    def from_notation(self, text: str, ply: int | None = None, passes: int = 0) -> TotalityState:
        """A state from ``notation`` text; ``ply`` defaults to the discs placed since the start.

        Raises:
            NotationError: the text is not 64 cells of X/O/- and a side X/O.
        """
        found = _NOTATION.match(text.strip())
        if not found:
            raise NotationError(f"not a Totality position {text!r}: want 64 cells of X, O or - "
                                "(row by row from the top left) and the side to move, X (Sun) or O (Moon)")
        cells, side = found.groups()
        sun = sum(1 << i for i, c in enumerate(cells) if c == "X")
        moon = sum(1 << i for i, c in enumerate(cells) if c == "O")
        if ply is None:
            ply = max(0, sun.bit_count() + moon.bit_count() - 4) + passes
        return self.make_state(sun, moon, SUN if side == "X" else MOON, ply, passes)

    def state_to_json(self, state: TotalityState) -> dict[str, Any]:
        """The position and its history counters as plain JSON."""
        return {"board": self.notation(state).split()[0], "to_move": state.to_move,
                "ply": state.ply, "passes": state.passes}

    def state_from_json(self, data: dict[str, Any]) -> TotalityState:
        """Inverse of ``state_to_json``.

        Raises:
            NotationError: missing keys or a malformed board.
        """
        try:
            board, to_move = data["board"], int(data["to_move"])
            ply, passes = int(data["ply"]), int(data["passes"])
        except (KeyError, TypeError, ValueError) as error:
            raise NotationError(f"a Totality state needs board, to_move, ply and passes: {error}") from None
        if to_move not in (SUN, MOON):
            raise NotationError(f"to_move must be 0 or 1, got {to_move}")
        return self.from_notation(f"{board} {NOTATION_CELLS[to_move]}", ply=ply, passes=passes)


def make_rules(level: str = "wise") -> TotalityRules:
    """The Totality rules at ``level`` (wise: score x1.0, easy: x0.6)."""
    return TotalityRules(level)
