"""The driver: runs a study's trials over a pool, in an order that does not depend on timing.

* **Reproducible.** The same study file gives the same trials, values and
  choice on 1 or N workers, in-process or on Ray, and after any interruption:
  what the sampler sees when it proposes trial k is fixed. Trials are told to
  Optuna in number order, and trial k is asked right after trial k - P is told
  (P = the file's ``budget.parallel``, never the machine's worker count), so
  at every ask exactly trials 0..k-P are finished and k-P+1..k-1 are running.
  Each trial's sampler is seeded by the study's seed and its number
  (``Study.ask``). The games run asynchronously; only what Optuna sees is
  ordered.
* **A value that measures a gain.** Trial 0 is the incumbent (the study's
  starting weights). Every trial plays the same tuning openings, each opening
  in every game spec against every opponent; a trial's value is its mean
  paired gain over the incumbent per opening (``harness.tuning.gain``).
* **Pruning only against the incumbent**, at block boundaries, corrected for
  the repeated looks (``gain.is_confidently_worse``): a pruned trial is told
  with its gain so far, so the sampler learns from it too.
* **Exactly once.** A match is a pure function of its spec: a trial first
  takes every game already recorded under its match keys (a resumed trial, or
  an earlier trial with the same weights) and plays only the rest.
* **Faults.** Ctrl-C, SIGTERM or an error leave this driver's trials running
  in the storage; the next driver re-attaches them (``Study.running``) and
  plays what is missing. A study has one driver at a time (``Study.take_lease``);
  a killed driver's lease goes stale after the grace period, or at once
  when its process is known gone (same host, no such pid), and a note says so.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from harness.console import note
from harness.errors import ClusterError, HarnessError, InvalidInput
from harness.interrupts import check as check_interrupted
from harness.interrupts import stops_unwrapped
from harness.match import MatchResult, MatchSpec, match_key
from harness.tuning.adapter import Study, Trial, open_study
from harness.tuning.events import OnEvent, PoolResized, TrialEnded, TuningProgress, ignore
from harness.tuning.gain import is_confidently_worse, paired_interval, per_opening
from harness.tuning.heartbeat import Heartbeat
from harness.tuning.objectives import game_value
from harness.tuning.selection import Outcome, check_engines, database_url, run_selection
from harness.tuning.stored import resolve_incumbent
from harness.tuning.studyfile import StudyFile, turns_label

if TYPE_CHECKING:
    from harness.cluster import MatchPool
    from harness.db import Database

__all__ = ["Driver", "TuneSummary", "tune", "run_name"]

PROGRESS_EVERY_S = 0.25
MAX_GROUP = 256  # games recorded in one transaction at most
RUN_STATUS = {"complete": "done", "pruned": "done", "interrupted": "interrupted"}


def run_name(study: str, trial: int) -> str:
    """The name of a trial's run in the results database."""
    return f"{study}/trial-{trial}"


@dataclass
class _TrialRun:
    """A trial in flight in this driver (mutable driver bookkeeping, never shared)."""

    trial: Trial
    spec: str
    run_id: int
    specs: list[MatchSpec]  # its matches, opening by opening
    keys: list[str]
    values: dict[int, float] = field(default_factory=dict)  # match index -> per-game value
    submitted: int = 0  # blocks submitted
    looked: int = 0  # blocks looked at (their gains known)
    ended: str | None = None  # complete or pruned, waiting to be told in order
    gains: list[float] = field(default_factory=list)  # the gain after each block looked at
    index: dict[str, int] = field(default_factory=dict)  # match key -> match index

    def __post_init__(self) -> None:
        self.index = {key: i for i, key in enumerate(self.keys)}

    @property
    def number(self) -> int:
        return self.trial.number


@dataclass(frozen=True)
class TuneSummary:
    """What a ``tune`` call did, and the study's state after it.

    ``games``/``seconds`` are the tuning phase's (games played now, not
    reused), ``selection_games``/``selection_seconds`` the race's and the
    confirmation's.
    """

    study: str
    trials_complete: int
    trials_pruned: int
    games: int
    seconds: float
    best_trial: int | None
    best_value: float | None
    best_params: dict[str, float]
    best_spec: str | None
    outcome: Outcome | None = None
    selection_games: int = 0
    selection_seconds: float = 0.0
    reused_games: int = 0
    workers: int = 0
    max_games_in_flight: int = 0
    busy: float | None = None  # share of the workers' time spent playing tuning games

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (the outcome with its verdict and intervals)."""
        data = asdict(self)
        if self.outcome is not None:
            data["outcome"] = self.outcome.to_dict()
        return data


class Driver:
    """Runs one study's trials over a pool until the study holds its budget of trials."""

    def __init__(self, config: StudyFile, study: Study, db: Database, pool: MatchPool, *, target: int,
                 opponents: tuple[str, ...], on_event: OnEvent = ignore, grace_period: int = 120) -> None:
        self.config = config
        self.study = study
        self.db = db
        self.pool = pool
        self.target = target
        self.opponents = opponents  # resolved
        self.on_event = on_event
        self.grace_period = grace_period
        self.combos = len(config.combos(opponents))
        self.openings = list(config.tuning_openings)[:config.openings_per_trial]
        self.block_games = config.block * self.combos
        self.active: dict[int, _TrialRun] = {}
        self.finished_runs: dict[int, int] = {}
        self.told: dict[int, tuple[str, float | None]] = {}
        self.asked = 0
        self.incumbent_values: dict[int, float] = {}
        self.games = 0
        self.reused = 0
        self.played_s = 0.0
        self.max_games_in_flight = 0
        self.started = time.monotonic()
        self.last_progress = 0.0
        self.identity = f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"
        self.heartbeat = Heartbeat(lambda: study.renew_lease(self.identity), max(1.0, grace_period / 4))

    def tag(self, number: int) -> tuple[str, str, int]:
        """The pool tag of a trial's matches: unique per driver, so shared pools never mix them up."""
        return ("trial", self.identity, number)

    # -- the order of asks and tells

    def ask_due(self) -> None:
        """Ask every trial that is due: trial k once trials 0..k-P are told (P = ``budget.parallel``)."""
        while self.asked < self.target and self.asked < len(self.told) + self.config.parallel:
            if self.config.sampler == "spsa" and self.asked > 0 and not self.study.counts()["waiting"]:
                # (a driver stopped between the enqueue and the ask left this trial's point waiting)
                self.study.enqueue(self.spsa_point(self.asked))
            self.start_trial(self.study.ask(self.config, self.asked))
            self.asked += 1

    def spsa_point(self, number: int) -> dict[str, float]:
        """SPSA's point for trial ``number`` from the trials told when it is asked (``harness.tuning.spsa``)."""
        from harness.tuning.spsa import pair_told, spsa_point, spsa_theta
        from harness.tuning.studyfile import spsa_iterations
        settings = self.config.spsa_settings()
        searched = self.config.weights + self.config.params
        start = self.config.incumbent_weights()
        told = {n: value for n, (_, value) in self.told.items() if value is not None}
        if number <= 2 * spsa_iterations(self.config.trials):
            return spsa_point(settings, searched, start, pair_told(told, number, self.config.parallel), number)
        return spsa_theta(settings, searched, start, told)

    def tell_due(self) -> None:
        """Tell ended trials in number order, each followed by the ask it makes due."""
        while True:
            number = len(self.told)
            run = self.active.get(number)
            if run is None or run.ended is None:
                return
            self.tell(run)
            self.ask_due()

    def resume(self) -> None:
        """Take up the study where it stands: told trials, then the running ones re-attached in order."""
        self.told = self.study.told()
        if sorted(self.told) != list(range(len(self.told))):
            raise InvalidInput(f"study {self.config.name!r} was run out of order (finished trials "
                               f"{sorted(self.told)}); it was made by an older harness: give it a new name")
        self.close_finished_runs()
        running = self.study.running()
        self.asked = len(self.told) + len(running)
        if self.told.get(0, ("", None))[0] == "complete":
            self.incumbent_values = self._recorded_incumbent()
        for trial in running:
            self.start_trial(trial)

    def close_finished_runs(self) -> None:
        """A driver stopped between telling Optuna a trial's end and closing its run (two stores, two
        transactions) left the run open; on resume such runs are marked done."""
        finished = {run_name(self.config.name, n) for n in self.told}
        for run in self.db.runs(kind="study"):
            if run.status != "done" and run.name in finished:
                self.db.set_run_status(run.id, "done")

    def _recorded_incumbent(self) -> dict[int, float]:
        keys = [match_key(spec) for spec in self.config.matches(
            self.config.player_spec(self.config.incumbent_weights()), self.openings, self.opponents)]
        recorded = {record.key: record for record in self.db.matches(keys=keys)}
        missing = [key for key in keys if key not in recorded]
        if missing:
            raise InvalidInput(f"study {self.config.name!r}: {len(missing)} of the incumbent's games are not in "
                               "this database; run the study where it was made (--db)")
        return {i: game_value(recorded[key], self.config.objective) for i, key in enumerate(keys)}

    # -- a trial's life

    def start_trial(self, trial: Trial) -> None:
        # the spec carries 4 significant digits (readable, and finer than the games can tell apart)
        weights = {w.name: trial.suggest(w) for w in self.config.weights + self.config.params}
        spec = self.config.player_spec(weights)
        trial.set_attr("spec", spec)
        name = run_name(self.config.name, trial.number)
        existing = self.db.run(name)
        run_id = existing.id if existing is not None else self.db.start_run(
            "study", self.config.game, {"study": self.config.name, "trial": trial.number, "player": spec,
                                        "game": self.config.games_label, "opponent": turns_label(self.opponents),
                                        "params": weights},
            name=name, study=self.config.name, trial=trial.number)
        if existing is not None and existing.status != "running":
            self.db.set_run_status(run_id, "running")
        specs = self.config.matches(spec, self.openings, self.opponents)
        run = _TrialRun(trial, spec, run_id, specs, [match_key(s) for s in specs])
        self.active[trial.number] = run
        self.reuse_recorded(run)
        self.advance(run)

    def reuse_recorded(self, run: _TrialRun) -> None:
        """Take the games already recorded under this trial's match keys: no replay, no copy."""
        recorded = {record.key: record for record in self.db.matches(keys=run.keys)}
        taken = [key for key in run.keys if key in recorded]
        for index, key in enumerate(run.keys):
            if key in recorded:
                run.values[index] = game_value(recorded[key], self.config.objective)
        self.db.hold(run.run_id, taken)
        self.reused += len(taken)

    def block_in(self, values: dict[int, float], block: int) -> bool:
        return all(i in values for i in range(block * self.block_games, (block + 1) * self.block_games))

    def differences(self, run: _TrialRun, blocks: int) -> list[float]:
        """The per-opening paired differences over the first ``blocks`` blocks."""
        incumbent = self.incumbent_values if run.number else run.values
        games = range(blocks * self.block_games)
        return per_opening([run.values[i] - incumbent[i] for i in games], self.combos)

    def advance(self, run: _TrialRun) -> None:
        """Look at every block whose games (the trial's and the incumbent's) are in; queue the next block."""
        blocks = self.config.blocks
        while run.ended is None:
            block = run.looked
            if not self.block_in(run.values, block):
                self.submit_through(run, block)
                return
            if run.number == 0:  # the incumbent plays every block at once and has no gain to look at
                run.looked += 1
                if run.looked == blocks:
                    self.incumbent_values = dict(run.values)
                    self.end(run, "complete")
                    for other in list(self.active.values()):
                        if other.number:
                            self.advance(other)
                continue
            if not self.block_in(self.incumbent_values, block):
                self.submit_through(run, block)
                return
            differences = self.differences(run, block + 1)
            run.gains.append(sum(differences) / len(differences))
            run.looked += 1
            if run.looked == blocks:
                self.end(run, "complete")
            elif self.config.pruner == "incumbent" and is_confidently_worse(differences, blocks - 1,
                                                                             self.config.p_threshold):
                self.end(run, "pruned")

    def submit_through(self, run: _TrialRun, block: int) -> None:
        """Queue the trial's games through ``block`` (the incumbent's all at once: every trial needs them)."""
        last = self.config.blocks - 1 if run.number == 0 else block
        if run.submitted > last:
            return
        indices = [i for i in range(run.submitted * self.block_games, (last + 1) * self.block_games)
                   if i not in run.values]
        run.submitted = last + 1
        if indices:
            self.pool.submit([run.specs[i] for i in indices], tag=self.tag(run.number), priority=run.number)

    def end(self, run: _TrialRun, how: str) -> None:
        """The trial's result is known; it is told when every trial before it has been (``tell_due``)."""
        run.ended = how
        if how != "complete":
            self.pool.cancel(self.tag(run.number))

    def tell(self, run: _TrialRun) -> None:
        """Tell Optuna the trial's end and close its run in the results database."""
        looked = run.looked if run.number else 0
        differences = self.differences(run, looked) if run.number else [0.0]
        interval = paired_interval(differences)
        for step, gain in enumerate(run.gains):
            run.trial.report(gain, step=step)
        run.trial.set_attr("games", len(run.values))
        run.trial.set_attr("gain", {"mean": interval.mean, "low": interval.low, "high": interval.high,
                                    "openings": len(differences)} if run.number else
                           {"mean": 0.0, "low": 0.0, "high": 0.0, "openings": len(self.openings)})
        value = interval.mean if run.number else 0.0
        if run.ended == "complete":
            self.study.tell_complete(run.trial, value)
        else:
            self.study.tell_pruned(run.trial)
        self.told[run.number] = (run.ended, value)
        del self.active[run.number]
        self.finished_runs[run.number] = run.run_id
        self.db.set_run_status(run.run_id, RUN_STATUS[run.ended])
        self.on_event(TrialEnded(run.number, run.ended, len(run.values), value))

    # -- the loop

    def on_results(self, items: list[tuple[Any, MatchResult]]) -> None:
        """Record a group of finished games in one transaction, then let each count for its trial.

        A game is recorded before it counts, so an interruption between the
        two leaves a recorded game that the resumed trial takes by its key.
        """
        mine = [(tag[2], result) for tag, result in items
                if isinstance(tag, tuple) and len(tag) == 3 and tag[:2] == ("trial", self.identity)]
        by_run: dict[int, list[MatchResult]] = {}
        for number, result in mine:
            run = self.active.get(number)
            run_id = run.run_id if run is not None else self.finished_runs.get(number)
            if run_id is not None:  # a game of a pruned trial that was already running is still recorded
                by_run.setdefault(run_id, []).append(result)
        self.db.record_runs(by_run)
        touched = set()
        for number, result in mine:
            self.games += 1
            self.played_s += result.duration_s
            run = self.active.get(number)
            if run is None or run.ended is not None:
                continue
            index = run.index.get(result.key)
            if index is None or index in run.values:
                continue
            run.values[index] = game_value(result, self.config.objective)
            touched.add(number)
        for number in sorted(touched):
            run = self.active.get(number)
            if run is not None:
                self.advance(run)
        self.tell_due()

    def play(self) -> None:
        """Take results until every trial of the budget is told."""
        group: list[tuple[Any, MatchResult]] = []
        self.tell_due()
        if len(self.told) >= self.target:
            return
        for tag, result in self.pool.as_completed():
            group.append((tag, result))
            if self.pool.ready() and len(group) < MAX_GROUP:
                continue
            group, taken = [], group
            self.on_results(taken)
            self.max_games_in_flight = max(self.max_games_in_flight, self.pool.pending())
            self.progress()
            if len(self.told) >= self.target:
                return
        raise ClusterError(f"the pool ran dry with trials {sorted(self.active)} unfinished")

    def progress(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last_progress < PROGRESS_EVERY_S:
            return
        self.last_progress = now
        complete = {n: v for n, (how, v) in self.told.items() if how == "complete" and v is not None}
        best = max(complete, key=lambda n: (complete[n], -n)) if complete else None
        self.on_event(TuningProgress(
            trials_done=len(self.told), trials_target=self.target,
            best_value=None if best is None else complete[best], best_trial=best,
            games=self.games, seconds=now - self.started, trials_in_flight=len(self.active),
            workers=self.pool.workers))

    def run(self) -> None:
        """Run trials until the budget is told; an interruption leaves ours running for the next driver."""
        self.started = time.monotonic()
        dead = self.study.take_lease(self.identity, self.grace_period)
        if dead is not None:
            note(f"study {self.config.name!r}: its driver {dead} is gone (no such process on this host); "
                 "taking over its trials now")
        with self.heartbeat:
            try:
                check_interrupted()  # a Ctrl-C that Python dropped (see harness.interrupts)
                self.resume()
                self.ask_due()
                self.progress(force=True)
                self.play()
                self.progress(force=True)
            except BaseException:
                for run in self.active.values():
                    self.pool.cancel(self.tag(run.number), running=True)  # a shared pool keeps nothing of ours
                    try:
                        self.db.set_run_status(run.run_id, "interrupted")
                    except Exception:  # noqa: BLE001 - the database may be what failed; the next driver resumes
                        continue
                raise
            finally:
                try:
                    self.study.release_lease(self.identity)
                except Exception:  # noqa: BLE001 - a lease left behind goes stale
                    pass


@contextmanager
def _resizes_as_events(pool: MatchPool, on_event: OnEvent) -> Iterator[None]:
    """While tuning, the pool's resizes reach the caller as ``PoolResized`` events."""
    previous = getattr(pool, "on_resize", None)
    pool.on_resize = lambda workers, before: on_event(PoolResized(workers, before))
    try:
        yield
    finally:
        pool.on_resize = previous


def tune(config: StudyFile, *, trials: int | None = None, workers: int | None = None,
         address: str | None = None, db_url: str | None = None, pool: MatchPool | None = None,
         select: bool = True, on_event: OnEvent = ignore, grace_period: int = 120,
         allow_engines: bool = False) -> TuneSummary:
    """Run (or resume) a study until it holds ``trials`` told trials, then race the best and confirm the winner.

    Args:
        config: the validated study file.
        trials: total trials the study should hold (default: the file's budget).
        workers: Ray workers of a local pool (ignored when ``pool`` is given);
            default every CPU of the machine, or of the cluster at ``address``.
            The outcome does not depend on it.
        address: a Ray cluster to join instead of starting a local one.
        db_url: results database URL, also the study's storage.
        pool: an open pool to use (tests share one).
        select: race the finalists, confirm the winner and save ``tuned:<study>`` with its verdict.
        on_event: called with progress values (``harness.tuning.events``).
        grace_period: seconds without a renewed lease after which another driver may take the study.
        allow_engines: tune or play against players that run a command
            (``external``, ``uci``); refused by default (see ``check_engines``).

    Raises:
        KeyboardInterrupt: interrupted; the same call resumes where it stopped.
        InvalidInput: another driver is running the study.
        DatabaseError: the results database or the study storage failed
            (read-only, full, unreachable); each result is written whole or
            not at all, and the study resumes.
    """
    from harness.cluster import using_pool
    from harness.db import open_database
    url = database_url(db_url)
    db = open_database(url)
    try:
        db.check_writable()  # a read-only database fails here, before Ray starts
        config = resolve_incumbent(config, db, url)
        opponents = check_engines(config, db, allow_engines)
    except BaseException:
        db.close()
        raise
    try:
        with stops_unwrapped(), using_pool(pool, workers, address) as active_pool, \
                _resizes_as_events(active_pool, on_event):
            active_pool.start()  # Ray reachable and the workers up before the study is written
            study = open_study(config, url)
            driver = Driver(config, study, db, active_pool, target=trials or config.trials,
                            opponents=opponents, on_event=on_event, grace_period=grace_period)
            driver.run()
            tuning_s = time.monotonic() - driver.started
            outcome, selection_games, selection_s = None, 0, 0.0
            if select:
                started = time.monotonic()
                outcome, selection_games = run_selection(config, db, url, active_pool, on_event, opponents)
                selection_s = time.monotonic() - started
            workers_now = active_pool.workers
        counts, best = study.counts(), study.best()
        busy = driver.played_s / (workers_now * tuning_s) if workers_now and tuning_s > 0 and driver.games else None
        return TuneSummary(
            study=study.name, trials_complete=counts["complete"], trials_pruned=counts["pruned"],
            games=driver.games, seconds=tuning_s,
            best_trial=None if best is None else best.number, best_value=None if best is None else best.value,
            best_params={} if best is None else best.params, best_spec=None if best is None else best.spec,
            outcome=outcome, selection_games=selection_games, selection_seconds=selection_s,
            reused_games=driver.reused, workers=workers_now, max_games_in_flight=driver.max_games_in_flight,
            busy=busy)
    except Exception as error:
        stopped = _stopped(error, url, f"harness tune {config.path}")
        if stopped is error:
            raise
        raise stopped from error
    finally:
        db.close()


def _stopped(error: Exception, url: str, command: str) -> Exception:
    """The error that stopped a study, as one ``HarnessError`` that says how to resume.

    Optuna's storage wraps SQLAlchemy's errors in its own; ``harness.db``
    recognises them (this package does not import SQLAlchemy). Bad input and
    errors of no known kind are returned unchanged.
    """
    from harness.db import foreign_database_error
    from harness.errors import with_resume
    failure = foreign_database_error(error, url) or error
    if not isinstance(failure, HarnessError) or isinstance(failure, InvalidInput):
        return error
    return with_resume(failure, command)
