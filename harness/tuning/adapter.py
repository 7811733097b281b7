"""The one Optuna adapter: every Optuna call of the harness goes through this module.

Why one module: the driver needs a few things Optuna offers only at the edge
of its public API (the heartbeat of an ask-and-tell trial, the retry of a
stale one, the storage id behind a trial number). Keeping them here means an
Optuna upgrade breaks in one place, with a test per call
(``tests/tuning/test_adapter.py``). Nothing here reaches into private
attributes: the storage is the one this module creates, and a trial's
storage id comes from the storage's own lookup by study and number.

Storage errors (a read-only or full database, a lost server) come out of
Optuna as SQLAlchemy errors; they are translated once, here, by the results
database's own translation (the storage is that database), into a
``DatabaseError`` with the URL's password masked.
"""

from __future__ import annotations

import random
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

import optuna
from optuna.storages import RDBStorage, RetryHeartbeatStaleTrialCallback, fail_stale_trials
from optuna.trial import TrialState

from harness.errors import DatabaseError, HarnessError, InvalidInput, StudyFileError
from harness.tuning.studyfile import StudyFile, WeightRange

__all__ = ["Study", "Trial", "BestTrial", "TrialTaken", "open_study", "load_study", "study_names",
           "study_figures", "FINISHED_STATES"]

STATES = ("complete", "pruned", "fail", "running", "waiting")
FINISHED_STATES = ("complete", "pruned")
_STATE = {TrialState.COMPLETE: "complete", TrialState.PRUNED: "pruned", TrialState.FAIL: "fail",
          TrialState.RUNNING: "running", TrialState.WAITING: "waiting"}
_T = TypeVar("_T")
BEATING = "beating"  # a trial's user attribute: its first heartbeat is recorded


class TrialTaken(HarnessError):
    """The trial was finished by someone else (another driver took it, or failed it as stale)."""


@dataclass(frozen=True)
class BestTrial:
    """The best finished trial of a study, as plain values."""

    number: int
    value: float
    params: dict[str, float]
    spec: str | None


def _translating(url: str) -> Callable[[Callable[[], _T]], _T]:
    def call(action: Callable[[], _T]) -> _T:
        try:
            return action()
        except optuna.exceptions.UpdateFinishedTrialError as error:
            raise TrialTaken(str(error)) from error
        except ValueError as error:
            if str(error).startswith("Cannot tell a "):  # tell() on a finished trial (Optuna 4-5 wording)
                raise TrialTaken(str(error)) from error
            raise
        except optuna.exceptions.StorageInternalError as error:  # a failed commit, its cause inside
            raise _storage_error(url, error.__cause__ or error) from error
        except Exception as error:
            if type(error).__module__.startswith("sqlalchemy"):
                raise _storage_error(url, error) from error
            raise
    return call


def _storage_error(url: str, error: Exception) -> DatabaseError:
    """The storage is the results database: its errors read as the results database's own do."""
    from harness.db import foreign_database_error, mask_url
    translated = foreign_database_error(error, url)
    if translated is not None:
        return translated
    text = " ".join(str(error).split())[:300] or type(error).__name__
    return DatabaseError(f"database {mask_url(url)}: {text}")


class Trial:
    """A live trial of this driver: suggest its weights, report per game, ask whether to prune."""

    def __init__(self, study: Study, trial: optuna.Trial) -> None:
        self._study = study
        self._trial = trial
        self.number: int = trial.number
        self.storage_id: int = study._trial_id(trial.number)

    def suggest(self, weight: WeightRange) -> float:
        """This trial's value of one searched weight or parameter (a categorical for a list of choices).

        Four significant digits (readable in a spec, and finer than the games
        can tell apart); a whole number for an integer parameter.
        """
        if weight.choices is not None:
            value = self._study._call(lambda: self._trial.suggest_categorical(weight.name, list(weight.choices)))
            if weight.integer:
                return int(value)
        elif weight.integer:
            return self._study._call(lambda: self._trial.suggest_int(weight.name, int(weight.low), int(weight.high),
                                                                     log=weight.log))
        else:
            value = self._study._call(lambda: self._trial.suggest_float(weight.name, weight.low, weight.high,
                                                                        log=weight.log))
        return float(f"{float(value):.4g}")

    def report(self, value: float, step: int) -> None:
        """An intermediate value (one per game for the Wilcoxon pruner, one per rung for halving)."""
        self._study._call(lambda: self._trial.report(value, step=step))

    def should_prune(self) -> bool:
        """The pruner's verdict on the values reported so far."""
        return bool(self._study._call(self._trial.should_prune))

    def set_attr(self, key: str, value: Any) -> None:
        """Store a JSON value with the trial (spec, driver, games, mean)."""
        self._study._call(lambda: self._trial.set_user_attr(key, value))

    @property
    def params(self) -> dict[str, Any]:
        """The parameters suggested so far (an enqueued trial's are fixed before)."""
        return dict(self._trial.params)


class Study:
    """A study in the results database's Optuna storage; see ``open_study`` and ``load_study``."""

    def __init__(self, study: optuna.Study, storage: RDBStorage, url: str) -> None:
        self._study = study
        self._storage = storage
        self._call = _translating(url)
        self.name: str = study.study_name
        self._id: int = self._call(lambda: storage.get_study_id_from_name(self.name))

    def _trial_id(self, number: int) -> int:
        return self._call(lambda: self._storage.get_trial_id_from_study_id_trial_number(self._id, number))

    # -- attributes

    @property
    def user_attrs(self) -> dict[str, Any]:
        """The study's stored attributes (study file, fingerprint, game)."""
        return dict(self._call(lambda: self._study.user_attrs))

    def set_attr(self, key: str, value: Any) -> None:
        """Store a JSON value with the study."""
        self._call(lambda: self._study.set_user_attr(key, value))

    def enqueue(self, params: dict[str, float], attrs: dict[str, Any] | None = None) -> None:
        """Queue a trial with fixed parameters: the next ``ask`` of any driver takes it."""
        self._call(lambda: self._study.enqueue_trial(params, user_attrs=attrs))

    # -- the trial lifecycle

    def ask(self) -> Trial:
        """A new trial (an enqueued one first), its heartbeat recorded at once, then marked as beating.

        The mark comes after the first heartbeat, so a running trial without
        it is one whose driver died in between (see ``fail_stale``).
        """
        trial = Trial(self, self._call(self._study.ask))
        self.beat([trial.storage_id])
        trial.set_attr(BEATING, True)
        return trial

    def tell_complete(self, trial: Trial, value: float) -> None:
        """Finish a trial with its objective value.

        Raises:
            TrialTaken: someone else finished it already.
        """
        self._call(lambda: self._study.tell(trial._trial, value))

    def tell_pruned(self, trial: Trial) -> None:
        """Finish a trial as pruned (its intermediate values stay).

        Raises:
            TrialTaken: someone else finished it already.
        """
        self._call(lambda: self._study.tell(trial._trial, state=TrialState.PRUNED))

    def tell_failed_and_retry(self, trial: Trial) -> None:
        """Fail an interrupted trial and enqueue its parameters again, as a stale trial's are.

        Raises:
            TrialTaken: someone else finished it already.
        """
        self._fail_and_retry(trial.number)

    def _fail_and_retry(self, number: int) -> None:
        self._call(lambda: self._study.tell(number, state=TrialState.FAIL))
        callback = self._storage.get_heartbeat_stale_trial_callback()
        if callback is not None:
            storage_id = self._trial_id(number)
            self._call(lambda: callback(self._study, self._storage.get_trial(storage_id)))

    def retry_history(self, trial: Trial) -> list[int]:
        """The numbers of the failed trials this one retries, oldest first."""
        frozen = self._call(lambda: self._storage.get_trial(trial.storage_id))
        return list(RetryHeartbeatStaleTrialCallback.retry_history(frozen))

    # -- heartbeats

    @property
    def heartbeat_interval(self) -> float:
        """Seconds between two heartbeats of a running trial."""
        return float(self._storage.get_heartbeat_interval() or 60)

    def beat(self, storage_ids: list[int]) -> None:
        """Record a heartbeat for trials of this driver (safe to call from another thread)."""
        for storage_id in storage_ids:
            self._call(lambda: self._storage.record_heartbeat(storage_id))

    def fail_stale(self) -> None:
        """Fail the running trials whose heartbeat is older than the grace period, and retry them.

        Also the running trials that never beat and started more than the
        grace period ago: a driver killed between Optuna's ``ask`` and its
        first heartbeat leaves one, which Optuna's own check skips (it only
        looks at trials with a heartbeat), and every driver would wait for
        it forever once the rest of the budget is taken.
        """
        self._call(lambda: fail_stale_trials(self._study))
        grace = self._storage.grace_period or 2 * self.heartbeat_interval  # as Optuna's own check
        cutoff = datetime.now() - timedelta(seconds=grace)
        running = self._call(lambda: self._study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)))
        for frozen in running:
            if BEATING in frozen.user_attrs or frozen.datetime_start is None or frozen.datetime_start > cutoff:
                continue
            try:
                self._fail_and_retry(frozen.number)
            except TrialTaken:  # another driver failed it first, or its own driver finished it
                continue

    # -- reading

    def counts(self) -> dict[str, int]:
        """Trials per state (complete, pruned, fail, running, waiting)."""
        trials = self._call(lambda: self._study.get_trials(deepcopy=False))
        found = {state: 0 for state in STATES}
        for trial in trials:
            found[_STATE[trial.state]] += 1
        return found

    def numbers(self, state: str) -> list[int]:
        """The numbers of the trials in one state."""
        wanted = next(key for key, name in _STATE.items() if name == state)
        return [t.number for t in self._call(lambda: self._study.get_trials(deepcopy=False, states=(wanted,)))]

    def best(self) -> BestTrial | None:
        """The best complete trial, or None before the first one."""
        try:
            best = self._call(lambda: self._study.best_trial)
        except ValueError:
            return None
        return BestTrial(best.number, float(best.value), dict(best.params), best.user_attrs.get("spec"))

    def trials(self) -> list[dict[str, Any]]:
        """Every trial as plain data (number, state, value, games, params, intermediate, retry_of, driver)."""
        return [{"number": t.number, "state": _STATE.get(t.state, t.state.name.lower()), "value": t.value,
                 "games": t.user_attrs.get("games"), "params": dict(t.params),
                 "intermediate": dict(t.intermediate_values),
                 "retry_of": RetryHeartbeatStaleTrialCallback.retried_trial_number(t),
                 "driver": t.user_attrs.get("driver")}
                for t in self._call(lambda: self._study.get_trials(deepcopy=False))]


# ---------------------------------------------------------------- opening


def _storage(url: str, grace_period: int) -> RDBStorage:
    heartbeat = max(1, grace_period // 4)
    # the results database waits up to a minute for SQLite's write lock; so does the study
    engine = {"connect_args": {"timeout": 60}} if url.startswith("sqlite") else {"pool_pre_ping": True}
    for attempt in range(3):
        try:
            return RDBStorage(url, engine_kwargs=engine, heartbeat_interval=heartbeat, grace_period=grace_period,
                              heartbeat_stale_trial_callback=RetryHeartbeatStaleTrialCallback(max_retry=3))
        except Exception as error:  # SQLAlchemy errors through Optuna: translated once, here
            if attempt < 2:  # two drivers creating Optuna's tables at once: the loser finds them made
                time.sleep(0.5 * (attempt + 1))
                continue
            from harness.db import mask_url
            raise DatabaseError(f"cannot open the study storage at {mask_url(url)}: "
                                f"{type(error).__name__}: {str(error).splitlines()[0][:200]}") from error
    raise AssertionError("unreachable")


def _quiet() -> None:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    # this driver beats the heartbeat itself (ask-and-tell), which Optuna warns is unusual
    warnings.filterwarnings("ignore", message="Heartbeat of storage is supposed to be used")


def _sampler(config: StudyFile, seed: int) -> optuna.samplers.BaseSampler:
    if config.sampler == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    if config.sampler == "cmaes":
        # starts from the middle of the ranges (x0 is deprecated); the baseline trial holds the defaults
        return optuna.samplers.CmaEsSampler(seed=seed, warn_independent_sampling=False)
    startup = max(2, min(10, config.trials // 3))
    return optuna.samplers.TPESampler(seed=seed, constant_liar=True, n_startup_trials=startup)


def _pruner(config: StudyFile) -> optuna.pruners.BasePruner:
    if config.pruner == "wilcoxon":
        return optuna.pruners.WilcoxonPruner(p_threshold=config.p_threshold, n_startup_steps=config.rungs[0])
    if config.pruner == "halving" and len(config.rungs) > 1:
        return optuna.pruners.SuccessiveHalvingPruner(
            min_resource=config.rungs[0], reduction_factor=config.rungs[1] // config.rungs[0])
    return optuna.pruners.NopPruner()


def open_study(config: StudyFile, url: str, *, grace_period: int = 120) -> Study:
    """Create the study in the database, or load it to resume.

    The driver that creates the study enqueues the default weights as its first
    trial and seeds the sampler with the study file's seed; a driver that joins
    or resumes one seeds it afresh, so two drivers do not propose the same
    points (the order in which parallel trials finish is not reproducible
    anyway).

    Raises:
        StudyFileError: the stored study was made from a different search space.
        DatabaseError: the storage cannot be opened or written.
    """
    _quiet()
    storage = _storage(url, grace_period)
    call = _translating(url)
    direction = optuna.study.StudyDirection.MAXIMIZE
    try:
        call(lambda: optuna.create_study(storage=storage, study_name=config.name, direction=direction))
        created = True
    except optuna.exceptions.DuplicatedStudyError:
        created = False
    seed = config.seed if created else random.SystemRandom().randrange(2**31)
    study = Study(call(lambda: optuna.load_study(study_name=config.name, storage=storage,
                                                 sampler=_sampler(config, seed), pruner=_pruner(config))),
                  storage, url)
    if created or "fingerprint" not in study.user_attrs:
        _finish_creation(study, config)
    elif study.user_attrs["fingerprint"] != config.fingerprint():
        raise StudyFileError(f"{config.path}: name: study {config.name!r} in the database was made from "
                             "a different game, player, search space, objective or seeds; give the "
                             "changed study a new name")
    return study


def _finish_creation(study: Study, config: StudyFile) -> None:
    """Give a new study its baseline trial and its study file, the fingerprint last.

    Optuna writes each of these in its own transaction, so a driver stopped
    in between (a crash, a full disk) leaves a study without them; the
    fingerprint marks a finished creation, and the next driver to open the
    study finishes one that lacks it (the baseline only if no trial exists).
    """
    if not study.trials():
        study.enqueue(config.default_weights(), {"baseline": True})
    study.set_attr("study_file", config.text)
    study.set_attr("game", config.games_label)
    study.set_attr("fingerprint", config.fingerprint())


def study_names(url: str) -> list[str]:
    """The names of every study in the database."""
    _quiet()
    return list(_translating(url)(lambda: optuna.get_all_study_names(_storage(url, 120))))


def load_study(name: str, url: str) -> Study:
    """A study from the database, to read (no sampler or pruner of its own).

    Raises:
        InvalidInput: no study of that name in the database (the message lists them).
    """
    from harness.db import stored_tables
    _quiet()
    try:
        tables: set[str] | None = stored_tables(url)
    except DatabaseError:  # not readable as a results database (a read-only URI): Optuna's storage says
        tables = None
    if tables is not None and "studies" not in tables:  # Optuna's storage would create its tables
        raise InvalidInput(f"no study {name!r} in the database; known studies: none "
                           "(run: harness tune STUDY.toml)")
    storage = _storage(url, 120)
    call = _translating(url)
    try:
        return Study(call(lambda: optuna.load_study(study_name=name, storage=storage)), storage, url)
    except KeyError:
        known = call(lambda: optuna.get_all_study_names(storage))
        raise InvalidInput(f"no study {name!r} in the database; known studies: "
                           f"{', '.join(known) or 'none'} (harness studies lists them; harness tune STUDY.toml "
                           "makes one)") from None


def study_figures(name: str, url: str) -> list[tuple[str, Any]]:
    """Optuna's own plots of a stored study: (title, plotly figure) pairs for the report.

    Parameter importances need at least two complete trials with varied
    parameters; they are left out (with a note in the title list) otherwise.
    """
    from optuna import visualization
    study = load_study(name, url)._study
    figures: list[tuple[str, Any]] = [("Optimisation history", visualization.plot_optimization_history(study))]
    try:
        with warnings.catch_warnings():  # few trials: PED-ANOVA warns that importances come out equal
            warnings.simplefilter("ignore")
            evaluator = optuna.importance.PedAnovaImportanceEvaluator()
            figures.append(("Parameter importances",
                            visualization.plot_param_importances(study, evaluator=evaluator)))
    except (ValueError, RuntimeError) as error:
        figures.append((f"Parameter importances unavailable: {error}", None))
    figures.append(("Weights tried (slice)", visualization.plot_slice(study)))
    figures.append(("Intermediate values", visualization.plot_intermediate_values(study)))
    return figures

