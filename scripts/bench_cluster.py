"""Benchmark the Ray pool: the same matches sequentially, on 1 worker and on 2 workers.

Prints one JSON line: games/s for each, the parallel efficiency (sequential
time / (2 x time on 2 workers); target >= 0.85), the per-match dispatch
overhead ((time on 1 worker - sequential time) / matches; target < 2 ms), and
the workers' busy fraction (time spent inside play_match / (workers x wall
time)): the share of the run the pool kept its workers fed, which unlike the
efficiency does not depend on how many cores the machine can spare.

Each figure is the best of ``--repeats`` timed runs over warm engines and
warm workers (start-up is reported separately), the three kinds of run
interleaved, since the machine may be shared (the 1-minute load average is
printed beside the figures). Run it from the repository root:

    PYTHONPATH=$PWD .venv/bin/python scripts/bench_cluster.py
"""

from __future__ import annotations

import argparse
import json
import os
import time

from harness.cluster import Pool, ray_session
from harness.match import MatchSpec, play_match


def timed(run) -> float:
    """Seconds taken by ``run()``."""
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="totality")
    parser.add_argument("--player", default="greedy")
    parser.add_argument("--opponent", default="gbot:easy")
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    specs = [MatchSpec(args.game, args.player, args.opponent, seed) for seed in range(args.matches)]
    warmup = [MatchSpec(args.game, args.player, args.opponent, 10_000 + seed) for seed in range(8)]
    expected = sorted(spec.key for spec in specs)
    for spec in warmup:
        play_match(spec)  # import and compile in this process

    figures: dict[str, float] = {}
    timings: dict[str, list[float]] = {"sequential": [], "pool1": [], "pool2": []}
    busy: dict[str, list[float]] = {"pool1": [], "pool2": []}
    driver_cpu: dict[str, list[float]] = {"pool1": [], "pool2": []}  # CPU of this process
    # Both pools live at once (3 worker slots on a 2-core machine: a label, not a promise)
    # so the three measurements can be interleaved and share whatever else loads the machine.
    with ray_session(num_cpus=3), Pool(workers=1) as pool1, Pool(workers=2) as pool2:
        pools = {"pool1": pool1, "pool2": pool2}
        for name, pool in pools.items():
            started = time.perf_counter()
            pool.start()
            list(pool.run(warmup * pool.workers))  # every worker loads the engine; durations measured
            figures[f"startup_{name}_s"] = round(time.perf_counter() - started, 2)
        batches = {name: pool.stats.batches for name, pool in pools.items()}
        for _ in range(args.repeats):
            timings["sequential"].append(timed(lambda: [play_match(spec) for spec in specs]))
            for name, pool in pools.items():
                results = []
                cpu = time.process_time()
                timings[name].append(timed(lambda pool=pool: results.extend(pool.run(specs))))
                driver_cpu[name].append(time.process_time() - cpu)
                assert sorted(r.key for r in results) == expected, "the pool played other matches"
                # Time inside play_match over workers x wall time: how well the pool keeps its
                # workers fed, whatever share of a core the machine gives each of them.
                busy[name].append(sum(r.duration_s for r in results) / (pool.workers * timings[name][-1]))
        for name, pool in pools.items():
            figures[f"batches_{name}"] = (pool.stats.batches - batches[name]) / args.repeats
        figures["match_ms_on_worker"] = round(1000 * (pool2.stats.match_s or 0.0), 3)
    sequential, figures["pool1_s"], figures["pool2_s"] = (min(timings[name]) for name in timings)

    count = args.matches
    print(json.dumps({
        "bench": "cluster", "game": args.game, "player": args.player, "opponent": args.opponent,
        "matches": count, "repeats": args.repeats, "cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "sequential_games_per_s": round(count / sequential, 1),
        "pool1_games_per_s": round(count / figures["pool1_s"], 1),
        "pool2_games_per_s": round(count / figures["pool2_s"], 1),
        "parallel_efficiency": round(sequential / (2 * figures["pool2_s"]), 3),
        "efficiency_vs_1_worker": round(figures["pool1_s"] / (2 * figures["pool2_s"]), 3),
        "dispatch_overhead_ms": round(1000 * (figures["pool1_s"] - sequential) / count, 3),
        "worker_busy_fraction_1": round(max(busy["pool1"]), 3),
        "worker_busy_fraction_2": round(max(busy["pool2"]), 3),
        "driver_cpu_ms_per_match_2": round(1000 * min(driver_cpu["pool2"]) / count, 3),
        "mean_match_ms": round(1000 * sequential / count, 3),
        "match_ms_on_worker": figures["match_ms_on_worker"],
        "batches_per_run_1": figures["batches_pool1"], "batches_per_run_2": figures["batches_pool2"],
        "startup_1_s": figures["startup_pool1_s"], "startup_2_s": figures["startup_pool2_s"],
    }))


if __name__ == "__main__":
    main()
