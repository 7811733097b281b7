"""A real study stopped at random points (SIGINT, SIGTERM, SIGKILL of the CLI) and resumed: every game once.

The real ``harness tune`` runs in a subprocess (one in-process worker, so no
Ray start per run, and once with two Ray workers); it is stopped a few times,
each a random moment (from a seeded generator) after the run's first finished
trial, then run to the end. After
that the results database must hold one row per distinct match key, the
leaderboard must count each distinct match once, and the study must hold its
budget of finished trials, each run holding exactly its games.
"""

from __future__ import annotations

import json
import os
import pathlib
import random
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

import pytest

from harness.db import open_database
from harness.tuning import study_trials
from tests.tuning_studies import GAME, tiny_study

ROOT = pathlib.Path(__file__).resolve().parents[2]
TRIAL_DONE = re.compile(r"trial \d+ (?:complete|pruned)")
STOPS = [("SIGINT", 1), ("SIGKILL", 1), ("SIGTERM", 1), ("SIGKILL", 1), ("SIGINT", 2)]  # (signal, workers)


def default_ctrl_c() -> None:
    """In the child, before Python starts: SIGINT and SIGTERM as in a terminal. A suite started in the
    background by a shell (``nohup ... &``) has SIGINT ignored, and a runner may start it with signals
    blocked; children inherit both, and the signal would then go unseen."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})


def signal_state() -> str:
    """This process's blocked and ignored signal masks, for a failure message."""
    status = pathlib.Path("/proc/self/status")
    lines = status.read_text().splitlines() if status.exists() else []
    return " ".join(line for line in lines if line.startswith(("SigBlk", "SigIgn")))


def run_to_the_end(command: list[str], cwd: pathlib.Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """Run ``command``; on a timeout, fail with what it had printed rather than a bare TimeoutExpired."""
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, preexec_fn=default_ctrl_c)
    try:
        out, err = process.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        pytest.fail(f"{' '.join(command[2:5])} did not end in 300 s; it printed:\n{err[-3000:]}")
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def tune_command(study: pathlib.Path, url: str, workers: int, *extra: str) -> list[str]:
    return [sys.executable, "-m", "harness.cli", "tune", str(study), "--db", url, "--workers", str(workers),
            "--stale-after", "2", *extra]


class TrialWatch:
    """Reads a running ``harness tune``'s stderr in a thread and notes its first finished trial."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.process = process
        self.lines: list[str] = []
        self.trial_done = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.process.stderr:
            self.lines.append(line)
            if TRIAL_DONE.search(line):
                self.trial_done.set()
        self.trial_done.set()

    def signal_after_a_trial(self, sig: int, delay: float) -> None:
        """Send ``sig`` ``delay`` seconds after the run's first finished trial, unless it has ended."""
        self.trial_done.wait(timeout=120)
        time.sleep(delay)
        if self.process.poll() is None:
            self.process.send_signal(sig)

    def finish(self) -> str:
        """Wait for the process to end; return all it wrote to stderr."""
        self.process.wait(timeout=120)
        self.reader.join(timeout=30)
        return "".join(self.lines)


def stop_mid_study(process: subprocess.Popen, sig: int, delay: float) -> str:
    """Send ``sig`` ``delay`` seconds after the run's first finished trial; return its stderr.

    Waiting for a trial rather than a fixed time lands the signal inside the
    study however slowly the machine starts Python or Ray, so the signal
    tests the stop rather than a study that already ended.
    """
    watch = TrialWatch(process)
    watch.signal_after_a_trial(sig, delay)
    return watch.finish()


@pytest.mark.slow
def test_a_study_stopped_at_random_points_and_resumed_records_every_game_once(tmp_path: pathlib.Path) -> None:
    rng = random.Random(12)
    study = tmp_path / "stop.toml"
    study.write_text(tiny_study("stop", trials=40).replace("parallel = 3\n", ""))
    url = f"sqlite:///{tmp_path / 'harness.db'}"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    interrupted = 0
    codes: list[str] = []
    for name, workers in STOPS:
        process = subprocess.Popen(tune_command(study, url, workers), cwd=tmp_path, env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                   preexec_fn=default_ctrl_c)
        err = stop_mid_study(process, getattr(signal, name), rng.uniform(0.0, 0.8))
        # -SIGINT after the resume line: stopped cleanly, and the interpreter's exit then re-raised the signal
        interrupted += process.returncode in (130, -signal.SIGKILL) or "resume with" in err
        trials = len(TRIAL_DONE.findall(err))
        codes.append(f"{name}: exit {process.returncode} after {trials} trials; it ended {err[-300:]!r}")
        if name != "SIGKILL" and process.returncode == 130:
            assert "resume with: harness tune" in err and "Traceback" not in err, err[-2000:]
        else:
            # 0: it ended first; -SIGINT/-SIGTERM: it had ended and Python was finishing
            assert process.returncode in (0, 130, -signal.SIGINT, -signal.SIGTERM, -signal.SIGKILL), err[-2000:]
    assert interrupted >= 3, ("the study ended before most signals: the test checked nothing\n"
                              + "\n".join(codes) + f"\n{signal_state()}")
    finished = run_to_the_end(tune_command(study, url, 1, "--json"), tmp_path, env)
    assert finished.returncode == 0, finished.stderr[-2000:]
    summary = json.loads(finished.stdout.strip().splitlines()[-1])
    assert summary["format"] == "harness.tune/2" and summary["study"] == "stop"
    assert summary["trials_complete"] + summary["trials_pruned"] == 40

    check_every_game_once(url, tmp_path, env, "stop")


def check_every_game_once(url: str, cwd: pathlib.Path, env: dict[str, str], name: str) -> None:
    """Rows == distinct keys, leaderboard counts == distinct matches, each trial's run holds its seeds once."""
    exported = subprocess.run([sys.executable, "-m", "harness.cli", "export", "--db", url], cwd=cwd,
                              env=env, capture_output=True, text=True, timeout=120)
    assert exported.returncode == 0, exported.stderr[-2000:]
    rows = [json.loads(line) for line in exported.stdout.splitlines()]
    keys = Counter(row["key"] for row in rows)
    assert rows and len(rows) == len(keys), "a match is recorded twice"
    with open_database(url) as db:
        games_per_player = Counter(row["player"] for row in rows if row["game"] == db.matches()[0].game)
        board = {row.player: row.games for row in db.leaderboard(GAME)}
        assert board == dict(games_per_player)  # each distinct match counted once
        for trial in study_trials(name, url):
            run = db.run(f"{name}/trial-{trial['number']}")
            seeds = [m.seed for m in db.matches(run_id=run.id)]
            assert len(seeds) == len(set(seeds))
            if trial["state"] == "complete":
                assert sorted(seeds) == list(range(12)) and trial["games"] == 12


PG_URL = os.environ.get("HARNESS_TEST_PG")


@pytest.mark.slow
@pytest.mark.skipif(not PG_URL, reason="needs HARNESS_TEST_PG (set by .ci/run)")
def test_a_study_on_postgresql_killed_and_stopped_then_resumed_records_every_game_once(
        tmp_path: pathlib.Path) -> None:
    """On PostgreSQL: a driver SIGKILLed (its lease left behind, taken over at once since its process is
    gone) and one stopped with SIGINT, then resumed to the end."""
    import uuid

    import psycopg
    schema = f"stops_{uuid.uuid4().hex[:12]}"
    plain = PG_URL.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as connection:
        connection.execute(f'CREATE SCHEMA "{schema}"')
    url = f"{PG_URL}{'&' if '?' in PG_URL else '?'}options=-csearch_path%3D{schema}"
    try:
        rng = random.Random(21)
        study = tmp_path / "pair.toml"
        study.write_text(tiny_study("pair", trials=24))
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        killed = 0
        for sig in (signal.SIGKILL, signal.SIGINT, signal.SIGKILL):
            watch = TrialWatch(subprocess.Popen(tune_command(study, url, 1), cwd=tmp_path, env=env,
                                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                                preexec_fn=default_ctrl_c))
            watch.signal_after_a_trial(sig, rng.uniform(0.0, 0.8))
            err = watch.finish()
            assert watch.process.returncode in (0, 130, -signal.SIGINT, -signal.SIGKILL), err[-2000:]
            assert "Traceback" not in err, err[-2000:]
            killed += watch.process.returncode == -signal.SIGKILL
        assert killed == 2, "a driver finished before it was killed: the test checked nothing"
        finished = run_to_the_end(tune_command(study, url, 1, "--json"), tmp_path, env)
        assert finished.returncode == 0, finished.stderr[-2000:]
        check_every_game_once(url, tmp_path, env, "pair")
    finally:
        with psycopg.connect(plain, autocommit=True) as connection:
            connection.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.mark.slow
def test_a_study_resumed_after_its_driver_was_killed_takes_its_trials_over_at_once(tmp_path: pathlib.Path) -> None:
    """With the default --stale-after (120 s): the killed driver's lease is fresh, but its process is gone
    from this host, so the resume says so on stderr and finishes well within the grace period."""
    study = tmp_path / "dead.toml"
    study.write_text(tiny_study("dead", trials=9))
    url = f"sqlite:///{tmp_path / 'harness.db'}"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "harness.cli", "tune", str(study), "--db", url, "--workers", "1"]
    watch = TrialWatch(subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, text=True, preexec_fn=default_ctrl_c))
    watch.signal_after_a_trial(signal.SIGKILL, 0.0)
    watch.finish()
    assert watch.process.returncode == -signal.SIGKILL, "the driver finished before it was killed"
    started = time.monotonic()
    finished = run_to_the_end(command + ["--json"], tmp_path, env)
    took = time.monotonic() - started
    assert finished.returncode == 0, finished.stderr[-2000:]
    assert f":{watch.process.pid}:" in finished.stderr and "is gone" in finished.stderr, finished.stderr[-2000:]
    assert "taking over its trials now" in finished.stderr
    assert took < 60, f"the resume took {took:.0f}s: it waited for the dead driver's lease to go stale"
    check_every_game_once(url, tmp_path, env, "dead")
