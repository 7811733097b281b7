"""SPSA's proposer: pure and deterministic, pairs straddle θ, ranges hold, and it finds a known optimum.

The convergence tests run the slot scheme the study driver runs: slot k is
proposed once the slots 0..k−P are told, the minus slot of a pair from what
its plus slot saw (``pair_told``), each value a gain over the incumbent.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from harness.errors import StudyFileError
from harness.tuning.spsa import SpsaSettings, pair_slots, pair_told, parse_spsa_settings, spsa_point, spsa_theta
from harness.tuning.studyfile import WeightRange

WEIGHTS = (WeightRange("x", 1.0, 0.0, 10.0), WeightRange("y", 9.0, 0.0, 10.0),
           WeightRange("z", 0.5, 0.1, 100.0, log=True))
START = {"x": 1.0, "y": 9.0, "z": 0.5}
OPTIMUM = {"x": 7.0, "y": 3.0, "z": 20.0}
SETTINGS = SpsaSettings(seed=7)


def quadratic(weights: dict[str, float]) -> float:
    """Highest at OPTIMUM, as curved in each weight's 0..1 coordinate (z's is on its logarithm)."""
    return -10 * (((weights["x"] - OPTIMUM["x"]) / 10) ** 2 + ((weights["y"] - OPTIMUM["y"]) / 10) ** 2
                  + (math.log(weights["z"] / OPTIMUM["z"]) / math.log(1000)) ** 2)


def run_study(iterations: int, in_flight: int, noise: float, seed: int = 0) -> tuple[dict[str, float], dict[int, float]]:
    """Every slot of a study proposed and evaluated in slot order with ``in_flight`` trials running."""
    settings = parse_spsa_settings({}, WEIGHTS, iterations=iterations, seed=seed)
    rng = np.random.default_rng(seed + 1000)
    values: dict[int, float] = {}
    for slot in range(2 * iterations + 1):
        told = {s: values[s] for s in range(slot - in_flight + 1)}
        point = spsa_point(settings, WEIGHTS, START, pair_told(told, slot, in_flight), slot)
        values[slot] = quadratic(point) - quadratic(START) + noise * rng.normal()
    return spsa_theta(settings, WEIGHTS, START, values), values


def distance(theta: dict[str, float]) -> tuple[float, float, float]:
    return abs(theta["x"] - OPTIMUM["x"]), abs(theta["y"] - OPTIMUM["y"]), abs(math.log(theta["z"] / OPTIMUM["z"]))


TOLD = {0: 0.0, 1: 0.4, 2: -0.3, 3: 0.1, 4: 0.5, 5: -0.2, 6: 0.0}


def test_slot_zero_is_the_incumbent_and_fixed_weights_are_left_out() -> None:
    assert spsa_point(SETTINGS, WEIGHTS, {**START, "fixed": 3.0}, TOLD, 0) == START
    assert set(spsa_point(SETTINGS, WEIGHTS, {**START, "fixed": 3.0}, TOLD, 5)) == {"x", "y", "z"}


def test_the_same_inputs_give_the_same_points_whatever_the_order_or_the_slots_not_used() -> None:
    first = spsa_point(SETTINGS, WEIGHTS, START, TOLD, 7)
    shuffled = dict(reversed(list(TOLD.items())))
    later = {**TOLD, 7: 9.0, 8: -9.0, 11: 5.0, 9: 1.0}  # the pair itself, a lone plus slot, a later iteration
    assert spsa_point(SETTINGS, WEIGHTS, START, shuffled, 7) == first
    assert spsa_point(SETTINGS, WEIGHTS, START, later, 7) == first
    assert spsa_point(SpsaSettings(seed=8), WEIGHTS, START, TOLD, 7) != first


def test_an_iteration_counts_only_once_both_its_slots_are_told() -> None:
    one_slot = {s: v for s, v in TOLD.items() if s != 6}
    assert spsa_theta(SETTINGS, WEIGHTS, START, one_slot) == spsa_theta(SETTINGS, WEIGHTS, START, TOLD, upto_slot=6)
    assert spsa_theta(SETTINGS, WEIGHTS, START, one_slot) != spsa_theta(SETTINGS, WEIGHTS, START, TOLD)


def test_the_pair_straddles_theta_by_c_k_with_a_perturbation_that_ignores_history() -> None:
    middle = {"x": 5.0, "y": 5.0, "z": 3.0}
    signs = []
    for told in ({}, TOLD):
        theta = spsa_theta(SETTINGS, WEIGHTS, middle, told, upto_slot=7)
        plus, minus = (spsa_point(SETTINGS, WEIGHTS, middle, told, slot) for slot in pair_slots(3))
        c_k = SETTINGS.c / 4 ** SETTINGS.gamma  # iteration 3 is k = 4
        for name in ("x", "y"):
            assert plus[name] + minus[name] == pytest.approx(2 * theta[name])
            assert abs(plus[name] - theta[name]) == pytest.approx(c_k * 10)
        assert plus["z"] * minus["z"] == pytest.approx(theta["z"] ** 2)  # symmetric on the logarithm
        assert abs(math.log(plus["z"] / theta["z"])) == pytest.approx(c_k * math.log(1000))
        signs.append({name: plus[name] > theta[name] for name in theta})
    assert signs[0] == signs[1]


def test_a_typical_difference_moves_each_weight_by_its_c_in_the_first_iteration() -> None:
    settings = SpsaSettings(scale=0.5, seed=3)
    plus = spsa_point(settings, WEIGHTS, {"x": 5.0, "y": 5.0, "z": 3.0}, {}, 1)
    theta = spsa_theta(settings, WEIGHTS, {"x": 5.0, "y": 5.0, "z": 3.0}, {0: 0.0, 1: 0.3, 2: -0.2})
    assert theta["x"] - 5.0 == pytest.approx(plus["x"] - 5.0)  # step a·c·(v+ − v−)/scale = c towards plus
    assert math.log(theta["z"] / 3.0) == pytest.approx(math.log(plus["z"] / 3.0))


def test_points_and_theta_stay_in_range_and_integer_weights_are_whole() -> None:
    weights = WEIGHTS + (WeightRange("depth", 3, 1, 9, integer=True),)
    edge = {"x": 10.0, "y": 0.0, "z": 100.0, "depth": 9}
    told = {0: 0.0, **{s: (1e6 if s % 2 else -1e6) for s in range(1, 41)}}
    for slot in range(1, 43):
        for values in (spsa_point(SETTINGS, weights, edge, told, slot), spsa_theta(SETTINGS, weights, edge, told)):
            assert all(w.low <= values[w.name] <= w.high for w in weights)
            assert isinstance(values["depth"], int)


def test_convergence_without_noise_from_a_far_start_in_100_iterations() -> None:
    for in_flight in (1, 2, 5):
        theta, _ = run_study(100, in_flight, noise=0.0)
        x, y, z = distance(theta)
        assert x < 0.3 and y < 0.3 and z < 0.25, (in_flight, theta)  # from 6, 6 and 3.7


def test_convergence_with_noise_in_100_iterations() -> None:
    # each slot's value off by N(0, 0.5): a pair's difference by 0.7, near the optimum far more than its signal
    theta, _ = run_study(100, in_flight=3, noise=0.5)
    x, y, z = distance(theta)
    assert x < 1.5 and y < 1.5 and z < 0.9, theta  # within a quarter of the start's 6, 6 and 3.7


def test_the_minus_slot_proposed_later_still_straddles_the_theta_its_plus_slot_saw() -> None:
    _, values = run_study(20, in_flight=2, noise=1.0)
    told_at = {slot: {s: values[s] for s in range(slot - 1)} for slot in (33, 34)}  # slots 0..k−2 told
    middle = {"x": 5.0, "y": 5.0, "z": 3.0}
    plus = spsa_point(SETTINGS, WEIGHTS, middle, told_at[33], 33)
    minus = spsa_point(SETTINGS, WEIGHTS, middle, pair_told(told_at[34], 34, in_flight=2), 34)
    theta = spsa_theta(SETTINGS, WEIGHTS, middle, told_at[33], upto_slot=33)
    assert pair_told(told_at[34], 34, in_flight=2) == told_at[33]
    assert plus["x"] + minus["x"] == pytest.approx(2 * theta["x"])
    unpaired = spsa_point(SETTINGS, WEIGHTS, middle, told_at[34], 34)  # slot 32 completes iteration 15
    assert unpaired["x"] + plus["x"] != pytest.approx(2 * theta["x"])


def test_a_whole_study_is_the_same_on_every_run() -> None:
    assert run_study(20, 3, 1.0) == run_study(20, 3, 1.0)


def test_parse_reads_the_sampler_table_and_defaults_A_to_a_tenth_of_the_iterations() -> None:
    settings = parse_spsa_settings({"c": 0.2, "a": 0.5, "alpha": 0.7, "gamma": 0.2, "scale": 40}, WEIGHTS,
                                   iterations=50, seed=4)
    assert settings == SpsaSettings(c=0.2, a=0.5, A=5.0, alpha=0.7, gamma=0.2, scale=40.0, seed=4)
    absolute = parse_spsa_settings({"c": {"x": 2.0, "z": math.log(2)}, "A": 0}, WEIGHTS, iterations=50)
    assert dict(absolute.c_by_weight) == pytest.approx({"x": 0.2, "z": math.log(2) / math.log(1000)})
    assert absolute.A == 0.0 and absolute.c == 0.1


@pytest.mark.parametrize(("table", "weights", "message"), [
    ({"steps": 3}, WEIGHTS, "sampler.steps: unknown key; valid: c, a, A, alpha, gamma, scale"),
    ({"alpha": 1.5}, WEIGHTS, "sampler.alpha: 1.5 is out of range; valid: 0 < alpha <= 1"),
    ({"gamma": 0.7}, WEIGHTS, "sampler.gamma: 0.7 is out of range; valid: 0 <= gamma < alpha"),
    ({"c": 0.0}, WEIGHTS, "sampler.c: 0.0 is out of range; valid: 0 < c <= 0.5"),
    ({"a": -1}, WEIGHTS, "sampler.a: -1.0 is out of range; valid: 0 < a <= 100"),
    ({"A": -1}, WEIGHTS, "sampler.A: -1.0 is out of range; valid: A >= 0"),
    ({"scale": 0}, WEIGHTS, "sampler.scale: 0.0 is out of range; valid: scale > 0"),
    ({"a": "big"}, WEIGHTS, "sampler.a: 'big' is not a finite number"),
    ({"c": {"w": 1.0}}, WEIGHTS, "sampler.c.w: not a searched weight; valid: x, y, z"),
    ({"c": {"x": 6.0}}, WEIGHTS, "sampler.c.x: 6.0 is out of range; valid: 0 < c <= 5 (half the range)"),
    ({}, (WeightRange("depth", 2, 1, 4, integer=True),), "sampler.c: 0.1 of depth's range 1..4 is 0.3"),
    ({}, (WeightRange("mode", 1, choices=(1.0, 2.0)),), "weights.mode: SPSA needs a continuous range"),
])
def test_parse_refuses_bad_settings_in_one_line_naming_the_key(table, weights, message) -> None:
    with pytest.raises(StudyFileError) as error:
        parse_spsa_settings(table, weights, iterations=20)
    assert str(error.value).startswith(message) and "\n" not in str(error.value)
    assert isinstance(error.value, ValueError)


def test_a_weight_with_choices_is_refused_when_proposing_too() -> None:
    with pytest.raises(StudyFileError, match="continuous range"):
        spsa_point(SETTINGS, (WeightRange("mode", 1, choices=(1.0, 2.0)),), {"mode": 1}, {}, 1)
