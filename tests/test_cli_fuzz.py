"""A property-based fuzz of the CLI: random command lines built from the real click commands.

Every command, argument and option comes from ``harness.cli.cli`` itself, so
a new command or option is fuzzed without touching this file. Values are
plausible and bad ones: game and player specs, numbers out of range,
malformed database URLs, and random files (empty, binary, truncated TOML, a
SQLite file of another schema, a directory, a missing path). For every
command line: no traceback, an exit code of 0, 1, 2 or 130, every error one
line, and when the exit code is not 0 the seeded results database (and the
foreign SQLite file) unchanged.

Commands that would start Ray, serve forever or go online when their input is
valid (``HEAVY``, and any command this file does not know) always get one
value that fails before any work, so the default profile stays fast;
``HYPOTHESIS_PROFILE=long`` runs thousands of examples.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import click
import pytest
from hypothesis import find, given, settings, strategies as st

from harness.cli import cli, main

ROOT = Path(__file__).resolve().parents[1]
EXIT_CODES = {0, 1, 2, 130}
SECRET = "fuzz-Pa55word"

GAMES = ["ravenward", "totality", "totality:easy", "xiangqi", "xiangqi:black", "chess", "totality:hard",
         "xiangqi:seat=green", "", "RAVENWARD", "totality:easy:easy"]
SPECS = ["random", "greedy", "alphabeta:depth=1", "alphabeta:depth=-3", "alphabeta:depth=x", "mcts:foo=1",
         "tuned:nobody", "tuned:", "external:/no/such/engine", "random:w.mobility=2", "greedy,depth=1", ":",
         "alphabeta:depth=1,w.nosuchweight=1"]
BAD_URLS = [f"postgresql://u:{SECRET}@h:notaport/db", "nosuch://x", "mysql://u@h/db", "sqlite:////no/such/dir/x.db",
            f"postgresql://u:{SECRET}@x@h/db", "not a url", "sqlite:///x.db?timeout=abc", "sqlite://",
            ""]
RUNS = ["1", "2", "999", "cup", "", "-1", "x" * 300]
ADDRESSES = ["nowhere", "host:notaport", ":1", "a:b:c"]
TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12)
HEAVY = {"tournament", "tune", "live", "arena", "emulate", "serve"}  # valid input means minutes of work (or a server)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """A working directory with a seeded results database (also ``$HARNESS_DB``) and a foreign SQLite file."""
    root = tmp_path_factory.mktemp("fuzz")
    url = f"sqlite:///{root / 'seeded.db'}"
    from harness.db import open_database
    from tests.db.conftest import make_result
    with open_database(url) as db:
        run_id = db.start_run("tournament", "totality", {}, name="cup")
        for seed in range(4):
            db.record(run_id, make_result("greedy", "random", seed, score=10.0 + seed))
            db.record(run_id, make_result("random", "greedy", seed, score=float(seed), outcome="loss"))
        db.save_named_player("greedy-v1", "greedy", "totality")
    foreign = root / "foreign.db"
    with contextlib.closing(sqlite3.connect(foreign)) as connection:
        connection.executescript("CREATE TABLE runs (x TEXT); INSERT INTO runs VALUES ('not ours');"
                                 "CREATE TABLE matches (id INTEGER PRIMARY KEY, blob BLOB);")
        connection.commit()
    (root / "empty.toml").write_bytes(b"")
    (root / "binary.bin").write_bytes(bytes(range(256)) * 4)
    study = (ROOT / "studies" / "demo-totality.toml").read_text()
    (root / "truncated.toml").write_text(study[: len(study) // 2])
    (root / "adir").mkdir()
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    previous = os.getcwd()
    os.chdir(root)
    try:
        yield {"root": root, "url": url, "seeded": root / "seeded.db", "foreign": foreign,
               "busy_port": busy.getsockname()[1]}
    finally:
        os.chdir(previous)
        busy.close()


def files(workspace) -> list[str]:
    root = workspace["root"]
    return [str(root / name) for name in ("empty.toml", "binary.bin", "truncated.toml", "adir", "foreign.db",
                                          "missing.toml", "no/such/dir/file.toml")]


def database_urls(workspace) -> list[str]:
    return [workspace["url"]] * 4 + [f"sqlite:///{path}" for path in files(workspace)] + BAD_URLS


def values_for(param: click.Parameter, workspace, leaf: str):
    """A strategy of command-line values for one parameter: by its name first, then by its type."""
    name, kind = param.name or "", param.type
    if name == "db_url":
        return st.sampled_from(database_urls(workspace))
    if name == "game":
        return st.sampled_from(GAMES)
    if name in ("player", "players", "opponent", "anchor"):
        return st.sampled_from(SPECS)
    if name == "study":  # never a valid study file: tune would start trials
        return st.sampled_from(files(workspace) + ["demo-totality", "nosuch"])
    if name == "out":
        root = workspace["root"]
        return st.sampled_from([str(root / "r.html"), str(root / "missing" / "r.html"), str(root / "adir"),
                                str(root / "binary.bin"), ""])
    if name in ("run", "resume", "resume_id", "match_id"):
        return st.sampled_from(RUNS) | st.integers(-5, 10**12).map(str)
    if name == "address":
        return st.sampled_from(ADDRESSES)
    if name in ("url", "base_url"):
        return st.sampled_from(["notaurl", "ftp://x/y", "", "http://"])
    if name == "sprt":
        return st.sampled_from(["0,50", "50,0", "x", "0,50,2,2", "", "0,50,0.05,0.05"])
    if name == "port":
        return st.sampled_from([str(workspace["busy_port"]), "-1", "70000", "http"])
    if isinstance(kind, click.Choice):
        return st.sampled_from(list(kind.choices)) | TEXT
    if isinstance(kind, (click.IntRange, type(click.INT))):
        return st.integers(-3, 8).map(str) | st.sampled_from(["10000000000000000000000", "x", "1.5", ""])
    if isinstance(kind, (click.FloatRange, type(click.FLOAT))):
        return st.sampled_from(["0", "-1", "0.5", "20", "nan", "inf", "x", "1e309"])
    return TEXT | st.sampled_from(["-", "--", "--help", "é", " "])


def forced_value(leaf: str, param: click.Parameter, workspace) -> str | None:
    """The value that makes a heavy command fail before any work (None: draw freely)."""
    name = param.name
    if leaf == "tournament" and name == "games":
        return "0"  # plan() refuses it before Ray starts
    if leaf in ("live", "arena") and name == "game":
        return "chess"  # a game neither plays: refused before any request
    if leaf in ("emulate", "serve") and name == "port":
        return str(workspace["busy_port"])  # in use: refused before serving
    return None


@st.composite
def command_lines(draw, workspace) -> list[str]:
    """A command line of the real CLI: a (sub)command, some of its parameters, maybe junk."""
    commands = dict(cli.commands)
    for name, group in list(commands.items()):
        if isinstance(group, click.Group):
            commands.pop(name)
            commands.update({f"{name} {sub}": command for sub, command in group.commands.items()})
    name = draw(st.sampled_from(sorted(commands)))
    command, leaf = commands[name], name.split()[-1]
    args = name.split()
    positional = []
    for param in command.params:
        forced = forced_value(leaf, param, workspace)
        if isinstance(param, click.Argument):
            if forced is not None or param.required or draw(st.booleans()):
                positional.append(forced if forced is not None else draw(values_for(param, workspace, leaf)))
            continue
        if not isinstance(param, click.Option) or (forced is None and not draw(st.booleans())):
            continue
        flag = draw(st.sampled_from(param.opts))
        if param.is_flag:
            args.append(flag)
            continue
        for _ in range(draw(st.integers(1, 2)) if param.multiple else 1):
            args += [flag, forced if forced is not None else draw(values_for(param, workspace, leaf))]
    args += positional
    if draw(st.integers(0, 9)) == 0:
        args.insert(draw(st.integers(0, len(args))), draw(st.sampled_from(["--nope", "extra", "-x", "--help"])))
    if leaf not in KNOWN:
        args.append("--no-such-option")  # a command this file does not know: fuzz its parsing only
    return args


KNOWN = {"games", "play", "upgrade", "leaderboard", "ratings", "show", "export", "report", "runs", "studies",
         "players"} | HEAVY


def dump(path: Path) -> str:
    """A hash of the database's content as SQL (independent of pages and WAL)."""
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as connection:
        return hashlib.sha256("\n".join(connection.iterdump()).encode()).hexdigest()


def run_in_process(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def check_outcome(args: list[str], code: int, out: str, err: str) -> None:
    assert code in EXIT_CODES, (args, code, err)
    assert "Traceback" not in out + err, (args, err)
    assert SECRET not in out + err, (args, err)
    if code in (1, 2):
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("harness: "), (args, err)


def test_random_command_lines_fail_in_one_line_and_leave_the_database_alone(workspace, monkeypatch_module):
    @given(st.data())
    def property_(data):
        args = data.draw(command_lines(workspace), label="args")
        seeded, foreign = dump(workspace["seeded"]), dump(workspace["foreign"])
        code, out, err = run_in_process(args)
        check_outcome(args, code, out, err)
        if code != 0:
            assert dump(workspace["seeded"]) == seeded, (args, err)
            assert dump(workspace["foreign"]) == foreign, (args, err)

    property_()


@settings(max_examples=3)
@given(data=st.data())
def test_random_command_lines_in_a_real_process(data, workspace_process):
    args = data.draw(command_lines(workspace_process), label="args")
    seeded = dump(workspace_process["seeded"])
    done = subprocess.run([sys.executable, "-m", "harness.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=workspace_process["root"],
                          env={**os.environ, "HARNESS_DB": workspace_process["url"], "HARNESS_DEBUG": "",
                               "PYTHONPATH": str(ROOT)})
    check_outcome(args, done.returncode, done.stdout, done.stderr)
    if done.returncode != 0:
        assert dump(workspace_process["seeded"]) == seeded, (args, done.stderr)


@pytest.fixture(scope="module")
def monkeypatch_module(workspace):
    """``$HARNESS_DB`` is the seeded database (so a command without --db uses it); no debug output."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HARNESS_DB", workspace["url"])
        patch.delenv("HARNESS_DEBUG", raising=False)
        yield patch


@pytest.fixture(scope="module")
def workspace_process(workspace):
    return workspace


def test_the_fuzz_reaches_every_command(workspace):
    """The generator can build a command line for every command of the real CLI.

    ``find`` searches until a line of the command turns up: Hypothesis does
    not draw commands uniformly, so a fixed number of draws could miss one.
    """
    expected = {name for name, command in cli.commands.items() if not isinstance(command, click.Group)}
    for name in sorted(expected):
        # a junk word may have been put first: the command is the first word that names one
        line = find(command_lines(workspace), lambda args, name=name: [a for a in args if a in cli.commands][:1]
                    == [name], settings=settings(max_examples=2000, database=None))
        assert name in line
