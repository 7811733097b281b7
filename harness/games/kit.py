"""Game-neutral values that a game's own modules share with the players above them.

A game's evaluation features (``Feature``) and what its search returns
(``SearchResult``) are declared here, in the games layer, so a game package
(``harness/games/<name>/``) needs nothing from ``players``. The players
re-export both under their old names (``players.features.Feature``,
``players.search.SearchResult``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Action = dict[str, Any]


@dataclass(frozen=True)
class Feature:
    """One named evaluation weight: its default and the range tuning searches."""

    name: str
    default: float
    low: float
    high: float
    doc: str
    log: bool = False


@dataclass(frozen=True)
class SearchResult:
    """What one search decided and what it cost."""

    action: Action
    value: float
    depth: int
    nodes: int
