"""Validation: the best trial's weights against the defaults on the validation seeds, paired by seed.

Both play the same seeds (disjoint from the tuning seeds), so the difference
is paired seed by seed and its 95% interval says whether tuning helped. With
``[validation] player`` both play at other fixed settings (the budget the
weights are meant for) than the trials did. Games
already recorded are reused (by run), so an interrupted validation resumes and
nothing is played when all are there. The best is saved as ``tuned:<study>``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from harness.errors import InvalidInput
from harness.interrupts import stops_unwrapped
from harness.tuning.events import OnEvent, ValidationProgress, ignore
from harness.tuning.objectives import game_value, value_bounds
from harness.tuning.stored import database_url, load_stored_study, study_reference
from harness.tuning.studyfile import StudyFile, game_of, opponent_of, turns_label
from players.named import SpecResolver

if TYPE_CHECKING:
    from harness.cluster import MatchPool
    from harness.db import Database

__all__ = ["GameValidation", "Interval", "OpponentValidation", "Validation", "VERDICTS", "validate",
           "recorded_validation", "run_validation", "validation_run_name"]

VERDICTS = {
    "better": "the 95% interval of the paired difference lies above 0",
    "worse": "the 95% interval of the paired difference lies below 0",
    "not distinguishable": "the 95% interval of the paired difference includes 0",
}


@dataclass(frozen=True)
class Interval:
    """A mean with its 95% interval."""

    mean: float
    low: float
    high: float


@dataclass(frozen=True)
class OpponentValidation:
    """The validation's games against one of a study's several opponents."""

    opponent: str
    games: int
    defaults: Interval
    tuned: Interval
    difference: Interval


@dataclass(frozen=True)
class GameValidation:
    """The validation's games in one of a study's several games (a seat, a level)."""

    game: str
    games: int
    defaults: Interval
    tuned: Interval
    difference: Interval


@dataclass(frozen=True)
class Validation:
    """The best trial against the defaults on the validation seeds (paired by seed)."""

    study: str
    game: str
    opponent: str
    objective: str
    best_trial: int
    defaults_spec: str
    tuned_spec: str
    games: int
    defaults: Interval
    tuned: Interval
    difference: Interval
    named_player: str
    settings: dict[str, Any] = field(default_factory=dict)  # ``[validation] player``: what differs from the trials
    by_opponent: tuple[OpponentValidation, ...] = ()  # per opponent, when the study has several
    by_game: tuple[GameValidation, ...] = ()  # per game (seat, level), when the study has several

    @property
    def verdict(self) -> str:
        """better, worse or not distinguishable: whether the paired interval excludes zero."""
        if self.difference.low > 0:
            return "better"
        if self.difference.high < 0:
            return "worse"
        return "not distinguishable"

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data, the verdict included."""
        return asdict(self) | {"verdict": self.verdict}


def _interval(values: Sequence[float], bounds: tuple[float, float] | None = None) -> Interval:
    """A mean's interval; inside ``bounds`` when the values are bounded (docs/db.md: the method)."""
    from harness.ratings import bounded_mean_interval, mean_interval
    if bounds is None:
        return Interval(*(float(v) for v in mean_interval(list(values))))
    return Interval(*(float(v) for v in bounded_mean_interval(list(values), bounds)))


def _recorded_values(config: StudyFile, db: Database, runs: dict[str, tuple[str, int]],
                     opponents: tuple[str, ...]) -> dict[str, dict[int, float]]:
    """Per seed values already recorded in each validation run (label -> (spec, run id)), of games
    between the validated player and the seed's opponent in the seed's game."""
    seeds = set(config.validation_seeds)
    return {label: {record.seed: game_value(record, config.objective) for record in db.matches(run_id=run_id)
                    if record.seed in seeds and record.player == spec
                    and record.opponent == opponent_of(record.seed, opponents)
                    and record.game == game_of(record.seed, config.game_specs, opponents)}
            for label, (spec, run_id) in runs.items()}


def _play_missing(config: StudyFile, db: Database, pool: MatchPool, runs: dict[str, tuple[str, int]],
                  opponents: tuple[str, ...], values: dict[str, dict[int, float]], on_event: OnEvent) -> int:
    """Play and record the validation games not recorded yet, filling ``values``; returns games played."""
    pending = 0
    tags = {label: ("validation", config.name, label) for label in runs}
    for label, (spec, _) in runs.items():
        missing = [s for s in config.validation_seeds if s not in values[label]]
        pending += len(missing)
        pool.submit(config.matches(spec, opponents, missing), tag=tags[label])
    total, played, started, shown = pending, 0, time.monotonic(), 0.0
    on_event(ValidationProgress(0, total, 0.0))
    labels = {tag: label for label, tag in tags.items()}
    for tag, result in pool.as_completed():
        label = labels.get(tag) if isinstance(tag, tuple) else None
        if label is None:
            continue  # a straggler of a pruned trial
        db.record(runs[label][1], result)
        played += 1
        if result.seed not in values[label]:
            values[label][result.seed] = game_value(result, config.objective)
            pending -= 1
        now = time.monotonic()
        if pending == 0 or now - shown > 0.25:
            shown = now
            on_event(ValidationProgress(total - pending, total, now - started))
        if pending == 0:
            break
    return played


def validation_run_name(config: StudyFile, label: str) -> str:
    """The results database's run of one validation player (``defaults``, ``trial-N``).

    Validations at other settings (``[validation] player``) are runs of their
    own, so games of one setting are never read as games of another.
    """
    settings = ",".join(f"{key}={value}" for key, value in sorted(config.validation_player.items()))
    return f"{config.name}/validation/{label}" + (f"@{settings}" if settings else "")


def _validation_run(db: Database, config: StudyFile, label: str, spec: str, opponents: tuple[str, ...],
                    create: bool) -> int | None:
    name = validation_run_name(config, label)
    existing = db.run(name)
    if existing is not None or not create:
        return None if existing is None else existing.id
    return db.start_run("study", config.game, {"study": config.name, "validation": label, "player": spec,
                                                "game": config.games_label, "opponent": turns_label(opponents)},
                        name=name,
                        study=config.name)


def _validation(config: StudyFile, db: Database, url: str, play: Callable[..., int] | None = None,
                opponents: tuple[str, ...] | None = None) -> tuple[Validation | None, int]:
    """The validation of the study's best trial from the recorded games, and the games played for it.

    ``play(runs, values)`` plays the missing ones (returning how many); without
    it a validation that is not complete is None. ``opponents`` are the study's
    opponents as resolved once for the run (``check_engines``); None resolves them here.
    """
    best = load_stored_study(config.name, url).best()
    if best is None:
        if play is None:
            return None, 0
        raise InvalidInput(f"study {config.name!r} has no complete trial yet")
    if opponents is None:
        resolver = SpecResolver(db, allow_engines=True)  # only read: nothing is played
        opponents = tuple(resolver.resolve(spec) for spec in config.opponents)
    defaults_spec = config.validation_spec(config.player_spec(config.default_weights()))
    tuned_spec = config.validation_spec(best.spec or config.player_spec(dict(best.params)))
    players = {"defaults": (defaults_spec, "defaults")}
    if tuned_spec != defaults_spec:  # when the baseline won there is nothing else to play
        players["tuned"] = (tuned_spec, f"trial-{best.number}")
    runs = {}
    for label, (spec, run_label) in players.items():
        run_id = _validation_run(db, config, run_label, spec, opponents, create=play is not None)
        if run_id is None:
            return None, 0
        runs[label] = (spec, run_id)
    values = _recorded_values(config, db, runs, opponents)
    played = 0
    if sum(map(len, values.values())) < len(runs) * len(config.validation_seeds):
        if play is None:
            return None, 0
        played = play(runs, values)
    values.setdefault("tuned", values["defaults"])
    seeds = list(config.validation_seeds)
    bounds = value_bounds(config.game_specs, config.objective)
    by_opponent = tuple(
        OpponentValidation(opponent, *_paired(values, [s for s in seeds if opponent_of(s, opponents) == opponent],
                                              bounds))
        for opponent in opponents) if len(opponents) > 1 else ()
    by_game = tuple(
        GameValidation(game, *_paired(values, [s for s in seeds if game_of(s, config.game_specs, opponents) == game],
                                      bounds))
        for game in config.game_specs) if len(config.game_specs) > 1 else ()
    games, defaults, tuned, difference = _paired(values, seeds, bounds)
    return Validation(
        study=config.name, game=config.games_label, opponent=turns_label(opponents), objective=config.objective,
        best_trial=best.number, defaults_spec=defaults_spec, tuned_spec=tuned_spec, games=games,
        defaults=defaults, tuned=tuned, difference=difference, named_player=f"tuned:{config.name}",
        settings=dict(config.validation_player), by_opponent=by_opponent, by_game=by_game), played


def _paired(values: dict[str, dict[int, float]], seeds: list[int],
            bounds: tuple[float, float] | None) -> tuple[int, Interval, Interval, Interval]:
    """Games, the defaults' and the tuned weights' means, and their paired difference over ``seeds``."""
    defaults = [values["defaults"][s] for s in seeds]
    tuned = [values["tuned"][s] for s in seeds]
    return (len(seeds), _interval(defaults, bounds), _interval(tuned, bounds),
            _interval([t - d for t, d in zip(tuned, defaults)]))  # paired: its own t interval


def check_engines(config: StudyFile, db: Database, allow_engines: bool) -> tuple[str, ...]:
    """The study's opponents resolved, after refusing engine commands unless ``allow_engines``: once per run.

    A study's players run on every worker, and a stored study (``--validate
    NAME``) or a ``tuned:`` opponent comes from a database others write to, so
    a player that runs a command needs the user's ``--allow-engines``.

    Raises:
        SpecError: the player or the opponent runs a command and engines are not allowed.
    """
    from players import guard_engine
    player = config.player_spec(config.default_weights())
    for spec in (player, config.validation_spec(player)):
        guard_engine(spec, f"study {config.name!r}'s player", allow_engines)
    resolver = SpecResolver(db, allow_engines=allow_engines)
    opponents = tuple(resolver.resolve(spec) for spec in config.opponents)
    for opponent in opponents:
        guard_engine(opponent, f"study {config.name!r}'s opponent", allow_engines)
    return opponents


def recorded_validation(config: StudyFile, db: Database, db_url: str | None = None) -> Validation | None:
    """The study's validation as recorded, or None when it has not been played in full."""
    return _validation(config, db, database_url(db_url))[0]


def run_validation(config: StudyFile, db: Database, url: str, pool: MatchPool,
                   on_event: OnEvent = ignore, opponents: tuple[str, ...] | None = None) -> tuple[Validation, int]:
    """Validate on an open pool and save ``tuned:<study>``; returns the validation and the games played.

    Args:
        opponents: the opponents as ``check_engines`` resolved them for the run (None: checked here).

    Raises:
        InvalidInput: the study has no complete trial yet.
    """
    resolved = opponents or check_engines(config, db, allow_engines=True)  # the caller checked the engines

    def play(runs: dict[str, tuple[str, int]], values: dict[str, dict[int, float]]) -> int:
        played = _play_missing(config, db, pool, runs, resolved, values, on_event)
        for _, run_id in runs.values():
            db.set_run_status(run_id, "done")
        return played

    validation, played = _validation(config, db, url, play, resolved)
    db.save_named_player(config.name, validation.tuned_spec, config.game,
                         note=f"study {config.name}, trial {validation.best_trial}")
    return validation, played


def validate(config: StudyFile | str, *, db_url: str | None = None, workers: int | None = None,
             address: str | None = None, pool: MatchPool | None = None, db: Database | None = None,
             on_event: OnEvent = ignore, allow_engines: bool = False) -> Validation:
    """Play the best trial and the defaults on the validation seeds; save ``tuned:<study>``.

    Args:
        config: the study file, or a study file path or a stored study's name.
        allow_engines: play players that run a command (see ``check_engines``).

    Raises:
        InvalidInput: the study is unknown or has no complete trial yet, or
            it runs an engine command without ``allow_engines``.
    """
    from harness.db import open_database
    from harness.tuning.driver import open_pool
    url = database_url(db_url)
    if isinstance(config, str):
        config = study_reference(config, url)
    own_db = db is None
    db = db or open_database(url)
    try:
        with stops_unwrapped():  # a Ctrl-C Python wrapped is still a stop
            opponents = check_engines(config, db, allow_engines)
            validation, _ = _validation(config, db, url, opponents=opponents)
            if validation is None:
                with open_pool(pool, workers, address) as active_pool:
                    validation, _ = run_validation(config, db, url, active_pool, on_event, opponents)
            else:
                db.save_named_player(config.name, validation.tuned_spec, config.game,
                                     note=f"study {config.name}, trial {validation.best_trial}")
        return validation
    finally:
        if own_db:
            db.close()
