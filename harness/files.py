"""Operating-system resources a command needs: output files and listening ports, checked before work.

A command that writes a file (``harness report --out``) checks the path
first, so a missing directory costs nothing; the file is written to a
temporary name beside it and renamed into place, so a full disk or a crash
never leaves half a file behind. A server that cannot bind its port says
which option picks another.
"""

from __future__ import annotations

import errno
import os
import socket
import tempfile
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
    temporary = None
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, target)
    except OSError as error:
        if temporary is not None and os.path.exists(temporary):
            os.unlink(temporary)
        raise HarnessError(f"cannot write {str(target)!r}: {error.strerror or error}"
                           + ("; free space on its disk and run the command again"
                              if error.errno in (28, 27, 122) else "")) from None  # ENOSPC, EFBIG, EDQUOT
    return target


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
