"""Joining a running Ray cluster by address: a head started with scripts/ray_head, a
tournament driven from another process with --address HOST:PORT and with auto."""

from __future__ import annotations

import os
import pathlib
import signal
import socket
import subprocess
import sys
import time

import pytest

from harness.db import open_database

ROOT = pathlib.Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def head(tmp_path_factory):
    """A Ray head on a free port, in its own process group, torn down with it.

    Its temporary directory is the test's own, so the head's address file
    never makes another test's ``ray.init`` find a cluster that has gone.
    """
    port = free_port()
    env = dict(os.environ, RAY_TMPDIR=str(tmp_path_factory.mktemp("ray")))
    process = subprocess.Popen(
        [str(ROOT / "scripts" / "ray_head"), "--port", str(port), "--num-cpus", "2", "--block"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert process.poll() is None, "scripts/ray_head exited early"
            time.sleep(0.5)
    else:
        pytest.fail("the Ray head did not open its port in time")
    time.sleep(2)  # the head's raylet registers just after the GCS port opens
    yield f"127.0.0.1:{port}"
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@pytest.mark.parametrize("how", ["host:port", "auto"])
def test_a_tournament_joins_a_running_head_by_address(head, how, tmp_path):
    url = f"sqlite:///{tmp_path / 'results.db'}"
    address = head if how == "host:port" else "auto"
    env = dict(os.environ, RAY_ADDRESS=head) if how == "auto" else dict(os.environ)
    env.pop("RAY_AUTH_MODE", None)
    completed = subprocess.run(
        [sys.executable, "-m", "harness.cli", "tournament", "totality", "--player", "greedy",
         "--opponent", "random", "--games", "4", "--address", address, "--db", url, "--run-name", "joined"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr[-2000:]
    with open_database(url) as db:
        run = db.run("joined")
        assert run.status == "done"
        assert sorted(m.seed for m in db.matches(run_id=run.id)) == [0, 1, 2, 3]
