"""Boards drawn as SVG, one function per game, from ``Rules.state_to_json`` (the public protocol).

Pieces are drawn with Latin letters (xiangqi's Western notation R N B A K C P)
so a page renders the same on a machine without CJK fonts; the Chinese name
is each piece's tooltip. ``replay_frames`` turns a recorded match into one
board per ply for the replay page's slider.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from typing import Any

from harness.games import Rules
from harness.replay import replay_states

CELL = 40
MARGIN = 24
XIANGQI_NAMES = {"r": "車 chariot", "n": "馬 horse", "b": "象 elephant", "a": "士 advisor", "k": "將 general",
                 "c": "砲 cannon", "p": "卒 soldier"}


def _svg(width: int, height: int, body: list[str], label: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
            f'height="{height}" role="img" aria-label="{label}">' + "".join(body) + "</svg>")


def _labels(columns: int, rows: int, files: str | None, offset: float) -> list[str]:
    """Column letters (or numbers) along the top, row numbers down the left."""
    out = []
    for col in range(columns):
        text = files[col] if files else str(col)
        out.append(f'<text x="{MARGIN + col * CELL + offset}" y="{MARGIN - 8}" class="coord">{text}</text>')
    for row in range(rows):
        out.append(f'<text x="{MARGIN - 14}" y="{MARGIN + row * CELL + offset + 4}" class="coord">{row + (1 if files else 0)}</text>')
    return out


def _disc(x: float, y: float, fill: str, stroke: str, letter: str = "", ink: str = "#000",
          title: str = "") -> str:
    tip = f"<title>{title}</title>" if title else ""
    text = (f'<text x="{x}" y="{y + 5}" text-anchor="middle" font-size="15" font-weight="bold" '
            f'fill="{ink}">{letter}</text>') if letter else ""
    return (f'<g class="piece">{tip}<circle cx="{x}" cy="{y}" r="{CELL * 0.38}" fill="{fill}" stroke="{stroke}" '
            f'stroke-width="2"/>{text}</g>')


def ravenward_svg(state: dict[str, Any]) -> str:
    """7x7 tafl: corners and throne marked, the King gold, defenders white, ravens black."""
    size = 7
    body = [f'<rect width="{2 * MARGIN + size * CELL}" height="{2 * MARGIN + size * CELL}" fill="#f4ecd8"/>']
    for square in range(size * size):
        row, col = divmod(square, size)
        special = square in (0, size - 1, size * (size - 1), size * size - 1, size * size // 2)
        body.append(f'<rect x="{MARGIN + col * CELL}" y="{MARGIN + row * CELL}" width="{CELL}" height="{CELL}" '
                    f'fill="{"#c9a66b" if special else "#e8d9b5"}" stroke="#8a6d3b"/>')
    body += _labels(size, size, None, CELL / 2)

    def centre(square: int) -> tuple[float, float]:
        row, col = divmod(square, size)
        return MARGIN + col * CELL + CELL / 2, MARGIN + row * CELL + CELL / 2

    for square in state.get("ravens", []):
        body.append(_disc(*centre(square), "#222", "#000", "R", "#eee", "raven"))
    for square in state.get("defenders", []):
        body.append(_disc(*centre(square), "#fff", "#555", "D", "#333", "defender"))
    if state.get("king") is not None:
        body.append(_disc(*centre(state["king"]), "#f2c230", "#8a6d00", "K", "#000", "King"))
    edge = 2 * MARGIN + size * CELL
    return _svg(edge, edge, body, "Ravenward board")


def totality_svg(state: dict[str, Any]) -> str:
    """8x8 reversi: the Sun's discs gold, the Moon's dark."""
    size = 8
    edge = 2 * MARGIN + size * CELL
    body = [f'<rect width="{edge}" height="{edge}" fill="#e9efe9"/>',
            f'<rect x="{MARGIN}" y="{MARGIN}" width="{size * CELL}" height="{size * CELL}" fill="#2e7d4f"/>']
    for index in range(size + 1):
        position = MARGIN + index * CELL
        body.append(f'<line x1="{MARGIN}" y1="{position}" x2="{MARGIN + size * CELL}" y2="{position}" stroke="#14502c"/>')
        body.append(f'<line x1="{position}" y1="{MARGIN}" x2="{position}" y2="{MARGIN + size * CELL}" stroke="#14502c"/>')
    body += _labels(size, size, "abcdefgh", CELL / 2)
    board = state.get("board", "")
    for square, mark in enumerate(board):
        row, col = divmod(square, size)
        x, y = MARGIN + col * CELL + CELL / 2, MARGIN + row * CELL + CELL / 2
        if mark == "X":
            body.append(_disc(x, y, "#f6c744", "#a57c00", title="Sun"))
        elif mark == "O":
            body.append(_disc(x, y, "#2b2f3a", "#000", title="Moon"))
    return _svg(edge, edge, body, "Totality board")


def xiangqi_svg(state: dict[str, Any]) -> str:
    """Chinese chess on the 9x10 points: river, palaces, red and black pieces by FEN letter."""
    columns, rows = 9, 10
    width, height = 2 * MARGIN + (columns - 1) * CELL + CELL, 2 * MARGIN + (rows - 1) * CELL + CELL
    left, top = MARGIN + CELL / 2, MARGIN + CELL / 2
    right, bottom = left + (columns - 1) * CELL, top + (rows - 1) * CELL
    body = [f'<rect width="{width}" height="{height}" fill="#f0d9a8"/>']
    for row in range(rows):
        y = top + row * CELL
        body.append(f'<line x1="{left}" y1="{y}" x2="{right}" y2="{y}" stroke="#6b4a1b"/>')
    for col in range(columns):
        x = left + col * CELL
        if col in (0, columns - 1):
            body.append(f'<line x1="{x}" y1="{top}" x2="{x}" y2="{bottom}" stroke="#6b4a1b"/>')
        else:  # the river cuts the inner files
            body.append(f'<line x1="{x}" y1="{top}" x2="{x}" y2="{top + 4 * CELL}" stroke="#6b4a1b"/>')
            body.append(f'<line x1="{x}" y1="{top + 5 * CELL}" x2="{x}" y2="{bottom}" stroke="#6b4a1b"/>')
    for first in (0, 7):  # the palaces' diagonals
        y1, y2 = top + first * CELL, top + (first + 2) * CELL
        body.append(f'<line x1="{left + 3 * CELL}" y1="{y1}" x2="{left + 5 * CELL}" y2="{y2}" stroke="#6b4a1b"/>')
        body.append(f'<line x1="{left + 5 * CELL}" y1="{y1}" x2="{left + 3 * CELL}" y2="{y2}" stroke="#6b4a1b"/>')
    body.append(f'<text x="{(left + right) / 2}" y="{top + 4.5 * CELL + 5}" text-anchor="middle" '
                f'class="river">river</text>')
    for col in range(columns):
        body.append(f'<text x="{left + col * CELL}" y="{MARGIN - 2}" class="coord">{col}</text>')
    for row in range(rows):
        body.append(f'<text x="{MARGIN - 16}" y="{top + row * CELL + 4}" class="coord">{row}</text>')
    for row, line in enumerate(str(state.get("board", "")).split("/")):
        col = 0
        for char in line:
            if char.isdigit():
                col += int(char)
                continue
            red = char.isupper()
            name = XIANGQI_NAMES.get(char.lower(), char)
            body.append(_disc(left + col * CELL, top + row * CELL, "#fff7e6", "#b22" if red else "#222",
                              char.upper(), "#b22" if red else "#222", ("red " if red else "black ") + name))
            col += 1
    return _svg(int(width), int(height), body, "Chinese chess board")


DRAWERS: dict[str, Callable[[dict[str, Any]], str]] = {
    "ravenward": ravenward_svg, "totality": totality_svg, "xiangqi": xiangqi_svg}


def text_svg(rules: Rules, state: Any) -> str:
    """The engine's own text board (``rules.render``) as SVG: a game without a drawer still shows."""
    lines = rules.render(state).splitlines() or [""]
    width = 16 + 10 * max(len(line) for line in lines)
    body = [f'<text x="8" y="{20 + 18 * i}" font-family="monospace" font-size="16">{html.escape(line)}</text>'
            for i, line in enumerate(lines)]
    return _svg(width, 16 + 18 * len(lines), body, f"{rules.name} board")


def board_svg(rules: Rules, state: Any) -> str:
    """The SVG of a state of any registered game (its text board when it has no drawer here)."""
    drawer = DRAWERS.get(rules.name)
    return drawer(rules.state_to_json(state)) if drawer is not None else text_svg(rules, state)


def replay_frames(game: str, actions: list[dict[str, Any]]) -> list[dict[str, str]]:
    """One frame per ply of a recorded match, the start first: the board, the move that led there, who moved.

    Raises:
        IllegalAction: a recorded action is not legal (the engine changed since).
    """
    return [{"svg": board_svg(rules, state), "move": "start" if action is None else json.dumps(action), "by": by}
            for rules, state, action, by in replay_states(game, actions)]
