"""The compiled core of Chinese chess: a padded mailbox with piece lists and make/unmake.

Everything here is numba-compiled (``cache=True``) and works on small integer
arrays, so searches and playouts never touch Python objects. The public
protocol in ``harness.games.xiangqi`` is a thin layer over it.

Layout. The 10x9 board sits inside a 16x11 mailbox: three rows of padding
above and below (a horse or an elephant jumps at most two rows) and one column
on either side (the right padding of one row and the left padding of the next
are two squares, enough for a two-column jump). Square ``(r, c)`` is
``(r + 3) * 11 + c + 1``; every padding square holds ``OFF``.

Pieces. A piece code is ``side * 8 + kind`` with red = side 0 and kinds
general 1, advisor 2, elephant 3, horse 4, chariot 5, cannon 6, soldier 7;
0 is an empty square. Each side has 16 piece slots (red 0..15, black 16..31),
slot 0 of a side being its general; ``plist[slot]`` is the slot's square (0
once captured) and ``slot_of[square]`` the slot of the piece standing there.

Position. A position is four arrays: ``board`` (codes by square),
``slot_of``, ``plist`` and ``st`` (int64: side to move, Zobrist hash). A move
is ``from_square << 8 | to_square``; ``make`` returns the undo word
``captured_code | captured_slot << 8`` that ``unmake`` needs.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from harness.errors import NotationError
from harness.games.compiled import hot_path

WIDTH = 11
NSQ = 16 * WIDTH
OFF = 32
GENERAL, ADVISOR, ELEPHANT, HORSE, CHARIOT, CANNON, SOLDIER = 1, 2, 3, 4, 5, 6, 7
RED, BLACK = 0, 1
MAX_MOVES = 256
SIDE, HASH = 0, 1  # indices into ``st``

NORTH, SOUTH, WEST, EAST = -WIDTH, WIDTH, -1, 1
ORTHOGONAL = np.array([NORTH, SOUTH, WEST, EAST], dtype=np.int64)
DIAGONAL = np.array([NORTH + WEST, NORTH + EAST, SOUTH + WEST, SOUTH + EAST], dtype=np.int64)
# A horse's leg square and its two destinations beyond it.
HORSE_LEG = np.array([NORTH, NORTH, SOUTH, SOUTH, WEST, WEST, EAST, EAST], dtype=np.int64)
HORSE_JUMP = np.array([2 * NORTH + WEST, 2 * NORTH + EAST, 2 * SOUTH + WEST, 2 * SOUTH + EAST,
                       2 * WEST + NORTH, 2 * WEST + SOUTH, 2 * EAST + NORTH, 2 * EAST + SOUTH],
                      dtype=np.int64)
FORWARD = np.array([NORTH, SOUTH], dtype=np.int64)  # red advances toward row 0


def square(row: int, col: int) -> int:
    """The mailbox square of board row ``row`` and column ``col``."""
    return (row + 3) * WIDTH + col + 1


SQUARE_OF_INDEX = np.array([square(i // 9, i % 9) for i in range(90)], dtype=np.int64)
INDEX_OF_SQUARE = np.full(NSQ, -1, dtype=np.int64)
INDEX_OF_SQUARE[SQUARE_OF_INDEX] = np.arange(90)
ROW_OF_SQUARE = np.full(NSQ, -1, dtype=np.int64)
ROW_OF_SQUARE[SQUARE_OF_INDEX] = np.arange(90) // 9
COL_OF_SQUARE = np.full(NSQ, -1, dtype=np.int64)
COL_OF_SQUARE[SQUARE_OF_INDEX] = np.arange(90) % 9

IN_PALACE = np.zeros((2, NSQ), dtype=np.bool_)
OWN_HALF = np.zeros((2, NSQ), dtype=np.bool_)
for _r in range(10):
    for _c in range(9):
        OWN_HALF[RED, square(_r, _c)] = _r >= 5
        OWN_HALF[BLACK, square(_r, _c)] = _r <= 4
        if 3 <= _c <= 5:
            IN_PALACE[RED, square(_r, _c)] = _r >= 7
            IN_PALACE[BLACK, square(_r, _c)] = _r <= 2

# COLOR[code]: 0 red, 1 black, 2 empty, 3 off the board.
COLOR = np.full(OFF + 1, 3, dtype=np.int64)
COLOR[0] = 2
COLOR[1:8] = RED
COLOR[9:16] = BLACK

_zobrist_rng = np.random.Generator(np.random.PCG64(20261129))
ZOBRIST = _zobrist_rng.integers(-2**63, 2**63 - 1, size=(OFF + 1, NSQ), dtype=np.int64)
ZOBRIST[0, :] = 0
ZOBRIST[OFF, :] = 0
ZOBRIST_SIDE = np.int64(_zobrist_rng.integers(-2**63, 2**63 - 1, dtype=np.int64))


@njit(cache=True)
def setup(cells, side, board, slot_of, plist, st):
    """Fill a position from 90 piece codes (row-major); returns False if it cannot be held.

    It cannot be held when a side has no general, two generals, a general
    outside its palace, or more than 16 pieces.
    """
    board[:] = OFF
    slot_of[:] = 0
    plist[:] = 0
    count = np.zeros(2, dtype=np.int64)
    count[:] = 1  # slot 0 of each side is reserved for its general
    generals = np.zeros(2, dtype=np.int64)
    h = np.int64(0)
    for i in range(90):
        sq = SQUARE_OF_INDEX[i]
        code = cells[i]
        board[sq] = code
        if code == 0:
            continue
        owner = code >> 3
        if code & 7 == GENERAL:
            generals[owner] += 1
            if not IN_PALACE[owner, sq]:
                return False
            s = owner * 16
        else:
            if count[owner] >= 16:
                return False
            s = owner * 16 + count[owner]
            count[owner] += 1
        slot_of[sq] = s
        plist[s] = sq
        h ^= ZOBRIST[code, sq]
    if generals[0] != 1 or generals[1] != 1:
        return False
    st[SIDE] = side
    if side == BLACK:
        h ^= ZOBRIST_SIDE
    st[HASH] = h
    return True


@hot_path
def make(board, slot_of, plist, st, move):
    """Play ``move`` in place; returns the undo word for ``unmake``."""
    fr = move >> 8
    to = move & 255
    piece = board[fr]
    captured = board[to]
    h = st[HASH] ^ ZOBRIST[piece, fr] ^ ZOBRIST[piece, to] ^ ZOBRIST_SIDE
    undo = 0
    if captured != 0:
        cs = slot_of[to]
        plist[cs] = 0
        h ^= ZOBRIST[captured, to]
        undo = captured | (cs << 8)
    s = slot_of[fr]
    board[to] = piece
    board[fr] = 0
    slot_of[to] = s
    plist[s] = to
    st[HASH] = h
    st[SIDE] ^= 1
    return undo


@hot_path
def unmake(board, slot_of, plist, st, move, undo):
    """Take back ``move`` played by ``make`` that returned ``undo``."""
    fr = move >> 8
    to = move & 255
    piece = board[to]
    s = slot_of[to]
    board[fr] = piece
    slot_of[fr] = s
    plist[s] = fr
    h = st[HASH] ^ ZOBRIST[piece, fr] ^ ZOBRIST[piece, to] ^ ZOBRIST_SIDE
    captured = undo & 255
    board[to] = captured
    if captured != 0:
        cs = undo >> 8
        slot_of[to] = cs
        plist[cs] = to
        h ^= ZOBRIST[captured, to]
    st[HASH] = h
    st[SIDE] ^= 1


@hot_path
def is_attacked(board, target, side):
    """Whether the pieces of ``1 - side`` attack ``target`` (the general of ``side``).

    A general on the same file with nothing between counts as an attack, so
    "leaves its general attacked" also covers the facing generals.
    """
    enemy = (1 - side) * 8
    for k in range(4):
        d = ORTHOGONAL[k]
        s = target + d
        while board[s] == 0:
            s += d
        p = board[s]
        if p == enemy + CHARIOT:
            return True
        if p == enemy + GENERAL and k < 2:
            return True
        if p != OFF:
            s += d
            while board[s] == 0:
                s += d
            if board[s] == enemy + CANNON:
                return True
    horse = enemy + HORSE
    for k in range(4):
        leg = target + DIAGONAL[k]
        if board[leg] == 0:
            vertical = NORTH if k < 2 else SOUTH
            horizontal = DIAGONAL[k] - vertical
            if board[leg + vertical] == horse or board[leg + horizontal] == horse:
                return True
    soldier = enemy + SOLDIER
    if board[target - FORWARD[1 - side]] == soldier:
        return True
    # A soldier beside a general has crossed the river (the general stays home).
    if board[target - 1] == soldier and not OWN_HALF[1 - side, target - 1]:
        return True
    if board[target + 1] == soldier and not OWN_HALF[1 - side, target + 1]:
        return True
    return False


@hot_path
def in_check(board, plist, side):
    """Whether the general of ``side`` is attacked (False once it is captured)."""
    king = plist[side * 16]
    if king == 0:
        return False
    return is_attacked(board, king, side)


@hot_path
def generate(board, plist, side, moves):
    """Write every pseudo-legal move of ``side`` into ``moves``; returns how many.

    Pseudo-legal: the pieces' own moves, whether or not they expose the own
    general. The general may also capture the other general across an open
    file (only reachable when exposing the general is allowed). Written flat,
    each square read once into a local and no helper call per step: measured
    about four times faster than the form with a helper per step, and this
    runs at every node of a search.
    """
    n = 0
    base = side * 16
    enemy = 1 - side
    for i in range(16):
        fr = plist[base + i]
        if fr == 0:
            continue
        kind = board[fr] & 7
        high = fr << 8
        if kind == CHARIOT or kind == CANNON:
            for k in range(4):
                d = ORTHOGONAL[k]
                to = fr + d
                p = board[to]
                while p == 0:
                    moves[n] = high | to
                    n += 1
                    to += d
                    p = board[to]
                if kind == CANNON and p != OFF:
                    to += d
                    p = board[to]
                    while p == 0:
                        to += d
                        p = board[to]
                if COLOR[p] == enemy:
                    moves[n] = high | to
                    n += 1
        elif kind == HORSE:
            for k in range(8):
                if board[fr + HORSE_LEG[k]] == 0:
                    to = fr + HORSE_JUMP[k]
                    c = COLOR[board[to]]
                    if c == 2 or c == enemy:
                        moves[n] = high | to
                        n += 1
        elif kind == SOLDIER:
            to = fr + FORWARD[side]
            c = COLOR[board[to]]
            if c == 2 or c == enemy:
                moves[n] = high | to
                n += 1
            if not OWN_HALF[side, fr]:
                to = fr + WEST
                c = COLOR[board[to]]
                if c == 2 or c == enemy:
                    moves[n] = high | to
                    n += 1
                to = fr + EAST
                c = COLOR[board[to]]
                if c == 2 or c == enemy:
                    moves[n] = high | to
                    n += 1
        elif kind == ELEPHANT:
            for k in range(4):
                eye = fr + DIAGONAL[k]
                to = eye + DIAGONAL[k]
                if board[eye] == 0 and OWN_HALF[side, to]:
                    c = COLOR[board[to]]
                    if c == 2 or c == enemy:
                        moves[n] = high | to
                        n += 1
        elif kind == ADVISOR:
            for k in range(4):
                to = fr + DIAGONAL[k]
                if IN_PALACE[side, to]:
                    c = COLOR[board[to]]
                    if c == 2 or c == enemy:
                        moves[n] = high | to
                        n += 1
        else:  # GENERAL
            for k in range(4):
                to = fr + ORTHOGONAL[k]
                if IN_PALACE[side, to]:
                    c = COLOR[board[to]]
                    if c == 2 or c == enemy:
                        moves[n] = high | to
                        n += 1
            d = FORWARD[side]
            to = fr + d
            while board[to] == 0:
                to += d
            if board[to] == enemy * 8 + GENERAL:
                moves[n] = high | to
                n += 1
    return n


@hot_path
def may_expose(move, king, checked):
    """Whether ``move`` could leave its own general (on ``king``) attacked, so needs testing.

    A move that is not by the general, does not start or end on the
    general's row or file (lines of chariots, cannons and the other
    general, and cannon screens), and does not leave a point diagonally next
    to the general (a horse's leg) cannot expose it, unless it is already
    in check.
    """
    if checked:
        return True
    fr = move >> 8
    to = move & 255
    if fr == king:
        return True
    row, col = ROW_OF_SQUARE[king], COL_OF_SQUARE[king]
    if ROW_OF_SQUARE[fr] == row or COL_OF_SQUARE[fr] == col or ROW_OF_SQUARE[to] == row or COL_OF_SQUARE[to] == col:
        return True
    d = fr - king
    return d == NORTH + WEST or d == NORTH + EAST or d == SOUTH + WEST or d == SOUTH + EAST


@hot_path
def may_check(move, general):
    """Whether a quiet ``move`` could give check to the other side's general (on ``general``), so needs testing.

    ``may_expose`` seen from the other general: a check comes along the
    general's row or file (a chariot, a cannon or its screen arriving or
    leaving, a line opened), from a horse landing a horse's move away, or
    from a horse whose leg (a point diagonally next to the general) is
    vacated. A soldier's check is from a point next to the general, on its
    row or file. Any other move cannot check, so is not made to find out.
    """
    fr = move >> 8
    to = move & 255
    row, col = ROW_OF_SQUARE[general], COL_OF_SQUARE[general]
    if ROW_OF_SQUARE[fr] == row or COL_OF_SQUARE[fr] == col or ROW_OF_SQUARE[to] == row or COL_OF_SQUARE[to] == col:
        return True
    d = fr - general
    if d == NORTH + WEST or d == NORTH + EAST or d == SOUTH + WEST or d == SOUTH + EAST:
        return True
    d = to - general
    for k in range(8):
        if d == HORSE_JUMP[k]:
            return True
    return False


@hot_path
def make_legal(board, slot_of, plist, st, move, king, checked, pseudo):
    """Play ``move`` if it is legal and return its undo word; else leave the position and return -1.

    ``king`` is the mover's general and ``checked`` whether it is in check
    before the move (see ``may_expose``); with ``pseudo`` every move is legal.
    """
    side = st[SIDE]
    test = (not pseudo) and may_expose(move, king, checked)
    undo = make(board, slot_of, plist, st, move)
    if test and is_attacked(board, plist[side * 16], side):
        unmake(board, slot_of, plist, st, move, undo)
        return -1
    return undo


@hot_path
def generate_legal(board, slot_of, plist, st, moves, pseudo):
    """Write the legal moves of the side to move into ``moves``; returns how many.

    With ``pseudo`` every pseudo-legal move is legal; otherwise a move may not
    leave the mover's general attacked (which includes facing the other
    general on an open file).
    """
    side = st[SIDE]
    n = generate(board, plist, side, moves)
    if pseudo:
        return n
    king = plist[side * 16]
    checked = is_attacked(board, king, side)
    kept = 0
    for i in range(n):
        m = moves[i]
        if may_expose(m, king, checked):
            undo = make_legal(board, slot_of, plist, st, m, king, checked, False)
            if undo < 0:
                continue
            unmake(board, slot_of, plist, st, m, undo)
        moves[kept] = m
        kept += 1
    return kept


@hot_path
def perft(board, slot_of, plist, st, depth, buffers, ply):
    """The number of legal (strict) move sequences of length ``depth``."""
    moves = buffers[ply]
    n = generate_legal(board, slot_of, plist, st, moves, False)
    if depth == 1:
        return n
    total = 0
    for i in range(n):
        m = moves[i]
        undo = make(board, slot_of, plist, st, m)
        total += perft(board, slot_of, plist, st, depth - 1, buffers, ply + 1)
        unmake(board, slot_of, plist, st, m, undo)
    return total


@njit(cache=True)
def next_random(rng):
    """xorshift64*: the next pseudo-random non-negative int64 from the state ``rng[0]``."""
    x = rng[0]
    x ^= (x >> 12) & 0x000FFFFFFFFFFFFF
    x ^= x << 25
    x ^= (x >> 27) & 0x0000001FFFFFFFFF
    rng[0] = x
    return ((x * 2685821657736338717) >> 1) & 0x3FFFFFFFFFFFFFFF


@njit(cache=True)
def seed_random(seed):
    """A xorshift state from a seed (never zero)."""
    rng = np.zeros(1, dtype=np.int64)
    x = np.int64(seed) * np.int64(-7046029254386353131) + np.int64(0x2545F4914F6CDD1D)
    rng[0] = x if x != 0 else np.int64(1)
    next_random(rng)
    return rng


@njit(cache=True)
def random_move(board, slot_of, plist, st, moves, pseudo, rng):
    """Play a uniformly random legal move in place; returns it, or -1 when there is none.

    Draws among the pseudo-legal moves and discards the illegal ones as they
    are drawn, which is uniform over the legal moves and far cheaper than
    testing all of them.
    """
    side = st[SIDE]
    n = generate(board, plist, side, moves)
    king = plist[side * 16]
    checked = (not pseudo) and is_attacked(board, king, side)
    while n > 0:
        i = next_random(rng) % n
        m = moves[i]
        if make_legal(board, slot_of, plist, st, m, king, checked, pseudo) >= 0:
            return m
        moves[i] = moves[n - 1]
        n -= 1
    return -1


@njit(cache=True)
def playout(board, slot_of, plist, st, plies_left, pseudo, rng, moves):
    """Random play to the end on the given position (changed in place).

    Returns ``(winner, plies)``: winner 0 red, 1 black, 2 a draw when
    ``plies_left`` plies pass without an ending. The side to move with no
    legal move loses; with ``pseudo`` legality capturing the general wins.
    """
    for ply in range(plies_left):
        side = st[SIDE]
        if plist[side * 16] == 0:  # its general was captured
            return 1 - side, ply
        m = random_move(board, slot_of, plist, st, moves, pseudo, rng)
        if m < 0:
            return 1 - side, ply
    side = st[SIDE]
    if plist[side * 16] == 0 or generate_legal(board, slot_of, plist, st, moves, pseudo) == 0:
        return 1 - side, plies_left  # an ending on the last ply beats the limit
    return 2, plies_left


@njit(cache=True)
def playouts(cells, side, games, max_plies, pseudo, seed):
    """Play ``games`` random games from one position; returns red wins, black wins, draws, plies."""
    board = np.empty(NSQ, dtype=np.int64)
    slot_of = np.empty(NSQ, dtype=np.int64)
    plist = np.empty(32, dtype=np.int64)
    st = np.empty(2, dtype=np.int64)
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    rng = seed_random(seed)
    totals = np.zeros(4, dtype=np.int64)
    for _ in range(games):
        setup(cells, side, board, slot_of, plist, st)
        winner, plies = playout(board, slot_of, plist, st, max_plies, pseudo, rng, moves)
        totals[winner] += 1
        totals[3] += plies
    return totals


@njit(cache=True)
def legal_indices(cells, side, pseudo):
    """The legal moves of a position given as 90 codes, as sorted ``from * 90 + to`` indices.

    Returns an empty array when the position cannot be held (see ``setup``).
    """
    board = np.empty(NSQ, dtype=np.int64)
    slot_of = np.empty(NSQ, dtype=np.int64)
    plist = np.empty(32, dtype=np.int64)
    st = np.empty(2, dtype=np.int64)
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    if not setup(cells, side, board, slot_of, plist, st):
        return np.empty(0, dtype=np.int64)
    n = generate_legal(board, slot_of, plist, st, moves, pseudo)
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = INDEX_OF_SQUARE[moves[i] >> 8] * 90 + INDEX_OF_SQUARE[moves[i] & 255]
    out.sort()
    return out


@njit(cache=True)
def attacked_general(cells, side):
    """Whether the general of ``side`` is attacked in a position given as 90 codes."""
    board = np.empty(NSQ, dtype=np.int64)
    slot_of = np.empty(NSQ, dtype=np.int64)
    plist = np.empty(32, dtype=np.int64)
    st = np.empty(2, dtype=np.int64)
    setup(cells, side, board, slot_of, plist, st)
    return in_check(board, plist, side)


def new_position() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Empty arrays for one position: (board, slot_of, plist, st)."""
    return (np.empty(NSQ, dtype=np.int64), np.empty(NSQ, dtype=np.int64),
            np.empty(32, dtype=np.int64), np.empty(2, dtype=np.int64))


def load_position(cells: np.ndarray, side: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A compiled position from 90 piece codes and the side to move.

    Raises:
        NotationError: the position cannot be held (see ``setup``).
    """
    position = new_position()
    if not setup(cells, side, *position):
        raise NotationError("a position needs one general per side inside its palace and at most 16 pieces a side")
    return position


@njit(cache=True)
def generation_count(positions, sides, repeats, pseudo):
    """Generate the legal moves of each position ``repeats`` times; returns the moves found.

    ``positions`` is an (n, 90) array of piece codes. For benchmarks: the
    generations per second are ``n * repeats`` over the time taken.
    """
    board = np.empty(NSQ, dtype=np.int64)
    slot_of = np.empty(NSQ, dtype=np.int64)
    plist = np.empty(32, dtype=np.int64)
    st = np.empty(2, dtype=np.int64)
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    total = 0
    for i in range(positions.shape[0]):
        setup(positions[i], sides[i], board, slot_of, plist, st)
        for _ in range(repeats):
            total += generate_legal(board, slot_of, plist, st, moves, pseudo)
    return total
