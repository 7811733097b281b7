"""The tiny study the tuning tests run: seconds per trial on two workers."""

from __future__ import annotations

GAME = "totality:easy"
# Two weights the tiny study may set to a harmful value (far below their range), so some
# trials are clearly worse than the baseline and the pruner has work to do.
HARMED = ("corners", "mobility")
OPPONENT = "greedy"


def tiny_study(name: str, trials: int = 6, **extra: str) -> str:
    from players.features import features
    table = features(GAME)
    # more is better for both: far below the range is harmful whatever the defaults become
    weights = "\n".join(f"{w} = {{ choices = [{table[w].default}, {-2 * table[w].high}] }}" for w in HARMED)
    lines = {"sampler": '"random"', "pruner": '"wilcoxon"', "p_threshold": "0.3", "seed": "3"} | extra
    top = "\n".join(f"{k} = {v}" for k, v in lines.items())
    return f"""name = "{name}"
game = "{GAME}"
opponent = "{OPPONENT}"
{top}

[player]
kind = "alphabeta"
depth = 1

[weights]
{weights}

[budget]
trials = {trials}
games = 8
rungs = [4, 8]
parallel = 3

[seeds]
tuning = [0, 50]
validation = [500, 516]
"""
