"""Candidate tracking over hand-made server transcripts, with the real engines."""

from __future__ import annotations

import json
import random

import pytest

from harness.errors import TrackingError
from harness.games import load as load_game
from harness.live.board import fen_board
from harness.live.observation import local_cells, observation_filters
from harness.live.seat import board_filter
from harness.live.tracking import PASS, Tracker, action_key, choose_over_candidates
from players import load as load_player

RAVENWARD = load_game("ravenward")
TOTALITY = load_game("totality")
XIANGQI = load_game("xiangqi")
# Sun (X) to move with four empty squares; after Sun's 6,1 and Moon's 0,4 the Sun must pass.
FORCED_PASS = {"board": "OOOO-XOOOOXXXOOOOXOXOXOOOOXOOXOOOXOOOXOOOOXOOOOOO-XXXOOO--XXXOOO",
               "to_move": 0, "ply": 56, "passes": 0}


def shuffled(actions, seed=0):
    actions = list(actions)
    random.Random(seed).shuffle(actions)
    return actions


def keys(actions):
    return sorted(action_key(a) for a in actions)


def raven_replies(state, action):
    """Every position after our action and one raven reply, by the reply."""
    after = RAVENWARD.apply(state, action)
    return {action_key(reply): RAVENWARD.apply(after, reply) for reply in RAVENWARD.legal_actions(after)}


def test_the_server_listing_the_start_moves_in_any_order_fits_the_initial_position():
    tracker = Tracker(RAVENWARD)
    start = RAVENWARD.initial_state()
    kept = tracker.observe(shuffled(RAVENWARD.legal_actions(start)), False)
    assert [c.state for c in kept] == [start]


def test_only_replies_whose_position_has_the_listed_legal_actions_are_kept():
    tracker = Tracker(RAVENWARD)
    start = RAVENWARD.initial_state()
    tracker.observe(RAVENWARD.legal_actions(start), False)
    ours = RAVENWARD.legal_actions(start)[0]
    replies = raven_replies(start, ours)
    truth = next(s for s in replies.values()
                 if sum(keys(RAVENWARD.legal_actions(o)) == keys(RAVENWARD.legal_actions(s))
                        for o in replies.values()) == 1)
    tracker.play(ours)
    assert len(tracker.candidates) == len(replies)
    kept = tracker.observe(shuffled(RAVENWARD.legal_actions(truth), 3), False)
    assert [c.state for c in kept] == [truth]
    assert kept[0].actions[0] == ours and len(kept[0].actions) == 2


def test_several_candidates_remain_when_replies_look_alike_and_the_player_votes_over_them():
    start = RAVENWARD.initial_state()
    ours = RAVENWARD.legal_actions(start)[0]
    replies = raven_replies(start, ours)
    by_legal: dict[str, list] = {}
    for state in replies.values():
        by_legal.setdefault(json.dumps(keys(RAVENWARD.legal_actions(state))), []).append(state)
    alike = max(by_legal.values(), key=len)
    assert len(alike) > 1, "the start position has raven replies the King's side cannot tell apart"
    tracker = Tracker(RAVENWARD)
    tracker.observe(RAVENWARD.legal_actions(start), False)
    tracker.play(ours)
    kept = tracker.observe(RAVENWARD.legal_actions(alike[0]), False)
    assert {RAVENWARD.notation(c.state) for c in kept} == {RAVENWARD.notation(s) for s in alike}
    assert tracker.is_ambiguous()
    player = load_player("random")
    player.reset(5)
    action = choose_over_candidates(player, RAVENWARD, kept)
    assert all(action in RAVENWARD.legal_actions(c.state) for c in kept)


def test_a_board_in_the_observation_tells_alike_replies_apart_whatever_its_encoding():
    start = RAVENWARD.initial_state()
    ours = RAVENWARD.legal_actions(start)[0]
    replies = list(raven_replies(start, ours).values())
    legal = keys(RAVENWARD.legal_actions(replies[0]))
    alike = [s for s in replies if keys(RAVENWARD.legal_actions(s)) == legal]
    truth = alike[-1]
    codes = {"": 0, "K": 3, "D": 2, "R": 1}  # an encoding the tracker has never seen
    cells = [codes[c] for c in local_cells(RAVENWARD, truth)]
    observation = {"turn": "player", "grid": [cells[i:i + 7] for i in range(0, 49, 7)]}
    tracker = Tracker(RAVENWARD)
    tracker.observe(RAVENWARD.legal_actions(start), False)
    tracker.play(ours)
    kept = tracker.observe(RAVENWARD.legal_actions(truth), False,
                           extra=observation_filters(RAVENWARD, observation))
    assert [c.state for c in kept] == [truth]


def test_an_observation_that_is_not_a_readable_board_never_breaks_tracking():
    start = RAVENWARD.initial_state()
    tracker = Tracker(RAVENWARD)
    junk = {"heat": list(range(49)), "text": "x" * 49}
    kept = tracker.observe(RAVENWARD.legal_actions(start), False, extra=observation_filters(RAVENWARD, junk))
    assert [c.state for c in kept] == [start]


def test_a_reply_no_position_can_produce_is_a_tracking_error_that_keeps_the_server_state():
    tracker = Tracker(RAVENWARD)
    start = RAVENWARD.initial_state()
    tracker.observe(RAVENWARD.legal_actions(start), False)
    tracker.play(RAVENWARD.legal_actions(start)[0])
    drifted = RAVENWARD.legal_actions(start)[1:]  # the start moves but one: no reply gives this
    with pytest.raises(TrackingError, match="no local position fits") as error:
        tracker.observe(drifted, False, server_state="opaque-state-7")
    assert error.value.server_state == "opaque-state-7"


def test_a_game_over_reply_keeps_only_finished_positions():
    tracker = Tracker(RAVENWARD)
    start = RAVENWARD.initial_state()
    with pytest.raises(TrackingError):
        tracker.observe([], True)
    assert tracker.candidates[0].state == start


def test_server_actions_with_extra_fields_match_and_are_sent_back_as_the_server_wrote_them():
    start = RAVENWARD.initial_state()
    served = [dict(a, label=f"{a['from']}-{a['to']}") for a in RAVENWARD.legal_actions(start)]
    tracker = Tracker(RAVENWARD)
    tracker.observe(served, False)
    ours = RAVENWARD.legal_actions(start)[2]
    assert tracker.matching_server_action(ours, served) == served[2]


def test_a_forced_pass_resolved_by_the_server_is_tracked_through():
    start = TOTALITY.state_from_json(FORCED_PASS)
    ours, moon = {"type": "place", "row": 6, "col": 1}, {"type": "place", "row": 0, "col": 4}
    must_pass = TOTALITY.apply(TOTALITY.apply(start, ours), moon)
    assert TOTALITY.legal_actions(must_pass) == [PASS]
    after_pass = TOTALITY.apply(must_pass, PASS)
    moon_again = TOTALITY.legal_actions(after_pass)[0]
    truth = TOTALITY.apply(after_pass, moon_again)
    tracker = Tracker(TOTALITY, start=start)
    tracker.observe(TOTALITY.legal_actions(start), False)
    tracker.play(ours)
    expected = [] if TOTALITY.is_terminal(truth) else TOTALITY.legal_actions(truth)
    kept = tracker.observe(expected, TOTALITY.is_terminal(truth))
    assert truth in [c.state for c in kept]
    assert all(PASS in c.actions for c in kept if c.state == truth)


@pytest.mark.parametrize("listed", [[PASS], []], ids=["pass-listed", "nothing-listed"])
def test_a_forced_pass_the_server_leaves_to_us_is_tracked_too(listed):
    start = TOTALITY.state_from_json(FORCED_PASS)
    ours = {"type": "place", "row": 6, "col": 1}
    tracker = Tracker(TOTALITY, start=start)
    tracker.observe(TOTALITY.legal_actions(start), False)
    tracker.play(ours)
    kept = tracker.observe(listed, False)
    assert kept and all(TOTALITY.legal_actions(c.state) == [PASS] for c in kept)


def test_the_xiangqi_board_is_a_strict_filter():
    start = XIANGQI.initial_state()
    ours = XIANGQI.legal_actions(start)[0]
    tracker = Tracker(XIANGQI)
    tracker.observe(XIANGQI.legal_actions(start), False)
    tracker.play(ours)
    reply = XIANGQI.legal_actions(XIANGQI.apply(start, ours))[5]
    truth = XIANGQI.apply(XIANGQI.apply(start, ours), reply)
    board = fen_board(XIANGQI.notation(truth))
    kept = tracker.observe(XIANGQI.legal_actions(truth), False, extra=board_filter(XIANGQI, board), strict=True)
    assert [c.state for c in kept] == [truth]
    wrong = fen_board(XIANGQI.notation(start))
    tracker.play(XIANGQI.legal_actions(truth)[0])
    with pytest.raises(TrackingError, match="board"):
        tracker.observe(XIANGQI.legal_actions(truth), False, extra=board_filter(XIANGQI, wrong), strict=True)
