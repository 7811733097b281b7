"""Learning the observation's board layout: all 8 symmetries, several encodings, both Gameboard games."""

from __future__ import annotations

import random

import pytest

from harness.games import load as load_game
from harness.live.emulator import BoardLayout, Emulator
from harness.live.observation import SYMMETRIES, LayoutLearner, reply_sources
from harness.live.runner import LiveRunConfig, run_live
from harness.live.tracking import Tracker

KINDS = {"ravenward": ("K", "D", "R"), "totality": ("X", "O")}


def encodings(game: str) -> list[tuple[tuple[tuple[str, object], ...] | None, str]]:
    """Four encodings of a game's squares: letters in rows, integers, a string, JSON objects."""
    kinds = KINDS[game]
    return [
        (None, "rows"),
        ((("", 0),) + tuple((kind, 9 - i) for i, kind in enumerate(kinds)), "flat"),
        ((("", " "),) + tuple((kind, "abc"[i]) for i, kind in enumerate(kinds)), "string"),
        ((("", None),) + tuple((kind, {"piece": i, "seen": True}) for i, kind in enumerate(kinds)), "rows"),
    ]


CASES = [(game, symmetry, index % 4) for game in KINDS for index, symmetry in enumerate(SYMMETRIES)]


@pytest.mark.parametrize("game,symmetry,encoding", CASES, ids=[f"{g}-{s}-{e}" for g, s, e in CASES])
def test_a_live_game_learns_any_orientation_and_encoding_and_the_board_pins_the_position(
        tmp_path, db, fast, game, symmetry, encoding):
    codes, form = encodings(game)[encoding]
    layout = BoardLayout(symmetry, codes, form)
    with Emulator(opponent="random", board=layout) as server:
        config = LiveRunConfig(game=game, player="random", games=1, seed_start=11, base_url=server.url,
                               rate=1000.0, policy=fast)
        summary = run_live(db, config)
    (outcome,) = summary.games.values()
    result = outcome.result
    assert outcome.status == "done" and result.error is None
    assert result.server_score == result.score and result.reason != "untracked"
    assert result.counters["ambiguous_no_fit"] == result.counters["ambiguous_sampled"] == 0
    assert result.extra["tracking_warnings"] == {}
    (learned,) = result.extra["layout"]  # one layout left: the server's
    assert learned.startswith(f"observation/board {symmetry} ")


@pytest.mark.parametrize("game", list(KINDS))
def test_the_learner_reads_a_readable_state_too_and_keeps_only_consistent_layouts(game):
    rules = load_game(game)
    rng = random.Random(4)
    layout = BoardLayout("anti-transpose", encodings(game)[1][0], "flat")
    tracker = Tracker(rules)
    state = rules.initial_state()
    plies = 0
    while not rules.is_terminal(state) and plies < 30:
        if rules.to_move(state) == rules.user_side:
            legal = rules.legal_actions(state)
            tracker.observe(legal, False, boards=reply_sources(rules, {"junk": list(range(len(legal)))},
                                                              {"cells": layout.show(rules, state)}))
            assert state in [c.state for c in tracker.candidates]
            action = rng.choice(legal)
            tracker.play(action)
        else:
            action = rng.choice(rules.legal_actions(state))
        state = rules.apply(state, action)
        plies += 1
    assert {l.symmetry for l in tracker.layouts.layouts} == {"anti-transpose"}
    assert {l.source for l in tracker.layouts.layouts} == {"state/cells"}


def test_a_layout_that_stops_fitting_is_a_warning_and_is_learned_again():
    rules = load_game("ravenward")
    learner = LayoutLearner(rules)
    start = rules.initial_state()
    after = rules.apply(start, rules.legal_actions(start)[0])
    shown = {"observation/board": [f'"{c or "."}"' for c in BoardLayout("identity", form="flat").show(rules, after)]}
    assert learner.narrow([after], shown) == [0] and learner.warnings == 0
    assert len(learner.layouts) >= 1
    rotated = BoardLayout("rotate90", form="flat").show(rules, after)
    assert learner.narrow([after], {"observation/board": [f'"{c}"' for c in rotated]}) == [0]
    assert learner.warnings == 1 and "stopped fitting" in learner.last_warning
    assert "rotate90" in {layout.symmetry for layout in learner.layouts}
