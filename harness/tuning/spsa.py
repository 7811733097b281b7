"""SPSA over a study's numbered slots: a pure, deterministic proposer (no Optuna, no database, no Ray).

Simultaneous perturbation stochastic approximation in the form engine testers
run it (fishtest's SPSA, after Spall). Iteration ``k = j + 1`` draws a
Rademacher vector ``Δ_j`` (±1 per weight), plays the pair
``θ_j + c_k Δ_j`` and ``θ_j − c_k Δ_j`` and moves

    θ ← θ + a_k · c² · (v+ − v−) / (2 c_k Δ),   c_k = c / k^gamma,   a_k ∝ 1 / (A + k)^alpha.

The ``c²`` is fishtest's per-weight gain (its ``a = r · c²``): a step is
measured in units of each weight's own ``c``, so every weight moves as far,
relative to its probe, for the same difference ``v+ − v−``.

Slots. A study numbers its trials 0..T−1. Slot 0 is the incumbent (the study's
starting weights, value 0: every value is a paired gain over it); iteration
``j`` plays slots ``2j + 1`` (plus) and ``2j + 2`` (minus). ``θ_j`` is the start
plus the update of every iteration ``i < j`` whose two slots are told. What is
told is passed in (``told``: slot -> value), so nothing here depends on timing,
on how many trials are in flight, or on the order values arrived in; ``Δ_j``
comes from a generator seeded by ``(seed, j)`` alone. The two slots of one
iteration must see the same ``θ_j``: a driver that asks for slot ``2j + 2``
after more has been told passes what was told when it asked for ``2j + 1``
(``pair_told`` computes it from the number in flight).

Space. The search runs on each weight's range mapped to 0..1 (on the logarithm
of the range for a ``log`` weight), so ``c`` is a fraction of the range and one
``a`` serves weights of any size. θ and both points are clipped to the range;
an ``integer`` weight's points are rounded (θ itself stays continuous); a
weight with ``choices`` is refused, since SPSA needs a continuous range.
Readings chosen where fishtest leaves a choice: a clipped point keeps the
nominal ``2 c_k`` in the update (as fishtest does), and θ is clipped after
every update, in iteration order.

Fixed weights. Only the weights in ``weights`` are searched; any other weight
of the player stays as the study file fixes it. Fix one weight of an
evaluation to fix its scale: an alpha-beta search plays the same moves when
every weight is multiplied by one constant, so the scale is not worth searching.

Units of the values. ``a`` is dimensionless: ``a = 1`` moves a weight by about
its ``c`` in the first iteration when ``|v+ − v−|`` equals ``scale``. With no
``scale`` (the default) the differences are divided by their root mean square
over the iterations used, so the default step needs no knowledge of the
objective's units (points, a win rate, a gain of some games); a fixed
``scale`` (the objective's typical per-pair difference) gives fishtest's
update to the letter, each iteration's step then fixed once it is told.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from harness.errors import StudyFileError
from harness.tuning.studyfile import WeightRange

__all__ = ["SAMPLER_KEYS", "SpsaSettings", "parse_spsa_settings", "spsa_point", "spsa_theta", "pair_told",
           "pair_slots"]

SAMPLER_KEYS = ("c", "a", "A", "alpha", "gamma", "scale")
# A as a share of the iterations: fishtest's recommendation, so the first steps are not the largest by far
STABILITY_SHARE = 0.1


@dataclass(frozen=True)
class SpsaSettings:
    """How SPSA perturbs and steps; the defaults are fishtest's.

    Attributes:
        c: the perturbation of iteration 1, a fraction of each weight's range
            (of its log range for a ``log`` weight). 0.1, a tenth of the range:
            wide enough that the two points play differently, narrow enough
            that a start inside the range keeps both points mostly unclipped;
            lower it where the range is much wider than the weight's useful values.
        c_by_weight: per-weight ``c`` (name, fraction of its range), overriding ``c``.
        a: the first iteration's step in units of each weight's ``c``, for a
            pair whose difference is ``scale`` (1: a typical pair moves a
            weight by about its ``c``); later steps shrink as ``(A + 1)^alpha /
            (A + k)^alpha · k^gamma``.
        A: the stability constant; ``parse_spsa_settings`` makes it 10% of the
            iterations, as fishtest recommends, so the early steps are not the
            largest by far.
        alpha: the step's decay exponent (0.602, Spall's practical value).
        gamma: the perturbation's decay exponent (0.101, Spall's practical value).
        scale: the typical ``|v+ − v−|`` in the objective's units; None: the
            root mean square of the differences of the iterations used.
        seed: seeds each iteration's perturbation with ``(seed, iteration)``.
    """

    c: float = 0.1
    c_by_weight: tuple[tuple[str, float], ...] = ()
    a: float = 1.0
    A: float = 0.0
    alpha: float = 0.602
    gamma: float = 0.101
    scale: float | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        _require("c", 0 < self.c <= 0.5, self.c, "0 < c <= 0.5 (a fraction of each weight's range)")
        for name, fraction in self.c_by_weight:
            _require(f"c.{name}", 0 < fraction <= 0.5, fraction, "0 < c <= 0.5 (a fraction of the range)")
        _require("a", 0 < self.a <= 100, self.a, "0 < a <= 100 (the first step in units of c)")
        _require("A", 0 <= self.A < math.inf, self.A, "A >= 0 (default: 10% of the iterations)")
        _require("alpha", 0 < self.alpha <= 1, self.alpha, "0 < alpha <= 1 (fishtest: 0.602)")
        _require("gamma", 0 <= self.gamma < self.alpha, self.gamma, "0 <= gamma < alpha (fishtest: 0.101)")
        if self.scale is not None:
            _require("scale", 0 < self.scale < math.inf, self.scale, "scale > 0, or leave it out")
        if not (isinstance(self.seed, int) and self.seed >= 0):
            raise StudyFileError(f"seed: {self.seed!r} is out of range; valid: a whole number >= 0")

    def step(self, k: int) -> float:
        """The step of iteration ``k`` (1-based) in units of ``c``, per unit of ``(v+ − v−) / scale``.

        Spall's ``a_k / c_k`` with ``a_k = a'/(A + k)^alpha``, ``a'`` chosen so
        that ``step(1) == a``.
        """
        return self.a * ((self.A + 1) / (self.A + k)) ** self.alpha * k ** self.gamma

    def perturbation(self, k: int) -> float:
        """``c_k / c`` for iteration ``k`` (1-based): how much of each weight's ``c`` the pair is apart from θ."""
        return 1.0 / k ** self.gamma


def parse_spsa_settings(table: Mapping[str, Any], weights: Sequence[WeightRange], *, iterations: int,
                        seed: int = 0) -> SpsaSettings:
    """The settings of a study file's ``[sampler]`` table, checked against the weights it will search.

    Args:
        table: e.g. ``{ c = 0.1, a = 1.0, A = 5, alpha = 0.602, gamma = 0.101 }``;
            every key may be left out. ``c`` is a fraction of each weight's
            range, or a table of absolute values by weight name (for a ``log``
            weight the natural logarithm of a factor: 0.1 is ×1.105), the
            weights it leaves out keeping 0.1 of their range. ``scale`` is the
            objective's typical per-pair difference (left out: measured).
        weights: the searched weights.
        iterations: how many SPSA iterations (two slots each) the study plays; sets the default ``A``.
        seed: the study's seed.

    Raises:
        StudyFileError: one line naming the key (``sampler.alpha``) and its valid range.
    """
    for key in table:
        if key not in SAMPLER_KEYS:
            raise StudyFileError(f"sampler.{key}: unknown key; valid: {', '.join(SAMPLER_KEYS)}")
    numbers = {key: _number(key, table[key]) for key in SAMPLER_KEYS if key in table and key != "c"}
    c: float = 0.1
    c_by_weight: list[tuple[str, float]] = []
    if isinstance(table.get("c"), Mapping):
        by_name = {w.name: w for w in weights}
        for name, value in table["c"].items():
            if name not in by_name:
                raise StudyFileError(f"sampler.c.{name}: not a searched weight; valid: {', '.join(by_name)}")
            span = _span(by_name[name])
            absolute = _number(f"c.{name}", value)
            _require(f"c.{name}", 0 < absolute <= span / 2, absolute,
                     f"0 < c <= {span / 2:g} (half the {'log ' if by_name[name].log else ''}range)")
            c_by_weight.append((name, absolute / span))
    elif "c" in table:
        c = _number("c", table["c"])
    settings = SpsaSettings(c=c, c_by_weight=tuple(c_by_weight), a=numbers.get("a", 1.0),
                            A=numbers.get("A", STABILITY_SHARE * max(iterations, 0)),
                            alpha=numbers.get("alpha", 0.602), gamma=numbers.get("gamma", 0.101),
                            scale=numbers.get("scale"), seed=seed)
    _Space.of(settings, weights)  # refuses choices, empty ranges and integer probes that round to one value
    return settings


def pair_slots(iteration: int) -> tuple[int, int]:
    """The slots of ``iteration`` (0-based): its plus point, then its minus point."""
    return 2 * iteration + 1, 2 * iteration + 2


def pair_told(told: Mapping[int, float], slot: int, in_flight: int) -> dict[int, float]:
    """What a driver with ``in_flight`` trials running had told when it asked for the first slot of ``slot``'s pair.

    With P in flight, slot k is asked for once the slots 0..k−P are told; the
    minus slot ``2j + 2`` must be proposed from what its plus slot ``2j + 1``
    saw, the slots 0..2j+1−P, or the two points would straddle different θs.
    """
    first = slot if slot % 2 else slot - 1
    return {s: value for s, value in told.items() if s <= first - in_flight}


def spsa_point(settings: SpsaSettings, weights: Sequence[WeightRange], start: Mapping[str, float],
               told: Mapping[int, float], slot: int) -> dict[str, float]:
    """The weights slot ``slot`` plays: the incumbent for slot 0, else one point of a pair.

    Args:
        settings: the perturbation and step.
        weights: the searched weights (any other weight stays fixed in the player).
        start: the incumbent's weights (a searched weight it leaves out starts at its default).
        told: slot -> value of the finished slots. Slots from the pair's own
            on are never used, but both slots of a pair must be given what was
            told when its first slot was asked for (``pair_told``): an
            iteration finished in between would move the θ the minus point
            straddles.
        slot: 0..T−1.

    Returns:
        Each searched weight's value, clipped to its range, a whole number for an ``integer`` weight.

    Raises:
        StudyFileError: a weight with choices, an empty range, or a negative slot.
    """
    if slot < 0:
        raise StudyFileError(f"slot {slot}: valid: 0 or more")
    if slot == 0:
        return {w.name: start.get(w.name, w.default) for w in weights}
    space = _Space.of(settings, weights)
    iteration, sign = (slot - 1) // 2, (1.0 if slot % 2 else -1.0)
    theta = _theta(settings, space, _start(space, weights, start), told, pair_slots(iteration)[0])
    k = iteration + 1
    point = theta + sign * settings.perturbation(k) * space.c * _delta(settings.seed, iteration, len(space.names))
    return space.weights(point)


def spsa_theta(settings: SpsaSettings, weights: Sequence[WeightRange], start: Mapping[str, float],
               told: Mapping[int, float], upto_slot: int | None = None) -> dict[str, float]:
    """The current θ: the start moved by every iteration whose two slots are told (and below ``upto_slot``).

    ``upto_slot = 2j + 1`` gives the θ_j that iteration ``j``'s pair straddles;
    None gives the mean the study has reached, e.g. for a last slot that plays
    θ itself. Clipped and rounded as ``spsa_point``'s points are.
    """
    space = _Space.of(settings, weights)
    theta = _theta(settings, space, _start(space, weights, start), told, math.inf if upto_slot is None else upto_slot)
    return space.weights(theta)


@dataclass(frozen=True)
class _Space:
    """The searched weights mapped to 0..1 each (on the logarithm for log weights), with each one's ``c``."""

    names: tuple[str, ...]
    low: np.ndarray  # in search coordinates (the logarithm for a log weight)
    span: np.ndarray
    log: np.ndarray
    integer: np.ndarray
    c: np.ndarray  # a fraction of the span
    bounds: tuple[np.ndarray, np.ndarray]  # low and high as written, to clip away exp(log(high)) > high

    @classmethod
    def of(cls, settings: SpsaSettings, weights: Sequence[WeightRange]) -> _Space:
        by_name = dict(settings.c_by_weight)
        for w in weights:
            if w.choices is not None:
                raise StudyFileError(f"weights.{w.name}: SPSA needs a continuous range, not choices; "
                                     f"valid: {{ low = ..., high = ... }}")
            if not w.low < w.high or (w.log and w.low <= 0):
                raise StudyFileError(f"weights.{w.name}: {w.describe()} is empty; valid: low < high "
                                     f"(and low > 0 for a log weight)")
            fraction = by_name.get(w.name, settings.c)
            if w.integer and not w.log and fraction * (w.high - w.low) < 0.5:
                raise StudyFileError(f"sampler.c: {fraction:g} of {w.name}'s range {w.describe()} is "
                                     f"{fraction * (w.high - w.low):g}, so both points of a pair round to one "
                                     f"whole number; valid: c >= {0.5 / (w.high - w.low):g} for {w.name}")
        return cls(names=tuple(w.name for w in weights),
                   low=np.array([math.log(w.low) if w.log else w.low for w in weights], dtype=float),
                   span=np.array([_span(w) for w in weights], dtype=float),
                   log=np.array([w.log for w in weights], dtype=bool),
                   integer=np.array([w.integer for w in weights], dtype=bool),
                   c=np.array([by_name.get(w.name, settings.c) for w in weights], dtype=float),
                   bounds=(np.array([w.low for w in weights], dtype=float),
                           np.array([w.high for w in weights], dtype=float)))

    def unit(self, values: Sequence[float]) -> np.ndarray:
        """Weights -> 0..1 coordinates, clipped."""
        raw = np.array(values, dtype=float)
        coordinates = np.where(self.log, np.log(np.where(self.log, np.maximum(raw, 1e-300), 1.0)), raw)
        return np.clip((coordinates - self.low) / self.span, 0.0, 1.0)

    def weights(self, unit: np.ndarray) -> dict[str, float]:
        """0..1 coordinates -> weights, clipped to the range and rounded for integer weights."""
        coordinates = self.low + np.clip(unit, 0.0, 1.0) * self.span
        exponentiated = np.exp(coordinates, where=self.log, out=coordinates.copy())  # only the log weights
        values = np.clip(exponentiated, *self.bounds)
        return {name: (int(round(value)) if integer else float(value))
                for name, value, integer in zip(self.names, values, self.integer)}


def _start(space: _Space, weights: Sequence[WeightRange], start: Mapping[str, float]) -> np.ndarray:
    """The incumbent in 0..1 coordinates (a weight ``start`` leaves out at its default)."""
    return space.unit([start.get(w.name, w.default) for w in weights])


def _theta(settings: SpsaSettings, space: _Space, theta: np.ndarray, told: Mapping[int, float],
           upto_slot: float) -> np.ndarray:
    """θ in 0..1 coordinates: ``theta`` moved by every iteration whose both slots are told and below ``upto_slot``."""
    iterations = sorted({(slot - 1) // 2 for slot in told if slot >= 1})
    differences = [(i, told[plus] - told[minus]) for i in iterations
                   for plus, minus in [pair_slots(i)] if plus in told and minus in told and minus < upto_slot]
    if not differences:
        return theta
    scale = settings.scale or math.sqrt(sum(d * d for _, d in differences) / len(differences))
    if scale == 0:
        return theta
    for i, difference in differences:
        step = settings.step(i + 1) * difference / scale
        theta = np.clip(theta + step * space.c * _delta(settings.seed, i, len(space.names)), 0.0, 1.0)
    return theta


def _delta(seed: int, iteration: int, size: int) -> np.ndarray:
    """Iteration ``iteration``'s Rademacher vector: ±1 per weight, from ``(seed, iteration)`` alone."""
    return np.where(np.random.default_rng([seed, iteration]).random(size) < 0.5, -1.0, 1.0)


def _span(weight: WeightRange) -> float:
    """The weight's range in search coordinates (its log range for a log weight)."""
    return math.log(weight.high / weight.low) if weight.log else weight.high - weight.low


def _number(key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise StudyFileError(f"sampler.{key}: {value!r} is not a finite number")
    return float(value)


def _require(key: str, ok: bool, value: Any, valid: str) -> None:
    if not ok:
        raise StudyFileError(f"sampler.{key}: {value!r} is out of range; valid: {valid}")
