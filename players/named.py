"""Player specs as a run plays them: named players resolved and every spec canonical, once per run.

A run names players the way the user typed them: a spec with options in any
order, or a named player (``tuned:<name>`` from a study, ``fitted:<name>``
from ``harness fit``) that the results database resolves. ``SpecResolver`` is the one place that turns them into the
canonical specs the run stores and plays: it asks the database only for a
named player, opens it only then (bad input creates nothing), and keeps each
answer, so a spec is resolved and canonicalised once however often the run
names it.

Being that one place, it is also where using a named player that no study
confirmed better than its incumbent (``no gain``, ``worse``, no verdict at
all, or a fitted player, which only games can confirm) is said: a note (``harness.console.note``), once per player
per run, which the CLI prints as one line on stderr for every command that
plays one (play, tournament, live, arena, a study's opponents).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from harness.console import note
from harness.errors import SpecError
from harness.verdicts import NAMED_KINDS, unconfirmed_note
from players import load as load_player

if TYPE_CHECKING:
    from harness.db.records import NamedPlayerRecord

NAMED_PREFIXES = tuple(f"{kind}:" for kind in NAMED_KINDS)  # tuned: from a study, fitted: from a fit


class AliasStore(Protocol):
    """What resolving a named player needs of the results database (``harness.db.Database``)."""

    def resolve_spec(self, spec: str, allow_engines: bool = False) -> str: ...

    def named_player_record(self, name: str) -> NamedPlayerRecord | None: ...


def is_named(spec: str) -> bool:
    """True for a named player (``tuned:<name>``, ``fitted:<name>``), which only the results database resolves."""
    return spec.startswith(NAMED_PREFIXES)


class SpecResolver:
    """Resolves and canonicalises the player specs of one run, each once.

    Args:
        store: the database that holds the named players, or a function that
            opens it (called at the first named player only); None when the
            run has no database (a named player is then bad input).
        allow_engines: accept a named player whose stored spec runs a command.
    """

    def __init__(self, store: AliasStore | Callable[[], AliasStore] | None = None, *,
                 allow_engines: bool = False) -> None:
        self._store = store
        self.allow_engines = allow_engines
        self.aliases: dict[str, str] = {}  # canonical spec -> the name it was given as
        self._known: dict[tuple[str, str | None], str] = {}
        self._noted: set[str] = set()

    def resolve(self, spec: str) -> str:
        """The spec a named player stands for (as stored); any other spec unchanged.

        A named player not confirmed better by its study is noted once (see the module's docstring).
        """
        if not is_named(spec):
            return spec
        store = self._database()
        resolved = store.resolve_spec(spec, allow_engines=self.allow_engines)
        if spec not in self._noted:
            self._noted.add(spec)
            record = store.named_player_record(spec.partition(":")[2])
            text = None if record is None else unconfirmed_note(spec, record.verdict, record.detail)
            if text is not None:
                note(text)
        return resolved

    def canonical(self, spec: str, game: str | None = None) -> str:
        """``spec`` resolved and in canonical form, its weights checked against ``game`` when given.

        Raises:
            SpecError: a malformed spec, an unknown named player, or an engine
                command from the database without ``allow_engines``.
        """
        key = (spec, game)
        if key not in self._known:
            resolved = self.resolve(spec)
            text = load_player(resolved, game).spec
            if resolved != spec:  # a name such as tuned:<study>, kept for the record
                self.aliases.setdefault(text, spec)
            self._known[key] = text
        return self._known[key]

    def _database(self) -> AliasStore:
        if self._store is None:
            raise SpecError("a named player (tuned:<name>, fitted:<name>) needs the results database")
        if not hasattr(self._store, "resolve_spec"):
            self._store = self._store()  # type: ignore[operator, assignment]
        return self._store  # type: ignore[return-value]
