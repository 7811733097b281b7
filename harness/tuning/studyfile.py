"""Study files: the TOML that names a game, a weighted player, the weights to search and a budget.

Pure parsing and validation (no Optuna, no database, no Ray): a study file is
read into a frozen ``StudyFile`` or refused with one ``StudyFileError`` that
names the file, the key and the valid choices. Everything the driver and the
validation need from the file (the player spec for some weights, the match
specs of some seeds, the fingerprint a resumed study must keep) is a method
here, so a new kind of searched parameter is added in this module alone.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.errors import SpecError, StudyFileError, UnknownGame
from harness.games import canonical_spec, parse_spec
from harness.match import MatchSpec
from harness.tuning.objectives import OBJECTIVES

__all__ = ["OBJECTIVES", "SAMPLERS", "PRUNERS", "WeightRange", "StudyFile", "parse_study_file",
           "load_study_file", "game_of", "opponent_of", "turns_label", "spec_key"]

SAMPLERS = ("tpe", "random", "cmaes")
PRUNERS = ("wilcoxon", "halving", "none")
TOP_KEYS = ("name", "description", "game", "opening_plies", "player", "opponent", "params", "objective",
            "sampler", "pruner", "p_threshold", "seed", "budget", "seeds", "weights", "validation")
BUDGET_KEYS = ("trials", "games", "rungs", "parallel")
SEED_KEYS = ("tuning", "validation")
VALIDATION_KEYS = ("player",)
WEIGHT_KEYS = ("low", "high", "log", "choices")
PARAM_KEYS = WEIGHT_KEYS + ("integer", "default")
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")


@dataclass(frozen=True)
class WeightRange:
    """One searched weight: a float range (maybe log-scaled) or a list of choices."""

    name: str
    default: float
    low: float = 0.0
    high: float = 0.0
    log: bool = False
    choices: tuple[float, ...] | None = None
    integer: bool = False  # a searched parameter that takes whole numbers (depth, option.Hash)

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
    # the game specs the seeds take turns over (``game_of``): one, or a two-seat game's seats, a game's levels
    game_specs: tuple[str, ...]
    player: dict[str, Any]
    opponents: tuple[str, ...]  # they take turns by seed (``opponent_of``)
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
    params: tuple[WeightRange, ...] = ()  # searched parameters other than weights (``[params]``)
    # fixed player parameters the validation plays with instead (``[validation] player``)
    validation_player: dict[str, Any] = field(default_factory=dict)

    @property
    def game(self) -> str:
        """The first of ``game_specs``: the game of the study's runs and of ``tuned:<name>``."""
        return self.game_specs[0]

    @property
    def opponent(self) -> str:
        """The opponent as people read it (``turns_label``)."""
        return turns_label(self.opponents)

    @property
    def games_label(self) -> str:
        """The game or games as people read them (``turns_label``)."""
        return turns_label(self.game_specs)

    @property
    def games(self) -> int:
        """Games per trial: the last rung."""
        return self.rungs[-1]

    def default_weights(self) -> dict[str, float]:
        """The default of every searched weight and parameter: the baseline trial's parameters."""
        return {w.name: w.default for w in self.weights + self.params}

    def player_spec(self, weights: dict[str, float]) -> str:
        """The canonical spec of the study's player with ``weights`` (searched weights and parameters) set."""
        from players import load as load_player
        names = {w.name for w in self.weights}
        searched = {spec_key(name, names): value for name, value in weights.items()}
        fixed = dict(self.player.get("weights", {}))
        params = {k: v for k, v in self.player.items() if k != "weights"}
        params |= {key: value for key, value in searched.items() if not key.startswith("w.")}
        found = {key[2:]: value for key, value in searched.items() if key.startswith("w.")}
        return load_player({**params, "weights": fixed | found}, self.game).spec

    def validation_spec(self, spec: str) -> str:
        """A trial's player ``spec`` as the validation plays it: ``[validation] player`` set over it.

        From the spec the trial played (its weights as it had them, four
        significant digits), not from the sampler's raw values.
        """
        if not self.validation_player:
            return spec
        from players import load as load_player
        player = load_player(spec, self.game)
        params = {name: value for name, value in player.params.items() if value is not None}
        return load_player({"kind": player.kind, **params, **self.validation_player, "weights": player.weights},
                           self.game).spec

    def matches(self, player: str, opponents: Sequence[str], seeds: Iterable[int]) -> list[MatchSpec]:
        """The match specs of ``player`` on ``seeds``, in seed order: each seed's ``game_of`` against its
        ``opponent_of``."""
        return [MatchSpec(game_of(seed, self.game_specs, opponents), player, opponent_of(seed, opponents), seed,
                          self.opening_plies) for seed in seeds]

    def fingerprint(self) -> str:
        """What must not change when a study resumes (the budget may)."""
        return json.dumps({
            "game": self.game if len(self.game_specs) == 1 else list(self.game_specs), "player": self.player,
            "opponent": self.opponents[0] if len(self.opponents) == 1 else list(self.opponents),
            "weights": [[w.name, w.low, w.high, w.log, w.choices] for w in self.weights],
            "objective": self.objective, "pruner": self.pruner, "rungs": self.rungs,
            "tuning": [self.tuning_seeds.start, self.tuning_seeds.stop],
            "opening_plies": self.opening_plies,
            **({"params": [[p.name, p.low, p.high, p.log, p.choices, p.integer] for p in self.params]}
               if self.params else {})}, sort_keys=True)


def opponent_of(seed: int, opponents: Sequence[str]) -> str:
    """The opponent seed ``seed`` plays: a study's opponents take turns, ``opponents[seed % n]``."""
    return opponents[seed % len(opponents)]


def game_of(seed: int, games: Sequence[str], opponents: Sequence[str]) -> str:
    """The game seed ``seed`` plays: the games take turns after a round of the opponents, so every run of
    ``len(games) * len(opponents)`` seeds plays each game against each opponent once."""
    return games[(seed // len(opponents)) % len(games)]


def turns_label(specs: Sequence[str]) -> str:
    """Specs that take turns by seed (opponents, games) as people read them and runs record them: one
    spec, or the specs joined by ' + '."""
    return " + ".join(specs)


def spec_key(name: str, weights: Iterable[str]) -> str:
    """The player-spec key a study's searched name sets: ``w.<name>`` for a weight, else the name itself.

    A ``[weights]`` entry names an evaluation feature; a ``[params]`` entry
    names a numeric parameter of the player's kind (``c``, ``eval_scale``,
    ``nodes``) or a UCI engine's option (``option.Hash``), as a spec writes it.
    """
    return f"w.{name}" if name in set(weights) else name


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


def _param(path: str, player: dict[str, Any], name: str, value: Any) -> WeightRange:
    """One ``[params]`` entry: a numeric parameter of the player's kind, or ``option.NAME`` of an engine."""
    from players import player_class
    cls = player_class(player["kind"])
    key = f"params.{name}"
    if not isinstance(value, dict):
        raise _error(path, key, f"{value!r} is not a table like {{ low = 0.5, high = 3.0 }}")
    _check_keys(path, f"{key}.", value, PARAM_KEYS)
    numeric = {n: p for n, p in cls.PARAMS.items() if p.kind in (int, float) and p.choices is None}
    if name.startswith("option.") and player["kind"] == "uci":
        integer, default = bool(value.get("integer", False)), value.get("default", player.get(name))
    elif name in numeric:
        integer = numeric[name].kind is int
        default = value.get("default", player.get(name, numeric[name].default))
    else:
        valid = sorted(numeric) + (["option.<NAME>"] if player["kind"] == "uci" else [])
        raise _error(path, key, f"{player['kind']!r} has no numeric parameter {name!r}", valid)
    if name in player:
        raise _error(path, f"player.{name}", "is both fixed and searched")
    if "choices" in value:
        choices = value["choices"]
        if (set(value) - {"choices", "default", "integer"} or not isinstance(choices, list) or not choices
                or not all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in choices)):
            raise _error(path, f"{key}.choices", f"{choices!r} is not a non-empty list of numbers (without low, "
                         "high and log)")
        if default is None:
            default = choices[0]
        if default not in choices:
            raise _error(path, f"{key}.choices", f"must include the default {default:g} (the baseline trial)")
        choices = tuple(int(c) if integer else float(c) for c in choices)
        return WeightRange(name, default, min(choices), max(choices), False, choices, integer)
    for bound in ("low", "high"):
        if bound not in value:
            raise _error(path, f"{key}.{bound}", "missing")
    low = _typed(path, f"{key}.low", value["low"], (int, float), "a number")
    high = _typed(path, f"{key}.high", value["high"], (int, float), "a number")
    log = _typed(path, f"{key}.log", value.get("log", False), bool, "true or false")
    if default is None:
        raise _error(path, f"{key}.default", "missing: the baseline trial needs the engine's own value")
    default = _typed(path, f"{key}.default", default, (int, float), "a number")
    if not low < high:
        raise _error(path, key, f"low {low:g} is not below high {high:g}")
    if log and low <= 0:
        raise _error(path, f"{key}.log", f"a log range needs low > 0, got {low:g}")
    if not low <= default <= high:
        raise _error(path, key, f"range {low:g}..{high:g} excludes the default {default:g} (the baseline trial)")
    if integer and not all(float(v).is_integer() for v in (low, high, default)):
        raise _error(path, key, "an integer parameter needs whole low, high and default")
    cast = int if integer else float
    return WeightRange(name, cast(default), cast(low), cast(high), bool(log), None, integer)


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


def _games(path: str, value: Any) -> tuple[str, ...]:
    """``game``: one game spec, or a list of one game's configurations (seats, levels) that seeds take turns over.

    Weights tuned in one seat of a two-seat game fit that seat (docs/tuning.md,
    Chinese chess); played in both by turns they must hold in each. One game's
    configurations only: the weights are that game's evaluation features.
    """
    specs = [value] if isinstance(value, str) else value
    if not isinstance(specs, list) or not specs or not all(isinstance(spec, str) for spec in specs):
        raise _error(path, "game", f"{value!r} is not a game spec or a non-empty list of one game's specs "
                     "(e.g. [\"xiangqi:red\", \"xiangqi:black\"])")
    games, names = [], set()
    for spec in specs:
        try:
            game_name, config = parse_spec(spec)
        except UnknownGame as error:
            raise _error(path, "game", str(error)) from None
        games.append(canonical_spec(game_name, config))
        names.add(game_name)
    if len(names) > 1:
        raise _error(path, "game", f"{' and '.join(sorted(names))} are different games; a list holds one "
                     "game's seats or levels, whose evaluation features the weights are")
    if len(set(games)) < len(games):
        raise _error(path, "game", "names a game configuration twice; the seeds take turns over the list")
    return tuple(games)


def _opponents(path: str, value: Any, game: str) -> tuple[str, ...]:
    """``opponent``: one player spec, or a list of them that the seeds take turns against.

    Weights tuned against one opponent fit that opponent (docs/tuning.md);
    against several (a ladder's hardest rungs) they must hold against each.
    """
    from players import load as load_player
    specs = [value] if isinstance(value, str) else value
    if (not isinstance(specs, list) or not specs or not all(isinstance(spec, str) for spec in specs)):
        raise _error(path, "opponent", f"{value!r} is not a player spec or a non-empty list of them")
    if len(set(specs)) < len(specs):
        raise _error(path, "opponent", "names an opponent twice; each seed plays the next one in the list")
    for spec in specs:
        if not spec.startswith("tuned:"):  # named players are resolved by the database
            try:
                load_player(spec, game)
            except SpecError as error:
                raise _error(path, "opponent", str(error)) from None
    return tuple(specs)


def _validation_player(path: str, table: Any, player: dict[str, Any], game: str,
                       params: tuple[WeightRange, ...]) -> dict[str, Any]:
    """``[validation] player``: fixed parameters of the player that the validation sets otherwise.

    A study plays its trials at a fraction of the budget its weights are
    meant for, and weights tuned at one budget can lose at another
    (docs/tuning.md); validating at the budget of use makes the verdict about
    that player. The kind, the weights and the searched parameters stay the
    trials' own: the validation compares the same two weight sets.
    """
    from players import load as load_player
    table = _typed(path, "validation", table, dict, "a table")
    _check_keys(path, "validation.", table, VALIDATION_KEYS)
    overrides = dict(_typed(path, "validation.player", table.get("player", {}), dict,
                            "a table of the player's fixed parameters, like { nodes = 1500000 }"))
    searched = {p.name for p in params}
    for key in overrides:
        if key in ("kind", "weights") or key in searched:
            raise _error(path, f"validation.player.{key}", "the validation plays the trials' kind, weights "
                         "and searched parameters; set a fixed parameter (a budget: nodes, depth, time)")
    try:
        load_player({**player, **overrides}, game)
    except SpecError as error:
        raise _error(path, "validation.player", str(error)) from None
    return overrides


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
    for key in ("name", "game", "player", "opponent", "budget", "seeds"):
        if key not in data:
            raise _error(path, key, "missing")
    if "weights" not in data and "params" not in data:
        raise _error(path, "weights", "missing (give weights, params or both)")
    name = _typed(path, "name", data["name"], str, "a string")
    if not NAME_PATTERN.match(name):
        raise _error(path, "name", f"{name!r} is not a study name: letters, digits, '_', '.', '-' "
                     "(it also names the player tuned:<name>)")
    game_specs = _games(path, data["game"])
    game = game_specs[0]

    player = _typed(path, "player", data["player"], dict, "a table with kind and fixed parameters")
    player = dict(player)
    if "kind" not in player:
        raise _error(path, "player.kind", "missing")
    try:
        load_player(player, game)
        weighted = player_class(player["kind"]).TAKES_WEIGHTS
    except SpecError as error:
        raise _error(path, "player", str(error)) from None
    raw_params = _typed(path, "params", data.get("params", {}), dict, "a table of name = { low, high }")
    params = tuple(_param(path, player, n, v) for n, v in raw_params.items())
    if not weighted and data.get("weights"):
        raise _error(path, "player.kind", f"{player['kind']!r} takes no weights (search its [params])",
                     ["alphabeta", "mcts"])
    opponents = _opponents(path, data["opponent"], game)

    raw_weights = data.get("weights", {})
    if isinstance(raw_weights, list):
        if not all(isinstance(w, str) for w in raw_weights):
            raise _error(path, "weights", "a list of weights holds feature names only")
        raw_weights = {w: {} for w in raw_weights}
    if not isinstance(raw_weights, dict) or not (raw_weights or params):
        raise _error(path, "weights", "give at least one weight, as a list of names or a table "
                     "(or a [params] table)")
    try:
        weights = tuple(_weight(path, game, n, v) for n, v in raw_weights.items())
    except UnknownGame as error:
        raise _error(path, "weights", str(error)) from None
    for param in params:
        if param.name in raw_weights:
            raise _error(path, f"params.{param.name}", "is also a weight; a name is searched once")
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
    validation_player = _validation_player(path, data.get("validation", {}), player, game, params)

    return StudyFile(
        path=path, name=name, game_specs=game_specs, player=player, opponents=opponents, weights=weights,
        objective=objective, sampler=sampler, pruner=pruner, p_threshold=float(p_threshold),
        seed=seed, trials=trials, rungs=rungs, parallel=parallel, tuning_seeds=tuning,
        validation_seeds=validation, opening_plies=opening_plies,
        description=str(data.get("description", "")), text=text, params=params,
        validation_player=validation_player)


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
