"""The seat protocol's 90-square board (State section of the Chinese chess rules text).

Row 0 is black's back rank, index = row * 9 + column; each square has a
``mark`` and a ``side`` (both empty on an empty square). The local engine's
standard FEN uses the same orientation (its first rank is black's back rank).
"""

from __future__ import annotations

from harness.errors import NotationError

# FEN letters of the local engine -> the platform's marks (State section).
RED_MARKS = {"K": "帥", "A": "仕", "B": "相", "E": "相", "N": "馬", "H": "馬", "R": "車", "C": "炮", "P": "兵"}
BLACK_MARKS = {"k": "將", "a": "士", "b": "象", "e": "象", "n": "馬", "h": "馬", "r": "車", "c": "砲", "p": "卒"}
SIDES = ("red", "black")


def fen_board(fen: str) -> list[dict[str, str]]:
    """The 90 squares of the seat protocol's summary from a FEN's placement field."""
    squares: list[dict[str, str]] = []
    for row in fen.split()[0].split("/"):
        for char in row:
            if char.isdigit():
                squares.extend({"mark": "", "side": ""} for _ in range(int(char)))
            elif char in RED_MARKS:
                squares.append({"mark": RED_MARKS[char], "side": "red"})
            elif char in BLACK_MARKS:
                squares.append({"mark": BLACK_MARKS[char], "side": "black"})
            else:
                raise NotationError(f"unknown FEN piece {char!r} in {fen!r}")
    if len(squares) != 90:
        raise NotationError(f"a FEN placement of {len(squares)} squares, not 90: {fen!r}")
    return squares
