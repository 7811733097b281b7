#!/usr/bin/env python
"""Where stored Chinese chess matches were lost, move by move, by a UCI engine's reading.

Usage: scripts/judge_games.py FILE [FILE ...] [--outcome loss|draw|win|any] [--opponent SPEC]
                              [--player SPEC] [--engine COMMAND] [--depth N] [--lost PAWNS]
                              [--try SPEC ... [--drop PAWNS]] [--cache FILE] [--json]

FILE is a file of match lines written by ``harness export`` (one match a line;
``MatchResult`` lines, as ``harness play --json`` prints them, read the same;
the stored ladder games: ``harness db restore docs/ladder/xiangqi.db.gz --db
sqlite:///x.db``, then ``harness export --run RUN --db sqlite:///x.db``). For each
selected match (default: the losses) the engine (default ``fairy-stockfish``,
one thread, a fixed depth, so a run is repeatable) values every position of
the game from the measured seat, in pawns: after the random opening plies, and
after each move. A move of the measured seat ``drops`` the value by how much
worse the position is after it than before it, both read by the engine. Per
game the table shows the opening's value (a seed whose random plies already
lose is a different problem from a search that blunders), the worst drop while
the seat was not yet lost (the move, the engine's move there, the value before
and after) and the first ply from which the seat stays below ``--lost`` pawns.
A last line sums up where the games were decided (the worst move's ply): in
the opening (plies up to 20), the middle game (to 60) or later. ``--json``
prints one JSON line instead (the games and the summary).

``--try SPEC`` (repeatable) asks whether a candidate would have avoided those
mistakes: at each game's worst move, the player SPEC chooses too (seeded with
the game's seed), its move is read like the game's, and the summary counts,
per player, the moves that read more than ``--drop`` pawns below the engine's
own move there, read the same way (a search kept to one move reads a little
differently from a free one, so the engine's own move is the yardstick, not
the position's reading: a player that plays it makes no mistake).
The game's own move is read again beside them (``played``): a fixed depth is
still noisy in sharp positions, so compare the tried players with that line,
not with the first reading.

``--cache FILE`` keeps every reading (position, depth, and the move if one was
asked) in FILE and takes it from there next time, so screening the same games
again with other ``--try`` players costs only their searches and their moves'
readings.

The engine does not know the platform's 120-ply limit and keeps repetition rules
the platform lacks, so its reading is a second opinion, strongest on material
and attack, not a verdict on the platform's score.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import players
from harness.cli import print_table
from harness.errors import PlayerError, SpecError
from harness.games import Rules, State
from harness.games import load as load_game
from harness.replay import replay_states
from harness.results import read_results_file
from players.uci import MATE_CP, UCIEngine, action_to_move, position_reader

OUTCOMES = ("loss", "draw", "win", "any")
SEATS = ("red", "black")
MATE_PAWNS = 100.0  # a mate reads as this many pawns (the engine reports mates apart from centipawns)
PLAYED = "played"  # the game's own move, read again beside the tried players' moves
PHASES = (("opening", 20), ("middle", 60), ("late", 10**9))  # decided by this ply


def read_matches(path: Path) -> list[dict[str, Any]]:
    """The stored matches of ``path``; a torn last line (a run still writing) is left out, not cut."""
    try:
        return read_results_file(path)[0]
    except ValueError as error:
        raise SystemExit(f"judge_games: {path} {error}") from None


def pawns(score: int) -> float:
    """The engine's centipawns (mates as +-(MATE_CP - n)) as pawns, a mate as ``MATE_PAWNS``."""
    if abs(score) >= MATE_CP - 1000:
        return MATE_PAWNS if score > 0 else -MATE_PAWNS
    return score / 100.0


class Reader:
    """The engine at a fixed depth, its readings kept by position (and move) in memory and, with ``cache``, in a
    file: a second screen of the same games with other ``--try`` players then reads only their new moves.

    The engine keeps its table across a game's positions, so a reading can differ a little with what was read
    before it; the cache makes every later run read a position as the first one did.
    """

    def __init__(self, engine: UCIEngine, depth: int, cache: Path | None = None) -> None:
        self.engine, self.depth, self.cache = engine, depth, cache
        self.known: dict[tuple[str, str], tuple[str, float]] = {}
        if cache is not None and cache.is_file():
            for line in cache.read_text().splitlines():
                try:
                    row = json.loads(line)
                    if row["depth"] == depth:
                        self.known[(row["fen"], row["move"])] = (row["best"], row["value"])
                except (ValueError, KeyError, TypeError):
                    continue  # a torn last line: read again
        self.first_rank = engine.first_rank

    def read(self, fen: str, move: str = "") -> tuple[str, float]:
        """The engine's move and its value in pawns for the side to move at ``fen`` (only ``move``, if given)."""
        key = (fen, move)
        if key not in self.known:
            best, info = self.engine.search(fen, [move] if move else [], f"go depth {self.depth}", 600.0)
            self.known[key] = (best, pawns(info.get("score", 0)))
            if self.cache is not None:
                with self.cache.open("a") as out:
                    out.write(json.dumps({"fen": fen, "move": move, "depth": self.depth, "best": best,
                                          "value": self.known[key][1]}) + "\n")
        return self.known[key]


def readings(reader: Reader, match: dict[str, Any]) -> list[tuple[Rules, State, str, float]]:
    """Every position of ``match`` before its end: rules, state, the engine's move, and its value for the
    measured seat."""
    out = []
    reader.engine.new_game(60.0)
    for rules, state, _action, _who in replay_states(match["game"], match["actions"]):
        if rules.is_terminal(state):
            break
        best, value = reader.read(rules.to_fen(state))
        out.append((rules, state, best, value if rules.to_move(state) == rules.user_side else -value))
    return out


def read_move(reader: Reader, rules: Rules, state: State, move: str) -> dict[str, Any]:
    """``move`` (the engine's notation) at ``state`` and the engine's value of the position after it, for
    the side that moved."""
    _best, value = reader.read(rules.to_fen(state), move)
    return {"move": move, "after": -value}


def judge(reader: Reader, match: dict[str, Any], lost: float,
          tries: Sequence[str] = ()) -> dict[str, Any]:
    """One match's reading: the opening's value, the seat's worst move and the ply it stayed lost from;
    with ``tries``, each of those players' move at the worst move's position, read the same way."""
    read = readings(reader, match)
    opening = match.get("opening_plies", 0)
    outcome_value = {"win": MATE_PAWNS, "loss": -MATE_PAWNS}.get(match["outcome"], 0.0)
    values = [value for _r, _s, _b, value in read] + [outcome_value]  # the end, read by its result
    worst: dict[str, Any] = {}
    for index, (rules, state, best, before) in enumerate(read):
        if index < opening or rules.to_move(state) != rules.user_side:
            continue
        # the seat's value after its move is the engine's reading of the next position
        drop = before - values[index + 1]
        holdable = before >= -lost  # once lost, later drops are the mate coming, not the mistake
        if not worst or (holdable, drop) > (worst["holdable"], worst["drop"]):
            played = action_to_move(match["actions"][index], reader.first_rank)
            worst = {"ply": index, "move": played, "engine_move": best, "before": before,
                     "after": values[index + 1], "drop": round(drop, 2), "holdable": holdable}
    if worst and tries:
        rules, state, _best, _value = read[worst["ply"]]
        chosen = {PLAYED: match["actions"][worst["ply"]]}
        for spec in tries:
            player = players.load(spec, rules.name)
            player.reset(match["seed"])
            chosen[spec] = player.choose(rules, state)
        # the yardstick: the engine's own move read the same way (a search kept to one move reads
        # differently from a free one, so "before" would count the engine's own move as a mistake)
        worst["engine_after"] = read_move(reader, rules, state, worst["engine_move"])["after"]
        worst["tried"] = {spec: read_move(reader, rules, state, action_to_move(action, reader.first_rank))
                          for spec, action in chosen.items()}
    lost_from = None
    for index in range(len(values) - 1, opening - 1, -1):
        if values[index] >= -lost:
            break
        lost_from = index
    return {"game": load_game(match["game"]).spec, "seed": match["seed"], "player": match["player"],
            "opponent": match["opponent"], "outcome": match["outcome"], "plies": match["plies"],
            "opening_value": values[opening] if opening < len(values) else None, "worst": worst,
            "lost_from": lost_from}


def summary(judged: list[dict[str, Any]], lost: float, drop: float = 2.0) -> dict[str, Any]:
    """Where the games were decided (the ply of the seat's worst move while not yet lost), how many
    began lost, and per tried player how many of its moves at those positions read more than ``drop``
    pawns below the engine's own move there (the game's own move, read again the same way, as
    ``played``)."""
    decided = [game["worst"]["ply"] for game in judged if game["worst"]]
    phases = {name: 0 for name, _ in PHASES}
    for ply in decided:
        phases[next(name for name, last in PHASES if ply <= last)] += 1
    tried: dict[str, dict[str, int]] = {}
    for game in judged:
        for spec, reading in game["worst"].get("tried", {}).items():
            counts = tried.setdefault(spec, {"positions": 0, "mistakes": 0})
            counts["positions"] += 1
            counts["mistakes"] += game["worst"]["engine_after"] - reading["after"] > drop
    return {"games": len(judged), "decided": phases, **({"tried": tried} if tried else {}),
            "median_decided_ply": statistics.median(decided) if decided else None,
            "began_lost": sum(1 for game in judged if (game["opening_value"] or 0.0) < -lost),
            "worse_after_opening": sum(1 for game in judged if (game["opening_value"] or 0.0) < -1.0)}


def selected(matches: list[dict[str, Any]], outcome: str, opponent: str | None,
             player: str | None) -> list[dict[str, Any]]:
    """The Chinese chess matches with this outcome, opponent and player (canonical specs compared)."""
    opponent = players.canonical(opponent) if opponent else None
    player = players.canonical(player) if player else None
    return [match for match in matches
            if match["game"].partition(":")[0] == "xiangqi"
            and (outcome == "any" or match["outcome"] == outcome)
            and (opponent is None or players.canonical(match["opponent"]) == opponent)
            and (player is None or players.canonical(match["player"]) == player)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE",
                        help="files of match lines (harness export; one match a line)")
    parser.add_argument("--outcome", default="loss", choices=OUTCOMES, help="which matches to judge")
    parser.add_argument("--opponent", metavar="SPEC", help="only the matches against this opponent")
    parser.add_argument("--player", metavar="SPEC", help="only the matches of this player")
    parser.add_argument("--engine", default="fairy-stockfish", metavar="COMMAND",
                        help="the UCI engine that judges (one with UCI_Variant xiangqi)")
    parser.add_argument("--depth", type=int, default=12, help="the engine's depth a position")
    parser.add_argument("--lost", type=float, default=3.0, metavar="PAWNS",
                        help="a seat at least this far behind counts as lost")
    parser.add_argument("--try", dest="tries", action="append", default=[], metavar="SPEC",
                        help="at each game's worst move, let this player choose too and read its move (repeat "
                             "for several): would a candidate have avoided the mistakes?")
    parser.add_argument("--drop", type=float, default=2.0, metavar="PAWNS",
                        help="with --try: a move reading this much below the position counts as a mistake")
    parser.add_argument("--cache", type=Path, metavar="FILE",
                        help="keep the engine's readings in FILE (JSON lines) and read them from it next time")
    parser.add_argument("--json", action="store_true", help="print one JSON line instead of tables")
    args = parser.parse_args()
    if args.depth < 1 or args.lost <= 0 or args.drop <= 0:
        parser.error("--depth must be at least 1, --lost and --drop above 0")
    for path in args.files:
        if not path.is_file():
            parser.error(f"{path} is not a file; give files of match lines (harness export writes them)")
    try:
        matches = [match for path in args.files for match in read_matches(path)]
        chosen = selected(matches, args.outcome, args.opponent, args.player)
        tries = [players.load(spec, "xiangqi").spec for spec in args.tries]
    except ValueError as error:  # a spec that does not parse
        parser.error(str(error))
    try:
        engine = position_reader(args.engine)
    except (PlayerError, SpecError, OSError) as error:
        parser.error(f"--engine {args.engine}: {error}")
    try:
        reader = Reader(engine, args.depth, args.cache)
        judged = []
        for number, match in enumerate(chosen, 1):
            judged.append(judge(reader, match, args.lost, tries))
            print(f"judged {number}/{len(chosen)}", file=sys.stderr, flush=True)
    finally:
        engine.close()
    total = summary(judged, args.lost, args.drop)
    if args.json:
        print(json.dumps({"games": judged, "summary": total}))
        return 0
    rows = [[SEATS[load_game(game["game"]).user_side], game["seed"], game["opponent"], game["outcome"],
             game["plies"], "-" if game["opening_value"] is None else f"{game['opening_value']:+.1f}",
             game["worst"].get("ply", "-"),
             f"{game['worst'].get('move', '-')} ({game['worst'].get('engine_move', '-')})",
             f"{game['worst'].get('before', 0):+.1f} to {game['worst'].get('after', 0):+.1f}",
             "-" if game["lost_from"] is None else game["lost_from"]] for game in judged]
    print_table(f"{len(judged)} matches judged by {args.engine} at depth {args.depth} (pawns, the seat's view)",
                ["seat", "seed", "opponent", "outcome", "plies", "after opening", "worst ply",
                 "move (engine's)", "value", f"below -{args.lost:g} from"], rows)
    if "tried" in total:
        print_table(f"at the worst moves' positions: moves reading more than {args.drop:g} pawns below "
                    "the engine's own move",
                    ["player", "positions", "mistakes"],
                    [[spec, counts["positions"], counts["mistakes"]] for spec, counts in total["tried"].items()])
    print(json.dumps(total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
