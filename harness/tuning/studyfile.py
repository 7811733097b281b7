"""Study files: the TOML that names a game, a weighted player, the weights to search and a budget.

Pure parsing and validation (no Optuna, no database, no Ray): a study file is
read into a frozen ``StudyFile`` or refused with one ``StudyFileError`` that
names the file, the key and the valid choices. Everything the driver, the race
and the confirmation need from the file (the player spec for some weights, the
match specs of some openings, the fingerprint a resumed study must keep) is a
method here, so a new kind of searched parameter is added in this module alone.

A study plays openings of the game's suite (``harness.games.openings``): every
opening in every game spec (seat, level) against every opponent, so a block of
openings is balanced by construction. Its three parts (tuning, selection,
confirmation) are disjoint ranges of the suite.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness.errors import InvalidInput, SpecError, StudyFileError, UnknownGame
from harness.games import canonical_spec, parse_spec
from harness.match import MatchSpec
from harness.tuning.objectives import OBJECTIVES

__all__ = ["OBJECTIVES", "SAMPLERS", "PRUNERS", "WeightRange", "StudyFile", "parse_study_file",
           "load_study_file", "turns_label", "spec_key", "Confirmation"]

SAMPLERS = ("tpe", "cmaes", "spsa", "random")
PRUNERS = ("incumbent", "none")
TOP_KEYS = ("name", "description", "game", "player", "opponent", "params", "objective", "sampler", "pruner",
            "p_threshold", "seed", "budget", "openings", "weights", "incumbent", "selection", "confirmation",
            "cmaes", "spsa")
BUDGET_KEYS = ("trials", "block", "blocks", "parallel")
OPENING_KEYS = ("suite", "tuning", "selection", "confirmation")
SELECTION_KEYS = ("finalists",)
CONFIRMATION_KEYS = ("player", "opponents", "smallest_gain", "tolerance", "power")
CMAES_KEYS = ("sigma",)
WEIGHT_KEYS = ("low", "high", "log", "choices")
PARAM_KEYS = WEIGHT_KEYS + ("integer", "default")
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
# keys of the study files before opening suites and paired gains (issue 43), and what replaced each
REPLACED = {"seeds": "[openings] (suite, tuning, selection, confirmation: ranges of the game's opening suite)",
            "opening_plies": "[openings] suite (a shipped suite of distinct, balanced openings)",
            "validation": "[confirmation] (player, opponents, smallest_gain, tolerance, power)"}
# The fraction of the objective's range a confirmation is sized to detect unless the file says (docs/tuning.md).
SMALLEST_GAIN_SHARE = 0.02


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
class Confirmation:
    """``[confirmation]``: where the chosen weights are confirmed against the incumbent, and the test's size.

    ``player`` sets fixed parameters (the budget of use) over both players;
    ``opponents`` are every opponent the weights must hold against (default:
    the study's); the test is sized to find ``smallest_gain`` with ``power``,
    and a better verdict allows no opponent's gain below ``-tolerance``.
    """

    player: dict[str, Any]
    opponents: tuple[str, ...]
    smallest_gain: float
    tolerance: float
    power: float = 0.8


@dataclass(frozen=True)
class StudyFile:
    """A validated study file. ``text`` is the file as written, stored with the study."""

    path: str
    name: str
    # the game specs every opening is played in: one, or a two-seat game's seats, a game's levels
    game_specs: tuple[str, ...]
    player: dict[str, Any]
    opponents: tuple[str, ...]  # every opening is played against each
    weights: tuple[WeightRange, ...]
    objective: str
    sampler: str
    pruner: str
    p_threshold: float  # the chance, over all its looks, of pruning a trial as good as the incumbent
    seed: int
    trials: int
    block: int  # openings per block: the unit of pruning, each played in every game spec against every opponent
    blocks: int  # blocks per trial
    parallel: int  # trials in flight: part of the study, not of the machine, so results do not depend on it
    suite: str  # the opening suite's name
    tuning_openings: range
    selection_openings: range
    confirmation_openings: range
    confirmation: Confirmation
    finalists: int = 3
    description: str = ""
    text: str = field(default="", repr=False, compare=False)
    params: tuple[WeightRange, ...] = ()  # searched parameters other than weights (``[params]``)
    incumbent: dict[str, float] = field(default_factory=dict)  # the starting value of every searched name
    # ``incumbent = "fitted:<name>"``: a named player the database resolves (``with_incumbent``), and its spec
    incumbent_player: str = ""
    incumbent_spec: str = ""
    sampler_settings: dict[str, Any] = field(default_factory=dict)  # ``[cmaes]`` or ``[spsa]``

    def spsa_settings(self) -> Any:
        """The SPSA sampler's settings (``harness.tuning.spsa``): its pairs fill the trials after the incumbent."""
        from harness.tuning.spsa import parse_spsa_settings
        return parse_spsa_settings(self.sampler_settings, self.weights + self.params,
                                   iterations=spsa_iterations(self.trials), seed=self.seed)

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
    def openings_per_trial(self) -> int:
        """Openings a complete trial plays: ``blocks`` blocks of ``block``."""
        return self.block * self.blocks

    def combos(self, opponents: Sequence[str] | None = None) -> list[tuple[str, str]]:
        """The (game spec, opponent) pairs each opening is played in, in a fixed order."""
        return [(game, opponent) for game in self.game_specs for opponent in (opponents or self.opponents)]

    def incumbent_weights(self) -> dict[str, float]:
        """The incumbent's value of every searched weight and parameter: trial 0, the study's start.

        Four significant digits, as every trial's (``Trial.suggest``), so its spec is trial 0's.
        """
        return {w.name: _four_digits(self.incumbent.get(w.name, w.default), w.integer)
                for w in self.weights + self.params}

    def with_incumbent(self, spec: str) -> StudyFile:
        """This study started at the weights of ``spec``, the player its file names as ``incumbent``.

        The spec's value of each searched weight (and searched parameter it
        sets) is the incumbent's; its other weights become fixed weights of
        the study's player (the file's own fixed weights win), so trial 0
        plays the named player's evaluation with the study's search settings.
        Parsing needs no database, so the tune driver resolves the name and
        calls this (``harness.tuning.stored.resolve_incumbent``).

        Raises:
            StudyFileError: a player without weights, or a value outside its searched range or choices.
        """
        from players import load as load_player
        where = f"{self.path}: incumbent {self.incumbent_player or spec}"
        try:
            named = load_player(spec, self.game)
        except SpecError as error:
            raise StudyFileError(f"{where}: {error}") from None
        if not getattr(type(named), "TAKES_WEIGHTS", False):
            raise StudyFileError(f"{where}: {named.spec!r} has no evaluation weights to start from")
        named_weights = dict(named.weights)
        named_params = {key: value for key, value in named.params.items() if value is not None}
        searched = self.weights + self.params
        table = {w.name: named_weights[w.name] for w in self.weights if w.name in named_weights}
        table |= {p.name: named_params[p.name] for p in self.params if p.name in named_params}
        incumbent = _incumbent(where, table, searched)
        fixed = {name: value for name, value in named_weights.items() if name not in {w.name for w in self.weights}}
        player = self.player | {"weights": fixed | dict(self.player.get("weights", {}))}
        return replace(self, incumbent=incumbent, player=player, incumbent_spec=named.spec)

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

    def confirmation_spec(self, spec: str) -> str:
        """A trial's player ``spec`` as the confirmation plays it: ``[confirmation] player`` set over it."""
        if not self.confirmation.player:
            return spec
        from players import load as load_player
        player = load_player(spec, self.game)
        params = {name: value for name, value in player.params.items() if value is not None}
        return load_player({"kind": player.kind, **params, **self.confirmation.player, "weights": player.weights},
                           self.game).spec

    def matches(self, player: str, openings: Iterable[int],
                opponents: Sequence[str] | None = None) -> list[MatchSpec]:
        """The match specs of ``player`` on ``openings``: each opening in every game spec against every
        opponent, opening by opening (``combos`` order). The opening's index is the match's seed."""
        pairs = self.combos(opponents)
        return [MatchSpec(game, player, opponent, opening, openings=self.suite)
                for opening in openings for game, opponent in pairs]

    def fingerprint(self) -> str:
        """What must not change when a study resumes (the number of trials may)."""
        return json.dumps({
            "game": list(self.game_specs), "player": self.player, "opponent": list(self.opponents),
            "weights": [[w.name, w.low, w.high, w.log, w.choices] for w in self.weights],
            "params": [[p.name, p.low, p.high, p.log, p.choices, p.integer] for p in self.params],
            "incumbent": self.incumbent_weights(), "objective": self.objective, "sampler": self.sampler,
            "sampler_settings": self.sampler_settings, "pruner": self.pruner, "p_threshold": self.p_threshold,
            "seed": self.seed, "block": self.block, "blocks": self.blocks, "parallel": self.parallel,
            "suite": self.suite, "tuning": [self.tuning_openings.start, self.tuning_openings.stop]}
            | ({"incumbent_player": self.incumbent_player} if self.incumbent_player else {}),
            sort_keys=True)


def spsa_iterations(trials: int) -> int:
    """SPSA's iterations in a study of ``trials``: after the incumbent, a pair each, and at least one last
    trial that plays the mean the iterations reached (it takes part in the race)."""
    return max(0, (trials - 2) // 2)


def _four_digits(value: float, integer: bool) -> float:
    return int(value) if integer else float(f"{float(value):.4g}")


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
        raise _error(path, "game", "names a game configuration twice; every opening is played in each")
    return tuple(games)


def _opponents(path: str, value: Any, game: str, key: str = "opponent") -> tuple[str, ...]:
    """``opponent``: one player spec, or a list of them; every opening is played against each.

    Weights tuned against one opponent fit that opponent (docs/tuning.md);
    against several (a ladder's hardest rungs) they must hold against each.
    """
    from players import load as load_player
    from players.named import is_named
    specs = [value] if isinstance(value, str) else value
    if (not isinstance(specs, list) or not specs or not all(isinstance(spec, str) for spec in specs)):
        raise _error(path, key, f"{value!r} is not a player spec or a non-empty list of them")
    if len(set(specs)) < len(specs):
        raise _error(path, key, "names an opponent twice")
    for spec in specs:
        if not is_named(spec):  # named players are resolved by the database
            try:
                load_player(spec, game)
            except SpecError as error:
                raise _error(path, key, str(error)) from None
    return tuple(specs)


def _confirmation(path: str, table: Any, player: dict[str, Any], game_specs: tuple[str, ...],
                  params: tuple[WeightRange, ...], opponents: tuple[str, ...], objective: str) -> Confirmation:
    """``[confirmation]``: the budget of use, the opponents the weights must hold against, the test's size.

    A study plays its trials at a fraction of the budget its weights are
    meant for, and weights tuned at one budget or against one opponent can
    lose at another (docs/tuning.md); confirming at the budget of use against
    every opponent makes the verdict about the player as it will be used. The
    kind, the weights and the searched parameters stay the trials' own.
    """
    from players import load as load_player
    from harness.tuning.objectives import value_bounds
    table = _typed(path, "confirmation", table, dict, "a table")
    _check_keys(path, "confirmation.", table, CONFIRMATION_KEYS)
    overrides = dict(_typed(path, "confirmation.player", table.get("player", {}), dict,
                            "a table of the player's fixed parameters, like { nodes = 1500000 }"))
    searched = {p.name for p in params}
    for key in overrides:
        if key in ("kind", "weights") or key in searched:
            raise _error(path, f"confirmation.player.{key}", "the confirmation plays the trials' kind, weights "
                         "and searched parameters; set a fixed parameter (a budget: nodes, depth, time)")
    try:
        load_player({**player, **overrides}, game_specs[0])
    except SpecError as error:
        raise _error(path, "confirmation.player", str(error)) from None
    given = table.get("opponents", list(opponents))
    if given == "ladder":  # every stand-in rung of the game: weights tuned on some rungs must hold on all
        from players.ladder import ladder
        given = ladder(game_specs[0])
    confirm_opponents = _opponents(path, given, game_specs[0], "confirmation.opponents")
    low, high = value_bounds(game_specs, objective)
    smallest = _typed(path, "confirmation.smallest_gain",
                      table.get("smallest_gain", round(SMALLEST_GAIN_SHARE * (high - low), 6)), (int, float),
                      "a positive number (in the objective's units)")
    if smallest <= 0:
        raise _error(path, "confirmation.smallest_gain", f"{smallest} is not positive")
    tolerance = _typed(path, "confirmation.tolerance", table.get("tolerance", 2 * smallest), (int, float),
                       "a number >= 0 (in the objective's units)")
    if tolerance < 0:
        raise _error(path, "confirmation.tolerance", f"{tolerance} is negative")
    power = _typed(path, "confirmation.power", table.get("power", 0.8), (int, float), "a number")
    if not 0.5 <= power < 1:
        raise _error(path, "confirmation.power", f"{power} is not in [0.5, 1)")
    return Confirmation(overrides, confirm_opponents, float(smallest), float(tolerance), float(power))


def _openings(path: str, table: Any, game: str, budget_openings: int) -> tuple[str, range, range, range]:
    """``[openings]``: the suite and its three disjoint parts (tuning, selection, confirmation)."""
    from harness.games.openings import STRENGTH_OPENINGS, load_suite
    table = _typed(path, "openings", table, dict, "a table")
    _check_keys(path, "openings.", table, OPENING_KEYS)
    try:
        suite = load_suite(game, _typed(path, "openings.suite", table["suite"], str, "a suite name")
                           if "suite" in table else None)
    except (InvalidInput, ValueError) as error:
        raise _error(path, "openings.suite", str(error)) from None
    parts = []
    for key in OPENING_KEYS[1:]:
        if key not in table:
            raise _error(path, f"openings.{key}", "missing ([first, stop] of the suite's openings)")
        part = _seed_range(path, f"openings.{key}", table[key])
        if part.stop > len(suite):
            raise _error(path, f"openings.{key}", f"{[part.start, part.stop]} goes past the suite "
                         f"{suite.name!r}, which holds openings 0..{len(suite) - 1}")
        if part.start < STRENGTH_OPENINGS.stop and STRENGTH_OPENINGS.start < part.stop:
            raise _error(path, f"openings.{key}", f"{[part.start, part.stop]} reaches openings "
                         f"{STRENGTH_OPENINGS.start}-{STRENGTH_OPENINGS.stop - 1}, which are kept for strength "
                         f"claims (docs/players.md); use openings below {STRENGTH_OPENINGS.start}")
        parts.append(part)
    for (i, first), (j, second) in ((p, q) for p in enumerate(parts) for q in enumerate(parts) if p[0] < q[0]):
        if first.start < second.stop and second.start < first.stop:
            raise _error(path, "openings", f"{OPENING_KEYS[1 + i]} and {OPENING_KEYS[1 + j]} overlap; the parts "
                         "must be disjoint (a claim is made only on openings it never saw)")
    if len(parts[0]) < budget_openings:
        raise _error(path, "openings.tuning", f"{len(parts[0])} openings cannot fill a trial's "
                     f"{budget_openings} (budget.block x budget.blocks)")
    return suite.name, parts[0], parts[1], parts[2]


def _sampler_settings(path: str, data: dict[str, Any], sampler: str,
                      weights: tuple[WeightRange, ...]) -> dict[str, Any]:
    """``[cmaes]`` or ``[spsa]``: the chosen sampler's settings (the other's table is refused)."""
    for other in ("cmaes", "spsa"):
        if other in data and other != sampler:
            raise _error(path, other, f"settings of the {other} sampler, but sampler = {sampler!r}")
    table = dict(_typed(path, sampler, data.get(sampler, {}), dict, "a table"))
    if sampler == "cmaes":
        _check_keys(path, "cmaes.", table, CMAES_KEYS)
        sigma = _typed(path, "cmaes.sigma", table.get("sigma", 0.1), (int, float), "a number")
        if not 0 < sigma <= 1:
            raise _error(path, "cmaes.sigma", f"{sigma} is not in (0, 1] (the first step, a share of each range)")
        return {"sigma": float(sigma)}
    if sampler == "spsa":
        from harness.tuning.spsa import parse_spsa_settings
        try:
            parse_spsa_settings(table, weights, iterations=1)
        except StudyFileError as error:
            raise StudyFileError(f"{path}: {str(error).replace('sampler.', 'spsa.', 1)}") from None
    return table


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
    for key, replacement in REPLACED.items():
        if key in data:
            raise _error(path, key, f"no longer a study key; replaced by {replacement} (docs/tuning.md)")
    _check_keys(path, "", data, TOP_KEYS)
    for key in ("name", "game", "player", "opponent", "budget", "openings"):
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
    incumbent_player = _incumbent_player(path, data.get("incumbent"))
    incumbent = {} if incumbent_player else _incumbent(path, data.get("incumbent", {}), weights + params)

    objective = data.get("objective", "mean_score")
    if objective not in OBJECTIVES:
        raise _error(path, "objective", f"unknown objective {objective!r}", OBJECTIVES)
    sampler = data.get("sampler", "tpe")
    if sampler not in SAMPLERS:
        raise _error(path, "sampler", f"unknown sampler {sampler!r}", SAMPLERS)
    sampler_settings = _sampler_settings(path, data, sampler, weights + params)
    pruner = data.get("pruner", "incumbent")
    if pruner not in PRUNERS:
        raise _error(path, "pruner", f"unknown pruner {pruner!r}", PRUNERS)
    p_threshold = _typed(path, "p_threshold", data.get("p_threshold", 0.05), (int, float), "a number")
    if not 0 < p_threshold < 1:
        raise _error(path, "p_threshold", f"{p_threshold} is not between 0 and 1")
    seed = _typed(path, "seed", data.get("seed", 0), int, "an integer")

    budget = _typed(path, "budget", data["budget"], dict, "a table")
    _check_keys(path, "budget.", budget, BUDGET_KEYS)
    counts = {}
    for key, default in (("trials", None), ("block", 8), ("blocks", 4), ("parallel", 4)):
        if key not in budget and default is None:
            raise _error(path, f"budget.{key}", "missing")
        counts[key] = _typed(path, f"budget.{key}", budget.get(key, default), int, "a positive integer")
        if counts[key] < 1:
            raise _error(path, f"budget.{key}", f"{counts[key]} is not a positive integer")
    if sampler == "spsa" and counts["trials"] < 4:
        raise _error(path, "budget.trials", "SPSA needs at least 4 trials (the incumbent, a pair, the mean)")

    suite, tuning, selection, confirmation_openings = _openings(path, data["openings"], game,
                                                                counts["block"] * counts["blocks"])
    selection_table = _typed(path, "selection", data.get("selection", {}), dict, "a table")
    _check_keys(path, "selection.", selection_table, SELECTION_KEYS)
    finalists = _typed(path, "selection.finalists", selection_table.get("finalists", 3), int, "a positive integer")
    if finalists < 1:
        raise _error(path, "selection.finalists", f"{finalists} is not a positive integer")
    confirmation = _confirmation(path, data.get("confirmation", {}), player, game_specs, params, opponents,
                                 objective)

    return StudyFile(
        path=path, name=name, game_specs=game_specs, player=player, opponents=opponents, weights=weights,
        objective=objective, sampler=sampler, pruner=pruner, p_threshold=float(p_threshold), seed=seed,
        trials=counts["trials"], block=counts["block"], blocks=counts["blocks"], parallel=counts["parallel"],
        suite=suite, tuning_openings=tuning, selection_openings=selection,
        confirmation_openings=confirmation_openings, confirmation=confirmation, finalists=finalists,
        description=str(data.get("description", "")), text=text, params=params, incumbent=incumbent,
        sampler_settings=sampler_settings, incumbent_player=incumbent_player)


def _incumbent_player(path: str, value: Any) -> str:
    """``incumbent = "fitted:<name>"`` (or ``tuned:<name>``): the named player to start from, checked as a name only."""
    if not isinstance(value, str):
        return ""
    from harness.db.database import check_player_name
    from players.named import NAMED_PREFIXES, is_named
    if not is_named(value):
        raise _error(path, "incumbent", f"{value!r} is not a named player; give fitted:<name> or tuned:<name>, "
                     "or an [incumbent] table of name = value", NAMED_PREFIXES)
    try:
        check_player_name(value.partition(":")[2])
    except InvalidInput as error:
        raise _error(path, "incumbent", str(error)) from None
    return value


def _incumbent(path: str, table: Any, searched: tuple[WeightRange, ...]) -> dict[str, float]:
    """``[incumbent]``: where the study starts (trial 0), when not at the defaults: a value per searched name."""
    table = _typed(path, "incumbent", table, dict, "a table of name = value")
    ranges = {w.name: w for w in searched}
    found = {}
    for name, value in table.items():
        if name not in ranges:
            raise _error(path, f"incumbent.{name}", "is not a searched weight or parameter", sorted(ranges))
        value = _typed(path, f"incumbent.{name}", value, (int, float), "a number")
        weight = ranges[name]
        if weight.choices is not None and value not in weight.choices:
            raise _error(path, f"incumbent.{name}", f"{value:g} is not one of the choices", weight.choices)
        if not weight.low <= value <= weight.high:
            raise _error(path, f"incumbent.{name}", f"{value:g} is outside the range {weight.describe()}")
        found[name] = int(value) if weight.integer else float(value)
    return found


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
