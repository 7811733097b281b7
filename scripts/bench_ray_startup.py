"""Benchmark where a command's start-up seconds go: importing Ray, starting it, starting workers.

Prints one JSON line: the seconds of each phase of a local pool's start (import
ray; ``ray.init`` of a local cluster with the harness's quiet options; the
first worker actor answering; a second one), of closing it, and the wall time
of the same small ``harness tournament`` command with ``--workers 1`` (the
in-process pool: no Ray at all) and ``--workers 2`` (a local Ray cluster).
The machine may be shared: the 1-minute load average is printed beside them.

    PYTHONPATH=$PWD .venv/bin/python scripts/bench_ray_startup.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time


def phases() -> dict[str, float]:
    """Seconds of each phase of a two-worker local pool's start, measured in a fresh process."""
    code = r"""
import json, time
t0 = time.perf_counter()
import ray
t1 = time.perf_counter()
from harness.cluster.session import connect
connect(2, None)
t2 = time.perf_counter()
from harness.cluster.workers import RemoteWorker
first = RemoteWorker.remote()
ray.get(first.pid.remote())
t3 = time.perf_counter()
second = RemoteWorker.remote()
ray.get(second.pid.remote())
t4 = time.perf_counter()
ray.shutdown()
t5 = time.perf_counter()
print(json.dumps({"import_ray_s": t1 - t0, "ray_init_s": t2 - t1, "first_worker_s": t3 - t2,
                  "second_worker_s": t4 - t3, "shutdown_s": t5 - t4}))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def command_s(workers: int, directory: str) -> float:
    """Wall seconds of a 4-game tournament command, start-up included."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "harness.cli", "tournament", "totality", "--player", "greedy",
                    "--opponent", "random", "--games", "4", "--workers", str(workers),
                    "--db", f"sqlite:///{directory}/bench-{workers}-{time.time_ns()}.db"],
                   capture_output=True, check=True, cwd=directory)
    return time.perf_counter() - started


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as directory:
        command_s(1, directory)  # warm the numba cache and the file system
        figures = {k: round(v, 3) for k, v in phases().items()}
        figures["command_workers_1_s"] = round(command_s(1, directory), 2)
        figures["command_workers_2_s"] = round(command_s(2, directory), 2)
    figures["load_1min"] = round(os.getloadavg()[0], 2)
    figures["cpus"] = os.cpu_count()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
