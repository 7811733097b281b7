"""Compiled alpha-beta for Chinese chess on the engine's make/unmake core.

Negamax with iterative deepening, a transposition table keyed by the
engine's incremental Zobrist hash, a capture quiescence search (all evasions
when in check), and move ordering by the table's move, captures by MVV-LVA,
two killers per ply and a history table. Principal-variation search,
late-move reductions, null-move pruning (never in check, nor without a
chariot, horse or cannon, where zugzwang is likely), aspiration windows and a
table that keeps the PV come on top, with a check extension and deeper
late-move reductions (growing with depth and move number, none for a check),
which a paired match kept together, and three ways to search less of what
does not matter, which a paired match at equal time kept together: a null
move reduced more the deeper it is (``adaptive_null``), a static null move
(near the horizon a static value a margin above beta cuts without a search)
and late-move pruning (near the horizon, off the PV and out of check, quiet
moves after the first few that give no check are not searched; skipping
them unmade, checks too, is cheaper but gained nothing at equal time).
Candidates, off by default until a paired match keeps them: capture pruning
in quiescence, futility pruning at the frontier, a lazy evaluation
(quiescence counts the moves only near its window) and quiet checks in
quiescence's first ply (``quiescence_checks``). Each is a bit of
``TECHNIQUES`` (``techniques``), so a paired match measures it. The G-Bot stand-ins keep
the plain search of their day (``PLAIN``). Terminal positions are scored by
the platform's result: the side to move with no legal move, or without its
general (pseudo legality), has lost; a position at the 120-ply limit is
worth the ``move_limit`` weight to the side the search plays (0, a draw, by
default). Wins are worth ``WIN - ply`` so shorter wins are preferred.

Exact to the depth (``exact_mates``, in the default): a search of nominal
depth d plays the shortest forced win within d plies when there is one,
puts off a forced loss within d as long as it can, and claims no win or
loss that is not forced. Five faults skipped or misread forced results;
the tactics suite (``tests/tactics/``: mates in 1 to 3 labelled by
Fairy-Stockfish and a full-width prover) showed the first, second and
fourth (72 of its 400 positions failed at depth = mate length), the other
two follow from reading the code:

* quiescence stood pat at the horizon on a side with no legal move: a
  stalemate loses, so a win on the last ply of the depth went unseen (now
  the horizon node tests for a legal move);
* iterative deepening stopped at the first mate score, also one found beyond
  the depth along an extended check, while a shorter mate inside it waited
  for the next depth (now only a mate within the depth ends it);
* the table kept mate scores as distances from the root, so a transposition
  at another ply read a mate of the wrong length (now by distance from the
  node; mate-distance pruning bounds the window too);
* late-move reductions searched the quiet move that wins too shallow to see
  the win, late-move pruning skipped a quiet move that stalemates, and the
  static and real null moves cut at nodes whose side is lost within the
  depth (a pass hides zugzwang, the shallower search hides the threat);
* pruned moves of a side whose every searched move lost to a mate made a
  forced loss of one that had an escape.

The rule the technique keeps: no reduction or pruning may hide a win of
either side within the depth. A side loses only on its own move, an even
number of plies on, so a reduction by one ply from an odd depth is free;
anything more, and each null move and static null move, needs a proof that
the side that could lose does not lose within the depth (``_holds``: a
full-width search without evaluation, up to ``PROOF_DEPTH`` plies, its
results kept in a table; its positions count as nodes). Late-move pruning
and futility stay within two plies of the horizon, where a quiet move that
gives no check wins in time only by leaving the other side no legal move
(tested, or ruled out by two spare moves no single move takes away), and
prune nothing while every move so far loses. It costs time (what it costs
in strength is not measured yet): at depth 8 of six middle-game positions
the search visits 20% more nodes and its proofs eleven times as many
positions again, cheaper ones, 3.7 times the time in all; in a second a move
it completes depth 8 where the search without it completes 12
(docs/players.md, Chinese chess). Without the bit every search is as before,
so stored games replay.

Depth and node limits are deterministic; a deadline (``time.monotonic()``,
live play) becomes a node budget per iteration from the speed measured so
far. Ties at the root are broken by shuffling the root moves with the seed
before the first iteration.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from harness.errors import IllegalAction
from harness.games import Rules, State
from harness.games.compiled import hot_path
from harness.games.xiangqi import _core as core
from harness.games.xiangqi._core import (ADVISOR, CANNON, CHARIOT, COL_OF_SQUARE, ELEPHANT, GENERAL, HASH,
                                         HORSE, OFF, MAX_MOVES, NSQ, OWN_HALF, ROW_OF_SQUARE, SIDE, SOLDIER,
                                         SQUARE_OF_INDEX,
                                         generate, generate_legal, in_check, is_attacked, make, make_legal, may_check,
                                         may_expose, unmake)
from harness.games.xiangqi import MOVE_LIMIT
from harness.games.xiangqi.features import (ATTACKERS, FEATURES, FULL_PHASE, PHASE_WEIGHTS, TEXTBOOK,
                                            correction_tables, material, square_table)
from harness.games.gamekit import SearchResult, feature_index

_MATERIAL = {"soldier_advance": 0.0, "piece_square": 0.0, "mobility": 0.0, "general_safety": 0.0}

# The search of the days before the techniques (quiescence, killers and history, a table that
# always replaces): the G-Bot stand-ins keep it, so they keep their meaning.
PLAIN = "quiescence+ordering"

GBOT = {
    # A guess at the live G-Bot: fixed-depth minimax on material alone.
    "default": {"depth": 3, "techniques": PLAIN, "weights": TEXTBOOK | _MATERIAL},
}

# What ``eval=default`` is (``harness games`` prints it): a frozen table, never the live defaults.
GBOT_DEFAULT_SOURCE = "TEXTBOOK (the hand-set weights of before the first fit)"

# The evaluations a ladder stand-in may use (``gbot:depth=5,eval=material``): material alone, the
# project's weights when the ladder was made, and an active style that values mobility and piece
# placement more. All are built on ``TEXTBOOK``, which names every feature (those added since at 0),
# not on today's fitted defaults, so a rung keeps its meaning.
GBOT_EVALS: dict[str, dict[str, float]] = {
    "material": TEXTBOOK | _MATERIAL,
    "default": dict(TEXTBOOK),
    "active": TEXTBOOK | {"mobility": 0.15, "piece_square": 1.5},
}

WIN = 10000.0
INFINITY = 1e9
MAX_PLY = 64
TT_BITS = 18
EXACT, LOWER, UPPER = 1, 2, 3
KILLER_KEY = 1 << 29    # ordering key of the first killer (captures above, history below)
EPSILON = 1e-6          # the width of a null window (values are sums of weights, far coarser)
ASPIRATION = 0.5        # half-width in pawns of the root's first window around the last value
LMR_DEPTH = 3           # reduce late quiet moves only this far from the horizon or more
LMR_AFTER = 3           # ... after this many legal moves of the node
NULL_DEPTH = 3          # null-move pruning this far from the horizon or more
NULL_REDUCTION = 2      # ... searching the pass this many plies shallower
EXTENSION_ROOM = 16      # check extensions stop this many plies short of MAX_PLY (room for quiescence)
DELTA = 2.0             # capture pruning: a capture that cannot lift alpha by this margin over its prize is skipped
QUIET_LAST = 1000       # quiescence checks: a quiet move's ordering key is -QUIET_LAST (after every capture)
FUTILITY_MARGIN = 1.5   # futility: per ply of depth left, how far below alpha the static value must be
LAZY_MOVES = 40         # lazy evaluation: the move-count difference assumed at most (99.9% of game positions)
NULL_DEPTH_STEP = 4     # adaptive null move: a ply more of reduction per this many plies of depth
STATIC_NULL_DEPTH = 3   # static null move: this close to the horizon or closer ...
STATIC_NULL_MARGIN = 1.2  # ... a static value this far above beta per ply of depth cuts at once
LMP_DEPTH = 3           # late-move pruning: this close to the horizon or closer ...
LMP_BASE = 4            # ... quiet moves after the first LMP_BASE + depth * depth are not searched
PROOF_DEPTH = 5         # exact_mates: a side is proven to hold this many plies at most (_holds) ...
PROOF_SLOTS = 1 << 16   # ... and the proofs are kept in a table of this many entries
EXACT_LMP_DEPTH = 2     # exact_mates: late-move pruning this close to the horizon (a proof a move, further)
# techniques, as bits of ``techniques`` (each can be turned on or off to measure it)
PVS, LMR, NULL_MOVE, QUIESCENCE, ASPIRATE, KEEP_PV, ORDERING, CHECK_EXTENSION, CAPTURE_PRUNING, DEEP_LMR, \
    FUTILITY, LAZY_EVAL, ADAPTIVE_NULL, STATIC_NULL, LATE_MOVE_PRUNING, QUIESCENCE_CHECKS, EXACT_MATES = \
    1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536
ALL_TECHNIQUES = PVS | LMR | NULL_MOVE | QUIESCENCE | ASPIRATE | KEEP_PV | ORDERING | CHECK_EXTENSION \
    | CAPTURE_PRUNING | DEEP_LMR | FUTILITY | LAZY_EVAL | ADAPTIVE_NULL | STATIC_NULL | LATE_MOVE_PRUNING \
    | QUIESCENCE_CHECKS | EXACT_MATES
# what ``alphabeta`` (and so ``strong``) uses unless told: the techniques a paired match kept (the
# candidates wait for theirs). ``BASE_TECHNIQUES`` were the default until deep_lmr and check_extension
# won their match together, and ``EXTENDED_TECHNIQUES`` until the pruning trio won its match at equal time
# (docs/players.md); the measurements stored before name them.
# ``PRUNED_TECHNIQUES`` then, until exact_mates joined without a match: a search that skips forced wins
# inside its depth is wrong whatever it gains on average (tests/tactics/).
CANDIDATES = CAPTURE_PRUNING | FUTILITY | LAZY_EVAL | QUIESCENCE_CHECKS
BASE_TECHNIQUES = PVS | LMR | NULL_MOVE | QUIESCENCE | ASPIRATE | KEEP_PV | ORDERING
EXTENDED_TECHNIQUES = BASE_TECHNIQUES | DEEP_LMR | CHECK_EXTENSION
PRUNED_TECHNIQUES = EXTENDED_TECHNIQUES | ADAPTIVE_NULL | STATIC_NULL | LATE_MOVE_PRUNING
DEFAULT_TECHNIQUES = PRUNED_TECHNIQUES | EXACT_MATES
TECHNIQUES = {"pvs": PVS, "lmr": LMR, "null_move": NULL_MOVE, "quiescence": QUIESCENCE, "aspiration": ASPIRATE,
              "keep_pv": KEEP_PV, "ordering": ORDERING, "check_extension": CHECK_EXTENSION,
              "capture_pruning": CAPTURE_PRUNING, "deep_lmr": DEEP_LMR, "futility": FUTILITY,
              "lazy_eval": LAZY_EVAL, "adaptive_null": ADAPTIVE_NULL, "static_null": STATIC_NULL,
              "late_move_pruning": LATE_MOVE_PRUNING, "quiescence_checks": QUIESCENCE_CHECKS,
              "exact_mates": EXACT_MATES}
# Weight indices, by name from the declared order of FEATURES.
INDEX = feature_index(FEATURES)
(W_ADVISOR, W_ELEPHANT, W_HORSE, W_CHARIOT, W_CANNON, W_SOLDIER, W_CROSSED, W_ADVANCE, W_PST, W_MOBILITY,
 W_SAFETY, W_HORSE_MOBILITY, W_CHARIOT_MOBILITY, W_CANNON_MOBILITY, W_ACROSS, W_EXPOSED, W_HANGING,
 W_MOVE_LIMIT, W_EMPTY_CANNON, W_SQUARES, W_EARLY, W_LATE, W_ATTACK) = (INDEX[n] for n in (
    "advisor", "elephant", "horse", "chariot", "cannon", "soldier", "soldier_crossed", "soldier_advance",
    "piece_square", "mobility", "general_safety", "horse_mobility", "chariot_mobility", "cannon_mobility",
    "pieces_across", "exposed_general", "hanging", "move_limit", "empty_cannon", "squares", "early_squares",
    "late_squares", "attack_squares"))
# Which weight holds each kind's value (general: none, -1).
KIND_WEIGHT = np.array([-1, -1, W_ADVISOR, W_ELEPHANT, W_HORSE, W_CHARIOT, W_CANNON, W_SOLDIER], dtype=np.int64)
# Victim values for MVV-LVA ordering by kind (general highest: taking it wins).
ORDER_VALUE = np.array([0, 100, 2, 2, 4, 9, 5, 1], dtype=np.int64)


def _piece_square_tables() -> np.ndarray:
    """Bonuses in pawns by kind and (row, column) seen from red (row 9 is its back rank)."""
    table = np.zeros((8, 90), dtype=np.float64)
    for row in range(10):
        advance = 9 - row  # rows away from the own back rank
        for col in range(9):
            centre = 1.0 - abs(col - 4) / 4.0
            index = row * 9 + col
            table[HORSE, index] = 0.3 * centre + 0.05 * min(advance, 6) - (0.2 if advance == 0 and col in (0, 8) else 0)
            table[CHARIOT, index] = 0.15 * min(advance, 6) / 6 + (0.1 if col in (3, 5) else 0)
            table[CANNON, index] = (0.2 if col == 4 else 0.05 * centre) + (0.05 if 2 <= advance <= 4 else 0)
            table[SOLDIER, index] = 0.15 * centre if advance >= 5 else 0.0
            table[GENERAL, index] = -0.1 * advance - (0.05 if col != 4 else 0)
    return table


PST = _piece_square_tables()
# The fitted square values (``squares``; ``harness/games/xiangqi/squares.json``), indexed like ``PST``. The
# compiled code takes them as an argument: numba would freeze a global into its cache, and a refitted file
# would go unseen.
SQUARES = square_table()
# The early, late and attack tables (``correction_tables``), passed the same way.
CORRECTIONS = correction_tables()
# By kind: its share of the board's force (``features.PHASE_WEIGHTS``), and whether the attack table reads it.
PHASE_OF_KIND = np.array([PHASE_WEIGHTS.get(kind, 0) for kind in range(8)], dtype=np.int64)
ATTACKER = np.array([kind in ATTACKERS for kind in range(8)], dtype=np.bool_)
# deep_lmr: plies a late quiet move is reduced by, by depth left and move number (both capped at 63)
REDUCTION = np.array([[max(1, int(0.5 + np.log(d) * np.log(m) / 2.0)) if d and m else 1 for m in range(64)]
                      for d in range(64)], dtype=np.int64)


@hot_path
def _line_threats(board, king, owner):
    """Enemy pieces on the general's four lines: chariots with at most one piece between and cannons with
    at most two (``exposed_general``), and of those the cannons with none between (``empty_cannon``)."""
    enemy = (1 - owner) * 8
    exposed = 0
    empty = 0
    for k in range(4):
        d = core.ORTHOGONAL[k]
        s = king + d
        between = 0
        while board[s] != OFF and between <= 2:
            p = board[s]
            if p != 0:
                if (p == enemy + CHARIOT and between <= 1) or p == enemy + CANNON:
                    exposed += 1
                    if p == enemy + CANNON and between == 0:
                        empty += 1
                between += 1
            s += d
    return exposed, empty


@njit(cache=True)
def piece_values(weights, squares, corrections):
    """Each piece's own value in pawns by part, code and square, for ``weights``: ``[0]`` the whole
    (material, a crossed soldier's terms, the piece-square bonus and the fitted square value), ``[1]`` the
    material and soldier terms alone (what ``hanging`` loses), ``[2]`` the early correction less the
    late one (the late one is in the whole: ``share * early + (1 - share) * late`` is ``late + share *
    (early - late)``, one sum a piece where the phase weights it); ``[3]`` by kind (not code) and
    ``rows * 9 + files`` apart from the enemy general, the attack table's value.

    A search computes it once, so the evaluation reads a piece's value where it summed four products a
    node; the same operations in the same order give the same value to the last bit.
    """
    values = np.zeros((4, 16, NSQ), dtype=np.float64)
    for owner in range(2):
        for kind in range(GENERAL, SOLDIER + 1):
            code = owner * 8 + kind
            for index in range(90):
                sq = SQUARE_OF_INDEX[index]
                row = index // 9
                col = index - row * 9
                red_row = row if owner == 0 else 9 - row
                value = 0.0
                w = KIND_WEIGHT[kind]
                if w >= 0:
                    value = weights[w]
                if kind == SOLDIER and not OWN_HALF[owner, sq]:
                    value += weights[W_CROSSED] + weights[W_ADVANCE] * (4 - red_row)
                values[1, code, sq] = value
                value += weights[W_PST] * PST[kind, red_row * 9 + col]
                value += weights[W_SQUARES] * squares[kind, red_row * 9 + col]  # a step of its own: + 0.0 is exact
                late = weights[W_LATE] * corrections[1, kind, red_row * 9 + col]
                values[0, code, sq] = value + late   # as exact at 0
                values[2, code, sq] = weights[W_EARLY] * corrections[0, kind, red_row * 9 + col] - late
    for kind in range(8):
        for offset in range(90):
            values[3, kind, offset] = weights[W_ATTACK] * corrections[2, kind, offset]
    return values


def _piece_flags() -> np.ndarray:
    """By code and square, the piece's part in the counts of the evaluation: 1 a guard of its own general
    (advisor, elephant), 2 near the other palace (any other piece but the general, files 2-6, within three
    rows of the far edge), 4 a chariot, horse or cannon over the river."""
    flags = np.zeros((16, NSQ), dtype=np.int64)
    for owner in range(2):
        for kind in range(GENERAL, SOLDIER + 1):
            for index in range(90):
                row, col = divmod(index, 9)
                red_row = row if owner == 0 else 9 - row
                flag = 0
                if kind in (ADVISOR, ELEPHANT):
                    flag |= 1
                elif kind != GENERAL and 2 <= col <= 6 and red_row <= 2:
                    flag |= 2
                if kind in (CHARIOT, HORSE, CANNON) and red_row <= 4:
                    flag |= 4
                flags[owner * 8 + kind, SQUARE_OF_INDEX[index]] = flag
    return flags


PIECE_FLAGS = _piece_flags()


@hot_path
def _static_value(board, plist, weights, values):
    """Red's value in pawns without the move counts: material, piece squares, safety, pieces over the
    river, the general's open lines, pieces left hanging, and the early, late and attack corrections
    (``values``: ``piece_values(weights, ...)``). The phase-weighted and attack parts are summed apart and
    added last, only when weighted, so an evaluation without them is the same to the last bit as before
    they were."""
    score = 0.0
    hanging = weights[W_HANGING] != 0.0
    tapered = weights[W_EARLY] != 0.0 or weights[W_LATE] != 0.0
    attack = weights[W_ATTACK] != 0.0
    force = 0
    shift = 0.0
    attacks = 0.0
    for owner in range(2):
        sign = 1.0 if owner == 0 else -1.0
        defenders = 0
        attackers = 0
        across = 0
        lost = 0.0
        target = plist[(1 - owner) * 16]  # the enemy general (0 when taken, under pseudo legality)
        for i in range(16):
            sq = plist[owner * 16 + i]
            if sq == 0:
                continue
            code = board[sq]
            if hanging and code & 7 != GENERAL and is_attacked(board, sq, owner) \
                    and not is_attacked(board, sq, 1 - owner):
                lost += values[1, code, sq]
            flags = PIECE_FLAGS[code, sq]
            defenders += flags & 1
            attackers += (flags >> 1) & 1
            across += flags >> 2
            score += sign * values[0, code, sq]
            if tapered:
                force += PHASE_OF_KIND[code & 7]
                shift += sign * values[2, code, sq]
            if attack and ATTACKER[code & 7] and target != 0:
                rows = abs(ROW_OF_SQUARE[sq] - ROW_OF_SQUARE[target])
                files = abs(COL_OF_SQUARE[sq] - COL_OF_SQUARE[target])
                attacks += sign * values[3, code & 7, rows * 9 + files]
        # Guards of the own general count for ``owner``; its pieces near the other palace too.
        score += sign * weights[W_SAFETY] * (0.25 * defenders + attackers)
        score += sign * (weights[W_ACROSS] * across - weights[W_HANGING] * lost)
        if (weights[W_EXPOSED] != 0.0 or weights[W_EMPTY_CANNON] != 0.0) and plist[owner * 16] != 0:
            exposed, empty = _line_threats(board, plist[owner * 16], owner)
            score -= sign * weights[W_EXPOSED] * exposed   # two steps, as before they shared a walk: same bits
            score -= sign * weights[W_EMPTY_CANNON] * empty
    if tapered:
        score += min(force, FULL_PHASE) / FULL_PHASE * shift
    if attack:
        score += attacks
    return score


@hot_path
def _add_mobility(score, board, plist, side, weights, moves):
    """Red's ``score`` plus the move counts' value (all moves, and by horse, chariot and cannon): the
    dearest part of the evaluation, since it generates both sides' moves. Added in one fixed order so a
    lazy and a full evaluation agree to the last bit. The other side's moves are generated first, so
    ``side``'s are left in ``moves`` for quiescence to search: returns the score and how many (-1 when
    no move was generated)."""
    n = -1
    if weights[W_MOBILITY] != 0.0 or weights[W_HORSE_MOBILITY] != 0.0 or weights[W_CHARIOT_MOBILITY] != 0.0 \
            or weights[W_CANNON_MOBILITY] != 0.0:
        # move counts, red minus black: all, and by the moving kind
        moves_diff, horse_diff, chariot_diff, cannon_diff = 0, 0, 0, 0
        # the moves by kind only when a kind's count is weighted (the stand-ins weigh all moves alone)
        by_kind = weights[W_HORSE_MOBILITY] != 0.0 or weights[W_CHARIOT_MOBILITY] != 0.0 \
            or weights[W_CANNON_MOBILITY] != 0.0
        for step in range(2):
            owner = 1 - side if step == 0 else side
            sign_i = 1 if owner == 0 else -1
            n = generate(board, plist, owner, moves)
            moves_diff += sign_i * n
            for i in range(n if by_kind else 0):
                kind = board[moves[i] >> 8] & 7
                if kind == HORSE:
                    horse_diff += sign_i
                elif kind == CHARIOT:
                    chariot_diff += sign_i
                elif kind == CANNON:
                    cannon_diff += sign_i
        score += weights[W_MOBILITY] * moves_diff
        score += weights[W_HORSE_MOBILITY] * horse_diff + weights[W_CHARIOT_MOBILITY] * chariot_diff \
            + weights[W_CANNON_MOBILITY] * cannon_diff
    return score, n


@hot_path
def evaluate(board, plist, side, weights, values, moves):
    """The static value for ``side`` (to move) in pawns: material, piece squares, safety, mobility,
    pieces over the river, the general's open lines and pieces left hanging."""
    score, _ = _add_mobility(_static_value(board, plist, weights, values), board, plist, side, weights, moves)
    return score if side == 0 else -score


@hot_path
def _mobility_bound(weights):
    """The most the move counts can add or take (``LAZY_MOVES`` moves of each counted kind)."""
    return LAZY_MOVES * (abs(weights[W_MOBILITY]) + abs(weights[W_HORSE_MOBILITY])
                         + abs(weights[W_CHARIOT_MOBILITY]) + abs(weights[W_CANNON_MOBILITY]))


@hot_path
def _order(board, moves, scores, n, tt_move, killers, history, ply, ordering):
    """Keys: the table's move, captures by MVV-LVA, then (with ``ordering``) killers and history."""
    for i in range(n):
        m = moves[i]
        if m == tt_move:
            scores[i] = 1 << 40
            continue
        victim = board[m & 255]
        if victim != 0:
            scores[i] = (1 << 30) + ORDER_VALUE[victim & 7] * 16 - ORDER_VALUE[board[m >> 8] & 7]
        elif not ordering:
            scores[i] = 0
        elif m == killers[ply, 0]:
            scores[i] = KILLER_KEY
        elif m == killers[ply, 1]:
            scores[i] = KILLER_KEY - 1
        else:
            scores[i] = history[m >> 8, m & 255]


@hot_path
def _pick(moves, scores, start, n):
    """Move the best-scored remaining move to ``start`` (selection sort, one step)."""
    best = start
    for i in range(start + 1, n):
        if scores[i] > scores[best]:
            best = i
    if best != start:
        moves[start], moves[best] = moves[best], moves[start]
        scores[start], scores[best] = scores[best], scores[start]
    return moves[start]


@hot_path
def _time_up(info):
    """Count a node (``info[0]``); set the stop flag ``info[2]`` once the budget ``info[1]`` is spent."""
    info[0] += 1
    if info[1] > 0 and info[0] >= info[1]:
        info[2] = 1
    return info[2] != 0


@hot_path
def quiesce(board, slot_of, plist, st, alpha, beta, ply, weights, values, info, move_buf, score_buf, pseudo,
            techniques, checks, horizon):
    """Captures only (all evasions when in check) until the position is quiet.

    At the ply ``horizon`` (with ``EXACT_MATES`` the ply where the full-width
    search ended, else -1) a side with no legal move has lost, in check or
    not: standing pat there would miss a win by stalemate on the last ply of
    the nominal depth. (The recursion passes ``horizon`` on unchanged: a
    literal argument would compile a second version of this function, which
    numba's cache cannot load.)

    With ``checks`` > 0 (``QUIESCENCE_CHECKS``: 1 at the horizon) quiet moves
    that give check are tried too, after the captures: the reply searches all
    its evasions, so a check that wins material a ply past the horizon is
    seen; ``checks`` falls by one a ply, so the checks stop there.

    With ``CAPTURE_PRUNING`` (not in check) two kinds of capture are skipped:
    one whose prize, with ``DELTA`` to spare, cannot lift the standing value to
    alpha, and one by a piece worth more than its prize onto a square the
    other side attacks after the move (a likely losing exchange). With
    ``LAZY_EVAL`` the standing value counts the moves only when the rest of
    the evaluation lies within ``_mobility_bound`` of the window.
    """
    side = st[SIDE]
    if plist[side * 16] == 0:
        return -WIN + ply
    if _time_up(info):
        return 0.0
    moves = move_buf[ply]
    scores = score_buf[ply]
    checked = (not pseudo) and is_attacked(board, plist[side * 16], side)
    if ply >= MAX_PLY - 1:
        return evaluate(board, plist, side, weights, values, moves)
    best = -INFINITY
    n = -1  # the side's moves, when the evaluation has left them in ``moves``
    if not checked:
        sign = 1.0 if side == 0 else -1.0
        static = _static_value(board, plist, weights, values)
        if techniques & LAZY_EVAL:
            # the move counts are generated only when they could decide the standing value's place
            # against the window: a position a margin above beta or below alpha stands on the rest
            margin = _mobility_bound(weights)
            best = sign * static
            if best - margin < beta and best + margin > alpha:
                counted, n = _add_mobility(static, board, plist, side, weights, moves)
                best = sign * counted
        else:
            counted, n = _add_mobility(static, board, plist, side, weights, moves)
            best = sign * counted
        if ply == horizon:
            if n < 0:
                n = generate(board, plist, side, moves)
            if not _any_legal(board, slot_of, plist, st, moves, n, pseudo):
                return -WIN + ply
        if best >= beta:
            return best
        if best > alpha:
            alpha = best
    if n < 0:
        n = generate(board, plist, side, moves)
    kept = 0
    general = plist[(1 - side) * 16]
    quiet_checks = checks > 0 and not checked and general != 0
    for i in range(n):
        m = moves[i]
        victim = board[m & 255]
        tactical = checked or victim != 0
        if tactical or quiet_checks and may_check(m, general):
            moves[kept] = m
            # captures by MVV-LVA, quiet moves (tried only if they give check) after them
            scores[kept] = ORDER_VALUE[victim & 7] * 16 - ORDER_VALUE[board[m >> 8] & 7] if tactical else -QUIET_LAST
            kept += 1
    legal = 0
    king = plist[side * 16]
    prune = (techniques & CAPTURE_PRUNING) != 0 and not checked
    for i in range(kept):
        m = _pick(moves, scores, i, kept)
        prize, spent = 0.0, 0.0
        if prune:
            prize, spent = _piece_value(board[m & 255], weights), _piece_value(board[m >> 8], weights)
            if best + prize + DELTA <= alpha:
                continue
        undo = make_legal(board, slot_of, plist, st, m, king, checked, pseudo)
        if undo < 0:
            continue
        legal += 1
        if prune and spent > prize and is_attacked(board, m & 255, side) or \
                quiet_checks and scores[i] == -QUIET_LAST and not in_check(board, plist, 1 - side):
            unmake(board, slot_of, plist, st, m, undo)
            continue
        value = -quiesce(board, slot_of, plist, st, -beta, -alpha, ply + 1, weights, values, info,
                         move_buf, score_buf, pseudo, techniques, max(checks - 1, 0), horizon)
        unmake(board, slot_of, plist, st, m, undo)
        if info[2] != 0:
            return 0.0
        if value > best:
            best = value
            if value > alpha:
                alpha = value
                if value >= beta:
                    break
    if checked and legal == 0:
        return -WIN + ply
    return best


@hot_path
def _piece_value(code, weights):
    """A piece's material weight for capture pruning (the general priceless)."""
    kind = code & 7
    if kind == GENERAL:
        return WIN
    return weights[KIND_WEIGHT[kind]] if kind != 0 else 0.0


@hot_path
def _any_legal(board, slot_of, plist, st, moves, n, pseudo):
    """Whether the side to move has a legal move among its ``n`` moves in ``moves`` (all it has: ``generate``
    wrote them). Usually the first move that cannot expose the general settles it without being made."""
    if pseudo:
        return n > 0
    side = st[SIDE]
    king = plist[side * 16]
    checked = is_attacked(board, king, side)
    for i in range(n):
        if not may_expose(moves[i], king, checked):
            return True
    for i in range(n):
        undo = make_legal(board, slot_of, plist, st, moves[i], king, checked, pseudo)
        if undo >= 0:
            unmake(board, slot_of, plist, st, moves[i], undo)
            return True
    return False


@hot_path
def _can_move(board, slot_of, plist, st, moves, pseudo):
    """Whether the side to move has a legal move (``moves`` a buffer to generate them in)."""
    return _any_legal(board, slot_of, plist, st, moves, generate(board, plist, st[SIDE], moves), pseudo)


@hot_path
def _footprint(board, move):
    """The squares a short move of a piece other than the general needs: where it stands, the leg or eye it
    passes, where it lands; ``(-1, 0, 0)`` for any other move (a slide of more than one point, a cannon's
    capture, a general's step)."""
    fr = move >> 8
    to = move & 255
    kind = board[fr] & 7
    rows = ROW_OF_SQUARE[to] - ROW_OF_SQUARE[fr]
    cols = COL_OF_SQUARE[to] - COL_OF_SQUARE[fr]
    if kind == HORSE:
        return fr, fr + (rows // 2) * core.WIDTH if abs(rows) == 2 else fr + cols // 2, to
    if kind == ELEPHANT:
        return fr, (fr + to) // 2, to
    if kind == ADVISOR or kind == SOLDIER:
        return fr, fr, to
    if abs(rows) + abs(cols) == 1 and (kind == CHARIOT or kind == CANNON and board[to] == 0):
        return fr, fr, to
    return -1, 0, 0


@hot_path
def _spare_moves(board, plist, side, moves, n):
    """Two spare moves of ``side`` among its ``n`` moves in ``moves``: two legal moves that one move of the
    other side cannot both take away unless it gives check. Returns their squares (``_footprint``, three
    each), the first -1 if there are none.

    They are short moves (``_footprint``) that cannot expose the general
    (``may_expose``: legal whenever ``side`` is not in check) and need no
    square in common. A move of the other side that gives no check and lands
    on none of a move's squares leaves it a legal move: vacating a square
    takes no such move away (a capture becomes a step to an empty point).
    """
    king = plist[side * 16]
    first_a, first_b, first_c = -1, 0, 0
    for i in range(n):
        if may_expose(moves[i], king, False):
            continue
        a, b, c = _footprint(board, moves[i])
        if a < 0:
            continue
        if first_a < 0:
            first_a, first_b, first_c = a, b, c
        elif not _meets(a, b, c, first_a, first_b, first_c):
            return first_a, first_b, first_c, a, b, c
    return -1, 0, 0, 0, 0, 0


@hot_path
def _meets(a, b, c, x, y, z):
    """Whether the squares ``a, b, c`` and ``x, y, z`` have one in common."""
    return a == x or a == y or a == z or b == x or b == y or b == z or c == x or c == y or c == z


@hot_path
def _wins_at_once(board, slot_of, plist, st, moves, replies, info, pseudo, spare):
    """Whether the side to move has a move after which the other side has no legal move.

    When the other side has spare moves (``_spare_moves``; ``spare`` when
    the caller knows it has) only the moves that may give check
    (``may_check``) are made to find out.
    """
    side = st[SIDE]
    king = plist[side * 16]
    general = plist[(1 - side) * 16]
    checked = (not pseudo) and is_attacked(board, king, side)
    if not spare and not pseudo:
        spare = _spare_moves(board, plist, 1 - side, replies, generate(board, plist, 1 - side, replies))[0] >= 0
    for i in range(generate(board, plist, side, moves)):
        if spare and not may_check(moves[i], general):
            continue
        undo = make_legal(board, slot_of, plist, st, moves[i], king, checked, pseudo)
        if undo < 0:
            continue
        info[0] += 1
        won = (not spare or in_check(board, plist, 1 - side)) \
            and not _can_move(board, slot_of, plist, st, replies, pseudo)
        unmake(board, slot_of, plist, st, moves[i], undo)
        if won:
            return True
    return False


@hot_path
def _holds(board, slot_of, plist, st, move_buf, proofs, info, ply, depth, pseudo):
    """Whether the side to move (at ``ply``) is shown not to lose within ``depth`` plies, whatever the
    other side plays: a proof, never a guess, so False where it is not made (deeper than
    ``PROOF_DEPTH``, or under pseudo legality, where a general may be taken).

    A side loses only on its own move, at an even ply from here: within one
    ply only if it has no legal move now; within ``depth`` if each of its
    moves has an answer after which it loses within ``depth - 2``. The proof
    is a search for a move that holds against every answer, full width and
    without evaluation; it ends at the first such move, usually the first
    tried, so it makes some forty moves per two plies of depth (two plies
    from the end, only the answers that may give check are made when the
    side has spare moves: ``_wins_at_once``). ``proofs`` keeps each
    position's longest proven hold and shortest proven loss by its key (a
    search proves the same positions again at each depth). Each position
    it makes counts as a node of the search (``info[0]``): a node budget
    stands for time.
    """
    if depth <= 1:
        return _can_move(board, slot_of, plist, st, move_buf[ply], pseudo)
    if depth > PROOF_DEPTH or pseudo or ply + depth + 1 > MAX_PLY:
        return False
    key = st[HASH]
    slot = key & (PROOF_SLOTS - 1)
    if proofs[slot, 0] == key:
        if depth <= proofs[slot, 1]:
            return True
        if depth >= proofs[slot, 2]:
            return False
    else:
        proofs[slot, 0], proofs[slot, 1], proofs[slot, 2] = key, 1, MAX_PLY
    side = st[SIDE]
    king = plist[side * 16]
    checked = is_attacked(board, king, side)
    moves = move_buf[ply]
    replies = move_buf[ply + 1]
    n = generate(board, plist, side, moves)
    # two plies from the end: spare moves of this side that its own move leaves be are spare after it too
    a, b, c, x, y, z = _spare_moves(board, plist, side, moves, n) if depth <= 3 and not checked \
        else (-1, 0, 0, 0, 0, 0)
    for i in range(n):
        undo = make_legal(board, slot_of, plist, st, moves[i], king, checked, pseudo)
        if undo < 0:
            continue
        info[0] += 1
        if depth <= 3:
            fr, to = moves[i] >> 8, moves[i] & 255
            spare = a >= 0 and fr != king and not _meets(fr, to, to, a, b, c) and not _meets(fr, to, to, x, y, z)
            held = not _wins_at_once(board, slot_of, plist, st, replies, move_buf[ply + 2], info, pseudo, spare)
        else:
            held = True
            general = plist[(1 - side) * 16]
            threatened = is_attacked(board, general, 1 - side)
            for j in range(generate(board, plist, 1 - side, replies)):
                back = make_legal(board, slot_of, plist, st, replies[j], general, threatened, pseudo)
                if back < 0:
                    continue
                info[0] += 1
                held = _holds(board, slot_of, plist, st, move_buf, proofs, info, ply + 2, depth - 2, pseudo)
                unmake(board, slot_of, plist, st, replies[j], back)
                if not held:
                    break
        unmake(board, slot_of, plist, st, moves[i], undo)
        if held:
            proofs[slot, 1] = max(proofs[slot, 1], depth)
            return True
    proofs[slot, 2] = min(proofs[slot, 2], depth)
    return False


@hot_path
def _exact_reduction(board, slot_of, plist, st, move_buf, proofs, info, ply, depth, reduce, pseudo):
    """How far (``exact_mates``) a move may be reduced from ``depth`` that the other side, to move at
    ``ply``, has left: never so far that a loss of it within ``depth`` goes unseen.

    It loses only on its own move, an even number of plies on, so the
    reduced search sees every such loss while it reaches the last even ply
    within ``depth`` (one ply less than an odd depth is free); a reduction
    beyond that needs a proof that it does not lose within ``depth``
    (``_holds``). A win of it that the shallower search misses raises the
    value, so the move is searched again in full: that side needs no such
    care.
    """
    last = depth - depth % 2   # the last ply within the depth on which it can lose
    if depth - reduce >= last or _holds(board, slot_of, plist, st, move_buf, proofs, info, ply, depth, pseudo):
        return reduce
    return min(reduce, depth % 2)


@hot_path
def _table_value(value, ply):
    """A value as the table keeps it (``EXACT_MATES``): a win or loss by its distance from the node at
    ``ply``, not from the root, so the entry holds wherever the position recurs."""
    if value >= WIN - MAX_PLY:
        return value + ply
    if value <= -WIN + MAX_PLY:
        return value - ply
    return value


@hot_path
def _read_value(value, ply):
    """A table value (``_table_value``) back as seen from the root, at ``ply``."""
    if value >= WIN - MAX_PLY:
        return value - ply
    if value <= -WIN + MAX_PLY:
        return value + ply
    return value


@hot_path
def _store(tt_key, tt_move, tt_value, tt_depth, tt_flag, slot, key, move, value, depth, flag, keep_pv):
    """Write a table entry; with ``keep_pv`` an exact entry is only replaced by an exact or deeper one,
    so the principal variation survives the null-window searches around it."""
    if keep_pv and tt_key[slot] == key and tt_flag[slot] == EXACT and flag != EXACT and tt_depth[slot] > depth:
        return
    tt_key[slot] = key
    tt_move[slot] = move
    tt_value[slot] = value
    tt_depth[slot] = depth
    tt_flag[slot] = flag


@hot_path
def _has_pieces(board, plist, side):
    """Whether ``side`` has a chariot, horse or cannon (a null move is unsafe without one)."""
    for i in range(1, 16):
        sq = plist[side * 16 + i]
        if sq != 0:
            kind = board[sq] & 7
            if kind == CHARIOT or kind == HORSE or kind == CANNON:
                return True
    return False


@hot_path
def negamax(board, slot_of, plist, st, depth, alpha, beta, ply, weights, values, info, move_buf, score_buf,
            tt_key, tt_move, tt_value, tt_depth, tt_flag, killers, history, proofs, pseudo, game_ply, techniques):
    """The value of the position for the side to move, searched ``depth`` plies deep.

    ``techniques`` (bits of ``TECHNIQUES``) turns on: principal-variation
    search (moves after the first get a null window first), late-move
    reductions (quiet late moves a ply shallower first), null-move pruning
    (pass, search shallower; cut if still at least beta), quiescence at the
    horizon, killer and history ordering, and a table that keeps the PV;
    with ``EXACT_MATES`` none of them may hide a forced result within
    ``depth`` (the module docstring; ``proofs`` is its table of ``_holds``).
    """
    side = st[SIDE]
    if plist[side * 16] == 0:
        return -WIN + ply
    if game_ply + ply >= MOVE_LIMIT:  # rank 1 for both, unless the side to move has no legal move
        info[0] += 1
        if generate_legal(board, slot_of, plist, st, move_buf[ply], pseudo) == 0:
            return -WIN + ply
        # worth ``move_limit`` to the side the search plays (on move at even plies), its negative to the other
        return weights[W_MOVE_LIMIT] if ply % 2 == 0 else -weights[W_MOVE_LIMIT]
    if depth <= 0:
        if techniques & QUIESCENCE:
            return quiesce(board, slot_of, plist, st, alpha, beta, ply, weights, values, info, move_buf, score_buf,
                           pseudo, techniques, 1 if techniques & QUIESCENCE_CHECKS else 0,
                           ply if techniques & EXACT_MATES else -1)
        if _time_up(info):
            return 0.0
        if generate_legal(board, slot_of, plist, st, move_buf[ply], pseudo) == 0:
            return -WIN + ply
        return evaluate(board, plist, side, weights, values, move_buf[ply])
    if _time_up(info):
        return 0.0
    king = plist[side * 16]
    checked = (not pseudo) and is_attacked(board, king, side)
    if checked and (techniques & CHECK_EXTENSION) and ply + depth < MAX_PLY - EXTENSION_ROOM:
        depth += 1  # a check is searched a ply deeper: forced lines are where a horizon hides a loss
    exact = (techniques & EXACT_MATES) != 0
    if exact:
        # mate-distance pruning: no line from here ends sooner than the next ply
        alpha = max(alpha, -WIN + ply)
        beta = min(beta, WIN - ply - 1)
        if alpha >= beta:
            return alpha
    use_table = game_ply + ply + depth < MOVE_LIMIT  # values near the limit depend on the ply
    key = st[HASH]
    slot = key & ((1 << TT_BITS) - 1)
    best_move = -1
    if use_table and tt_key[slot] == key:
        best_move = tt_move[slot]
        if tt_depth[slot] >= depth:
            value = _read_value(tt_value[slot], ply) if exact else tt_value[slot]
            flag = tt_flag[slot]
            if flag == EXACT or (flag == LOWER and value >= beta) or (flag == UPPER and value <= alpha):
                return value
    pv_node = beta - alpha > EPSILON * 2
    # the static value, evaluated once by the first pruning that needs it (INFINITY until then)
    standing = INFINITY
    # futility: near the horizon, a position far below alpha tries its captures and checks only
    futile = False
    if (techniques & FUTILITY) and not pv_node and not checked and depth <= 2 and abs(alpha) < WIN - MAX_PLY:
        standing = evaluate(board, plist, side, weights, values, move_buf[ply])
        futile = standing + FUTILITY_MARGIN * depth <= alpha
    # static null move: near the horizon, a position far above beta is taken to hold without a search
    # (exact_mates: and the side to move is shown not to lose within the depth, see _holds)
    if (techniques & STATIC_NULL) and not pv_node and not checked and depth <= STATIC_NULL_DEPTH \
            and abs(beta) < WIN - MAX_PLY:
        if standing == INFINITY:
            standing = evaluate(board, plist, side, weights, values, move_buf[ply])
        if standing - STATIC_NULL_MARGIN * depth >= beta \
                and (not exact or _holds(board, slot_of, plist, st, move_buf, proofs, info, ply, depth, pseudo)):
            return standing
    # (exact_mates: the same; a pass can hide a loss, by zugzwang or by the shallower search)
    if (techniques & NULL_MOVE) and not pv_node and not checked and depth >= NULL_DEPTH and ply > 1 \
            and beta < WIN - MAX_PLY and _has_pieces(board, plist, side) \
            and (standing if standing != INFINITY else evaluate(board, plist, side, weights, values,
                                                                 move_buf[ply])) >= beta \
            and (not exact or _holds(board, slot_of, plist, st, move_buf, proofs, info, ply, depth, pseudo)):
        reduction = NULL_REDUCTION + (depth // NULL_DEPTH_STEP if techniques & ADAPTIVE_NULL else 0)
        st[SIDE] = 1 - side
        st[HASH] ^= core.ZOBRIST_SIDE
        value = -negamax(board, slot_of, plist, st, depth - 1 - reduction, -beta, -beta + EPSILON, ply + 1,
                         weights, values, info, move_buf, score_buf, tt_key, tt_move, tt_value, tt_depth, tt_flag,
                         killers, history, proofs, pseudo, game_ply, techniques)
        st[SIDE] = side
        st[HASH] ^= core.ZOBRIST_SIDE
        if info[2] != 0:
            return 0.0
        if value >= beta:
            return beta
    moves = move_buf[ply]
    scores = score_buf[ply]
    n = generate(board, plist, side, moves)
    _order(board, moves, scores, n, best_move, killers, history, ply, techniques & ORDERING)
    original_alpha = alpha
    best = -INFINITY
    legal = 0
    pvs = (techniques & PVS) != 0
    lmr = (techniques & LMR) != 0
    # late-move pruning: near the horizon, off the PV and out of check, late quiet moves are not searched
    late = LMP_BASE + depth * depth if (techniques & LATE_MOVE_PRUNING) and not pv_node and not checked \
        and depth <= (EXACT_LMP_DEPTH if exact else LMP_DEPTH) else MAX_MOVES
    # exact_mates, two plies from the horizon or closer: the other side has spare moves, so no quiet move
    # that gives no check leaves it without a legal move (and only that would win in time)
    spare = exact and depth <= 2 and (futile or late < MAX_MOVES) and not pseudo \
        and _spare_moves(board, plist, 1 - side, move_buf[ply + 1],
                         generate(board, plist, 1 - side, move_buf[ply + 1]))[0] >= 0
    for i in range(n):
        m = _pick(moves, scores, i, n)
        quiet = board[m & 255] == 0 and scores[i] < KILLER_KEY - 1
        undo = make_legal(board, slot_of, plist, st, m, king, checked, pseudo)
        if undo < 0:
            continue
        legal += 1
        # (exact_mates: nothing is pruned while every move so far loses, nor a move after which the other
        # side is not shown to hold for the rest of the depth)
        if (futile and legal > 1 or legal > late) and quiet and not in_check(board, plist, 1 - side) \
                and (not exact or best > -WIN + MAX_PLY and (
                    spare or _holds(board, slot_of, plist, st, move_buf, proofs, info, ply + 1, depth - 1, pseudo))):
            unmake(board, slot_of, plist, st, m, undo)
            continue
        if legal > 1 and (pvs or lmr):
            reduce = 1 if lmr and quiet and not checked and legal > LMR_AFTER and depth >= LMR_DEPTH else 0
            if reduce and (techniques & DEEP_LMR):
                # more for later moves deeper down, less in the PV, none for a check
                if in_check(board, plist, 1 - side):
                    reduce = 0
                else:
                    reduce = REDUCTION[min(depth, 63), min(legal, 63)] - (1 if pv_node else 0)
                    reduce = max(1, min(reduce, depth - 2))
            if reduce and exact:
                reduce = _exact_reduction(board, slot_of, plist, st, move_buf, proofs, info, ply + 1, depth - 1, reduce,
                                          pseudo)
            # a null window (PVS) or the full one, reduced first if the move is late and quiet
            low = -alpha - EPSILON if pvs else -beta
            value = -negamax(board, slot_of, plist, st, depth - 1 - reduce, low, -alpha, ply + 1, weights, values,
                             info, move_buf, score_buf, tt_key, tt_move, tt_value, tt_depth, tt_flag, killers, history,
                             proofs, pseudo, game_ply, techniques)
            if reduce and value > alpha and info[2] == 0:
                value = -negamax(board, slot_of, plist, st, depth - 1, low, -alpha, ply + 1, weights, values, info,
                                 move_buf, score_buf, tt_key, tt_move, tt_value, tt_depth, tt_flag, killers,
                                 history, proofs, pseudo, game_ply, techniques)
            if pvs and alpha < value < beta and info[2] == 0:
                value = -negamax(board, slot_of, plist, st, depth - 1, -beta, -alpha, ply + 1, weights, values, info,
                                 move_buf, score_buf, tt_key, tt_move, tt_value, tt_depth, tt_flag, killers,
                                 history, proofs, pseudo, game_ply, techniques)
        else:
            value = -negamax(board, slot_of, plist, st, depth - 1, -beta, -alpha, ply + 1, weights, values, info,
                             move_buf, score_buf, tt_key, tt_move, tt_value, tt_depth, tt_flag, killers, history,
                             proofs, pseudo, game_ply, techniques)
        unmake(board, slot_of, plist, st, m, undo)
        if info[2] != 0:
            return 0.0
        if value > best:
            best = value
            best_move = m
            if value > alpha:
                alpha = value
                if value >= beta:
                    if board[m & 255] == 0 and (techniques & ORDERING):
                        if killers[ply, 0] != m:
                            killers[ply, 1] = killers[ply, 0]
                            killers[ply, 0] = m
                        history[m >> 8, m & 255] += depth * depth
                    break
    if legal == 0:
        return -WIN + ply
    if use_table:
        flag = UPPER if best <= original_alpha else (LOWER if best >= beta else EXACT)
        _store(tt_key, tt_move, tt_value, tt_depth, tt_flag, slot, key, best_move,
               _table_value(best, ply) if exact else best, depth, flag, (techniques & KEEP_PV) != 0)
    return best


def _iterate(position: tuple[np.ndarray, ...], root_moves: np.ndarray, first_depth: int, last_depth: int,
             weights: np.ndarray, values: np.ndarray, info: np.ndarray, tables: tuple[np.ndarray, ...], pseudo: bool,
             game_ply: int, techniques: int, guess: float) -> tuple[float, int]:
    """Iterative deepening from ``first_depth`` to ``last_depth`` over the legal ``root_moves``.

    The root loop is plain Python calling the compiled ``negamax`` once per
    root move (a few microseconds each): numba cannot load a cached function
    that calls a recursive one, while a cached recursive function called
    from Python loads fine.

    With PVS every root move after the first gets a null window first; with
    aspiration an iteration's first window is the last value plus or minus
    ``ASPIRATION`` (``guess`` before the first), searched again in full when
    the value falls outside.

    The best move so far is kept at ``root_moves[0]`` (the others keep their
    seeded order), also when the node budget stops an iteration part way: a
    move that beat the previous best there has been searched in full.

    Returns:
        The value of ``root_moves[0]`` (-INFINITY if no iteration gave one)
        and the last completed depth.
    """
    board, slot_of, plist, st = position
    best_value, completed = -INFINITY, first_depth - 1
    pvs = bool(techniques & PVS)
    for depth in range(first_depth, last_depth + 1):
        low, high = -INFINITY, INFINITY
        centre = best_value if best_value > -INFINITY else guess
        if techniques & ASPIRATE and depth > 1 and abs(centre) < WIN - MAX_PLY:
            low, high = centre - ASPIRATION, centre + ASPIRATION
        while True:
            alpha, iteration_best, value = low, -1, -INFINITY
            for i, move in enumerate(root_moves):
                undo = make(board, slot_of, plist, st, move)
                if pvs and i > 0:
                    value = -negamax(board, slot_of, plist, st, depth - 1, -alpha - EPSILON, -alpha, 1, weights,
                                     values, info, *tables, pseudo, game_ply, techniques)
                    if not info[2] and alpha < value < high:
                        value = -negamax(board, slot_of, plist, st, depth - 1, -high, -alpha, 1, weights, values, info,
                                         *tables, pseudo, game_ply, techniques)
                else:
                    value = -negamax(board, slot_of, plist, st, depth - 1, -high, -alpha, 1, weights, values, info,
                                     *tables, pseudo, game_ply, techniques)
                unmake(board, slot_of, plist, st, move, undo)
                if info[2]:
                    break
                if value > alpha:
                    alpha, iteration_best = value, i
                    if value >= high:
                        break
            if not info[2] and (iteration_best < 0 and low > -INFINITY or alpha >= high < INFINITY):
                low, high = -INFINITY, INFINITY  # outside the aspiration window: search again, fully
                continue
            break
        if iteration_best >= 0 and (not info[2] or iteration_best != 0):
            best = root_moves[iteration_best]
            root_moves[1:iteration_best + 1] = root_moves[:iteration_best].copy()
            root_moves[0] = best
            best_value = alpha
        if info[2]:
            break
        completed = depth
        if _settled(best_value, depth, techniques):
            break
    return best_value, completed


def _settled(value: float, depth: int, techniques: int) -> bool:
    """Whether a value found at ``depth`` ends the iterative deepening: a win or loss in sight.

    With ``EXACT_MATES`` only one within ``depth`` plies: that is the
    shortest win (or the longest defence) there is, while one found further
    off, along the lines a check extended, may have a shorter one beside it
    that the next depth finds.
    """
    if abs(value) < WIN - MAX_PLY:
        return False
    return not techniques & EXACT_MATES or WIN - abs(value) <= depth


def _tables() -> tuple[np.ndarray, ...]:
    """Fresh search tables: move and score buffers, the transposition table, killers, history, proofs."""
    size = 1 << TT_BITS
    return (np.empty((MAX_PLY + 1, MAX_MOVES), dtype=np.int64), np.empty((MAX_PLY + 1, MAX_MOVES), dtype=np.int64),
            np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.float64),
            np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64),
            np.zeros((MAX_PLY + 1, 2), dtype=np.int64), np.zeros((NSQ, NSQ), dtype=np.int64),
            np.zeros((PROOF_SLOTS, 3), dtype=np.int64))


def _root_moves(state: State, seed: int) -> np.ndarray:
    """The legal moves of ``state`` as engine moves, shuffled by ``seed``."""
    order = np.random.Generator(np.random.PCG64(seed)).permutation(len(state.legal))
    moves = np.empty(len(state.legal), dtype=np.int64)
    for i, index in enumerate(order):
        source, target = divmod(state.legal[index], 90)
        moves[i] = core.SQUARE_OF_INDEX[source] << 8 | core.SQUARE_OF_INDEX[target]
    return moves


# Nodes per second assumed before a timed search has measured its own.
_START_RATE = 300_000.0


def search(rules: Rules, state: State, weights: np.ndarray, *, depth: int | None = None,
           nodes: int | None = None, deadline: float | None = None, seed: int = 0,
           techniques: int = DEFAULT_TECHNIQUES) -> SearchResult:
    """Search for the side to move of ``state`` and return the move it chose.

    A deadline is kept without reading the clock inside compiled code: each
    iteration gets the node budget that the speed measured so far allows in
    the time left.

    Args:
        rules: Chinese chess rules (its legality decides what may be played).
        state: a position still in play.
        weights: the float64 weight vector in ``FEATURES`` order.
        depth: maximum depth in plies (default 4 when no other limit is set).
        nodes: node budget (deterministic).
        deadline: a ``time.monotonic()`` instant to stop at (live play).
        seed: breaks ties between equally valued root moves.
        techniques: bits of ``TECHNIQUES`` to use (``DEFAULT_TECHNIQUES`` unless told; turning one on or
            off measures it).

    Returns:
        The chosen action, its value in pawns for the side to move, the last
        fully searched depth and the nodes visited.

    Raises:
        IllegalAction: the game is already over.
    """
    if rules.is_terminal(state):
        raise IllegalAction(f"the game is over ({state.reason}); there is nothing to search")
    if depth is None:
        depth = 4 if nodes is None and deadline is None else MAX_PLY - 2
    depth = max(1, min(depth, MAX_PLY - 2))
    root_moves = _root_moves(state, seed)
    info = np.zeros(3, dtype=np.int64)
    info[1] = nodes or 0
    position = rules.position(state)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    common = (weights, piece_values(weights, SQUARES, CORRECTIONS), info, _tables(), bool(rules.pseudo), int(state.ply))
    value, completed = -INFINITY, 0
    if deadline is None:
        value, completed = _iterate(position, root_moves, 1, depth, *common, techniques, 0.0)
    else:
        rate = _START_RATE
        for level in range(1, depth + 1):
            started, left = time.monotonic(), deadline - time.monotonic()
            if left <= 0 and level > 1:
                break
            budget = info[0] + max(1000, int(0.9 * rate * left))
            info[1] = budget if nodes is None else min(budget, nodes)
            before = info[0]
            found, done = _iterate(position, root_moves, level, level, *common, techniques,
                                   value if value > -INFINITY else 0.0)
            if found > -INFINITY:
                value = found
            completed = max(completed, done)
            elapsed = time.monotonic() - started
            if info[0] - before >= 20_000 and elapsed > 0:  # small iterations measure call overhead
                rate = (info[0] - before) / elapsed
            if info[2] != 0 or done < level or _settled(value, level, techniques):
                break
    move = root_moves[0]
    source, target = core.INDEX_OF_SQUARE[move >> 8], core.INDEX_OF_SQUARE[move & 255]
    action = {"from": [int(source) // 9, int(source) % 9], "to": [int(target) // 9, int(target) % 9]}
    return SearchResult(action=action, value=float(value if value > -INFINITY else 0.0), depth=int(completed),
                        nodes=int(info[0]))


def material_deficit(rules: Rules, state: State) -> float:
    """How many textbook pawns the side to move is behind, once settled: 0 right after a capture.

    A capture may be about to be answered (an exchange half played), so a
    deficit counts only when the last move captured nothing (``halfmove`` of at
    least 1): what alpha-beta's ``behind`` reads to search longer in a game
    that is going wrong, and never in the middle of an even exchange.
    """
    if state.halfmove == 0:
        return 0.0
    return max(0.0, -material(rules, state, state.side))


def static_value(rules: Rules, state: State, weights: np.ndarray) -> float:
    """The evaluation of an open position for the side to move in pawns, without search: what ``harness fit``
    regresses (the search's own ``evaluate``, with the piece values the weights imply)."""
    board, _slot, plist, _ = rules.position(state)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    moves = np.zeros(core.MAX_MOVES, dtype=np.int64)
    return float(evaluate(board, plist, int(state.side), weights, piece_values(weights, SQUARES, CORRECTIONS),
                          moves))


def rollout(rules: Rules, state: State, seed: int) -> tuple[str, float]:
    """Random play to the end of the game on the fast path; the user's (result, score)."""
    if not rules.is_terminal(state):
        winner = core.playouts(state.array(), state.side, 1, MOVE_LIMIT - state.ply, rules.pseudo, seed)[:3].argmax()
        if winner == 2:
            return "draw", 1.0
        return ("win", 1.0) if winner == rules.user_side else ("loss", 0.0)
    result, _ = rules.outcome(state)
    return result, rules.score(state)
