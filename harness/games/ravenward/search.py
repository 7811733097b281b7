"""Compiled alpha-beta for Ravenward on the engine's fast path.

Negamax with iterative deepening over the engine's make/unmake, a
transposition table keyed by the engine's incremental Zobrist hash (mixed
with the ply, so the 60-ply limit and the moves the score pays for never
leak between positions that differ in them), and move ordering: the table's
move, then captures (an escape first), then two killers per ply and the
history table. Limits: depth and nodes are deterministic; a deadline (live
play) is checked between iterations and turned into a node budget within one.

Values are from the side to move. Finished games are valued with the
documented score of the King's side: a win is 1000 plus its score, a draw
its score less 40 plus the ``draw_contempt`` weight, a loss -1000 plus its
score, so every win beats every draw and every draw every loss, the King's
side prefers the better-paying win (faster, more defenders, more ravens
taken) and the ravens the lowest King's score. Open positions are valued by
the weighted features of ``harness.games.ravenward.features``, held within
+-``EVALUATION_BOUND`` (900) so that no open position passes for a decided
one: the features alone reach past 1100 with weights inside their declared
ranges, and a search with such weights claimed wins that were not there.

Exact to the depth. A search of nominal depth d finds every forced win (and
sees every forced loss) within d plies, at its best-paying value, and claims
no win that is not forced; with no technique its value is the exact minimax
of the d-ply tree. Values are absolute (the score counts the King's moves, and
the table's key holds the ply), so no mate-distance correction is needed
between the table and the root; among equally paying wins the root keeps the
first searched, an escape or capture now before a quiet move. A later win
that pays more (a raven taken on the way, once the speed bonus is spent) is
preferred to an escape now when it is forced: the score's reading, not a
miss (an escape reported as missed at depth 4 and deeper was such a win).
What keeps the techniques exact:

- quiescence: the side to move stands pat or captures, so a proven value
  below the horizon always comes from moves really played;
- late-move reductions take one ply from a quiet move, and a win one ply
  short of the full depth would hide behind it (with no quiescence, 10 of 200
  seeded wins in five plies were missed). So (``exact_lmr``, a default
  technique; without it the search of before) a path holds one reduction at
  most, below a reduced move the table cuts off only with entries searched
  with none (an entry holding its own reduction would make a second), and the
  horizon below a reduced move settles the moves that win at once (escape,
  the King's capture, the opponent left without a move), which gives the ply
  back where a win can need it: a forced win of L <= d plies through a reduced
  move ends at the latest on that horizon;
- an open position is worth less than any decided one (``EVALUATION_BOUND``).

One known limit: the table's key does not hold the history of earlier
positions, so a draw by repetition found below a position could be reused
where a different history makes it no repetition (no such case was seen in
the checks against exhaustive search, repetition-heavy games included).

Ties between equally valued root moves are broken by the seed: the root
moves are shuffled with it before the (stable) ordering, and the first of
the best is kept.

The transposition table is reused between searches but stamped with a
search generation, so entries of an earlier search are never read: a search
depends only on its position, weights, limits and seed.
"""

from __future__ import annotations

import random
import time

import numpy as np
from numba import njit

from harness.errors import IllegalAction
from harness.games import Rules, State
from harness.games.ravenward import _core as core
from harness.games.ravenward import decode, to_array
from harness.games.ravenward.features import FEATURES, INDEX, LADDER_DEFAULTS
from harness.games.gamekit import SearchResult

# Every stand-in and rung is built on ``LADDER_DEFAULTS`` (every feature named), never on the live
# defaults, so adopting new defaults never moves the ladder; ``harness games`` prints this line.
GBOT_DEFAULT_SOURCE = "LADDER_DEFAULTS (the default weights of 2026-12-08, harness 0.1.0)"

# The stand-in searches five plies at the evaluation the project had when it was made: the
# features added since (the corner paths, the King's shields) are off, so ``gbot`` keeps its meaning.
_LATER_FEATURES = ("king_corner_paths", "corner_path_guards", "unguarded_corner_paths", "king_shields")
# Its search stays the plain full-width alpha-beta of its day too (no techniques: no reductions,
# no quiescence), the "fixed-depth minimax" that sibling games document.
GBOT = {"default": {"depth": 5, "techniques": "none",
                    "weights": LADDER_DEFAULTS | {name: 0.0 for name in _LATER_FEATURES}}}

# The evaluations a ladder stand-in may use (``gbot:depth=5,eval=material``): material alone (10 a
# defender, 5 a raven, as the score pays), the frozen default weights, and a blockade style that
# seals corners and hunts the King harder.
GBOT_EVALS: dict[str, dict[str, float]] = {
    "material": {name: 0.0 for name in LADDER_DEFAULTS} | {"defenders": 10.0, "ravens_taken": 5.0},
    "default": dict(LADDER_DEFAULTS),
    "blockade": LADDER_DEFAULTS | {"corner_guards": -8.0, "blocked_corners": -20.0, "king_in_danger": -40.0,
                                   "ravens_adjacent_king": -10.0},
}

MAX_DEPTH = 64
TT_BITS = 18
WIN = 1000.0
# An open position is valued inside +-EVALUATION_BOUND, below every decided value: a win is worth at
# least WIN + 100, a loss at most -WIN + 24, a draw between -80 and 64. The weighted features alone are
# not bounded so: with weights inside their declared ranges (a tuner samples them) they pass 1100, and
# an open position would then pass for a forced win, or beat one.
EVALUATION_BOUND = 900.0
INFINITY = 1e9
EXACT, LOWER, UPPER = 0, 1, 2

W_KING_CORNER_DISTANCE = INDEX["king_corner_distance"]
W_KING_OPEN_CORNERS = INDEX["king_open_corners"]
W_KING_ESCAPE_ROUTES = INDEX["king_escape_routes"]
W_CORNER_GUARDS = INDEX["corner_guards"]
W_BLOCKED_CORNERS = INDEX["blocked_corners"]
W_RAVENS_ADJACENT_KING = INDEX["ravens_adjacent_king"]
W_KING_IN_DANGER = INDEX["king_in_danger"]
W_DEFENDERS = INDEX["defenders"]
W_RAVENS_TAKEN = INDEX["ravens_taken"]
W_DEFENDERS_THREATENED = INDEX["defenders_threatened"]
W_RAVENS_THREATENED = INDEX["ravens_threatened"]
W_KING_MOBILITY = INDEX["king_mobility"]
W_MOBILITY = INDEX["mobility"]
W_KING_ON_EDGE = INDEX["king_on_edge"]
W_MOVES_PLAYED = INDEX["moves_played"]
W_DRAW_CONTEMPT = INDEX["draw_contempt"]
W_KING_CORNER_PATHS = INDEX["king_corner_paths"]
W_CORNER_PATH_GUARDS = INDEX["corner_path_guards"]
W_UNGUARDED_CORNER_PATHS = INDEX["unguarded_corner_paths"]
W_KING_SHIELDS = INDEX["king_shields"]
assert len(FEATURES) == 20

NEIGHBOUR = core.NEIGHBOUR
IS_CORNER = core.IS_CORNER
IS_SPECIAL = core.IS_SPECIAL
PIECE = core.PIECE
PLAYING = core.PLAYING
# the two squares beside each corner
CORNER_NEIGHBOURS = np.array([[1, 7], [5, 13], [35, 43], [41, 47]], dtype=np.int64)
CORNER_CELLS = np.array(core.CORNERS, dtype=np.int64)
PLY_KEYS = np.random.default_rng(777).integers(-2**62, 2**62, size=core.PLY_LIMIT + 2, dtype=np.int64)


@njit(cache=True)
def terminal_value(st: np.ndarray, weights: np.ndarray) -> float:
    """The value of a finished game for the King's side (see the module docstring)."""
    status = st[core.STATUS]
    score = float(core.score(st))
    if status == core.END_ESCAPE or status == core.END_RAVENS_NO_MOVES:
        return WIN + score
    if status == core.END_REPETITION or status == core.END_PLY_LIMIT:
        return score - 40.0 + weights[W_DRAW_CONTEMPT]
    return -WIN + score


FULL = (1 << 49) - 1
COL0 = sum(1 << (row * 7) for row in range(7))
COL6 = sum(1 << (row * 7 + 6) for row in range(7))
CORNER_MASK = sum(1 << c for c in core.CORNERS)
THRONE_BIT = 1 << core.THRONE
EDGE_MASK = sum(1 << c for c in range(49) if c // 7 in (0, 6) or c % 7 in (0, 6))


@njit(cache=True, inline="always")
def _popcount(x: np.int64) -> int:
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56 & 0xFF


def _rays() -> np.ndarray:
    """RAYS[direction, cell]: the cells beyond ``cell`` in a direction, as a bitmask."""
    rays = np.zeros((4, core.CELLS), dtype=np.int64)
    for cell in range(core.CELLS):
        for direction in range(4):
            step = NEIGHBOUR[cell, direction]
            while step >= 0:
                rays[direction, cell] |= np.int64(1) << step
                step = NEIGHBOUR[step, direction]
    return rays


RAYS = _rays()


def _between() -> np.ndarray:
    """BETWEEN[a, b]: the cells strictly between two cells of one row or column, as a bitmask (else 0)."""
    between = np.zeros((core.CELLS, core.CELLS), dtype=np.int64)
    for a in range(core.CELLS):
        for b in range(core.CELLS):
            if a // 7 == b // 7:
                low, high = min(a, b), max(a, b)
                between[a, b] = sum(1 << c for c in range(low + 1, high))
            elif a % 7 == b % 7:
                low, high = min(a, b), max(a, b)
                between[a, b] = sum(1 << c for c in range(low + 7, high, 7))
    return between


BETWEEN = _between()
SPECIAL_MASK = sum(1 << c for c in (*core.CORNERS, core.THRONE))


@njit(cache=True)
def _reach(st: np.ndarray, side: int, occupied: np.int64) -> tuple[int, int]:
    """(bitmask of cells ``side`` can move to, number of its legal moves), by ray masks."""
    mask = np.int64(0)
    count = 0
    first = 0 if side == 0 else core.FIRST_RAVEN
    last = core.FIRST_RAVEN if side == 0 else core.PIECES
    for piece in range(first, last):
        reach = _piece_reach(st, piece, occupied)
        mask |= reach
        count += _popcount(reach)
    return mask, count


@njit(cache=True, inline="always")
def _slides(generators: np.int64, empty: np.int64) -> np.int64:
    """Empty cells one rook slide from any cell of ``generators`` reaches (a set-wise fill)."""
    east = generators
    west = generators
    south = generators
    north = generators
    for _ in range(6):
        east |= ((east << 1) & ~COL0) & empty
        west |= ((west >> 1) & ~COL6) & empty
        south |= ((south << 7) & FULL) & empty
        north |= (north >> 7) & empty
    return (east | west | south | north) & empty


@njit(cache=True, inline="always")
def _piece_reach(st: np.ndarray, piece: int, occupied: np.int64) -> np.int64:
    """Cells one piece can move to (specials only for the King)."""
    origin = st[PIECE + piece]
    reach = np.int64(0)
    if origin < 0:
        return reach
    for direction in range(4):
        ray = RAYS[direction, origin]
        blockers = ray & occupied
        if blockers == 0:
            reach |= ray
        elif direction == 1 or direction == 3:
            reach |= ray & ((blockers & -blockers) - 1)
        else:
            x = blockers
            x |= x >> 1
            x |= x >> 2
            x |= x >> 4
            x |= x >> 8
            x |= x >> 16
            x |= x >> 32
            reach |= ray & ~x
    if piece != 0:
        reach &= ~SPECIAL_MASK
    return reach


@njit(cache=True, inline="always")
def _lowest(x: np.int64) -> int:
    """The index of the lowest set bit of a non-zero mask."""
    return _popcount((x & -x) - 1)


@njit(cache=True)
def corner_paths(st: np.ndarray, occupied: np.int64, raven_reach: np.ndarray) -> tuple[int, int, int]:
    """(sum over corners of 4 minus the King's moves to it, capped at 0 beyond three moves;
    ravens able to block a corner's shortest paths next move, summed over corners within three;
    corners within two moves that no raven can block).

    Layers of a breadth-first search over King slides through empty squares:
    ``k1``/``k2`` the cells first reached in one/two moves. A shortest path to
    a corner at distance d stops on ``k_i & c_(d-i)``, ``c_j`` being the cells
    j slides from the corner (slides are symmetric). A raven blocks it by
    landing on a stop or on the empty run beside the corner.
    """
    king = st[PIECE]
    king_bit = np.int64(1) << king
    empty = FULL & ~occupied
    free = empty | king_bit          # the King's square is empty once he moves
    k1 = _slides(king_bit, empty)
    k2 = _slides(k1, free) & ~k1 & ~king_bit
    k3 = _slides(k2, free) & ~k2 & ~k1 & ~king_bit
    total = 0
    guards = 0
    unguarded = 0
    for c in range(4):
        corner = np.int64(1) << CORNER_CELLS[c]
        if k1 & corner:
            distance = 1
        elif k2 & corner:
            distance = 2
        elif k3 & corner:
            distance = 3
        else:
            continue
        total += 4 - distance
        cell = CORNER_CELLS[c]
        c1 = _slides(corner, free) & ~corner
        if distance == 1:
            path = BETWEEN[king, cell]
        else:
            # the stops one slide from the corner, with the run each then slides along
            last = c1 & (k1 if distance == 2 else k2)
            path = last
            x = last
            while x:
                stop = _lowest(x)
                path |= BETWEEN[stop, cell]
                if distance == 2:
                    path |= BETWEEN[king, stop]
                x &= x - 1
            if distance == 3:
                path |= k1 & (_slides(c1, free) & ~c1 & ~corner)
        blockers = 0
        for r in range(raven_reach.shape[0]):
            if raven_reach[r] & path:
                blockers += 1
        guards += blockers
        if blockers == 0 and distance <= 2:
            unguarded += 1
    return total, guards, unguarded


@njit(cache=True)
def _corner_line_open(st: np.ndarray, cell: int) -> int:
    """Corners reachable from ``cell`` in one slide along the edge lines."""
    found = 0
    row = cell // 7
    col = cell % 7
    for direction in range(4):
        if direction < 2 and col != 0 and col != 6:
            continue
        if direction >= 2 and row != 0 and row != 6:
            continue
        step = NEIGHBOUR[cell, direction]
        while step >= 0 and st[step] < 0:
            if IS_CORNER[step] == 1:
                found += 1
                break
            step = NEIGHBOUR[step, direction]
    return found


@njit(cache=True, inline="always")
def _pinch_pairs(flankers: np.int64, targets: np.int64):
    """Cells with a flanker on one side and a target square opposite, per line orientation:
    (flanker west, flanker east, flanker north, flanker south)."""
    east_f = (flankers << 1) & ~COL0 & FULL
    west_f = (flankers >> 1) & ~COL6
    east_t = (targets << 1) & ~COL0 & FULL
    west_t = (targets >> 1) & ~COL6
    south_f = (flankers << 7) & FULL
    north_f = flankers >> 7
    south_t = (targets << 7) & FULL
    north_t = targets >> 7
    return east_f & west_t, west_f & east_t, south_f & north_t, north_f & south_t


@njit(cache=True, inline="always")
def _pinchable(victims: np.int64, flankers: np.int64, targets: np.int64) -> np.int64:
    """Victims with a flanker on one side of a line and a reachable empty square opposite."""
    a, b, c, d = _pinch_pairs(flankers, targets)
    return victims & (a | b | c | d)


@njit(cache=True)
def evaluate(st: np.ndarray, weights: np.ndarray) -> float:
    """The weighted features of an open position, from the King's side's view."""
    king = st[PIECE]
    king_row = king // 7
    king_col = king % 7
    distance = 12
    for corner in CORNER_CELLS:
        d = abs(king_row - corner // 7) + abs(king_col - corner % 7)
        if d < distance:
            distance = d
    open_corners = 0
    routes = 0
    king_moves = 0
    for direction in range(4):
        cell = NEIGHBOUR[king, direction]
        while cell >= 0 and st[cell] < 0:
            king_moves += 1
            if IS_CORNER[cell] == 1:
                open_corners += 1
            elif _corner_line_open(st, cell) > 0:
                routes += 1
            cell = NEIGHBOUR[cell, direction]
    guards = 0
    blocked = 0
    for c in range(4):
        here = 0
        for k in range(2):
            if st[CORNER_NEIGHBOURS[c, k]] >= core.FIRST_RAVEN:
                here += 1
        guards += here
        if here == 2:
            blocked += 1
    king_side = np.int64(0)
    ravens = np.int64(0)
    for piece in range(core.PIECES):
        cell = st[PIECE + piece]
        if cell >= 0:
            if piece < core.FIRST_RAVEN:
                king_side |= np.int64(1) << cell
            else:
                ravens |= np.int64(1) << cell
    king_bit = np.int64(1) << king
    empty = FULL & ~(king_side | ravens)
    hostile = np.int64(CORNER_MASK)
    if st[core.THRONE] < 0:
        hostile |= THRONE_BIT
    adjacent = 0
    for direction in range(4):
        cell = NEIGHBOUR[king, direction]
        if cell >= 0 and st[cell] >= core.FIRST_RAVEN:
            adjacent += 1
    king_reach, king_side_moves = _reach(st, 0, king_side | ravens)
    occupied = king_side | ravens
    raven_reach_each = np.empty(core.PIECES - core.FIRST_RAVEN, dtype=np.int64)
    raven_reach = np.int64(0)
    raven_moves = 0
    for piece in range(core.FIRST_RAVEN, core.PIECES):
        reach = _piece_reach(st, piece, occupied)
        raven_reach_each[piece - core.FIRST_RAVEN] = reach
        raven_reach |= reach
        raven_moves += _popcount(reach)
    raven_flank = ravens | hostile
    raven_targets = empty & raven_reach
    danger = 0
    for pair in _pinch_pairs(raven_flank, raven_targets):
        if pair & king_bit:
            danger += 1
    defenders_threatened = _popcount(_pinchable(king_side & ~king_bit, raven_flank, raven_targets))
    ravens_threatened = _popcount(_pinchable(ravens, king_side | hostile, empty & king_reach))
    on_edge = 1 if king_bit & EDGE_MASK else 0
    paths, path_guards, unguarded = corner_paths(st, occupied, raven_reach_each)
    shields = 0
    for direction in range(4):
        cell = NEIGHBOUR[king, direction]
        if cell >= 0 and 0 < st[cell] < core.FIRST_RAVEN:
            shields += 1
    return (weights[W_KING_CORNER_PATHS] * paths
            + weights[W_CORNER_PATH_GUARDS] * path_guards
            + weights[W_UNGUARDED_CORNER_PATHS] * unguarded
            + weights[W_KING_SHIELDS] * shields
            + weights[W_KING_CORNER_DISTANCE] * distance
            + weights[W_KING_OPEN_CORNERS] * open_corners
            + weights[W_KING_ESCAPE_ROUTES] * routes
            + weights[W_CORNER_GUARDS] * guards
            + weights[W_BLOCKED_CORNERS] * blocked
            + weights[W_RAVENS_ADJACENT_KING] * adjacent
            + weights[W_KING_IN_DANGER] * danger
            + weights[W_DEFENDERS] * st[core.DEFENDERS]
            + weights[W_RAVENS_TAKEN] * (8 - st[core.RAVENS])
            + weights[W_DEFENDERS_THREATENED] * defenders_threatened
            + weights[W_RAVENS_THREATENED] * ravens_threatened
            + weights[W_KING_MOBILITY] * king_moves
            + weights[W_MOBILITY] * (king_side_moves - raven_moves)
            + weights[W_KING_ON_EDGE] * on_edge
            + weights[W_MOVES_PLAYED] * st[core.MOVES])


@njit(cache=True, inline="always")
def open_value(st: np.ndarray, weights: np.ndarray) -> float:
    """The search's value of an open position for the King's side: ``evaluate`` within +-EVALUATION_BOUND."""
    return min(max(evaluate(st, weights), -EVALUATION_BOUND), EVALUATION_BOUND)


@njit(cache=True)
def _captures(st: np.ndarray, move: int) -> int:
    """How many pieces ``move`` captures (for ordering); an escape counts as 10.

    Read before the move: the square the mover leaves is never the enemy nor
    the flanker of one of its captures (a flanker behind the landing square
    would have blocked the slide), so the board before the slide gives the
    same answer as the board after it.
    """
    origin = move >> 6
    target = move & 63
    piece = st[origin]
    if piece == 0 and IS_CORNER[target] == 1:
        return 10
    side = core.side_of(piece)
    count = 0
    for direction in range(4):
        if core.pinched(st, target, side, direction) >= 0:
            count += 1
    return count


@njit(cache=True)
def _wins_now(st: np.ndarray, move: int, undo: np.ndarray, quiet_may_stall: bool) -> bool:
    """Whether ``move`` ends the game at once in its mover's favour: an escape, the King's capture, or
    the opponent left without a legal move (step 7).

    A move that captures nothing takes at most 24 moves from the opponent (it blocks the one square it
    lands on, at most six squares on each of its four lines), so only when the opponent has at most 24
    (``quiet_may_stall``) is a quiet move played out to see whether it stalls the opponent.
    """
    origin = move >> 6
    target = move & 63
    side = core.side_of(st[origin])
    if side == 0 and st[origin] == 0 and IS_CORNER[target] == 1:
        return True
    captures = 0
    for direction in range(4):
        cell = core.pinched(st, target, side, direction)
        if cell >= 0:
            if st[cell] == 0:
                return True
            captures += 1
    if captures == 0 and not quiet_may_stall:
        return False
    core.make(st, move, undo)
    status = st[core.STATUS]
    core.unmake(st, undo)
    return status == core.END_RAVENS_NO_MOVES or status == core.END_KING_SIDE_NO_MOVES


# A move that captures nothing takes at most this many legal moves from the opponent (``_wins_now``).
QUIET_STALL_LIMIT = 24


@njit(cache=True)
def _score_moves(st, moves, keys, first, count, tt_move, killers, history, ply):
    """Ordering keys: the table's move, captures (an escape first), killers, history."""
    side = st[core.SIDE]
    for i in range(count):
        m = moves[first + i]
        if m == tt_move:
            keys[first + i] = 1e12
            continue
        c = _captures(st, m)
        if c > 0:
            keys[first + i] = 1e9 * c
        elif m == killers[ply, 0]:
            keys[first + i] = 9e8
        elif m == killers[ply, 1]:
            keys[first + i] = 8e8
        else:
            keys[first + i] = history[side, m]


@njit(cache=True, inline="always")
def _pick(moves, keys, first, i, count):
    """Swap the best-keyed remaining move into place ``i`` (lazy selection sort)."""
    best = i
    for j in range(i + 1, count):
        if keys[first + j] > keys[first + best]:
            best = j
    if best != i:
        m = moves[first + i]
        moves[first + i] = moves[first + best]
        moves[first + best] = m
        k = keys[first + i]
        keys[first + i] = keys[first + best]
        keys[first + best] = k
    return moves[first + i]


@njit(cache=True)
def _probe(tt_entry, tt_value, key, slot, age, depth, alpha, beta, reduced):
    """(table move or -1, cut-off value or NaN) for one position.

    Below a reduced move (``reduced``) only an entry searched with no reduction inside cuts off: an
    entry of an unreduced path may hold a reduction of its own, and two on one path lose two plies.
    """
    data = tt_entry[slot, 1]
    if tt_entry[slot, 0] != key or (data >> 22) != age:
        return -1, np.nan
    move = data & 4095
    if (data >> 12) & 127 >= depth and (not reduced or (data >> 21) & 1 == 1):
        value = tt_value[slot]
        flag = (data >> 19) & 3
        if flag == EXACT or (flag == LOWER and value >= beta) or (flag == UPPER and value <= alpha):
            return move, value
    return move, np.nan


ENTER, NEXT, RETURN = 0, 1, 2
EPSILON = 1e-6          # the width of a null window (values are sums of weights, far coarser)
QUIESCENCE_PLIES = 6    # captures searched beyond the horizon at most
ASPIRATION = 20.0       # half-width of the root's first window around the last iteration's value
# techniques, as bits of ``techniques`` (DEFAULT_TECHNIQUES unless told; each can be turned off to measure it)
PVS, LMR, QUIESCENCE, ASPIRATE, KEEP_PV, PARTIAL, EXACT_LMR = 1, 2, 4, 8, 16, 32, 64
ALL_TECHNIQUES = PVS | LMR | QUIESCENCE | ASPIRATE | KEEP_PV | PARTIAL | EXACT_LMR
TECHNIQUES = {"pvs": PVS, "lmr": LMR, "quiescence": QUIESCENCE, "aspiration": ASPIRATE, "keep_pv": KEEP_PV,
              "partial": PARTIAL, "exact_lmr": EXACT_LMR}
# what ``alphabeta`` (and ``strong``) uses: every technique, each kept for a paired gain (docs/players.md).
# ``exact_lmr`` (one reduction a path, the horizon below it settling wins at once) joined without a match:
# a search that hides a forced win inside its depth is wrong, whatever it gains. Without it the search is
# the one of before (``LOOSE_TECHNIQUES``), so games stored then still replay under their explicit spec.
LOOSE_TECHNIQUES = PVS | LMR | QUIESCENCE | ASPIRATE | KEEP_PV | PARTIAL
DEFAULT_TECHNIQUES = ALL_TECHNIQUES
LMR_DEPTH = 3           # reduce late quiet moves only this far from the horizon or more
LMR_AFTER = 3           # ... after this many moves of the node


@njit(cache=True)
def _store(tt_entry, tt_value, key, age, flag, depth, move, value, keep_pv, unreduced):
    """Write a table entry; with ``keep_pv`` an exact entry of this search is only replaced by a
    deeper or exact one, so the principal variation survives the null-window searches.

    ``unreduced``: the entry was searched below a reduced move, so with no reduction inside it.
    """
    slot = key & ((1 << TT_BITS) - 1)
    if keep_pv:
        data = tt_entry[slot, 1]
        if (data >> 22) == age and ((data >> 19) & 3) == EXACT and flag != EXACT and \
                ((data >> 12) & 127) > depth:
            return
    tt_entry[slot, 0] = key
    tt_entry[slot, 1] = (age << 22) | (unreduced << 21) | (flag << 19) | (min(depth, 127) << 12) | move
    tt_value[slot] = value


@njit(cache=True)
def _negamax(st, depth, alpha, beta, side, weights, moves, keys, undos, killers, history,
             tt_entry, tt_value, age, counters, node_limit, techniques):
    """Negamax alpha-beta below one root move, on an explicit stack.

    Iterative rather than recursive because numba's cache cannot reload
    recursive functions (numba issue #6061). Frame ``ply`` (from 1) holds the
    node's window, its moves in ``moves[ply * MAX_MOVES:]`` and its undo record.

    Techniques (bits of ``techniques``): principal-variation search (every
    move after the first gets a null window first and a full one only if it
    may be better), late-move reductions (quiet late moves searched a ply
    shallower first, again at full depth if they beat alpha; one at most on a
    path, and the horizon below one settles the moves that win at once: see
    the module docstring), quiescence (at the horizon: the evaluation or a
    capture or escape, whichever is better, up to ``QUIESCENCE_PLIES`` captures
    deep) and a table that keeps the PV.
    """
    size = MAX_DEPTH + QUIESCENCE_PLIES + 2
    f_depth = np.empty(size, dtype=np.int64)
    f_alpha = np.empty(size, dtype=np.float64)
    f_beta = np.empty(size, dtype=np.float64)
    f_original = np.empty(size, dtype=np.float64)
    f_best = np.empty(size, dtype=np.float64)
    f_best_move = np.empty(size, dtype=np.int64)
    f_index = np.empty(size, dtype=np.int64)
    f_count = np.empty(size, dtype=np.int64)
    f_key = np.empty(size, dtype=np.int64)
    f_side = np.empty(size, dtype=np.int64)
    f_stage = np.zeros(size, dtype=np.int64)    # how the current child is searched: 0 full, 1 null
                                                 # window reduced, 2 null window, 3 full after a null
    f_reduced = np.zeros(size, dtype=np.int64)  # 1 below a reduced move: no second reduction on the path
    pvs = (techniques & PVS) != 0
    lmr = (techniques & LMR) != 0
    quiescence = (techniques & QUIESCENCE) != 0
    keep_pv = (techniques & KEEP_PV) != 0
    exact_lmr = (techniques & EXACT_LMR) != 0
    ply = 1
    f_depth[1] = depth
    f_alpha[1] = alpha
    f_beta[1] = beta
    f_side[1] = side
    mode = ENTER
    value = 0.0
    while True:
        if mode == ENTER:
            if node_limit > 0 and counters[0] >= node_limit:
                counters[1] = 1
                for back in range(ply - 1, 0, -1):
                    core.unmake(st, undos[back])
                return 0.0
            counters[0] += 1
            if st[core.STATUS] != PLAYING:
                value = terminal_value(st, weights)
                value = value if f_side[ply] == 0 else -value
                mode = RETURN
                continue
            first = ply * core.MAX_MOVES
            if f_depth[ply] <= 0:
                value = open_value(st, weights)
                value = value if f_side[ply] == 0 else -value
                # below a reduced move the horizon gives back the ply the reduction took, for the moves
                # that win at once; quiescence adds the captures (an escape and the King's capture among them)
                settle = f_reduced[ply] == 1 and f_depth[ply] == 0
                if (not quiescence and not settle) or value >= f_beta[ply] or f_depth[ply] <= -QUIESCENCE_PLIES \
                        or ply >= size - 2:
                    mode = RETURN
                    continue
                count = core.generate(st, moves[first:first + core.MAX_MOVES])
                quiet_may_stall = settle and core.count_moves(st, 1 - f_side[ply], QUIET_STALL_LIMIT + 1) \
                    <= QUIET_STALL_LIMIT
                kept = 0
                for i in range(count):
                    m = moves[first + i]
                    c = _captures(st, m) if quiescence else 0
                    # (with quiescence the captures hold every escape and King's capture already)
                    if c == 0 and settle and (quiet_may_stall or not quiescence) \
                            and _wins_now(st, m, undos[ply], quiet_may_stall):
                        c = 10
                    if c > 0:
                        moves[first + kept] = m
                        keys[first + kept] = c
                        kept += 1
                if kept == 0:
                    mode = RETURN
                    continue
                f_count[ply] = kept
                f_index[ply] = 0
                f_best[ply] = value
                f_best_move[ply] = -1
                f_original[ply] = f_alpha[ply]
                if value > f_alpha[ply]:
                    f_alpha[ply] = value
                f_key[ply] = -1
                mode = NEXT
                continue
            key = st[core.HASH] ^ PLY_KEYS[st[core.PLY]]
            f_key[ply] = key
            table_move, cut = _probe(tt_entry, tt_value, key, key & ((1 << TT_BITS) - 1), age, f_depth[ply],
                                     f_alpha[ply], f_beta[ply], f_reduced[ply] == 1)
            if not np.isnan(cut):
                value = cut
                mode = RETURN
                continue
            count = core.generate(st, moves[first:first + core.MAX_MOVES])
            _score_moves(st, moves, keys, first, count, table_move, killers, history, ply)
            f_count[ply] = count
            f_index[ply] = 0
            f_best[ply] = -INFINITY
            f_best_move[ply] = -1
            f_original[ply] = f_alpha[ply]
            mode = NEXT
        elif mode == NEXT:
            i = f_index[ply]
            if i >= f_count[ply]:
                best = f_best[ply]
                if f_key[ply] != -1:
                    flag = EXACT
                    if best <= f_original[ply]:
                        flag = UPPER
                    elif best >= f_beta[ply]:
                        flag = LOWER
                    _store(tt_entry, tt_value, f_key[ply], age, flag, f_depth[ply], f_best_move[ply], best,
                           keep_pv, f_reduced[ply])
                value = best
                mode = RETURN
                continue
            m = _pick(moves, keys, ply * core.MAX_MOVES, i, f_count[ply])
            core.make(st, m, undos[ply])
            stage = 0
            child_depth = f_depth[ply] - 1
            if pvs and i > 0 and f_depth[ply] > 0:
                stage = 2
                if lmr and i >= LMR_AFTER and f_depth[ply] >= LMR_DEPTH and keys[ply * core.MAX_MOVES + i] < 8e8 \
                        and f_reduced[ply] == 0:
                    stage = 1
                    child_depth -= 1
            f_stage[ply] = stage
            f_reduced[ply + 1] = 1 if stage == 1 and exact_lmr else f_reduced[ply]
            f_depth[ply + 1] = child_depth
            if stage == 0:
                f_alpha[ply + 1] = -f_beta[ply]
            else:
                f_alpha[ply + 1] = -f_alpha[ply] - EPSILON
            f_beta[ply + 1] = -f_alpha[ply]
            f_side[ply + 1] = 1 - f_side[ply]
            ply += 1
            mode = ENTER
        else:  # RETURN: hand ``value`` to the parent frame
            if ply == 1:
                return value
            ply -= 1
            value = -value
            stage = f_stage[ply]
            if (stage == 1 and value > f_alpha[ply]) or (stage == 2 and f_alpha[ply] < value < f_beta[ply]):
                # the null-window guess failed high: search the move again, deeper or wider
                f_stage[ply] = 2 if stage == 1 else 3
                f_reduced[ply + 1] = f_reduced[ply]
                f_depth[ply + 1] = f_depth[ply] - 1
                f_alpha[ply + 1] = -f_alpha[ply] - EPSILON if stage == 1 else -f_beta[ply]
                f_beta[ply + 1] = -f_alpha[ply]
                f_side[ply + 1] = 1 - f_side[ply]
                ply += 1
                mode = ENTER
                continue
            core.unmake(st, undos[ply])
            m = moves[ply * core.MAX_MOVES + f_index[ply]]
            f_index[ply] += 1
            mode = NEXT
            if value > f_best[ply]:
                f_best[ply] = value
                f_best_move[ply] = m
                if value > f_alpha[ply]:
                    f_alpha[ply] = value
                    if value >= f_beta[ply]:
                        if f_depth[ply] > 0 and _captures(st, m) == 0:
                            if killers[ply, 0] != m:
                                killers[ply, 1] = killers[ply, 0]
                                killers[ply, 0] = m
                            history[f_side[ply], m] += f_depth[ply] * f_depth[ply]
                        f_index[ply] = f_count[ply]   # cut-off: no more moves here


@njit(cache=True)
def search_depth(st, root_moves, depth, weights, killers, history, tt_entry, tt_value, age, counters,
                 node_limit, techniques, guess):
    """One iteration at ``depth`` over ``root_moves`` in their given order.

    With aspiration (a bit of ``techniques``) the first window is ``guess``
    plus or minus ``ASPIRATION``, widened to the full window when the value
    falls outside; with PVS every root move after the first gets a null
    window first.

    Returns (index of the best root move, its value, whether that move is
    proven at this depth); ``counters[1]`` is set when the node limit stopped
    the iteration early. A stopped iteration's move is proven when it is not
    the first (the last iteration's best, searched first) and its value was
    searched to the end inside the window: it beats the first move at this
    depth, which is what ``partial`` plays.
    """
    size = (MAX_DEPTH + QUIESCENCE_PLIES + 2) * core.MAX_MOVES
    moves = np.empty(size, dtype=np.int64)
    keys = np.empty(size, dtype=np.float64)
    undos = np.empty((MAX_DEPTH + QUIESCENCE_PLIES + 2, core.UNDO_SIZE), dtype=np.int64)
    side = st[core.SIDE]
    pvs = (techniques & PVS) != 0
    low, high = -INFINITY, INFINITY
    if (techniques & ASPIRATE) != 0 and depth > 1:
        low, high = guess - ASPIRATION, guess + ASPIRATION
    while True:
        alpha = low
        best_index = 0
        best = -INFINITY
        for i in range(root_moves.shape[0]):
            core.make(st, root_moves[i], undos[0])
            if pvs and i > 0:
                value = -_negamax(st, depth - 1, -alpha - EPSILON, -alpha, 1 - side, weights, moves, keys, undos,
                                  killers, history, tt_entry, tt_value, age, counters, node_limit, techniques)
                if counters[1] == 0 and value > alpha and value < high:
                    value = -_negamax(st, depth - 1, -high, -alpha, 1 - side, weights, moves, keys, undos,
                                      killers, history, tt_entry, tt_value, age, counters, node_limit,
                                      techniques)
            else:
                value = -_negamax(st, depth - 1, -high, -alpha, 1 - side, weights, moves, keys, undos, killers,
                                  history, tt_entry, tt_value, age, counters, node_limit, techniques)
            core.unmake(st, undos[0])
            if counters[1] == 1:
                return best_index, best, best_index != 0 and best > low and best < high
            if value > best:
                best = value
                best_index = i
            if value > alpha:
                alpha = value
                if value >= high:
                    break
        if (best <= low and low > -INFINITY) or (best >= high and high < INFINITY):
            low, high = -INFINITY, INFINITY   # outside the aspiration window: search again, fully
            continue
        return best_index, best, True


class _Tables:
    """The transposition table and ordering tables, allocated once per process."""

    def __init__(self) -> None:
        size = 1 << TT_BITS
        self.entry = np.zeros((size, 2), dtype=np.int64)   # key; age, flag, depth and move packed
        self.value = np.zeros(size, dtype=np.float64)
        self.generation = 0


_TABLES: _Tables | None = None


def _tables() -> _Tables:
    global _TABLES
    if _TABLES is None:
        _TABLES = _Tables()
    return _TABLES


def search(rules: Rules, state: State, weights: np.ndarray, *, depth: int | None = None,
           nodes: int | None = None, deadline: float | None = None, seed: int = 0,
           techniques: int = DEFAULT_TECHNIQUES) -> SearchResult:
    """Search the side to move's best action.

    Args:
        rules: the Ravenward rules.
        state: an open position.
        weights: float64 weights in ``FEATURES`` order (``weight_vector``).
        depth: deepest iteration in plies (default 4 when no other limit is given).
        nodes: node budget (deterministic); the last finished iteration decides.
        deadline: a ``time.monotonic()`` instant (live play only).
        seed: breaks ties between equally valued root moves.
        techniques: bits of ``TECHNIQUES`` to use (``DEFAULT_TECHNIQUES`` unless told; turning one off
            measures it).

    Returns:
        The chosen action, its value for the side to move, the depth of the
        last finished iteration and the nodes searched.

    Raises:
        IllegalAction: the game is over.
    """
    if rules.is_terminal(state):
        raise IllegalAction("the game is over: there is nothing to search")
    st = to_array(state)
    buffer = np.empty(core.MAX_MOVES, dtype=np.int64)
    count = core.generate(st, buffer)
    root = buffer[:count].copy()
    root.sort()
    order = list(range(count))
    random.Random(seed).shuffle(order)
    root = root[order]
    # captures and escapes first, stable so the seeded order breaks ties
    gains = np.array([core_captures(st, m) for m in root])
    root = root[np.argsort(-gains, kind="stable")]
    max_depth = depth if depth is not None else (MAX_DEPTH if nodes is not None or deadline is not None else 4)
    max_depth = max(1, min(int(max_depth), MAX_DEPTH))
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    tables = _tables()
    tables.generation += 1
    killers = np.zeros((MAX_DEPTH + QUIESCENCE_PLIES + 2, 2), dtype=np.int64)
    history = np.zeros((2, 64 * 64), dtype=np.float64)
    counters = np.zeros(2, dtype=np.int64)
    best_move, best_value, finished = int(root[0]), 0.0, 0
    started = time.monotonic()
    for iteration in range(1, max_depth + 1):
        budget = nodes if nodes is not None else 0
        if deadline is not None and iteration > 1:   # depth 1 always finishes: it costs a few nodes
            now = time.monotonic()
            if now >= deadline:
                break
            rate = max(counters[0] / max(now - started, 1e-6), 1e5)
            timed = int(counters[0] + max(deadline - now, 0.0) * rate) + 1
            budget = timed if budget == 0 else min(budget, timed)
        counters[1] = 0
        index, value, proven = search_depth(st, root, iteration, weights, killers, history, tables.entry,
                                            tables.value, tables.generation, counters, budget, int(techniques),
                                            best_value)
        if counters[1] == 1:
            if techniques & PARTIAL and proven:  # a move of the unfinished iteration beat the last one's best
                best_move, best_value = int(root[index]), float(value)
            break
        best_move, best_value, finished = int(root[index]), float(value), iteration
        root = np.concatenate((root[index:index + 1], np.delete(root, index)))
    return SearchResult(action=decode(best_move), value=best_value, depth=finished, nodes=int(counters[0]))


def core_captures(st: np.ndarray, move: int) -> int:
    """Pieces ``move`` would capture in ``st`` (an escape counts 10): the root's first ordering."""
    return int(_captures(st, int(move)))


@njit(cache=True)
def _rollout(st: np.ndarray, seed: int) -> int:
    np.random.seed(seed)
    moves = np.empty(core.MAX_MOVES, dtype=np.int64)
    undo = np.empty(core.UNDO_SIZE, dtype=np.int64)
    core.random_game(st, moves, undo)
    return core.score(st)


def static_value(rules: Rules, state: State, weights: np.ndarray) -> float:
    """The evaluation of an open position for the side to move, without search: what ``harness fit`` regresses.

    The search's leaf evaluation before its clamp to +-``EVALUATION_BOUND`` (the King's side's view,
    negated for the ravens): the fit needs the slope the clamp would flatten, and weights near the
    defaults stay far inside the bound.
    """
    value = float(evaluate(to_array(state), np.ascontiguousarray(weights, dtype=np.float64)))
    return value if state.side == 0 else -value


def rollout(rules: Rules, state: State, seed: int) -> tuple[str, float]:
    """A seeded uniformly random playout to the end on the fast path.

    Returns:
        The King's side's result (win/draw/loss) and its documented score.
    """
    st = to_array(state)
    score = _rollout(st, int(seed) % (2**32))
    return core.RESULTS[int(st[core.STATUS])], float(score)
