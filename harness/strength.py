"""Strength against the ladder, read from stored matches: per rung, the worst rung beside the mean, and a
candidate paired by seed with the stored games of the player it would replace.

A strength measurement is a ladder tournament (``harness tournament GAME
--ladder``): every match recorded once, by key, so a measurement resumes,
reuses every game the database already holds, and is evidence anyone can
replay. This module reads such runs (or imported ones) back:

* **Rows and standings.** Per game configuration, player and opponent: W/D/L,
  the mean score with its 95% interval inside the game's score bounds
  (``harness.ratings.bounded_mean_interval``), and each side's time a move.
  Per game configuration and player, the rungs of the game's ladder
  (``players.ladder``) give the worst rung (lowest mean, fewest wins breaking
  ties) beside the mean over the rungs; other opponents (references such as
  Fairy-Stockfish) are rows *beside* the ladder, outside those totals.
* **Paired with a baseline run.** Each match beside the baseline run's match
  of the same game configuration, opponent, seed and opening: the mean of
  the score differences with its Student t interval, per rung and pooled
  per game. The pooled row counts each distinct game once: two pairs whose
  games have the same seed and move list under two configurations that only
  rescore the end (Totality's levels) are one sample, not two.
* **Rescored games.** Neither the players nor any rung reads Totality's
  level, so a seed plays the same game at both levels, and the easy rows
  can be the wise games replayed through the easy rules (``rescore``): rows
  of their own, marked as such, never pooled with the games they rescore.
  A stored match that is one (``extra["replayed_from"]``, as the old ladder
  files hold them) is marked the same way.
* **Verification** (``verify``): replay some of the stored matches and name
  any that plays out differently, which is how a store made stale by a
  change to a search or an evaluation is caught.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

from harness.errors import InvalidInput
from harness.games import load as load_game
from harness.match import MatchResult, MatchSpec, build_result, match_key, recorded_spec
from harness.ratings import bounded_mean_interval, mean_interval
from harness.replay import replay_states

if TYPE_CHECKING:
    from harness.cluster import MatchPool
    from harness.db import Database

__all__ = ["LadderStanding", "PairedRow", "RowSummary", "RungResult", "StrengthReport", "Verification",
           "is_rescored", "ladder_report", "paired_rows", "rescore", "score_digits", "standings", "strength_report",
           "summarise", "verify"]

REPORT_FORMAT = "harness.strength/1"
REPLAYED_FROM = "replayed_from"
VERIFIED_FIELDS = ("outcome", "reason", "score", "plies", "actions")


@dataclass(frozen=True)
class RowSummary:
    """Matches of one row: counts, the mean score with its 95% interval, and each side's seconds a move."""

    games: int
    wins: int
    draws: int
    losses: int
    mean: float
    low: float
    high: float
    player_s_per_move: float
    opponent_s_per_move: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def summarise(results: Sequence[MatchResult]) -> RowSummary:
    """W/D/L, mean with its interval inside the game's score bounds, and seconds a move of both sides.

    Raises:
        InvalidInput: no results.
    """
    if not results:
        raise InvalidInput("no matches to summarise")
    mean, low, high = bounded_mean_interval([r.score for r in results], load_game(results[0].game).score_bounds())
    count = {key: sum(1 for r in results if r.outcome == key) for key in ("win", "draw", "loss")}
    player_moves = sum((r.plies + 1) // 2 for r in results)
    opponent_moves = sum(r.plies // 2 for r in results)
    return RowSummary(len(results), count["win"], count["draw"], count["loss"], float(mean), float(low),
                      float(high), sum(r.player_s for r in results) / max(1, player_moves),
                      sum(r.opponent_s for r in results) / max(1, opponent_moves))


@dataclass(frozen=True)
class RungResult:
    """One player's results against one rung of a ladder (or one opponent beside it)."""

    rung: str
    games: int
    wins: int
    draws: int
    losses: int
    mean: float
    low: float = 0.0
    high: float = 0.0
    player_s_per_move: float = 0.0
    opponent_s_per_move: float = 0.0
    rescored: bool = False  # the games of another configuration replayed through this one's rules

    @classmethod
    def of(cls, rung: str, results: Sequence[MatchResult]) -> RungResult:
        """The row of ``results`` (one player against ``rung``)."""
        row = summarise(results)
        return cls(rung, row.games, row.wins, row.draws, row.losses, row.mean, row.low, row.high,
                   row.player_s_per_move, row.opponent_s_per_move, all(is_rescored(r) for r in results))

    def to_dict(self) -> dict[str, Any]:
        return {"rung": self.rung, "games": self.games, "wins": self.wins, "draws": self.draws,
                "losses": self.losses, "mean": self.mean, "low": self.low, "high": self.high,
                "player_s_per_move": self.player_s_per_move, "opponent_s_per_move": self.opponent_s_per_move,
                "rescored": self.rescored}


@dataclass(frozen=True)
class LadderStanding:
    """One player across a ladder: every rung, the worst of them and the mean over them.

    The worst rung is the one with the lowest mean score (fewest wins break
    ties), since a target such as "90 wins against every rung" is only as
    good as the rung where it is hardest. ``beside`` holds the opponents
    measured beside the ladder (references), outside every total.
    """

    player: str
    rungs: tuple[RungResult, ...]
    game: str = ""
    beside: tuple[RungResult, ...] = ()

    @property
    def worst(self) -> RungResult:
        """The rung with the lowest mean score."""
        return min(self.rungs, key=lambda r: (r.mean, r.wins))

    @property
    def mean(self) -> float:
        """The mean of the rungs' mean scores (each rung weighs the same)."""
        return sum(r.mean for r in self.rungs) / len(self.rungs)

    @property
    def fewest_wins(self) -> int:
        """The smallest number of wins against any rung."""
        return min(r.wins for r in self.rungs)

    @property
    def fewest_wins_rung(self) -> str:
        """The rung with the fewest wins (the first of them in ladder order)."""
        return min(self.rungs, key=lambda r: r.wins).rung

    @property
    def losses(self) -> int:
        """Losses against every rung together."""
        return sum(r.losses for r in self.rungs)

    @property
    def rescored(self) -> bool:
        """Whether every rung's games are another configuration's, rescored."""
        return all(r.rescored for r in self.rungs)

    def describe(self) -> str:
        """One line: the mean over the rungs and the worst rung (two decimals for a score within 0..1)."""
        worst = self.worst
        where = f"{self.game}, " if self.game else ""
        digits = score_digits(self.game) if self.game else 1
        return (f"{where}{self.player}: mean {self.mean:.{digits}f} over {len(self.rungs)} rungs; worst rung "
                f"{worst.rung}: mean {worst.mean:.{digits}f}, W/D/L {worst.wins}/{worst.draws}/{worst.losses}; "
                f"fewest wins {self.fewest_wins}" + (" (rescored games)" if self.rescored else ""))

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "player": self.player, "rungs": [r.to_dict() for r in self.rungs],
                "worst_rung": self.worst.rung, "mean_over_rungs": self.mean, "fewest_wins": self.fewest_wins,
                "fewest_wins_rung": self.fewest_wins_rung, "losses": self.losses, "rescored": self.rescored,
                "beside": [r.to_dict() for r in self.beside]}


def score_digits(game: str) -> int:
    """Decimals a score of ``game`` is shown with: two when its bounds are at most 1.5 apart (Chinese chess's
    rank 1 or not, where one decimal would round a game in twenty away), else one."""
    low, high = load_game(game).score_bounds()
    return 2 if high - low <= 1.5 else 1


def is_rescored(result: MatchResult) -> bool:
    """Whether a match is another configuration's game replayed through its rules (not a game of its own)."""
    return REPLAYED_FROM in (result.extra or {})


def standings(results: Iterable[MatchResult], ladder_of: Callable[[str], Sequence[str]] | None = None
              ) -> tuple[LadderStanding, ...]:
    """Per game configuration and player: the rungs in ladder order, and the other opponents beside them.

    Args:
        results: matches (of any runs).
        ladder_of: the rungs of a game configuration (default ``players.ladder.ladder``); a player
            with no match against any rung has no standing.
    """
    if ladder_of is None:
        from players.ladder import ladder as ladder_of
    table: dict[tuple[str, str], dict[str, list[MatchResult]]] = {}
    for result in results:
        game = load_game(result.game).spec
        table.setdefault((game, result.player), {}).setdefault(result.opponent, []).append(result)
    out = []
    for (game, player), by_opponent in table.items():
        rungs = list(ladder_of(game))
        on = tuple(RungResult.of(rung, by_opponent[rung]) for rung in rungs if rung in by_opponent)
        beside = tuple(RungResult.of(opponent, matches) for opponent, matches in sorted(by_opponent.items())
                       if opponent not in rungs)
        if on:
            out.append(LadderStanding(player, on, game, beside))
    return tuple(sorted(out, key=lambda s: (load_game(s.game).name, s.rescored, s.game, s.player)))


@dataclass(frozen=True)
class PairedRow:
    """One player's matches beside the baseline's on the same seeds: both sides' rows and the difference.

    ``game`` and ``opponent`` are empty in a pooled row, which counts each
    distinct game once; ``left_out`` is how many pairs it left out as the
    same games rescored (``is_rescored``, or the same moves under another
    configuration).
    """

    game: str
    player: str
    baseline: str
    opponent: str
    pairs: int
    this: RowSummary
    base: RowSummary
    difference: tuple[float, float, float]
    left_out: int = 0
    rescored: bool = False

    @property
    def pooled(self) -> bool:
        return not self.opponent

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "player": self.player, "baseline": self.baseline, "opponent": self.opponent,
                "pairs": self.pairs, "this": self.this.to_dict(), "base": self.base.to_dict(),
                "difference": list(self.difference), "left_out": self.left_out, "rescored": self.rescored}


def paired_rows(results: Iterable[MatchResult], baseline: Iterable[MatchResult]) -> tuple[PairedRow, ...]:
    """Each match of ``results`` beside ``baseline``'s match of the same game configuration, opponent, seed and
    opening: per (game, player, opponent) a row, then per game name and player a pooled row over the
    distinct games (when more than one row).

    Raises:
        InvalidInput: the baseline holds more than one player's match for one seed of a row (which of them
            is the baseline is not clear), or nothing pairs.
    """
    index: dict[tuple, MatchResult] = {}
    for match in baseline:
        slot = _slot(match)
        if slot in index and index[slot].player != match.player:
            raise InvalidInput(f"the baseline holds two players' matches of {slot[0]} against {slot[1]}, seed "
                               f"{slot[2]} ({index[slot].player}, {match.player}); give a baseline run of one "
                               "player", parameters=("baseline",))
        index[slot] = match
    groups: dict[tuple[str, str, str], list[tuple[MatchResult, MatchResult]]] = {}
    for match in results:
        other = index.get(_slot(match))
        if other is not None and other.key != match.key:
            groups.setdefault((load_game(match.game).spec, match.player, match.opponent), []).append((match, other))
    if not groups:
        raise InvalidInput("no match pairs with the baseline's: give a baseline run that played the same games, "
                           "opponents, seeds and openings", parameters=("baseline",))
    rows = []
    for (game, player, opponent), pairs in sorted(groups.items(), key=lambda item: _order(item[0])):
        pairs.sort(key=lambda pair: pair[0].seed)
        rows.append(_paired(game, player, opponent, pairs))
    pooled = []
    by_game: dict[tuple[str, str], list[PairedRow]] = {}
    for row in rows:
        by_game.setdefault((load_game(row.game).name, row.player), []).append(row)
    for (name, player), game_rows in by_game.items():
        if len(game_rows) < 2:
            continue
        every = [pair for (game, who, opponent), pairs in groups.items()
                 if load_game(game).name == name and who == player for pair in pairs]
        every.sort(key=lambda pair: (is_rescored(pair[0]) or is_rescored(pair[1]), _order(
            (load_game(pair[0].game).spec, pair[0].player, pair[0].opponent)), pair[0].seed))
        distinct = distinct_pairs(every)
        row = _paired(name, player, "", distinct)
        pooled.append(PairedRow(name, player, row.baseline, "", len(distinct), row.this, row.base, row.difference,
                                left_out=len(every) - len(distinct)))
    return tuple(rows + pooled)


def _slot(match: MatchResult) -> tuple:
    return (load_game(match.game).spec, match.opponent, match.seed, match.opening_plies,
            (match.extra or {}).get("openings", ""))


def _order(group: tuple[str, str, str]) -> tuple:
    """Rows in ladder order per game configuration (the played before the rescored, red before black)."""
    from players.ladder import ladder
    game, player, opponent = group
    rungs = ladder(game)
    return (load_game(game).name, game, player, rungs.index(opponent) if opponent in rungs else len(rungs), opponent)


def _paired(game: str, player: str, opponent: str, pairs: list[tuple[MatchResult, MatchResult]]) -> PairedRow:
    differences = [a.score - b.score for a, b in pairs]
    mean, low, high = mean_interval(differences)
    return PairedRow(game, player, pairs[0][1].player, opponent, len(pairs), summarise([a for a, _ in pairs]),
                     summarise([b for _, b in pairs]), (float(mean), float(low), float(high)),
                     rescored=all(is_rescored(a) for a, _ in pairs))


def distinct_pairs(pairs: Sequence[tuple[MatchResult, MatchResult]]) -> list[tuple[MatchResult, MatchResult]]:
    """The pairs with each distinct game once, the first kept (the played before the rescored).

    Two pairs are one sample when both sides played the same game: the same game (any configuration of
    it, such as Totality's level, which only rescores the end), players, opponent, seed, opening plies and
    move list. Pooled with the games they rescore, Totality's easy rows would count every game twice and
    make the interval as narrow as twice the games'.
    """
    def game(result: MatchResult) -> tuple:
        return (load_game(result.game).name, result.player, result.opponent, result.seed, result.opening_plies,
                json.dumps(result.actions))
    seen: set[tuple] = set()
    kept = []
    for a, b in pairs:
        key = (game(a), game(b))
        if key not in seen:
            seen.add(key)
            kept.append((a, b))
    return kept


def rescore(result: MatchResult, game: str) -> MatchResult:
    """The match ``result`` as ``game`` (another configuration of its game) scores the same moves.

    For two configurations that differ only in how the end is scored
    (Totality's levels: neither the players nor any rung reads the level),
    the same seed plays the same game, so replaying its actions through the
    other rules gives that game's score and outcome without playing it.
    The result carries the key of its own spec and ``extra["replayed_from"]``.

    Raises:
        InvalidInput: ``game`` is not a configuration of the match's game, a move is illegal under it, or
            the moves do not finish the game under it (then it does not play the same games).
    """
    rules = load_game(game)
    if rules.name != load_game(result.game).name:
        raise InvalidInput(f"cannot rescore a {result.game} match as {game}: give a configuration of the same "
                           "game (totality:easy for totality)", parameters=("rescore",))
    *_, (_, state, _, _) = replay_states(rules.spec, result.actions)
    if not rules.is_terminal(state):
        raise InvalidInput(f"the moves of match {result.key} do not finish the game under {rules.spec}: it does "
                           "not play the same games, so its games cannot be rescored", parameters=("rescore",))
    openings = (result.extra or {}).get("openings", "")
    spec = MatchSpec(rules.spec, result.player, result.opponent, result.seed,
                     0 if openings else result.opening_plies, openings)
    extra = {REPLAYED_FROM: result.key} | ({"openings": openings} if openings else {})
    made = build_result(rules, state, player=result.player, opponent=result.opponent, seed=result.seed,
                        actions=result.actions, outcome=rules.outcome(state), started=0.0,
                        player_s=result.player_s, opponent_s=result.opponent_s, key=match_key(spec),
                        opening_plies=result.opening_plies, extra=extra)
    return replace(made, duration_s=result.duration_s)


def rescored_results(results: Sequence[MatchResult], games: Iterable[str]) -> list[MatchResult]:
    """``results`` and, for each of ``games``, the other configurations' matches rescored under it (a key
    ``results`` already holds is not made again)."""
    held = {result.key for result in results}
    extra = []
    for game in games:
        rules = load_game(game)
        for result in results:
            if load_game(result.game).name == rules.name and load_game(result.game).spec != rules.spec \
                    and not is_rescored(result):
                made = rescore(result, rules.spec)
                if made.key not in held:
                    held.add(made.key)
                    extra.append(made)
    return list(results) + extra


@dataclass(frozen=True)
class Verification:
    """Stored matches replayed: how many, and the keys of those that played out differently."""

    checked: int
    differing: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.differing

    def describe(self) -> str:
        if self.ok:
            return f"{self.checked} stored matches replayed identically"
        return (f"{len(self.differing)} of {self.checked} stored matches replay differently (a stale store? a "
                f"search or evaluation changed since they were played): {', '.join(self.differing)}")

    def to_dict(self) -> dict[str, Any]:
        return {"checked": self.checked, "differing": list(self.differing)}


def verify(matches: Sequence[MatchResult], count: int, pool: MatchPool) -> Verification:
    """Replay ``count`` of ``matches``, spread over them, on ``pool``; name those that differ.

    A match is the same when its outcome, reason, score, plies, actions and
    every counter it stored come out the same (a rescored match is played
    for real under its own configuration: that is what shows it is the same
    game). Times differ from run to run and are not compared.

    Raises:
        InvalidInput: ``count`` below 1 or no matches.
    """
    if count < 1:
        raise InvalidInput(f"verify must be at least 1, got {count}", parameters=("verify",))
    if not matches:
        raise InvalidInput("no stored matches to verify", parameters=("verify",))
    step = max(1, len(matches) // count)
    chosen = {match.key: match for match in list(matches)[::step][:count]}
    specs = [_spec_of(match) for match in chosen.values()]
    differing = []
    for played in pool.run(specs):
        kept = chosen[played.key]
        if any(getattr(played, name) != getattr(kept, name) for name in VERIFIED_FIELDS) \
                or {name: played.counters.get(name) for name in kept.counters} != kept.counters:
            differing.append(played.key)
    return Verification(len(chosen), tuple(sorted(differing)))


def _spec_of(match: MatchResult) -> MatchSpec:
    spec = recorded_spec(match.to_dict())
    return MatchSpec(load_game(spec.game).spec, spec.player, spec.opponent, spec.seed, spec.opening_plies,
                     spec.openings)


@dataclass(frozen=True)
class StrengthReport:
    """A ladder measurement read from stored runs: standings, the paired comparison, a verification."""

    runs: tuple[int, ...]
    standings: tuple[LadderStanding, ...]
    paired: tuple[PairedRow, ...] = ()
    baseline_runs: tuple[int, ...] = ()
    verification: Verification | None = None
    rescored_games: tuple[str, ...] = field(default=())
    label: str = ""            # the runs by name (``run 12`` for one without), joined by " + "
    baseline_label: str = ""   # the baseline runs the same way

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data: the document of ``harness ladder --json`` (docs/players.md)."""
        return {"format": REPORT_FORMAT, "runs": list(self.runs), "baseline_runs": list(self.baseline_runs),
                "label": self.label, "baseline_label": self.baseline_label,
                "standings": [s.to_dict() for s in self.standings],
                "paired": [row.to_dict() for row in self.paired],
                "verification": None if self.verification is None else self.verification.to_dict()}

    def summary(self, standings: bool = True) -> list[str]:
        """Lines for the user: each standing (unless ``standings`` is false: the tables show them), the pooled
        differences, the verification (last)."""
        lines = [standing.describe() for standing in self.standings] if standings else []
        for row in self.paired:
            if row.pooled:
                mean, low, high = row.difference
                lines.append(f"{row.game}: {row.player} beside {row.baseline} over {row.pairs} distinct games: "
                             f"{mean:+.2f} [{low:.2f}, {high:.2f}]"
                             + (f" ({row.left_out} rescored pairs not pooled)" if row.left_out else ""))
        if self.verification is not None:
            lines.append(self.verification.describe())
        return lines


def strength_report(database: Database, runs: Sequence[int | str], *, baseline: Sequence[int | str] = (),
                    rescore_as: Sequence[str] = (), rungs: Sequence[str] = (), verify_count: int = 0,
                    pool: MatchPool | None = None) -> StrengthReport:
    """The ladder report of stored runs: what ``harness ladder`` prints, and ``harness tournament --ladder``.

    Args:
        database: where the runs are.
        runs: run ids or names (their matches together).
        baseline: runs whose matches the runs' are paired with, seed by seed.
        rescore_as: game configurations (``totality:easy``) to report the runs' games of another
            configuration of the same game under, as rescored rows of their own.
        rungs: only the matches against these opponents (specs in any spelling); all by default.
        verify_count: replay this many of the runs' stored matches on ``pool`` first.
        pool: where ``verify_count`` matches are replayed (required with it).

    Raises:
        InvalidInput: an unknown run, no matches, a rescore that does not apply, a baseline that does
            not pair.
    """
    if not runs:
        raise InvalidInput("give at least one run (harness runs lists them)", parameters=("runs",))
    run_ids = tuple(dict.fromkeys(database.run_id(run) for run in runs))
    base_ids = tuple(dict.fromkeys(database.run_id(run) for run in baseline))
    if set(run_ids) & set(base_ids):
        raise InvalidInput("a run cannot be its own baseline; give the baseline player's run",
                           parameters=("baseline",))
    games = tuple(load_game(game).spec for game in rescore_as)
    chosen = _canonical_rungs(rungs)
    matches = _results(database, run_ids, chosen)
    if not matches:
        raise InvalidInput(f"run {', '.join(map(str, run_ids))} holds no matches"
                           + (" against those rungs" if chosen else " yet"), parameters=("runs",))
    verification = None
    if verify_count:
        if pool is None:
            raise InvalidInput("verify needs a pool to replay on", parameters=("verify",))
        verification = verify(matches, verify_count, pool)
    matches = rescored_results(matches, games)
    report_standings = standings(matches)
    paired: tuple[PairedRow, ...] = ()
    if base_ids:
        paired = paired_rows(matches, rescored_results(_results(database, base_ids, chosen), games))
    return StrengthReport(run_ids, report_standings, paired, base_ids, verification, games,
                          _label(database, run_ids), _label(database, base_ids))


def _label(database: Database, run_ids: Sequence[int]) -> str:
    """Runs as a reader knows them: by name, else ``run ID``, joined by " + "."""
    names = []
    for run_id in run_ids:
        record = database.run(run_id)
        names.append(record.name if record is not None and record.name else f"run {run_id}")
    return " + ".join(names)


def _results(database: Database, run_ids: Sequence[int], rungs: frozenset[str] = frozenset()) -> list[MatchResult]:
    found: dict[str, MatchResult] = {}
    for run_id in run_ids:
        for record in database.iter_matches(run_id=run_id):
            if not rungs or record.opponent in rungs:
                found.setdefault(record.key, record.to_result())
    return list(found.values())


def _canonical_rungs(rungs: Sequence[str]) -> frozenset[str]:
    from players import canonical
    return frozenset(canonical(rung) for rung in rungs)


def ladder_report(runs: Sequence[int | str], *, baseline: Sequence[int | str] = (), rescore_as: Sequence[str] = (),
                  rungs: Sequence[str] = (), verify_count: int = 0, workers: int | None = None,
                  address: str | None = None, db_url: str | None = None) -> StrengthReport:
    """``strength_report`` of stored runs, opening the database (read only) and, to verify, a pool: the CLI's one
    call for ``harness ladder``.

    Args:
        runs, baseline, rescore_as, rungs, verify_count: as for ``strength_report``.
        workers, address: the pool that replays ``verify_count`` matches (None: every CPU; a local cluster).
        db_url: the results database (None: ``$HARNESS_DB`` or the default file); it must exist.

    Raises:
        InvalidInput: see ``strength_report``; no database at ``db_url``.
        ClusterError, DatabaseError: the pool or the database failed.
    """
    from harness.cluster import open_pool
    from harness.db import open_database
    for game in rescore_as:
        load_game(game)  # an unknown game or rung is bad input before anything opens
    _canonical_rungs(rungs)
    with open_database(db_url, read_only=True) as database:
        if not verify_count:
            return strength_report(database, runs, baseline=baseline, rescore_as=rescore_as, rungs=rungs)
        with open_pool(workers=workers, address=address) as pool:
            return strength_report(database, runs, baseline=baseline, rescore_as=rescore_as, rungs=rungs,
                                   verify_count=verify_count, pool=pool)
