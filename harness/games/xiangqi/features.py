"""Evaluation features of Chinese chess: named weights in pawns, with defaults and tuning ranges.

The compiled evaluation (``harness.games.xiangqi.search``) reads them as one float64
vector in this order. The defaults are fitted to Fairy-Stockfish's readings of
63,029 quiet positions from the stored games (``scripts/fit_xiangqi_eval.py
--squares``): the piece values and a value for every kind on every square
(``squares``, the table in ``squares.json``), which stands in for the hand-set
piece-square terms and the soldier's crossing and advance (held at 0), with
the four move counts held at 0 as well. The table reads the positions better
than the move counts did (held-out correlation 0.884 against 0.865) and costs
no move generation, so the search runs about 1.6 times as many nodes a
second; at equal time it scored 47.5 of 80 against the weights of before,
losing 7 games where they lost 22 (docs/players.md, Chinese chess). ``hanging`` and ``empty_cannon`` stay 0:
fitted at nothing, and ``hanging`` costs an attack test per piece at every
evaluation.

Three tables correct the square values where one value per square cannot be
right (``corrections.json``, fitted by ``scripts/fit_xiangqi_eval.py
--corrections`` to what the evaluation above leaves over, every other weight
kept): ``early_squares`` and ``late_squares`` scale per-square corrections
weighted by the share of the chariots', horses' and cannons' force still on
the board and by the share gone (a tapered table: a chariot's best square in
the middle game is not its best in the ending), and ``attack_squares`` what
a chariot, horse, cannon or soldier is worth by its rows and files from the
enemy general. They are summed apart and added only when weighted, so at 0
(their default) the evaluation is the one of before to the last bit. They
read better (held-out correlation 0.879 to 0.892) but cost about 6% of the
nodes a second, and at equal time they gained nothing measurable
(docs/players.md), so they stay off: named weights for a study to try.

``TEXTBOOK`` keeps the weights of before any fit (chariot 9, cannon 4.5, horse 4,
advisor and elephant 2, soldier 1, a crossed soldier 2, no square table):
``material`` counts with them, and the G-Bot stand-ins' evaluations are built
on them, so a rung means what it meant when its games were stored. The
general has no material value because losing it ends the game.

``move_limit`` is not an evaluation term but the value of the 120-ply limit
for the side the search plays (its opponent the negative): the rules give
both seats rank 1 there, the score of a win, so a player that only wants
its score may value surviving to the limit above any material. It stays at
0, a draw: at 50 it changed none of the 12 late losses (docs/players.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from harness.games import Rules, State
from harness.games.gamekit import Feature

# Where ``square_table`` reads the fitted square values (``scripts/fit_xiangqi_eval.py --squares`` writes it).
SQUARES_FILE = Path(__file__).with_name("squares.json")

FEATURES: dict[str, Feature] = {f.name: f for f in (
    Feature("advisor", 2.2608, 0.5, 4.0, "value of an advisor"),
    Feature("elephant", 1.7524, 0.5, 4.0, "value of an elephant"),
    Feature("horse", 3.9679, 2.0, 7.0, "value of a horse"),
    Feature("chariot", 9.1935, 5.0, 14.0, "value of a chariot"),
    Feature("cannon", 5.4404, 2.0, 7.0, "value of a cannon"),
    Feature("soldier", 0.828, 0.3, 3.0, "value of a soldier on its own side of the river"),
    Feature("soldier_crossed", 0.0, 0.0, 3.0, "extra value of a soldier over the river (it may move sideways)"),
    Feature("soldier_advance", 0.0, 0.0, 0.8, "per row a crossed soldier has advanced beyond the river"),
    Feature("piece_square", 0.0, 0.0, 8.0, "scale of the piece-square terms (central horses and cannons, "
            "advanced chariots, a general kept home)"),
    Feature("mobility", 0.0, 0.0, 0.3, "per pseudo-legal move more than the other side"),
    Feature("general_safety", 0.1609, -1.0, 2.0, "per advisor or elephant guarding the general (a quarter "
            "each) less each enemy attacker (chariot, horse, cannon, soldier) near the palace"),
    Feature("horse_mobility", 0.0, 0.0, 0.3, "per pseudo-legal horse move more than the other side "
            "(beside mobility: a horse with blocked legs is a weak piece)"),
    Feature("chariot_mobility", 0.0, -0.2, 0.2, "per pseudo-legal chariot move more than the other side"),
    Feature("cannon_mobility", 0.0, -0.2, 0.2, "per pseudo-legal cannon move more than the other side"),
    Feature("pieces_across", 0.4548, 0.0, 1.0, "per chariot, horse or cannon over the river, more than the "
            "other side"),
    Feature("exposed_general", 0.2552, 0.0, 2.0, "per enemy chariot (at most one piece between) or cannon (at "
            "most two between) on the general's file or row: pins, and checks a move away"),
    Feature("hanging", 0.0, 0.0, 0.5, "fraction of its value lost per piece attacked by the enemy and "
            "defended by no chariot, horse, cannon, soldier or general"),
    Feature("move_limit", 0.0, 0.0, 100.0, "value for the side the search plays of reaching the 120-ply "
            "limit, where both seats get rank 1 and so the score of a win (0: a draw, worth nothing)"),
    Feature("empty_cannon", 0.0, 0.0, 4.0, "per enemy cannon facing the general along a file or row with "
            "nothing between (the empty-head cannon: any piece put between becomes its screen)"),
    Feature("squares", 1.0, 0.0, 2.0, "scale of the fitted square values (squares.json: what each kind is "
            "worth on each square beyond its material, fitted to Fairy-Stockfish's readings)"),
    Feature("early_squares", 0.0, 0.0, 2.0, "scale of the square values' correction while the chariots, horses "
            "and cannons are on the board (corrections.json, weighted by the share of them left)"),
    Feature("late_squares", 0.0, 0.0, 2.0, "scale of the square values' correction as they leave it "
            "(corrections.json, weighted by the share of them gone)"),
    Feature("attack_squares", 0.0, 0.0, 2.0, "scale of what a chariot, horse, cannon or soldier is worth by "
            "its files and rows from the enemy general (corrections.json)"),
)}

# The weights of before the fit: textbook piece values, hand-set terms, the later features off. The
# G-Bot stand-ins are built on them, so a feature added later is added here at 0 (a test checks).
TEXTBOOK: dict[str, float] = {
    "advisor": 2.0, "elephant": 2.0, "horse": 4.0, "chariot": 9.0, "cannon": 4.5, "soldier": 1.0,
    "soldier_crossed": 1.0, "soldier_advance": 0.1, "piece_square": 1.0, "mobility": 0.05, "general_safety": 0.5,
    "horse_mobility": 0.0, "chariot_mobility": 0.0, "cannon_mobility": 0.0, "pieces_across": 0.0,
    "exposed_general": 0.0, "hanging": 0.0, "move_limit": 0.0, "empty_cannon": 0.0, "squares": 0.0,
    "early_squares": 0.0, "late_squares": 0.0, "attack_squares": 0.0}

# Where ``correction_tables`` reads the early, late and attack tables (``fit_xiangqi_eval.py --corrections``).
CORRECTIONS_FILE = Path(__file__).with_name("corrections.json")
# The share of the board's force a kind stands for (``early_squares``, ``late_squares``): all of it,
# 32, at the start (four chariots at 4, four horses and four cannons at 2).
PHASE_WEIGHTS = {4: 2, 5: 4, 6: 2}
FULL_PHASE = 32
# The kinds of the attack table (chariot, horse, cannon, soldier).
ATTACKERS = (4, 5, 6, 7)

# Piece kinds (``side * 8 + kind`` codes of the engine) to their weight's name.
KIND_WEIGHTS = {2: "advisor", 3: "elephant", 4: "horse", 5: "chariot", 6: "cannon", 7: "soldier"}
# The kinds of the square table, by name (the general has a square value but no material weight).
SQUARE_KINDS = {"general": 1} | {name: kind for kind, name in KIND_WEIGHTS.items()}


def fold(row: int, col: int, owner: int) -> tuple[int, int]:
    """A square of ``owner``'s piece as the square table reads it: the row seen from red (row 9 the own back
    rank) and the column folded onto the left half (0 the edge, 4 the middle file)."""
    return (row if owner == 0 else 9 - row), min(col, 8 - col)


def _unfolded(kinds: dict[str, list[list[float]]]) -> np.ndarray:
    """Per kind name 10 rows of 5 folded values (``fold``) as an (8, 90) array, mirrored to both halves."""
    table = np.zeros((8, 90), dtype=np.float64)
    for name, rows in kinds.items():
        for row, values in enumerate(rows):
            for col in range(9):
                table[SQUARE_KINDS[name], row * 9 + col] = values[fold(row, col, 0)[1]]
    return table


def square_table(path: Path = SQUARES_FILE) -> np.ndarray:
    """The fitted square values in pawns as an (8, 90) array by kind and square seen from red (row 9 the own
    back rank), the folded columns mirrored out to both halves; zeros where the file names no value.

    The file holds, per kind name, 10 rows of 5 values (columns from the edge to the middle file).
    """
    return _unfolded(json.loads(path.read_text())["kinds"])


def correction_tables(path: Path = CORRECTIONS_FILE) -> np.ndarray:
    """The fitted corrections in pawns as a (3, 8, 90) array: ``[0]`` early and ``[1]`` late square values
    by kind and square seen from red (as ``square_table``), ``[2]`` the attack table by kind and
    ``rows * 9 + files`` from the enemy general (rows 0-9, files 0-8 apart); zeros where the file names none.

    The file holds ``early`` and ``late`` as ``square_table``'s ``kinds``, and ``attack`` per attacking
    kind as 10 rows (rows apart) of 9 values (files apart).
    """
    data = json.loads(path.read_text())
    tables = np.stack([_unfolded(data.get("early", {})), _unfolded(data.get("late", {})),
                       np.zeros((8, 90), dtype=np.float64)])
    for name, rows in data.get("attack", {}).items():
        for row, values in enumerate(rows):
            tables[2, SQUARE_KINDS[name], row * 9: row * 9 + 9] = values
    return tables


def phase(cells: "np.ndarray | list[int]") -> float:
    """The share of the chariots', horses' and cannons' force still on the board: 1 at the start, 0 with
    none left (what ``early_squares`` is weighted by; ``late_squares`` by the rest)."""
    return min(sum(PHASE_WEIGHTS.get(code & 7, 0) for code in cells if code), FULL_PHASE) / FULL_PHASE


def material(rules: Rules, state: State, side: int) -> float:
    """The material balance for ``side`` at the textbook piece values (crossed soldiers count 2)."""
    balance = 0.0
    for index, code in enumerate(state.cells):
        kind = code & 7
        if kind not in KIND_WEIGHTS:
            continue
        value = TEXTBOOK[KIND_WEIGHTS[kind]]
        owner = code >> 3
        row = index // 9
        if kind == 7 and (row <= 4 if owner == 0 else row >= 5):
            value += TEXTBOOK["soldier_crossed"]
        balance += value if owner == side else -value
    return balance
