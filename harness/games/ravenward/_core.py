"""The compiled fast path of Ravenward: one small int64 array per position.

Everything a search or a playout touches millions of times lives here,
compiled with numba (``cache=True``): move generation, make/unmake with an
undo record, captures, the resolution order (1)-(7) of the rules text, the
incremental Zobrist hash and the exact repetition keys. The public
``harness.games.ravenward`` module wraps it in plain Python values.

Piece identities: 0 is the King, 1-4 the defenders that start on 17, 23, 25,
31 and 5-12 the ravens that start on 3, 10, 21, 22, 26, 27, 38, 45. Side 0
(the King's side) owns pieces 0-4, side 1 (the ravens) pieces 5-12.

Layout of a position array (int64, ``SIZE`` entries):

====================  =======================================================
``[0, 49)``           board: the piece id on each cell, -1 when empty
``[49, 62)``          the cell of each piece, -1 once captured
``SIDE``              side to move (0 King's side, 1 ravens)
``PLY``               plies played and resolved up to step (5)
``MOVES``             moves played by the King's side
``STATUS``            0 while playing, else one of the ``END_*`` codes
``HASH``              Zobrist hash of pieces and side to move (for tables)
``KEY_A``/``KEY_B``   the exact position key, packed: 6 bits per piece
                      (cell + 1, 0 when captured) and the side to move
``HLEN``              number of keys recorded at step (5)
``DEFENDERS``         defenders alive (0-4)
``RAVENS``            ravens alive (0-8)
``[HIST, SIZE)``      the recorded keys, two words each
====================  =======================================================
"""

from __future__ import annotations

import numpy as np
from numba import njit

N = 7
CELLS = 49
THRONE = 24
CORNERS = (0, 6, 42, 48)
PIECES = 13
KING = 0
FIRST_RAVEN = 5
START_CELLS = np.array([24, 17, 23, 25, 31, 3, 10, 21, 22, 26, 27, 38, 45], dtype=np.int64)

PIECE = 49
SIDE = 62
PLY = 63
MOVES = 64
STATUS = 65
HASH = 66
KEY_A = 67
KEY_B = 68
HLEN = 69
DEFENDERS = 70
RAVENS = 71
HIST = 72
HIST_CAPACITY = 64
SIZE = HIST + 2 * HIST_CAPACITY
UNDO_SIZE = 20
MAX_MOVES = 256
PLY_LIMIT = 60

PLAYING = 0
END_ESCAPE = 1
END_RAVENS_NO_MOVES = 2
END_REPETITION = 3
END_PLY_LIMIT = 4
END_KING_CAPTURED = 5
END_KING_SIDE_NO_MOVES = 6
REASONS = ("", "escape", "ravens_no_moves", "repetition", "ply_limit", "king_captured",
           "king_side_no_moves")
RESULTS = ("", "win", "win", "draw", "draw", "loss", "loss")


def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Neighbours by direction (up, down, left, right; -1 off the board) and special squares."""
    neighbour = np.full((CELLS, 4), -1, dtype=np.int64)
    for cell in range(CELLS):
        row, col = divmod(cell, N)
        for direction, (dr, dc) in enumerate(((-1, 0), (1, 0), (0, -1), (0, 1))):
            r, c = row + dr, col + dc
            if 0 <= r < N and 0 <= c < N:
                neighbour[cell, direction] = r * N + c
    corner = np.zeros(CELLS, dtype=np.int64)
    corner[list(CORNERS)] = 1
    special = corner.copy()
    special[THRONE] = 1
    return neighbour, corner, special


NEIGHBOUR, IS_CORNER, IS_SPECIAL = _tables()
# Fixed-seed Zobrist keys: constants of the program, not a source of randomness.
ZOBRIST = np.random.default_rng(20260101).integers(-2**62, 2**62, size=(PIECES, CELLS), dtype=np.int64)
ZOBRIST_SIDE = np.int64(0x5DEECE66D1234567)


def pack_key(key: tuple[int, ...]) -> tuple[int, int]:
    """``(KEY_A, KEY_B)`` of a position key (13 cells, -1 if captured, then the side to move)."""
    key_a = sum((cell + 1) << (6 * piece) for piece, cell in enumerate(key[:7]))
    key_b = sum((cell + 1) << (6 * piece) for piece, cell in enumerate(key[7:13])) + (key[13] << 36)
    return key_a, key_b


@njit(cache=True, inline="always")
def side_of(piece: int) -> int:
    return 0 if piece < FIRST_RAVEN else 1


@njit(cache=True, inline="always")
def _key_shift(piece: int) -> int:
    return 6 * (piece if piece < 7 else piece - 7)


@njit(cache=True)
def set_position(st: np.ndarray, cells: np.ndarray, side: int, ply: int, moves: int, status: int) -> None:
    """Fill ``st`` from piece cells and counters; derives the board, hash and key.

    The repetition history is left empty (``HLEN`` 0); callers copy recorded
    keys into ``[HIST, ...)`` and set ``HLEN``.
    """
    st[:] = 0
    for cell in range(CELLS):
        st[cell] = -1
    st[SIDE] = side
    st[PLY] = ply
    st[MOVES] = moves
    st[STATUS] = status
    h = np.int64(0)
    key_a = np.int64(0)
    key_b = np.int64(0)
    defenders = 0
    ravens = 0
    for piece in range(PIECES):
        cell = cells[piece]
        st[PIECE + piece] = cell
        if cell >= 0:
            st[cell] = piece
            h ^= ZOBRIST[piece, cell]
            if 1 <= piece < FIRST_RAVEN:
                defenders += 1
            elif piece >= FIRST_RAVEN:
                ravens += 1
        if piece < 7:
            key_a += np.int64(cell + 1) << _key_shift(piece)
        else:
            key_b += np.int64(cell + 1) << _key_shift(piece)
    if side == 1:
        h ^= ZOBRIST_SIDE
    key_b += np.int64(side) << 36
    st[HASH] = h
    st[KEY_A] = key_a
    st[KEY_B] = key_b
    st[DEFENDERS] = defenders
    st[RAVENS] = ravens


@njit(cache=True)
def initial(st: np.ndarray) -> None:
    """The start position, King's side to move, nothing recorded yet."""
    set_position(st, START_CELLS, 0, 0, 0, PLAYING)


@njit(cache=True)
def _scan(st: np.ndarray, side: int, out: np.ndarray, limit: int) -> int:
    """Count (and write into ``out`` while it has room) up to ``limit`` legal moves of ``side``.

    Rook slides through empty cells; the empty throne is crossed by anyone
    but only the King stops on it or on a corner.
    """
    count = 0
    first = 0 if side == 0 else FIRST_RAVEN
    last = FIRST_RAVEN if side == 0 else PIECES
    for piece in range(first, last):
        origin = st[PIECE + piece]
        if origin < 0:
            continue
        king = piece == KING
        for direction in range(4):
            cell = NEIGHBOUR[origin, direction]
            while cell >= 0 and st[cell] < 0:
                if king or IS_SPECIAL[cell] == 0:
                    if count < out.shape[0]:
                        out[count] = origin * 64 + cell
                    count += 1
                    if count >= limit:
                        return count
                cell = NEIGHBOUR[cell, direction]
    return count


@njit(cache=True)
def generate(st: np.ndarray, out: np.ndarray) -> int:
    """Write the legal moves of the side to move as ``from * 64 + to`` into ``out``.

    Returns the count (0 when the game is over).
    """
    if st[STATUS] != PLAYING:
        return 0
    return _scan(st, st[SIDE], out, MAX_MOVES)


@njit(cache=True)
def count_moves(st: np.ndarray, side: int, limit: int) -> int:
    """The number of legal moves ``side`` has, counted up to ``limit`` at most."""
    return _scan(st, side, st[:0], limit)


@njit(cache=True)
def has_move(st: np.ndarray, side: int) -> bool:
    """Whether ``side`` has any legal move (step 7), without listing them."""
    return _scan(st, side, st[:0], 1) > 0


@njit(cache=True)
def is_legal(st: np.ndarray, origin: int, target: int) -> bool:
    """Whether moving the piece on ``origin`` to ``target`` is legal for the side to move."""
    if st[STATUS] != PLAYING or origin < 0 or origin >= CELLS or target < 0 or target >= CELLS:
        return False
    piece = st[origin]
    if piece < 0 or side_of(piece) != st[SIDE] or origin == target:
        return False
    if IS_SPECIAL[target] == 1 and piece != KING:
        return False
    for direction in range(4):
        cell = NEIGHBOUR[origin, direction]
        while cell >= 0 and st[cell] < 0:
            if cell == target:
                return True
            cell = NEIGHBOUR[cell, direction]
    return False


@njit(cache=True)
def _remove(st: np.ndarray, piece: int, cell: int) -> None:
    st[cell] = -1
    st[PIECE + piece] = -1
    st[HASH] ^= ZOBRIST[piece, cell]
    if piece < 7:
        st[KEY_A] -= np.int64(cell + 1) << _key_shift(piece)
    else:
        st[KEY_B] -= np.int64(cell + 1) << _key_shift(piece)
    if piece >= FIRST_RAVEN:
        st[RAVENS] -= 1
    elif piece > KING:
        st[DEFENDERS] -= 1


@njit(cache=True)
def _place(st: np.ndarray, piece: int, origin: int, target: int) -> None:
    st[origin] = -1
    st[target] = piece
    st[PIECE + piece] = target
    st[HASH] ^= ZOBRIST[piece, origin] ^ ZOBRIST[piece, target]
    delta = np.int64(target - origin) << _key_shift(piece)
    if piece < 7:
        st[KEY_A] += delta
    else:
        st[KEY_B] += delta


@njit(cache=True)
def pinched(st: np.ndarray, landing: int, side: int, direction: int) -> int:
    """The cell of the enemy that a piece of ``side`` on ``landing`` captures in ``direction``, or -1.

    The neighbour must hold an enemy of the mover and the square beyond it a
    piece of the mover's side, a corner, or the empty throne; the board edge
    never captures.
    """
    neighbour = NEIGHBOUR[landing, direction]
    if neighbour < 0:
        return -1
    enemy = st[neighbour]
    if enemy < 0 or side_of(enemy) == side:
        return -1
    beyond = NEIGHBOUR[neighbour, direction]
    if beyond < 0:
        return -1
    flanker = st[beyond]
    if (flanker >= 0 and side_of(flanker) == side) or IS_CORNER[beyond] == 1 or (
            beyond == THRONE and flanker < 0):
        return neighbour
    return -1


@njit(cache=True)
def make(st: np.ndarray, move: int, undo: np.ndarray) -> int:
    """Play a legal move (``from * 64 + to``) in place, resolving steps (1)-(7).

    ``undo`` receives what ``unmake`` needs. Returns the number of pieces
    captured. The move must be legal (``generate``/``is_legal``): this is the
    unchecked path.
    """
    origin = move >> 6
    target = move & 63
    for i in range(10):
        undo[10 + i] = st[SIDE + i]
    undo[0] = origin
    undo[1] = target
    piece = st[origin]
    side = st[SIDE]
    # (1) slide
    _place(st, piece, origin, target)
    # (2) captures around the landing square, against the board right after the slide
    captured = 0
    for direction in range(4):
        enemy_cell = pinched(st, target, side, direction)
        if enemy_cell >= 0:
            undo[3 + captured] = st[enemy_cell]
            undo[6 + captured] = enemy_cell
            captured += 1
    undo[2] = captured
    for i in range(captured):
        _remove(st, undo[3 + i], undo[6 + i])
    if side == 0:
        st[MOVES] += 1
        # (3) escape
        if IS_CORNER[st[PIECE + KING]] == 1:
            st[STATUS] = END_ESCAPE
            return captured
    # (4) the King captured
    if st[PIECE + KING] < 0:
        st[STATUS] = END_KING_CAPTURED
        return captured
    # (5) ply counter and position key (recorded with the side that moves next)
    st[PLY] += 1
    st[SIDE] = 1 - side
    st[HASH] ^= ZOBRIST_SIDE
    if side == 0:
        st[KEY_B] += np.int64(1) << 36
    else:
        st[KEY_B] -= np.int64(1) << 36
    key_a = st[KEY_A]
    key_b = st[KEY_B]
    n = st[HLEN]
    occurrences = 1
    for i in range(n):
        if st[HIST + 2 * i] == key_a and st[HIST + 2 * i + 1] == key_b:
            occurrences += 1
    st[HIST + 2 * n] = key_a
    st[HIST + 2 * n + 1] = key_b
    st[HLEN] = n + 1
    if occurrences >= 3:
        st[STATUS] = END_REPETITION
        return captured
    # (6) move limit
    if st[PLY] >= PLY_LIMIT:
        st[STATUS] = END_PLY_LIMIT
        return captured
    # (7) the side to move must have a legal move
    if not has_move(st, 1 - side):
        st[STATUS] = END_RAVENS_NO_MOVES if side == 0 else END_KING_SIDE_NO_MOVES
    return captured


@njit(cache=True)
def unmake(st: np.ndarray, undo: np.ndarray) -> None:
    """Take back the move recorded in ``undo`` (restores every field exactly)."""
    origin = undo[0]
    target = undo[1]
    piece = st[target]
    st[target] = -1
    st[origin] = piece
    st[PIECE + piece] = origin
    for i in range(undo[2]):
        enemy = undo[3 + i]
        cell = undo[6 + i]
        st[cell] = enemy
        st[PIECE + enemy] = cell
    for i in range(10):
        st[SIDE + i] = undo[10 + i]


@njit(cache=True)
def score(st: np.ndarray) -> int:
    """The documented score of the King's side (0 while playing)."""
    status = st[STATUS]
    taken = 8 - st[RAVENS]
    if status == END_ESCAPE or status == END_RAVENS_NO_MOVES:
        return 100 + 10 * st[DEFENDERS] + 5 * taken + max(0, 50 - 2 * st[MOVES])
    if status == END_REPETITION or status == END_PLY_LIMIT:
        return 40 + 3 * taken
    if status == PLAYING:
        return 0
    return 3 * taken


@njit(cache=True)
def random_game(st: np.ndarray, moves: np.ndarray, undo: np.ndarray) -> int:
    """Play uniformly random moves from ``st`` (in place) to the end; returns the status.

    Randomness comes from numba's generator, seeded by the caller with
    ``seed_generator``.
    """
    while st[STATUS] == PLAYING:
        count = generate(st, moves)
        make(st, moves[np.random.randint(count)], undo)
    return st[STATUS]


@njit(cache=True)
def seed_generator(seed: int) -> None:
    """Seed numba's own random generator (separate from NumPy's in Python)."""
    np.random.seed(seed)


@njit(cache=True)
def random_games(games: int, seed: int) -> np.ndarray:
    """Play ``games`` seeded random games from the start; returns the count per status."""
    np.random.seed(seed)
    st = np.empty(SIZE, dtype=np.int64)
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    undo = np.empty(UNDO_SIZE, dtype=np.int64)
    tally = np.zeros(7, dtype=np.int64)
    for _ in range(games):
        initial(st)
        tally[random_game(st, moves, undo)] += 1
    return tally


@njit(cache=True)
def _perft(st: np.ndarray, depth: int, moves: np.ndarray, undos: np.ndarray) -> int:
    if depth == 0:
        return 1
    base = depth * MAX_MOVES
    count = generate(st, moves[base:base + MAX_MOVES])
    if depth == 1:
        return count
    total = 0
    for i in range(count):
        make(st, moves[base + i], undos[depth])
        total += _perft(st, depth - 1, moves, undos)
        unmake(st, undos[depth])
    return total


@njit(cache=True)
def perft(st: np.ndarray, depth: int) -> int:
    """Leaf count of the legal-move tree to ``depth`` plies (finished games are leaves
    with no children)."""
    moves = np.empty((depth + 1) * MAX_MOVES, dtype=np.int64)
    undos = np.empty((depth + 1, UNDO_SIZE), dtype=np.int64)
    work = st.copy()
    return _perft(work, depth, moves, undos)
