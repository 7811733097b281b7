"""A node lost mid-run, on a two-node Ray cluster on this machine (Ray's own ``cluster_utils.Cluster``).

The pool of every CPU starts one worker per node; the second node is killed
while matches run. The run must finish on the worker that remains, say in one
line that the pool shrank, hand back (and record) every match once, and grow
again when a node joins.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from harness.cluster import Pool, ray_session
from harness.db import open_database
from harness.match import MatchSpec

GAME = "totality:easy"


@pytest.fixture(scope="module")
def two_nodes() -> Iterator[object]:
    from ray.cluster_utils import Cluster
    # token authentication for the nodes (they inherit the mode) and this driver alike: a local
    # ray.init earlier in this process has switched the driver to it anyway (Ray's default)
    saved = os.environ.get("RAY_AUTH_MODE")
    set_auth_mode("token")
    # fast failure detection: a dead raylet is noticed within a few seconds, not half a minute
    health = {"health_check_period_ms": 500, "health_check_timeout_ms": 1000, "health_check_failure_threshold": 3}
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "_system_config": health})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    try:
        with ray_session(address=cluster.address):
            yield cluster
    finally:
        cluster.shutdown()
        set_auth_mode(saved)


def set_auth_mode(mode: str | None) -> None:
    """Ray's auth mode for this process: an earlier local ``ray.init`` of this process may have
    switched it to token (Ray does by default) and cached that in its config."""
    if mode is None:
        os.environ.pop("RAY_AUTH_MODE", None)
    else:
        os.environ["RAY_AUTH_MODE"] = mode
    from ray._raylet import Config
    Config.initialize("")


@pytest.mark.slow
def test_a_lost_node_shrinks_the_pool_and_its_work_runs_once_on_the_rest(two_nodes, tmp_path, capsys) -> None:
    cluster = two_nodes
    resizes: list[tuple[int, int]] = []
    url = f"sqlite:///{tmp_path / 'harness.db'}"
    specs = [MatchSpec(GAME, "alphabeta:depth=2", "random", seed) for seed in range(160)]
    with open_database(url) as db, Pool(address=cluster.address) as pool:
        pool.start()
        assert pool.workers == 2  # every CPU of both nodes
        pool.on_resize = lambda workers, previous: resizes.append((workers, previous))
        run_id = db.start_run("tournament", GAME, {})
        seen = []
        for result in pool.run(specs):
            db.record(run_id, result)
            seen.append(result.key)
            if len(seen) == 10:
                (doomed,) = list(cluster.worker_nodes)
                cluster.remove_node(doomed, allow_graceful=False)
        assert sorted(seen) == sorted(spec.key for spec in specs)  # each handed back once
        assert db.count_matches(run_id) == len(specs) == db.count_matches()
        deadline = time.monotonic() + 60
        seed = 1000
        while (1, 2) not in resizes and time.monotonic() < deadline:  # Ray noticed the loss late
            list(pool.run([MatchSpec(GAME, "greedy", "random", s) for s in range(seed, seed + 20)]))
            seed += 20
        assert (1, 2) in resizes and pool.workers == 1

        cluster.add_node(num_cpus=1)  # a node joins: the replacement asked for starts there
        more = [MatchSpec(GAME, "greedy", "random", seed) for seed in range(120, 200)]
        assert len(list(pool.run(more))) == len(more)
        pool.worker_pids()
        assert pool.workers == 2 and resizes[-1] == (2, 1)


def test_the_default_resize_report_is_one_line_on_stderr(capsys) -> None:
    from harness.cluster import announce_resize
    announce_resize(1, 2)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "shrank from 2 to 1 workers" in err
