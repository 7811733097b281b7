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
from tests.waiting import wait_until

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

    def port_open() -> bool:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            assert process.poll() is None, "scripts/ray_head exited early"
            return False

    wait_until(port_open, "the Ray head opens its port", timeout_s=120, interval_s=0.5)
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


def harness_tune(args, tmp_path, timeout=300):
    study = tmp_path / "joined.toml"
    from tests.tuning_studies import tiny_study
    study.write_text(tiny_study("joined", trials=2))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("RAY_AUTH_MODE", None)
    return subprocess.run([sys.executable, "-m", "harness.cli", "tune", str(study),
                           "--db", f"sqlite:///{tmp_path / 'results.db'}", *args],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
def test_a_node_started_with_scripts_ray_worker_joins_the_head_and_tune_uses_every_cpu(head, tmp_path):
    env = dict(os.environ, RAY_TMPDIR=str(tmp_path / "ray"))
    env.pop("RAY_AUTH_MODE", None)
    (tmp_path / "ray").mkdir()
    worker = subprocess.Popen([str(ROOT / "scripts" / "ray_worker"), head, "--num-cpus", "1", "--block"],
                              cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              start_new_session=True)
    try:
        completed = None
        for _ in range(20):  # the node registers a few seconds after it starts
            time.sleep(3)
            assert worker.poll() is None, f"scripts/ray_worker exited: {worker.stderr.read()[-2000:]}"
            completed = harness_tune(["--address", head, "--trials", "1", "--json"], tmp_path)
            assert completed.returncode == 0, completed.stderr[-2000:]
            if '"workers": 3' in completed.stdout:
                break
        assert '"workers": 3' in completed.stdout  # two CPUs of the head, one of the joined node
        assert "Token authentication" not in completed.stderr
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=60)


def test_more_workers_than_the_cluster_has_is_one_line(head, tmp_path):
    completed = harness_tune(["--address", head, "--workers", "9"], tmp_path)
    assert completed.returncode == 1
    assert completed.stderr.strip().count("\n") == 0 and "ask for at most" in completed.stderr


def test_an_unreachable_head_and_a_ray_client_address_are_one_line(tmp_path):
    completed = harness_tune(["--address", f"127.0.0.1:{free_port()}"], tmp_path)
    assert completed.returncode == 1 and "cannot reach a Ray head" in completed.stderr
    assert completed.stderr.strip().count("\n") == 0
    completed = harness_tune(["--address", "ray://127.0.0.1:10001"], tmp_path)
    assert completed.returncode == 2 and "not supported" in completed.stderr
