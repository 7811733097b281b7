"""Benchmark a tuning study's scaling: the same fixed study on 1 worker and on 2 workers.

Prints one JSON line. The study is fixed (its trials, seeds and sampler seed;
no pruning, so every run plays the same games) and shaped like the shipped
``studies/totality-wise.toml``: a depth-3 alpha-beta against the wise G-Bot
stand-in, 64 openings a trial in two blocks. It runs on the in-process pool
(``--workers 1``, no Ray), on one Ray worker and on two, each on a fresh
SQLite database, race and confirmation off; the Ray runs alternate ``--repeat`` times
and the median of the ratios is reported beside each pair, so one noisy
second on a shared machine does not decide it. For each run: games/s, the
workers' busy fraction (time inside matches / (workers x wall time)), the
most trials and games in flight at once, and the database writes per second
the driver made (one per game plus the trial's Optuna rows). ``ratio`` is
2-worker games/s over 1-worker (Ray) games/s; target on a 2-core machine
>= 1.7. ``--two-nodes`` also runs it on a local two-node Ray cluster (Ray's
``cluster_utils``: a head and a worker node, one CPU each).

Why the games' cost matters: on two cores the driver shares a core with the
workers, so the ratio is at most 2 x match / (match + driver per game).
``--opponent greedy --depth 2`` makes games of about 16 ms, against which
the driver's few ms a game show (docs/tuning.md has both figures).

Ray's start is not timed (one local cluster serves the Ray runs), numba's
compilation is warmed first (two matches per worker before each run's clock),
and the 1-minute load average is printed beside the figures.

    PYTHONPATH=$PWD .venv/bin/python scripts/bench_tuning.py [--trials 8] [--games 64] [--depth 3]
        [--opponent gbot] [--repeat 3] [--two-nodes]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time

from harness.cluster import InProcessPool, Pool, ray_session
from harness.match import play_match
from harness.tuning import parse_study_file, tune

STUDY = """name = "bench"
game = "totality:wise"
opponent = "{opponent}"
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
block = {half}
blocks = 2

[openings]
tuning = [0, {games}]
selection = [900, 901]
confirmation = [950, 951]
"""


def warm(config, pool) -> None:
    """Two matches per worker before the clock: each worker process loads the compiled engine once."""
    pool.start()
    spec = config.player_spec(config.incumbent_weights())
    pool.submit(config.matches(spec, range(800, 800 + 2 * max(1, pool.workers))))
    for _ in pool.as_completed():
        pass


def run(config, pool, directory: str, label: str) -> dict[str, float | int | None]:
    warm(config, pool)
    url = f"sqlite:///{directory}/{label}.db"
    before = resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    summary = tune(config, db_url=url, pool=pool, select=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF)
    driver_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    trials = summary.trials_complete + summary.trials_pruned
    return {"games": summary.games, "seconds": round(summary.seconds, 2),
            "games_per_s": round(summary.games / summary.seconds, 2),
            "busy": None if summary.busy is None else round(summary.busy, 3),
            "max_games_in_flight": summary.max_games_in_flight,
            "db_writes_per_s": round((summary.games + 6 * trials) / wall, 1),
            # the driver process's CPU (its Ray threads included); in-process it includes the matches
            "driver_cpu_ms_per_game": round(1000 * driver_s / max(1, summary.games), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=8)
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--depth", type=int, default=3,
                        help="the player's search depth: the cost of a game against the driver's per-game cost")
    parser.add_argument("--opponent", default="gbot", help="the study's opponent (default the wise stand-in)")
    parser.add_argument("--repeat", type=int, default=3, help="alternating 1- and 2-worker runs; the median ratio counts")
    parser.add_argument("--two-nodes", action="store_true")
    args = parser.parse_args()
    config = parse_study_file(STUDY.format(trials=args.trials, games=args.games, half=max(1, args.games // 2),
                                          depth=args.depth, opponent=args.opponent))
    play_match(config.matches(config.player_spec(config.incumbent_weights()), [0])[0])  # warm numba
    figures: dict[str, object] = {"study": {"trials": args.trials, "games_per_trial": args.games,
                                            "player": config.player_spec(config.incumbent_weights()), "game": config.game,
                                            "opponent": config.opponent}}
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as directory:
        with InProcessPool() as pool:
            figures["in_process"] = run(config, pool, directory, "inprocess")
        pairs = []
        with ray_session(num_cpus=2):
            for attempt in range(max(1, args.repeat)):
                with Pool(workers=1) as pool:
                    one = run(config, pool, directory, f"ray1-{attempt}")
                with Pool(workers=2) as pool:
                    two = run(config, pool, directory, f"ray2-{attempt}")
                pairs.append((one, two))
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
    ratios = [two["games_per_s"] / one["games_per_s"] for one, two in pairs]
    middle = sorted(range(len(pairs)), key=lambda i: ratios[i])[len(pairs) // 2]
    figures["ray_1"], figures["ray_2"] = pairs[middle]
    figures["ratio"] = round(ratios[middle], 2)
    figures["ratios"] = [round(r, 2) for r in ratios]
    figures["ratio_vs_in_process"] = round(figures["ray_2"]["games_per_s"] / figures["in_process"]["games_per_s"], 2)
    figures["load_1min"] = round(os.getloadavg()[0], 2)
    figures["cpus"] = os.cpu_count()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
