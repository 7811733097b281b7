"""Learning how an unpublished observation lays out the board, never assuming it.

The Gameboard API does not publish the shape of ``observation`` (nor of
``state``). Legal actions alone cannot always tell positions apart (in
Ravenward many raven moves leave the King's side's moves unchanged), so the
tracker also reads boards out of the observation, and learns how to read them:

- every array of the board's size in a reply (49 cells for Ravenward, 64 for
  Totality, 90 for Chinese chess) is a *source*: a flat list, a list of rows
  (lists or strings) or one string, found anywhere in the observation, and
  in the state when the state is readable JSON; a source is named by its
  path (``observation/board``) so the same array is followed from reply to reply;
- a *layout* is a source, one of the 8 symmetries of the square
  (:data:`SYMMETRIES`: rotations, reflections, transposition, so row- and
  column-major alike) and an encoding: a one-to-one map of the local square
  kinds (empty, King, defender, raven; empty, Sun, Moon) to the source's
  symbols, learned from the positions that fit (symbols need no meaning);
- :class:`LayoutLearner` keeps every layout consistent with the tracked
  candidates and drops the others as the game goes on; a candidate is kept
  when some kept layout reads it. Once one layout is left it pins the
  position. A layout that stops fitting every candidate is a *warning*
  (counted), not a crash: the learner starts over from that reply.

An array that fits no position under any layout (a heat map, a counter list)
never narrows anything.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from harness.games import Rules, State, kit

MAX_DEPTH = 6
#: More layouts than this at once are cut (first found kept): only many-sourced observations reach it.
MAX_LAYOUTS = 256

#: The 8 symmetries of the square: where the local square (row, column) of an
#: R x C board shows in the observed board, and whether that board is C x R.
SYMMETRIES: dict[str, tuple[Callable[[int, int, int, int], tuple[int, int]], bool]] = {
    "identity": (lambda r, c, R, C: (r, c), False),
    "rotate90": (lambda r, c, R, C: (c, R - 1 - r), True),
    "rotate180": (lambda r, c, R, C: (R - 1 - r, C - 1 - c), False),
    "rotate270": (lambda r, c, R, C: (C - 1 - c, r), True),
    "flip-rows": (lambda r, c, R, C: (R - 1 - r, c), False),
    "flip-columns": (lambda r, c, R, C: (r, C - 1 - c), False),
    "transpose": (lambda r, c, R, C: (c, r), True),
    "anti-transpose": (lambda r, c, R, C: (C - 1 - c, R - 1 - r), True),
}


def board_shape(rules: Rules) -> tuple[int, int] | None:
    """(rows, columns) of the game's board as an observation may show it (its kit's), or None."""
    return kit(rules.name).board_shape


def board_size(rules: Rules) -> int | None:
    """The squares of the game's board, or None for a game not read from observations."""
    shape = board_shape(rules)
    return None if shape is None else shape[0] * shape[1]


def symmetry_positions(rules: Rules, symmetry: str) -> list[int]:
    """For each local square (row-major from the top left), its index in the observed array."""
    rows, columns = board_shape(rules)
    place, transposed = SYMMETRIES[symmetry]
    width = rows if transposed else columns
    positions = []
    for row in range(rows):
        for column in range(columns):
            r, c = place(row, column, rows, columns)
            positions.append(r * width + c)
    return positions


def local_cells(rules: Rules, state: State) -> list[str]:
    """The kind of every square of a local position, ``""`` for empty, row-major (the game kit's reading)."""
    return kit(rules.name).board_cells(rules, state)


def board_sources(data: Any, size: int, path: str = "", depth: int = 0) -> dict[str, list[str]]:
    """Every array of ``size`` cells in a JSON value, by its path; symbols as JSON text."""
    found: dict[str, list[str]] = {}
    if depth > MAX_DEPTH:
        return found
    if isinstance(data, str) and len(data) == size:
        found[path] = [json.dumps(ch) for ch in data]
    elif isinstance(data, list):
        if len(data) == size and all(not isinstance(v, list) for v in data):
            found[path] = [json.dumps(v, sort_keys=True) for v in data]
        elif data and all(isinstance(row, (list, str)) for row in data) \
                and sum(len(row) for row in data) == size and len({len(row) for row in data}) == 1:
            found[path] = [json.dumps(v, sort_keys=True) for row in data for v in row]
        for index, item in enumerate(data):
            if isinstance(item, (dict, list)):
                found.update(board_sources(item, size, f"{path}/{index}", depth + 1))
    elif isinstance(data, dict):
        for key, value in data.items():
            found.update(board_sources(value, size, f"{path}/{key}", depth + 1))
    return found


def reply_sources(rules: Rules, observation: Any, state: Any = None) -> dict[str, list[str]]:
    """The board sources of one server reply: the observation's, and the state's when readable."""
    size = board_size(rules)
    if size is None:
        return {}
    sources = board_sources(observation, size, "observation")
    if state is not None and not isinstance(state, str):
        sources.update(board_sources(state, size, "state"))
    return sources


@dataclass(frozen=True)
class Layout:
    """One way to read a board: a source, a symmetry and the symbols learned for each kind."""

    source: str
    symmetry: str
    codes: tuple[tuple[str, str], ...] = ()  # (local kind, observed symbol), sorted

    def describe(self) -> str:
        codes = ", ".join(f"{kind or 'empty'}={json.loads(symbol)!r}" for kind, symbol in self.codes)
        return f"{self.source} {self.symmetry} ({codes})"


def _extend(codes: dict[str, str], symbols: dict[str, str], cells: Sequence[str],
            seen: Sequence[str]) -> tuple[dict[str, str], dict[str, str]] | None:
    """The encoding extended by one position read as ``seen``, or None if not one-to-one."""
    codes, symbols = dict(codes), dict(symbols)
    for kind, symbol in zip(cells, seen):
        known = codes.get(kind)
        if known is None:
            if symbol in symbols:
                return None
            codes[kind], symbols[symbol] = symbol, kind
        elif known != symbol:
            return None
    return codes, symbols


class LayoutLearner:
    """The layouts still consistent with the game; see the module docstring.

    Attributes:
        layouts: the kept layouts (empty while no board has been read).
        warnings: how many times the kept layouts stopped fitting and were learned again.
    """

    def __init__(self, rules: Rules, max_layouts: int = MAX_LAYOUTS) -> None:
        self.rules = rules
        self.max_layouts = max_layouts
        self.layouts: list[Layout] = []
        self.warnings = 0
        self.last_warning: str | None = None
        self._positions = {name: symmetry_positions(rules, name) for name in SYMMETRIES} \
            if board_shape(rules) is not None else {}

    @property
    def pinned(self) -> Layout | None:
        """The one layout left, if the learning is done."""
        return self.layouts[0] if len(self.layouts) == 1 else None

    def narrow(self, states: Sequence[State], sources: dict[str, list[str]]) -> list[int]:
        """The indices of ``states`` some kept layout reads in ``sources``; keeps those layouts.

        Every index is returned when the reply has no board that fits any of them.
        """
        everything = list(range(len(states)))
        if not sources or not states or not self._positions:
            return everything
        cells = [local_cells(self.rules, state) for state in states]
        if self.layouts:
            kept, layouts = self._fit(self.layouts, cells, sources)
            if kept:
                self.layouts = layouts
                return kept
            self.warnings += 1
            self.last_warning = (f"the observation's board stopped fitting the layout(s) "
                                 f"{'; '.join(layout.describe() for layout in self.layouts[:3])}; learning again")
        fresh = [Layout(source, symmetry) for source in sources for symmetry in SYMMETRIES]
        kept, layouts = self._fit(fresh, cells, sources)
        self.layouts = layouts
        return kept or everything

    def _fit(self, layouts: list[Layout], cells: list[list[str]],
             sources: dict[str, list[str]]) -> tuple[list[int], list[Layout]]:
        kept: set[int] = set()
        found: dict[Layout, None] = {}
        for layout in layouts:
            observed = sources.get(layout.source)
            if observed is None:  # this reply lacks the source: it says nothing against the layout
                found.setdefault(layout, None)
                kept.update(range(len(cells)))
                continue
            seen = [observed[p] for p in self._positions[layout.symmetry]]
            codes = dict(layout.codes)
            symbols = {symbol: kind for kind, symbol in layout.codes}
            for index, position in enumerate(cells):
                extended = _extend(codes, symbols, position, seen)
                if extended is None:
                    continue
                kept.add(index)
                found.setdefault(Layout(layout.source, layout.symmetry, tuple(sorted(extended[0].items()))), None)
                if len(found) >= self.max_layouts:
                    break
        return sorted(kept), list(found)[:self.max_layouts]


def observation_filters(rules: Rules, *sources: Any) -> list[Callable[[State], bool]]:
    """One position filter per board array found in ``sources``, read row-major with any encoding.

    A plain reading kept for one-off checks; live games learn the layout with :class:`LayoutLearner`.
    """
    size = board_size(rules)
    if size is None:
        return []
    arrays = [array for source in sources if source is not None
              for array in board_sources(source, size).values()]
    return [lambda state, array=array: _extend({}, {}, local_cells(rules, state), array) is not None
            for array in arrays]
