"""The capacity rule: trials start while the pool would run short of games, up to the file's parallel."""

from __future__ import annotations

from harness.tuning import GAMES_PER_WORKER, should_start_trial


def test_a_first_trial_always_starts_and_more_start_while_fewer_games_than_the_workers_need_are_queued() -> None:
    assert should_start_trial(0, 0, 0, None)
    assert should_start_trial(1, GAMES_PER_WORKER * 2 - 1, 2, None)
    assert not should_start_trial(1, GAMES_PER_WORKER * 2, 2, None)


def test_the_rule_follows_the_pool_size_read_at_each_decision() -> None:
    pending = GAMES_PER_WORKER * 10
    assert should_start_trial(3, pending, 100, None)  # a cluster of 100 workers wants more trials
    assert not should_start_trial(3, pending, 10, None)  # the same queue feeds 10 workers
    assert not should_start_trial(3, pending, 2, None)  # and a pool shrunk to 2 even more so


def test_parallel_in_the_study_file_is_an_upper_bound_not_a_target() -> None:
    assert not should_start_trial(4, 0, 100, 4)
    assert should_start_trial(3, 0, 100, 4)
    assert not should_start_trial(2, GAMES_PER_WORKER * 100, 100, 4)  # enough queued: no need to reach it
