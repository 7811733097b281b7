"""Chinese chess tactics: a search finds every forced win within its depth, puts off every forced loss, and
claims no result that is not forced.

The positions (``tests/tactics/xiangqi.json``) are written by ``scripts/tactics/xiangqi.py``: seeded random
games, forced results up to 5 plies labelled by a full-width prover and confirmed by Fairy-Stockfish (its
docstring). Kinds: ``win`` (the side to move wins within ``plies``, 1, 3 or 5, at the soonest; ``moves`` are
every move that does), ``avoid`` (most moves lose within ``plies``, 2 or 4; ``moves`` are those that do not)
and ``none`` (no result forced within 5 plies for either side).

A search's value is ``WIN - ply`` for a win on ply ``ply`` (a loss is its negative), so at a depth that
reaches the mate the value names its length. Every position is searched at fixed depths; the node- and
time-limited players, whose searches stop at a mate within the depth, take every win and a sample of the
rest (those use their whole budget).
"""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path

import numpy as np

import players
from harness.games import load
from harness.games.gamekit import SearchResult
from harness.games.xiangqi import SIDES, search as search_module
from harness.games.xiangqi.search import MAX_PLY, WIN, search
from players.base import Limits
from players.features import weight_vector
from players.uci import MATE_CP, action_to_move, parse_info, position_reader
from tests.scripts import script_module

SUITE = json.loads((Path(__file__).parent / "xiangqi.json").read_text())
POSITIONS = SUITE["positions"]
RULES = load("xiangqi")
WEIGHTS = weight_vector("xiangqi")
WINS = [p for p in POSITIONS if p["kind"] == "win"]
NONE_PLIES = 5
# Positions that use a player's whole budget (avoid, none) are sampled: this many of each kind.
BUDGET_SAMPLE = 6


def _name(position: dict) -> str:
    return f"{position['kind']}{position['plies']}-{position['fen']}"


@cache
def _state(fen: str):
    return RULES.from_fen(fen)


def _plies_to_result(value: float) -> float:
    """The plies to the forced result a value claims (``inf`` for none); positive for a win."""
    if abs(value) < WIN - MAX_PLY:
        return float("inf")
    return WIN - abs(value) if value > 0 else -(WIN - abs(value))


def _judge(position: dict, result: SearchResult, depth: int) -> str | None:
    """What is wrong with a search of ``depth`` plies in the position, or None.

    A win within the depth must be played at its soonest with its value; a win beyond the depth may be
    missed, or found later than its soonest along an extended line, but not claimed sooner. An avoidable
    loss within the depth must be avoided. No result may be claimed where none is forced.
    """
    claimed = _plies_to_result(result.value)
    kind, plies, moves = position["kind"], position["plies"], position["moves"]
    if kind == "win":
        if depth >= plies and (result.action not in moves or claimed != plies):
            return f"missed the win in {plies} plies: played {result.action}, value {result.value}"
        if claimed < plies:
            return f"claims a result in {claimed} plies where the soonest win is in {plies}: {result.action}"
        return None
    if kind == "avoid" and depth >= plies and result.action not in moves:
        return f"played {result.action}, which loses within {plies} plies, with {moves} to choose from"
    # neither kind has a win within 5 plies; an avoid position is not lost within 4, a none position within 5
    if 0 < claimed <= NONE_PLIES or 0 < -claimed <= NONE_PLIES:
        return f"claims a result in {claimed} plies where none is forced"
    return None


def test_the_suite_is_balanced_seeded_and_legal():
    assert SUITE["format"] == "harness.tactics/1" and SUITE["game"] == "xiangqi"
    assert SUITE["command"].startswith("scripts/tactics/xiangqi.py --seed ")
    counts: dict[tuple[str, int, str], int] = {}
    for position in POSITIONS:
        state = _state(position["fen"])
        assert SIDES[state.side] == position["side"] and state.ranks is None
        assert all(move in RULES.legal_actions(state) for move in position["moves"])
        assert bool(position["moves"]) == (position["kind"] != "none")
        key = (position["kind"], position["plies"], position["side"])
        counts[key] = counts.get(key, 0) + 1
    assert counts == {(kind, plies, side): count for side in SIDES for kind, plies, count in
                      [("win", 1, 40), ("win", 3, 40), ("win", 5, 40), ("avoid", 2, 20), ("avoid", 4, 20),
                       ("none", 5, 40)]}
    assert len({position["fen"] for position in POSITIONS}) == len(POSITIONS)


def test_fairy_stockfish_confirms_a_sample_of_the_suite(fairy_stockfish):
    """The independent reference, again: the soonest win of each sampled ``win`` position is the engine's
    ``go mate`` (its move one of ``moves``); after a sampled ``avoid`` position's safe move the engine sees no
    mate that soon, after a losing one it finds it; in a ``none`` position it sees no result within 5 plies."""
    engine = position_reader(fairy_stockfish)
    try:
        for position in random.Random(44).sample(POSITIONS, 24):
            state = _state(position["fen"])
            kind, plies = position["kind"], position["plies"]
            if kind == "win":
                mate, move = _read(engine, position["fen"], f"go mate {(plies + 1) // 2} movetime 5000")
                assert mate == (plies + 1) // 2 and move in [action_to_move(m, 1) for m in position["moves"]]
            elif kind == "avoid":
                safe = position["moves"][0]
                losing = next(a for a in RULES.legal_actions(state) if a not in position["moves"])
                after = RULES.to_fen(RULES.apply(state, safe))
                assert not 0 < _read(engine, after, "go depth 8")[0] <= plies // 2, (position["fen"], safe)
                after = RULES.to_fen(RULES.apply(state, losing))
                assert 0 < _read(engine, after, f"go mate {plies // 2} movetime 5000")[0] <= plies // 2
            else:
                mate = _read(engine, position["fen"], "go depth 8")[0]
                assert not (0 < mate <= 3 or 0 < -mate <= 2), position["fen"]
    finally:
        engine.close()


def _read(engine, fen: str, go: str) -> tuple[int, str]:
    """The engine's mate in moves (negative when mated, 0 for none) and move after ``go``: its last score
    that is not a bound."""
    move, _ = engine.search(fen, [], go, 30.0)
    scores = [parse_info(line)["score"] for line in engine.info_lines if " score " in line and "bound" not in line]
    score = scores[-1] if scores else 0
    mate = (MATE_CP - abs(score)) * (1 if score > 0 else -1) if abs(score) > MATE_CP - 100 else 0
    return mate, move


def test_fixed_depth_searches_are_exact_to_their_depth():
    """Every position at depths 1 to 5 with the default techniques: each win within
    the depth played at its soonest, each avoidable loss avoided, nothing claimed that is not forced."""
    wrong = []
    for position in POSITIONS:
        state = _state(position["fen"])
        for depth in range(1, 6):
            problem = _judge(position, search(RULES, state, WEIGHTS, depth=depth, seed=depth), depth)
            if problem:
                wrong.append(f"{_name(position)} at depth {depth}: {problem}")
    assert not wrong, "\n".join(wrong)


def test_the_alphabeta_player_finds_the_wins_at_its_default_depth():
    player = players.load("alphabeta", game="xiangqi")
    player.reset(7)
    assert player.search(RULES, RULES.initial_state()).depth == 4
    wrong = []
    for position in POSITIONS:
        problem = _judge(position, player.search(RULES, _state(position["fen"])), 4)
        if problem:
            wrong.append(f"{_name(position)}: {problem}")
    assert not wrong, "\n".join(wrong)


def _sample(kind: str) -> list[dict]:
    return random.Random(kind).sample([p for p in POSITIONS if p["kind"] == kind], BUDGET_SAMPLE)


def test_strong_at_its_node_budget_finds_every_win_and_avoids_the_losses():
    """``strong`` stops at a mate within its depth, so every win is searched; a sample of the rest, which
    take the whole budget (5,000,000 nodes, four times that when behind)."""
    player = players.load("strong", game="xiangqi")
    player.reset(3)
    wrong = []
    for position in WINS + _sample("avoid") + _sample("none"):
        result = player.player_for(RULES).search(RULES, _state(position["fen"]))
        problem = _judge(position, result, result.depth)
        if problem:
            wrong.append(f"{_name(position)} at depth {result.depth}: {problem}")
    assert not wrong, "\n".join(wrong)


def test_a_time_limited_player_plays_every_win_and_avoids_the_losses():
    """Alpha-beta by the clock, no depth cap, ten seconds a move for the wins (it stops at the mate) and one for a sample
    of the avoidable losses (far past their depth on any machine): the move is checked, the depth depends on
    the clock."""
    player = players.load("alphabeta:depth=60,time=10", game="xiangqi")
    player.reset(5)
    wrong = []
    for position in WINS + _sample("avoid"):
        limits = Limits(time=1.0) if position["kind"] == "avoid" else None
        action = player.choose(RULES, _state(position["fen"]), limits)
        if action not in position["moves"]:
            wrong.append(f"{_name(position)}: played {action}")
    assert not wrong, "\n".join(wrong)


def test_the_search_before_exact_mates_missed_wins_the_suite_finds():
    """Without ``exact_mates`` (the default until it joined) the same searches at depth = plies missed 72 of
    the 400 positions: wins by stalemate on the last ply, wins hidden by the pruning, a longer mate seen first.
    With it, none (above)."""
    missed = 0
    for position in POSITIONS:
        depth = position["plies"]
        result = search(RULES, _state(position["fen"]), WEIGHTS, depth=depth, seed=depth,
                        techniques=search_module.PRUNED_TECHNIQUES)
        missed += _judge(position, result, depth) is not None
    assert missed == 72


def test_the_searchs_proofs_agree_with_the_generators_full_width_prover():
    """``exact_mates`` prunes only where ``_holds`` proves that a side does not lose within the depth; it must
    say so exactly when the script's prover (every move of both sides, nothing pruned) does, up to
    ``PROOF_DEPTH``, also in positions a move into each line (where the losses are)."""
    with script_module("tactics/xiangqi") as script:
        tables = search_module._tables()
        move_buf, proofs = tables[0], tables[-1]
        info = np.zeros(3, dtype=np.int64)
        checked, lost = 0, 0
        for position in random.Random(45).sample(POSITIONS, 60):
            state = _state(position["fen"])
            for after in [state] + [RULES.apply(state, move) for move in position["moves"][:2]]:
                if after.ranks is not None:
                    continue
                for depth in range(1, search_module.PROOF_DEPTH + 1):
                    proofs[:] = 0
                    held = search_module._holds(*RULES.position(after), move_buf, proofs, info, 0, depth, False)
                    truth = not script.Prover(RULES, after).loses_within(depth)
                    assert held == truth, (RULES.to_fen(after), depth)
                    checked, lost = checked + 1, lost + (not truth)
        assert checked > 500 and lost > 50
