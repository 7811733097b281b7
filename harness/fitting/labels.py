"""What a position is worth, from its side to move, in [0, 1]: by the game's result, a deeper search, or a solver.

* ``result``: the mean final result of the recorded games through the
  position (``Position.result``); free, never stored.
* ``search``: a searching player's value (``alphabeta:depth=8``,
  ``strong:nodes=...``) on the evaluation's own scale, mapped by
  ``sigmoid(value / eval_scale)`` with the game's ``eval_scale`` (evaluation
  units per logistic unit, the kit's); a proven win or loss maps to 1 or 0.
  A UCI engine (``uci:command=fairy-stockfish,nodes=N,option.Threads=1``,
  Chinese chess) gives its score in centipawns of its own units, from the
  side to move: it is read as ``UCI_CENTIPAWNS`` to a pawn (how this project
  read Fairy-Stockfish before: its cp / 100 as pawns, ``scripts/
  fit_xiangqi_eval.py``), so the label is ``sigmoid(cp / (100 * eval_scale))``
  and a mate 1 or 0. Its pawn is not the evaluation's (the old script
  measured the factor); the fit's scale, fitted to these labels, absorbs it,
  so the mapping only sets where a reading saturates.
* ``exact``: the solver's result (``solve`` of the game's search module:
  Totality's endgame solver), 1 / 0.5 / 0; positions are sampled among
  those it reaches (its ``reaches``), and one it still does not solve (a
  node budget) gets no label (stored as such, so it is not tried again).

Searches and solves run on the pool (``MatchPool.map``) in batches, and the
driver stores each batch as it returns: an interrupted labelling keeps
every batch done, and a resumed one labels only what is missing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.errors import InvalidInput
from harness.fitting.positions import RESULT_VALUE, Position, game_name, replay_position
from harness.games import kit

if TYPE_CHECKING:
    from harness.cluster import MatchPool
    from harness.db import Database

LABELS = ("result", "search", "exact")
UCI_CENTIPAWNS = 100  # a UCI engine's centipawns to a pawn of the label's scale (see the module's docstring)
BATCH = 16  # positions per call on a worker: enough to hide the call's overhead, few enough to lose little


@dataclass(frozen=True)
class Labeller:
    """How positions are labelled: ``kind`` (one of ``LABELS``) and, for ``search``, the canonical player spec.

    ``name`` is what stored labels are keyed by, so labels of another
    labeller (another depth, another player) are never mixed in.
    """

    kind: str
    player: str = ""

    @property
    def name(self) -> str:
        return f"search:{self.player}" if self.kind == "search" else self.kind

    @property
    def stored(self) -> bool:
        """Whether its labels cost work and are kept in the database (every labeller but ``result``)."""
        return self.kind != "result"


def make_labeller(kind: str, game: str, player: str | None = None) -> Labeller:
    """The labeller for ``--label`` and ``--label-player``, checked before any work.

    Raises:
        InvalidInput: an unknown label, a search without a
            searching player, or a game without a solver for ``exact``.
    """
    from players import load as load_player
    if kind not in LABELS:
        raise InvalidInput(f"unknown label {kind!r}; valid: {', '.join(LABELS)}", parameters=("label",))
    if kind == "search":
        if not player:
            raise InvalidInput("the search label needs label_player, a searching player such as "
                               "strong:nodes=2000000 or alphabeta:depth=8", parameters=("label_player",))
        loaded = load_player(player, game)
        if not any(hasattr(loaded, method) for method in ("search", "player_for", "read_score")):
            raise InvalidInput(f"label_player {player!r} does not search (give alphabeta:..., strong:... or, "
                               "for Chinese chess, uci:command=fairy-stockfish,nodes=N)",
                               parameters=("label_player",))
        return Labeller("search", loaded.spec)
    if player:
        raise InvalidInput(f"label_player is for the search label only, not {kind}", parameters=("label_player",))
    if kind == "exact" and not hasattr(kit(game).search, "solve"):
        raise InvalidInput(f"{game_name(game)} has no exact solver; the exact label needs one (totality has)",
                           parameters=("label",))
    return Labeller(kind)


def search_value(value: float, eval_scale: float) -> float:
    """A search's value for the side to move as a label in [0, 1]: ``sigmoid(value / eval_scale)``."""
    scaled = max(-60.0, min(60.0, value / eval_scale))
    return 1.0 / (1.0 + math.exp(-scaled))


def label_batch(item: tuple[str, Labeller, list[tuple[str, tuple[Any, ...]]]]) -> list[tuple[str, float | None,
                                                                                             float | None]]:
    """Label a batch of positions on a worker: ``(key, value in [0, 1] or None, raw search value or None)``.

    A top-level function of plain data, so the pool may run it on any worker
    and run it again if the worker dies (a label is a pure function of the
    position and the labeller).
    """
    game, labeller, batch = item
    out: list[tuple[str, float | None, float | None]] = []
    if labeller.kind == "search":
        from players import load as load_player
        player = load_player(labeller.player, game)
        scale = kit(game).eval_scale
        if hasattr(player, "read_score"):  # a UCI engine: centipawns of its own (see the module's docstring)
            from harness.games import load as load_game
            rules = load_game(game)
            try:
                for key, actions in batch:
                    raw = player.read_score(rules, list(actions))
                    out.append((key, None if raw is None else search_value(raw, scale * UCI_CENTIPAWNS),
                                None if raw is None else float(raw)))
            finally:
                player.close()  # the engine back to this worker's idle ones, for the next batch
            return out
        for key, actions in batch:
            rules, state = replay_position(game, Position(key, actions, 0.0, 0))
            searcher = player.player_for(rules) if hasattr(player, "player_for") else player
            searcher.reset(0)
            raw = float(searcher.search(rules, state).value)
            out.append((key, search_value(raw, scale), raw))
    else:
        solve = kit(game).search.solve  # type: ignore[attr-defined]
        for key, actions in batch:
            rules, state = replay_position(game, Position(key, actions, 0.0, 0))
            result = solve(rules, state)
            out.append((key, None if result is None else RESULT_VALUE[result], None))
    return out


def label_positions(game: str, positions: Sequence[Position], labeller: Labeller, *,
                    database: Database | None = None, pool: MatchPool | None = None,
                    progress: Callable[[int, int], None] | None = None) -> dict[str, float]:
    """Every position's label (positions the labeller does not reach are left out).

    Stored labels are read first; only the rest is labelled, on ``pool``, and
    each batch is stored as it returns (so Ctrl-C loses at most the batches
    in flight). ``progress(done, total)`` is called as batches return.

    Raises:
        KeyboardInterrupt: a stop (Ctrl-C, SIGTERM); what was stored stays stored.
    """
    if not labeller.stored:
        return {position.key: position.result for position in positions}
    assert database is not None and pool is not None, "a stored label needs the database and the pool"
    name = game_name(game)
    stored = database.labels(name, labeller.name, (position.key for position in positions))
    todo = [position for position in positions if position.key not in stored]
    total, done = len(positions), len(positions) - len(todo)
    if progress is not None:
        progress(done, total)
    batches = [(game, labeller, [(p.key, p.actions) for p in todo[start:start + BATCH]])
               for start in range(0, len(todo), BATCH)]
    for labelled in pool.map(label_batch, batches):
        database.save_labels(name, labeller.name, labelled)
        stored.update((key, (value, raw)) for key, value, raw in labelled)
        done += len(labelled)
        if progress is not None:
            progress(done, total)
    return {key: value for key, (value, _raw) in stored.items() if value is not None}
