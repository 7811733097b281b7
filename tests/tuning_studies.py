"""The tiny study the tuning tests run: seconds per trial on two workers."""

from __future__ import annotations

GAME = "totality:easy"
# Three weights the tiny study sets either to their default or to a harmful value (far below
# their range). The incumbent starts harmful in the last of them, so some trials are clearly
# better (a gain for the race and the confirmation to find) and some clearly worse (work
# for the pruner).
HARMED = ("corners", "stability", "mobility")
OPPONENT = "greedy"


def tiny_study(name: str, trials: int = 6, **extra: str) -> str:
    """A study of three weights, each the default or a harmful value, on 12 openings a trial (2 blocks of 6)."""
    from players.features import features
    table = features(GAME)
    # more is better for both: far below the range is harmful whatever the defaults become
    weights = "\n".join(f"{w} = {{ choices = [{table[w].default}, {-2 * table[w].high}] }}" for w in HARMED)
    incumbent = f"{HARMED[-1]} = {-2 * table[HARMED[-1]].high}"
    lines = {"sampler": '"random"', "pruner": '"incumbent"', "p_threshold": "0.3", "seed": "3"} | extra
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

[incumbent]
{incumbent}

[budget]
trials = {trials}
block = 6
blocks = 2
parallel = 3

[openings]
tuning = [0, 12]
selection = [100, 112]
confirmation = [200, 240]

[confirmation]
smallest_gain = 20
"""
