"""Player specs as a run plays them: named players resolved and every spec canonical, once per run.

A run names players the way the user typed them: a spec with options in any
order, or a named player (``tuned:<name>``) that the results database
resolves. ``SpecResolver`` is the one place that turns them into the
canonical specs the run stores and plays: it asks the database only for a
named player, opens it only then (bad input creates nothing), and keeps each
answer, so a spec is resolved and canonicalised once however often the run
names it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from harness.errors import SpecError
from players import load as load_player

NAMED_PREFIX = "tuned:"


class AliasStore(Protocol):
    """What resolving a named player needs of the results database (``harness.db.Database``)."""

    def resolve_spec(self, spec: str, allow_engines: bool = False) -> str: ...


def is_named(spec: str) -> bool:
    """True for a named player (``tuned:<name>``), which only the results database can resolve."""
    return spec.startswith(NAMED_PREFIX)


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

    def resolve(self, spec: str) -> str:
        """The spec a named player stands for (as stored); any other spec unchanged."""
        if not is_named(spec):
            return spec
        return self._database().resolve_spec(spec, allow_engines=self.allow_engines)

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
            raise SpecError(f"a named player ({NAMED_PREFIX}<name>) needs the results database")
        if not hasattr(self._store, "resolve_spec"):
            self._store = self._store()  # type: ignore[operator, assignment]
        return self._store  # type: ignore[return-value]
