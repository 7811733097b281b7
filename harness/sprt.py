"""Sequential testing of one player against another over seat-swapped pairs.

Why pairs: a comparison plays each seed twice, A in the user's seat against B
and then B against A, so the two games share the seed's luck (and the seat's
bias). Their results are correlated; counting each pair as one observation
with five outcomes, A's points 0, 0.5, 1, 1.5 or 2 (the *pentanomial*
model), gets the variance right, where counting games as independent
overstates it. Modern engine-testing frameworks (fishtest, fastchess) count
this way.

The test is the generalized SPRT (GSPRT) as fishtest computes it: the
log-likelihood ratio of the pentanomial distribution's maximum-likelihood
estimate under the constraint "expected score is s1" against "expected score
is s0", times the number of pairs. Two Elo models are offered:

* ``logistic`` (the default, and what ``--sprt`` uses): elo0/elo1 are
  ordinary logistic Elo, s = 1 / (1 + 10^(-elo/400)) per game.
* ``normalized``: elo0/elo1 are normalized Elo (fishtest's default), the
  constraint is on the t-value (mean - 1/2) / sigma per game.

The test accepts H1 (A is at least elo1 stronger) once the LLR reaches
log((1 - beta) / alpha), H0 (A is at most elo0 stronger) once it falls to
log(beta / (1 - alpha)). Empty cells get a small count (1e-3) before the MLE,
as fishtest regularizes, so the LLR is defined from the first pair on.

The Elo estimate comes from the same model: the mean pair score and its
standard error from the pentanomial variance, mapped through the logistic
curve; LOS is the probability that A is stronger.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from harness.errors import InvalidInput

__all__ = ["PAIR_POINTS", "SprtConfig", "Pentanomial", "EloEstimate", "SprtStatus",
           "pair_points", "llr", "elo_estimate", "logistic_score", "score_elo"]

PAIR_POINTS = (0.0, 0.5, 1.0, 1.5, 2.0)
RESULT_POINTS = {"win": 1.0, "draw": 0.5, "loss": 0.0}
MODELS = ("logistic", "normalized")
REGULARIZATION = 1e-3
NELO_PER_T = 800.0 / math.log(10.0)  # normalized Elo per unit of per-game t-value


def logistic_score(elo: float) -> float:
    """The expected per-game score of a player ``elo`` points stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_elo(score: float) -> float:
    """The Elo difference whose expected score is ``score`` (infinite at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def pair_points(a_as_player: str, b_as_player: str) -> float:
    """A's points in a seat-swapped pair, from both games' outcomes in the user's seat.

    Args:
        a_as_player: the outcome (win/draw/loss) of the game A played in the user's seat.
        b_as_player: the outcome of the game B played in the user's seat against A.

    Returns:
        0, 0.5, 1, 1.5 or 2.
    """
    return RESULT_POINTS[a_as_player] + 1.0 - RESULT_POINTS[b_as_player]


@dataclass(frozen=True)
class SprtConfig:
    """The hypotheses and error rates of one test.

    Args:
        elo0: H0, A is at most this much stronger.
        elo1: H1, A is at least this much stronger (``elo1 > elo0``).
        alpha: the false-positive rate (accepting H1 when H0 holds).
        beta: the false-negative rate.
        model: ``logistic`` or ``normalized`` Elo.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"

    def __post_init__(self) -> None:
        if not self.elo1 > self.elo0:
            raise InvalidInput(f"SPRT needs elo0 < elo1, got {self.elo0:g},{self.elo1:g}")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 0.5:
                raise InvalidInput(f"SPRT {name} must be between 0 and 0.5, got {value:g}")
        if self.model not in MODELS:
            raise InvalidInput(f"unknown Elo model {self.model!r}; valid models: {', '.join(MODELS)}")
        # A hypothesis no games can meet (an expected score of 0 or 1) fails now, before any game.
        llr(Pentanomial((1, 1, 1, 1, 1)), self.elo0, self.elo1, self.model)

    @classmethod
    def parse(cls, text: str, model: str = "logistic") -> SprtConfig:
        """Read ``elo0,elo1[,alpha,beta]`` as given to ``--sprt``.

        Raises:
            InvalidInput: not two or four numbers, or values out of range.
        """
        parts = [part.strip() for part in text.split(",")]
        try:
            numbers = [float(part) for part in parts]
        except ValueError:
            numbers = []
        if len(numbers) not in (2, 4) or not all(map(math.isfinite, numbers)):
            raise InvalidInput(f"sprt {text!r} is not valid; use elo0,elo1 or "
                               "elo0,elo1,alpha,beta (e.g. 0,10 or 0,10,0.05,0.05)", parameters=("sprt",))
        return cls(*numbers, model=model)

    @property
    def bounds(self) -> tuple[float, float]:
        """The LLR at or below which H0 is accepted, and at or above which H1 is."""
        return (math.log(self.beta / (1.0 - self.alpha)), math.log((1.0 - self.beta) / self.alpha))

    def to_dict(self) -> dict[str, float | str]:
        """Plain data, for a run's stored configuration."""
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta,
                "model": self.model}


@dataclass(frozen=True)
class Pentanomial:
    """How many pairs ended with A on 0, 0.5, 1, 1.5 and 2 points."""

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    def add(self, points: float) -> Pentanomial:
        """These counts with one more pair on ``points``."""
        index = PAIR_POINTS.index(points)
        counts = list(self.counts)
        counts[index] += 1
        return Pentanomial(tuple(counts))  # type: ignore[arg-type]

    @property
    def pairs(self) -> int:
        """The number of complete pairs."""
        return sum(self.counts)

    @property
    def games(self) -> int:
        """The number of games in complete pairs."""
        return 2 * self.pairs

    def distribution(self) -> list[tuple[float, float]]:
        """(per-game score of the pair, empirical probability), empty cells regularized."""
        counts = [count if count > 0 else REGULARIZATION for count in self.counts]
        total = sum(counts)
        return [(points / 2.0, count / total) for points, count in zip(PAIR_POINTS, counts)]


def _moments(pdf: list[tuple[float, float]]) -> tuple[float, float]:
    mean = sum(p * a for a, p in pdf)
    return mean, sum(p * (a - mean) ** 2 for a, p in pdf)


def _secular_root(pdf: list[tuple[float, float]]) -> float:
    """The x with sum(p * d / (1 + x * d)) = 0, for offsets d of both signs.

    The sum falls strictly in x on the interval where every 1 + x * d > 0,
    so bisection finds the one root.
    """
    low_d = min(d for d, _ in pdf)
    high_d = max(d for d, _ in pdf)
    if not low_d < 0.0 < high_d:
        raise InvalidInput("an SPRT hypothesis asks for a mean pair score outside 0..1, which no games can give; "
                           "choose elo0 and elo1 nearer 0 (e.g. --sprt 0,10)")
    low, high = -1.0 / high_d, -1.0 / low_d
    for _ in range(200):
        middle = (low + high) / 2.0
        value = sum(p * d / (1.0 + middle * d) for d, p in pdf)
        if value > 0.0:
            low = middle
        else:
            high = middle
        if high - low < 1e-15:
            break
    return (low + high) / 2.0


def _mle_mean(pdf: list[tuple[float, float]], score: float) -> list[float]:
    """The distribution nearest (in likelihood) to ``pdf`` whose mean is ``score``."""
    offsets = [(a - score, p) for a, p in pdf]
    x = _secular_root(offsets)
    return [p / (1.0 + x * d) for d, p in offsets]


def _mle_t_value(pdf: list[tuple[float, float]], t: float, reference: float = 0.5) -> list[float]:
    """The distribution nearest to ``pdf`` whose (mean - reference) / sigma is ``t``.

    The constraint is not linear in the probabilities, so it is linearized
    around the current estimate and solved again until it settles.
    """
    estimate = [1.0 / len(pdf)] * len(pdf)
    for _ in range(100):
        mean, variance = _moments([(a, q) for (a, _), q in zip(pdf, estimate)])
        sigma = math.sqrt(variance)
        offsets = [(a - reference - t * sigma * (1.0 + ((mean - a) / sigma) ** 2) / 2.0, p)
                   for a, p in pdf]
        x = _secular_root(offsets)
        updated = [p / (1.0 + x * d) for d, p in offsets]
        settled = max(abs(u - e) for u, e in zip(updated, estimate)) < 1e-12
        estimate = updated
        if settled:
            break
    return estimate


def llr(counts: Pentanomial, elo0: float, elo1: float, model: str = "logistic") -> float:
    """The GSPRT log-likelihood ratio of H1 (elo1) against H0 (elo0) for these pairs.

    Args:
        counts: the pentanomial pair counts (A's points).
        elo0, elo1: the hypotheses in the model's Elo.
        model: ``logistic`` or ``normalized``.

    Returns:
        0.0 before the first pair.
    """
    if counts.pairs == 0:
        return 0.0
    pdf = counts.distribution()
    total = sum(c if c > 0 else REGULARIZATION for c in counts.counts)
    if model == "logistic":
        h0, h1 = (_mle_mean(pdf, logistic_score(elo)) for elo in (elo0, elo1))
    elif model == "normalized":
        # A pair's score is the mean of two games, so its t-value is sqrt(2) times a game's.
        h0, h1 = (_mle_t_value(pdf, math.sqrt(2.0) * elo / NELO_PER_T) for elo in (elo0, elo1))
    else:
        raise InvalidInput(f"unknown Elo model {model!r}; valid models: {', '.join(MODELS)}")
    return total * sum(p * (math.log(q1) - math.log(q0)) for (_, p), q0, q1 in zip(pdf, h0, h1))


@dataclass(frozen=True)
class EloEstimate:
    """A's Elo advantage with its confidence interval, and the likelihood of superiority."""

    elo: float
    low: float
    high: float
    los: float
    score: float
    normalized_elo: float
    pairs: int

    def describe(self) -> str:
        """One line, e.g. ``Elo +12.3 [-4.1, +28.9] (95%), LOS 92.5%, 200 pairs``."""
        return (f"Elo {_signed(self.elo)} [{_signed(self.low)}, {_signed(self.high)}] (95%), "
                f"LOS {100 * self.los:.1f}%, {self.pairs} pairs")


def _signed(value: float) -> str:
    return "+inf" if value == math.inf else "-inf" if value == -math.inf else f"{value:+.1f}"


def elo_estimate(counts: Pentanomial, confidence: float = 0.95) -> EloEstimate:
    """A's Elo advantage from the pentanomial counts (no regularization).

    The mean per-game score and its standard error sigma_pair / sqrt(pairs)
    give a normal interval for the score, mapped to Elo by the logistic
    curve; so the interval is asymmetric in Elo, as it should be.

    Raises:
        InvalidInput: no complete pair yet.
    """
    pairs = counts.pairs
    if pairs == 0:
        raise InvalidInput("no complete pair yet: an Elo estimate needs both games of a seed")
    pdf = [(points / 2.0, count / pairs) for points, count in zip(PAIR_POINTS, counts.counts)]
    mean, variance = _moments(pdf)
    error = math.sqrt(variance / pairs)
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    if error > 0.0:
        los = NormalDist().cdf((mean - 0.5) / error)
        normalized = (mean - 0.5) / math.sqrt(2.0 * variance) * NELO_PER_T
    else:
        los = 1.0 if mean > 0.5 else 0.0 if mean < 0.5 else 0.5
        normalized = math.copysign(math.inf, mean - 0.5) if mean != 0.5 else 0.0
    return EloEstimate(elo=score_elo(mean), low=score_elo(mean - z * error),
                       high=score_elo(mean + z * error), los=los, score=mean,
                       normalized_elo=normalized, pairs=pairs)


@dataclass(frozen=True)
class SprtStatus:
    """Where a test stands: the LLR, its bounds, and the decision if there is one."""

    config: SprtConfig
    counts: Pentanomial
    llr: float

    @classmethod
    def of(cls, config: SprtConfig, counts: Pentanomial) -> SprtStatus:
        """The status of ``config`` after ``counts``."""
        return cls(config, counts, llr(counts, config.elo0, config.elo1, config.model))

    @property
    def decision(self) -> str | None:
        """``"H1"`` (A is at least elo1 stronger), ``"H0"`` (at most elo0), or None."""
        lower, upper = self.config.bounds
        if self.llr >= upper:
            return "H1"
        if self.llr <= lower:
            return "H0"
        return None

    def describe(self) -> str:
        """One line: the LLR against its bounds, the counts and the decision."""
        lower, upper = self.config.bounds
        config = self.config
        verdict = {
            "H1": f"H1 accepted: A is at least {config.elo1:g} Elo stronger",
            "H0": f"H0 accepted: A is at most {config.elo0:g} Elo stronger",
            None: "no decision yet",
        }[self.decision]
        return (f"SPRT [{config.elo0:g}, {config.elo1:g}] ({config.model} Elo, alpha {config.alpha:g}, "
                f"beta {config.beta:g}): LLR {self.llr:.2f} [{lower:.2f}, {upper:.2f}], "
                f"pairs {list(self.counts.counts)}: {verdict}")
