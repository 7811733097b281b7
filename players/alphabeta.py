"""Alpha-beta (negamax, iterative deepening, transposition table) on a game's compiled core."""

from __future__ import annotations

import inspect
import time

from harness.errors import SpecError
from harness.games import Action, Rules, State
from players import search as searches
from players.base import Limits, Param, Player
from players.features import weight_vector


class AlphaBetaPlayer(Player):
    """Searches to a depth or node budget (deterministic) or a time budget (live play).

    Evaluation weights come from the spec (``w.<feature>=value``); features
    not given keep their defaults. Ties between equally valued moves are broken
    by a seed drawn from the match seed, so a match replays exactly.
    """

    kind = "alphabeta"
    TAKES_WEIGHTS = True
    PARAMS = {
        "depth": Param(int, 4, "maximum search depth in plies"),
        "nodes": Param(int, None, "node budget per move (deterministic)"),
        "time": Param(float, None, "seconds per move (live play only)"),
        "endgame": Param(int, None, "solve exactly once at most this many cells are empty "
                                    "(games with an endgame solver: Totality; default: the game's)"),
    }

    def choose(self, rules: Rules, state: State, limits: Limits | None = None) -> Action:
        return self.search(rules, state, limits).action

    def search(self, rules: Rules, state: State, limits: Limits | None = None) -> searches.SearchResult:
        """Run the search and return its full result (action, value, depth, nodes)."""
        bounds = self.limits().merged(limits)
        deadline = time.monotonic() + bounds.time if bounds.time is not None else None
        search = searches.module(rules.name).search
        extra = {}
        if self.params["endgame"] is not None:
            if "endgame" not in inspect.signature(search).parameters:
                raise SpecError(f"alphabeta: {rules.name} has no endgame solver (endgame=...)")
            extra["endgame"] = self.params["endgame"]
        return search(rules, state, weight_vector(rules.name, self.weights),
                      depth=bounds.depth, nodes=bounds.nodes, deadline=deadline,
                      seed=self.rng.randrange(2**31), **extra)
