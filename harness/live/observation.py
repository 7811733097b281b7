"""Reading a board out of an unpublished observation, only where it cannot be misread.

The Gameboard API does not publish the shape of ``observation``. Legal
actions alone cannot always tell positions apart (in Ravenward many raven
moves leave the King's side's moves unchanged), so the tracker may use a
board found in the observation, under a reading that needs no knowledge of
its encoding:

- any array of the board's size (49 cells for Ravenward, 64 for Totality, 90
  for Chinese chess) is a board candidate: a flat list, a list of rows
  (lists or strings), or one string, row-major from the top left;
- a local position *fits* such an array when each kind of local square
  (empty, King, defender, raven; empty, Sun, Moon; ...) shows as one value
  of the array everywhere, and the empty squares' value is used by no piece.
  Piece kinds may share a value (a coarser encoding), values need no meaning.

An array that fits no candidate (another orientation, or not a board at all)
is ignored, so this filter can only narrow, never break tracking.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from harness.games import Rules, State
from harness.live.board import fen_board

BOARD_CELLS = {"ravenward": 49, "totality": 64, "xiangqi": 90}
MAX_DEPTH = 6


def local_cells(rules: Rules, state: State) -> list[str]:
    """The kind of every square of a local position, ``""`` for empty, row-major."""
    if rules.name == "xiangqi":
        return [square["side"] + square["mark"] for square in fen_board(rules.notation(state))]
    data = rules.state_to_json(state)
    if rules.name == "ravenward":
        cells = [""] * 49
        for defender in data["defenders"]:
            if defender is not None and defender >= 0:
                cells[defender] = "D"
        for raven in data["ravens"]:
            if raven is not None and raven >= 0:
                cells[raven] = "R"
        cells[data["king"]] = "K"
        return cells
    board = _find_local_board(data, BOARD_CELLS[rules.name])
    if board is None:
        raise ValueError(f"no board of {BOARD_CELLS[rules.name]} squares in {rules.name}'s state JSON")
    return board


def _find_local_board(data: Any, size: int) -> list[str] | None:
    for board in board_arrays(data, size):
        values = [json.dumps(v) for v in board]
        empty = _empty_value(board)
        return ["" if v == empty else v for v in values]
    return None


def _empty_value(board: list[Any]) -> str | None:
    for value in board:
        if value in (0, None, "", ".", "-", " ", "empty"):
            return json.dumps(value)
    return None


def board_arrays(data: Any, size: int, depth: int = 0) -> list[list[Any]]:
    """Every array of ``size`` cells in a JSON value (flat, rows, or a string), row-major."""
    found: list[list[Any]] = []
    if depth > MAX_DEPTH:
        return found
    if isinstance(data, str) and len(data) == size:
        found.append(list(data))
    elif isinstance(data, list):
        if len(data) == size and all(not isinstance(v, list) for v in data):
            found.append([json.dumps(v, sort_keys=True) if isinstance(v, dict) else v for v in data])
        elif data and all(isinstance(row, (list, str)) for row in data) \
                and sum(len(row) for row in data) == size and len({len(row) for row in data}) == 1:
            found.append([json.dumps(v, sort_keys=True) if isinstance(v, dict) else v
                          for row in data for v in row])
        for item in data:
            if isinstance(item, (dict, list)):
                found.extend(board_arrays(item, size, depth + 1))
    elif isinstance(data, dict):
        for value in data.values():
            found.extend(board_arrays(value, size, depth + 1))
    return found


def fits(observed: list[Any], local: list[str]) -> bool:
    """Whether ``observed`` encodes ``local``: one value per local kind, empty's value its own."""
    mapping: dict[str, Any] = {}
    for kind, value in zip(local, observed):
        value = json.dumps(value, sort_keys=True)
        if mapping.setdefault(kind, value) != value:
            return False
    empty = mapping.get("")
    return empty is None or all(value != empty for kind, value in mapping.items() if kind)


def observation_filters(rules: Rules, *sources: Any) -> list[Callable[[State], bool]]:
    """One position filter per board-sized array found in ``sources`` (observation, state)."""
    size = BOARD_CELLS.get(rules.name)
    if size is None:
        return []
    arrays = [array for source in sources if source is not None for array in board_arrays(source, size)]
    return [lambda state, array=array: fits(array, local_cells(rules, state)) for array in arrays]
