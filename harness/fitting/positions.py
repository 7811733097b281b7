"""Positions out of recorded matches: replayed, deduplicated, both sides to move, sampled with a seed.

A position is keyed by a digest of the state the rules replay to (its
history included, since repetitions and move counts change what a search
says of it), so the same position reached in two games is one position: its
result label is the mean of those games' results from its side to move.
The key is what stored labels are found by (``harness.db`` ``position_labels``).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.errors import InvalidInput
from harness.games import kit, parse_spec
from harness.replay import replay_states
from harness.results import MatchResult

if TYPE_CHECKING:
    from harness.db import Database

RESULT_VALUE = {"win": 1.0, "draw": 0.5, "loss": 0.0}  # a result as a label, from the side it is for


@dataclass(frozen=True)
class Position:
    """One distinct position of the recorded games.

    Attributes:
        key: the position's digest (``position_key``).
        actions: the actions from the start that reach it (from the first game that did).
        result: the mean final result of the games through it, from its side to move, in [0, 1].
        games: how many recorded games passed through it.
    """

    key: str
    actions: tuple[Any, ...]
    result: float
    games: int


@dataclass(frozen=True)
class MatchFilter:
    """Which recorded matches a fit reads: every field empty means every match of the game.

    Attributes:
        runs: runs by id or name (a match held by any of them).
        studies: studies by name (every run of each: trials, races, confirmations).
        players: player specs or named players (the match's player is one of them).
        opponents: opponent specs or named players (the match's opponent is one of them).
    """

    runs: tuple[str, ...] = ()
    studies: tuple[str, ...] = ()
    players: tuple[str, ...] = ()
    opponents: tuple[str, ...] = ()


def position_key(game: str, state: Any) -> str:
    """The digest that names a position of ``game`` (its name, not its seat or level) in the label store."""
    name = parse_spec(game)[0]
    return hashlib.sha256(f"{name}|{state!r}".encode()).hexdigest()


def recorded_matches(database: Database, game: str, chosen: MatchFilter) -> Iterator[MatchResult]:
    """The recorded matches of ``game`` (every seat and level) that ``chosen`` selects, oldest first.

    Raises:
        InvalidInput: an unknown run or study, or a run of another game.
        SpecError: a player or opponent spec that is not valid.
    """
    from harness.db.queries import canonical_player
    name = parse_spec(game)[0]
    run_ids: list[int | None] = [database.run_id(run) for run in chosen.runs]
    if chosen.studies:
        runs = database.runs()
        for study in chosen.studies:
            of_study = [run.id for run in runs if run.study == study]
            if not of_study:
                known = sorted({run.study for run in runs if run.study}) or ["none"]
                raise InvalidInput(f"no recorded runs of study {study!r}; studies: {', '.join(known)}")
            run_ids.extend(of_study)
    players = {canonical_player(database, spec) for spec in chosen.players}
    opponents = {canonical_player(database, spec) for spec in chosen.opponents}
    seen: set[str] = set()
    for run_id in run_ids or [None]:
        for match in database.iter_matches(run_id=run_id, game=name, pool_configurations=True):
            if match.key in seen or (players and match.player not in players) \
                    or (opponents and match.opponent not in opponents):
                continue
            seen.add(match.key)
            yield match


def file_matches(paths: Sequence[str | Path], game: str) -> Iterator[MatchResult]:
    """The matches of ``game`` in files written by ``harness export`` (plain or gzipped), each key once.

    Raises:
        InvalidInput: a file that cannot be read or a line that is not a match (named with its line).
    """
    from harness.db.importing import read_match_file
    name = parse_spec(game)[0]
    for path in paths:
        for result in read_match_file(Path(path)):
            if parse_spec(result.game)[0] == name:
                yield result


def extract_positions(game: str, matches: Iterable[MatchResult], limit: int | None = None,
                      seed: int = 0, keep: Callable[[Any, Any], bool] | None = None) -> list[Position]:
    """The distinct open positions of ``matches`` after their openings, both sides to move, a seeded sample.

    A match's opening plies (``opening_plies``: random plies or a suite's
    opening) are skipped, as no player chose them and every game of the
    suite shares them; the final position is skipped too (nothing to
    evaluate). With ``limit`` a sample of that many, chosen by ``seed`` from
    every distinct position, so the same games and seed give the same sample.
    ``keep(rules, state)`` narrows the positions before the sample (the
    exact label's: those its solver reaches, so a sample is not mostly unlabelled).

    Raises:
        IllegalAction: a recorded action is not legal (the engine changed since the match).
    """
    found: dict[str, list[Any]] = {}  # key -> [actions, sum of results, games]
    for match in matches:
        rules_seat = None
        for ply, (rules, state, _action, _who) in enumerate(replay_states(match.game, match.actions)):
            if rules_seat is None:
                rules_seat = rules.user_side
            if rules.is_terminal(state):
                break
            if ply < match.opening_plies or (keep is not None and not keep(rules, state)):
                continue
            mover_is_user = rules.to_move(state) == rules_seat
            user_result = RESULT_VALUE[match.outcome]
            result = user_result if mover_is_user else 1.0 - user_result
            key = position_key(game, state)
            entry = found.get(key)
            if entry is None:
                found[key] = [tuple(match.actions[:ply]), result, 1]
            else:
                entry[1] += result
                entry[2] += 1
    keys = sorted(found)
    if limit is not None and len(keys) > limit:
        keys = sorted(random.Random(seed).sample(keys, limit))
    return [Position(key, found[key][0], found[key][1] / found[key][2], found[key][2]) for key in keys]


def replay_position(game: str, position: Position) -> tuple[Any, Any]:
    """``(rules, state)`` of a position, replayed from its actions under ``game``'s rules."""
    from harness.games import load as load_game
    rules = load_game(game)
    state = rules.initial_state()
    for action in position.actions:
        state = rules.apply(state, action)
    return rules, state


def game_name(game: str) -> str:
    """The game's registered name (``xiangqi`` for ``xiangqi:black``): what labels are stored under."""
    return kit(game).name
