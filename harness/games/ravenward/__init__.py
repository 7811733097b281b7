"""Ravenward: a 7x7 tafl duel, the King's side (the user, side 0) against eight ravens.

The rules text is the authority; every sentence of it is implemented in the
compiled core (``harness.games.ravenward._core``) and this module wraps it in
plain, immutable Python values. Where the text leaves a detail open, the
literal reading is taken:

- **The initial position is not an occurrence.** Position keys are recorded
  only at step (5), after a move, so the start position counts towards a
  threefold repetition only once it is reached again by a move.
- **Keys are by identity.** The key holds the alive flag and cell of each of
  the 13 pieces as a distinct piece (each defender and raven is known by its
  start square), so two defenders that trade places make a different key.
  A captured piece's cell is recorded as -1 (captures are irreversible, so
  any convention for dead pieces gives the same repetitions).
- **The side in the key.** The key is recorded after the turn passes, with the
  side that moves next; recording the mover instead would pair every key with
  the other constant and gives identical repetitions.
- **The ply counter does not count a game-ending escape or King capture:**
  steps (3) and (4) end the game before step (5) increments it. ``moves``
  (the King's side's moves, which the score pays for) counts every move the
  King's side played, the escaping move included.
- **Throne.** Any piece may slide across the empty throne; only the King may
  stop on it, and he may return to it at any time. While the King stands on
  it the throne blocks like any occupied square and is hostile to nobody, but
  the King on it is still a friendly flanker for a defender's capture.
- **Captures** are checked against the board right after the slide (so the
  square the mover left is empty, and a throne the King just left is empty and
  hostile), around the landing square only, and all flagged pieces are
  removed together (up to three).
- **Corners** are hostile to every piece, the King included (a raven pins him
  against a corner); corners end their lines, so no slide passes through one.
- **Escape before capture:** a King's-side move that lands the King on a corner
  wins at step (3) after its own captures at step (2) have been counted.
- **Repetition before the move limit:** a third occurrence recorded at ply 60
  is a draw by ``repetition``, not ``ply_limit``; both draws score the same.

Actions are the live API's ``{"type": "move", "from": cell, "to": cell}``,
sorted by (from, to). Outcome reasons: ``escape``, ``ravens_no_moves``
(wins), ``repetition``, ``ply_limit`` (draws), ``king_captured``,
``king_side_no_moves`` (losses).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from harness.errors import IllegalAction, NotationError
from harness.games import Action, Outcome
from harness.games.ravenward import _core as core

START_CELLS: tuple[int, ...] = tuple(int(c) for c in core.START_CELLS)
DEFENDER_PIECES = range(1, core.FIRST_RAVEN)
RAVEN_PIECES = range(core.FIRST_RAVEN, core.PIECES)
REASON_CODES = {reason: code for code, reason in enumerate(core.REASONS) if reason}
WIN_SCORE_MAX = 100 + 10 * 4 + 5 * 8 + (50 - 2 * 1)


@dataclass(frozen=True)
class RavenwardState:
    """One position with its history: a plain, hashable value.

    Attributes:
        cells: the cell of each of the 13 pieces by identity (King, the four
            defenders, the eight ravens in start-square order), -1 if captured.
        side: the side to move (0 King's side, 1 ravens).
        ply: plies resolved up to step (5).
        moves: moves the King's side has played.
        reason: None while playing, else the outcome reason.
        history: the position keys recorded at step (5), oldest first; each
            key is the 13 cells followed by the side to move next.
        packed: the same keys packed as the compiled core stores them (two
            integers each), carried along so the fast path need not repack
            the history on every call; not part of the value.
    """

    cells: tuple[int, ...]
    side: int
    ply: int
    moves: int
    reason: str | None
    history: tuple[tuple[int, ...], ...]
    packed: tuple[int, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        if len(self.packed) != 2 * len(self.history):
            object.__setattr__(self, "packed", tuple(v for key in self.history for v in core.pack_key(key)))

    @property
    def key(self) -> tuple[int, ...]:
        """The position key of this state (cells by identity and the side to move)."""
        return self.cells + (self.side,)

    @property
    def board(self) -> dict[int, str]:
        """Occupied cells: ``"K"`` the King, ``"D"`` a defender, ``"R"`` a raven."""
        board = {}
        for piece, cell in enumerate(self.cells):
            if cell >= 0:
                board[cell] = "K" if piece == core.KING else "D" if piece < core.FIRST_RAVEN else "R"
        return board


def to_array(state: RavenwardState, with_history: bool = True) -> np.ndarray:
    """The compiled core's position array for ``state``.

    Args:
        state: a public state.
        with_history: also load the repetition history (needed to apply a
            move, not to list moves).
    """
    st = np.empty(core.SIZE, dtype=np.int64)
    status = REASON_CODES[state.reason] if state.reason else core.PLAYING
    core.set_position(st, np.array(state.cells, dtype=np.int64), state.side, state.ply, state.moves, status)
    if with_history and state.packed:
        st[core.HIST:core.HIST + len(state.packed)] = state.packed
        st[core.HLEN] = len(state.history)
    return st


def from_array(st: np.ndarray, previous: RavenwardState) -> RavenwardState:
    """The public state of a core position array one move after ``previous``.

    Args:
        st: a core position array.
        previous: the state the move was played from; its history gains the
            array's newest key when the move recorded one.
    """
    cells = tuple(st[core.PIECE:core.PIECE + core.PIECES].tolist())
    side = int(st[core.SIDE])
    packed = previous.packed
    if int(st[core.HLEN]) > len(previous.history):
        history = previous.history + (cells + (side,),)
        packed = packed + (int(st[core.KEY_A]), int(st[core.KEY_B]))
    else:
        history = previous.history
    status = int(st[core.STATUS])
    return RavenwardState(cells, side, int(st[core.PLY]), int(st[core.MOVES]),
                          core.REASONS[status] or None, history, packed)


def decode(move: int) -> Action:
    """The action JSON of a core move code."""
    return {"type": "move", "from": int(move) >> 6, "to": int(move) & 63}


class RavenwardRules:
    """The rules of Ravenward behind the harness's ``Rules`` protocol."""

    name = "ravenward"
    user_side = 0

    def __init__(self) -> None:
        self.config: dict[str, Any] = {}

    @property
    def spec(self) -> str:
        return self.name

    def initial_state(self) -> RavenwardState:
        """The start position: King on the throne, King's side to move, no history."""
        return RavenwardState(START_CELLS, 0, 0, 0, None, ())

    def to_move(self, state: RavenwardState) -> int:
        return state.side

    def legal_actions(self, state: RavenwardState) -> list[Action]:
        """Every legal move of the side to move, sorted by (from, to); [] once over."""
        if state.reason is not None:
            return []
        moves = np.empty(core.MAX_MOVES, dtype=np.int64)   # per call: rules objects are shared
        count = core.generate(to_array(state, with_history=False), moves)
        return [{"type": "move", "from": m >> 6, "to": m & 63} for m in sorted(moves[:count].tolist())]

    def apply(self, state: RavenwardState, action: Action) -> RavenwardState:
        """The state after ``action`` resolved by steps (1)-(7); ``state`` is unchanged.

        Raises:
            IllegalAction: a malformed action, a move that is not legal here,
                or a finished game.
        """
        origin, target = self._parse(action)
        if state.reason is not None:
            raise IllegalAction(f"the game is over ({state.reason}); no action is legal")
        st = to_array(state)
        if not core.is_legal(st, origin, target):
            raise IllegalAction(f"move {origin}->{target} is not legal for side {state.side}; "
                                f"legal moves: {self._describe(state)}")
        core.make(st, origin * 64 + target, np.empty(core.UNDO_SIZE, dtype=np.int64))
        return from_array(st, state)

    @staticmethod
    def _parse(action: Any) -> tuple[int, int]:
        if not isinstance(action, dict) or action.get("type") != "move":
            raise IllegalAction(f"an action is {{\"type\": \"move\", \"from\": cell, \"to\": cell}}, "
                                f"got {action!r}")
        cells = []
        for field in ("from", "to"):
            value = action.get(field)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 48:
                raise IllegalAction(f"action field {field!r} must be an integer cell 0..48, got {value!r}")
            cells.append(value)
        return cells[0], cells[1]

    def _describe(self, state: RavenwardState) -> str:
        legal = self.legal_actions(state)
        text = ", ".join(f"{a['from']}->{a['to']}" for a in legal[:12])
        return text + (f", ... ({len(legal)} in all)" if len(legal) > 12 else "")

    def is_terminal(self, state: RavenwardState) -> bool:
        return state.reason is not None

    def outcome(self, state: RavenwardState) -> Outcome | None:
        """(win|draw|loss, reason) for the King's side, None while playing."""
        if state.reason is None:
            return None
        return core.RESULTS[REASON_CODES[state.reason]], state.reason

    def counters(self, state: RavenwardState) -> dict[str, int]:
        """defAlive, atkTaken, moves (the King's side's) and ply."""
        return {"defAlive": sum(state.cells[p] >= 0 for p in DEFENDER_PIECES),
                "atkTaken": sum(state.cells[p] < 0 for p in RAVEN_PIECES),
                "moves": state.moves, "ply": state.ply}

    def score(self, state: RavenwardState) -> float:
        """The documented score: win 100 + 10*defAlive + 5*atkTaken + max(0, 50 - 2*moves),
        draw 40 + 3*atkTaken, otherwise 3*atkTaken; 0 while playing."""
        result = self.outcome(state)
        if result is None:
            return 0.0
        c = self.counters(state)
        if result[0] == "win":
            return float(100 + 10 * c["defAlive"] + 5 * c["atkTaken"] + max(0, 50 - 2 * c["moves"]))
        if result[0] == "draw":
            return float(40 + 3 * c["atkTaken"])
        return float(3 * c["atkTaken"])

    def score_bounds(self) -> tuple[float, float]:
        """The formula's range: 0 (a loss with no raven taken) to the best conceivable win."""
        return 0.0, float(WIN_SCORE_MAX)

    def action_sort_key(self, action: Action) -> tuple[int, int]:
        return action["from"], action["to"]

    def render(self, state: RavenwardState) -> str:
        """A text board: K King, D defender, R raven, # corner, + empty throne, . empty."""
        board = state.board
        lines = []
        for row in range(core.N):
            cells = []
            for col in range(core.N):
                cell = row * core.N + col
                mark = board.get(cell)
                if mark is None:
                    mark = "#" if cell in core.CORNERS else "+" if cell == core.THRONE else "."
                cells.append(mark)
            lines.append(f"{row * core.N:2d} " + " ".join(cells))
        c = self.counters(state)
        status = f"over: {'/'.join(self.outcome(state))}, score {self.score(state):g}" if state.reason \
            else f"{'King' if state.side == 0 else 'ravens'} to move"
        lines.append(f"ply {c['ply']} moves {c['moves']} defAlive {c['defAlive']} "
                     f"atkTaken {c['atkTaken']}; {status}")
        return "\n".join(lines)

    def notation(self, state: RavenwardState) -> str:
        """One line: pieces by identity (x = captured), side to move, counters, status."""
        def cell(value: int) -> str:
            return "x" if value < 0 else str(value)
        cells = state.cells
        return (f"K{cell(cells[0])} D{','.join(cell(c) for c in cells[1:5])} "
                f"R{','.join(cell(c) for c in cells[5:])} side={state.side} ply={state.ply} "
                f"moves={state.moves} status={state.reason or 'playing'}")

    def state_to_json(self, state: RavenwardState) -> dict[str, Any]:
        """Plain JSON data; ``state_from_json`` restores the identical state."""
        return {"king": state.cells[0], "defenders": list(state.cells[1:5]),
                "ravens": list(state.cells[5:]), "side": state.side, "ply": state.ply,
                "moves": state.moves, "reason": state.reason,
                "history": [list(key) for key in state.history]}

    def state_from_json(self, data: dict[str, Any]) -> RavenwardState:
        """Read a state written by ``state_to_json``.

        Raises:
            NotationError: a missing field or a value out of range.
        """
        try:
            cells = (int(data["king"]),) + tuple(int(c) for c in data["defenders"]) + tuple(
                int(c) for c in data["ravens"])
            side, ply, moves = int(data["side"]), int(data["ply"]), int(data["moves"])
            reason = data.get("reason")
            history = tuple(tuple(int(v) for v in key) for key in data.get("history", ()))
        except (KeyError, TypeError, ValueError) as error:
            raise NotationError(f"not a Ravenward state: {error!r}; expected keys king, defenders, "
                                f"ravens, side, ply, moves, reason, history") from None
        return make_state(cells, side=side, ply=ply, moves=moves, reason=reason, history=history)


def make_state(cells: tuple[int, ...], *, side: int = 0, ply: int = 0, moves: int = 0,
               reason: str | None = None, history: tuple[tuple[int, ...], ...] = ()) -> RavenwardState:
    """A validated state from an explicit placement (pieces by identity).

    Raises:
        NotationError: a wrong piece count, a cell off the board or shared, a
            defender or raven on a special square, or a bad side/reason/history.
    """
    cells = tuple(int(c) for c in cells)
    if len(cells) != core.PIECES:
        raise NotationError(f"a Ravenward position has 13 pieces (King, 4 defenders, 8 ravens), got {len(cells)}")
    alive = [c for c in cells if c >= 0]
    if any(not -1 <= c < core.CELLS for c in cells) or len(set(alive)) != len(alive):
        raise NotationError(f"piece cells must be distinct cells 0..48 or -1 (captured), got {cells}")
    if any(cells[p] >= 0 and core.IS_SPECIAL[cells[p]] for p in range(1, core.PIECES)):
        raise NotationError("only the King may stand on the throne (24) or a corner (0, 6, 42, 48)")
    if side not in (0, 1) or not 0 <= ply <= core.PLY_LIMIT or moves < 0:
        raise NotationError(f"side must be 0 or 1 and ply 0..60, got side={side}, ply={ply}")
    if reason is not None and reason not in REASON_CODES:
        raise NotationError(f"unknown reason {reason!r}; valid: {', '.join(REASON_CODES)}")
    if len(history) > ply or any(len(k) != core.PIECES + 1 for k in history):
        raise NotationError("history keys are 13 cells and the side to move, one at most per ply played")
    return RavenwardState(cells, side, ply, moves, reason, tuple(tuple(k) for k in history))


def make_rules(**config: Any) -> RavenwardRules:
    """The Ravenward rules (the game takes no options)."""
    if config:
        from harness.errors import UnknownGame
        raise UnknownGame(f"game 'ravenward' takes no options, got {', '.join(config)}")
    return RavenwardRules()
