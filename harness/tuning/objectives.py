"""The objectives a study may maximise: a per-game value, and the objective over a trial's games."""

from __future__ import annotations

from collections.abc import Sequence

from harness.match import MatchResult

OBJECTIVES = {
    "mean_score": "mean documented score of the user's seat",
    "lcb": "lower end of the 95% interval of the mean score",
    "rank1_rate": "share of games the user ends with rank 1 (a win or a draw)",
    "win_rate": "share of games won",
    "rank1_wins": "share of games with rank 1, a win counting a tenth more (ties broken by wins)",
}
# What a win adds to rank 1 under ``rank1_wins``: one loss outweighs ten draws turned into wins.
WIN_BONUS = 0.1


def game_value(result: MatchResult, objective: str) -> float:
    """The per-game value a study averages: the score, or a 0/1 outcome indicator (1.1 for a win under
    ``rank1_wins``: where a player never loses, rank 1 cannot rise, and wins are its margin)."""
    if objective == "rank1_rate":
        return 0.0 if result.outcome == "loss" else 1.0
    if objective == "rank1_wins":
        return 0.0 if result.outcome == "loss" else 1.0 + (WIN_BONUS if result.outcome == "win" else 0.0)
    if objective == "win_rate":
        return 1.0 if result.outcome == "win" else 0.0
    return float(result.score)


def value_bounds(games: str | Sequence[str], objective: str) -> tuple[float, float]:
    """The range a per-game value can take in ``games`` (one spec or several): the games' score bounds
    (the widest of them), or 0..1 for a rate."""
    if objective in ("rank1_rate", "win_rate"):
        return 0.0, 1.0
    if objective == "rank1_wins":
        return 0.0, 1.0 + WIN_BONUS
    from harness.games import load as load_game
    bounds = [load_game(game).score_bounds() for game in ([games] if isinstance(games, str) else games)]
    return min(low for low, _ in bounds), max(high for _, high in bounds)


def objective_value(values: Sequence[float], objective: str) -> float:
    """The objective over per-game values: their mean, or for ``lcb`` the 95% interval's lower end."""
    if objective == "lcb":
        from harness.ratings import mean_interval
        return float(mean_interval(list(values))[1])
    return float(sum(values) / len(values))
