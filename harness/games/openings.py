"""Opening suites: per game, a shipped list of distinct, roughly balanced openings a match's seed picks from.

Random opening plies give little variety where a game's start has few moves
(two random plies of Totality reach 12 positions), so a study replays the same
handful of openings and calls the seeds fresh. A suite is what engine testers
call an opening book: the action lists, from ``rules.initial_state()``, of
many distinct positions (side to move included), each kept only when a search
from it judged it close to the game's typical value (the suite's ``balance``
says how). ``scripts/make_openings.py`` writes a game's suite, seeded, into
``harness/games/<game>/openings.json`` (further suites: ``openings-*.json``);
the file stores the command that made it. The openings are in a seeded random
order, so any contiguous range of them is a fair sample: a study tunes on one
range, selects on another and confirms on a third.

A match's seed picks opening ``seed % len(suite)``. One suite serves every
configuration of its game (``totality:easy`` and ``totality``; both Chinese
chess seats, so a pair of seats plays the same opening).
"""

from __future__ import annotations

import importlib
import json
import statistics
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from harness.errors import IllegalAction, InvalidInput
from harness.games import REGISTRY, Action, Rules, State, load as load_game, parse_spec

DEFAULT_FILE = "openings.json"
# Openings kept for strength claims (docs/players.md, Strength): no study tunes, selects or confirms on them
# (a study file that names them is refused), and no player is developed on them, so a ladder tournament on
# them (``--openings SUITE --seeds 1100 --games 100``) measures a player on openings it never saw.
STRENGTH_OPENINGS = range(1100, 1200)
# Fields of a state's JSON that count moves or remember the road to a position, not the position.
HISTORY_FIELDS = ("ply", "moves", "halfmove", "history")


@dataclass(frozen=True)
class Suite:
    """A game's opening suite: openings as action lists from the start, and each one's search value.

    Attributes:
        game: the game's name (``totality``), every configuration of it.
        name: the suite's name, what ``MatchSpec.openings`` names.
        plies: the length of every opening.
        command: the command that generated the suite.
        search: the search that valued the openings (a player spec).
        balance: how the openings were kept (``rule``, ``reference``, ``margin``, ``candidates``).
        openings: the openings, each a tuple of actions in the game's action JSON.
        values: each opening's search value, from the first mover's side (side 0).
    """

    game: str
    name: str
    plies: int
    command: str
    search: str
    balance: dict[str, Any] = field(compare=False)
    openings: tuple[tuple[Action, ...], ...]
    values: tuple[float, ...]

    def __len__(self) -> int:
        return len(self.openings)

    def index(self, seed: int) -> int:
        """The opening a match seed picks: ``seed % len(self)``."""
        return seed % len(self.openings)

    def opening(self, seed: int) -> list[Action]:
        """The actions of the opening ``seed`` picks (fresh copies: the caller may keep them)."""
        return [dict(action) for action in self.openings[self.index(seed)]]


def suite_names(game: str) -> tuple[str, ...]:
    """The names of ``game``'s suites (a game spec is accepted), the default first; empty when it ships none.

    Raises:
        UnknownGame: not a registered game.
    """
    return tuple(_read(path).name for path in _suite_files(parse_spec(game)[0]))


def load_suite(game: str, name: str | None = None) -> Suite:
    """A suite of ``game`` (a game spec is accepted) by name; ``None``, the game's default suite.

    Raises:
        UnknownGame: not a registered game.
        InvalidInput: the game has no suite of that name (the message names its suites).
    """
    game_name = parse_spec(game)[0]
    files = _suite_files(game_name)
    if not files:
        raise InvalidInput(f"game {game_name!r} ships no opening suites", parameters=("openings",))
    suites = [_read(path) for path in files]
    if name is None:
        return suites[0]
    for suite in suites:
        if suite.name == name:
            return suite
    raise InvalidInput(f"game {game_name!r} has no opening suite {name!r}; valid suites: "
                       f"{', '.join(s.name for s in suites)}", parameters=("openings",))


def opening_state(rules: Rules, actions: list[Action]) -> State:
    """The position ``actions`` reach from the start of ``rules``' game.

    Raises:
        IllegalAction: an action is not legal where it is played, or the game ended before it.
    """
    state = rules.initial_state()
    for ply, action in enumerate(actions):
        if rules.is_terminal(state):
            raise IllegalAction(f"the game ended before the opening's ply {ply}")
        state = rules.apply(state, action)
    return state


def position_key(rules: Rules, state: State) -> str:
    """What two openings must differ in to count as distinct: the position and the side to move.

    The state's JSON without its move counters and its history of positions,
    so two move orders that reach the same position are one opening.
    """
    data = {k: v for k, v in rules.state_to_json(state).items() if k not in HISTORY_FIELDS}
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def suites_document(game: str, name: str | None = None) -> dict[str, Any]:
    """What ``harness openings GAME`` shows: each suite of the game (or only ``name``), its size, plies,
    search and the statistics of its stored values, and the command that generated it.

    Raises:
        UnknownGame: not a registered game.
        InvalidInput: the game has no suite ``name``.
    """
    game_name = parse_spec(game)[0]
    suites = [load_suite(game_name, name)] if name is not None else [_read(p) for p in _suite_files(game_name)]
    return {"game": game_name, "suites": [
        {"name": s.name, "openings": len(s), "plies": s.plies, "search": s.search, "balance": s.balance,
         "values": {"min": min(s.values), "median": statistics.median(s.values), "max": max(s.values)},
         "command": s.command} for s in suites]}


def opening_document(game: str, number: int, name: str | None = None) -> dict[str, Any]:
    """Opening ``number`` of a suite of ``game`` (``None``: the default): its actions, value and board.

    Raises:
        UnknownGame: not a registered game.
        InvalidInput: no such suite, or ``number`` is not one of its openings.
    """
    suite = load_suite(game, name)
    if not 0 <= number < len(suite):
        raise InvalidInput(f"number {number} is not an opening of {suite.name}: give 0 to {len(suite) - 1}",
                           parameters=("number",))
    rules = load_game(game)
    actions = list(suite.openings[number])
    return {"game": rules.spec, "suite": suite.name, "number": number, "actions": actions,
            "value": suite.values[number], "board": rules.render(opening_state(rules, actions))}


def suite_file(game: str) -> Path:
    """Where a game's default suite file lives (``scripts/make_openings.py`` writes it)."""
    return _game_folder(parse_spec(game)[0]) / DEFAULT_FILE


def _game_folder(name: str) -> Path:
    module = importlib.import_module(REGISTRY[name].kit)
    return Path(module.__file__ or "").parent


def _suite_files(name: str) -> list[Path]:
    folder = _game_folder(name)
    default = folder / DEFAULT_FILE
    return ([default] if default.exists() else []) + sorted(folder.glob("openings-*.json"))


@cache
def _read(path: Path) -> Suite:
    """A suite file, parsed once per process (a match reads its suite at every reset)."""
    data = json.loads(path.read_text())
    return Suite(game=data["game"], name=data["name"], plies=int(data["plies"]), command=data["command"],
                 search=data["search"], balance=dict(data["balance"]),
                 openings=tuple(tuple(entry["actions"]) for entry in data["openings"]),
                 values=tuple(float(entry["value"]) for entry in data["openings"]))
