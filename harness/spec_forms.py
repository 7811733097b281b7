"""The canonical form of a player spec, for the layers below the players.

A spec a user typed (``--opponent gbot:easy``) and the spec a match stored
(``gbot:level=easy``) name one configuration; only the players' registry
knows the defaults that make them equal. The database sits below the
players and must not import them, so the players hand their canonical form
down: ``players`` registers it here when it is imported (every process that
plays or parses specs imports it). A process that never imports the players
(a script that only reads the database) compares specs as written, which is
exact for the canonical specs every stored result holds.
"""

from __future__ import annotations

from collections.abc import Callable

_canonical: Callable[[str], str] | None = None


def register_player_form(canonical: Callable[[str], str]) -> None:
    """Set the function that gives a player spec's canonical text (the players' ``load(spec).spec``)."""
    global _canonical
    _canonical = canonical


def canonical_player(spec: str) -> str:
    """``spec`` in canonical form when the players are loaded, else as written.

    Raises:
        SpecError: a malformed spec (from the players' parser).
    """
    return spec if _canonical is None else _canonical(spec)
