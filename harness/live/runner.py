"""Many live Gameboard games as one recorded run, in process or on the Ray pool.

The driver owns the database: after every step of every game a checkpoint
(:class:`~harness.live.session.Checkpoint`) is stored with
``db.save_live_game``, and each finished game's ``MatchResult`` (source
``live``, with the server's score beside ours) with ``db.record``. With
``workers > 1`` the games run on the Ray pool through ``Pool.map``; a worker
never touches the database but puts its checkpoints on ``pool.channel()``,
which the driver drains and stores while the games run; every request of every
worker waits on one ``pool.rate_limiter(rate)``.

A game interrupted by a transport or protocol failure is stored with status
``interrupted`` and its last server state; ``resume_live`` continues it.
"""

from __future__ import annotations

import queue
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator, Protocol

from harness.console import LoggedProgress, output_console
from harness.errors import HarnessError, InvalidInput, LiveError
from harness.games import load as load_game
from harness.live.gameboard import DEFAULT_BASE_URL
from harness.live.http import DEFAULT_RATE, RateLimiter, RetryPolicy, check_url
from harness.live.seat import MATCHES_PATH, SeatConfig, create_match, play_seat, seat_key
from harness.live.session import Checkpoint, LiveGameConfig, play_live_game, slug_of
from harness.match import MatchResult
from players.named import SpecResolver

Progress = Callable[[Checkpoint], None]


class LiveRecords(Protocol):
    """What a live run needs of the results database (``harness.db.Database`` implements it).

    Declared here, so the live layer speaks of the database without importing it.
    """

    def check_writable(self) -> None: ...

    def resolve_spec(self, spec: str, allow_engines: bool = False) -> str: ...

    def named_player_record(self, name: str) -> Any: ...

    def start_run(self, kind: str, game: str, config: dict[str, Any], name: str | None = None,
                  study: str | None = None, trial: int | None = None) -> int: ...

    def set_run_status(self, run_id: int, status: str) -> None: ...

    def record(self, run_id: int, result: MatchResult) -> bool: ...

    def recorded_keys(self, run_id: int) -> set[str]: ...

    def save_live_game(self, run_id: int, key: str, game: str, seed: int, player: str, server_state: Any,
                       actions: list[Any], status: str, error: str | None = None,
                       server_score: float | None = None, result: MatchResult | None = None) -> int: ...

    def live_game(self, game_id: int) -> Any: ...

    def live_games(self, run_id: int) -> list[Any]: ...


@dataclass(frozen=True)
class LiveRunConfig:
    """The options of ``harness live``."""

    game: str
    player: str
    games: int = 1
    seed_start: int = 0
    base_url: str = DEFAULT_BASE_URL
    rate: float = DEFAULT_RATE
    level: str | None = None
    workers: int | None = None  # None: every CPU, one game in this process
    move_time: float | None = None
    address: str | None = None
    policy: RetryPolicy = field(default_factory=RetryPolicy)

    def game_configs(self) -> list[LiveGameConfig]:
        """One game config per seed, the level folded into the game spec and the init query."""
        rules = load_game(self.game, **({"level": self.level} if self.level else {}))
        slug_of(rules)
        params = (("level", rules.config["level"]),) if "level" in rules.config else ()
        return [LiveGameConfig(game=rules.spec, player=self.player, seed=seed, base_url=self.base_url,
                               params=params, move_time=self.move_time, rate=self.rate, policy=self.policy)
                for seed in range(self.seed_start, self.seed_start + self.games)]


@dataclass
class GameOutcome:
    """What became of one game of the run."""

    key: str
    seed: int
    live_game_id: int | None = None
    result: MatchResult | None = None
    error: str | None = None
    status: str = "running"

    @property
    def resumable(self) -> bool:
        """Interrupted, and not because the server refused our state (resuming cannot help then)."""
        return self.status == "interrupted" and not (self.error or "").startswith("StateRefused")


@dataclass
class LiveSummary:
    """The run's games, for the CLI to print."""

    run_id: int
    games: dict[str, GameOutcome] = field(default_factory=dict)

    @property
    def results(self) -> list[MatchResult]:
        return [g.result for g in self.games.values() if g.result is not None]

    @property
    def mismatches(self) -> list[MatchResult]:
        """Finished games whose server score differs from the local formula's."""
        return [r for r in self.results if r.error is None and r.server_score is not None
                and abs(r.server_score - r.score) > 1e-9]

    @property
    def interrupted(self) -> list[GameOutcome]:
        return [g for g in self.games.values() if g.status == "interrupted"]


class _Recorder:
    """Stores checkpoints and results in the driver (the one writer)."""

    def __init__(self, db: LiveRecords, run_id: int, summary: LiveSummary, progress: Progress | None) -> None:
        self.db, self.run_id, self.summary, self.progress = db, run_id, summary, progress

    def __call__(self, checkpoint: Checkpoint) -> None:
        # a finished game's last checkpoint and its match row: one transaction
        game_id = self.db.save_live_game(
            self.run_id, checkpoint.key, checkpoint.game, checkpoint.seed, checkpoint.player,
            checkpoint.server_state, checkpoint.actions, checkpoint.status, error=checkpoint.error,
            server_score=checkpoint.server_score, result=checkpoint.result)
        outcome = self.summary.games.setdefault(checkpoint.key, GameOutcome(checkpoint.key, checkpoint.seed))
        outcome.live_game_id, outcome.status, outcome.error = game_id, checkpoint.status, checkpoint.error
        if checkpoint.result is not None:
            outcome.result = replace(checkpoint.result, extra={**checkpoint.result.extra, "live_game_id": game_id})
        if self.progress is not None:
            self.progress(checkpoint)


def run_live(db: LiveRecords, config: LiveRunConfig, progress: Progress | None = None,
             allow_engines: bool = False) -> LiveSummary:
    """Play ``config.games`` live games and record them as a run of kind ``live``.

    Args:
        db: an open results database (``harness.db.open_database``).
        config: the run; ``config.player`` may be a ``tuned:<name>`` alias.
        progress: called with every stored checkpoint (for a progress display).
        allow_engines: play a ``tuned:`` alias whose stored spec runs a command.

    Returns:
        The run's summary; interrupted games can be resumed by their live game id.

    Raises:
        InvalidInput: a game that is not a Gameboard game, a bad rate or worker count.
    """
    check_url(config.base_url, "base_url")
    if config.games < 1:
        raise InvalidInput(f"games must be at least 1, got {config.games}", parameters=("games",))
    if config.workers is not None and config.workers < 1:
        raise InvalidInput(f"workers must be at least 1, got {config.workers}", parameters=("workers",))
    RateLimiter(config.rate)  # validates the rate before anything starts
    db.check_writable()  # a read-only database fails before the first request
    rules = load_game(config.game, **({"level": config.level} if config.level else {}))
    player = SpecResolver(db, allow_engines=allow_engines).canonical(config.player, rules.name)
    config = replace(config, player=player)
    games = config.game_configs()
    run_id = db.start_run("live", rules.spec, {
        "player": player, "games": config.games, "seed_start": config.seed_start,
        "base_url": config.base_url, "rate": config.rate, "level": config.level,
        "workers": config.workers, "move_time": config.move_time, "source": "live"})
    summary = LiveSummary(run_id)
    record = _Recorder(db, run_id, summary, progress)
    for game in games:
        summary.games[game.key] = GameOutcome(game.key, game.seed)
    try:
        if _in_process(config):
            _run_here(games, record, RateLimiter(config.rate))
        else:
            _run_on_pool(games, record, config)
    except BaseException:
        db.set_run_status(run_id, "interrupted")
        raise
    db.set_run_status(run_id, "interrupted" if summary.interrupted else "done")
    return summary


def _in_process(config: LiveRunConfig) -> bool:
    """One worker and no cluster, or (no worker count given) a single game: no Ray to start."""
    return config.workers == 1 or (config.workers is None and config.games == 1 and config.address is None)


def _run_here(games: list[LiveGameConfig], record: _Recorder, limiter: RateLimiter) -> None:
    for game in games:
        try:
            play_live_game(game, record, limiter)
        except LiveError as error:
            record.summary.games[game.key].error = f"{type(error).__name__}: {error}"
            record.summary.games[game.key].status = "interrupted"


def _play_on_worker(item: tuple[LiveGameConfig, Any, Any, dict | None]) -> tuple[str, str | None]:
    """Ray worker entry: play one game, streaming checkpoints to the driver's channel."""
    game, limiter, channel, transcript = item
    try:
        play_live_game(game, channel.put, limiter, transcript)
    except LiveError as error:
        return game.key, f"{type(error).__name__}: {error}"
    return game.key, None


def _run_on_pool(games: list[LiveGameConfig], record: _Recorder, config: LiveRunConfig) -> None:
    from harness.cluster import Pool
    with Pool(workers=config.workers, address=config.address) as pool:
        limiter = pool.rate_limiter(config.rate)
        channel = pool.channel()
        finished: queue.Queue = queue.Queue()

        def consume() -> None:
            try:
                for outcome in pool.map(_play_on_worker, [(g, limiter, channel, None) for g in games]):
                    finished.put(("result", outcome))
            except BaseException as error:  # re-raised in the driver's thread
                finished.put(("error", error))
            finished.put(("end", None))

        thread = threading.Thread(target=consume, name="live-pool", daemon=True)
        thread.start()
        ended = False
        while not ended:
            for checkpoint in channel.drain():
                record(checkpoint)
            try:
                kind, payload = finished.get(timeout=0.25)
            except queue.Empty:
                continue
            while True:
                if kind == "error":
                    thread.join()
                    for checkpoint in channel.drain():
                        record(checkpoint)
                    raise payload
                if kind == "end":
                    ended = True
                elif payload[1] is not None:
                    outcome = record.summary.games[payload[0]]
                    outcome.error, outcome.status = payload[1], "interrupted"
                try:
                    kind, payload = finished.get_nowait()
                except queue.Empty:
                    break
        thread.join()
        for checkpoint in channel.drain():
            record(checkpoint)


def resume_live(db: LiveRecords, game_id: int, base_url: str | None = None, rate: float = DEFAULT_RATE,
                move_time: float | None = None, policy: RetryPolicy | None = None,
                progress: Progress | None = None, allow_engines: bool = False) -> LiveSummary:
    """Continue a stored live game from its last server state.

    Args:
        db: the results database holding the game.
        game_id: the live game's id (shown by ``harness live`` for interrupted games).
        base_url: another server address (the stored one by default).

    A game whose last checkpoint says it finished but whose match row is
    missing (a crash between the two, before they shared one transaction) is
    replayed from its transcript, without a request, and recorded.

    Raises:
        InvalidInput: no such live game, or it has already finished and been recorded.
    """
    if base_url is not None:
        check_url(base_url, "base_url")
    stored = db.live_game(game_id)
    if stored is None:
        raise InvalidInput(f"no live game with id {game_id}")
    from players import guard_engine
    guard_engine(stored.player, f"live game {game_id}'s player", allow_engines)
    unrecorded = stored.status == "done" and stored.key not in db.recorded_keys(stored.run_id)
    if stored.status in ("done", "failed") and not unrecorded:
        raise InvalidInput(f"live game {game_id} has already ended (status {stored.status}); "
                           f"only interrupted or running games can be resumed")
    transcript = (stored.server_state or {}).get("transcript")
    if not transcript or transcript.get("init") is None:
        transcript = None
    stored_url = (transcript or {}).get("base_url") or base_url or DEFAULT_BASE_URL
    params = tuple(sorted(((transcript or {}).get("params") or {}).items()))
    game = LiveGameConfig(game=stored.game, player=stored.player, seed=stored.seed, base_url=stored_url,
                          params=params, move_time=move_time, rate=rate, policy=policy or RetryPolicy())
    if base_url is not None and base_url != stored_url:
        if transcript is not None:
            transcript["base_url"] = base_url
        game = replace(game, base_url=base_url)
    summary = LiveSummary(stored.run_id)
    summary.games[stored.key] = GameOutcome(stored.key, stored.seed, live_game_id=game_id)

    class _SameKey(_Recorder):
        def __call__(self, checkpoint: Checkpoint) -> None:  # keep the stored key (a new URL changes it)
            super().__call__(replace(checkpoint, key=stored.key, result=checkpoint.result and replace(
                checkpoint.result, key=stored.key)))

    record = _SameKey(db, stored.run_id, summary, progress)
    db.set_run_status(stored.run_id, "running")
    try:
        play_live_game(game, record, RateLimiter(rate), transcript)
    except LiveError as error:
        summary.games[stored.key].error = f"{type(error).__name__}: {error}"
        summary.games[stored.key].status = "interrupted"
    except HarnessError:
        db.set_run_status(stored.run_id, "interrupted")
        raise
    still_open = any(rec.status in ("running", "interrupted") for rec in db.live_games(stored.run_id))
    db.set_run_status(stored.run_id, "interrupted" if still_open else "done")
    return summary


def run_arena(db: LiveRecords, config: SeatConfig, seat: str = "red", match_options: dict[str, Any] | None = None,
              allow_engines: bool = False) -> tuple[int, MatchResult]:
    """Play one seat of a Chinese chess match and record it as a live run.

    ``config.url`` is the seat's URL; an emulator's match-creation URL
    (ending in ``/arena/xiangqi/matches``) creates a match for ``seat`` first
    (with ``match_options`` such as ``{"beatMs": 2000}``). The seat is stored
    as a live game, checkpointed after every command, so ``resume_arena``
    can rejoin the match after a crash.

    Returns:
        The run id and the result (outcome from ``result.ranks``; the local
        engine's view beside it in ``extra``).

    Raises:
        InvalidInput: a URL without http:// or https://, an unknown player.
    """
    check_url(config.url, "url")
    db.check_writable()  # a read-only database fails before the first request
    player = SpecResolver(db, allow_engines=allow_engines).canonical(config.player, "xiangqi")
    config = replace(config, player=player)
    if config.url.rstrip("/").endswith(MATCHES_PATH):
        config = replace(config, url=create_match(config.url, seat, config.seed, config.policy, match_options))
    run_id = db.start_run("live", "xiangqi", {"player": player, "url": config.url, "seed": config.seed,
                                              "rate": config.rate, "source": "live"})
    return run_id, _play_arena(db, run_id, config, [], [])


def resume_arena(db: LiveRecords, game_id: int, rate: float | None = None,
                 allow_engines: bool = False) -> tuple[int, MatchResult]:
    """Rejoin the match of a stored seat (``harness arena --resume GAME_ID``) and play it to its end.

    The tracker starts from the plies stored with the last checkpoint; the
    match goes on from the server's current view.

    Raises:
        InvalidInput: no such seat, or its match has already been recorded.
    """
    stored = db.live_game(game_id)
    if stored is None or not stored.key.startswith("arena-"):
        raise InvalidInput(f"no arena seat with live game id {game_id}")
    from players import guard_engine
    guard_engine(stored.player, f"arena seat {game_id}'s player", allow_engines)
    if stored.status == "done" and stored.key in db.recorded_keys(stored.run_id):
        raise InvalidInput(f"the match of arena seat {game_id} has already ended and is recorded")
    saved = stored.server_state or {}
    config = SeatConfig(url=saved["url"], player=stored.player, seed=stored.seed,
                        rate=rate if rate is not None else saved.get("rate", 2.0))
    db.set_run_status(stored.run_id, "running")
    return stored.run_id, _play_arena(db, stored.run_id, config, list(saved.get("plies", [])),
                                      list(stored.actions))


def _play_arena(db: LiveRecords, run_id: int, config: SeatConfig, plies: list[Any], sent: list[Any]) -> MatchResult:
    key = seat_key(config.url)
    state = {"url": config.url, "rate": config.rate, "plies": plies}

    def save(status: str, error: str | None = None, result: MatchResult | None = None) -> int:
        return db.save_live_game(run_id, key, "xiangqi", config.seed, config.player, dict(state), list(sent), status,
                          error=error, server_score=None if result is None else result.server_score,
                          result=result)

    def checkpoint(event: dict[str, Any]) -> None:
        sent.append(event["command"])
        state["plies"] = event["plies"]
        save("running")

    save("running")
    try:
        result = play_seat(config, checkpoint, start_actions=plies)
    except LiveError as error:
        error.live_game_id = save("interrupted", error=f"{type(error).__name__}: {error}")  # for the rejoin hint
        db.set_run_status(run_id, "interrupted")
        raise
    except BaseException:
        db.set_run_status(run_id, "interrupted")
        raise
    result = replace(result, extra={**result.extra, "sent": list(sent)})
    save("done", result=result)  # the last checkpoint and the match row: one transaction
    db.set_run_status(run_id, "done")
    return result


@contextmanager
def progress_display() -> Iterator[Progress]:
    """A rich progress display fed by stored checkpoints: one line per game, its steps and status.

    It starts with the first checkpoint, so a command that fails before any
    game begins prints its one error line and nothing else.
    """
    from rich.progress import SpinnerColumn, TextColumn, TimeElapsedColumn
    bar = LoggedProgress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                       console=output_console(stderr=True), transient=False)  # progress on stderr, results on stdout
    tasks: dict[str, Any] = {}

    def update(checkpoint: Checkpoint) -> None:
        if not tasks:
            bar.start()
        steps = len(checkpoint.actions)
        text = f"{checkpoint.game} seed {checkpoint.seed}: {checkpoint.status}, {steps} actions"
        if checkpoint.result is not None:
            result = checkpoint.result
            text += f", {result.outcome} score {result.score:g} (server {result.server_score})"
        if checkpoint.key not in tasks:
            tasks[checkpoint.key] = bar.add_task(text, total=None)
        if checkpoint.status == "running":
            bar.update(tasks[checkpoint.key], description=text)
        else:  # stops the spinner of a finished game
            bar.update(tasks[checkpoint.key], description=text, total=1, completed=1)
    try:
        yield update
    finally:
        if tasks:
            bar.stop()


def print_summary(summary: LiveSummary) -> None:
    """One table of the run's games, then the score mismatches and the games to resume."""
    from rich.table import Table
    table = Table(title=f"live run {summary.run_id}")
    for column in ("game id", "seed", "status", "outcome", "reason", "score", "server", "check"):
        table.add_column(column, justify="right")
    for game in summary.games.values():
        result = game.result
        check = "-"
        if result is not None and result.server_score is not None and result.error is None:
            check = "ok" if abs(result.server_score - result.score) <= 1e-9 else "MISMATCH"
        table.add_row(str(game.live_game_id or "-"), str(game.seed), game.status,
                      result.outcome if result else "-", result.reason if result else "-",
                      f"{result.score:g}" if result else "-",
                      "-" if result is None or result.server_score is None else f"{result.server_score:g}",
                      check)
    console = output_console()
    console.print(table)
    results = summary.results
    if results:
        mean = sum(r.score for r in results) / len(results)
        console.print(f"{len(results)} recorded, mean score {mean:.2f}, "
                      f"{len(summary.mismatches)} server/local score mismatch(es)")
    for game in summary.interrupted:
        if game.resumable:
            console.print(f"game {game.live_game_id} (seed {game.seed}) interrupted: {game.error}; "
                          f"continue it with: harness live --resume {game.live_game_id}")
        else:
            console.print(f"game {game.live_game_id} (seed {game.seed}) interrupted for good: {game.error}")
    for game in summary.games.values():
        if game.status == "failed":
            console.print(f"game {game.live_game_id} (seed {game.seed}) stopped: {game.error}")
