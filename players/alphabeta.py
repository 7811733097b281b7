"""Alpha-beta (negamax, iterative deepening, transposition table) on a game's compiled core."""

from __future__ import annotations

import inspect
import random
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from harness.errors import SpecError
from harness.games import Action, Rules, State
from players import search as searches
from players.base import Limits, Param, Player
from players.features import weight_vector


# The depth of a search bounded by nothing else; a node or time budget lifts the cap to the game's own, so
# that ``alphabeta:time=2`` searches as deep as two seconds allow (a depth of 4 had capped it).
FIXED_DEPTH = 4
# The parameters that only decide when a move is searched longer (``budget``).
BUDGET_RULES = ("behind", "extend")


class AlphaBetaPlayer(Player):
    """Searches to a depth or node budget (deterministic) or a time budget (live play).

    Evaluation weights come from the spec (``w.<feature>=value``); features
    not given keep their defaults. Ties between equally valued moves are broken
    by a seed drawn from the match seed, so a match replays exactly.
    """

    kind = "alphabeta"
    TAKES_WEIGHTS = True
    PARAMS = {
        "depth": Param(int, None, f"maximum search depth in plies; default {FIXED_DEPTH}, or no cap but the "
                                  "game's own when nodes or time bounds the search", minimum=1),
        "nodes": Param(int, None, "node budget per move (deterministic)", minimum=1),
        "time": Param(float, None, "seconds per move (live play only)", minimum=0.0),
        "endgame": Param(int, None, "solve exactly once at most this many cells are empty "
                                    "(games with an endgame solver: Totality; default: the game's)",
                         minimum=0),
        "techniques": Param(str, "default", "search techniques to use, joined by +, or all or none; default: "
                                            "those that gained in a paired match (the game's DEFAULT_TECHNIQUES). "
                                            "Ravenward's pvs, lmr, quiescence, aspiration, keep_pv, partial, exact_lmr; Chinese "
                                            "chess's also null_move, ordering, check_extension, deep_lmr, "
                                            "adaptive_null, static_null, late_move_pruning, exact_mates and "
                                            "(candidates) "
                                            "capture_pruning, futility, lazy_eval, quiescence_checks; "
                                            "Totality's pvs, aspiration, keep_pv; for measuring what each gains"),
        "behind": Param(float, None, "search extend times the budget (nodes, or the spec's own time) when the "
                                     "side to move is at least this much material behind, settled (games whose "
                                     "search measures it: Chinese chess, in textbook pawns)", minimum=0.0),
        "extend": Param(int, 4, "how many times the budget a move gets when behind= holds", minimum=1),
        "tiebreak": Param(int, 0, "a salt for the seed that breaks ties between equally valued moves: other "
                                  "games, never another strength (a study searching it alone is a provable "
                                  "null, scripts/bench_tuner.py)", minimum=0),
    }

    def __init__(self, params: dict[str, Any] | None = None,
                 weights: dict[str, float] | None = None) -> None:
        super().__init__(params, weights)
        if self.params["depth"] == FIXED_DEPTH and self.params["nodes"] is None and self.params["time"] is None:
            self.params["depth"] = None  # the same search as no depth: one canonical spec, ``alphabeta``

    def reset(self, seed: int) -> None:
        """Start a new match; ``tiebreak`` (0: the match seed as is) salts the seed of the tie-breaks."""
        super().reset(seed)
        if self.params["tiebreak"]:
            self.rng = random.Random(f"{self.seed}:{self.params['tiebreak']}")

    def check_game(self, rules: Rules) -> None:
        """Raise SpecError now, before any match, if ``behind`` is given for a game that cannot measure it."""
        if self.params["behind"] is not None:
            self._deficit(rules)

    def choose(self, rules: Rules, state: State, limits: Limits | None = None) -> Action:
        return self.search(rules, state, limits).action

    def search(self, rules: Rules, state: State, limits: Limits | None = None) -> searches.SearchResult:
        """Run the search and return its full result (action, value, depth, nodes)."""
        bounds = self.budget(rules, state, limits)
        deadline = time.monotonic() + bounds.time if bounds.time is not None else None
        search = searches.module(rules.name).search
        extra = {}
        if self.params["endgame"] is not None:
            if "endgame" not in inspect.signature(search).parameters:
                raise SpecError(f"alphabeta: {rules.name} has no endgame solver (endgame=...)")
            extra["endgame"] = self.params["endgame"]
        if self.params["techniques"] != "default":
            table = getattr(searches.module(rules.name), "TECHNIQUES", None)
            if table is None:
                raise SpecError(f"alphabeta: {rules.name} has no choice of techniques (techniques=...)")
            extra["techniques"] = technique_bits(table, self.params["techniques"])
        return search(rules, state, weight_vector(rules.name, self.weights),
                      depth=bounds.depth, nodes=bounds.nodes, deadline=deadline,
                      seed=self.rng.randrange(2**31), **extra)

    def budget(self, rules: Rules, state: State, limits: Limits | None = None) -> Limits:
        """The limits this move is searched with: the spec's, overridden by ``limits``, extended when behind.

        A caller's time (a clock's share, ``harness live --move-time``) is the
        caller's to spend and is never extended; the spec's nodes and time are.
        """
        bounds = self.limits().merged(limits)
        factor = self.extension(rules, state)
        if factor == 1:
            return bounds
        own_time = limits is None or limits.time is None
        return replace(bounds, nodes=bounds.nodes * factor if bounds.nodes is not None else None,
                       time=bounds.time * factor if bounds.time is not None and own_time else bounds.time)

    def extension(self, rules: Rules, state: State) -> int:
        """How many times its budget this move gets: ``extend`` when ``behind`` holds in ``state``, else 1.

        The trigger reads the position alone, so a game in which it never holds
        is played move for move as without ``behind``.
        """
        if self.params["behind"] is None:
            return 1
        return self.params["extend"] if self._deficit(rules)(rules, state) >= self.params["behind"] else 1

    @staticmethod
    def _deficit(rules: Rules) -> Callable[[Rules, State], float]:
        deficit = getattr(searches.module(rules.name), "material_deficit", None)
        if deficit is None:
            with_one = [name for name in searches.available()
                        if hasattr(searches.module(name), "material_deficit")]
            raise SpecError(f"alphabeta: {rules.name} has no settled material measure (behind=...); "
                            f"games with one: {', '.join(with_one)}")
        return deficit


def technique_bits(table: dict[str, int], text: str) -> int:
    """The bits of ``techniques=pvs+lmr`` (or ``none``, or ``all``) in a search's ``TECHNIQUES`` table.

    Raises:
        SpecError: a name the table does not have (the message lists them).
    """
    if text == "all":
        return sum(table.values())
    bits = 0
    for name in filter(None, text.split("+")):
        if name == "none":
            continue
        if name not in table:
            raise SpecError(f"alphabeta: no search technique {name!r}; valid: default, all, none, "
                            f"{', '.join(table)}")
        bits |= table[name]
    return bits
