"""The one error tree of the harness.

Every error the harness raises on purpose is a ``HarnessError``. Bad input
(an unknown game, a malformed spec, an illegal action, a broken study file)
is also a ``ValueError`` so plain Python callers can catch it the usual way;
the CLI turns every ``InvalidInput`` into one line on stderr and exit code 2,
every other ``HarnessError`` into one line and exit code 1. Foreign errors
(SQLAlchemy, httpx, Ray, Optuna) and the operating system's (a port in use, a
missing directory, a full disk) are translated once, at the boundary of the
module that owns the library or the resource, with ``raise ... from``; what
still escapes is one line and exit code 1 from the CLI's last-resort handler.

No module of the package raises a bare builtin exception (``ValueError``,
``RuntimeError``, ``KeyError`` ...) toward its callers: ``tests/test_errors.py``
fails on a new one. A builtin raised and caught inside the same function is
control flow, not an error, and stays allowed; so do ``NotImplementedError``
(an abstract method), ``AssertionError`` (a contract suite's finding),
``AttributeError`` from a module's ``__getattr__`` and ``KeyboardInterrupt``
(SIGTERM stopping a command like Ctrl-C, ``harness.interrupts``). The Rules protocol's ``apply``
raising ``ValueError`` for an illegal action is kept by ``IllegalAction``,
which is one. docs/errors.md documents the tree for users.

::

    HarnessError
    ├── InvalidInput (ValueError)         bad input: say what is wrong and what is valid
    │   ├── UnknownGame                   a game name or game config not in the registry
    │   ├── SpecError                     a player spec: unknown kind, parameter or weight
    │   ├── IllegalAction                 an action not legal in the given state
    │   ├── NotationError                 a FEN, state or move text that cannot be read
    │   ├── StudyFileError                a study file: names the file, the key, the choices
    │   └── UnusableResource              a port in use, a missing or unwritable output directory
    ├── PlayerError                       a player failed to produce a move (external engine)
    │   └── OpponentError                 the opponent seat's player failed inside an environment
    ├── DatabaseError                     the results database refused or could not be reached
    ├── ClusterError                      the Ray pool could not run the work
    └── LiveError                         a live game could not go on
        ├── TransportError                the server could not be reached in the time allowed
        ├── ProtocolError                 the server's reply could not be understood
        └── TrackingError                 no local position fits what the server said
"""

from __future__ import annotations


class HarnessError(Exception):
    """Base of every error the harness raises on purpose."""


class InvalidInput(HarnessError, ValueError):
    """Input that cannot be used; the message names what is valid.

    ``parameters`` are the names of the library's parameters the message
    speaks of (``games``, ``base_url``); the CLI writes each as the flag that
    sets it (``--games``, ``--base-url``), so no library message names a flag.
    """

    def __init__(self, message: str = "", *, parameters: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.parameters = parameters


class UnknownGame(InvalidInput):
    """A game name or game configuration that is not registered."""


class SpecError(InvalidInput):
    """A player spec that names an unknown kind, parameter or weight."""


class IllegalAction(InvalidInput):
    """An action that is not legal in the state it was applied to."""


class NotationError(InvalidInput):
    """A position or move text (FEN, serialized state, an engine's move) that cannot be read."""


class StudyFileError(InvalidInput):
    """A study file that is malformed or names unknown weights."""


class UnusableResource(InvalidInput):
    """A port, file or directory named in the input that the operating system refuses.

    Raised before any work, so choosing another one (the message says how)
    and running the command again loses nothing.
    """


class PlayerError(HarnessError):
    """A player could not produce a legal move (crash, timeout, garbage)."""


class OpponentError(PlayerError):
    """The opponent's player failed inside an environment's ``step``."""


class DatabaseError(HarnessError):
    """The results database refused an operation or could not be reached."""


class ClusterError(HarnessError):
    """The Ray pool could not run the requested work."""


class LiveError(HarnessError):
    """A live game could not go on.

    ``server_state`` is the last state the server sent (opaque), kept so the
    game can be recorded and resumed from where it stopped.
    """

    def __init__(self, message: str, *, server_state: object = None) -> None:
        super().__init__(message)
        self.server_state = server_state


class TransportError(LiveError):
    """The server could not be reached within the retry budget."""


class ProtocolError(LiveError):
    """The server's reply could not be understood."""


class TrackingError(LiveError):
    """No local position is consistent with what the server reported."""


def with_resume(error: HarnessError, command: str) -> HarnessError:
    """The same error, its message ending with the command that finishes the stopped work.

    The error keeps its class and attributes, so callers catch it as before;
    the CLI's one line then tells the user how to resume.
    """
    error.args = (f"{error}; what was recorded is kept, resume with: {command}",)
    return error
