"""Operating-system resources a command needs: output files and listening ports, checked before work.

A command that writes a file (``harness report --out``) checks the path
first, so a missing directory costs nothing; the file is written to a
temporary name beside it (``beside``), flushed to the disk and renamed into
place (``place``), so a full disk, a SIGKILL or a power cut never leaves half
a file behind: the file is whole or absent. A temporary file left by a killed
process carries its pid in its name and is removed by the next writer of the
same file once that process is gone. A server that cannot bind its port says
which option picks another.
"""

from __future__ import annotations

import errno
import os
import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.errors import HarnessError, UnusableResource


def check_output_file(path: str | os.PathLike[str], parameter: str = "out") -> Path:
    """The path of a file to write, checked before the work that produces it.

    Raises:
        UnusableResource: the path is a directory, its directory does not
            exist or is not a directory, or the file or directory cannot be
            written; the message names the parameter and what would work.
    """
    target = Path(path)
    where = f"{parameter} {str(path)!r}"
    named = {"parameters": (parameter,)}
    if target.is_dir():
        raise UnusableResource(f"{where} is a directory; give a file name, e.g. {parameter} "
                               f"{target / 'report.html'}", **named)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.exists():
        raise UnusableResource(f"{where}: the directory {str(directory)!r} does not exist; create it "
                               f"(mkdir -p {directory}) or give a path in an existing directory", **named)
    if not directory.is_dir():
        raise UnusableResource(f"{where}: {str(directory)!r} is not a directory", **named)
    if not os.access(directory, os.W_OK | os.X_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise UnusableResource(f"{where}: permission denied; give a path you can write", **named)
    return target


def write_text_whole(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` to ``path`` through a temporary file beside it and a rename.

    Raises:
        HarnessError: the file could not be written (a full disk, a directory
            removed meanwhile); nothing was left at ``path`` or beside it.
    """
    target = Path(path)
    with beside(target) as temporary:
        with open(temporary, "w", encoding="utf-8") as stream:
            stream.write(text)
        place(temporary, target)
    return target


NO_SPACE = (errno.ENOSPC, errno.EFBIG, errno.EDQUOT)


def write_error(path: str | os.PathLike[str], error: OSError) -> HarnessError:
    """One line saying that ``path`` could not be written, and what to do when its disk is full."""
    return HarnessError(f"cannot write {str(path)!r}: {error.strerror or error}"
                        + ("; free space on its disk and run the command again" if error.errno in NO_SPACE else ""))


@contextmanager
def beside(path: str | os.PathLike[str]) -> Iterator[str]:
    """A new temporary file's name in ``path``'s directory (so the final rename is atomic), removed unless placed.

    Its name is ``.NAME.PID.XXXX.tmp``; leftovers of processes of this machine
    that no longer run (a SIGKILL skips every clean-up) are removed first.

    Raises:
        HarnessError: an ``OSError`` inside the block (a full disk); the temporary file is removed.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    _remove_leftovers(directory, target.name)
    name = None
    try:
        handle, name = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=directory)
        os.close(handle)
        os.chmod(name, 0o666 & ~_umask())  # an ordinary file once placed, not mkstemp's private one
        yield name
    except OSError as error:
        raise write_error(target, error) from None
    finally:
        if name is not None and os.path.exists(name):
            os.unlink(name)


def place(temporary: str, path: str | os.PathLike[str], *, replace: bool = True) -> None:
    """Flush ``temporary`` to the disk and rename it to ``path``, then flush the directory's entry.

    Without ``replace`` an existing ``path`` is kept and ``FileExistsError`` raised (a hard link, then
    the temporary name removed: no window in which another file at ``path`` is overwritten).
    """
    with open(temporary, "rb+") as stream:
        os.fsync(stream.fileno())
    if replace:
        os.replace(temporary, path)
    else:
        os.link(temporary, path)
        os.unlink(temporary)
    directory = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def _remove_leftovers(directory: Path, name: str) -> None:
    """Remove ``.NAME.PID.*.tmp`` files of processes that no longer run (best effort)."""
    prefix = f".{name}."
    try:
        entries = [entry for entry in os.listdir(directory) if entry.startswith(prefix) and entry.endswith(".tmp")]
    except OSError:
        return
    for entry in entries:
        pid = entry[len(prefix):].partition(".")[0]
        if pid.isdigit() and not is_running(int(pid)):
            try:
                os.unlink(directory / entry)
            except OSError:
                continue


def is_running(pid: int) -> bool:
    """Whether a process ``pid`` runs on this machine (one of another user counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def bind_error(host: str, port: int, error: OSError) -> UnusableResource:
    """Why a server (the emulator, ``harness serve``) cannot listen on ``host:port``, and which option picks another."""
    where = f"cannot serve on {host}:{port}"
    named = {"parameters": ("port", "host")}
    if error.errno == errno.EADDRINUSE:
        return UnusableResource(f"{where}: already in use (another program or server); pick another "
                                "with port N, or port 0 for any free port", **named)
    if error.errno == errno.EACCES:
        return UnusableResource(f"{where}: permission denied (ports below 1024 need privileges); use "
                                "port 8765, or port 0 for any free port", **named)
    if error.errno == errno.EADDRNOTAVAIL or isinstance(error, socket.gaierror):
        return UnusableResource(f"{where}: {host!r} is not an address of this machine; use host "
                                "127.0.0.1 (loopback) or host 0.0.0.0 (every interface)", **named)
    return UnusableResource(f"{where}: {error.strerror or error}; try port 0 or host 127.0.0.1", **named)
