"""What a study run reports while it runs: frozen values handed to the caller's callback.

The library never renders: ``tune`` and ``validate`` call ``on_event(event)``
with one of these, and the CLI draws its bars and lines from them (on
stderr), a test collects them, a script ignores them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class TuningProgress:
    """The tuning phase so far (sent after every game, at most a few times a second)."""

    trials_done: int
    trials_target: int
    best_value: float | None
    best_trial: int | None
    games: int
    seconds: float
    trials_in_flight: int
    workers: int


@dataclass(frozen=True)
class TrialEnded:
    """A trial was told: complete or pruned, with its gain over the incumbent (the incumbent's is 0)."""

    number: int
    how: str
    games: int
    gain: float | None


@dataclass(frozen=True)
class PoolResized:
    """The pool lost workers (a node died) or gained them (a node joined)."""

    workers: int
    previous: int


@dataclass(frozen=True)
class StageProgress:
    """The games so far of a stage after the trials: ``race`` (the finalists) or ``confirmation``."""

    stage: str
    games_done: int
    games_total: int
    seconds: float


Event = TuningProgress | TrialEnded | PoolResized | StageProgress
OnEvent = Callable[[Event], None]


def ignore(event: Event) -> None:
    """The default callback: report nothing."""
