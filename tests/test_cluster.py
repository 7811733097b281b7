"""The Ray pool on a real local Ray cluster (2 CPUs): matches, map, rate limiter, channel, faults.

One Ray session (shared with the tournament tests) and one pool serve the
whole module, since starting Ray and its worker processes is what costs time.
"""

from __future__ import annotations

import os
import time

import pytest

from harness.cluster import Pool, ray_session
from harness.errors import ClusterError, InvalidInput, SpecError
from harness.match import MatchSpec, play_match

GAME = "totality"


@pytest.fixture(scope="session")
def ray_cluster():
    """One local Ray session for every Ray test module (the first to start it ends it)."""
    with ray_session(num_cpus=2):
        yield


@pytest.fixture(scope="module")
def pool(ray_cluster):
    with Pool(workers=2) as shared:
        yield shared


# Functions run by Pool.map on the workers: top-level, so they pickle by reference.

def worker_pid(item: int) -> tuple[int, int]:
    return item, os.getpid()


def acquire_and_report(job: tuple) -> int:
    limiter, channel, number = job
    limiter.acquire()
    channel.put((number, time.monotonic(), os.getpid()))
    return number


def raise_spec_error(item: int) -> None:
    raise SpecError(f"no such player {item}")


def raise_bug(item: int) -> None:
    raise ZeroDivisionError(f"bug {item}")


def exit_process(item: int) -> None:
    os._exit(1)


def test_pool_plays_the_same_matches_as_play_match(pool):
    specs = [MatchSpec(GAME, "random", "random", seed) for seed in range(12)]
    expected = {spec.key: play_match(spec) for spec in specs}
    results = list(pool.run(specs))
    assert sorted(r.key for r in results) == sorted(expected)
    for result in results:
        assert result.actions == expected[result.key].actions
        assert result.outcome == expected[result.key].outcome


def test_as_completed_hands_back_every_tag_and_picks_up_new_submits(pool):
    pool.submit([MatchSpec(GAME, "random", "random", seed) for seed in range(4)], tag="a")
    seen: dict[str, int] = {}
    for tag, _ in pool.as_completed():
        seen[tag] = seen.get(tag, 0) + 1
        if tag == "a" and seen["a"] == 1:
            pool.submit([MatchSpec(GAME, "random", "random", seed) for seed in range(100, 103)], tag="b")
    assert seen == {"a": 4, "b": 3}
    assert pool.pending() == 0


def test_cancel_drops_queued_matches_of_one_tag_only(pool):
    pool.submit([MatchSpec(GAME, "random", "random", seed) for seed in range(30)], tag="drop")
    pool.submit([MatchSpec(GAME, "random", "random", seed) for seed in range(30, 33)], tag="keep")
    assert pool.cancel("drop") == 30
    assert [tag for tag, _ in pool.as_completed()] == ["keep"] * 3


def test_map_runs_on_the_worker_processes(pool):
    results = sorted(pool.map(worker_pid, range(6)))
    assert [item for item, _ in results] == list(range(6))
    assert {pid for _, pid in results} <= set(pool.worker_pids())
    assert os.getpid() not in {pid for _, pid in results}


def test_rate_limiter_spaces_acquisitions_from_all_workers_and_channel_collects_them(pool):
    rate = 20.0
    limiter, channel = pool.rate_limiter(rate), pool.channel()
    numbers = sorted(pool.map(acquire_and_report, [(limiter, channel, n) for n in range(6)]))
    assert numbers == list(range(6))
    reports = channel.drain()
    assert sorted(number for number, _, _ in reports) == list(range(6))
    stamps = sorted(stamp for _, stamp, _ in reports)
    gaps = [later - earlier for earlier, later in zip(stamps, stamps[1:])]
    assert min(gaps) >= 0.8 / rate  # one slot per 1/rate seconds, whichever worker asks
    assert channel.drain() == []


def test_worker_errors_keep_their_class_or_become_cluster_errors(pool):
    with pytest.raises(SpecError, match="no such player 3"):
        list(pool.map(raise_spec_error, [3]))
    with pytest.raises(ClusterError, match="ZeroDivisionError: bug 4"):
        list(pool.map(raise_bug, [4]))


def test_dead_worker_is_replaced_and_its_batch_runs_again(pool):
    victim = pool.worker_pids()[0]
    replaced = pool.stats.replaced
    specs = [MatchSpec(GAME, "random", "random", seed) for seed in range(200, 240)]
    keys = []
    for result in pool.run(specs):
        keys.append(result.key)
        if len(keys) == 2:
            os.kill(victim, 9)
    assert sorted(keys) == sorted(spec.key for spec in specs)  # each handed back once
    assert pool.stats.replaced == replaced + 1
    assert victim not in pool.worker_pids()
    assert pool.workers == 2


def test_work_that_kills_every_worker_it_gets_is_reported_not_retried_forever(pool):
    replaced = pool.stats.replaced
    with pytest.raises(ClusterError, match="lost its worker 3 times"):
        list(pool.map(exit_process, [0]))
    assert pool.stats.replaced == replaced + 3
    assert sorted(pool.map(worker_pid, range(2)))  # the pool still works


def test_bad_settings_are_invalid_input():
    with pytest.raises(InvalidInput):
        Pool(workers=0)
    with pytest.raises(InvalidInput, match="not valid"):
        Pool(address="no-port-here")
    with pytest.raises(InvalidInput):
        Pool().rate_limiter(0)


def test_more_workers_than_cpus_is_a_clear_error(pool):
    with pytest.raises(ClusterError, match="at most 2 workers"):
        Pool(workers=3).start()
