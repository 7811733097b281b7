"""Candidate tracking over hand-made server transcripts, with the real engines."""

from __future__ import annotations

import json
import random

import pytest

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


def test_a_reply_no_position_can_produce_keeps_the_closest_positions_and_says_so():
    tracker = Tracker(RAVENWARD)
    start = RAVENWARD.initial_state()
    tracker.observe(RAVENWARD.legal_actions(start), False)
    ours = RAVENWARD.legal_actions(start)[0]
    tracker.play(ours)
    truth = next(iter(raven_replies(start, ours).values()))
    drifted = RAVENWARD.legal_actions(truth)[1:]  # one action missing: no reply gives this
    kept = tracker.observe(drifted, False)
    assert tracker.condition == "no_fit" and kept
    assert truth in [c.state for c in kept]
    action = choose_over_candidates(load_player("random"), RAVENWARD, kept, allowed=drifted)
    assert action_key(action) in {action_key(a) for a in drifted}, "always among the server's actions"


def test_a_game_over_reply_no_position_shows_keeps_the_closest_and_never_raises():
    tracker = Tracker(RAVENWARD)
    start = RAVENWARD.initial_state()
    tracker.observe([], True)
    assert tracker.condition == "no_fit" and tracker.candidates[0].state == start


def test_more_positions_than_can_be_kept_leave_a_seeded_sample_and_play_goes_on():
    start = RAVENWARD.initial_state()
    ours = RAVENWARD.legal_actions(start)[0]
    replies = raven_replies(start, ours)
    samples = []
    for _ in range(2):
        tracker = Tracker(RAVENWARD, max_candidates=5, rng=random.Random(3))
        tracker.observe(RAVENWARD.legal_actions(start), False)
        tracker.play(ours)
        assert len(tracker.candidates) == 5 < len(replies)
        samples.append([RAVENWARD.notation(c.state) for c in tracker.candidates])
        tracker.observe(None, False)
        assert tracker.condition == "sampled"
    assert samples[0] == samples[1], "the sample follows the injected seed"


def test_with_no_candidate_left_the_choice_is_a_seeded_one_among_the_servers_actions():
    listed = RAVENWARD.legal_actions(RAVENWARD.initial_state())
    picks = {action_key(choose_over_candidates(load_player("random"), RAVENWARD, [], allowed=listed,
                                               rng=random.Random(seed))) for seed in range(6)}
    assert picks <= {action_key(a) for a in listed} and len(picks) > 1


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
    tracker.observe(None, False, extra=board_filter(XIANGQI, wrong), strict=True)
    assert tracker.warnings["board"] == 1 and tracker.candidates, "a board that fits nothing is a warning"
