"""Chinese chess (xiangqi) as the two-seat platform plays it, over a compiled core.

The board is 10 rows by 9 columns; row 0 is black's back rank, row 9 red's,
column 0 the left edge as the platform draws it. Red is side 0 and moves
first; black is side 1. Actions are the platform's ``{"from": [r, c],
"to": [r, c]}``, sorted by (from, to). The pieces move as in standard
xiangqi: general and advisors inside the palace, elephants two points
diagonally without crossing the river and not over a filled eye, horses one
step straight then one diagonally unless the leg square is filled, chariots
along lines, cannons along lines and capturing over exactly one screen,
soldiers forward and, once over the river, sideways too.

Readings of the rules text (``Design``, ``Finish``) chosen where it leaves room:

* "Moves" in "after 120 moves" are plies (each side's move counts), counted
  from the game's start; a position read from FEN takes its ply from the
  fullmove field and the side to move (``2 * (fullmove - 1)``, plus one when
  black is to move), so ``... w - - 0 61`` is already at the limit.
* An ending on the 120th ply (the general captured, or no legal move for the
  side to move) takes precedence over the move limit: the limit applies only
  "if neither of those has happened".
* ``strict`` legality (the default): a move may not leave its own general
  attacked, which includes leaving the two generals facing on an open file;
  the side to move with no legal move (checkmate or stalemate) gets rank 2.
  A position read from FEN whose side not to move is in check cannot arise
  and is refused.
* ``pseudo`` legality: any move the pieces allow is legal, including one
  that exposes the own general; facing generals count as an attack, so the
  general may then capture the other general along the open file (the
  "flying general"). Capturing the general gives the capturer rank 1. The
  side to move with no move at all still gets rank 2.
* ``score`` is 1 for rank 1 and 0 for rank 2, so the 120-ply draw (both
  ranks 1) scores 1 for either seat; ``outcome`` still calls it a draw.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral
from typing import Any

import numpy as np

from harness.errors import IllegalAction, NotationError, UnknownGame
from harness.games import Action, Outcome, canonical_spec
from harness.games.xiangqi import _core as core

ROWS, COLS = 10, 9
MOVE_LIMIT = 120
START_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
SIDES = ("red", "black")
KINDS = ("", "general", "advisor", "elephant", "horse", "chariot", "cannon", "soldier")
# FEN letters by kind; "e"/"h" are read as common alternatives for elephant/horse.
LETTERS = " kabnrcp"
LETTER_KIND = {letter: kind for kind, letter in enumerate(LETTERS) if kind} | {"e": 3, "h": 4}
MARKS = (("", "帥", "仕", "相", "馬", "車", "炮", "兵"), ("", "將", "士", "象", "馬", "車", "砲", "卒"))
EMPTY_MARK = "・"


@dataclass(frozen=True)
class XiangqiState:
    """A position and where the game stands.

    Attributes:
        cells: 90 piece codes, row-major from row 0 (``side * 8 + kind``, 0 empty).
        side: the side to move (0 red, 1 black).
        ply: plies played since the start of the game.
        halfmove: plies since the last capture (FEN's halfmove clock).
        ranks: ``(red rank, black rank)`` once the game has ended, else None.
        reason: why it ended (``general_captured``, ``no_legal_moves``,
            ``move_limit``), else None.
        legal: the legal moves as sorted ``from * 90 + to`` indices (derived).
    """

    cells: bytes
    side: int
    ply: int
    halfmove: int
    ranks: tuple[int, int] | None = None
    reason: str | None = None
    legal: tuple[int, ...] = field(default=(), compare=False, repr=False)

    def array(self) -> np.ndarray:
        """The 90 piece codes as a read-only uint8 array (for the compiled core)."""
        return np.frombuffer(self.cells, dtype=np.uint8)


def action_index(action: Any) -> int:
    """The ``from * 90 + to`` index of an action, checking its shape.

    Raises:
        IllegalAction: not ``{"from": [r, c], "to": [r, c]}`` with rows 0..9, columns 0..8.
    """
    if not isinstance(action, dict) or set(action) != {"from", "to"}:
        raise IllegalAction(f"a Chinese chess action is {{'from': [r, c], 'to': [r, c]}}, got {action!r}")
    index = 0
    for key in ("from", "to"):
        point = action[key]
        if (not isinstance(point, (list, tuple)) or len(point) != 2
                or not all(isinstance(x, Integral) and not isinstance(x, bool) for x in point)
                or not (0 <= point[0] < ROWS and 0 <= point[1] < COLS)):
            raise IllegalAction(f"{key} must be [row 0..9, column 0..8], got {point!r}")
        index = index * 90 + int(point[0]) * COLS + int(point[1])
    return index


def index_action(index: int) -> Action:
    """The public action of a ``from * 90 + to`` index."""
    source, target = divmod(index, 90)
    return {"from": [source // COLS, source % COLS], "to": [target // COLS, target % COLS]}


def _read_board(text: str) -> bytes:
    """The 90 cells of a FEN board field (no check that the position can be held)."""
    rows = text.split("/")
    if len(rows) != ROWS:
        raise NotationError(f"a xiangqi FEN board has 10 ranks separated by '/', got {len(rows)}")
    cells = bytearray()
    for number, row in enumerate(rows):
        width = 0
        for char in row:
            if char.isdigit():
                width += int(char)
                cells.extend(bytes(int(char)))
            elif char.lower() in LETTER_KIND:
                width += 1
                cells.append(LETTER_KIND[char.lower()] + (0 if char.isupper() else 8))
            else:
                raise NotationError(f"FEN rank {number + 1} has {char!r}; valid pieces: "
                                    f"KABNRCP (red) and kabnrcp (black), digits for empty points")
        if width != COLS:
            raise NotationError(f"FEN rank {number + 1} ({row!r}) covers {width} points, not 9")
    return bytes(cells)


def _write_board(cells: bytes) -> str:
    rows = []
    for r in range(ROWS):
        text, empty = "", 0
        for code in cells[r * COLS:(r + 1) * COLS]:
            if code == 0:
                empty += 1
                continue
            if empty:
                text, empty = text + str(empty), 0
            letter = LETTERS[code & 7]
            text += letter.upper() if code < 8 else letter
        rows.append(text + (str(empty) if empty else ""))
    return "/".join(rows)


class XiangqiRules:
    """Chinese chess under one seat and legality (see the module docstring).

    Args:
        seat: ``red`` or ``black``, the seat played for the user.
        legality: ``strict`` or ``pseudo``.
    """

    name = "xiangqi"

    def __init__(self, seat: str = "red", legality: str = "strict") -> None:
        if seat not in SIDES:
            raise UnknownGame(f"xiangqi seat must be red or black, got {seat!r}")
        if legality not in ("strict", "pseudo"):
            raise UnknownGame(f"xiangqi legality must be strict or pseudo, got {legality!r}")
        self.config = {"seat": seat, "legality": legality}
        self.user_side = SIDES.index(seat)
        self.pseudo = legality == "pseudo"
        self._initial = self.from_fen(START_FEN)

    @property
    def spec(self) -> str:
        return canonical_spec(self.name, self.config)

    def __repr__(self) -> str:
        return f"<rules {self.spec}>"

    # -- positions ---------------------------------------------------------

    def initial_state(self) -> XiangqiState:
        return self._initial

    def _settle(self, cells: bytes, side: int, ply: int, halfmove: int) -> XiangqiState:
        """The state of a position that still has both generals: its legal moves and ending."""
        legal = tuple(core.legal_indices(np.frombuffer(cells, dtype=np.uint8), side, self.pseudo).tolist())
        if not legal:
            ranks = (2, 1) if side == 0 else (1, 2)
            return XiangqiState(cells, side, ply, halfmove, ranks, "no_legal_moves")
        if ply >= MOVE_LIMIT:
            return XiangqiState(cells, side, ply, halfmove, (1, 1), "move_limit")
        return XiangqiState(cells, side, ply, halfmove, legal=legal)

    def from_fen(self, fen: str) -> XiangqiState:
        """The state of a standard xiangqi FEN (ranks from black's side, uppercase red).

        The side field is ``w`` (or ``r``) for red, ``b`` for black; the two
        fields after it are ignored, then the halfmove clock and the fullmove
        number (both optional, default 0 and 1) set the clocks.

        Raises:
            NotationError: malformed text, a position without exactly one
                general per side in its palace or with more than 16 pieces a
                side, or (strict legality) the side not to move in check.
        """
        if not isinstance(fen, str):
            raise NotationError(f"a FEN is text, got {type(fen).__name__}")
        fields = fen.split()
        if not 1 <= len(fields) <= 6:
            raise NotationError(f"a xiangqi FEN has 1 to 6 fields, got {len(fields)}: {fen!r}")
        cells = _read_board(fields[0])
        turn = fields[1] if len(fields) > 1 else "w"
        if turn not in ("w", "r", "b"):
            raise NotationError(f"FEN side to move must be w (red) or b (black), got {turn!r}")
        side = 1 if turn == "b" else 0
        try:
            halfmove = int(fields[4]) if len(fields) > 4 else 0
            fullmove = int(fields[5]) if len(fields) > 5 else 1
        except ValueError:
            raise NotationError(f"FEN halfmove and fullmove fields must be integers: {fen!r}") from None
        if halfmove < 0 or fullmove < 1:
            raise NotationError(f"FEN halfmove must be >= 0 and fullmove >= 1: {fen!r}")
        array = np.frombuffer(cells, dtype=np.uint8)
        try:
            core.load_position(array, side)
        except ValueError as error:
            raise NotationError(f"FEN {fen!r}: {error}") from None
        if not self.pseudo and core.attacked_general(array, 1 - side):
            raise NotationError(f"FEN {fen!r}: the side not to move is in check, which strict "
                                f"legality never allows")
        return self._settle(cells, side, 2 * (fullmove - 1) + side, halfmove)

    def from_marks(self, board: list[dict[str, str]], side: int, ply: int = 0, halfmove: int = 0) -> XiangqiState:
        """The state of a platform board: 90 squares row by row, each ``{"mark", "side"}``.

        This is ``summary.board`` of the live API (an empty square has an
        empty mark and side); ``side`` is the seat to move and ``ply`` the
        plies played so far, which the board alone does not tell.

        Raises:
            NotationError: not 90 squares, an unknown mark or side, or a
                position that cannot be held (see ``from_fen``).
        """
        if not isinstance(board, list) or len(board) != ROWS * COLS:
            raise NotationError(f"a platform board is a list of 90 squares, got {type(board).__name__}")
        cells = bytearray()
        for index, square in enumerate(board):
            mark, owner = square.get("mark") or "", square.get("side") or ""
            if not mark and not owner:
                cells.append(0)
                continue
            if owner not in SIDES or mark not in MARKS[SIDES.index(owner)]:
                raise NotationError(f"square {index}: {mark!r} of side {owner!r} is not a piece; "
                                    f"red marks {''.join(MARKS[0])}, black marks {''.join(MARKS[1])}")
            code = SIDES.index(owner)
            cells.append(code * 8 + MARKS[code].index(mark))
        fen = f"{_write_board(bytes(cells))} {'wb'[side]} - - {halfmove} {ply // 2 + 1}"
        return self.from_fen(fen)

    def to_fen(self, state: XiangqiState) -> str:
        """The standard xiangqi FEN of a state (``w``/``b``, ``- -``, halfmove, fullmove)."""
        return (f"{_write_board(state.cells)} {'wb'[state.side]} - - "
                f"{state.halfmove} {state.ply // 2 + 1}")

    def notation(self, state: XiangqiState) -> str:
        return self.to_fen(state)

    # -- play --------------------------------------------------------------

    def to_move(self, state: XiangqiState) -> int:
        return state.side

    def legal_actions(self, state: XiangqiState) -> list[Action]:
        return [index_action(index) for index in state.legal]

    def action_sort_key(self, action: Action) -> tuple[tuple[int, int], tuple[int, int]]:
        return tuple(action["from"]), tuple(action["to"])

    def apply(self, state: XiangqiState, action: Action) -> XiangqiState:
        """The state after ``action``; ``state`` is unchanged.

        Raises:
            IllegalAction: the game is over, the action is malformed, or it is
                not legal here.
        """
        if state.ranks is not None:
            raise IllegalAction(f"the game is over ({state.reason}); no action is legal")
        index = action_index(action)
        if index not in state.legal:
            raise IllegalAction(f"{action!r} is not a legal move for {SIDES[state.side]} here")
        return self.apply_index(state, index)

    def apply_index(self, state: XiangqiState, index: int) -> XiangqiState:
        """The state after the legal move ``from * 90 + to`` (no legality check)."""
        source, target = divmod(index, 90)
        cells = bytearray(state.cells)
        captured = cells[target]
        cells[target], cells[source] = cells[source], 0
        halfmove = 0 if captured else state.halfmove + 1
        ply = state.ply + 1
        if captured & 7 == core.GENERAL:
            ranks = (1, 2) if state.side == 0 else (2, 1)
            return XiangqiState(bytes(cells), 1 - state.side, ply, halfmove, ranks, "general_captured")
        return self._settle(bytes(cells), 1 - state.side, ply, halfmove)

    def is_terminal(self, state: XiangqiState) -> bool:
        return state.ranks is not None

    def ranks(self, state: XiangqiState) -> list[int] | None:
        """The documented result ``[red rank, black rank]``, None while playing."""
        return list(state.ranks) if state.ranks is not None else None

    def outcome(self, state: XiangqiState) -> Outcome | None:
        if state.ranks is None:
            return None
        mine, theirs = state.ranks[self.user_side], state.ranks[1 - self.user_side]
        result = "draw" if mine == theirs else ("win" if mine < theirs else "loss")
        return result, state.reason

    def score(self, state: XiangqiState) -> float:
        if state.ranks is None:
            return 0.0
        return 1.0 if state.ranks[self.user_side] == 1 else 0.0

    def score_bounds(self) -> tuple[float, float]:
        return 0.0, 1.0

    def counters(self, state: XiangqiState) -> dict[str, int]:
        ranks = state.ranks or (0, 0)
        return {"ply": state.ply, "red_rank": ranks[0], "black_rank": ranks[1],
                "halfmove": state.halfmove, "fullmove": state.ply // 2 + 1,
                "red_pieces": sum(1 for c in state.cells if 0 < c < 8),
                "black_pieces": sum(1 for c in state.cells if c > 8)}

    # -- text and serialisation ----------------------------------------------

    def render(self, state: XiangqiState, letters: bool = False) -> str:
        """The board as text, row 0 (black's back rank) on top.

        With the platform's marks (the default) each point shows the mark and
        ``r``/``b`` for its side, since 馬 and 車 are the same mark for both;
        with ``letters`` it shows FEN letters (uppercase red).
        """
        lines = ["   " + "".join(f"{c:<3}" for c in range(COLS))]
        for r in range(ROWS):
            cells = []
            for code in state.cells[r * COLS:(r + 1) * COLS]:
                if letters:
                    letter = LETTERS[code & 7] if code else "."
                    cells.append(f"{letter.upper() if 0 < code < 8 else letter:<3}")
                else:
                    cells.append(MARKS[code >> 3][code & 7] + "rb"[code >> 3] if code else EMPTY_MARK + " ")
            lines.append(f"{r}  " + "".join(cells).rstrip())
        status = f"{SIDES[state.side]} to move, ply {state.ply}"
        if state.ranks is not None:
            status = f"over: {state.reason}, ranks {list(state.ranks)}"
        lines.append(status)
        lines.append(self.to_fen(state))
        return "\n".join(lines)

    def state_to_json(self, state: XiangqiState) -> dict[str, Any]:
        return {"board": _write_board(state.cells), "side": state.side, "ply": state.ply,
                "halfmove": state.halfmove,
                "ranks": list(state.ranks) if state.ranks is not None else None, "reason": state.reason}

    def state_from_json(self, data: dict[str, Any]) -> XiangqiState:
        """The state written by ``state_to_json``.

        Raises:
            NotationError: missing or malformed fields.
        """
        try:
            cells = _read_board(data["board"])
            side, ply, halfmove = int(data["side"]), int(data["ply"]), int(data["halfmove"])
            ranks, reason = data.get("ranks"), data.get("reason")
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise NotationError(f"a xiangqi state needs board, side, ply, halfmove: {error}") from None
        if side not in (0, 1) or ply < 0 or halfmove < 0:
            raise NotationError(f"a xiangqi state needs side 0/1 and non-negative clocks, got {data!r}")
        if ranks is not None:
            return XiangqiState(cells, side, ply, halfmove, (int(ranks[0]), int(ranks[1])), str(reason))
        try:
            core.load_position(np.frombuffer(cells, dtype=np.uint8), side)
        except ValueError as error:
            raise NotationError(f"xiangqi state: {error}") from None
        return self._settle(cells, side, ply, halfmove)

    # -- fast path ---------------------------------------------------------

    def position(self, state: XiangqiState) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The compiled position of a live state: (board, slot_of, plist, st) arrays."""
        return core.load_position(state.array(), state.side)


def make_rules(seat: str = "red", legality: str = "strict") -> XiangqiRules:
    """The rules of Chinese chess for the user's ``seat`` under ``legality``."""
    return XiangqiRules(seat, legality)
