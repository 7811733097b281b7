"""Compiled bitboard kernels of Totality (Reversi), the engine's fast path.

A board is two 64-bit masks, one per side. Bit ``row * 8 + col`` is the cell
``(row, col)`` of the public actions: row 0 is the top row (rank 1 in Othello
notation), col 0 the left column (file a). Kernels that take "player" and
"opponent" masks work from the point of view of the side to move, so the same
code serves both sides and the searches never need to know who is who.

Move generation is shift-and-mask (six-step fills in the four line
directions, both ways); flips walk the eight rays from the placed disc. The
functions called from plain Python carry explicit signatures so Python ints
of any size are accepted as ``uint64`` and nothing is compiled on first call
beyond what numba caches on disk.
"""

from __future__ import annotations

import sys

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

U64 = np.uint64
ZERO = U64(0)
ONE = U64(1)
FULL = U64(0xFFFFFFFFFFFFFFFF)
NOT_COL_0 = U64(0xFEFEFEFEFEFEFEFE)  # every cell except column 0 (file a)
NOT_COL_7 = U64(0x7F7F7F7F7F7F7F7F)  # every cell except column 7 (file h)
INNER_COLS = U64(0x7E7E7E7E7E7E7E7E)  # columns 1..6: a run can only continue through these
S1 = U64(1)
S7 = U64(7)
S8 = U64(8)
S9 = U64(9)

# The start: Sun (dark, side 0) on d5 (4, 3) and e4 (3, 4), Moon on d4 (3, 3) and e5 (4, 4).
START_SUN = (1 << (4 * 8 + 3)) | (1 << (3 * 8 + 4))
START_MOON = (1 << (3 * 8 + 3)) | (1 << (4 * 8 + 4))


@intrinsic
def popcount(typingctx, value):  # noqa: ARG001 (numba's intrinsic signature)
    """Number of set bits (LLVM ``ctpop``: one instruction on the host CPU)."""
    signature = types.uint64(types.uint64)

    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])
    return signature, codegen


@intrinsic
def lowest_bit(typingctx, value):  # noqa: ARG001
    """Index of the lowest set bit (LLVM ``cttz``); undefined for 0."""
    signature = types.uint64(types.uint64)

    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))
    return signature, codegen


# clock_gettime's id of the clock behind Python's time.monotonic() (Linux; macOS numbers it 6).
CLOCK_MONOTONIC = 1 if sys.platform.startswith("linux") else 6


@intrinsic
def monotonic_ns(typingctx):  # noqa: ARG001
    """``time.monotonic_ns()`` inside compiled code: a direct ``clock_gettime`` call.

    numba's object-mode escape hatch costs most of a second on its first use
    in a process, too much for a live move's time budget; this costs ~20 ns.
    """
    signature = types.int64()

    def codegen(context, builder, sig, args):
        i64, i32 = ir.IntType(64), ir.IntType(32)
        timespec = ir.LiteralStructType([i64, i64])
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(i32, [i32, timespec.as_pointer()]), "clock_gettime")
        buffer = cgutils.alloca_once(builder, timespec)
        builder.call(function, [ir.Constant(i32, CLOCK_MONOTONIC), buffer])
        seconds = builder.load(cgutils.gep_inbounds(builder, buffer, 0, 0))
        nanoseconds = builder.load(cgutils.gep_inbounds(builder, buffer, 0, 1))
        return builder.add(builder.mul(seconds, ir.Constant(i64, 1_000_000_000)), nanoseconds)
    return signature, codegen


@njit
def _line_moves(player, runs, shift):
    """Empty-or-not cells that close a run of ``runs`` cells from ``player`` along ``shift``, both ways."""
    forward = runs & (player << shift)
    forward |= runs & (forward << shift)
    forward |= runs & (forward << shift)
    forward |= runs & (forward << shift)
    forward |= runs & (forward << shift)
    forward |= runs & (forward << shift)
    backward = runs & (player >> shift)
    backward |= runs & (backward >> shift)
    backward |= runs & (backward >> shift)
    backward |= runs & (backward >> shift)
    backward |= runs & (backward >> shift)
    backward |= runs & (backward >> shift)
    return (forward << shift) | (backward >> shift)


@njit
def moves(player, opponent):
    """Mask of the legal placements of ``player``: empty cells that flip at least one disc.

    Horizontal and diagonal runs use only the opponent's discs in columns 1..6,
    so no run wraps from one row's edge to the next row.
    """
    inner = opponent & INNER_COLS
    found = _line_moves(player, inner, S1)
    found |= _line_moves(player, opponent, S8)
    found |= _line_moves(player, inner, S7)
    found |= _line_moves(player, inner, S9)
    return found & ~(player | opponent)


@njit
def _ray_up(player, opponent, start, shift, mask):
    """Discs flipped along one ray towards higher bits (``<< shift``), 0 if the ray is not closed."""
    run = ZERO
    cell = (start << shift) & mask
    while cell & opponent:
        run |= cell
        cell = (cell << shift) & mask
    if cell & player:
        return run
    return ZERO


@njit
def _ray_down(player, opponent, start, shift, mask):
    """Discs flipped along one ray towards lower bits (``>> shift``), 0 if the ray is not closed."""
    run = ZERO
    cell = (start >> shift) & mask
    while cell & opponent:
        run |= cell
        cell = (cell >> shift) & mask
    if cell & player:
        return run
    return ZERO


@njit
def flips(player, opponent, square):
    """Mask of the opponent discs a placement of ``player`` on ``square`` flips, in all eight directions.

    The masks drop cells that a shift carried across the left or right edge:
    a step towards column +1 can never land on column 0, one towards column -1
    never on column 7.
    """
    start = ONE << square
    flipped = _ray_up(player, opponent, start, S1, NOT_COL_0)      # east (col + 1)
    flipped |= _ray_down(player, opponent, start, S1, NOT_COL_7)   # west (col - 1)
    flipped |= _ray_up(player, opponent, start, S8, FULL)          # south (row + 1)
    flipped |= _ray_down(player, opponent, start, S8, FULL)        # north (row - 1)
    flipped |= _ray_up(player, opponent, start, S9, NOT_COL_0)     # south-east
    flipped |= _ray_down(player, opponent, start, S9, NOT_COL_7)   # north-west
    flipped |= _ray_up(player, opponent, start, S7, NOT_COL_7)     # south-west
    flipped |= _ray_down(player, opponent, start, S7, NOT_COL_0)   # north-east
    return flipped


@njit("uint64(uint64, uint64)", cache=True)
def legal_moves(player, opponent):
    """Compiled entry point of ``moves`` for plain Python callers."""
    return moves(player, opponent)


@njit("UniTuple(uint64, 4)(uint64, uint64, uint64)", cache=True)
def play(player, opponent, square):
    """Place a disc of ``player`` on ``square`` (unchecked) and look ahead.

    Returns:
        (player', opponent', moves of the opponent next, moves of the player next),
        the last two so the caller learns at once whether the opponent must
        pass and whether the game is over. A placement that flips nothing
        returns the board unchanged with flips == 0 detectable as player' == player.
    """
    flipped = flips(player, opponent, square)
    if flipped == ZERO:
        return player, opponent, moves(opponent, player), moves(player, opponent)
    mover = player | flipped | (ONE << square)
    other = opponent & ~flipped
    return mover, other, moves(other, mover), moves(mover, other)


@njit
def next_random(state):
    """xorshift64*: the next generator state and a 64-bit output (deterministic, seedable)."""
    state ^= state >> np.uint64(12)
    state ^= state << np.uint64(25)
    state ^= state >> np.uint64(27)
    return state, state * U64(0x2545F4914F6CDD1D)


@njit
def seed_random(seed):
    """A non-zero generator state from any seed (splitmix64 finaliser)."""
    value = U64(seed) + U64(0x9E3779B97F4A7C15)
    value = (value ^ (value >> np.uint64(30))) * U64(0xBF58476D1CE4E5B9)
    value = (value ^ (value >> np.uint64(27))) * U64(0x94D049BB133111EB)
    value ^= value >> np.uint64(31)
    if value == ZERO:
        value = U64(0x9E3779B97F4A7C15)
    return value


@njit
def nth_bit(mask, index):
    """Index of the ``index``-th (from 0) set bit of ``mask``."""
    for _ in range(index):
        mask &= mask - ONE
    return lowest_bit(mask)


@njit
def _playout(player, opponent, random_state):
    """Play uniformly random placements (and forced passes) to the end.

    Returns the final (player, opponent) masks in the same roles as given, and the generator state.
    """
    swapped = False
    while True:
        legal = moves(player, opponent)
        if legal == ZERO:
            if moves(opponent, player) == ZERO:
                break
            player, opponent = opponent, player
            swapped = not swapped
            continue
        random_state, value = next_random(random_state)
        square = nth_bit(legal, (value >> np.uint64(32)) % popcount(legal))
        flipped = flips(player, opponent, square)
        player, opponent = opponent & ~flipped, player | flipped | (ONE << square)
        swapped = not swapped
    if swapped:
        return opponent, player, random_state
    return player, opponent, random_state


@njit("UniTuple(uint64, 2)(uint64, uint64, uint64)", cache=True)
def random_playout(player, opponent, seed):
    """One seeded random game to the end from a position; returns the final (player, opponent) masks."""
    final_player, final_opponent, _ = _playout(player, opponent, seed_random(seed))
    return final_player, final_opponent


@njit("int64(uint64, uint64, int64, uint64)", cache=True)
def random_playouts(player, opponent, games, seed):
    """``games`` seeded random games from one position (the benchmark's fast path).

    Returns the sum of the first side's final disc counts, so the work cannot be optimised away.
    """
    random_state = seed_random(seed)
    total = 0
    for _ in range(games):
        final_player, _, random_state = _playout(player, opponent, random_state)
        total += popcount(final_player)
    return total


@njit("int64(uint64, uint64, int64)", cache=True)
def perft(player, opponent, depth):
    """Leaves of the move tree to ``depth`` plies, in the published Othello perft convention.

    Passes count as moves, and a side without a placement passes even when
    the game is already over: the tree ends only after two passes in a row.
    The rules engine ends the game one step earlier (no action at all once
    neither side can move), which gives the same counts up to depth 9; at
    depth 10 the table counts one extra pass for each of the 228 games that
    end at ply 9.

    The tree is walked with an explicit stack: numba cannot cache recursive
    functions.
    """
    if depth <= 0:
        return 1
    players = np.empty(depth + 1, dtype=np.uint64)
    opponents = np.empty(depth + 1, dtype=np.uint64)
    pending = np.zeros(depth + 1, dtype=np.uint64)  # placements not yet tried at each level
    passed = np.zeros(depth + 1, dtype=np.bool_)  # the move into this level was a pass
    players[0], opponents[0] = player, opponent
    total = 0
    level = 0
    expand = True
    while True:
        if expand:
            expand = False
            mover, other = players[level], opponents[level]
            legal = moves(mover, other)
            remaining = depth - level
            if legal == ZERO:
                if not passed[level]:
                    if remaining == 1:
                        total += 1
                    else:
                        players[level + 1], opponents[level + 1] = other, mover
                        passed[level + 1] = True
                        pending[level] = ZERO
                        level += 1
                        expand = True
                        continue
                pending[level] = ZERO
            elif remaining == 1:
                total += np.int64(popcount(legal))
                pending[level] = ZERO
            else:
                pending[level] = legal
        legal = pending[level]
        if legal == ZERO:
            if level == 0:
                return total
            level -= 1
            continue
        square = lowest_bit(legal)
        pending[level] = legal & (legal - ONE)
        mover, other = players[level], opponents[level]
        flipped = flips(mover, other, square)
        players[level + 1] = other & ~flipped
        opponents[level + 1] = mover | flipped | (ONE << square)
        passed[level + 1] = False
        level += 1
        expand = True
