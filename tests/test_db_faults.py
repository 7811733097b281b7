"""The results database fails in the middle of a tournament and of a study.

Real faults on a real SQLite file, injected by a thread while the command
runs (in this process, on the module's Ray cluster): the file is moved away,
made read-only (as root, whom file modes do not stop, ``chattr +i`` or a
read-only bind mount over the file; ``chmod`` otherwise), or the disk fills (``RLIMIT_FSIZE``: writes past the limit fail
with EFBIG, as on a full disk). Each time the command stops with one line
naming the fault and the command that resumes the work; what was committed
before the fault stays; once the fault is repaired that command finishes the
work, every match recorded once.
"""

from __future__ import annotations

import contextlib
import os
import re
import resource
import shlex
import sqlite3
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from harness.cli import main
from tests.requirements import unavailable

TOURNAMENT_GAMES = 30
STUDY = """
name = "faults"
game = "totality:easy"
opponent = "random"
pruner = "none"
[player]
kind = "alphabeta"
depth = 1
[weights]
mobility = {}
corners = {}
[budget]
trials = 4
block = 3
blocks = 2
[openings]
tuning = [0, 6]
selection = [100, 106]
confirmation = [200, 216]
"""


def recorded(path: Path) -> int:
    """How many matches the file holds, read without the harness (0 while it is missing)."""
    if not path.exists():
        return 0
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)) as connection:
        try:
            return connection.execute("SELECT count(*) FROM matches").fetchone()[0]
        except sqlite3.OperationalError:  # not created yet
            return 0


class FaultAfter(threading.Thread):
    """Applies ``fault`` once the database holds ``matches`` matches; remembers how many it held."""

    def __init__(self, path: Path, matches: int, fault) -> None:
        super().__init__(daemon=True)
        self.path, self.matches, self.fault = path, matches, fault
        self.held_at_fault: int | None = None
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            count = recorded(self.path)
            if count >= self.matches:
                self.fault()
                self.held_at_fault = count
                return
            time.sleep(0.005)


def moved(path: Path):
    holder = path.with_name(path.name + ".away")
    return (lambda: os.rename(path, holder)), (lambda: os.rename(holder, path)), "moved or deleted"


ROOT_READ_ONLY = (  # root ignores file modes: the immutable flag, else a read-only bind mount over the file
    (["chattr", "+i"], ["chattr", "-i"]),
    (["sh", "-c", 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" || { umount "$0"; false; }'],
     ["umount"]),
)


def read_only(path: Path):
    """Made read-only by file mode, or for root by the immutable flag or a read-only bind mount.

    None where root can do neither (a filesystem without the flag, no right to mount).
    """
    if os.geteuid() != 0:
        return (lambda: os.chmod(path, 0o444)), (lambda: os.chmod(path, 0o644)), "read-only"
    probe = path.with_name("probe")  # the same filesystem as the database
    probe.write_text("x")
    for make, undo in ROOT_READ_ONLY:
        made = subprocess.run([*make, str(probe)], capture_output=True).returncode == 0
        if made:
            worked = not os.access(probe, os.W_OK)
            subprocess.run([*undo, str(probe)], capture_output=True, check=True)
            if worked:
                return (lambda make=make: subprocess.run([*make, str(path)], check=True),
                        lambda undo=undo: subprocess.run([*undo, str(path)], check=True), "read-only")
    return None


READ_ONLY_UNAVAILABLE = ("the read-only fault was not injected: running as root on a filesystem without the "
                         "immutable flag (chattr +i) and without the right to mount read-only")


def disk_full(path: Path):
    """Writes past a file-size limit just above the write-ahead log fail (EFBIG), as on a full disk."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    wal = path.with_name(path.name + "-wal")

    def fill() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (wal.stat().st_size + 4096, hard))

    return fill, (lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))), "disk"


FAULTS = {"moved": moved, "read-only": read_only, "disk-full": disk_full}


def run_cli(capsys, args: list[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def resume_command(err: str, url: str) -> list[str]:
    found = re.search(r"resume with: (harness .*)$", err.strip())
    assert found, err
    return shlex.split(found.group(1))[1:] + ["--db", url]


def stop_with_one_line(capsys, path: Path, kind: str, args: list[str]) -> str:
    """Run the command with the fault injected two matches later; return its one line."""
    fault, repair, words = FAULTS[kind](path)
    injector = FaultAfter(path, recorded(path) + 2, fault)
    injector.start()
    try:
        code, _, err = run_cli(capsys, args)
    finally:
        injector.stop.set()
        injector.join()
        if injector.held_at_fault is not None:
            repair()
    assert injector.held_at_fault is not None, "the command finished before the fault"
    assert code == 1, err
    line = [text for text in err.splitlines() if text.startswith("harness:")]
    assert len(line) == 1 and line[0].startswith("harness: error: database"), err
    assert words in line[0], line[0]
    assert recorded(path) >= injector.held_at_fault  # everything committed before the fault is there
    return line[0]


@pytest.fixture
def database(tmp_path, monkeypatch, capsys) -> tuple[Path, str]:
    path = tmp_path / "results.db"
    url = f"sqlite:///{path}"
    monkeypatch.delenv("HARNESS_DB", raising=False)
    assert run_cli(capsys, ["db", "upgrade", "--db", url])[0] == 0
    return path, url


def test_a_tournament_stops_in_one_line_at_each_fault_and_its_resume_command_finishes_it(ray_cluster, capsys,
                                                                                        database):
    path, url = database
    args = ["tournament", "totality", "--player", "alphabeta:depth=1", "--opponent", "random",
            "--games", str(TOURNAMENT_GAMES), "--workers", "1", "--db", url]
    skipped = []
    for kind in ("moved", "read-only", "disk-full"):  # each resume meets the next fault
        if FAULTS[kind](path) is None:
            skipped.append(kind)
            continue
        line = stop_with_one_line(capsys, path, kind, args)
        assert "resume with: harness tournament --resume" in line
        args = resume_command(line, url)
    code, out, err = run_cli(capsys, args)
    assert code == 0, err
    from harness.db import open_database
    with open_database(url) as db:
        (run,) = db.runs()
        keys = Counter(match.key for match in db.matches(run_id=run.id))
        assert run.status == "done" and len(keys) == TOURNAMENT_GAMES and set(keys.values()) == {1}
    assert f"{TOURNAMENT_GAMES}/{TOURNAMENT_GAMES} games recorded" in out
    if skipped:  # the rest passed; the case that could not run is a skip here and a failure in CI
        unavailable(READ_ONLY_UNAVAILABLE)


def test_a_study_stops_in_one_line_at_each_fault_and_its_resume_command_finishes_it(ray_cluster, capsys,
                                                                                   database, tmp_path):
    path, url = database
    study = tmp_path / "faults.toml"
    study.write_text(STUDY)
    options = ["--workers", "1", "--stale-after", "2"]
    args = ["tune", str(study), *options, "--db", url]
    for kind in ("moved", "disk-full"):
        line = stop_with_one_line(capsys, path, kind, args)
        assert f"resume with: harness tune {study}" in line
        args = resume_command(line, url) + options
    code, out, err = run_cli(capsys, args)
    assert code == 0, err
    assert "study faults: 4 complete" in out
    from harness.db import open_database
    with open_database(url) as db:
        assert db.named_player_record("faults") is not None or "behind the incumbent in the race" in out  # confirmed and saved
        for run in db.runs():
            keys = Counter(match.key for match in db.matches(run_id=run.id))
            assert set(keys.values()) <= {1}
