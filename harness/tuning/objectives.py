"""The objectives a study may maximise: a per-game value, and the objective over a trial's games."""

from __future__ import annotations

from collections.abc import Sequence

from harness.match import MatchResult

OBJECTIVES = {
    "mean_score": "mean documented score of the user's seat",
    "rank1_rate": "share of games the user ends with rank 1 (a win or a draw)",
    "win_rate": "share of games won",
    "wdl": "wins minus losses per game, and a better verdict allows no extra loss (reported as W/D/L)",
}


def game_value(result: MatchResult, objective: str) -> float:
    """The per-game value a study averages: the score, or an outcome indicator.

    ``wdl`` counts a win 1, a draw 0 and a loss -1: where a player seldom
    loses, its wins are its margin, and a loss costs as much as a win gains
    (scoring a draw 1 and a win 1.1 let a few rare losses decide every study);
    the confirmation's verdict also refuses a tuned player that loses confidently more often
    (``gain.verdict_of``).
    """
    if objective == "rank1_rate":
        return 0.0 if result.outcome == "loss" else 1.0
    if objective == "wdl":
        return {"win": 1.0, "draw": 0.0}.get(result.outcome, -1.0)
    if objective == "win_rate":
        return 1.0 if result.outcome == "win" else 0.0
    return float(result.score)


def value_bounds(games: str | Sequence[str], objective: str) -> tuple[float, float]:
    """The range a per-game value can take in ``games`` (one spec or several): the games' score bounds
    (the widest of them), or 0..1 for a rate."""
    if objective in ("rank1_rate", "win_rate"):
        return 0.0, 1.0
    if objective == "wdl":
        return -1.0, 1.0
    from harness.games import load as load_game
    bounds = [load_game(game).score_bounds() for game in ([games] if isinstance(games, str) else games)]
    return min(low for low, _ in bounds), max(high for _, high in bounds)


def objective_value(values: Sequence[float], objective: str) -> float:
    """The objective over per-game values: their mean."""
    return float(sum(values) / len(values))
