"""Benchmark a tuning study's scaling: the same fixed study on 1 worker and on 2 workers.

Prints one JSON line. The study is fixed (its trials, seeds and sampler seed;
no pruning, so every run plays the same games): it runs once on the
in-process pool (``--workers 1``, no Ray), once on one Ray worker and once on
two, each on a fresh SQLite database, validation off. For each: games/s, the
workers' busy fraction (time inside matches / (workers x wall time)), the
most trials and games in flight at once, the database writes per second the
driver made (one per game plus the trial's Optuna rows). ``ratio`` is 2-worker
games/s over 1-worker (Ray) games/s; target on a 2-core machine >= 1.7.
``--two-nodes`` also runs it on a local two-node Ray cluster (Ray's
``cluster_utils``: a head and a worker node, one CPU each).

Ray's start is not timed (one local cluster serves the Ray runs), numba's
compilation is warmed first (two matches per worker before each run's clock), and the 1-minute load average is printed beside
the figures: on a shared machine the ratio is a floor.

    PYTHONPATH=$PWD .venv/bin/python scripts/bench_tuning.py [--trials 8] [--games 24] [--depth 2] [--two-nodes]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

from harness.cluster import InProcessPool, Pool, ray_session
from harness.match import MatchSpec, play_match
from harness.tuning import parse_study_file, tune

STUDY = """name = "bench"
game = "totality:easy"
opponent = "greedy"
sampler = "random"
pruner = "none"
seed = 7

[player]
kind = "alphabeta"
depth = {depth}

[weights]
corners = {{}}
mobility = {{}}

[budget]
trials = {trials}
games = {games}
rungs = [{half}, {games}]

[seeds]
tuning = [0, {games}]
validation = [100000, 100001]
"""


def warm(config, pool) -> None:
    """Two matches per worker before the clock: each worker process loads the compiled engine once."""
    pool.start()
    spec = config.player_spec(config.default_weights())
    pool.submit([MatchSpec(config.game, spec, "greedy", 10_000 + i) for i in range(2 * max(1, pool.workers))])
    for _ in pool.as_completed():
        pass


def run(config, pool, directory: str, label: str) -> dict[str, float | int | None]:
    warm(config, pool)
    url = f"sqlite:///{directory}/{label}.db"
    started = time.perf_counter()
    summary = tune(config, db_url=url, pool=pool, validate_best=False)
    wall = time.perf_counter() - started
    trials = summary.trials_complete + summary.trials_pruned
    return {"games": summary.games, "seconds": round(summary.seconds, 2),
            "games_per_s": round(summary.games / summary.seconds, 2),
            "busy": None if summary.busy is None else round(summary.busy, 3),
            "max_trials_in_flight": summary.max_trials_in_flight,
            "max_games_in_flight": summary.max_games_in_flight,
            "db_writes_per_s": round((summary.games + 6 * trials) / wall, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=8)
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--depth", type=int, default=2,
                        help="the player's search depth: the cost of a game against the driver's per-game cost")
    parser.add_argument("--two-nodes", action="store_true")
    args = parser.parse_args()
    config = parse_study_file(STUDY.format(trials=args.trials, games=args.games, half=args.games // 2,
                                          depth=args.depth))
    play_match(MatchSpec(config.game, config.player_spec(config.default_weights()), "greedy", 0))  # warm numba
    figures: dict[str, object] = {"study": {"trials": args.trials, "games_per_trial": args.games,
                                            "player": config.player_spec(config.default_weights()), "game": config.game}}
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as directory:
        with InProcessPool() as pool:
            figures["in_process"] = run(config, pool, directory, "inprocess")
        with ray_session(num_cpus=2):
            with Pool(workers=1) as pool:
                figures["ray_1"] = run(config, pool, directory, "ray1")
            with Pool(workers=2) as pool:
                figures["ray_2"] = run(config, pool, directory, "ray2")
        if args.two_nodes:
            from ray.cluster_utils import Cluster
            from ray._raylet import Config
            os.environ["RAY_AUTH_MODE"] = "token"  # the nodes and this driver alike
            Config.initialize("")
            cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
            cluster.add_node(num_cpus=1)
            cluster.wait_for_nodes()
            try:
                with ray_session(address=cluster.address), Pool(address=cluster.address) as pool:
                    figures["two_nodes"] = run(config, pool, directory, "nodes")
            finally:
                cluster.shutdown()
    figures["ratio"] = round(figures["ray_2"]["games_per_s"] / figures["ray_1"]["games_per_s"], 2)
    figures["ratio_vs_in_process"] = round(figures["ray_2"]["games_per_s"] / figures["in_process"]["games_per_s"], 2)
    figures["load_1min"] = round(os.getloadavg()[0], 2)
    figures["cpus"] = os.cpu_count()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
