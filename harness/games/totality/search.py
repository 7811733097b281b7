"""Compiled alpha-beta for Totality: negamax on bitboards, a perfect endgame solver, G-Bot stand-ins.

One compiled negamax serves two purposes:

- the midgame search: iterative deepening to a depth, node or time bound,
  with a transposition table keyed by the two bitboards (hashed with a
  multiply-xorshift mix and verified on the full boards, so a collision can
  never return a wrong value), move ordering by the table's best move, then
  fastest-first (fewest replies) at depth >= 3, then history and a static
  square order; leaves scored by the weighted features of
  ``harness.games.totality.features``; principal-variation search, aspiration
  windows at the root and a table that keeps the PV (``TECHNIQUES``,
  switchable with ``techniques``; the G-Bot stand-ins use none of them);
- the endgame solver: when at most ``endgame`` cells are empty at the root,
  the same negamax runs to the end of the game with no evaluation at all, so
  its result is exact.

Terminal positions are scored as ``+-DECIDED + lead`` (lead = the mover's
discs minus the opponent's; 0 for a draw). For the Sun that orders every
finish exactly as the documented score does (any win beats a draw beats any
loss; among wins the score 100 + 5 x lead, scaled and floored, grows with the
lead, so the search maximises the score), and the Moon, by symmetry,
maximises its own lead. Heuristic values stay within +-DECIDED/2, so a
proven result always outranks a guess.

The tree is walked with explicit per-ply frames rather than recursion:
numba cannot cache recursive functions, and caching is what keeps a fresh
process from compiling the search for seconds.

Ties between equally valued root moves fall to the order of a seeded shuffle
of the root moves (the previous iteration's best first), so a search is a
pure function of (position, weights, limits, seed); only a ``deadline`` makes
it depend on the clock.
"""

from __future__ import annotations

import random
import time

import numpy as np
from numba import njit

from harness.errors import IllegalAction, InvalidInput
from harness.games import Action, Rules, State
from harness.games.totality._kernels import (
    NOT_COL_0, NOT_COL_7, ONE, S1, S8, ZERO, flips, lowest_bit, monotonic_ns, moves, popcount, random_playout,
)
from harness.games.gamekit import SearchResult, feature_index
from harness.games.totality.features import FEATURES, LADDER_DEFAULTS

PASS_MOVE = 64
DECIDED = 1.0e6
INFINITY = 1.0e12
EXACT_DEPTH = 200  # a depth no game can exhaust: the search runs to the end
EXACT_TABLE_EMPTIES = 5  # the solver skips the table this close to the end: probing costs more than it saves
MAX_PLY = 140  # at most 60 placements and a pass before each, plus slack
MAX_MOVES = 64
MAX_TABLE_BITS = 18  # 2**18 entries, about 8 MB
EXACT, LOWER, UPPER = 0, 1, 2
EPSILON = 1e-6  # the width of a null window (values are sums of weights, far coarser)
ASPIRATION = 30.0  # half-width of the root's first window around the last iteration's value
# techniques, as bits of ``techniques`` (all on by default; each can be turned off to measure it).
# No late-move reductions or null moves: a placement has no "quiet" kind and passing is a real move.
PVS, ASPIRATE, KEEP_PV = 1, 2, 4
ALL_TECHNIQUES = PVS | ASPIRATE | KEEP_PV
TECHNIQUES = {"pvs": PVS, "aspiration": ASPIRATE, "keep_pv": KEEP_PV}
# What ``alphabeta`` (and so ``strong``) uses unless told: none, as a paired match of all against none
# at 100,000 nodes per move came out even (docs/players.md, Search techniques).
DEFAULT_TECHNIQUES = 0
DEFAULT_DEPTH = 4
DEFAULT_ENDGAME = 12  # solve exactly with at most this many empty cells (well under a second)
TIME_DEPTH_CAP = 60  # iterative deepening with only a time or node bound stops here

# The classic square values of Othello programs (corners 100, X-squares -50, C-squares -20, ...).
SQUARE_VALUES = np.array([
    100, -20, 10, 5, 5, 10, -20, 100,
    -20, -50, -2, -2, -2, -2, -50, -20,
    10, -2, -1, -1, -1, -1, -2, 10,
    5, -2, -1, -1, -1, -1, -2, 5,
    5, -2, -1, -1, -1, -1, -2, 5,
    10, -2, -1, -1, -1, -1, -2, 10,
    -20, -50, -2, -2, -2, -2, -50, -20,
    100, -20, 10, 5, 5, 10, -20, 100,
], dtype=np.int64)


def _mask(squares) -> np.uint64:
    return np.uint64(sum(1 << s for s in squares))


def _value_masks():
    values = sorted(set(SQUARE_VALUES.tolist()))
    return (np.array(values, dtype=np.float64),
            np.array([_mask(i for i in range(64) if SQUARE_VALUES[i] == v) for v in values], dtype=np.uint64))


VALUE_WEIGHTS, VALUE_MASKS = _value_masks()
CORNER_CELLS = np.array([0, 7, 56, 63], dtype=np.int64)
CORNERS = _mask([0, 7, 56, 63])
X_SQUARES = np.array([1 << 9, 1 << 14, 1 << 49, 1 << 54], dtype=np.uint64)  # per corner, same order
C_SQUARES = np.array([(1 << 1) | (1 << 8), (1 << 6) | (1 << 15), (1 << 57) | (1 << 48),
                      (1 << 62) | (1 << 55)], dtype=np.uint64)
ROW_TOP, ROW_BOTTOM = _mask(range(8)), _mask(range(56, 64))
COL_LEFT, COL_RIGHT = _mask(range(0, 64, 8)), _mask(range(7, 64, 8))
EDGES = np.uint64((int(ROW_TOP) | int(ROW_BOTTOM) | int(COL_LEFT) | int(COL_RIGHT)) & ~int(CORNERS))
EDGE_LINES = np.array([ROW_TOP, ROW_BOTTOM, COL_LEFT, COL_RIGHT], dtype=np.uint64)

# Feature indices, by name from the declared order of harness.games.totality.features.FEATURES.
INDEX = feature_index(FEATURES)
W_MOBILITY, W_POTENTIAL, W_FRONTIER, W_CORNERS = (INDEX[n] for n in ("mobility", "potential_mobility", "frontier",
                                                                    "corners"))
W_X, W_C, W_STABILITY, W_EDGES, W_PARITY = (INDEX[n] for n in ("x_squares", "c_squares", "stability", "edges",
                                                               "parity"))
W_DISCS_LATE, W_POSITIONAL, W_DISCS = (INDEX[n] for n in ("discs_late", "positional", "discs"))
FEATURE_COUNT = len(FEATURES)


@njit
def _count(mask):
    return np.int64(popcount(mask))


@njit
def _neighbours(mask):
    """Cells next to (in the eight directions) any cell of ``mask``, including ``mask`` itself."""
    row = mask | ((mask << S1) & NOT_COL_0) | ((mask >> S1) & NOT_COL_7)
    return row | (row << S8) | (row >> S8)


@njit
def _edge_run(discs, start, shift, upward):
    """Cells of ``discs`` from ``start`` along an edge without a gap (start excluded), 7 steps at most."""
    run = ZERO
    cell = start
    for _ in range(7):
        cell = (cell << shift) if upward else (cell >> shift)
        if cell & discs:
            run |= cell
        else:
            break
    return run


@njit
def _stable(discs, occupied):
    """Discs that can never flip: edge runs from an owned corner, and discs on a full edge."""
    stable = ZERO
    if discs & ONE:
        stable |= ONE | _edge_run(discs, ONE, S1, True) | _edge_run(discs, ONE, S8, True)
    corner = ONE << np.uint64(7)
    if discs & corner:
        stable |= corner | _edge_run(discs, corner, S1, False) | _edge_run(discs, corner, S8, True)
    corner = ONE << np.uint64(56)
    if discs & corner:
        stable |= corner | _edge_run(discs, corner, S1, True) | _edge_run(discs, corner, S8, False)
    corner = ONE << np.uint64(63)
    if discs & corner:
        stable |= corner | _edge_run(discs, corner, S1, False) | _edge_run(discs, corner, S8, False)
    for line in EDGE_LINES:
        if occupied & line == line:
            stable |= discs & line
    return _count(stable)


@njit
def _features(player, opponent, out):
    """Fill ``out`` with every feature (mine minus theirs, from the side to move)."""
    occupied = player | opponent
    empty = ~occupied
    out[W_MOBILITY] = _count(moves(player, opponent)) - _count(moves(opponent, player))
    out[W_POTENTIAL] = _count(_neighbours(opponent) & empty) - _count(_neighbours(player) & empty)
    frontier = _neighbours(empty)
    out[W_FRONTIER] = _count(player & frontier) - _count(opponent & frontier)
    out[W_CORNERS] = _count(player & CORNERS) - _count(opponent & CORNERS)
    x_cells = ZERO
    c_cells = ZERO
    for i in range(4):
        if empty & (ONE << np.uint64(CORNER_CELLS[i])):
            x_cells |= X_SQUARES[i]
            c_cells |= C_SQUARES[i]
    out[W_X] = _count(player & x_cells) - _count(opponent & x_cells)
    out[W_C] = _count(player & c_cells) - _count(opponent & c_cells)
    out[W_STABILITY] = _stable(player, occupied) - _stable(opponent, occupied)
    out[W_EDGES] = _count(player & EDGES) - _count(opponent & EDGES)
    empties = _count(empty)
    out[W_PARITY] = 1.0 if empties & 1 else -1.0
    filled = 64 - empties
    late = (filled - 44) / 20.0 if filled > 44 else 0.0
    out[W_DISCS_LATE] = (_count(player) - _count(opponent)) * late
    positional = 0.0
    for i in range(len(VALUE_MASKS)):
        positional += VALUE_WEIGHTS[i] * (_count(player & VALUE_MASKS[i]) - _count(opponent & VALUE_MASKS[i]))
    out[W_POSITIONAL] = positional
    out[W_DISCS] = _count(player) - _count(opponent)


@njit(cache=True)
def feature_values(player, opponent):
    """The feature vector of a position from the mover's view (for tests and inspection)."""
    out = np.zeros(FEATURE_COUNT, dtype=np.float64)
    _features(player, opponent, out)
    return out


@njit
def _evaluate(player, opponent, weights, scratch):
    _features(player, opponent, scratch)
    value = 0.0
    for i in range(FEATURE_COUNT):
        value += weights[i] * scratch[i]
    limit = DECIDED / 2
    return min(max(value, -limit), limit)


@njit
def _lead_value(lead):
    """A finished game's value for a final disc lead: +-DECIDED plus the lead, 0 for a draw."""
    if lead > 0:
        return DECIDED + lead
    if lead < 0:
        return -DECIDED + lead
    return 0.0


@njit
def terminal_value(player, opponent):
    """A finished game from the mover's view: +-DECIDED plus the disc lead, 0 for a draw."""
    return _lead_value(_count(player) - _count(opponent))


@njit
def _last_empty_value(player, opponent, empty):
    """Exact value with one empty cell left: the mover fills it, else the opponent, else nobody."""
    square = lowest_bit(empty)
    mine, theirs = _count(player), _count(opponent)
    flipped = _count(flips(player, opponent, square))
    if flipped:
        return _lead_value(mine + flipped + 1 - (theirs - flipped))
    flipped = _count(flips(opponent, player, square))
    if flipped:
        return _lead_value(mine - flipped - (theirs + flipped + 1))
    return _lead_value(mine - theirs)


@njit
def _slot(player, opponent, mask):
    mixed = player * np.uint64(0x9E3779B97F4A7C15) ^ opponent * np.uint64(0xC2B2AE3D27D4EB4F)
    mixed ^= mixed >> np.uint64(29)
    return np.int64(mixed & mask)


@njit(cache=True)
def negamax(root_player, root_opponent, depth, root_moves, weights, table_player, table_opponent,
            table_value, table_depth, table_flag, table_move, history, control, deadline, techniques,
            root_alpha, root_beta):
    """Alpha-beta from the root over ``root_moves`` (searched in that order) to ``depth`` plies.

    ``control`` is int64[4]: nodes so far (cumulative, updated), the node
    limit (0: none), the abort flag (set when a limit hit: the result is
    then incomplete), and the best root move found. ``deadline`` is a
    ``time.monotonic_ns()`` instant, or 0 for none. The root's window is
    ``(root_alpha, root_beta)`` (an aspiration window, or infinite).
    ``techniques`` (bits of ``TECHNIQUES``): principal-variation search
    (every move after a node's first gets a null window first, and the full
    one again only if it may be better) and a table that keeps the PV (an
    exact entry is replaced only by an exact or deeper one). Returns the
    root's value.
    """
    frame_player = np.empty(MAX_PLY, dtype=np.uint64)
    frame_opponent = np.empty(MAX_PLY, dtype=np.uint64)
    frame_depth = np.empty(MAX_PLY, dtype=np.int64)
    frame_alpha = np.empty(MAX_PLY, dtype=np.float64)
    frame_beta = np.empty(MAX_PLY, dtype=np.float64)
    frame_original_alpha = np.empty(MAX_PLY, dtype=np.float64)
    frame_best = np.empty(MAX_PLY, dtype=np.float64)
    frame_best_move = np.empty(MAX_PLY, dtype=np.int64)
    frame_count = np.empty(MAX_PLY, dtype=np.int64)
    frame_next = np.empty(MAX_PLY, dtype=np.int64)
    frame_moves = np.empty((MAX_PLY, MAX_MOVES), dtype=np.int64)
    frame_null = np.zeros(MAX_PLY, dtype=np.bool_)  # the current child is searched with a null window
    pvs = (techniques & PVS) != 0
    keep_pv = (techniques & KEEP_PV) != 0
    keys = np.empty(MAX_MOVES, dtype=np.float64)
    scratch = np.empty(FEATURE_COUNT, dtype=np.float64)
    table_mask = np.uint64(len(table_player) - 1)

    frame_player[0], frame_opponent[0], frame_depth[0] = root_player, root_opponent, depth
    frame_alpha[0], frame_beta[0] = root_alpha, root_beta
    frame_count[0] = len(root_moves)
    for i in range(len(root_moves)):
        frame_moves[0, i] = root_moves[i]
    ply = 0
    entering = True
    result = 0.0
    while True:
        finished = False
        searched = False  # the node at ``ply`` finished after searching its moves: worth storing
        if entering:
            entering = False
            player, opponent, remaining = frame_player[ply], frame_opponent[ply], frame_depth[ply]
            control[0] += 1
            if control[1] > 0 and control[0] > control[1]:
                control[2] = 1
            if deadline > 0 and (control[0] & 1023) == 0 and monotonic_ns() >= deadline:
                control[2] = 1
            if ply > 0 and control[2] != 0:
                result, finished = 0.0, True
            elif ply > 0:
                exact = remaining > EXACT_DEPTH // 2
                empty = ~(player | opponent)
                empties = _count(empty)
                use_table = empties > EXACT_TABLE_EMPTIES or not exact
                legal = moves(player, opponent)
                if exact and empties == 1:
                    result, finished = _last_empty_value(player, opponent, empty), True
                elif legal == ZERO and moves(opponent, player) == ZERO:
                    result, finished = terminal_value(player, opponent), True
                elif remaining <= 0:
                    result, finished = _evaluate(player, opponent, weights, scratch), True
                else:
                    alpha, beta = frame_alpha[ply], frame_beta[ply]
                    frame_original_alpha[ply] = alpha
                    slot = _slot(player, opponent, table_mask)
                    table_best = -1
                    if use_table and table_player[slot] == player and table_opponent[slot] == opponent:
                        table_best = table_move[slot]
                        if table_depth[slot] >= remaining:
                            stored, flag = table_value[slot], table_flag[slot]
                            if flag == EXACT:
                                result, finished = stored, True
                            elif flag == LOWER and stored > alpha:
                                alpha = stored
                            elif flag == UPPER and stored < beta:
                                beta = stored
                            if not finished and alpha >= beta:
                                result, finished = stored, True
                    if not finished:
                        frame_alpha[ply], frame_beta[ply] = alpha, beta
                        if legal == ZERO:
                            frame_moves[ply, 0] = PASS_MOVE
                            frame_count[ply] = 1
                        else:
                            fastest_first = empties > 4 if exact else remaining >= 3
                            count = 0
                            while legal:
                                square = lowest_bit(legal)
                                legal &= legal - ONE
                                key = SQUARE_VALUES[square] + 0.01 * history[square]
                                if np.int64(square) == table_best:
                                    key = 1.0e15
                                elif fastest_first:
                                    flipped = flips(player, opponent, square)
                                    replies = moves(opponent & ~flipped, player | flipped | (ONE << square))
                                    key -= 1000.0 * _count(replies)
                                # insertion into the ordered list, best key first
                                j = count
                                while j > 0 and keys[j - 1] < key:
                                    keys[j] = keys[j - 1]
                                    frame_moves[ply, j] = frame_moves[ply, j - 1]
                                    j -= 1
                                keys[j] = key
                                frame_moves[ply, j] = np.int64(square)
                                count += 1
                            frame_count[ply] = count
            else:
                frame_original_alpha[0] = -INFINITY
            if not finished:
                frame_best[ply], frame_best_move[ply], frame_next[ply] = -INFINITY, -1, 0
        else:
            if control[2] != 0:
                if ply == 0:
                    break
                result, finished = 0.0, True
            else:
                score = -result
                move = frame_moves[ply, frame_next[ply] - 1]
                if frame_null[ply] and frame_alpha[ply] < score < frame_beta[ply]:
                    # the null window failed high: search the same child again with the full window
                    frame_null[ply] = False
                    frame_alpha[ply + 1], frame_beta[ply + 1] = -frame_beta[ply], -frame_alpha[ply]
                    ply += 1
                    entering = True
                    continue
                if score > frame_best[ply]:
                    frame_best[ply], frame_best_move[ply] = score, move
                    if ply == 0:
                        control[3] = move
                    if score > frame_alpha[ply]:
                        frame_alpha[ply] = score
                        if score >= frame_beta[ply]:
                            if move != PASS_MOVE:
                                history[move] += frame_depth[ply] * frame_depth[ply]
                            result, finished, searched = score, True, True
        if not finished:
            index = frame_next[ply]
            if index < frame_count[ply]:
                frame_next[ply] = index + 1
                move = frame_moves[ply, index]
                player, opponent = frame_player[ply], frame_opponent[ply]
                if move == PASS_MOVE:
                    frame_player[ply + 1], frame_opponent[ply + 1] = opponent, player
                else:
                    square = np.uint64(move)
                    flipped = flips(player, opponent, square)
                    frame_player[ply + 1] = opponent & ~flipped
                    frame_opponent[ply + 1] = player | flipped | (ONE << square)
                frame_depth[ply + 1] = frame_depth[ply] - 1
                frame_null[ply] = pvs and index > 0 and frame_beta[ply] - frame_alpha[ply] > 2 * EPSILON
                if frame_null[ply]:
                    frame_alpha[ply + 1], frame_beta[ply + 1] = -frame_alpha[ply] - EPSILON, -frame_alpha[ply]
                else:
                    frame_alpha[ply + 1], frame_beta[ply + 1] = -frame_beta[ply], -frame_alpha[ply]
                ply += 1
                entering = True
                continue
            result, finished, searched = frame_best[ply], True, True
        # the node at ``ply`` is done with value ``result``
        if searched and ply > 0 and control[2] == 0 and (
                frame_depth[ply] <= EXACT_DEPTH // 2
                or _count(~(frame_player[ply] | frame_opponent[ply])) > EXACT_TABLE_EMPTIES):
            slot = _slot(frame_player[ply], frame_opponent[ply], table_mask)
            flag = EXACT
            if result >= frame_beta[ply]:
                flag = LOWER
            elif result <= frame_original_alpha[ply]:
                flag = UPPER
            if not (keep_pv and flag != EXACT and table_flag[slot] == EXACT and table_depth[slot] > frame_depth[ply]
                    and table_player[slot] == frame_player[ply] and table_opponent[slot] == frame_opponent[ply]):
                table_player[slot], table_opponent[slot] = frame_player[ply], frame_opponent[ply]
                table_value[slot], table_depth[slot] = result, frame_depth[ply]
                table_move[slot] = frame_best_move[ply]
                table_flag[slot] = flag
        if ply == 0:
            break
        ply -= 1
    return frame_best[0]


class _Table:
    """A fresh transposition table and history for one search (fresh, so searches stay independent)."""

    def __init__(self, bits: int = MAX_TABLE_BITS) -> None:
        size = 1 << bits
        self.player = np.zeros(size, dtype=np.uint64)
        self.opponent = np.zeros(size, dtype=np.uint64)
        self.value = np.zeros(size, dtype=np.float64)
        self.depth = np.full(size, -1, dtype=np.int64)
        self.flag = np.zeros(size, dtype=np.int8)
        self.move = np.full(size, -1, dtype=np.int64)
        self.history = np.zeros(65, dtype=np.int64)
        self.control = np.zeros(4, dtype=np.int64)

    def run(self, player: int, opponent: int, depth: int, root: list[int], weights: np.ndarray,
            node_limit: int, deadline: int, techniques: int = 0, window: tuple[float, float] = (-INFINITY, INFINITY)
            ) -> tuple[float, int, bool]:
        """One fixed-depth search within ``window``; returns (value, best move, completed)."""
        self.control[1], self.control[2], self.control[3] = node_limit, 0, -1
        value = negamax(np.uint64(player), np.uint64(opponent), depth, np.array(root, dtype=np.int64),
                        weights, self.player, self.opponent, self.value, self.depth, self.flag, self.move,
                        self.history, self.control, deadline, techniques, window[0], window[1])
        return float(value) + 0.0, int(self.control[3]), self.control[2] == 0  # + 0.0: no "-0.0"

    @property
    def nodes(self) -> int:
        return int(self.control[0])


def _table_bits(depth: int | None, nodes: int | None, deadline: float | None) -> int:
    """A table size to fit the search: clearing 8 MB would cost more than a shallow search itself."""
    if deadline is not None or (depth is None and not nodes):
        return MAX_TABLE_BITS
    bits = MAX_TABLE_BITS
    if depth is not None:
        bits = min(bits, 8 + 2 * depth)
    if nodes:
        bits = min(bits, max(10, int(nodes).bit_length()))
    return max(10, bits)


def _action(move: int) -> Action:
    return {"type": "place", "row": move // 8, "col": move % 8}


def search(rules: Rules, state: State, weights: np.ndarray, *, depth: int | None = None,
           nodes: int | None = None, deadline: float | None = None, seed: int = 0,
           endgame: int | None = None, techniques: int = DEFAULT_TECHNIQUES) -> SearchResult:
    """Best action for the side to move.

    Args:
        rules, state: a live Totality position.
        weights: the float64 feature weights (``weight_vector("totality", ...)``).
        depth: plies of the midgame search (a pass is a ply); default 4 when
            no other bound is given, else unbounded up to 60.
        nodes: node budget for the whole call (deterministic).
        deadline: ``time.monotonic()`` instant to stop at (live play).
        seed: breaks ties between equally valued moves.
        endgame: solve exactly when at most this many cells are empty
            (default 12; 0 turns the solver off). The solve may use half of
            the node or time budget; if it does not finish within that, the
            midgame search decides with the rest.
        techniques: bits of ``TECHNIQUES`` to use (``DEFAULT_TECHNIQUES``: none).

    Returns:
        The action, its value from the mover's view (``+-1e6 + lead`` for a
        proven result), the depth completed (the number of empty cells for
        an exact solve) and the nodes searched.

    Raises:
        IllegalAction: the game is already over.
    """
    if rules.is_terminal(state):
        raise IllegalAction("the game is over: there is nothing to search")
    if state.legal == 0:
        return SearchResult({"type": "pass"}, 0.0, 0, 0)
    player, opponent = state.mover_boards()
    root = [square for square in range(64) if state.legal >> square & 1]
    random.Random(seed).shuffle(root)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    if weights.shape != (FEATURE_COUNT,):
        raise InvalidInput(f"Totality weights are {FEATURE_COUNT} floats in FEATURES order, got shape {weights.shape}")
    table = _Table(_table_bits(depth, nodes, deadline))
    node_limit = int(nodes) if nodes else 0
    when = int(deadline * 1e9) if deadline is not None else 0  # time.monotonic_ns() scale
    empties = 64 - (player | opponent).bit_count()
    if empties <= (DEFAULT_ENDGAME if endgame is None else endgame):
        # The solve gets half of each budget; if it cannot finish, the midgame search has the rest
        # (and keeps the table: whatever the solve stored is exact).
        solve_nodes = max(1, node_limit // 2) if node_limit else 0
        solve_until = (when + time.monotonic_ns()) // 2 if when else 0
        value, move, completed = table.run(player, opponent, EXACT_DEPTH, root, weights, solve_nodes,
                                           solve_until, techniques)
        if completed:
            return SearchResult(_action(move), value, empties, table.nodes)
    if depth is None:
        depth = TIME_DEPTH_CAP if (nodes or deadline is not None) else DEFAULT_DEPTH
    best, best_value, reached = root[0], 0.0, 0
    for iteration in range(1, max(1, depth) + 1):
        # The first iteration (one ply: a handful of nodes) always completes, so there is a move.
        limit = 0 if iteration == 1 else node_limit
        until = 0 if iteration == 1 else when
        window = (-INFINITY, INFINITY)
        if techniques & ASPIRATE and iteration > 1 and abs(best_value) < DECIDED / 2:
            window = (best_value - ASPIRATION, best_value + ASPIRATION)
        value, move, completed = table.run(player, opponent, iteration, root, weights, limit, until, techniques,
                                           window)
        if completed and not window[0] < value < window[1]:   # outside the aspiration window: search fully
            value, move, completed = table.run(player, opponent, iteration, root, weights, limit, until,
                                               techniques)
        if not completed:
            break
        best, best_value, reached = move, value, iteration
        root.remove(move)
        root.insert(0, move)
        if (node_limit and table.nodes >= node_limit) or (deadline is not None and time.monotonic() >= deadline):
            break
    return SearchResult(_action(best), best_value, reached, table.nodes)


def static_value(rules: Rules, state: State, weights: np.ndarray) -> float:
    """The evaluation of an open position for the side to move, without search: what ``harness fit`` regresses.

    The search's own leaf evaluation (clipped as the search clips it), so a weight fitted here means
    what it means inside the search.
    """
    player, opponent = state.mover_boards()
    scratch = np.zeros(FEATURE_COUNT, dtype=np.float64)
    return float(_evaluate(np.uint64(player), np.uint64(opponent),
                           np.ascontiguousarray(weights, dtype=np.float64), scratch))


def reaches(rules: Rules, state: State, empties: int = DEFAULT_ENDGAME) -> bool:
    """Whether ``solve`` runs on ``state`` at all (at most ``empties`` empty cells): a fit's exact labels are
    sampled among such positions, as the others would get none."""
    player, opponent = state.mover_boards()
    return 64 - (player | opponent).bit_count() <= empties


def solve(rules: Rules, state: State, empties: int = DEFAULT_ENDGAME, nodes: int | None = None) -> str | None:
    """The exact result for the side to move (``win``, ``draw`` or ``loss``) under perfect play, or None.

    The endgame solver runs only with at most ``empties`` empty cells and, with ``nodes``, within that
    many nodes; None when it does not reach (too many empty cells, or the budget ran out).
    """
    if rules.is_terminal(state):
        player, opponent = state.mover_boards()
        lead = player.bit_count() - opponent.bit_count()
        return "win" if lead > 0 else "loss" if lead < 0 else "draw"
    if not reaches(rules, state, empties):
        return None
    if state.legal == 0:  # the mover must pass: the opponent's result, seen from the other side
        after = solve(rules, rules.apply(state, {"type": "pass"}), empties, nodes)
        return None if after is None else {"win": "loss", "loss": "win", "draw": "draw"}[after]
    root = [square for square in range(64) if state.legal >> square & 1]
    weights = np.zeros(FEATURE_COUNT, dtype=np.float64)
    player, opponent = state.mover_boards()
    value, _move, completed = _Table(_table_bits(None, nodes, None)).run(
        player, opponent, EXACT_DEPTH, root, weights, int(nodes or 0), 0)
    if not completed:
        return None
    return "win" if value > 0 else "loss" if value < 0 else "draw"


def rollout(rules: Rules, state: State, seed: int) -> tuple[str, float]:
    """A seeded uniformly random playout to the end on the fast path: (Sun's result, documented score)."""
    if rules.is_terminal(state):
        return rules.outcome(state)[0], rules.score(state)
    player, opponent = state.mover_boards()
    final_player, final_opponent = random_playout(player, opponent, seed & 0xFFFFFFFFFFFFFFFF)
    sun, moon = (final_player, final_opponent) if state.to_move == 0 else (final_opponent, final_player)
    return rules.result_of(sun.bit_count(), moon.bit_count())


# Every stand-in and rung is built on ``LADDER_DEFAULTS`` (every feature named), never on the live
# defaults, so adopting new defaults never moves the ladder; ``harness games`` prints this line.
GBOT_DEFAULT_SOURCE = "LADDER_DEFAULTS (the default weights of 2026-12-08, harness 0.1.0)"
_ALL_OFF = {name: 0.0 for name in LADDER_DEFAULTS}

# G-Bot stand-ins: plain fixed-depth minimax on the classic square-value table (the "standard
# positional evaluation" of Othello programs), no endgame solver. Wise adds mobility and looks
# four plies ahead; easy looks two plies ahead on the table alone. Both are guesses of the live
# bot's strength (sibling games document a depth-5/6 minimax), not copies of it.
GBOT: dict[str, dict] = {
    "wise": {"depth": 4, "endgame": 0, "techniques": "none",
             "weights": _ALL_OFF | {"positional": 1.0, "mobility": 10.0}},
    "easy": {"depth": 2, "endgame": 0, "techniques": "none", "weights": _ALL_OFF | {"positional": 1.0}},
}

# The evaluations a ladder stand-in may use (``gbot:depth=5,eval=material``): the disc count alone,
# the frozen default weights, and the classic table with mobility (the wise stand-in's).
GBOT_EVALS: dict[str, dict[str, float]] = {
    "material": _ALL_OFF | {"discs": 1.0},
    "default": dict(LADDER_DEFAULTS),
    "classic": _ALL_OFF | {"positional": 1.0, "mobility": 10.0},
}
