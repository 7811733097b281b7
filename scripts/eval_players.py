#!/usr/bin/env python
"""Strength of the players per game over seeded matches, printed as a rich table.

Usage: scripts/eval_players.py [--matches N] [--workers W] [--json | --markdown]
                               [--fairy [--fairy-nodes N,N] [--alphabeta-nodes N] [--no-gbot]]
                               [--ladder [--player SPEC] [--rung SPEC ...] [--fairy]]
                               [--results FILE [--verify N] [--stored] [--same-games GAME=BASE]
                                               [--paired FILE=SPEC]]
                               [GAME ...]

Rows per game (default: every game with a compiled search; Totality at both
levels, Chinese chess in both seats):

- alphabeta at default depth and weights vs random, and vs greedy;
- alphabeta at the G-Bot stand-in's depth with default weights vs the stand-in;
- reference: alphabeta with every setting of the stand-in (depth, weights,
  endgame) vs the stand-in: what the stand-in's own evaluation scores against
  it (left out where the stand-in uses the default weights, as it equals the
  row above).

With ``--fairy`` the rows are instead, per Chinese chess seat, the project's
alpha-beta against Fairy-Stockfish at the same node count per move
(``--fairy-nodes``; alpha-beta without a depth cap, Fairy-Stockfish with one
thread, so both are deterministic; ``--alphabeta-nodes`` gives alpha-beta
another count, for node odds), and the G-Bot stand-in against the weakest of
those Fairy-Stockfish rungs (``players.ladder``; ``--no-gbot`` leaves it out).

With ``--ladder`` the rows are instead ``--player`` (default ``strong``)
against every rung of each game's ladder of G-Bot stand-ins
(``players.ladder``; Chinese chess in both seats), and per game seat a last
row gives the worst rung (lowest mean, fewest wins breaking ties) beside the
mean over the rungs and the fewest wins. ``--ladder --fairy`` also plays the
references measured beside the ladder (Chinese chess: Fairy-Stockfish at
1,000, 10,000 and 100,000 nodes), as rows of their own that the ladder's
totals leave out. ``--rung SPEC`` (repeatable) keeps only the named rungs:
a candidate player is tried on the hardest rungs first, paired by seed with
the stored games of the player it would replace.

Each row plays ``--matches`` seeded matches (seeds 0..N-1, two random opening
plies for variety) and shows the mean documented score with its 95% interval
inside the game's score bounds (`harness.ratings.bounded_mean_interval`:
Student t clipped to the bounds, Wilson for a score of two values such as
Chinese chess's rank 1) and wins/draws/losses. Then, per game, the largest alpha-beta
depth whose slowest move over a set of positions stays under ``--budget``
seconds on one core, and the node limit that fits the same budget.
Matches run in a process pool (``--workers``), one match per task, seed by
seed across the rows, so a run cut short has measured every row about evenly.

``--results FILE`` makes a long measurement resumable across machines and
days: every finished match is appended to FILE as one JSON line (a
``MatchResult``), and matches already in FILE (by match key) are not played
again. Every match is deterministic (node or depth limits), so a file is
evidence anyone can check: ``--verify N`` replays N of the stored matches
the run covers (spread over the rows) and fails if any differs, which is how
a file left stale by a change to a search or evaluation is caught.
``--stored`` plays nothing and summarises what FILE holds (a measurement
still under way; each row shows how many matches it has).
``--same-games totality:easy=totality`` answers the easy rows by replaying
the stored wise matches under the easy rules (neither the players nor any
rung reads Totality's level, so a seed plays the same game at both levels):
half the games for both tables; ``--verify`` plays such rows for real. The
easy rows are then the wise games rescored (x 0.6, floored), not more
samples: report them beside the wise rows, never pooled with them.
``--paired FILE=SPEC`` judges a candidate the way a change to a player is
judged here: each row's stored matches beside SPEC's stored matches in FILE
on the same seeds, with the paired score difference and its interval, per
row and pooled; the pooled row counts each distinct game once (pairs whose
games have the same seed and move list under two levels are one sample), so
with ``totality totality:easy`` it pools the wise games only.

Ctrl-C or SIGTERM stops the pool (its workers with it: none plays on
unseen) and exits with 130; what is lost is the matches in flight, and the
same command resumes from FILE.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import signal
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import MofNCompleteColumn, Progress
from rich.table import Table

from harness.console import LoggedProgress, output_console
from harness.games import load as load_game
from harness.interrupts import check as check_interrupted
from harness.interrupts import stop_on_signals, stops_unwrapped
from harness.match import MatchResult, MatchSpec, build_result, play_match
from harness.ratings import bounded_mean_interval, mean_interval
from harness.replay import replay_states
from harness.results import read_results_file
from harness.testing import random_positions
import players
from players import search as searches
from players.features import weight_vector
from players.ladder import fairy_stockfish, ladder, references

SEATS = {"ravenward": ["ravenward"], "totality": ["totality", "totality:easy"],
         "xiangqi": ["xiangqi", "xiangqi:black"]}
OPENING_PLIES = 2
MAX_DEPTH = 12


@dataclass(frozen=True)
class Row:
    """One line of the table: a player against an opponent in one game."""

    label: str
    game: str
    player: str
    opponent: str


def gbot_reference_spec(game: str) -> tuple[int, str]:
    """The stand-in's depth, and an alphabeta spec with every setting of the stand-in
    (depth, weights and extras such as Totality's ``endgame``): its own evaluation."""
    settings = dict(players.load("gbot").settings(load_game(game)))
    weights = {f"w.{name}": value for name, value in (settings.pop("weights", None) or {}).items()}
    return settings["depth"], players.load({"kind": "alphabeta", **settings, **weights}).spec


def rows_for(game: str) -> list[Row]:
    """The rows of one game seat (three when the stand-in's evaluation is the default one)."""
    depth, reference = gbot_reference_spec(game)
    same_depth = players.load(f"alphabeta:depth={depth}").spec
    rows = [
        Row("alphabeta vs random", game, "alphabeta", "random"),
        Row("alphabeta vs greedy", game, "alphabeta", "greedy"),
        Row(f"alphabeta depth {depth} vs gbot", game, same_depth, "gbot"),
    ]
    if reference == same_depth:
        return rows[:2] + [Row(f"alphabeta depth {depth} vs gbot (= reference: gbot uses the default weights)",
                               game, same_depth, "gbot")]
    return rows + [Row(f"reference: gbot's own evaluation at depth {depth} vs gbot", game, reference, "gbot")]


def fairy_rows(game: str, nodes: list[int], alphabeta_nodes: int | None = None, gbot: bool = True) -> list[Row]:
    """Alpha-beta against Fairy-Stockfish (at equal node counts unless ``alphabeta_nodes`` is
    given), and the stand-in against the weakest Fairy-Stockfish."""
    unbounded = searches.module(load_game(game).name).MAX_PLY - 2  # nodes alone stop the search
    rows = [Row(f"alphabeta nodes={alphabeta_nodes or count:,} vs Fairy-Stockfish nodes={count:,}", game,
                players.load(f"alphabeta:depth={unbounded},nodes={alphabeta_nodes or count}").spec,
                fairy_stockfish(count))
            for count in nodes]
    return rows + ([Row(f"gbot vs Fairy-Stockfish nodes={min(nodes):,}", game, "gbot",
                        fairy_stockfish(min(nodes)))] if gbot else [])


def ladder_rows(game: str, player: str, only: list[str] | None = None) -> list[Row]:
    """``player`` against every rung of the game's ladder (or the rungs in ``only``)."""
    rungs = ladder(game)
    if only:
        unknown = [rung for rung in only if rung not in rungs]
        if unknown:
            raise ValueError(f"{', '.join(unknown)} is not a rung of {game}'s ladder; its rungs: {', '.join(rungs)}")
        rungs = [rung for rung in rungs if rung in only]
    return [Row(f"{player} vs {rung}", game, players.load(player).spec, rung) for rung in rungs]


def reference_rows(game: str, player: str) -> list[Row]:
    """``player`` against each reference measured beside the game's ladder."""
    return [Row(f"{player} vs {engine} (beside the ladder)", game, players.load(player).spec, engine)
            for engine in references(game)]


def ladder_totals(summaries: list[dict]) -> list[dict]:
    """Per game seat and player: the worst rung, the mean over the rungs and the fewest wins."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for row in summaries:
        groups.setdefault((row["game"], row["player"]), []).append(row)
    totals = []
    for (game, player), rows in groups.items():
        worst = min(rows, key=lambda r: (r["mean"], r["win"]))
        totals.append({"game": game, "player": player, "rungs": len(rows), "worst_rung": worst["opponent"],
                       "worst_mean": worst["mean"], "worst_wdl": [worst["win"], worst["draw"], worst["loss"]],
                       "mean_over_rungs": sum(r["mean"] for r in rows) / len(rows),
                       "fewest_wins": min(r["win"] for r in rows), "fewest_wins_rung":
                       min(rows, key=lambda r: r["win"])["opponent"],
                       "losses": sum(r["loss"] for r in rows),
                       "games_per_rung": [min(r["matches"] for r in rows), max(r["matches"] for r in rows)]})
    return totals


def ladder_markdown(totals: list[dict]) -> str:
    """The worst rung beside the mean over the rungs, per game seat, in Markdown."""
    def games(low: int, high: int) -> str:
        return str(low) if low == high else f"{low}-{high}"
    lines = ["| game | player | rungs | games per rung | worst rung (mean, W/D/L) | mean over the rungs "
             "| fewest wins (rung) | losses in all |", "|---|---|---|---|---|---|---|---|"]
    lines += [f"| {t['game']} | `{t['player']}` | {t['rungs']} | {games(*t['games_per_rung'])} "
              f"| `{t['worst_rung']}` ({t['worst_mean']:.1f}, "
              f"{'/'.join(map(str, t['worst_wdl']))}) | {t['mean_over_rungs']:.1f} | {t['fewest_wins']} "
              f"(`{t['fewest_wins_rung']}`) | {t['losses']} |" for t in totals]
    return "\n".join(lines)


def summarise(results: list[MatchResult]) -> dict:
    """Mean score with its 95% interval inside the game's score bounds (``harness.ratings``: Wilson for a
    score of two values, as Chinese chess's rank 1 or not), W/D/L, and time per player move."""
    mean, low, high = bounded_mean_interval([r.score for r in results], load_game(results[0].game).score_bounds())
    count = {key: sum(1 for r in results if r.outcome == key) for key in ("win", "draw", "loss")}
    errors = sum(1 for r in results if r.error)
    player_moves = sum((r.plies + 1) // 2 for r in results)
    opponent_moves = sum(r.plies // 2 for r in results)
    return {"matches": len(results), "mean": mean, "low": float(low), "high": float(high),
            **count, "errors": errors, "s_per_move": sum(r.player_s for r in results) / max(1, player_moves),
            "opponent_s_per_move": sum(r.opponent_s for r in results) / max(1, opponent_moves)}


def depth_under(game: str, budget: float, positions: int = 5) -> dict:
    """The deepest alpha-beta depth whose slowest move over fixed positions takes under ``budget`` s."""
    rules = load_game(game)
    search = searches.module(rules.name).search
    weights = weight_vector(rules.name)
    states = random_positions(rules, positions, seed=1, step=6)
    search(rules, states[0], weights, depth=1, nodes=None, deadline=None, seed=0)  # compile / warm up
    best, best_time, nodes_per_s = 0, 0.0, 0.0
    for depth in range(1, MAX_DEPTH + 1):
        slowest, nodes, elapsed = 0.0, 0, 0.0
        for seed, state in enumerate(states):
            started = time.perf_counter()
            result = search(rules, state, weights, depth=depth, nodes=None, deadline=None, seed=seed)
            took = time.perf_counter() - started
            slowest, nodes, elapsed = max(slowest, took), nodes + result.nodes, elapsed + took
            if slowest >= budget:
                break
        if slowest >= budget:
            break
        best, best_time, nodes_per_s = depth, slowest, nodes / elapsed
    # The node limit that fits the budget at the speed of the deepest depth that did.
    return {"game": rules.spec, "depth": best, "slowest_s": best_time, "nodes": int(nodes_per_s * budget)}


def load_results(path: Path) -> dict[str, MatchResult]:
    """The matches stored in a results file, by key; a torn last line (an interrupted write) is dropped."""
    if not path.exists():
        return {}
    try:
        rows, length = read_results_file(path)
    except ValueError as error:
        raise SystemExit(f"eval_players: {path} {error}") from None
    stored = {}
    for number, row in enumerate(rows, 1):
        try:
            result = MatchResult(**row)
        except TypeError as error:
            raise SystemExit(f"eval_players: {path} line {number} is not a match result ({error})") from None
        stored[result.key] = result
    if length < path.stat().st_size:
        with path.open("r+") as handle:  # cut the torn line so appends start on a fresh one
            handle.truncate(length)
    return stored


def append_result(path: Path, result: MatchResult) -> None:
    """Append one finished match and flush it to disk, so an interruption loses at most the matches in flight."""
    with path.open("a") as handle:
        handle.write(json.dumps(result.to_dict(), separators=(",", ":")) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def match_specs(rows: list[Row], matches: int) -> list[tuple[int, MatchSpec]]:
    """Every row's matches, seed by seed across the rows (a partial run covers the rows evenly)."""
    return [(index, MatchSpec(row.game, row.player, row.opponent, seed, OPENING_PLIES))
            for seed in range(matches) for index, row in enumerate(rows)]


def replayed(spec: MatchSpec, base: MatchResult) -> MatchResult:
    """The match ``spec`` as the stored ``base`` match played it, scored by ``spec``'s game.

    For two game specs that differ only in how the end is scored (Totality's
    levels: neither the players nor any rung reads the level), the same seed
    plays the same game; replaying its actions through the other rules gives
    that game's score and outcome without playing it again. An action the
    other rules refuse raises ``IllegalAction``. ``--verify`` plays such rows
    for real, which is what shows the games are the same.
    """
    *_, (rules, state, _, _) = replay_states(spec.game, base.actions)
    if not rules.is_terminal(state):
        raise SystemExit(f"eval_players: replaying {base.key} under {spec.game} does not finish the game")
    return build_result(rules, state, player=base.player, opponent=base.opponent, seed=spec.seed,
                        actions=base.actions, outcome=rules.outcome(state), started=time.perf_counter(),
                        player_s=base.player_s, opponent_s=base.opponent_s, key=spec.key,
                        opening_plies=spec.opening_plies, extra={"replayed_from": base.key})


def evaluate(rows: list[Row], matches: int, workers: int, results_file: Path | None = None,
             play: bool = True, same_games: dict[str, str] | None = None) -> list[dict]:
    """Play every row's matches in a process pool (skipping those in ``results_file``) and summarise each row.

    With ``play`` false nothing is played: the rows are summarised over the matches
    ``results_file`` already holds (a measurement still under way), and rows without
    any are left out. ``same_games`` maps a game spec to another whose stored
    matches it replays instead of playing (``replayed``).
    """
    specs = match_specs(rows, matches)
    stored = load_results(results_file) if results_file else {}
    results: dict[int, list[MatchResult]] = {index: [] for index in range(len(rows))}

    def keep(index: int, spec: MatchSpec, result: MatchResult) -> None:
        """Count ``result`` (or, for a replayed row, the match it stands for) for row ``index``."""
        if result.key != spec.key:
            result = stored[spec.key] = replayed(spec, result)
            if results_file:
                append_result(results_file, result)
        results[index].append(result)

    # What to play, by the key of the match played: a replayed row plays its base match,
    # once however many rows wait for it.
    todo: dict[str, tuple[MatchSpec, list[tuple[int, MatchSpec]]]] = {}
    bases = {load_game(game).spec: base for game, base in (same_games or {}).items()}
    row_bases = [bases.get(load_game(row.game).spec) for row in rows]  # once per row, not per match
    for index, spec in specs:
        base_game = row_bases[index]
        source = replace(spec, game=base_game) if base_game else spec
        if spec.key in stored:
            results[index].append(stored[spec.key])
        elif source.key in stored:
            keep(index, spec, stored[source.key])
        elif play:
            todo.setdefault(source.key, (source, []))[1].append((index, spec))
    if play and todo:
        progress = LoggedProgress(*Progress.get_default_columns(), MofNCompleteColumn(),
                                  console=output_console(stderr=True), transient=True)
        with progress, _pool(workers) as pool:
            task = progress.add_task("matches", total=len(todo))
            for key, result in pool.imap_unordered(_play, [(key, spec) for key, (spec, _) in todo.items()],
                                                   chunksize=1):
                stored[key] = result
                if results_file:
                    append_result(results_file, result)
                for index, spec in todo[key][1]:
                    keep(index, spec, result)
                progress.advance(task)
                check_interrupted()  # a stop Python swallowed (harness.interrupts) ends the run here
    return [{"label": row.label, "game": row.game, "player": row.player, "opponent": row.opponent,
             **summarise(results[index])} for index, row in enumerate(rows) if results[index] or play]


def paired(rows: list[Row], matches: int, results_file: Path, baseline_file: Path, baseline: str) -> list[dict]:
    """Each row's stored matches beside ``baseline``'s on the same game, opponent and seed (in ``baseline_file``).

    How a change to a player is judged: the same seeds (the same openings)
    played by both, and the mean of the per-seed score differences with its
    95% interval. Rows without any pair are left out; a last row pools the
    pairs, each distinct game once (``distinct_pairs``): Totality's easy rows
    are the wise games rescored, not more samples, so they are not pooled with
    them; the pooled row's ``rescored`` counts the pairs so left out.
    """
    stored, kept = load_results(results_file), load_results(baseline_file)
    baseline = players.load(baseline).spec
    out, every = [], []
    for row in rows:
        pairs = []
        for seed in range(matches):
            this = MatchSpec(row.game, row.player, row.opponent, seed, OPENING_PLIES).key
            other = MatchSpec(row.game, baseline, row.opponent, seed, OPENING_PLIES).key
            if this in stored and other in kept:
                pairs.append((stored[this], kept[other]))
        if not pairs:
            continue
        differences = [a.score - b.score for a, b in pairs]
        every += pairs
        out.append({"label": row.label, "game": row.game, "opponent": row.opponent, "pairs": len(pairs),
                    "this": summarise([a for a, _ in pairs]), "baseline": summarise([b for _, b in pairs]),
                    "difference": list(mean_interval(differences))})
    if len(out) > 1:
        distinct = distinct_pairs(every)
        out.append({"label": "all rows", "game": "", "opponent": "all rows", "pairs": len(distinct),
                    "rescored": len(every) - len(distinct),
                    "this": summarise([a for a, _ in distinct]), "baseline": summarise([b for _, b in distinct]),
                    "difference": list(mean_interval([a.score - b.score for a, b in distinct]))})
    return out


def distinct_pairs(pairs: list[tuple[MatchResult, MatchResult]]) -> list[tuple[MatchResult, MatchResult]]:
    """The pairs with each distinct game once, the first kept in row order (``totality totality:easy`` keeps
    the wise games).

    Two pairs are one sample when both sides played the same game: the same game (any
    configuration of it, such as Totality's level, which only rescores the end), players,
    opponent, seed, opening plies and move list. Totality's easy rows under ``--same-games``
    are exactly that, the wise games rescored x 0.6; pooled with the wise rows they
    would count every game twice, and the interval would be as narrow as twice the games'.
    """
    def game(result: MatchResult) -> tuple:
        return (load_game(result.game).name, result.player, result.opponent, result.seed,
                result.opening_plies, json.dumps(result.actions))
    seen, kept = set(), []
    for a, b in pairs:
        key = (game(a), game(b))
        if key not in seen:
            seen.add(key)
            kept.append((a, b))
    return kept


def paired_markdown(rows: list[dict], player: str, baseline: str) -> str:
    """The paired comparison in Markdown: W/D/L and mean of both, the difference with its interval.

    Rows of more than one game (the two seats of Chinese chess) name their game; scores of at most 1
    (a rank-1 share) get two decimals, where one would round a difference of a game in twenty to zero.
    """
    games = {row["game"] for row in rows if row["opponent"] != "all rows"}
    digits = 2 if all(side["mean"] <= 1.0 for row in rows for side in (row["this"], row["baseline"])) else 1

    def wdl(side: dict) -> str:
        return f"{side['win']}/{side['draw']}/{side['loss']}, {side['mean']:.{digits}f}"
    lines = [f"| against | pairs | `{baseline}` W/D/L, mean | `{player}` W/D/L, mean | paired difference [95% CI] |",
             "|---|---|---|---|---|"]
    for row in rows:
        mean, low, high = row["difference"]
        name = row["opponent"] if row["opponent"] == "all rows" else f"`{row['opponent']}`"
        if row.get("rescored"):
            name = f"all rows, each game once ({row['rescored']} rescored pairs not pooled)"
        if len(games) > 1 and row["opponent"] != "all rows":
            name = f"{row['game']}: {name}"
        lines.append(f"| {name} | {row['pairs']} | {wdl(row['baseline'])} | {wdl(row['this'])} "
                     f"| {mean:+.{digits}f} [{low:.{digits}f}, {high:.{digits}f}] |")
    return "\n".join(lines)


def verify(rows: list[Row], matches: int, results_file: Path, count: int, workers: int) -> tuple[int, list[str]]:
    """Replay ``count`` stored matches of these rows, spread over them; the keys of those that differ."""
    stored = load_results(results_file)
    covered = [(index, spec) for index, spec in match_specs(rows, matches) if spec.key in stored]
    step = max(1, len(covered) // max(1, count))
    chosen = covered[::step][:count]
    if not chosen:
        raise SystemExit(f"eval_players: --verify: {results_file} holds none of these rows' matches")
    fields = ("outcome", "reason", "score", "plies", "actions")
    with _pool(workers) as pool:
        replays = pool.map(_play, chosen, chunksize=1)

    def differs(played: MatchResult, kept: MatchResult) -> bool:
        # A replayed row (--same-games) keeps the game's counters only, not the players' figures.
        return (any(getattr(played, name) != getattr(kept, name) for name in fields)
                or {name: played.counters.get(name) for name in kept.counters} != kept.counters)
    return len(chosen), [result.key for _, result in replays if differs(result, stored[result.key])]


def _pool(workers: int) -> Any:
    """Forked workers that leave a stop to the driver: Ctrl-C reaches the driver, which ends the pool
    (``terminate``, SIGTERM), and a worker then dies without a traceback of its own."""
    return multiprocessing.get_context("fork").Pool(workers, initializer=_worker_signals)


def _worker_signals() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _play(item: tuple[Any, MatchSpec]) -> tuple[Any, MatchResult]:
    """Play one match in a worker, returning it with the caller's tag."""
    tag, spec = item
    return tag, play_match(spec)


def render(summaries: list[dict], depths: list[dict], matches: int, budget: float) -> None:
    """Print the strength table and the depth limits with rich."""
    table = Table(title=f"Player strength: {matches} seeded matches per row, "
                        f"{OPENING_PLIES} random opening plies, score of the first-named player")
    for column in ("game", "row", "mean score [95% CI]", "W/D/L", "ms/move"):
        table.add_column(column, justify="right" if column in ("W/D/L", "ms/move") else "left")
    for row in summaries:
        table.add_row(row["game"], row["label"],
                      f"{row['mean']:.1f} [{row['low']:.1f}, {row['high']:.1f}]",
                      f"{row['win']}/{row['draw']}/{row['loss']}", f"{1000 * row['s_per_move']:.1f}")
    limits = Table(title=f"Alpha-beta limits for under {budget:g} s per move on one core")
    for column in ("game", "depth", "slowest move at that depth (s)", "node limit"):
        limits.add_column(column)
    for row in depths:
        limits.add_row(row["game"], str(row["depth"]), f"{row['slowest_s']:.2f}", str(row["nodes"]))
    console = Console()
    console.print(table)
    console.print(limits)


def markdown(summaries: list[dict], depths: list[dict], budget: float, opponent_time: bool = False) -> str:
    """The same two tables in Markdown, for the documentation, with the reference rows' specs.

    ``opponent_time`` adds the opponent's ms/move (the Fairy-Stockfish rows).
    Scores show two decimals when every row's lie within 0..1 (Chinese chess), else one.
    """
    digits = 2 if all(-1.5 <= r["low"] and r["high"] <= 1.5 for r in summaries) else 1
    extra = (" opponent ms/move |", "---|") if opponent_time else ("", "")
    lines = ["| game | row | mean score [95% CI] | W/D/L | ms/move |" + extra[0], "|---|---|---|---|---|" + extra[1]]
    lines += [f"| {r['game']} | {r['label']} | {r['mean']:.{digits}f} "
              f"[{r['low']:.{digits}f}, {r['high']:.{digits}f}] | "
              f"{r['win']}/{r['draw']}/{r['loss']} | {1000 * r['s_per_move']:.1f} |"
              + (f" {1000 * r['opponent_s_per_move']:.1f} |" if opponent_time else "") for r in summaries]
    lines += [""] + [f"- {r['game']} {r['label']}: `{r['player']}`" for r in summaries
                     if r["label"].startswith("reference")]
    if not depths:
        return "\n".join(lines)
    lines += ["", f"| game | deepest depth under {budget:g} s per move | slowest move at that depth (s) "
                  "| node limit for the same budget |", "|---|---|---|---|"]
    lines += [f"| {r['game']} | {r['depth']} | {r['slowest_s']:.2f} | {r['nodes']:,} |" for r in depths]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help="game specs (default: every seat of every game with a search)")
    parser.add_argument("--matches", type=int, default=100, help="seeded matches per row")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--budget", type=float, default=2.0, help="seconds per move for the depth limit")
    parser.add_argument("--json", action="store_true", help="print one JSON line instead of tables")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables instead")
    parser.add_argument("--fairy", action="store_true",
                        help="rows against Fairy-Stockfish instead (Chinese chess seats only); with --ladder: "
                             "also the references beside the ladder, as rows of their own")
    parser.add_argument("--fairy-nodes", default="1000,10000", metavar="N,N",
                        help="node counts per move of both sides for --fairy")
    parser.add_argument("--alphabeta-nodes", type=int, default=None, metavar="N",
                        help="alpha-beta's node count for --fairy (default: Fairy-Stockfish's)")
    parser.add_argument("--no-gbot", action="store_true", help="leave out the gbot row of --fairy")
    parser.add_argument("--ladder", action="store_true",
                        help="--player against every rung of each game's ladder, worst rung beside the mean")
    parser.add_argument("--player", default="strong", metavar="SPEC", help="the player measured by --ladder")
    parser.add_argument("--rung", action="append", default=[], metavar="SPEC",
                        help="with --ladder: only this rung (repeat for several), e.g. to try a candidate on the "
                             "hardest rungs first")
    parser.add_argument("--results", type=Path, metavar="FILE",
                        help="append every finished match to FILE (JSON lines) and skip the matches already in it")
    parser.add_argument("--verify", type=int, default=0, metavar="N",
                        help="with --results: replay N stored matches of these rows and fail if any differs")
    parser.add_argument("--stored", action="store_true",
                        help="with --results: play nothing, summarise the matches FILE holds (a run under way)")
    parser.add_argument("--paired", metavar="FILE=SPEC",
                        help="with --results: also compare each row, seed by seed, with SPEC's stored matches "
                             "in FILE (the player a candidate would replace): W/D/L, means and the paired "
                             "score difference with its 95%% interval, per row and pooled (each distinct game "
                             "once: rescored games, as --same-games makes, are not pooled again)")
    parser.add_argument("--same-games", action="append", default=[], metavar="GAME=BASE",
                        help="with --results: GAME's rows replay the stored matches of BASE instead of playing "
                             "(games that differ only in scoring: totality:easy=totality); GAME's rows are then "
                             "BASE's games rescored, not more samples, and no pooled figure counts them again")
    args = parser.parse_args()
    if args.rung and not args.ladder:
        parser.error("--rung needs --ladder")
    if (args.verify or args.stored or args.same_games or args.paired) and not args.results:
        parser.error("--verify, --stored, --same-games and --paired need --results FILE")
    baseline = None
    if args.paired:
        baseline_file, _, baseline_player = args.paired.partition("=")
        if not baseline_player or not Path(baseline_file).is_file():
            parser.error(f"--paired {args.paired}: give FILE=SPEC, an existing results file and the player "
                         "whose stored matches to compare with")
        try:
            baseline = (Path(baseline_file), players.load(baseline_player).spec)
        except ValueError as error:
            parser.error(f"--paired {args.paired}: {error}")
    same_games = {}
    for item in args.same_games:
        game, _, base = item.partition("=")
        try:
            game, base = load_game(game).spec, load_game(base).spec
        except ValueError as error:
            parser.error(f"--same-games {item}: {error}")
        if load_game(game).name != load_game(base).name or game == base:
            parser.error(f"--same-games {item}: give two specs of one game, e.g. totality:easy=totality")
        same_games[game] = base
    if args.results and not args.results.parent.is_dir():
        parser.error(f"--results: the folder {args.results.parent} does not exist")
    games = args.games or [seat for name in searches.available() for seat in SEATS[name]]
    if args.ladder:
        try:
            rows = [row for game in games for row in ladder_rows(game, args.player, args.rung)]
        except ValueError as error:
            parser.error(f"--rung: {error}")
        extra = [row for game in games for row in reference_rows(game, args.player)] if args.fairy else []
    elif args.fairy:
        nodes = [int(count) for count in args.fairy_nodes.split(",")]
        rows = [row for game in games if load_game(game).name == "xiangqi"
                for row in fairy_rows(game, nodes, args.alphabeta_nodes, not args.no_gbot)]
        extra = []
    else:
        rows, extra = [row for game in games for row in rows_for(game)], []
    if args.verify:
        checked, differ = verify(rows + extra, args.matches, args.results, args.verify, args.workers)
        if differ:
            print(f"eval_players: {len(differ)} stored matches replay differently (stale results?): "
                  + ", ".join(differ), file=sys.stderr)
            return 1
        print(f"eval_players: {checked} stored matches replayed identically", file=sys.stderr)
    summaries = evaluate(rows + extra, args.matches, args.workers, args.results, play=not args.stored,
                         same_games=same_games)
    if args.ladder:
        beside_labels = {row.label for row in extra}  # rows without stored matches may be missing (--stored)
        rungs = [s for s in summaries if s["label"] not in beside_labels]
        beside = [s for s in summaries if s["label"] in beside_labels]
        totals = ladder_totals(rungs)
        pairs = paired(rows + extra, args.matches, args.results, *baseline) if baseline else None
        if args.json:
            print(json.dumps({"matches": args.matches, "rows": rungs, "ladder": totals, "references": beside,
                              **({"paired": pairs} if baseline else {})}))
        else:
            print(markdown(rungs, [], args.budget, opponent_time=True))
            print()
            print(ladder_markdown(totals))
            if beside:
                print()
                print(markdown(beside, [], args.budget, opponent_time=True))
            if baseline:
                print()
                print(paired_markdown(pairs, players.load(args.player).spec, baseline[1]))
        return 0
    depths = [] if args.fairy or args.stored else [depth_under(game, args.budget)
                                                   for game in dict.fromkeys(load_game(g).name for g in games)]
    pairs = paired(rows + extra, args.matches, args.results, *baseline) if baseline else None
    if args.json:
        print(json.dumps({"matches": args.matches, "rows": summaries, "limits": depths,
                          **({"paired": pairs} if baseline else {})}))
        return 0
    if args.markdown:
        print(markdown(summaries, depths, args.budget, opponent_time=args.fairy))
    else:
        render(summaries, depths, args.matches, args.budget)
    if baseline:
        print()
        print(paired_markdown(pairs, "the rows' player", baseline[1]))
    return 0


if __name__ == "__main__":
    try:
        with stop_on_signals(), stops_unwrapped():  # a stop that came wrapped in another error is a stop
            code = main()
    except KeyboardInterrupt:
        print("eval_players: stopped; the matches finished are kept in --results, and the same command resumes",
              file=sys.stderr)
        code = 130
    sys.exit(code)
