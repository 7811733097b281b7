"""After the trials: a race among the best few, then the winner confirmed against the incumbent, and a verdict.

Why a race: the trial with the best in-study gain is the luckiest as much as
the best (the winner's curse: with a dozen trials and nothing better, the best
looks about +10 points in Totality). The finalists play openings none of them
played while tuning; the race picks the winner on those.

Why a confirmation: the winner then plays the incumbent again, on a third part
of the suite, at the budget of use (``[confirmation] player``), against every
opponent the weights must hold against, on a number of openings computed in
advance from the smallest gain worth finding and the spread the race measured
(``gain.sample_size``). The verdict (``gain.verdict_of``) is stored with
``tuned:<study>``.

Every game is a recorded match under a run of its own, taken back by its key,
so a stopped selection resumes and a finished one is read back without
playing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from harness.errors import ClusterError, InvalidInput
from harness.interrupts import stops_unwrapped
from harness.match import MatchSpec, match_key
from harness.tuning.events import OnEvent, StageProgress, ignore
from harness.tuning.gain import (Interval, detectable_gain, paired_interval, per_opening, sample_size, spread,
                                 verdict_of, worth_confirming)
from harness.tuning.objectives import game_value
from harness.tuning.stored import database_url, load_stored_study, resolve_incumbent, study_reference
from harness.tuning.studyfile import StudyFile, turns_label
from players.named import SpecResolver

if TYPE_CHECKING:
    from harness.cluster import MatchPool
    from harness.db import Database

__all__ = ["RaceEntry", "OpponentGain", "ConfirmationResult", "Outcome", "check_engines", "database_url",
           "recorded_outcome", "run_selection", "select", "stage_run_name"]

MIN_CONFIRMATION = 16  # openings at least, however small the race's spread


@dataclass(frozen=True)
class RaceEntry:
    """One finalist: its gain over the incumbent in the study and in the race."""

    trial: int
    spec: str
    in_study: Interval
    race: Interval


@dataclass(frozen=True)
class OpponentGain:
    """The confirmation's gain against one opponent, with both players' wins, draws and losses."""

    opponent: str
    gain: Interval
    incumbent_wdl: tuple[int, int, int]
    tuned_wdl: tuple[int, int, int]


@dataclass(frozen=True)
class ConfirmationResult:
    """The winner against the incumbent on fresh openings at the budget of use."""

    openings: int
    games: int
    sd: float  # the race's spread of per-opening differences, which sized the test
    smallest_gain: float
    detectable: float  # the gain these openings find with the stated power
    incumbent: Interval
    tuned: Interval
    gain: Interval
    by_opponent: tuple[OpponentGain, ...]
    incumbent_wdl: tuple[int, int, int]
    tuned_wdl: tuple[int, int, int]


@dataclass(frozen=True)
class Outcome:
    """A study's result after the trials: the race, the confirmation and the verdict."""

    study: str
    game: str
    objective: str
    incumbent_spec: str
    race: tuple[RaceEntry, ...]
    winner: int | None
    winner_spec: str | None
    confirmation: ConfirmationResult | None
    verdict: str
    reason: str
    named_player: str
    settings: dict[str, Any] = field(default_factory=dict)  # ``[confirmation] player``
    opponents: tuple[str, ...] = ()  # the confirmation's

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data."""
        return asdict(self) | {"rows": self.rows()}

    def rows(self) -> list[dict[str, Any]]:
        """The in-study gain, the race and the confirmation side by side: one row per player and stage.

        Every gain is over the incumbent, paired by opening; the views (the
        CLI's table, the report, the web page) render these rows.
        """
        rows = []
        for entry in self.race:
            mark = " (winner)" if entry.trial == self.winner else ""
            rows.append({"player": f"trial {entry.trial}{mark}", "in study": _text(entry.in_study),
                         "race": _text(entry.race), "confirmation": ""})
        if self.confirmation is not None:
            c = self.confirmation
            rows.append({"player": f"trial {self.winner} at the budget of use", "in study": "", "race": "",
                         "confirmation": _text(c.gain)})
            for part in c.by_opponent:
                rows.append({"player": f"  vs {part.opponent}", "in study": "", "race": "",
                             "confirmation": f"{_text(part.gain)}  W/D/L {_wdl_text(part.tuned_wdl)} vs "
                                             f"{_wdl_text(part.incumbent_wdl)}"})
        return rows

    def headline(self) -> str:
        """The verdict in one line, with why."""
        return f"{self.verdict.upper()}: {self.reason}"


def _text(interval: Interval) -> str:
    return f"{interval.mean:+.2f} [{interval.low:+.2f}, {interval.high:+.2f}] over {interval.n}"


def _wdl_text(wdl: tuple[int, int, int]) -> str:
    return "/".join(map(str, wdl))


def stage_run_name(config: StudyFile, stage: str, label: str) -> str:
    """The results database's run of one player in the race or the confirmation.

    A confirmation at other settings (``[confirmation] player``) is a run of
    its own, so games of one setting are never read as games of another.
    """
    settings = ",".join(f"{key}={value}" for key, value in sorted(config.confirmation.player.items()))
    suffix = f"@{settings}" if settings and stage == "confirmation" else ""
    return f"{config.name}/{stage}/{label}{suffix}"


# a stage's runs (label -> run id, its matches, their keys), the records found so far (label -> index ->
# record, filled in), the stage: plays the missing games and returns how many it played
Play = Callable[[dict[str, tuple[int, list[MatchSpec], list[str]]], dict[str, dict[int, Any]], str], int]


def _values(config: StudyFile, db: Database, stage: str, players: dict[str, str], specs: dict[str, list[MatchSpec]],
            play: Play | None, opponents: tuple[str, ...]) -> tuple[dict[str, list[Any]], int] | None:
    """Each player's recorded results of its matches (in order), playing the missing ones with ``play``."""
    runs: dict[str, tuple[int, list[MatchSpec], list[str]]] = {}
    for label, spec in players.items():
        name = stage_run_name(config, stage, label)
        existing = db.run(name)
        if existing is None:
            if play is None:
                return None
            run_id = db.start_run("study", config.game, {"study": config.name, "stage": stage, "player": spec,
                                                         "game": config.games_label,
                                                         "opponent": turns_label(opponents)},
                                  name=name, study=config.name)
        else:
            run_id = existing.id
        runs[label] = (run_id, specs[label], [match_key(m) for m in specs[label]])
    records: dict[str, dict[int, Any]] = {}
    for label, (run_id, _, keys) in runs.items():
        found = {record.key: record for record in db.matches(keys=keys)}
        if play is not None:  # a reader (the report, the web view) finds the games by key and links none
            db.hold(run_id, [key for key in keys if key in found])
        records[label] = {i: found[key] for i, key in enumerate(keys) if key in found}
    played = 0
    if any(len(records[label]) < len(matches) for label, (_, matches, _) in runs.items()):
        if play is None:
            return None
        played = play(runs, records, stage)
    return {label: [records[label][i] for i in range(len(runs[label][1]))] for label in runs}, played


def _play_missing(pool: MatchPool, db: Database, on_event: OnEvent) -> Play:
    def play(runs: dict[str, tuple[int, list[MatchSpec], list[str]]], records: dict[str, dict[int, Any]],
             stage: str) -> int:
        tags, pending = {}, 0
        for label, (_, matches, _) in runs.items():
            tags[(stage, label)] = label
            missing = [m for i, m in enumerate(matches) if i not in records[label]]
            pending += len(missing)
            pool.submit(missing, tag=(stage, label))
        index = {label: {key: i for i, key in enumerate(keys)} for label, (_, _, keys) in runs.items()}
        total, played, started, shown = pending, 0, time.monotonic(), 0.0
        on_event(StageProgress(stage, 0, total, 0.0))
        for tag, result in pool.as_completed() if pending else ():
            label = tags.get(tag) if isinstance(tag, tuple) else None
            if label is None:
                continue  # a straggler of a pruned trial
            db.record(runs[label][0], result)
            played += 1
            position = index[label].get(result.key)
            if position is not None and position not in records[label]:
                records[label][position] = result
                pending -= 1
            now = time.monotonic()
            if pending == 0 or now - shown > 0.25:
                shown = now
                on_event(StageProgress(stage, total - pending, total, now - started))
            if pending == 0:
                break
        if pending:
            raise ClusterError(f"the pool ran dry with {pending} {stage} games unplayed")
        for run_id, _, _ in runs.values():
            db.set_run_status(run_id, "done")
        return played
    return play


def _wdl(records: Sequence[Any]) -> tuple[int, int, int]:
    outcomes = [r.outcome for r in records]
    return outcomes.count("win"), outcomes.count("draw"), outcomes.count("loss")


def _finalists(config: StudyFile, url: str) -> list[tuple[int, str, Interval]]:
    """The best complete trials by in-study gain (ties: the earlier), each player once, never the incumbent's."""
    study = load_stored_study(config.name, url)
    told = study.told()
    complete = sorted(((value, -number) for number, (how, value) in told.items()
                       if how == "complete" and number > 0 and value is not None), reverse=True)
    seen = {study.attrs_of(0).get("spec")}
    out = []
    for value, negative in complete:
        attrs = study.attrs_of(-negative)
        if attrs["spec"] in seen:  # the same weights as the incumbent or as a better-placed trial
            continue
        seen.add(attrs["spec"])
        gain = attrs.get("gain") or {}
        out.append((-negative, attrs["spec"], Interval(value, gain.get("low", value), gain.get("high", value),
                                                         gain.get("openings", 0))))
        if len(out) == config.finalists:
            break
    return out


def _outcome(config: StudyFile, db: Database, url: str, play: Play | None, opponents: tuple[str, ...],
             confirm_opponents: tuple[str, ...]) -> tuple[Outcome | None, int]:
    """The outcome from the recorded games, playing what is missing with ``play`` (None: read only)."""
    incumbent = config.player_spec(config.incumbent_weights())
    named = f"tuned:{config.name}"
    base = {"study": config.name, "game": config.games_label, "objective": config.objective,
            "incumbent_spec": incumbent, "named_player": named, "settings": dict(config.confirmation.player),
            "opponents": confirm_opponents}
    finalists = _finalists(config, url)
    if not finalists:
        return Outcome(**base, race=(), winner=None, winner_spec=None, confirmation=None, verdict="no gain",
                       reason="no trial but the incumbent completed"), 0
    openings = list(config.selection_openings)
    combos = len(config.combos(opponents))
    players = {"incumbent": incumbent} | {f"trial-{number}": spec for number, spec, _ in finalists}
    specs = {label: config.matches(spec, openings, opponents) for label, spec in players.items()}
    found = _values(config, db, "race", players, specs, play, opponents)
    if found is None:
        return None, 0
    records, played = found
    values = {label: [game_value(r, config.objective) for r in rs] for label, rs in records.items()}
    race, race_differences = [], {}
    for number, spec, in_study in finalists:
        race_differences[number] = per_opening([t - i for t, i in zip(values[f"trial-{number}"],
                                                                       values["incumbent"])], combos)
        race.append(RaceEntry(number, spec, in_study, paired_interval(race_differences[number])))
    leader = max(race, key=lambda entry: (entry.race.mean, -entry.trial))
    if not worth_confirming(leader.race):
        return Outcome(**base, race=tuple(race), winner=None, winner_spec=None, confirmation=None,
                       verdict="no gain", reason="every finalist was behind the incumbent in the race (the "
                                                 "leader's interval lies below zero)"), played
    # the test's size, fixed before it plays: the race's spread of the winner's per-opening differences
    sd = spread(race_differences[leader.trial])
    confirmation = config.confirmation
    available = len(config.confirmation_openings)
    size = min(available, max(MIN_CONFIRMATION, sample_size(sd, confirmation.smallest_gain,
                                                              power=confirmation.power)))
    fresh = list(config.confirmation_openings)[:size]
    confirm_combos = config.combos(confirm_opponents)
    tuned_spec = config.confirmation_spec(leader.spec)
    players = {"incumbent": config.confirmation_spec(incumbent), f"trial-{leader.trial}": tuned_spec}
    specs = {label: config.matches(spec, fresh, confirm_opponents) for label, spec in players.items()}
    found = _values(config, db, "confirmation", players, specs, play, confirm_opponents)
    if found is None:
        return None, played
    records, confirmed_played = found
    played += confirmed_played
    mine, theirs = records[f"trial-{leader.trial}"], records["incumbent"]
    tuned_values = [game_value(r, config.objective) for r in mine]
    incumbent_values = [game_value(r, config.objective) for r in theirs]
    n = len(confirm_combos)
    differences = per_opening([t - i for t, i in zip(tuned_values, incumbent_values)], n)
    by_opponent = []
    for opponent in confirm_opponents:
        positions = [k for k in range(len(mine)) if confirm_combos[k % n][1] == opponent]
        per = len(positions) // len(fresh)
        opponent_differences = [sum(tuned_values[k] - incumbent_values[k] for k in positions[j * per:(j + 1) * per])
                                / per for j in range(len(fresh))]
        by_opponent.append(OpponentGain(opponent, paired_interval(opponent_differences),
                                        _wdl([theirs[k] for k in positions]), _wdl([mine[k] for k in positions])))
    pooled = paired_interval(differences)
    incumbent_wdl, tuned_wdl = _wdl(theirs), _wdl(mine)
    extra_losses = None
    if config.objective == "wdl":
        extra_losses = paired_interval(per_opening([(t.outcome == "loss") - (i.outcome == "loss")
                                                    for t, i in zip(mine, theirs)], n))
    verdict = verdict_of(pooled, [part.gain.mean for part in by_opponent], confirmation.tolerance, extra_losses)
    reason = _reason(verdict, pooled, by_opponent, confirmation.tolerance, extra_losses)
    result = ConfirmationResult(
        openings=len(fresh), games=len(mine) + len(theirs), sd=sd, smallest_gain=confirmation.smallest_gain,
        detectable=detectable_gain(sd, len(fresh), power=confirmation.power),
        incumbent=paired_interval(per_opening(incumbent_values, n)),
        tuned=paired_interval(per_opening(tuned_values, n)), gain=pooled, by_opponent=tuple(by_opponent),
        incumbent_wdl=incumbent_wdl, tuned_wdl=tuned_wdl)
    return Outcome(**base, race=tuple(race), winner=leader.trial, winner_spec=tuned_spec, confirmation=result,
                   verdict=verdict, reason=reason), played


def _reason(verdict: str, pooled: Interval, by_opponent: Sequence[OpponentGain], tolerance: float,
            extra_losses: Interval | None) -> str:
    if verdict == "worse":
        return "the pooled interval lies below zero"
    if verdict == "better":
        return "the pooled interval lies above zero and every opponent's gain is within the tolerance"
    if pooled.low <= 0:
        return "the pooled interval includes zero"
    behind = [part.opponent for part in by_opponent if part.gain.mean < -tolerance]
    if behind:
        return f"ahead pooled, but behind by more than the tolerance {tolerance:g} against {', '.join(behind)}"
    assert extra_losses is not None
    return (f"ahead, but it loses more often than the incumbent: {_text(extra_losses)} extra losses a game, "
            "paired by opening")


def check_engines(config: StudyFile, db: Database, allow_engines: bool) -> tuple[str, ...]:
    """The study's opponents resolved, after refusing engine commands unless ``allow_engines``: once per run.

    A study's players run on every worker, and a stored study or a ``tuned:``
    opponent comes from a database others write to, so a player that runs a
    command needs the user's ``--allow-engines``.

    Raises:
        SpecError: the player or an opponent runs a command and engines are not allowed.
    """
    from players import guard_engine
    player = config.player_spec(config.incumbent_weights())
    for spec in (player, config.confirmation_spec(player)):
        guard_engine(spec, f"study {config.name!r}'s player", allow_engines)
    resolver = SpecResolver(db, allow_engines=allow_engines)
    opponents = tuple(resolver.resolve(spec) for spec in config.opponents)
    for opponent in opponents + tuple(resolver.resolve(spec) for spec in config.confirmation.opponents):
        guard_engine(opponent, f"study {config.name!r}'s opponent", allow_engines)
    return opponents


def _confirmation_opponents(config: StudyFile, db: Database) -> tuple[str, ...]:
    resolver = SpecResolver(db, allow_engines=True)  # checked by check_engines first
    return tuple(resolver.resolve(spec) for spec in config.confirmation.opponents)


def _save(db: Database, config: StudyFile, outcome: Outcome) -> None:
    if outcome.winner_spec is None:
        return
    gain = outcome.confirmation.gain if outcome.confirmation else None
    detail = "" if gain is None else (f"{gain.mean:+.2f} [{gain.low:.2f}, {gain.high:.2f}] over {gain.n} "
                                      "confirmation openings")
    db.save_named_player(config.name, outcome.winner_spec, config.game,
                         note=f"study {config.name}, trial {outcome.winner}", verdict=outcome.verdict, detail=detail)


def recorded_outcome(config: StudyFile, db: Database, db_url: str | None = None) -> Outcome | None:
    """The study's outcome as recorded, or None when the race or the confirmation is not complete."""
    url = database_url(db_url)
    resolver = SpecResolver(db, allow_engines=True)  # only read: nothing is played
    opponents = tuple(resolver.resolve(spec) for spec in config.opponents)
    return _outcome(config, db, url, None, opponents, _confirmation_opponents(config, db))[0]


def run_selection(config: StudyFile, db: Database, url: str, pool: MatchPool, on_event: OnEvent = ignore,
                  opponents: tuple[str, ...] | None = None) -> tuple[Outcome, int]:
    """Race, confirm and save ``tuned:<study>`` with its verdict; returns the outcome and the games played.

    Args:
        opponents: the study's opponents as ``check_engines`` resolved them (None: checked here).
    """
    resolved = opponents or check_engines(config, db, allow_engines=True)
    outcome, played = _outcome(config, db, url, _play_missing(pool, db, on_event), resolved,
                               _confirmation_opponents(config, db))
    assert outcome is not None  # with a play function every game is there
    _save(db, config, outcome)
    return outcome, played


def select(config: StudyFile | str, *, db_url: str | None = None, workers: int | None = None,
           address: str | None = None, pool: MatchPool | None = None, db: Database | None = None,
           on_event: OnEvent = ignore, allow_engines: bool = False) -> Outcome:
    """Race the finalists and confirm the winner of a tuned study (read back when already played).

    Args:
        config: the study file, or a study file path or a stored study's name.
        allow_engines: play players that run a command (see ``check_engines``).

    Raises:
        InvalidInput: the study is unknown, or it runs an engine command without ``allow_engines``.
    """
    from harness.db import open_database
    from harness.cluster import using_pool
    url = database_url(db_url)
    if isinstance(config, str):
        config = study_reference(config, url)
    own_db = db is None
    db = db or open_database(url)
    try:
        with stops_unwrapped():  # a Ctrl-C Python wrapped is still a stop
            config = resolve_incumbent(config, db, url)
            stored = load_stored_study(config.name, url).user_attrs.get("fingerprint")
            if stored != config.fingerprint():
                raise InvalidInput(f"{config.path}: study {config.name!r} in the database was made from another "
                                   "study file (or by a harness before opening suites and paired gains); give the "
                                   "file it was made from, or its name")
            opponents = check_engines(config, db, allow_engines)
            outcome, _ = _outcome(config, db, url, None, opponents, _confirmation_opponents(config, db))
            if outcome is None:
                with using_pool(pool, workers, address) as active_pool:
                    outcome, _ = run_selection(config, db, url, active_pool, on_event, opponents)
            else:
                _save(db, config, outcome)
        return outcome
    finally:
        if own_db:
            db.close()
