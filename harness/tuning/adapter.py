"""The one Optuna adapter: every Optuna call of the harness goes through this module.

Why one module: the driver needs a few things Optuna offers only at the edge
of its public API (a sampler seeded per trial, a running trial re-attached
after a resume, the storage id behind a trial number). Keeping them here means
an Optuna upgrade breaks in one place, with a test per call
(``tests/tuning/test_tuning_adapter.py``). Nothing here reaches into private
attributes: the storage is the one this module creates, and a trial's
storage id comes from the storage's own lookup by study and number.

Storage errors (a read-only or full database, a lost server) come out of
Optuna as SQLAlchemy errors; they are translated once, here, by the results
database's own translation (the storage is that database), into a
``DatabaseError`` with the URL's password masked.
"""

from __future__ import annotations

import os
import socket
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import optuna
from optuna.storages import RDBStorage
from optuna.trial import TrialState

from harness.errors import DatabaseError, HarnessError, InvalidInput, StudyFileError
from harness.files import is_running
from harness.tuning.studyfile import StudyFile, WeightRange

__all__ = ["Study", "Trial", "BestTrial", "TrialTaken", "open_study", "load_study", "study_names",
           "study_figures", "FINISHED_STATES"]

STATES = ("complete", "pruned", "fail", "running", "waiting")
FINISHED_STATES = ("complete", "pruned")
_STATE = {TrialState.COMPLETE: "complete", TrialState.PRUNED: "pruned", TrialState.FAIL: "fail",
          TrialState.RUNNING: "running", TrialState.WAITING: "waiting"}
_T = TypeVar("_T")


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
        """An intermediate value: the trial's gain after block ``step`` (a step reported before is kept)."""
        with warnings.catch_warnings():  # a resumed trial reports its looks again; Optuna keeps the first
            warnings.simplefilter("ignore")
            self._study._call(lambda: self._trial.report(value, step=step))

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
        """Queue a trial with fixed parameters: the next ``ask`` takes it."""
        self._call(lambda: self._study.enqueue_trial(params, user_attrs=attrs, skip_if_exists=False))

    # -- the trial lifecycle

    def ask(self, config: StudyFile, number: int) -> Trial:
        """Trial ``number``'s live handle, its sampler seeded by the study's seed and the number alone.

        Optuna's samplers keep their random state in the process; a sampler
        seeded afresh for every trial proposes the same point for the same
        stored history, whatever process asks and after any resume.

        Raises:
            TrialTaken: the next trial Optuna numbers is not ``number`` (another driver asked one).
        """
        self._study.sampler = _sampler(config, _trial_seed(config.seed, number))
        trial = Trial(self, self._call(self._study.ask))
        if trial.number != number:
            raise TrialTaken(f"study {self.name!r}: asked for trial {number}, Optuna gave trial {trial.number}; "
                             "is another driver running this study?")
        return trial

    def running(self) -> list[Trial]:
        """The trials asked and not yet told (a stopped driver's), re-attached to this process in order."""
        frozen = self._call(lambda: self._study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)))
        return [Trial(self, optuna.trial.Trial(self._study, self._trial_id(t.number)))
                for t in sorted(frozen, key=lambda t: t.number)]

    def params_of(self, number: int) -> dict[str, Any]:
        """The parameters a trial was given."""
        return dict(self._call(lambda: self._storage.get_trial(self._trial_id(number))).params)

    def tell_complete(self, trial: Trial, value: float) -> None:
        """Finish a trial with its value (its gain over the incumbent).

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

    # -- the lease: one driver at a time

    def take_lease(self, driver: str, grace_s: float) -> str | None:
        """Make ``driver`` the study's one driver, unless another's lease was renewed within ``grace_s``.

        A study's trials are asked and told in a fixed order so that its
        outcome does not depend on timing; two drivers would interleave. A
        killed driver's lease goes stale and the next one takes over; a
        driver known to be dead (its process gone from this host) is taken
        over at once, its trials with it.

        Returns:
            The driver whose live-looking lease was taken over because it is known dead, else None.

        Raises:
            InvalidInput: another driver holds a live lease (the message says when it was renewed, and
                until when to wait if that driver was killed on another machine).
        """
        lease = self.user_attrs.get("lease")
        now = time.time()
        fresh = bool(lease) and lease.get("driver") != driver and now - float(lease.get("beat", 0)) < grace_s
        if fresh and not _gone(lease["driver"]):
            age = now - float(lease["beat"])
            until = time.strftime("%H:%M:%S", time.localtime(float(lease["beat"]) + grace_s))
            raise InvalidInput(f"study {self.name!r} is being run by another driver ({lease['driver']}, alive "
                               f"{age:.0f}s ago); a study has one driver at a time (scale out with --address), "
                               f"or if that driver was killed, run this again after {until} "
                               f"(in {grace_s - age:.0f}s), when its lease goes stale")
        self.set_attr("lease", {"driver": driver, "beat": now})
        _DRIVING.add(driver)
        return lease["driver"] if fresh else None

    def renew_lease(self, driver: str) -> None:
        """Renew this driver's lease (from the heartbeat thread)."""
        self.set_attr("lease", {"driver": driver, "beat": time.time()})

    def release_lease(self, driver: str) -> None:
        """Give the lease up, so the next driver need not wait (and this process knows it stopped, even when
        the database that holds the lease has failed)."""
        _DRIVING.discard(driver)
        if (self.user_attrs.get("lease") or {}).get("driver") == driver:
            self.set_attr("lease", {})

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

    def told(self) -> dict[int, tuple[str, float | None]]:
        """Every finished trial: number -> (complete or pruned, its value; a pruned trial's last reported)."""
        found = {}
        for t in self._call(lambda: self._study.get_trials(deepcopy=False,
                                                           states=(TrialState.COMPLETE, TrialState.PRUNED))):
            if t.state == TrialState.COMPLETE:
                found[t.number] = ("complete", float(t.value))
            else:
                last = t.intermediate_values[max(t.intermediate_values)] if t.intermediate_values else None
                found[t.number] = ("pruned", last)
        return found

    def attrs_of(self, number: int) -> dict[str, Any]:
        """A trial's stored attributes (spec, gain, openings)."""
        return dict(self._call(lambda: self._storage.get_trial(self._trial_id(number))).user_attrs)

    def best(self) -> BestTrial | None:
        """The best complete trial, or None before the first one."""
        try:
            best = self._call(lambda: self._study.best_trial)
        except ValueError:
            return None
        return BestTrial(best.number, float(best.value), dict(best.params), best.user_attrs.get("spec"))

    def trials(self) -> list[dict[str, Any]]:
        """Every trial as plain data (number, state, value, games, params, intermediate, spec, gain)."""
        return [{"number": t.number, "state": _STATE.get(t.state, t.state.name.lower()), "value": t.value,
                 "games": t.user_attrs.get("games"), "params": dict(t.params),
                 "intermediate": dict(t.intermediate_values), "spec": t.user_attrs.get("spec"),
                 "gain": t.user_attrs.get("gain")}
                for t in self._call(lambda: self._study.get_trials(deepcopy=False))]


# ---------------------------------------------------------------- opening


_DRIVING: set[str] = set()  # the drivers of this process that hold a lease now


def _gone(driver: str) -> bool:
    """Whether a lease's driver (``host:pid:...``) is known to have stopped: a driver of this process that
    gave its lease up (the database may have failed before it could say so), or a process of this host that
    no longer runs. A killed driver's study is taken over at once on its own machine, after the grace
    period elsewhere."""
    host, _, rest = driver.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        return driver not in _DRIVING
    return not is_running(int(pid))


def _storage(url: str, read_only: bool = False) -> RDBStorage:
    """Optuna's storage in the results database; ``read_only`` for commands that only read a study."""
    from harness.db import read_only_url
    # the results database waits up to a minute for SQLite's write lock; so does the study
    engine = {"connect_args": {"timeout": 60}} if url.startswith("sqlite") else {"pool_pre_ping": True}
    for attempt in range(3):
        try:
            return RDBStorage(read_only_url(url) if read_only else url, engine_kwargs=engine)
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
    # x0 and sigma0 of the CMA-ES sampler (its start at the incumbent) are deprecated for Optuna 6
    warnings.filterwarnings("ignore", category=FutureWarning, module="optuna")


def _trial_seed(seed: int, number: int) -> int:
    """The sampler's seed for one trial: a function of the study's seed and the trial's number only."""
    return (seed * 1_000_003 + number * 7_919 + 12_345) % (2**31 - 1)


def _sampler(config: StudyFile, seed: int) -> optuna.samplers.BaseSampler:
    if config.sampler == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    if config.sampler == "cmaes":
        # started at the incumbent, each first step a share of the weight's range (Optuna's CMA-ES works
        # in the search space scaled to [0, 1] per weight)
        return optuna.samplers.CmaEsSampler(x0=config.incumbent_weights(), sigma0=config.sampler_settings["sigma"],
                                            seed=seed, warn_independent_sampling=False)
    if config.sampler == "spsa":  # its points are computed by harness.tuning.spsa and enqueued
        return optuna.samplers.RandomSampler(seed=seed)
    startup = max(2, min(10, config.trials // 3))
    return optuna.samplers.TPESampler(seed=seed, constant_liar=True, n_startup_trials=startup)


INCUMBENT_SPEC = "incumbent_spec"  # the attribute that keeps the spec a study's named incumbent resolved to


def open_study(config: StudyFile, url: str) -> Study:
    """Create the study in the database, or load it to resume.

    The driver that creates the study enqueues the incumbent's weights as its
    first trial. Every trial's sampler is seeded by the study's seed and the
    trial's number (``Study.ask``), so a resumed study proposes what an
    uninterrupted one would have.

    Raises:
        StudyFileError: the stored study was made from a different study file.
        DatabaseError: the storage cannot be opened or written.
    """
    _quiet()
    storage = _storage(url)
    call = _translating(url)
    direction = optuna.study.StudyDirection.MAXIMIZE
    try:
        call(lambda: optuna.create_study(storage=storage, study_name=config.name, direction=direction))
        created = True
    except optuna.exceptions.DuplicatedStudyError:
        created = False
    study = Study(call(lambda: optuna.load_study(study_name=config.name, storage=storage,
                                                 sampler=_sampler(config, config.seed),
                                                 pruner=optuna.pruners.NopPruner())),
                  storage, url)
    if created or "fingerprint" not in study.user_attrs:
        _finish_creation(study, config)
    elif study.user_attrs["fingerprint"] != config.fingerprint():
        raise StudyFileError(f"{config.path}: name: study {config.name!r} in the database was made from "
                             "a different game, player, search space, objective, sampler, budget or openings; "
                             "give the changed study a new name")
    return study


def _finish_creation(study: Study, config: StudyFile) -> None:
    """Give a new study its incumbent trial and its study file, the fingerprint last.

    Optuna writes each of these in its own transaction, so a driver stopped
    in between (a crash, a full disk) leaves a study without them; the
    fingerprint marks a finished creation, and the next driver to open the
    study finishes one that lacks it (the incumbent only if no trial exists).
    """
    if not study.trials():
        study.enqueue(config.incumbent_weights(), {"incumbent": True})
    study.set_attr("study_file", config.text)
    if config.incumbent_spec:  # what its named incumbent stood for: a resume keeps it (``resolve_incumbent``)
        study.set_attr(INCUMBENT_SPEC, config.incumbent_spec)
    study.set_attr("game", config.games_label)
    study.set_attr("fingerprint", config.fingerprint())


def study_names(url: str) -> list[str]:
    """The names of every study in the database."""
    _quiet()
    return list(_translating(url)(lambda: optuna.get_all_study_names(_storage(url))))


def load_study(name: str, url: str, read_only: bool = True) -> Study:
    """A study from the database, to read (no sampler or pruner of its own); ``read_only`` opens the
    storage on a read-only connection.

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
    storage = _storage(url, read_only=read_only)
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

