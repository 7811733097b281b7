"""The driver: runs a study's trials over a Ray pool until the study holds its budget.

* Optuna's ask-and-tell runs in this process (through ``harness.tuning.adapter``),
  several trials in flight at once (TPE with the constant liar, so parallel
  trials do not all sample the same point). The matches of every trial are
  spread over the pool, tagged with the trial, and each result is recorded as
  it arrives, in one run per trial (``kind="study"``, the study, the trial).
* Work in flight follows the capacity: a new trial starts whenever fewer than
  ``GAMES_PER_WORKER`` games per live worker are queued or running, up to the
  study file's ``parallel`` when it sets one. The worker count is read from
  the started pool every time, so a pool that shrank (a lost node) or grew
  gets fewer or more trials at once (``should_start_trial``).
* Common random numbers: every trial plays the same tuning seeds in the same
  order, so trials are compared seed by seed. The trial reports one
  intermediate value per seed (WilcoxonPruner, the seed's index as the step)
  or one per rung (successive halving); a pruned trial's queued matches are
  cancelled. Matches are submitted one rung at a time, so the trials in
  flight share the pool instead of queueing behind each other, and older
  trials' games go first (the pool's priority), so trials finish in the order
  they started and the pruner soon has a best trial to compare with.
* Exactly once: a match is a pure function of its spec, so a trial first
  takes every game already recorded under its match keys (a retried or
  resumed trial, or one whose weights an earlier trial had) and plays only
  the rest; the run holds the recorded match, nothing is copied.
* Faults: Ctrl-C, SIGTERM or any error fails this driver's trials and
  enqueues their parameters again, so the same command resumes them. A
  driver killed outright leaves its trials RUNNING; their heartbeat (beaten
  from a thread, ``harness.tuning.heartbeat``) goes stale and the next driver
  fails and retries them.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from harness.errors import ClusterError, HarnessError, InvalidInput
from harness.interrupts import check as check_interrupted
from harness.interrupts import stops_unwrapped
from harness.match import MatchResult, match_key
from harness.tuning.adapter import Study, Trial, TrialTaken, open_study
from harness.tuning.events import OnEvent, PoolResized, TrialEnded, TuningProgress, ignore
from harness.tuning.heartbeat import Heartbeat
from harness.tuning.objectives import game_value, objective_value
from harness.tuning.studyfile import StudyFile, turns_label
from harness.tuning.validation import Validation, check_engines, database_url, run_validation

if TYPE_CHECKING:
    from harness.cluster import MatchPool
    from harness.db import Database

__all__ = ["Driver", "TuneSummary", "tune", "should_start_trial", "GAMES_PER_WORKER", "open_pool"]

WAIT_S = 1.0  # how often a driver with no trial of its own looks at the others' running trials
GAMES_PER_WORKER = 4  # games queued or running per worker below which another trial starts
PROGRESS_EVERY_S = 0.25
MAX_GROUP = 256  # games recorded in one transaction at most
RUN_STATUS = {"complete": "done", "pruned": "done", "interrupted": "interrupted"}


def should_start_trial(in_flight: int, pending_games: int, workers: int, parallel: int | None) -> bool:
    """The capacity rule: start another trial while the pool would otherwise run short of games.

    Args:
        in_flight: this driver's trials in flight.
        pending_games: games queued or running on the pool.
        workers: the pool's live workers now.
        parallel: the study file's upper bound on trials in flight, if any.
    """
    if parallel is not None and in_flight >= parallel:
        return False
    return in_flight == 0 or pending_games < GAMES_PER_WORKER * max(1, workers)


def run_name(study: str, trial: int) -> str:
    """The name of a trial's run in the results database."""
    return f"{study}/trial-{trial}"


@dataclass
class _TrialRun:
    """A trial in flight in this driver (mutable driver bookkeeping, never shared)."""

    trial: Trial
    spec: str
    run_id: int
    keys: list[str]
    values: dict[int, float] = field(default_factory=dict)  # seed index -> per-game value
    submitted: int = 0
    rung: int = 0

    @property
    def number(self) -> int:
        return self.trial.number


@dataclass(frozen=True)
class TuneSummary:
    """What a ``tune`` call did, and the study's state after it.

    ``games``/``seconds`` are the tuning phase's (games played now, not
    reused), ``validation_games``/``validation_seconds`` the validation's.
    """

    study: str
    trials_complete: int
    trials_pruned: int
    trials_failed: int
    games: int
    seconds: float
    best_trial: int | None
    best_value: float | None
    best_params: dict[str, float]
    best_spec: str | None
    validation: Validation | None = None
    validation_games: int = 0
    validation_seconds: float = 0.0
    reused_games: int = 0
    workers: int = 0
    max_trials_in_flight: int = 0
    max_games_in_flight: int = 0
    busy: float | None = None  # share of the workers' time spent playing tuning games

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (the validation as its verdict and intervals)."""
        data = asdict(self)
        if self.validation is not None:
            data["validation"] = self.validation.to_dict()
        return data


class Driver:
    """Runs one study's trials over a pool until the study has its budget of trials."""

    def __init__(self, config: StudyFile, study: Study, db: Database, pool: MatchPool, *, target: int,
                 parallel: int | None, opponents: tuple[str, ...], on_event: OnEvent = ignore) -> None:
        self.config = config
        self.study = study
        self.db = db
        self.pool = pool
        self.target = target
        self.parallel = parallel
        self.opponents = opponents  # resolved; they take turns by seed (``opponent_of``)
        self.on_event = on_event
        self.active: dict[int, _TrialRun] = {}
        self.finished_runs: dict[int, int] = {}
        self.seeds = list(config.tuning_seeds)[:config.games]
        self.index = {seed: i for i, seed in enumerate(self.seeds)}
        self.games = 0
        self.reused = 0
        self.played_s = 0.0
        self.max_trials_in_flight = 0
        self.max_games_in_flight = 0
        self.started = time.monotonic()
        self.last_progress = 0.0
        self.failed_seen = -1
        self.asked: Trial | None = None
        self.identity = f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"
        self.heartbeat = Heartbeat(study.beat, study.heartbeat_interval)

    def tag(self, number: int) -> tuple[str, str, int]:
        """The pool tag of a trial's matches: unique per driver, so shared pools never mix them up."""
        return ("trial", self.identity, number)

    # -- trial lifecycle

    def budget_open(self) -> bool:
        """Whether the study needs another trial started (counting every driver's)."""
        self.study.fail_stale()
        self.mark_interrupted_runs()
        counts = self.study.counts()
        return counts["complete"] + counts["pruned"] + counts["running"] < self.target

    def fill(self) -> None:
        """Start trials while the capacity rule wants more and the budget is not taken."""
        while should_start_trial(len(self.active), self.pool.pending(), self.pool.workers, self.parallel):
            if not self.budget_open():
                return
            self.start_trial()
        self.max_trials_in_flight = max(self.max_trials_in_flight, len(self.active))
        self.max_games_in_flight = max(self.max_games_in_flight, self.pool.pending())

    def start_trial(self) -> None:
        trial = self.study.ask()
        self.heartbeat.add(trial.storage_id)
        self.asked = trial  # until it is in ``active``, an interruption fails it from here
        try:
            # the spec carries 4 significant digits (readable, and finer than the games can tell apart)
            weights = {w.name: trial.suggest(w) for w in self.config.weights + self.config.params}
            spec = self.config.player_spec(weights)
            trial.set_attr("spec", spec)
            trial.set_attr("driver", self.identity)
            run_id = self.db.start_run(
                "study", self.config.game, {"study": self.config.name, "trial": trial.number, "player": spec,
                                            "game": self.config.games_label,
                                            "opponent": turns_label(self.opponents), "params": weights},
                name=run_name(self.config.name, trial.number), study=self.config.name, trial=trial.number)
            keys = [match_key(s) for s in self.config.matches(spec, self.opponents, self.seeds)]
            run = _TrialRun(trial, spec, run_id, keys)
            self.active[trial.number] = run
            self.asked = None
        except TrialTaken:
            self.asked = None
            self.heartbeat.discard(trial.storage_id)
            return
        try:
            self.reuse_recorded(run)
            self.advance(run)
        except TrialTaken:
            self.lose(run)

    def reuse_recorded(self, run: _TrialRun) -> None:
        """Take the games already recorded under this trial's match keys, in seed order.

        Whoever played them (a failed predecessor, an interrupted driver, an
        earlier trial with the same weights), the run now holds those matches:
        no replay, no copy.
        """
        recorded = {record.key: record for record in self.db.matches(keys=run.keys)}
        taken = []
        for index, key in enumerate(run.keys):
            if key not in recorded or run.number not in self.active:
                continue
            taken.append(key)
            self.take(run, index, recorded[key])
        self.db.hold(run.run_id, taken)
        self.reused += len(taken)

    def mark_interrupted_runs(self) -> None:
        """Runs of trials another driver left behind (now failed) are marked interrupted."""
        failed = self.study.numbers("fail")
        if len(failed) == self.failed_seen:
            return
        self.failed_seen = len(failed)
        for number in failed:
            run = self.db.run(run_name(self.config.name, number))
            if run is not None and run.status == "running":
                self.db.set_run_status(run.id, "interrupted")

    def close_finished_runs(self) -> None:
        """A driver stopped between telling Optuna a trial's end and closing its run (two stores, two
        transactions) left the run running; on resume such runs are marked done."""
        finished = {run_name(self.config.name, n) for n in self.study.numbers("complete") + self.study.numbers("pruned")}
        for run in self.db.runs(kind="study"):
            if run.status == "running" and run.name in finished:
                self.db.set_run_status(run.id, "done")

    def submit_until(self, run: _TrialRun, count: int) -> None:
        indices = [i for i in range(run.submitted, count) if i not in run.values]
        run.submitted = max(run.submitted, count)
        if indices:
            specs = self.config.matches(run.spec, self.opponents, (self.seeds[i] for i in indices))
            self.pool.submit(specs, tag=self.tag(run.number), priority=run.number)

    def take(self, run: _TrialRun, index: int, result: MatchResult) -> bool:
        """Take one game's result; True when the trial was pruned by it."""
        value = game_value(result, self.config.objective)
        run.values[index] = value
        if self.config.pruner == "wilcoxon":
            run.trial.report(value, step=index)
            if len(run.values) < self.config.games and run.trial.should_prune():  # all in: complete
                self.finish(run, "pruned")
                return True
        return False

    def advance(self, run: _TrialRun) -> None:
        """Close every rung whose games are all in, then queue the next rung (or tell the result)."""
        rungs = self.config.rungs
        while run.number in self.active:
            boundary = rungs[run.rung]
            if any(i not in run.values for i in range(boundary)):
                self.submit_until(run, boundary)
                return
            if run.rung == len(rungs) - 1:
                self.finish(run, "complete")
                return
            if self.config.pruner == "halving":
                run.trial.report(objective_value([run.values[i] for i in range(boundary)],
                                                 self.config.objective), step=boundary)
                if run.trial.should_prune():
                    self.finish(run, "pruned")
                    return
            run.rung += 1

    def finish(self, run: _TrialRun, how: str) -> None:
        """Tell Optuna the trial's end and close its run in the results database."""
        del self.active[run.number]
        self.finished_runs[run.number] = run.run_id
        self.heartbeat.discard(run.trial.storage_id)
        if how != "complete":
            self.pool.cancel(self.tag(run.number))
        values = list(run.values.values())
        mean = sum(values) / len(values) if values else None
        run.trial.set_attr("games", len(values))
        if mean is not None:
            run.trial.set_attr("mean", mean)
        if how == "complete":
            self.study.tell_complete(run.trial, objective_value(values, self.config.objective))
        elif how == "pruned":
            self.study.tell_pruned(run.trial)
        else:
            self.study.tell_failed_and_retry(run.trial)
        self.db.set_run_status(run.run_id, RUN_STATUS[how])
        self.on_event(TrialEnded(run.number, how, len(values), mean))

    def lose(self, run: _TrialRun) -> None:
        """Drop a trial someone else finished: another driver took the same enqueued trial (SQLite
        has no row locks) or failed it as stale. The matches its run holds stay recorded."""
        self.active.pop(run.number, None)
        self.heartbeat.discard(run.trial.storage_id)
        self.finished_runs[run.number] = run.run_id
        self.pool.cancel(self.tag(run.number))
        self.db.set_run_status(run.run_id, "interrupted")

    # -- the loop

    def on_results(self, items: list[tuple[Any, MatchResult]]) -> None:
        """Record a group of finished games in one transaction, then let each count for its trial.

        A game is recorded before it counts, so an interruption between the
        two leaves a recorded game that the resumed trial takes by its key.
        """
        mine = [(tag[2], result) for tag, result in items
                if isinstance(tag, tuple) and len(tag) == 3 and tag[:2] == ("trial", self.identity)]
        # others are stragglers of some other work on a shared pool
        by_run: dict[int, list[MatchResult]] = {}
        for number, result in mine:
            run = self.active.get(number)
            run_id = run.run_id if run is not None else self.finished_runs.get(number)
            # a match of a trial already pruned that was running when it was cancelled is still recorded
            if run_id is not None:
                by_run.setdefault(run_id, []).append(result)
        self.db.record_runs(by_run)
        for number, result in mine:
            self.games += 1
            self.played_s += result.duration_s
            run = self.active.get(number)
            if run is None:
                continue
            index = self.index[result.seed]
            if index in run.values:
                continue
            try:
                if not self.take(run, index, result):
                    self.advance(run)
            except TrialTaken:
                self.lose(run)

    def play(self) -> None:
        """Take results until this driver has no trial in flight.

        The results a finished batch brings are gathered (``pool.ready()``)
        and recorded together: one commit per batch, not per game.
        """
        group: list[tuple[Any, MatchResult]] = []
        for tag, result in self.pool.as_completed():
            group.append((tag, result))
            if self.pool.ready() and len(group) < MAX_GROUP:
                continue
            group, taken = [], group
            self.on_results(taken)
            self.fill()
            self.progress()
            if not self.active:
                return
        raise ClusterError(f"the pool ran dry with trials {sorted(self.active)} unfinished")

    def progress(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last_progress < PROGRESS_EVERY_S:
            return
        self.last_progress = now
        counts = self.study.counts()
        best = self.study.best()
        self.on_event(TuningProgress(
            trials_done=counts["complete"] + counts["pruned"], trials_target=self.target,
            best_value=None if best is None else best.value, best_trial=None if best is None else best.number,
            games=self.games, seconds=now - self.started, trials_in_flight=len(self.active),
            workers=self.pool.workers))

    def run(self) -> None:
        """Run trials until the budget is taken; on any interruption fail and re-enqueue ours.

        When the budget is taken but trials of other drivers are still RUNNING,
        wait for them: they finish, or their heartbeat goes stale (a killed
        driver) and they come back as enqueued trials for this driver to run.
        """
        self.started = time.monotonic()
        self.close_finished_runs()
        with self.heartbeat:
            try:
                while True:
                    check_interrupted()  # a Ctrl-C that Python dropped (see harness.interrupts)
                    self.fill()
                    self.progress(force=True)
                    if self.active:
                        self.play()
                    elif self.study.counts()["running"]:
                        time.sleep(WAIT_S)
                    else:
                        return
            except BaseException:
                if self.asked is not None:  # interrupted while starting a trial: retry it at once
                    try:
                        self.study.tell_failed_and_retry(self.asked)
                    except Exception:  # noqa: BLE001 - left RUNNING, its heartbeat goes stale
                        pass
                for run in list(self.active.values()):
                    try:
                        self.finish(run, "interrupted")
                    except Exception:  # noqa: BLE001 - the storage may be what failed; stale trials recover
                        continue
                raise


@contextmanager
def open_pool(pool: MatchPool | None, workers: int | None, address: str | None) -> Iterator[MatchPool]:
    """The given pool, or a new one: every CPU of the machine or of the joined cluster by default,
    and for one local worker the in-process pool (no Ray to start)."""
    if pool is not None:
        yield pool
        return
    from harness.cluster import open_pool as new_pool
    with new_pool(workers=workers, address=address) as own:
        yield own


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
         validate_best: bool = True, on_event: OnEvent = ignore, grace_period: int = 120,
         allow_engines: bool = False) -> TuneSummary:
    """Run (or resume) a study until it holds ``trials`` finished trials, then validate the best.

    Args:
        config: the validated study file.
        trials: total trials the study should hold (default: the file's budget).
        workers: Ray workers of a local pool (ignored when ``pool`` is given);
            default every CPU of the machine, or of the cluster at ``address``.
        address: a Ray cluster to join instead of starting a local one.
        db_url: results database URL, also the study's storage.
        pool: an open pool to use (tests share one).
        validate_best: play the validation seeds at the end and save ``tuned:<study>``.
        on_event: called with progress values (``harness.tuning.events``).
        grace_period: seconds without a heartbeat after which a RUNNING trial
            counts as left behind by a killed driver.
        allow_engines: tune or play against players that run a command
            (``external``, ``uci``); refused by default (see ``check_engines``).

    Returns:
        The summary, with the validation when it ran.

    Raises:
        KeyboardInterrupt: interrupted; this driver's trials were failed and
            enqueued again, so the same call resumes them.
        DatabaseError: the results database or the study storage failed
            (read-only, full, unreachable); each result is written whole or
            not at all, and the study resumes.
    """
    from harness.db import open_database
    url = database_url(db_url)
    db = open_database(url)
    try:
        db.check_writable()  # a read-only database fails here, before Ray starts
        opponents = check_engines(config, db, allow_engines)
    except BaseException:
        db.close()
        raise
    try:
        with stops_unwrapped(), open_pool(pool, workers, address) as active_pool, \
                _resizes_as_events(active_pool, on_event):
            active_pool.start()  # Ray reachable and the workers up before the study is written
            study = open_study(config, url, grace_period=grace_period)
            driver = Driver(config, study, db, active_pool, target=trials or config.trials,
                            parallel=config.parallel, opponents=opponents, on_event=on_event)
            driver.run()
            tuning_s = time.monotonic() - driver.started
            validation, validation_games, validation_s = None, 0, 0.0
            if validate_best and study.best() is not None:
                started = time.monotonic()
                validation, validation_games = run_validation(config, db, url, active_pool, on_event, opponents)
                validation_s = time.monotonic() - started
            workers_now = active_pool.workers
        counts, best = study.counts(), study.best()
        busy = driver.played_s / (workers_now * tuning_s) if workers_now and tuning_s > 0 and driver.games else None
        return TuneSummary(
            study=study.name, trials_complete=counts["complete"], trials_pruned=counts["pruned"],
            trials_failed=counts["fail"], games=driver.games, seconds=tuning_s,
            best_trial=None if best is None else best.number, best_value=None if best is None else best.value,
            best_params={} if best is None else best.params, best_spec=None if best is None else best.spec,
            validation=validation, validation_games=validation_games, validation_seconds=validation_s,
            reused_games=driver.reused, workers=workers_now, max_trials_in_flight=driver.max_trials_in_flight,
            max_games_in_flight=driver.max_games_in_flight, busy=busy)
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
