"""Totality's tactics suite: every search finds the exact result within its depth and claims no other.

The suite (``tests/tactics/totality.json``, written by
``scripts/tactics/totality.py``; the file names its command) holds seeded
random endgames of 4 to 10 empty cells, each labelled by an exhaustive
minimax over OpenSpiel's ``othello``: the best placements and the final disc
lead they reach, every placement's lead, the most plies the game can last
(``plies``), the plies within which the mover forces a win (``win_plies``) and
within which every losing placement is seen to lose (``avoid_plies``).

A search's value is ``+-DECIDED + lead`` for a proven result, 0 for a draw,
and within ``+-DECIDED / 2`` for a guess; a proven value is a bound the
mover's perfect play reaches (a win: at least that lead; a loss: at most).
The midgame search is run with the solver off (``endgame=0``) so that its
own depth, not the solver, finds the results.
"""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import players
from harness.games import Action, load
from harness.games.totality import FILES, SIDE_NAMES, cell_name
from harness.games.totality.search import ALL_TECHNIQUES, DECIDED, DEFAULT_TECHNIQUES, search
from players.features import weight_vector
from players.strong import strong_settings
from tests.requirements import import_or_unavailable
from tests.scripts import script_module


SUITE = json.loads((Path(__file__).parent / "totality.json").read_text())
POSITIONS: list[dict[str, Any]] = SUITE["positions"]
RULES = load("totality")
WEIGHTS = weight_vector("totality")
PROVEN = DECIDED / 2  # beyond this a value is a proven result, not a guess
TECHNIQUES = {"default": DEFAULT_TECHNIQUES, "all": ALL_TECHNIQUES}


def exact(lead: int) -> float:
    """The search's value of a finish with ``lead`` for the mover."""
    return DECIDED + lead if lead > 0 else -DECIDED + lead if lead < 0 else 0.0


def action(name: str) -> Action:
    """The placement of a cell name (``h1``)."""
    return {"type": "place", "row": int(name[1]) - 1, "col": FILES.index(name[0])}


def name_of(chosen: Action) -> str:
    return cell_name(chosen["row"], chosen["col"])


@cache
def state_of(index: int):
    return RULES.state_from_json(POSITIONS[index]["state"])


def sample(count: int, seed: int, where=lambda position: True) -> list[int]:
    """A seeded sample of the suite's indices among those ``where`` holds."""
    indices = [i for i, position in enumerate(POSITIONS) if where(position)]
    return sorted(random.Random(seed).sample(indices, min(count, len(indices))))


def check_claim(position: dict[str, Any], chosen: Action, value: float, why: str) -> None:
    """A proven value is a bound perfect play reaches, at the root and for the move played."""
    best, played = exact(position["value"]), exact(position["leads"][name_of(chosen)])
    if value > PROVEN:
        assert best >= value and played >= value, (why, "claims a win not forced", value, position["value"])
    if value < -PROVEN:
        assert best <= value, (why, "claims a loss not forced", value, position["value"])


def test_the_suite_is_tactical_and_every_label_fits_the_project_rules():
    assert (SUITE["format"], SUITE["game"]) == ("harness.tactics/1", "totality")
    assert SUITE["command"].startswith("scripts/tactics/totality.py --seed ")
    kinds = [position["kind"] for position in POSITIONS]
    assert len(POSITIONS) >= 200 and kinds.count("win") >= 100 and kinds.count("avoid") >= 100
    assert {position["empties"] for position in POSITIONS} == set(range(4, 11))
    for index, position in enumerate(POSITIONS):
        state = state_of(index)
        replayed = RULES.initial_state()
        for name in position["history"].split():
            replayed = RULES.apply(replayed, {"type": "pass"} if name == "pass" else action(name))
        assert RULES.notation(replayed) == RULES.notation(state), index
        assert position["side"] == SIDE_NAMES[state.to_move]
        assert RULES.counters(state)["empty"] == position["empties"]
        legal = sorted(name_of(a) for a in RULES.legal_actions(state))
        leads = position["leads"]
        assert sorted(leads) == legal and len(legal) >= 2, index
        assert position["moves"] == sorted(n for n in leads if leads[n] == position["value"] == max(leads.values()))
        losing = sum(lead < 0 for lead in leads.values())
        if position["kind"] == "avoid":
            assert 2 * losing > len(leads) and position["value"] >= 0 and "avoid_plies" in position, index
        else:
            winning = sum(lead > 0 for lead in leads.values())
            assert position["value"] > 0 and 2 * winning <= len(leads) and "win_plies" in position, index
        assert position.get("win_plies", 0) <= position["plies"] and position.get("avoid_plies", 0) <= position["plies"]


def test_a_seeded_sample_of_the_labels_is_reverified_by_minimax_over_openspiel():
    import_or_unavailable("pyspiel", "open-spiel (the test extra)")
    with script_module("tactics/totality") as generator:
        reference = generator.Reference()
        for index in sample(12, seed=44, where=lambda p: p["empties"] <= 8):
            position = POSITIONS[index]
            label = reference.label(position["history"].split())
            assert label == {key: position[key] for key in label}, index
            assert reference.board(reference.state(position["history"].split())) == position["state"]["board"]
            assert generator.kind_of(reference.outcomes(position["history"].split())) == position["kind"]


@cache
def fixed_depth(index: int, depth: int, techniques: str):
    """The midgame search alone (no solver) at ``depth`` from position ``index``."""
    return search(RULES, state_of(index), WEIGHTS, depth=depth, seed=index, endgame=0,
                  techniques=TECHNIQUES[techniques])


@pytest.mark.parametrize("techniques", TECHNIQUES)
def test_fixed_depth_search_to_the_end_plays_a_best_move_at_the_exact_value(techniques):
    for index, position in enumerate(POSITIONS):
        result = fixed_depth(index, position["plies"], techniques)
        assert name_of(result.action) in position["moves"] and result.value == exact(position["value"]), (
            index, result, position["moves"], position["value"])


@pytest.mark.parametrize("techniques", TECHNIQUES)
def test_fixed_depth_search_proves_every_forced_win_within_its_distance(techniques):
    won = [i for i, position in enumerate(POSITIONS) if "win_plies" in position]
    for index in won:
        position = POSITIONS[index]
        result = fixed_depth(index, position["win_plies"], techniques)
        assert result.value > PROVEN and position["leads"][name_of(result.action)] > 0, (index, result)
        check_claim(position, result.action, result.value, f"depth {position['win_plies']}")
    assert len(won) >= 100


@pytest.mark.parametrize("techniques", TECHNIQUES)
def test_fixed_depth_search_avoids_every_loss_it_can_see(techniques):
    avoidable = [i for i, position in enumerate(POSITIONS) if "avoid_plies" in position]
    for index in avoidable:
        position = POSITIONS[index]
        result = fixed_depth(index, position["avoid_plies"], techniques)
        assert position["leads"][name_of(result.action)] >= 0 and result.value >= -PROVEN, (index, result)
        check_claim(position, result.action, result.value, f"depth {position['avoid_plies']}")
    assert len(avoidable) >= 100


@pytest.mark.parametrize("techniques", TECHNIQUES)
def test_no_fixed_depth_search_claims_a_result_that_is_not_forced(techniques):
    """Every depth from 1 to the end, on a sample: a proven value is always a bound perfect play reaches."""
    for index in sample(40, seed=1):
        position = POSITIONS[index]
        for depth in range(1, position["plies"] + 1):
            result = fixed_depth(index, depth, techniques)
            check_claim(position, result.action, result.value, f"position {index} depth {depth}")


@pytest.mark.parametrize("techniques", TECHNIQUES)
def test_the_exact_solver_plays_a_best_move_at_the_exact_value(techniques):
    for index, position in enumerate(POSITIONS):
        result = search(RULES, state_of(index), WEIGHTS, depth=1, seed=index, endgame=64,
                        techniques=TECHNIQUES[techniques])
        assert result.depth == position["empties"], (index, result)  # the solve, not the midgame search
        assert name_of(result.action) in position["moves"] and result.value == exact(position["value"]), (
            index, result)


def test_strong_at_its_default_budget_plays_a_best_move_at_the_exact_value():
    strong = players.load("strong")
    for index, position in enumerate(POSITIONS):
        strong.reset(index)
        result = strong.player_for(RULES).search(RULES, state_of(index))
        assert name_of(result.action) in position["moves"] and result.value == exact(position["value"]), (
            index, result)


def test_strong_without_its_solver_reaches_every_end_within_its_budget():
    """``strong``'s settings with ``endgame=0``: its iterative deepening alone, stopped by the node budget."""
    player = players.load(alphabeta_spec(strong_settings("totality") | {"endgame": 0}), "totality")
    for index, position in enumerate(POSITIONS):
        player.reset(index)
        result = player.search(RULES, state_of(index))
        assert result.depth >= position["plies"], (index, result)
        assert name_of(result.action) in position["moves"] and result.value == exact(position["value"]), (
            index, result)


@pytest.mark.parametrize("endgame", [None, 0])
@pytest.mark.parametrize("nodes", [2_000, 20_000])
def test_node_limited_search_finds_what_its_completed_depth_proves(nodes, endgame):
    """Budgets that stop a solve or an iteration part-way: the depth completed decides what must be found.

    With the solver on (``endgame`` None: the default 12 cells), a search
    that spent at most half the budget is a completed solve (the solve gets
    half) and must be exact; one that spent more fell back to the midgame
    search, like ``endgame=0``.
    """
    settings = {"depth": 60, "nodes": nodes} | ({} if endgame is None else {"endgame": endgame})
    player = players.load(alphabeta_spec(settings), "totality")
    solved = stopped = 0
    for index in sample(70, seed=nodes + (endgame or 0)):
        position = POSITIONS[index]
        player.reset(index)
        result = player.search(RULES, state_of(index))
        check_claim(position, result.action, result.value, f"position {index}")
        lead = position["leads"][name_of(result.action)]
        if endgame is None and result.nodes <= nodes // 2:
            solved += 1
            assert result.depth == position["empties"] and lead == position["value"], (index, result)
            assert result.value == exact(lead), (index, result)
            continue
        if result.depth >= position.get("win_plies", 99):
            assert result.value > PROVEN and lead > 0, (index, result)
        if result.depth >= position.get("avoid_plies", 99):
            assert lead >= 0, (index, result)
        if result.depth >= position["plies"]:
            assert lead == position["value"] and result.value == exact(lead), (index, result)
        else:
            stopped += 1
    assert stopped >= 3 and (solved >= 10 or endgame == 0)


def test_time_limited_players_play_a_best_move():
    """Generous time: ``strong:time=`` (its solver first) and its midgame search alone (depth 60, as strong's)."""
    for spec in ("strong:time=10", "alphabeta:depth=60,time=10,endgame=0"):
        player = players.load(spec, "totality")
        for index, position in enumerate(POSITIONS):
            player.reset(index)
            assert name_of(player.choose(RULES, state_of(index))) in position["moves"], (spec, index)


def alphabeta_spec(settings: dict[str, Any]) -> str:
    return "alphabeta:" + ",".join(f"{key}={value}" for key, value in settings.items())
