"""Tic-tac-toe: the tests' own fourth game, plugged in through the same surface as the shipped three.

Plain Python, no compiled core: it shows what a game must provide and no
more. X (side 0) moves first; the user plays X (``tictactoe``) or O
(``tictactoe:o``). Three in a row wins; a full board without one is a draw.
The score from the user's seat is 100 plus 10 per empty cell left for a win,
50 for a draw, 0 for a loss, so a faster win pays more.

Actions are ``{"type": "place", "cell": i}``, cells 0-8 row-major from the
top left, sorted by cell. Outcome reasons: ``three_in_a_row``, ``full_board``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.errors import IllegalAction, NotationError
from harness.games import Action, Outcome, canonical_spec

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
MARKS = ".XO"  # empty, side 0, side 1
SEATS = ("x", "o")


@dataclass(frozen=True)
class TicTacToeState:
    """A position: 9 cells (0 empty, 1 X, 2 O) and the side to move."""

    cells: tuple[int, ...] = (0,) * 9
    to_move: int = 0


def winner(cells: tuple[int, ...]) -> int | None:
    """The side with three in a row, or None."""
    for a, b, c in LINES:
        if cells[a] and cells[a] == cells[b] == cells[c]:
            return cells[a] - 1
    return None


class TicTacToeRules:
    """The Rules protocol of ``harness.games`` for tic-tac-toe."""

    name = "tictactoe"

    def __init__(self, seat: str = "x") -> None:
        self.config = {"seat": seat}
        self.user_side = SEATS.index(seat)

    @property
    def spec(self) -> str:
        return canonical_spec(self.name, self.config)

    def initial_state(self) -> TicTacToeState:
        return TicTacToeState()

    def to_move(self, state: TicTacToeState) -> int:
        return state.to_move

    def legal_actions(self, state: TicTacToeState) -> list[Action]:
        if self.is_terminal(state):
            return []
        return [{"type": "place", "cell": cell} for cell in range(9) if not state.cells[cell]]

    def apply(self, state: TicTacToeState, action: Action) -> TicTacToeState:
        if action not in self.legal_actions(state):
            raise IllegalAction(f"{action!r} is not legal here; legal actions: {self.legal_actions(state)}")
        cells = list(state.cells)
        cells[action["cell"]] = state.to_move + 1
        return TicTacToeState(tuple(cells), 1 - state.to_move)

    def is_terminal(self, state: TicTacToeState) -> bool:
        return winner(state.cells) is not None or all(state.cells)

    def outcome(self, state: TicTacToeState) -> Outcome | None:
        side = winner(state.cells)
        if side is not None:
            return ("win" if side == self.user_side else "loss"), "three_in_a_row"
        return ("draw", "full_board") if all(state.cells) else None

    def score(self, state: TicTacToeState) -> float:
        result = self.outcome(state)
        if result is None or result[0] == "loss":
            return 0.0
        return 50.0 if result[0] == "draw" else 100.0 + 10.0 * state.cells.count(0)

    def score_bounds(self) -> tuple[float, float]:
        return 0.0, 140.0  # the fastest win leaves four cells empty

    def counters(self, state: TicTacToeState) -> dict[str, int]:
        return {"x": state.cells.count(1), "o": state.cells.count(2)}

    def render(self, state: TicTacToeState) -> str:
        rows = ["".join(MARKS[c] for c in state.cells[r:r + 3]) for r in (0, 3, 6)]
        return "\n".join(rows) + f"\n{MARKS[state.to_move + 1]} to move"

    def notation(self, state: TicTacToeState) -> str:
        return "".join(MARKS[c] for c in state.cells) + " " + MARKS[state.to_move + 1]

    def action_sort_key(self, action: Action) -> Any:
        return action.get("cell", -1) if isinstance(action, dict) else -1

    def state_to_json(self, state: TicTacToeState) -> dict[str, Any]:
        return {"board": "".join(MARKS[c] for c in state.cells), "toMove": state.to_move}

    def state_from_json(self, data: dict[str, Any]) -> TicTacToeState:
        board = data.get("board")
        if not isinstance(board, str) or len(board) != 9 or set(board) - set(MARKS):
            raise NotationError(f"a tic-tac-toe board is 9 of {MARKS!r}, not {board!r}")
        return TicTacToeState(tuple(MARKS.index(c) for c in board), int(data.get("toMove", 0)))


def make_rules(seat: str = "x") -> TicTacToeRules:
    return TicTacToeRules(seat)
