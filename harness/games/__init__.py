"""Exact rules engines behind one protocol, and the registry that loads them.

A game is named by a *game spec*: the game's name, optionally followed by its
configuration, ``totality:easy`` or ``totality:level=easy`` or
``xiangqi:seat=black,legality=pseudo``. A bare value (``totality:easy``) sets
the game's primary option (``level`` for Totality, ``seat`` for Chinese
chess). ``Rules.spec`` is the canonical form: the name, then only the options
that differ from their defaults, sorted.

Rules know sides, not seats: side 0 moves first (the King's side, the Sun,
red) and side 1 second. ``user_side`` is the side the harness plays for the
user; ``outcome`` and ``score`` are always from that side.

Each game is one package, ``harness/games/<name>/``, declared once by its kit
(``harness.games.gamekit.GameKit``, ``KIT`` in the package's ``kit.py``).
``REGISTRY`` below is the one place the games are registered: each entry
(``GameInfo``) names the game's options and its kit module, which
``kit(name)`` imports on first use. ``register`` adds a game at run time
(the tests' own tic-tac-toe); pools register such games on their workers.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from harness.errors import InvalidInput, UnknownGame

if TYPE_CHECKING:
    from harness.games.gamekit import GameKit

Action = dict[str, Any]
State = Any
Outcome = tuple[str, str]  # (result in win/draw/loss, reason)

RESULTS = ("win", "draw", "loss")


@runtime_checkable
class Rules(Protocol):
    """One game under one configuration.

    States are values: ``apply`` returns a new state and never changes its
    input. Actions are the live API's action JSON (plain dicts).
    """

    name: str
    config: dict[str, Any]
    user_side: int

    @property
    def spec(self) -> str: ...

    def initial_state(self) -> State: ...

    def to_move(self, state: State) -> int: ...

    def legal_actions(self, state: State) -> list[Action]: ...

    def apply(self, state: State, action: Action) -> State: ...

    def is_terminal(self, state: State) -> bool: ...

    def outcome(self, state: State) -> Outcome | None: ...

    def score(self, state: State) -> float: ...

    def score_bounds(self) -> tuple[float, float]: ...

    def counters(self, state: State) -> dict[str, int]: ...

    def render(self, state: State) -> str: ...

    def notation(self, state: State) -> str: ...

    def action_sort_key(self, action: Action) -> Any: ...

    def state_to_json(self, state: State) -> dict[str, Any]: ...

    def state_from_json(self, data: dict[str, Any]) -> State: ...


@dataclass(frozen=True)
class GameInfo:
    """What the registry knows of a game before loading it: plain data, so it travels to workers.

    Attributes:
        name: the game's name in specs.
        kit: the module that declares the game's ``KIT`` (its ``GameKit``).
        description: one line for ``harness games``.
        options: option -> valid values, the first the default.
        primary: the option a bare value sets (``totality:easy``), or None.
    """

    name: str
    kit: str
    description: str
    options: dict[str, tuple[str, ...]] = field(default_factory=dict)
    primary: str | None = None

    def defaults(self) -> dict[str, str]:
        return {key: values[0] for key, values in self.options.items()}


# The games, registered in this one place; ``register`` adds one more at run time (the tests' own game).
REGISTRY: dict[str, GameInfo] = {
    "ravenward": GameInfo(
        "ravenward", "harness.games.ravenward.kit",
        "7x7 tafl duel: you are the King's side against G-Bot's eight ravens; escape to a corner."),
    "totality": GameInfo(
        "totality", "harness.games.totality.kit",
        "Reversi: you are the Sun against G-Bot's Moon at level wise (x1.0) or easy (x0.6).",
        {"level": ("wise", "easy")}, "level"),
    "xiangqi": GameInfo(
        "xiangqi", "harness.games.xiangqi.kit",
        "Chinese chess on a two-seat platform: red moves first, 120 moves end in a draw.",
        {"seat": ("red", "black"), "legality": ("strict", "pseudo")}, "seat"),
}
SHIPPED = tuple(REGISTRY)
_ADDED: dict[str, GameInfo] = {}


def register(info: GameInfo) -> None:
    """Add a game to the registry of this process (and of the workers of pools started after).

    The game's kit module must be importable wherever its matches are played.

    Raises:
        InvalidInput: a shipped game's name, or a different game under a registered name.
    """
    if info.name in SHIPPED or REGISTRY.get(info.name, info) != info:
        raise InvalidInput(f"game {info.name!r} is already registered")
    REGISTRY[info.name] = _ADDED[info.name] = info


def unregister(name: str) -> None:
    """Remove a game ``register`` added (and its loaded rules); the shipped games stay.

    Raises:
        InvalidInput: a shipped game's name.
    """
    if name in SHIPPED:
        raise InvalidInput(f"game {name!r} is shipped and stays registered")
    REGISTRY.pop(name, None)
    _ADDED.pop(name, None)
    _KITS.pop(name, None)
    for key in [key for key in _CACHE if key.partition(":")[0] == name]:
        del _CACHE[key]


def added() -> list[GameInfo]:
    """The games ``register`` added in this process, for a pool to register on its workers."""
    return list(_ADDED.values())


def names() -> list[str]:
    """The registered game names, sorted."""
    return sorted(REGISTRY)


def parse_spec(spec: str, **config: Any) -> tuple[str, dict[str, str]]:
    """Split a game spec into its name and a full, validated configuration.

    Raises:
        UnknownGame: the name, an option or a value is not registered; the
            message lists what is valid.
    """
    name, _, rest = spec.strip().partition(":")
    info = REGISTRY.get(name)
    if info is None:
        raise UnknownGame(f"unknown game {name!r}; valid games: {', '.join(names())}")
    given: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        if not eq:
            if info.primary is None:
                raise UnknownGame(f"game {name!r} takes no options, got {part!r}")
            key, value = info.primary, part
        given[key.strip()] = value.strip()
    given.update(config)
    full = info.defaults()
    for key, value in given.items():
        if key not in info.options:
            valid = ", ".join(info.options) or "none"
            raise UnknownGame(f"game {name!r} has no option {key!r}; valid options: {valid}")
        if str(value) not in info.options[key]:
            raise UnknownGame(
                f"game {name!r} option {key}={value!r} is not valid; valid values: "
                f"{', '.join(info.options[key])}")
        full[key] = str(value)
    return name, full


def canonical_spec(name: str, config: dict[str, str]) -> str:
    """The canonical game spec: the name, then non-default options sorted."""
    defaults = REGISTRY[name].defaults()
    extra = [f"{k}={v}" for k, v in sorted(config.items()) if defaults.get(k) != v]
    return name + (":" + ",".join(extra) if extra else "")


_CACHE: dict[str, Rules] = {}
_KITS: dict[str, GameKit] = {}


def kit(game: str) -> GameKit:
    """The declared surface of a game (``game`` may be a game spec), loaded on first use.

    Raises:
        UnknownGame: not a registered game.
    """
    name = game.partition(":")[0].strip()
    found = _KITS.get(name)
    if found is None:
        info = REGISTRY.get(name)
        if info is None:
            raise UnknownGame(f"unknown game {name!r}; valid games: {', '.join(names())}")
        found = importlib.import_module(info.kit).KIT
        if found.name != name:
            raise UnknownGame(f"the kit of {name!r} ({info.kit}) declares the game {found.name!r}")
        _KITS[name] = found
    return found


def load(spec: str, **config: Any) -> Rules:
    """Load the rules of a game by spec, e.g. ``load("totality", level="easy")``.

    Rules objects are immutable and cached per canonical spec, so loading the
    same game twice is cheap.

    Raises:
        UnknownGame: unknown game, option or value.
    """
    name, full = parse_spec(spec, **config)
    key = canonical_spec(name, full)
    rules = _CACHE.get(key)
    if rules is None:
        rules = kit(name).make_rules(**full)
        _CACHE[key] = rules
    return rules
