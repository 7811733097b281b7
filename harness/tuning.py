"""Tuning studies: Optuna maximises a game's documented score over named evaluation weights.

The only module that imports ``optuna``. A *study file* (TOML, ``studies/``)
names a game, a weighted player, an opponent, the weights to search and their
ranges, an objective, a budget and two disjoint seed ranges; ``tune`` runs it:

* Optuna's ask-and-tell runs in this driver process, several trials in flight
  at once (TPE with the constant liar, so parallel trials do not all sample the
  same point); the matches of every trial are spread over the Ray pool, tagged
  with the trial number, and each result is recorded in the results database as
  it arrives, in one run per trial (``kind="study"``, the study name, the trial
  number).
* Common random numbers: every trial plays the same tuning seeds in the same
  order, so trials are compared seed by seed. The trial reports one
  intermediate value per seed (WilcoxonPruner, the seed's index as the
  instance id) or one per rung (successive halving), and a pruned trial's
  queued matches are cancelled. Matches are submitted one rung at a time, so
  the trials in flight share the pool instead of queueing behind each other.
* The default weights are enqueued as the first trial: every study has its
  baseline.
* The study lives in the results database itself (Optuna's RDB storage on the
  same URL), so the same command resumes it and two drivers on one PostgreSQL
  database cooperate on one study. Optuna's heartbeat is not driven by
  ask-and-tell, so this driver beats it for its own trials; a trial whose
  heartbeat went stale (its driver was killed) is failed and its parameters
  re-enqueued, and the retry reuses the matches already recorded for them.

``validate`` plays the best trial's weights and the defaults on the validation
seeds (the same seeds for both, so the difference is paired) and saves the
best as the named player ``tuned:<study>``.
"""

from __future__ import annotations

import json
import os
import random
import re
import socket
import time
import tomllib
import warnings
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import optuna
from optuna.storages import RDBStorage, RetryHeartbeatStaleTrialCallback, fail_stale_trials
from optuna.trial import TrialState

from harness.errors import ClusterError, HarnessError, InvalidInput, SpecError, StudyFileError, UnknownGame
from harness.games import canonical_spec, parse_spec
from harness.match import MatchResult, MatchSpec

OBJECTIVES = {
    "mean_score": "mean documented score of the user's seat",
    "lcb": "lower end of the 95% interval of the mean score",
    "rank1_rate": "share of games the user ends with rank 1 (a win or a draw)",
    "win_rate": "share of games won",
}
SAMPLERS = ("tpe", "random", "cmaes")
PRUNERS = ("wilcoxon", "halving", "none")
TOP_KEYS = ("name", "description", "game", "opening_plies", "player", "opponent", "objective",
            "sampler", "pruner", "p_threshold", "seed", "budget", "seeds", "weights")
BUDGET_KEYS = ("trials", "games", "rungs", "parallel")
SEED_KEYS = ("tuning", "validation")
WEIGHT_KEYS = ("low", "high", "log", "choices")
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
VERDICTS = {
    "better": "the 95% interval of the paired difference lies above 0",
    "worse": "the 95% interval of the paired difference lies below 0",
    "not distinguishable": "the 95% interval of the paired difference includes 0",
}
WAIT_S = 1.0  # how often a driver with no trial of its own looks at the others' running trials
RUN_STATUS = {"complete": "done", "pruned": "done", "interrupted": "interrupted"}


# ---------------------------------------------------------------- study files


@dataclass(frozen=True)
class WeightRange:
    """One searched weight: a float range (maybe log-scaled) or a list of choices."""

    name: str
    default: float
    low: float = 0.0
    high: float = 0.0
    log: bool = False
    choices: tuple[float, ...] | None = None

    def suggest(self, trial: optuna.Trial) -> float:
        """Ask ``trial`` for this weight's value."""
        if self.choices is not None:
            return float(trial.suggest_categorical(self.name, list(self.choices)))
        return trial.suggest_float(self.name, self.low, self.high, log=self.log)

    def describe(self) -> str:
        """The range in one short phrase, for tables and docs."""
        if self.choices is not None:
            return "one of " + ", ".join(f"{c:g}" for c in self.choices)
        return f"{self.low:g}..{self.high:g}" + (" (log)" if self.log else "")


@dataclass(frozen=True)
class StudyFile:
    """A validated study file. ``text`` is the file as written, stored with the study."""

    path: str
    name: str
    game: str
    player: dict[str, Any]
    opponent: str
    weights: tuple[WeightRange, ...]
    objective: str
    sampler: str
    pruner: str
    p_threshold: float
    seed: int
    trials: int
    rungs: tuple[int, ...]
    parallel: int | None
    tuning_seeds: range
    validation_seeds: range
    opening_plies: int = 0
    description: str = ""
    text: str = field(default="", repr=False, compare=False)

    @property
    def games(self) -> int:
        """Games per trial: the last rung."""
        return self.rungs[-1]

    def default_weights(self) -> dict[str, float]:
        """The default of every searched weight: the baseline trial's parameters."""
        return {w.name: w.default for w in self.weights}

    def player_spec(self, weights: dict[str, float]) -> str:
        """The canonical spec of the study's player with ``weights`` (searched ones) set."""
        from players import load as load_player
        fixed = dict(self.player.get("weights", {}))
        params = {k: v for k, v in self.player.items() if k != "weights"}
        return load_player({**params, "weights": fixed | weights}, self.game).spec

    def matches(self, player: str, opponent: str, seeds: Iterable[int]) -> list[MatchSpec]:
        """The match specs of ``player`` on ``seeds``, in seed order."""
        return [MatchSpec(self.game, player, opponent, seed, self.opening_plies) for seed in seeds]

    def fingerprint(self) -> str:
        """What must not change when a study resumes (the budget may)."""
        return json.dumps({
            "game": self.game, "player": self.player, "opponent": self.opponent,
            "weights": [[w.name, w.low, w.high, w.log, w.choices] for w in self.weights],
            "objective": self.objective, "pruner": self.pruner, "rungs": self.rungs,
            "tuning": [self.tuning_seeds.start, self.tuning_seeds.stop],
            "opening_plies": self.opening_plies}, sort_keys=True)


def _error(path: str, key: str, problem: str, choices: Iterable[Any] | None = None) -> StudyFileError:
    valid = f"; valid: {', '.join(map(str, choices))}" if choices is not None else ""
    return StudyFileError(f"{path}: {key}: {problem}{valid}")


def _check_keys(path: str, where: str, table: dict[str, Any], valid: Sequence[str]) -> None:
    for key in table:
        if key not in valid:
            raise _error(path, f"{where}{key}", "unknown key", valid)


def _typed(path: str, key: str, value: Any, kind: type | tuple[type, ...], what: str) -> Any:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise _error(path, key, f"{value!r} is not {what}")
    return value


def _seed_range(path: str, key: str, value: Any) -> range:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise _error(path, key, f"{value!r} is not [first, stop] (two integers, stop excluded)")
    first, stop = value
    if first < 0 or stop <= first:
        raise _error(path, key, f"{value!r} is empty or negative; write [first, stop] with 0 <= first < stop")
    return range(first, stop)


def _weight(path: str, game: str, name: str, value: Any) -> WeightRange:
    from players.features import features
    table = features(game)
    if name not in table:
        raise _error(path, f"weights.{name}", f"{game.partition(':')[0]} has no evaluation feature {name!r}",
                     table)
    feature = table[name]
    key = f"weights.{name}"
    if value is True:
        value = {}
    if not isinstance(value, dict):
        raise _error(path, key, f"{value!r} is not a table like {{ low = 0.0, high = 4.0 }} (or {{}} "
                     "for the feature's own range)")
    _check_keys(path, f"{key}.", value, WEIGHT_KEYS)
    default = float(feature.default)
    if "choices" in value:
        if set(value) - {"choices"}:
            raise _error(path, key, "choices excludes low, high and log")
        choices = value["choices"]
        if (not isinstance(choices, list) or not choices
                or not all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in choices)):
            raise _error(path, f"{key}.choices", f"{choices!r} is not a non-empty list of numbers")
        choices = tuple(float(c) for c in choices)
        if default not in choices:
            raise _error(path, f"{key}.choices", f"must include the default {default:g} (the baseline trial)")
        return WeightRange(name, default, min(choices), max(choices), False, choices)
    low = _typed(path, f"{key}.low", value.get("low", feature.low), (int, float), "a number")
    high = _typed(path, f"{key}.high", value.get("high", feature.high), (int, float), "a number")
    log = _typed(path, f"{key}.log", value.get("log", feature.log), bool, "true or false")
    if not low < high:
        raise _error(path, key, f"low {low:g} is not below high {high:g}")
    if log and low <= 0:
        raise _error(path, f"{key}.log", f"a log range needs low > 0, got {low:g}")
    if not low <= default <= high:
        raise _error(path, key, f"range {low:g}..{high:g} excludes the default {default:g} "
                     "(the baseline trial)")
    return WeightRange(name, default, float(low), float(high), bool(log))


def _rungs(path: str, budget: dict[str, Any], pruner: str) -> tuple[int, ...]:
    games = budget.get("games")
    if games is not None:
        _typed(path, "budget.games", games, int, "a positive integer")
        if games < 1:
            raise _error(path, "budget.games", f"{games} is not a positive integer")
    rungs = budget.get("rungs")
    if rungs is None:
        if games is None:
            raise _error(path, "budget", "give games (per trial) or rungs", BUDGET_KEYS)
        rungs, step = [], min(8, games)
        while step < games:
            rungs.append(step)
            step *= 4
        rungs.append(games)
    if (not isinstance(rungs, list) or not rungs
            or not all(isinstance(r, int) and not isinstance(r, bool) and r > 0 for r in rungs)
            or any(b <= a for a, b in zip(rungs, rungs[1:]))):
        raise _error(path, "budget.rungs", f"{rungs!r} is not an increasing list of positive game counts")
    if games is not None and rungs[-1] != games:
        raise _error(path, "budget.rungs", f"the last rung {rungs[-1]} must equal budget.games {games}")
    if pruner == "halving" and len(rungs) > 1:
        factor = rungs[1] / rungs[0]
        geometric = [rungs[0] * round(factor) ** k for k in range(len(rungs))]
        if not factor.is_integer() or factor < 2 or geometric != list(rungs):
            raise _error(path, "budget.rungs", f"{rungs!r}: successive halving needs rungs that grow by one "
                         "integer factor (e.g. [8, 32, 128])")
    return tuple(rungs)


def parse_study_file(text: str, path: str = "<study>") -> StudyFile:
    """Validate a study file's text.

    Raises:
        StudyFileError: malformed TOML, an unknown key, a bad value or an
            unknown weight name; the message names the file, the key and the
            valid choices.
    """
    from players import load as load_player, player_class
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise StudyFileError(f"{path}: not valid TOML: {error}") from None
    _check_keys(path, "", data, TOP_KEYS)
    for key in ("name", "game", "player", "opponent", "weights", "budget", "seeds"):
        if key not in data:
            raise _error(path, key, "missing")
    name = _typed(path, "name", data["name"], str, "a string")
    if not NAME_PATTERN.match(name):
        raise _error(path, "name", f"{name!r} is not a study name: letters, digits, '_', '.', '-' "
                     "(it also names the player tuned:<name>)")
    try:
        game_name, config = parse_spec(_typed(path, "game", data["game"], str, "a game spec"))
    except UnknownGame as error:
        raise _error(path, "game", str(error)) from None
    game = canonical_spec(game_name, config)

    player = _typed(path, "player", data["player"], dict, "a table with kind and fixed parameters")
    player = dict(player)
    if "kind" not in player:
        raise _error(path, "player.kind", "missing")
    try:
        load_player(player, game)
        weighted = player_class(player["kind"]).TAKES_WEIGHTS
    except SpecError as error:
        raise _error(path, "player", str(error)) from None
    if not weighted:
        raise _error(path, "player.kind", f"{player['kind']!r} takes no weights",
                     ["alphabeta", "mcts"])
    opponent = _typed(path, "opponent", data["opponent"], str, "a player spec")
    if not opponent.startswith("tuned:"):  # named players are resolved by the database
        try:
            load_player(opponent, game)
        except SpecError as error:
            raise _error(path, "opponent", str(error)) from None

    raw_weights = data["weights"]
    if isinstance(raw_weights, list):
        if not all(isinstance(w, str) for w in raw_weights):
            raise _error(path, "weights", "a list of weights holds feature names only")
        raw_weights = {w: {} for w in raw_weights}
    if not isinstance(raw_weights, dict) or not raw_weights:
        raise _error(path, "weights", "give at least one weight, as a list of names or a table")
    try:
        weights = tuple(_weight(path, game, n, v) for n, v in raw_weights.items())
    except UnknownGame as error:
        raise _error(path, "weights", str(error)) from None
    fixed = player.get("weights", {})
    for weight in weights:
        if weight.name in fixed:
            raise _error(path, f"player.weights.{weight.name}", "is both fixed and searched")

    objective = data.get("objective", "mean_score")
    if objective not in OBJECTIVES:
        raise _error(path, "objective", f"unknown objective {objective!r}", OBJECTIVES)
    sampler = data.get("sampler", "tpe")
    if sampler not in SAMPLERS:
        raise _error(path, "sampler", f"unknown sampler {sampler!r}", SAMPLERS)
    pruner = data.get("pruner", "wilcoxon")
    if pruner not in PRUNERS:
        raise _error(path, "pruner", f"unknown pruner {pruner!r}", PRUNERS)
    p_threshold = _typed(path, "p_threshold", data.get("p_threshold", 0.1), (int, float), "a number")
    if not 0 < p_threshold < 1:
        raise _error(path, "p_threshold", f"{p_threshold} is not between 0 and 1")
    seed = _typed(path, "seed", data.get("seed", 0), int, "an integer")
    opening_plies = _typed(path, "opening_plies", data.get("opening_plies", 0), int, "an integer")
    if opening_plies < 0:
        raise _error(path, "opening_plies", f"{opening_plies} is negative")

    budget = _typed(path, "budget", data["budget"], dict, "a table")
    _check_keys(path, "budget.", budget, BUDGET_KEYS)
    if "trials" not in budget:
        raise _error(path, "budget.trials", "missing")
    trials = _typed(path, "budget.trials", budget["trials"], int, "a positive integer")
    if trials < 1:
        raise _error(path, "budget.trials", f"{trials} is not a positive integer")
    rungs = _rungs(path, budget, pruner)
    parallel = budget.get("parallel")
    if parallel is not None and (_typed(path, "budget.parallel", parallel, int, "an integer") < 1):
        raise _error(path, "budget.parallel", f"{parallel} is not a positive integer")

    seeds = _typed(path, "seeds", data["seeds"], dict, "a table")
    _check_keys(path, "seeds.", seeds, SEED_KEYS)
    for key in SEED_KEYS:
        if key not in seeds:
            raise _error(path, f"seeds.{key}", "missing")
    tuning, validation = (_seed_range(path, f"seeds.{k}", seeds[k]) for k in SEED_KEYS)
    if tuning.start < validation.stop and validation.start < tuning.stop:
        raise _error(path, "seeds", f"tuning {[tuning.start, tuning.stop]} and validation "
                     f"{[validation.start, validation.stop]} overlap; the ranges must be disjoint")
    if len(tuning) < rungs[-1]:
        raise _error(path, "seeds.tuning", f"{len(tuning)} seeds cannot play {rungs[-1]} games per trial")

    return StudyFile(
        path=path, name=name, game=game, player=player, opponent=opponent, weights=weights,
        objective=objective, sampler=sampler, pruner=pruner, p_threshold=float(p_threshold),
        seed=seed, trials=trials, rungs=rungs, parallel=parallel, tuning_seeds=tuning,
        validation_seeds=validation, opening_plies=opening_plies,
        description=str(data.get("description", "")), text=text)


def load_study_file(path: str | os.PathLike[str]) -> StudyFile:
    """Read and validate a study file.

    Raises:
        StudyFileError: the file cannot be read or is not a valid study.
    """
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise StudyFileError(f"{path}: cannot read the study file: {error.strerror}") from None
    except UnicodeDecodeError:
        raise StudyFileError(f"{path}: not a study file (not UTF-8 text); give a TOML file like "
                             "studies/demo-totality.toml") from None
    return parse_study_file(text, str(path))


# ---------------------------------------------------------------- objectives


def game_value(result: MatchResult, objective: str) -> float:
    """The per-game value a study averages: the score, or a 0/1 outcome indicator."""
    if objective == "rank1_rate":
        return 0.0 if result.outcome == "loss" else 1.0
    if objective == "win_rate":
        return 1.0 if result.outcome == "win" else 0.0
    return float(result.score)


def objective_value(values: Sequence[float], objective: str) -> float:
    """The objective over per-game values: their mean, or for ``lcb`` the 95% interval's lower end."""
    if objective == "lcb":
        from harness.ratings import mean_interval
        return float(mean_interval(list(values))[1])
    return float(sum(values) / len(values))


# ---------------------------------------------------------------- storage


def database_url(url: str | None) -> str:
    """The database URL both the results and the Optuna study use (the results DB's default rule)."""
    from harness.db import default_url
    return url or default_url()


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
            raise HarnessError(f"cannot open the study storage at {mask_url(url)}: "
                               f"{type(error).__name__}: {str(error).splitlines()[0][:200]}") from error
    raise AssertionError("unreachable")


def _quiet_optuna() -> None:
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


def open_study(config: StudyFile, url: str, *, grace_period: int = 120) -> optuna.Study:
    """Create the study in the database, or load it to resume.

    The driver that creates the study enqueues the default weights as its first
    trial and seeds the sampler with the study file's seed; a driver that joins
    or resumes one seeds it afresh, so two drivers do not propose the same
    points (the order in which parallel trials finish is not reproducible
    anyway).

    Raises:
        StudyFileError: the stored study was made from a different search space.
    """
    _quiet_optuna()
    storage = _storage(url, grace_period)
    direction = optuna.study.StudyDirection.MAXIMIZE
    try:
        optuna.create_study(storage=storage, study_name=config.name, direction=direction)
        created = True
    except optuna.exceptions.DuplicatedStudyError:
        created = False
    seed = config.seed if created else random.SystemRandom().randrange(2**31)
    study = optuna.load_study(study_name=config.name, storage=storage,
                              sampler=_sampler(config, seed), pruner=_pruner(config))
    if created or "fingerprint" not in study.user_attrs:
        _finish_creation(study, config)
    elif study.user_attrs["fingerprint"] != config.fingerprint():
        raise StudyFileError(f"{config.path}: name: study {config.name!r} in the database was made from "
                             "a different game, player, search space, objective or seeds; give the "
                             "changed study a new name")
    return study


def _finish_creation(study: optuna.Study, config: StudyFile) -> None:
    """Give a new study its baseline trial and its study file, the fingerprint last.

    Optuna writes each of these in its own transaction, so a driver stopped
    in between (a crash, a full disk) leaves a study without them; the
    fingerprint marks a finished creation, and the next driver to open the
    study finishes one that lacks it (the baseline only if no trial exists).
    """
    if not study.get_trials(deepcopy=False):
        study.enqueue_trial(config.default_weights(), user_attrs={"baseline": True})
    study.set_user_attr("study_file", config.text)
    study.set_user_attr("game", config.game)
    study.set_user_attr("fingerprint", config.fingerprint())


def load_stored_study(name: str, url: str | None = None) -> optuna.Study:
    """A study from the database, to read (no sampler or pruner of its own).

    Raises:
        InvalidInput: no study of that name in the database (the message lists them).
    """
    from harness.db import stored_tables
    _quiet_optuna()
    if "studies" not in stored_tables(database_url(url)):  # Optuna's storage would create its tables
        raise InvalidInput(f"no study {name!r} in the database; known studies: none "
                           "(run: harness tune STUDY.toml)")
    storage = _storage(database_url(url), 120)
    try:
        return optuna.load_study(study_name=name, storage=storage)
    except KeyError:
        known = optuna.get_all_study_names(storage)
        raise InvalidInput(f"no study {name!r} in the database; known studies: "
                           f"{', '.join(known) or 'none'} (run: harness tune STUDY.toml)") from None


def stored_study_file(name: str, url: str | None = None) -> StudyFile:
    """The study file a stored study was created from.

    Raises:
        InvalidInput: no study of that name in the database (the message lists them).
    """
    text = load_stored_study(name, url).user_attrs.get("study_file")
    if text is None:
        raise InvalidInput(f"study {name!r} was not created by harness tune (no study file stored)")
    return parse_study_file(text, f"{name} (stored)")


def study_reference(reference: str, url: str | None = None) -> StudyFile:
    """A study by file path, or by name from the database."""
    if reference.endswith(".toml") or Path(reference).is_file():
        return load_study_file(reference)
    return stored_study_file(reference, url)


# ---------------------------------------------------------------- the driver


@dataclass
class _TrialRun:
    """A trial in flight in this driver (mutable driver bookkeeping, never shared)."""

    trial: optuna.Trial
    spec: str
    run_id: int
    values: dict[int, float] = field(default_factory=dict)  # seed index -> per-game value
    submitted: int = 0
    rung: int = 0

    @property
    def number(self) -> int:
        return self.trial.number


@dataclass(frozen=True)
class TuneSummary:
    """What a ``tune`` call did, and the study's state after it."""

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


def _run_name(study: str, trial: int) -> str:
    return f"{study}/trial-{trial}"


class Driver:
    """Runs one study's trials over a pool until the study has its budget of trials."""

    def __init__(self, config: StudyFile, study: optuna.Study, db: Any, pool: Any, *,
                 target: int, parallel: int, opponent: str, progress: Any = None) -> None:
        self.config = config
        self.study = study
        self.db = db
        self.pool = pool
        self.target = target
        self.parallel = parallel
        self.opponent = opponent
        self.progress = progress
        self.active: dict[int, _TrialRun] = {}
        self.finished_runs: dict[int, int] = {}
        self.seeds = list(config.tuning_seeds)[:config.games]
        self.games = 0
        self.started = time.monotonic()
        self.last_beat = 0.0
        self.failed_seen = -1
        self.identity = f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"

    # -- trial lifecycle

    def wanted(self) -> bool:
        """Whether the study needs another trial started (counting every driver's)."""
        trials = self.study.get_trials(deepcopy=False)
        counted = sum(t.state in (TrialState.COMPLETE, TrialState.PRUNED, TrialState.RUNNING) for t in trials)
        return counted < self.target

    def fill(self) -> None:
        """Start trials until ``parallel`` are in flight or the budget is taken."""
        while len(self.active) < self.parallel:
            fail_stale_trials(self.study)
            self.mark_interrupted_runs()
            if not self.wanted():
                return
            self.start_trial()

    def start_trial(self) -> None:
        trial = self.study.ask()
        self.study._storage.record_heartbeat(trial._trial_id)
        # the spec carries 4 significant digits (readable, and finer than the games can tell apart)
        weights = {w.name: float(f"{w.suggest(trial):.4g}") for w in self.config.weights}
        spec = self.config.player_spec(weights)
        trial.set_user_attr("spec", spec)
        trial.set_user_attr("driver", self.identity)
        run_id = self.db.start_run(
            "study", self.config.game, {"study": self.config.name, "trial": trial.number, "player": spec,
                                        "opponent": self.opponent, "params": weights},
            name=_run_name(self.config.name, trial.number), study=self.config.name, trial=trial.number)
        run = _TrialRun(trial, spec, run_id)
        self.active[trial.number] = run
        try:
            self.reuse_retried(run)
            self.advance(run)
        except optuna.exceptions.UpdateFinishedTrialError:
            self.lose(run)

    def reuse_retried(self, run: _TrialRun) -> None:
        """A retried trial takes over the matches its failed predecessors recorded (same keys)."""
        frozen = self.study._storage.get_trial(run.trial._trial_id)
        history = RetryHeartbeatStaleTrialCallback.retry_history(frozen)
        index = {seed: i for i, seed in enumerate(self.seeds)}
        for number in reversed(history):
            previous = self.db.run(_run_name(self.config.name, number))
            if previous is None:
                continue
            for record in self.db.matches(run_id=previous.id):
                if run.number not in self.active:  # pruned on the games taken over
                    return
                if record.player == run.spec and record.seed in index and index[record.seed] not in run.values:
                    result = record.to_result()
                    self.db.record(run.run_id, result)
                    self.take(run, index[record.seed], result)

    def mark_interrupted_runs(self) -> None:
        """Runs of trials another driver left behind (now failed) are marked interrupted."""
        failed = self.study.get_trials(deepcopy=False, states=(TrialState.FAIL,))
        if len(failed) == self.failed_seen:
            return
        self.failed_seen = len(failed)
        for trial in failed:
            run = self.db.run(_run_name(self.config.name, trial.number))
            if run is not None and run.status == "running":
                self.db.set_run_status(run.id, "interrupted")

    def close_finished_runs(self) -> None:
        """A driver stopped between telling Optuna a trial's end and closing its run (two stores, two
        transactions) left the run running; on resume such runs are marked done."""
        finished = {_run_name(self.config.name, t.number) for t in self.study.get_trials(
            deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED))}
        for run in self.db.runs(kind="study"):
            if run.status == "running" and run.name in finished:
                self.db.set_run_status(run.id, "done")

    def submit_until(self, run: _TrialRun, count: int) -> None:
        indices = [i for i in range(run.submitted, count) if i not in run.values]
        run.submitted = max(run.submitted, count)
        if indices:
            specs = self.config.matches(run.spec, self.opponent, (self.seeds[i] for i in indices))
            self.pool.submit(specs, tag=run.number)

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
            last = run.rung == len(rungs) - 1
            if last:
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
        values = list(run.values.values())
        run.trial.set_user_attr("games", len(values))
        if values:
            run.trial.set_user_attr("mean", sum(values) / len(values))
        if how == "complete":
            self.study.tell(run.trial, objective_value(values, self.config.objective))
        elif how == "pruned":
            self.pool.cancel(run.number)
            self.study.tell(run.trial, state=TrialState.PRUNED)
        else:
            self.pool.cancel(run.number)
            self.study.tell(run.trial, state=TrialState.FAIL)
            callback = self.study._storage.get_heartbeat_stale_trial_callback()
            callback(self.study, self.study._storage.get_trial(run.trial._trial_id))
        self.db.set_run_status(run.run_id, RUN_STATUS[how])
        if self.progress is not None:
            mean = f", mean {sum(values) / len(values):.2f}" if values else ""
            self.progress.console.print(f"trial {run.number} {how} after {len(values)} games{mean}")

    # -- the loop

    def beat(self) -> None:
        """Keep this driver's trials alive in the storage's eyes."""
        now = time.monotonic()
        if now - self.last_beat < self.study._storage.get_heartbeat_interval():
            return
        self.last_beat = now
        for run in self.active.values():
            self.study._storage.record_heartbeat(run.trial._trial_id)

    def on_result(self, tag: Any, result: MatchResult) -> None:
        self.games += 1
        run = self.active.get(tag)
        if run is None:  # a match of a trial already pruned that was running when it was cancelled
            if tag in self.finished_runs:
                self.db.record(self.finished_runs[tag], result)
            return
        self.db.record(run.run_id, result)
        index = self.seeds.index(result.seed)
        if index in run.values:
            return
        try:
            if not self.take(run, index, result):
                self.advance(run)
        except optuna.exceptions.UpdateFinishedTrialError:
            self.lose(run)

    def lose(self, run: _TrialRun) -> None:
        """Drop a trial someone else finished: another driver took the same enqueued trial (SQLite
        has no row locks) or failed it as stale. Its games stay recorded in its run."""
        self.active.pop(run.number, None)
        self.finished_runs[run.number] = run.run_id
        self.pool.cancel(run.number)
        self.db.set_run_status(run.run_id, "interrupted")

    def run(self) -> None:
        """Run trials until the budget is taken; on any interruption fail and re-enqueue ours.

        When the budget is taken but trials of other drivers are still RUNNING,
        wait for them: they finish, or their heartbeat goes stale (a killed
        driver) and they come back as enqueued trials for this driver to run.
        """
        self.close_finished_runs()
        try:
            while True:
                self.fill()
                self.show()
                if self.active:
                    self.play()
                elif self.study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
                    time.sleep(WAIT_S)
                else:
                    return
        except BaseException:
            for run in list(self.active.values()):
                try:
                    self.finish(run, "interrupted")
                except Exception:  # the storage may be what failed; the heartbeat recovers these later
                    continue
            raise

    def play(self) -> None:
        """Take results until this driver has no trial in flight."""
        for tag, result in self.pool.as_completed():
            self.on_result(tag, result)
            self.beat()
            self.fill()
            self.show()
            if not self.active:
                return
        raise ClusterError(f"the pool ran dry with trials {sorted(self.active)} unfinished")

    def show(self) -> None:
        if self.progress is None:
            return
        done = self.study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED))
        best = _best(self.study)
        elapsed = max(time.monotonic() - self.started, 1e-9)
        self.progress.update(
            self.progress.task_ids[0], completed=len(done), total=self.target,
            best="-" if best is None else f"{best.value:.2f} (#{best.number})",
            rate=f"{self.games / elapsed:.2f}")


def _best(study: optuna.Study) -> optuna.trial.FrozenTrial | None:
    try:
        return study.best_trial
    except ValueError:
        return None


@contextmanager
def _progress(enabled: bool) -> Iterator[Any]:
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("trials  best {task.fields[best]}  {task.fields[rate]} games/s"),
               TimeElapsedColumn())
    with Progress(*columns) as progress:
        progress.add_task("tuning", total=None, best="-", rate="0")
        yield progress


@contextmanager
def _pool(pool: Any, workers: int | None, address: str | None) -> Iterator[Any]:
    if pool is not None:
        yield pool
        return
    from harness.cluster import Pool
    with Pool(workers=workers or 2, address=address) as own:
        yield own


def tune(config: StudyFile, *, trials: int | None = None, workers: int | None = None,
         address: str | None = None, db_url: str | None = None, pool: Any = None,
         validate_best: bool = True, progress: bool = True, grace_period: int = 120) -> TuneSummary:
    """Run (or resume) a study until it holds ``trials`` finished trials, then validate the best.

    Args:
        config: the validated study file.
        trials: total trials the study should hold (default: the file's budget).
        workers: Ray workers of a local pool (ignored when ``pool`` is given).
        address: a Ray cluster to join instead of starting a local one.
        db_url: results database URL, also the study's storage.
        pool: an open ``harness.cluster.Pool`` to use (tests share one).
        validate_best: play the validation seeds at the end and save ``tuned:<study>``.
        progress: show a rich progress display.
        grace_period: seconds without a heartbeat after which a RUNNING trial
            counts as left behind by a killed driver.

    Returns:
        The summary, with the validation when it ran.
    """
    from harness.db import open_database
    url = database_url(db_url)
    db = open_database(url)
    try:
        db.check_writable()  # a read-only database fails here, before Ray starts
    except HarnessError:
        db.close()
        raise
    try:
        with _pool(pool, workers, address) as active_pool:
            opponent = db.resolve_spec(config.opponent)
            active_pool.start()  # Ray reachable and the workers up before the study is written
            study = open_study(config, url, grace_period=grace_period)
            started = time.monotonic()
            parallel = config.parallel or (max(1, int(getattr(active_pool, "workers", workers or 2) or 2)) + 1)
            with _progress(progress) as display:
                driver = Driver(config, study, db, active_pool, target=trials or config.trials,
                                parallel=parallel, opponent=opponent, progress=display)
                driver.run()
            validation = None
            if validate_best and _best(study) is not None:
                validation = validate(config, db_url=url, pool=active_pool, db=db)
        return _summary(study, driver.games, time.monotonic() - started, validation)
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
    recognises them (this module does not import SQLAlchemy). Bad input and
    errors of no known kind are returned unchanged.
    """
    from harness.db import foreign_database_error
    from harness.errors import with_resume
    failure = foreign_database_error(error, url) or error
    if not isinstance(failure, HarnessError) or isinstance(failure, InvalidInput):
        return error
    return with_resume(failure, command)


def _summary(study: optuna.Study, games: int, seconds: float, validation: Validation | None) -> TuneSummary:
    trials = study.get_trials(deepcopy=False)
    count = {state: sum(t.state == state for t in trials) for state in TrialState}
    best = _best(study)
    return TuneSummary(
        study=study.study_name, trials_complete=count[TrialState.COMPLETE],
        trials_pruned=count[TrialState.PRUNED], trials_failed=count[TrialState.FAIL], games=games,
        seconds=seconds, best_trial=None if best is None else best.number,
        best_value=None if best is None else best.value,
        best_params={} if best is None else dict(best.params),
        best_spec=None if best is None else best.user_attrs.get("spec"), validation=validation)


# ---------------------------------------------------------------- validation


@dataclass(frozen=True)
class Interval:
    """A mean with its 95% interval."""

    mean: float
    low: float
    high: float


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

    @property
    def verdict(self) -> str:
        """better, worse or not distinguishable: whether the paired interval excludes zero."""
        if self.difference.low > 0:
            return "better"
        if self.difference.high < 0:
            return "worse"
        return "not distinguishable"


def _interval(values: Sequence[float]) -> Interval:
    from harness.ratings import mean_interval
    return Interval(*(float(v) for v in mean_interval(list(values))))


def _recorded_values(config: StudyFile, db: Any, runs: dict[str, tuple[str, int]]) -> dict[str, dict[int, float]]:
    """Per seed values already recorded in each validation run (label -> (spec, run id))."""
    seeds = set(config.validation_seeds)
    return {label: {record.seed: game_value(record, config.objective) for record in db.matches(run_id=run_id)
                    if record.seed in seeds and record.player == spec}
            for label, (spec, run_id) in runs.items()}


def _play_missing(config: StudyFile, db: Any, pool: Any, runs: dict[str, tuple[str, int]], opponent: str,
                  values: dict[str, dict[int, float]]) -> None:
    """Play and record the validation games not recorded yet, filling ``values``."""
    pending = 0
    for label, (spec, _) in runs.items():
        missing = [s for s in config.validation_seeds if s not in values[label]]
        pending += len(missing)
        pool.submit(config.matches(spec, opponent, missing), tag=("validation", label))
    for tag, result in pool.as_completed():
        if not (isinstance(tag, tuple) and tag[0] == "validation" and tag[1] in runs):
            continue  # a straggler of a pruned trial
        label = tag[1]
        db.record(runs[label][1], result)
        if result.seed not in values[label]:
            values[label][result.seed] = game_value(result, config.objective)
            pending -= 1
        if pending == 0:
            return


def _validation_run(db: Any, config: StudyFile, label: str, spec: str, opponent: str, create: bool) -> int | None:
    name = f"{config.name}/validation/{label}"
    existing = db.run(name)
    if existing is not None or not create:
        return None if existing is None else existing.id
    return db.start_run("study", config.game, {"study": config.name, "validation": label, "player": spec,
                                                "opponent": opponent}, name=name, study=config.name)


def _validation(config: StudyFile, db: Any, url: str, play: Any = None) -> Validation | None:
    """The validation of the study's best trial from the recorded games; ``play(runs, values)``
    plays the missing ones, and without it a validation that is not complete is None."""
    best = _best(load_stored_study(config.name, url))
    if best is None:
        if play is None:
            return None
        raise InvalidInput(f"study {config.name!r} has no complete trial yet")
    opponent = db.resolve_spec(config.opponent)
    defaults_spec = config.player_spec(config.default_weights())
    tuned_spec = best.user_attrs.get("spec") or config.player_spec(dict(best.params))
    players = {"defaults": (defaults_spec, "defaults")}
    if tuned_spec != defaults_spec:  # when the baseline won there is nothing else to play
        players["tuned"] = (tuned_spec, f"trial-{best.number}")
    runs = {}
    for label, (spec, run_label) in players.items():
        run_id = _validation_run(db, config, run_label, spec, opponent, create=play is not None)
        if run_id is None:
            return None
        runs[label] = (spec, run_id)
    values = _recorded_values(config, db, runs)
    if sum(map(len, values.values())) < len(runs) * len(config.validation_seeds):
        if play is None:
            return None
        play(runs, values)
    values.setdefault("tuned", values["defaults"])
    seeds = list(config.validation_seeds)
    defaults = [values["defaults"][s] for s in seeds]
    tuned = [values["tuned"][s] for s in seeds]
    return Validation(
        study=config.name, game=config.game, opponent=opponent, objective=config.objective,
        best_trial=best.number, defaults_spec=defaults_spec, tuned_spec=tuned_spec, games=len(seeds),
        defaults=_interval(defaults), tuned=_interval(tuned),
        difference=_interval([t - d for t, d in zip(tuned, defaults)]), named_player=f"tuned:{config.name}")


def recorded_validation(config: StudyFile, db: Any, db_url: str | None = None) -> Validation | None:
    """The study's validation as recorded, or None when it has not been played in full."""
    return _validation(config, db, database_url(db_url))


def validate(config: StudyFile | str, *, db_url: str | None = None, workers: int | None = None,
             address: str | None = None, pool: Any = None, db: Any = None) -> Validation:
    """Play the best trial and the defaults on the validation seeds; save ``tuned:<study>``.

    Both play the same seeds, so the difference is paired seed by seed. Games
    already recorded are reused, so an interrupted validation resumes (and
    nothing is played when all are there).

    Args:
        config: the study file, or a study file path or a stored study's name.

    Raises:
        InvalidInput: the study is unknown or has no complete trial yet.
    """
    from harness.db import open_database
    url = database_url(db_url)
    if isinstance(config, str):
        config = study_reference(config, url)
    own_db = db is None
    db = db or open_database(url)

    def play(runs: dict[str, tuple[str, int]], values: dict[str, dict[int, float]]) -> None:
        with _pool(pool, workers, address) as active_pool:
            _play_missing(config, db, active_pool, runs, db.resolve_spec(config.opponent), values)
        for _, run_id in runs.values():
            db.set_run_status(run_id, "done")

    try:
        validation = _validation(config, db, url, play)
        db.save_named_player(config.name, validation.tuned_spec, config.game,
                             note=f"study {config.name}, trial {validation.best_trial}")
        return validation
    finally:
        if own_db:
            db.close()


def validation_table(validation: Validation) -> Any:
    """A rich renderable of the validation: both means with 95% intervals, the paired difference,
    the verdict, and the two players' specs."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text
    measure = "score" if validation.objective in ("mean_score", "lcb") else validation.objective
    table = Table(title=f"validation of {validation.study}: {validation.games} paired games on "
                        f"{validation.game} vs {validation.opponent}")
    for column in ("", f"mean {measure}", "95% interval"):
        table.add_column(column, no_wrap=True)
    tuned = f"tuned (trial {validation.best_trial})"
    for label, interval in (("defaults", validation.defaults), (tuned, validation.tuned),
                            ("tuned - defaults (paired)", validation.difference)):
        table.add_row(label, f"{interval.mean:.2f}", f"[{interval.low:.2f}, {interval.high:.2f}]")
    verdict = Text.assemble(("tuned vs defaults: ", "bold"), (validation.verdict.upper(), "bold"),
                            f" ({VERDICTS[validation.verdict]})")
    specs = Text(f"defaults: {validation.defaults_spec}\n{tuned}: {validation.tuned_spec}, "
                 f"saved as {validation.named_player}")
    return Group(table, verdict, specs)


# ---------------------------------------------------------------- report figures


def study_figures(name: str, db_url: str | None = None) -> list[tuple[str, Any]]:
    """Optuna's own plots of a stored study: (title, plotly figure) pairs for the report.

    Parameter importances need at least two complete trials with varied
    parameters; they are left out (with a note in the title list) otherwise.
    """
    from optuna import visualization
    study = load_stored_study(name, db_url)
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


def study_trials(name: str, db_url: str | None = None) -> list[dict[str, Any]]:
    """Every trial of a stored study as plain data (number, state, value, games, params)."""
    study = load_stored_study(name, db_url)
    return [{"number": t.number, "state": t.state.name.lower(), "value": t.value,
             "games": t.user_attrs.get("games"), "params": dict(t.params),
             "intermediate": dict(t.intermediate_values),
             "retry_of": RetryHeartbeatStaleTrialCallback.retried_trial_number(t),
             "driver": t.user_attrs.get("driver")}
            for t in study.get_trials(deepcopy=False)]

