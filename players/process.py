"""An engine subprocess run with least trust: no shell, a clean environment, killed on timeout.

Both engine kinds (``external`` and ``uci``) run programs the user names, so
the harness hands them only what a program needs to start: the variables in
``ENVIRONMENT`` (``PATH``, ``HOME``, the locale, the temporary directory),
never the results database URL (``HARNESS_DB``), a password or a token. The
program is started without a shell (its arguments are a list), read line by
line through a thread, so a reply that does not come within its time is
noticed, and the process is killed then.
"""

from __future__ import annotations

import collections
import os
import queue
import shlex
import shutil
import subprocess
import threading
from collections.abc import Mapping, Sequence
from typing import IO, Any, Callable, NoReturn

from harness.errors import PlayerError, SpecError

# The variables an engine gets from the harness's environment; nothing else is passed on.
ENVIRONMENT = ("PATH", "HOME", "LANG", "LANGUAGE", "TMPDIR", "TZ", "TERM")
# Debian installs game engines (fairy-stockfish) in /usr/games, which is on a
# user's PATH but not on root's: a bare program name is also looked up there.
EXTRA_PROGRAM_DIRS = ("/usr/games",)
# Seconds a closing engine gets to exit on its own after its stdin closes.
CLOSE_GRACE_S = 1.0
# Lines of the engine's stderr kept for error messages.
STDERR_LINES = 20
_EOF = object()


def split_command(kind: str, command: str | None, example: str) -> list[str]:
    """A spec's ``command`` as the argument list it is run with (``shlex``, no shell).

    Raises:
        SpecError: no command, or one that ``shlex`` cannot split; the message shows ``example``.
    """
    try:
        argv = shlex.split(command) if command else []
    except ValueError as error:
        raise SpecError(f"player {kind!r}: command={command!r} cannot be split: {error}") from None
    if not argv:
        raise SpecError(f"player {kind!r} needs command=<program and arguments>, e.g. {example}")
    return argv


def engine_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment an engine runs with: only the ``ENVIRONMENT`` variables and ``LC_*``."""
    source = os.environ if environ is None else environ
    return {key: value for key, value in source.items() if key in ENVIRONMENT or key.startswith("LC_")}


def find_program(program: str) -> str | None:
    """The path of a program on ``PATH`` or in ``EXTRA_PROGRAM_DIRS``, or None if it is not installed."""
    return shutil.which(program) or shutil.which(program, path=os.pathsep.join(EXTRA_PROGRAM_DIRS))


def resolve_program(program: str) -> str:
    """The program to run: a bare name found on ``PATH`` or in ``EXTRA_PROGRAM_DIRS``, else as given."""
    if os.sep in program or shutil.which(program):
        return program
    return find_program(program) or program


class EngineProcess:
    """One running engine: send lines, read lines within a timeout, close or kill it.

    Args:
        argv: the program and its arguments (no shell).
        name: how errors name the engine (default: the program).

    Raises:
        PlayerError: the program could not be started.
    """

    def __init__(self, argv: Sequence[str], name: str | None = None) -> None:
        self.argv = list(argv)
        self.name = name or self.argv[0]
        self.lines: queue.Queue[Any] = queue.Queue()
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        try:
            self.process: subprocess.Popen[str] = subprocess.Popen(
                [resolve_program(self.argv[0]), *self.argv[1:]], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
                env=engine_environment())
        except OSError as error:
            raise PlayerError(f"engine {self.name!r} could not be started: {error}") from error
        threading.Thread(target=_pump, args=(self.process.stdout, self.lines.put, _EOF), daemon=True).start()
        self.stderr_reader = threading.Thread(target=_pump, args=(self.process.stderr, self.stderr_tail.append),
                                              daemon=True)
        self.stderr_reader.start()

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def alive(self) -> bool:
        """True while the process runs."""
        return self.process.poll() is None

    def send(self, line: str) -> None:
        """Write one line to the engine's stdin.

        Raises:
            PlayerError: the engine has exited (it is closed first).
        """
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (OSError, ValueError):
            self.fail("exited before the request could be sent")

    def read_line(self, timeout: float, awaiting: str | None = None, stated: float | None = None) -> str:
        """The next line of the engine's stdout, waiting at most ``timeout`` seconds.

        Args:
            timeout: seconds to wait.
            awaiting: what the harness waits for (``uciok``), named in the error.
            stated: the time limit the error names, when ``timeout`` is what remains of it.

        Raises:
            PlayerError: no line in time (the engine is killed) or the engine closed its output.
        """
        what = f" (awaiting {awaiting})" if awaiting else ""
        try:
            line = self.lines.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            self.kill()
            self.fail(f"did not reply within {timeout if stated is None else stated:g} s and was killed{what}")
        if line is _EOF:
            self.fail(f"closed its output without replying{what}")
        return line

    def close(self, farewell: str | None = None) -> None:
        """Send ``farewell`` (a UCI ``quit``), close stdin, give the engine a moment to exit, kill it."""
        process = self.process
        if process.poll() is None:
            try:
                if farewell is not None:
                    process.stdin.write(farewell + "\n")
                process.stdin.close()
            except (OSError, ValueError):
                pass
            try:
                process.wait(CLOSE_GRACE_S)
            except subprocess.TimeoutExpired:
                self.kill()
        try:
            process.stdin.close()
        except (OSError, ValueError):
            pass

    def kill(self) -> None:
        """Kill the engine (idempotent) and reap it."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()

    def fail(self, what: str) -> NoReturn:
        """Stop the engine and raise PlayerError with its exit code and last stderr lines."""
        self.close()
        self.stderr_reader.join(CLOSE_GRACE_S)  # the engine is gone: its stderr ends
        code = self.process.returncode
        tail = " | ".join(line.rstrip() for line in self.stderr_tail)
        raise PlayerError(f"engine {self.name!r} {what}" + (f" (exit code {code})" if code is not None else "")
                          + (f"; stderr: {tail[-500:]}" if tail else ""))


def _pump(stream: IO[str], sink: Callable[[Any], None], end: Any = None) -> None:
    """Copy lines from a pipe into ``sink`` until it closes, then ``end`` if given."""
    try:
        for line in stream:
            sink(line)
    except (OSError, ValueError):
        pass
    finally:
        stream.close()
    if end is not None:
        sink(end)
