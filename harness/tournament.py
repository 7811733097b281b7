"""Gauntlets and round-robins on the Ray pool, recorded once, resumable, with an SPRT stop.

A tournament is a plan of matches with deterministic keys, stored as a run in
the results database before anything is played. Everything needed to replay
the plan is in the run's config, so ``--resume RUN`` rebuilds the same plan
and plays only the matches whose keys the run does not hold yet.

* Gauntlet: each player in the user's seat against one opponent, ``games``
  seeds each (``seed_start`` onwards), seed-major so an interrupted run is
  balanced across players.
* Ladder (``--ladder``): a gauntlet against every rung of the game's ladder
  of reference opponents (``players.ladder``; ``rungs`` keeps some of them,
  to try a candidate on the hardest first), ``games`` seeds per rung; the
  report (``harness.strength``) gives each player's worst rung beside its
  mean over the rungs, and with a baseline run the paired score difference
  per rung and pooled, seed by seed.
* Round-robin: every pair of players in both seats. Games are counted per
  pair: ``games`` must be even and gives games/2 seeds; for each seed A plays
  in the user's seat against B and B against A, the same seed both times (as
  engine testers swap colours), so a pair of games shares the seed's luck.
* SPRT (``--sprt elo0,elo1[,alpha,beta]``): a two-player comparison of A
  (the first player) against B (the second, or the ``--opponent``), always
  played as seat-swapped pairs; the pentanomial GSPRT of ``harness.sprt``
  (logistic Elo) is updated after every complete pair and the run stops as
  soon as it decides. ``games`` is then the most games it may play.

Every match is a pure function of its spec, recorded once by its key: a
plan's match the database already holds (recorded by any run: an earlier
measurement, an imported file) is held by the new run, not played again
(``reused``), so the same command twice plays only what is missing.

Faults: the pool re-runs a dead worker's batch; the database ignores a key it
already holds, so every match is recorded once. Ctrl-C stops at once (work in
flight is dropped), marks the run interrupted, and the report says how to
resume. A driver killed outright leaves the run ``running``; resume it the
same way.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task,
                           TextColumn, TimeElapsedColumn, TimeRemainingColumn)
from rich.text import Text

from harness.console import LoggedProgress, rate_text
from harness.cluster import open_pool
from harness.db import Database
from harness.dbsource import DatabaseSource
from harness.errors import HarnessError, InvalidInput, with_resume
from harness.games import load as load_game
from harness.interrupts import stops_unwrapped
from harness.match import MatchResult, MatchSpec, check_opening, match_key
from harness.sprt import Pentanomial, SprtConfig, SprtStatus, elo_estimate, pair_points
from harness.strength import LadderStanding, RungResult, StrengthReport, strength_report
from players import guard_engine
from players.named import SpecResolver

if TYPE_CHECKING:
    from harness.cluster import MatchPool

__all__ = ["LadderStanding", "RungResult", "TournamentConfig", "TournamentReport", "ladder_standings", "plan",
           "play", "run_tournament"]

GAUNTLET = "gauntlet"
LADDER = "ladder"
ROUND_ROBIN = "round-robin"
CONFIG_VERSION = 1
REPORT_FORMAT = "harness.tournament/1"


@dataclass(frozen=True)
class TournamentConfig:
    """A tournament's plan: canonical specs, seeds and the stopping rule; stored with its run."""

    game: str
    players: tuple[str, ...]
    opponent: str | None
    games: int
    seed_start: int = 0
    opening_plies: int = 0
    sprt: SprtConfig | None = None
    aliases: dict[str, str] = field(default_factory=dict)  # canonical spec -> the name it was given as
    ladder: tuple[str, ...] = ()   # the rungs of a ladder gauntlet, weakest first
    openings: str = ""  # an opening suite: each seed plays the suite's opening (harness.games.openings)

    @property
    def mode(self) -> str:
        """``gauntlet`` (an opponent is set), ``ladder`` (rungs are set) or ``round-robin``."""
        if self.ladder:
            return LADDER
        return GAUNTLET if self.opponent is not None else ROUND_ROBIN

    def opponents(self) -> tuple[str, ...]:
        """The opponents every player meets: the rungs, the one opponent, or none (round-robin)."""
        if self.ladder:
            return self.ladder
        return (self.opponent,) if self.opponent is not None else ()

    def seeds(self) -> range:
        """The seeds played: ``games`` of them per gauntlet player, ``games/2`` per round-robin pair."""
        count = self.games // 2 if self.mode == ROUND_ROBIN else self.games
        return range(self.seed_start, self.seed_start + count)

    def schedule(self) -> list[MatchSpec]:
        """Every match of the plan, in the order it should be played."""
        specs: list[MatchSpec] = []
        for seed in self.seeds():
            if self.mode != ROUND_ROBIN:
                specs += [self._spec(player, opponent, seed) for opponent in self.opponents()
                          for player in self.players]
            else:
                for first, second in itertools.combinations(self.players, 2):
                    specs += [self._spec(first, second, seed), self._spec(second, first, seed)]
        return specs

    def _spec(self, player: str, opponent: str, seed: int) -> MatchSpec:
        return MatchSpec(self.game, player, opponent, seed, self.opening_plies, self.openings)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data for the run's config: all that ``from_dict`` needs to resume."""
        return {"version": CONFIG_VERSION, "mode": self.mode, "game": self.game,
                "players": list(self.players), "opponent": self.opponent, "games": self.games,
                "seed_start": self.seed_start, "opening_plies": self.opening_plies,
                "sprt": None if self.sprt is None else self.sprt.to_dict(), "aliases": self.aliases,
                "ladder": list(self.ladder)} | ({"openings": self.openings} if self.openings else {})

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TournamentConfig:
        """The config stored by ``to_dict``.

        Raises:
            InvalidInput: the data is not a tournament config this version understands.
        """
        try:
            if data.get("version") != CONFIG_VERSION:
                raise KeyError("version")
            sprt = data["sprt"]
            return cls(game=data["game"], players=tuple(data["players"]), opponent=data["opponent"],
                       games=int(data["games"]), seed_start=int(data["seed_start"]),
                       opening_plies=int(data["opening_plies"]),
                       sprt=None if sprt is None else SprtConfig(**sprt), aliases=dict(data["aliases"]),
                       ladder=tuple(data.get("ladder", ())), openings=str(data.get("openings", "")))
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidInput(f"the run's config is not a tournament plan this version can resume "
                               f"({error})") from None


def plan(game: str, players: Iterable[str], opponent: str | None = None, *, round_robin: bool = False,
         ladder: bool = False, rungs: Iterable[str] = (), games: int, seed_start: int = 0, opening_plies: int = 0,
         openings: str = "", sprt: str | SprtConfig | None = None,
         resolver: SpecResolver | None = None) -> TournamentConfig:
    """Check a tournament's settings and canonicalize every spec.

    Args:
        game: a game spec.
        players: player specs (``tuned:<name>`` is resolved by ``resolve``).
        opponent: the gauntlet opponent; None with ``round_robin``.
        round_robin: every pair of players in both seats.
        ladder: a gauntlet against every rung of the game's ladder (``players.ladder``).
        rungs: with ``ladder``, only these rungs (specs, in any spelling; kept in ladder order).
        games: games per player (gauntlet) or per player and rung (ladder) or per pair (round-robin, even);
            with ``sprt`` the most games to play.
        seed_start: the first seed.
        opening_plies: random opening plies per match (seeded).
        openings: an opening suite of the game (``harness openings GAME``): each seed plays the suite's
            opening ``seed % size``, in every pairing; "" plays ``opening_plies``.
        sprt: ``"elo0,elo1[,alpha,beta]"`` or a config: stop when the test decides.
        resolver: resolves named players and canonicalises every spec, once each (default: one
            without a database, so a named player is bad input).

    Raises:
        InvalidInput: an unknown game or player, a missing or contradictory
            choice of gauntlet/round-robin, too few players, a bad count.
    """
    rules = load_game(game)
    resolver = resolver if resolver is not None else SpecResolver()

    def canonical(spec: str) -> str:
        return resolver.canonical(spec, rules.name)

    given = list(players)
    if not given:
        raise InvalidInput("give at least one player spec in players", parameters=("players",))
    specs = tuple(dict.fromkeys(canonical(spec) for spec in given))
    opponent_spec = canonical(opponent) if opponent is not None else None
    if sum((opponent_spec is not None, round_robin, ladder)) > 1:
        raise InvalidInput("choose one of opponent SPEC (a gauntlet), ladder and round_robin",
                           parameters=("opponent", "ladder", "round_robin"))
    if opponent_spec is None and not round_robin and not ladder:
        raise InvalidInput("give opponent SPEC for a gauntlet, ladder for the game's ladder of "
                           "reference opponents, or round_robin between the players",
                           parameters=("opponent", "ladder", "round_robin"))
    if games < 1:
        raise InvalidInput(f"games must be at least 1, got {games}", parameters=("games",))
    sprt_config = SprtConfig.parse(sprt) if isinstance(sprt, str) else sprt
    chosen = [canonical(rung) for rung in rungs]
    if chosen and not ladder:
        raise InvalidInput("rungs choose rungs of the ladder: give ladder with them", parameters=("rungs", "ladder"))
    rungs = ()
    if ladder:
        if sprt_config is not None:
            raise InvalidInput("sprt compares two players; it does not combine with ladder",
                               parameters=("sprt", "ladder"))
        from players.ladder import ladder as ladder_of
        every = tuple(ladder_of(rules.spec))
        unknown = [rung for rung in chosen if rung not in every]
        if unknown:
            raise InvalidInput(f"{unknown[0]} is not a rung of {rules.spec}'s ladder; its rungs: {', '.join(every)}",
                               parameters=("rungs",))
        rungs = tuple(rung for rung in every if not chosen or rung in chosen)
    if sprt_config is not None:
        pair = specs + ((opponent_spec,) if opponent_spec is not None else ())
        if len(pair) != 2 or len(set(pair)) != 2:
            raise InvalidInput("sprt compares two players: give players A opponent B, or two "
                               "players with round_robin", parameters=("sprt", "players", "opponent", "round_robin"))
        specs, opponent_spec = pair, None  # always seat-swapped pairs
    if opponent_spec is None and not rungs:
        if len(specs) < 2:
            raise InvalidInput("a round-robin needs at least two different players")
        if games % 2:
            raise InvalidInput(f"a round-robin plays each seed in both seats: games must be even, "
                               f"got {games}", parameters=("games",))
    check_opening(rules.name, opening_plies, openings)
    aliases = {spec: name for spec, name in resolver.aliases.items() if spec in specs + (opponent_spec,)}
    return TournamentConfig(rules.spec, specs, opponent_spec, games, seed_start, opening_plies,
                            sprt_config, aliases, rungs, openings)


def ladder_standings(config: TournamentConfig, results: Iterable[MatchResult]) -> tuple[LadderStanding, ...]:
    """Each player's results per rung of ``config``'s ladder, rungs in ladder order (none played: left out)."""
    table: dict[tuple[str, str], list[MatchResult]] = {}
    for result in results:
        table.setdefault((result.player, result.opponent), []).append(result)
    standings = []
    for player in config.players:
        rungs = tuple(RungResult.of(rung, table[(player, rung)]) for rung in config.ladder if (player, rung) in table)
        if rungs:
            standings.append(LadderStanding(player, rungs, config.game))
    return tuple(standings)


@dataclass(frozen=True)
class TournamentReport:
    """How a tournament run ended."""

    run_id: int
    config: TournamentConfig
    status: str                    # done or interrupted
    planned: int                   # matches in the plan
    recorded: int                  # matches the run holds
    played: int                    # matches this call added to the run
    duplicates: int                # results that were already recorded (re-run batches)
    seconds: float
    sprt: SprtStatus | None = None
    workers_replaced: int = 0
    ladder: tuple[LadderStanding, ...] = ()
    reused: int = 0                # matches other runs had recorded, held by this run instead of played again
    strength: StrengthReport | None = None  # a ladder run's report (harness.strength)

    @property
    def interrupted(self) -> bool:
        """True if the run stopped before its plan (or its SPRT) was finished."""
        return self.status == "interrupted"

    @property
    def games_per_second(self) -> float:
        """Games this call added per second of play: the rate the progress bar shows too."""
        return games_per_second(self.played, self.seconds)

    def to_dict(self) -> dict[str, Any]:
        """The report as plain JSON data: the one line of ``harness tournament --json`` (docs/cluster.md)."""
        data: dict[str, Any] = {
            "format": REPORT_FORMAT, "run_id": self.run_id, "mode": self.config.mode, "game": self.config.game,
            "players": list(self.config.players), "opponent": self.config.opponent, "status": self.status,
            "planned": self.planned, "recorded": self.recorded, "played": self.played, "reused": self.reused,
            "duplicates": self.duplicates, "seconds": round(self.seconds, 3),
            "games_per_s": round(self.games_per_second, 3), "workers_replaced": self.workers_replaced,
            "sprt": None, "strength": None if self.strength is None else self.strength.to_dict()}
        if self.sprt is not None:
            data["sprt"] = {"elo0": self.sprt.config.elo0, "elo1": self.sprt.config.elo1,
                            "llr": self.sprt.llr, "bounds": list(self.sprt.config.bounds),
                            "decision": self.sprt.decision, "pentanomial": list(self.sprt.counts.counts)}
        return data

    def summary(self) -> list[str]:
        """Lines for the user: what was played, the SPRT verdict and Elo, how to resume."""
        rate = self.games_per_second
        lines = [f"run {self.run_id} ({self.config.mode}, {self.config.game}): {self.recorded}/"
                 f"{self.planned} games recorded, {self.played} played now in {self.seconds:.1f}s "
                 f"({rate_text(rate)})"
                 + (f", {self.reused} reused (recorded by other runs)" if self.reused else "")
                 + (f", lost workers replaced: {self.workers_replaced}" if self.workers_replaced else "")]
        if self.sprt is not None:
            lines.append(self.sprt.describe())
            if self.sprt.decision is None and not self.interrupted:
                lines.append(f"the test did not decide within --games {self.config.games}; "
                             "a larger cap or a wider elo0..elo1 gives it room")
            if self.sprt.counts.pairs:
                first, second = self.config.players
                lines.append(f"{first} vs {second}: {elo_estimate(self.sprt.counts).describe()}")
        lines += (self.strength.summary() if self.strength is not None
                  else [standing.describe() for standing in self.ladder])
        if self.interrupted:
            lines.append(f"interrupted; resume with: harness tournament --resume {self.run_id}")
        return lines


def games_per_second(played: int, seconds: float) -> float:
    """Games played per second of wall time: one formula for the bar and the summary."""
    return played / seconds if seconds > 0 else 0.0


class _RateColumn(ProgressColumn):
    """Games played by this call per second since the bar started (as the summary counts them)."""

    def render(self, task: Task) -> Text:
        elapsed = task.elapsed
        if not elapsed:
            return Text("-- games/s")
        played = int(task.completed) - int(task.fields.get("resumed", 0))
        return Text(rate_text(games_per_second(played, elapsed)))


def _progress(console: Console | None) -> Progress:
    return LoggedProgress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    _RateColumn(), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                    console=console, disable=console is None, transient=False)


class _PairTracker:
    """Collects both games of each seed of an A-B comparison into pentanomial counts."""

    def __init__(self, config: TournamentConfig) -> None:
        self.config = config
        self.first, self.second = config.players
        self.halves: dict[int, dict[str, str]] = {}
        self.counts = Pentanomial()

    def add(self, result: MatchResult) -> None:
        half = self.halves.setdefault(result.seed, {})
        half[result.player] = result.outcome
        if len(half) == 2:
            self.counts = self.counts.add(pair_points(half[self.first], half[self.second]))
            del self.halves[result.seed]

    def status(self) -> SprtStatus:
        return SprtStatus.of(self.config.sprt, self.counts)


def play(database: Database, run_id: int, config: TournamentConfig, pool: MatchPool, *,
         console: Console | None = None,
         on_result: Callable[[MatchResult], None] | None = None) -> TournamentReport:
    """Play the run's missing matches on ``pool``, recording each as it arrives.

    Args:
        database: where the run and its matches live.
        run_id: the run (already started).
        config: its plan.
        pool: a started or unstarted pool; the caller closes it.
        console: where the progress bar goes; None for no progress bar.
        on_result: called after each result is recorded (progress hooks, tests).

    Returns:
        The report; the run's status is set to done, or to interrupted on Ctrl-C.

    Raises:
        HarnessError: the pool or the database failed; the run is marked failed
            when the database still can, and the message ends with the
            command that resumes it.
    """
    schedule = config.schedule()
    recorded = database.recorded_keys(run_id)
    keys = {spec: match_key(spec) for spec in schedule}
    reused = database.hold(run_id, [key for key in keys.values() if key not in recorded])  # played before: kept
    todo = [spec for spec in schedule if keys[spec] not in recorded and keys[spec] not in reused]
    tracker = _PairTracker(config) if config.sprt is not None else None
    if tracker is not None:
        for match in database.matches(run_id=run_id):
            tracker.add(match)
    duplicates = 0
    status = "done"
    replaced_before = pool.stats.replaced
    tag = ("tournament", run_id, object())  # unique even across databases sharing a pool
    started = time.perf_counter()
    try:
        with stops_unwrapped():  # a Ctrl-C Python wrapped is still a stop
            decided = tracker is not None and tracker.status().decision is not None
            if todo and not decided:
                pool.start()  # before the clock and the bar: Ray and the workers take seconds to start
                started = time.perf_counter()
                with _progress(console) as progress:
                    task = progress.add_task(f"{config.mode} {config.game}", total=len(schedule),
                                             completed=len(schedule) - len(todo), resumed=len(schedule) - len(todo))
                    for result in pool.run(todo, tag=tag):
                        if not database.record(run_id, result):
                            duplicates += 1  # a re-run batch: the key is already recorded
                            continue
                        progress.advance(task)
                        if on_result is not None:
                            on_result(result)
                        if tracker is not None:
                            tracker.add(result)
                            status_now = tracker.status()
                            progress.update(task, description=f"{config.mode} {config.game} "
                                                              f"LLR {status_now.llr:+.2f}")
                            if status_now.decision is not None:
                                break
    except KeyboardInterrupt:
        status = "interrupted"
    except HarnessError as error:
        try:
            database.set_run_status(run_id, "failed")
        except HarnessError:
            pass  # the database may be what failed; resume does not need the status
        raise with_resume(error, f"harness tournament --resume {run_id}")
    finally:
        pool.cancel(tag, running=True)
    database.set_run_status(run_id, status)
    now_recorded = len(database.recorded_keys(run_id))
    return TournamentReport(
        run_id=run_id, config=config, status=status, planned=len(schedule),
        recorded=now_recorded, played=now_recorded - len(recorded) - len(reused), duplicates=duplicates,
        seconds=time.perf_counter() - started,
        sprt=tracker.status() if tracker is not None else None,
        workers_replaced=pool.stats.replaced - replaced_before,
        ladder=ladder_standings(config, database.matches(run_id=run_id)) if config.mode == LADDER else (),
        reused=len(reused))


def run_tournament(game: str | None, players: Iterable[str] = (), opponent: str | None = None, *,
                   round_robin: bool = False, ladder: bool = False, rungs: Iterable[str] = (),
                   games: int | None = None, seed_start: int = 0,
                   opening_plies: int = 0, openings: str = "", sprt: str | None = None, workers: int | None = None,
                   address: str | None = None, db_url: str | None = None, run_name: str | None = None,
                   resume: str | None = None, allow_engines: bool = False,
                   baseline: Iterable[str] = (), rescore: Iterable[str] = (), verify: int = 0,
                   console: Console | None = None, database: DatabaseSource | None = None) -> TournamentReport:
    """Plan (or resume) a tournament, play it on a Ray pool and record it: the CLI's one call.

    Args:
        game: a game spec (with ``resume``, optional and checked against the run).
        players, opponent, round_robin, ladder, rungs, games, seed_start, opening_plies, openings, sprt:
            as for ``plan``; ignored with ``resume`` except that they must not
            be given.
        workers: worker actors (None: every CPU).
        address: Ray address to join (None: a local cluster).
        db_url: the results database (None: ``$HARNESS_DB`` or the default file), when no
            ``database`` is given.
        run_name: a name for the new run.
        resume: the id or name of a run to finish.
        allow_engines: run engine commands that come from the database (a
            ``tuned:`` alias, the players of a resumed run).
        baseline: runs (ids or names) whose matches a ladder run's are paired with, seed by seed, in its
            report (``harness.strength``).
        rescore: game configurations a ladder run's games are also reported under, rescored
            (``totality:easy`` for a ``totality`` run).
        verify: replay this many of the run's stored matches after the run (``harness.strength.verify``);
            the report's ``strength.verification`` names any that differ.
        console: where the progress bar goes (None: none).
        database: the command's database, opened at most once (the caller closes it); the
            run's leaderboard is read from it afterwards.

    Raises:
        InvalidInput: bad settings, an unknown run, or a run that is not a tournament.
        ClusterError, DatabaseError: the pool or the database failed.
    """
    if database is None:
        with DatabaseSource(db_url) as source:
            return run_tournament(game, players, opponent, round_robin=round_robin, ladder=ladder, rungs=rungs,
                                  games=games, seed_start=seed_start, opening_plies=opening_plies,
                                  openings=openings, sprt=sprt, workers=workers, address=address,
                                  run_name=run_name, resume=resume, allow_engines=allow_engines,
                                  baseline=baseline, rescore=rescore, verify=verify, console=console,
                                  database=source)
    report_options = _ReportOptions(tuple(baseline), tuple(load_game(g).spec for g in rescore), verify)
    if resume is not None:
        given = (list(players) or opponent or round_robin or ladder or list(rungs) or games is not None or sprt
                 or openings)
        if given or run_name:
            raise InvalidInput("resume takes the plan from the run; give only game, workers, "
                               "address and db_url with it",
                               parameters=("resume", "game", "workers", "address", "db_url"))
        db = database.existing()
        db.check_writable()  # a read-only database fails here, before Ray starts
        run = db.run(resume)
        if run is None or run.kind != "tournament":
            raise InvalidInput(f"no tournament run {resume!r} in {db.masked_url} "
                               "(harness runs --kind tournament lists them)")
        config = TournamentConfig.from_dict(run.config)
        for spec in config.players + config.opponents():
            guard_engine(spec, f"run {run.id}'s player", allow_engines)
        if game is not None and load_game(game).spec != config.game:
            raise InvalidInput(f"run {run.id} plays {config.game}, not {game}")
        report_options.check(db, config)
        db.set_run_status(run.id, "running")
        with open_pool(workers=workers, address=address) as pool:  # one local worker: in-process
            return report_options.add(db, play(db, run.id, config, pool, console=console), pool)
    if game is None:
        raise InvalidInput("give game (or resume RUN)", parameters=("game", "resume"))
    if games is None:
        raise InvalidInput("give games N", parameters=("games",))
    # a named player needs the database (it must exist); nothing else does before the plan is checked
    resolver = SpecResolver(database.existing, allow_engines=allow_engines)
    config = plan(game, players, opponent, round_robin=round_robin, ladder=ladder, rungs=rungs, games=games,
                  seed_start=seed_start, opening_plies=opening_plies, openings=openings, sprt=sprt,
                  resolver=resolver)
    report_options.check(database.existing if report_options.baseline else None, config)
    db = database.writable()  # only now, with the input checked: bad input creates nothing
    db.check_writable()  # a read-only database fails here, before Ray starts
    with open_pool(workers=workers, address=address) as pool:  # one local worker: in-process
        pool.start()  # Ray reachable and the workers up before the run is written
        run_id = db.start_run("tournament", config.game, config.to_dict(), name=run_name)
        return report_options.add(db, play(db, run_id, config, pool, console=console), pool)


@dataclass(frozen=True)
class _ReportOptions:
    """What a ladder run's report adds to the run: a baseline to pair with, rescored configurations, a
    verification; none of it is part of the plan (a resumed run may take others)."""

    baseline: tuple[str, ...] = ()
    rescore: tuple[str, ...] = ()
    verify: int = 0

    def check(self, database: Database | Callable[[], Database] | None, config: TournamentConfig) -> None:
        """Bad input before anything is played: these go with a ladder, and the baseline runs exist."""
        if not (self.baseline or self.rescore or self.verify):
            return
        if config.mode != LADDER:
            raise InvalidInput("baseline, rescore and verify report on a gauntlet against the rungs: they go with ladder",
                               parameters=("baseline", "rescore", "verify", "ladder"))
        if self.verify < 0:
            raise InvalidInput(f"verify must be at least 0, got {self.verify}", parameters=("verify",))
        for game in self.rescore:
            if load_game(game).name != load_game(config.game).name or game == config.game:
                raise InvalidInput(f"rescore {game}: give another configuration of {config.game}'s game "
                                   "(totality:easy for totality)", parameters=("rescore",))
        if self.baseline and database is not None:
            opened = database() if callable(database) else database
            for run in self.baseline:
                opened.run_id(run)

    def add(self, database: Database, report: TournamentReport, pool: MatchPool) -> TournamentReport:
        """The run's report with its strength report (a ladder run's), verified on ``pool`` if asked."""
        if report.config.mode != LADDER or not report.recorded:
            return report
        verify_count = 0 if report.interrupted else self.verify
        strength = strength_report(database, [report.run_id], baseline=self.baseline, rescore_as=self.rescore,
                                   verify_count=verify_count, pool=pool)
        return replace(report, strength=strength)
