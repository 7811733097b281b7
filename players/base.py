"""The Player protocol: limits, parameters, seeding and the canonical spec.

A player is plain data (its spec) plus a seeded random generator. It is built
on whichever process plays the match, from the spec, never pickled with live
objects; ``players.load(p.spec) == p``.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass, fields, replace
from collections.abc import Callable
from typing import Any, ClassVar

from harness.errors import SpecError
from harness.games import Action, Rules, State


@dataclass(frozen=True)
class Limits:
    """When a search stops: by depth, nodes or iterations (deterministic) or time (live).

    ``None`` means no bound of that kind. Time is in seconds per move and is
    meant for live play only, since it makes a player depend on the clock.
    """

    depth: int | None = None
    nodes: int | None = None
    iterations: int | None = None
    time: float | None = None

    def merged(self, other: Limits | None) -> Limits:
        """These limits with every bound that ``other`` sets replacing ours."""
        if other is None:
            return self
        return replace(self, **{f.name: getattr(other, f.name) for f in fields(other)
                                if getattr(other, f.name) is not None})


@dataclass(frozen=True)
class Param:
    """One named parameter of a player kind."""

    kind: type
    default: Any
    doc: str
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None

    def parse(self, player: str, name: str, value: Any) -> Any:
        """Convert ``value`` to this parameter's type or raise a clear SpecError."""
        try:
            if self.kind is bool and isinstance(value, str):
                if value.lower() not in ("true", "false", "1", "0", "yes", "no"):
                    raise ValueError(value)
                parsed: Any = value.lower() in ("true", "1", "yes")
            elif self.kind in (int, float) and isinstance(value, bool):
                raise ValueError(value)
            elif self.kind is int and isinstance(value, float) and not value.is_integer():
                raise ValueError(value)
            else:
                parsed = self.kind(value) if value is not None else None
        except (TypeError, ValueError):
            raise SpecError(f"player {player!r}: parameter {name}={value!r} is not a valid "
                            f"{self.kind.__name__}") from None
        if self.choices is not None and parsed not in self.choices:
            raise SpecError(f"player {player!r}: parameter {name}={value!r} is not valid; "
                            f"valid values: {', '.join(map(str, self.choices))}")
        if self.minimum is not None and parsed is not None and not parsed >= self.minimum:
            raise SpecError(f"player {player!r}: parameter {name}={value!r} is out of range; "
                            f"valid values: at least {format_value(self.minimum)}")
        return parsed


def format_value(value: Any) -> str:
    """The canonical text of a parameter value inside a spec string.

    Text that the spec grammar would misread (a comma, a double quote, or
    spaces at either end) is written as a JSON string, which ``spec.parse``
    reads back, so every spec round-trips.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    text = str(value)
    if "," in text or '"' in text or text != text.strip():
        return json.dumps(text)
    return text


def parse_weight(player: str, name: str, value: Any) -> float:
    """A weight value as a finite float, or a SpecError naming the weight."""
    try:
        if isinstance(value, bool):
            raise ValueError(value)
        weight = float(value)
    except (TypeError, ValueError):
        raise SpecError(f"player {player!r}: weight w.{name}={value!r} is not a number") from None
    if not math.isfinite(weight):
        raise SpecError(f"player {player!r}: weight w.{name}={value!r} is not a finite number")
    return weight


_SHUTDOWN_HOOKS: list[Callable[[], None]] = []


def at_shutdown(hook: Callable[[], None]) -> Callable[[], None]:
    """Register ``hook`` to run at ``shutdown()``: a kind that keeps engines for reuse quits them there."""
    if hook not in _SHUTDOWN_HOOKS:
        _SHUTDOWN_HOOKS.append(hook)
    return hook


def shutdown() -> None:
    """Release what players keep between matches in this process (idle engine processes).

    A worker pool calls it when it closes; players still work afterwards
    (an engine is started again when one is needed).
    """
    for hook in list(_SHUTDOWN_HOOKS):
        hook()


class Player:
    """Base of every player kind.

    Subclasses set ``kind`` and ``PARAMS`` (and ``PRIMARY`` when a bare value
    in a spec means one parameter, as in ``gbot:easy``) and implement
    ``choose``. Weighted players set ``TAKES_WEIGHTS`` and read
    ``self.weights`` (feature name -> weight, only those given).
    """

    kind: ClassVar[str] = ""
    PARAMS: ClassVar[dict[str, Param]] = {}
    PRIMARY: ClassVar[str | None] = None
    TAKES_WEIGHTS: ClassVar[bool] = False
    RUNS_COMMAND: ClassVar[bool] = False  # runs a program the spec names (external, uci)
    GAMES: ClassVar[tuple[str, ...] | None] = None  # the games it plays, None for every game

    def __init__(self, params: dict[str, Any] | None = None,
                 weights: dict[str, float] | None = None) -> None:
        params = dict(params or {})
        unknown = sorted(set(params) - set(self.PARAMS))
        if unknown:
            valid = ", ".join(sorted(self.PARAMS)) or "none"
            raise SpecError(f"player {self.kind!r} has no parameter {unknown[0]!r}; "
                            f"valid parameters: {valid}")
        self.params = {name: p.parse(self.kind, name, params.get(name, p.default))
                       for name, p in self.PARAMS.items()}
        if weights and not self.TAKES_WEIGHTS:
            raise SpecError(f"player {self.kind!r} takes no weights (w.{next(iter(weights))})")
        self.weights = {name: parse_weight(self.kind, name, value) for name, value in (weights or {}).items()}
        self.rng = random.Random(0)
        self.seed = 0

    @property
    def spec(self) -> str:
        """Canonical spec: the kind, then non-default parameters and weights, sorted."""
        parts = [f"{name}={format_value(value)}" for name, value in sorted(self.params.items())
                 if value != self.PARAMS[name].default]
        parts += [f"w.{name}={format_value(value)}" for name, value in sorted(self.weights.items())]
        return self.kind + (":" + ",".join(parts) if parts else "")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Player) and other.spec == self.spec

    def __hash__(self) -> int:
        return hash(self.spec)

    def __repr__(self) -> str:
        return f"<player {self.spec}>"

    def reset(self, seed: int) -> None:
        """Start a new match: every random choice from here on follows ``seed``."""
        self.seed = int(seed)
        self.rng = random.Random(self.seed)

    def limits(self) -> Limits:
        """The limits of this player's spec (depth, nodes, iterations, time)."""
        return Limits(**{name: self.params.get(name) for name in ("depth", "nodes", "iterations", "time")
                         if name in self.params})

    def budget(self, rules: Rules, state: State, limits: Limits | None = None) -> Limits:
        """The limits this move gets: the spec's, overridden by ``limits``.

        The same every move here; a player that spends more on some moves
        (alpha-beta's ``behind``) says so, so that a caller capping its time
        (the seat client's clock) can leave it that room.
        """
        return self.limits().merged(limits)

    def choose(self, rules: Rules, state: State, limits: Limits | None = None) -> Action:
        """Return one legal action for the side to move in ``state``."""
        raise NotImplementedError

    def stats(self) -> dict[str, int]:
        """Figures of the current match kept in its counters (a UCI engine's nodes); none by default."""
        return {}

    def close(self) -> None:
        """Release what the player holds (a subprocess, a table); idempotent."""
