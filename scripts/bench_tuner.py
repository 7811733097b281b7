"""Benchmark the tuning pipeline on problems whose answer is known: does it find a real gain, and only a real one?

Prints one JSON line. For each game, three study files built here:

* ``gain_large``: the incumbent (trial 0) is naive weights, the study searches
  them, and today's defaults are known to be better (measured below).
* ``gain_small``: the incumbent is today's defaults with two weights moved
  until they lose 10-20 points; the study searches those two weights.
* ``null``: the only searched parameter is alphabeta's inert ``tiebreak``
  (``[params] tiebreak = { low = 0, high = 1000000, integer = true }``, the
  weights fixed at the defaults; the incumbent a salt drawn per repetition).
  ``tiebreak`` salts the seed that breaks ties between equally valued moves
  and nothing else (the opponent's tie-breaks keep the match seed), so under
  every salt each tie is broken by a uniformly random choice among the same
  equally valued moves: each trial plays other games, but its expected value
  is the incumbent's. No trial can be better, and a confirmed "better" is a
  false positive by construction.

Each problem runs ``--reps`` times (the study's sampler ``seed`` = the
repetition) with each sampler, on a fixed budget (``BUDGET``: the shipped
studies' shape, smaller): 12 trials, the incumbent included, 4 in flight;
blocks of 8 openings, 2 blocks a trial (tuning openings 0-15); 3 finalists
race on openings 100-147; the confirmation is sized for the game's
``smallest_gain`` (15 points; 0.15 for Chinese chess) with power 0.8, 16 to
600 openings of 200-799; pruning against the incumbent at p 0.05.
Every study runs on a fresh SQLite file on one in-process worker and, unless
``--no-two-workers``, again on a 2-worker Ray pool (one ``ray_session`` shared
by the studies); the two outcomes must be identical (``Outcome.to_dict()``).
Reported per game, problem and sampler: the rate of confirmed "better" with a
Wilson 95% interval (detection on the gain problems, target >= 80%; false
positives on ``null``, target <= 5%), the mean games of the trials and of the
race and confirmation, the mean seconds, and whether 1 and 2 workers agreed
in every repetition.

Players are cheap so one study takes seconds (games of a few to tens of ms):

* Totality: alpha-beta depth 2 against ``gbot:level=easy`` (the easy
  stand-in, depth 2 on the square table), ``mean_score`` (0-420). Large: the
  demo's naive incumbent (mobility, frontier, corners, x_squares, stability
  and parity at 0). Small: ``frontier`` 2 and ``stability`` 7 (defaults -3, 10).
* Ravenward: alpha-beta depth 2 against ``gbot:depth=3,eval=default``,
  ``mean_score`` (0-228). Large: the King's seven features at 0 (corner
  distance, open corners, escape routes, corner paths, unguarded paths, edge,
  King mobility). Small: ``unguarded_corner_paths`` and ``king_corner_paths``
  at 0 (defaults 30, 4).
* Chinese chess: red, alpha-beta depth 1 against
  ``gbot:depth=1,eval=material``, objective ``wdl`` (-1..1). Large: material
  only (piece_square, general_safety, pieces_across, exposed_general, squares
  at 0). Small: ``squares`` 0.05 and ``pieces_across`` 0 (defaults 1, 0.45).
  Its games are long (up to 120 plies), so its budget is smaller
  (``XIANGQI_BUDGET``: the others' trials and race, a confirmation
  of at most 300).

The known answers: today's defaults against each incumbent, a paired match on
openings 800-1199 (none of the benchmark's), measured with ``--measure``
(mean gain of the defaults [95% interval], sd of a per-opening difference):

    totality   gain_large  +55.5  [+39.9, +71.1]    sd 159
    totality   gain_small  +14.1  [-0.8, +29.0]     sd 152
    ravenward  gain_large  +55.3  [+45.7, +65.0]    sd 98
    ravenward  gain_small  +13.9  [+4.0, +23.9]     sd 101
    xiangqi    gain_large  +0.733 [+0.640, +0.825]  sd 0.945
    xiangqi    gain_small  +0.152 [+0.076, +0.229]  sd 0.782

Totality's small gain is too small for 400 openings to prove at its spread
(the interval touches zero; 600-799 gave +38 for ``frontier`` 2 alone): the
benchmark tells how often the pipeline confirms a gain of this size.

Commands:

    PYTHONPATH=$PWD .venv/bin/python scripts/bench_tuner.py [--games totality,ravenward,xiangqi]
        [--problems gain_large,gain_small,null] [--samplers tpe,cmaes,spsa] [--reps 20]
        [--no-two-workers] [--out bench.jsonl] [--quick]
    PYTHONPATH=$PWD .venv/bin/python scripts/bench_tuner.py --measure [--games ...]

``--out`` appends one line per finished study and, on start, skips the
(game, problem, sampler, repetition) already in it, so a long run can be
stopped and resumed; the summary counts every line of the file that matches
the request. Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from harness.cluster import InProcessPool, Pool, ray_session
from harness.match import match_key
from harness.tuning import parse_study_file, tune
from harness.tuning.gain import paired_interval
from harness.tuning.objectives import game_value

PROBLEMS = ("gain_large", "gain_small", "null")
SAMPLERS = ("tpe", "cmaes", "spsa")
TARGETS = {"gain_large": ("detection", ">=", 0.80), "gain_small": ("detection", ">=", 0.80),
           "null": ("false_better", "<=", 0.05)}
MEASURE_OPENINGS = range(800, 1200)  # the known answers are measured on openings no study plays


@dataclass(frozen=True)
class Budget:
    """A study's budget: trials, blocks and the three parts of the opening suite."""

    trials: int
    block: int
    blocks: int
    parallel: int
    finalists: int
    tuning: tuple[int, int]
    selection: tuple[int, int]
    confirmation: tuple[int, int]


BUDGET = Budget(trials=12, block=8, blocks=2, parallel=4, finalists=3,
                tuning=(0, 16), selection=(100, 148), confirmation=(200, 800))
# Chinese chess games are long (up to 120 plies): a confirmation of at most 300. (One block of 8 a trial and a
# race on 32 judged each trial on too few openings: the search found weights half as good as the defaults in
# 3 of 10 repetitions of the small gain.)
XIANGQI_BUDGET = Budget(trials=12, block=8, blocks=2, parallel=4, finalists=3,
                        tuning=(0, 16), selection=(100, 148), confirmation=(200, 500))
QUICK = Budget(trials=4, block=4, blocks=1, parallel=2, finalists=1,
               tuning=(0, 4), selection=(100, 104), confirmation=(200, 216))


@dataclass(frozen=True)
class Game:
    """One game's cheap setting and its known-answer problems.

    ``large`` and ``small`` are the incumbents (weights away from the
    defaults); each problem searches exactly the weights its incumbent moves.
    """

    game: str
    depth: int
    opponent: str
    objective: str
    smallest_gain: float
    large: dict[str, float]
    small: dict[str, float]
    budget: Budget = BUDGET


GAMES = {
    "totality": Game("totality:wise", 2, "gbot:level=easy", "mean_score", 15.0,
                     large={"mobility": 0, "frontier": 0, "corners": 0, "x_squares": 0, "stability": 0,
                            "parity": 0},
                     small={"frontier": 2, "stability": 7}),
    "ravenward": Game("ravenward", 2, "gbot:depth=3,eval=default", "mean_score", 15.0,
                      large={"king_corner_distance": 0, "king_open_corners": 0, "king_escape_routes": 0,
                             "king_corner_paths": 0, "unguarded_corner_paths": 0, "king_on_edge": 0,
                             "king_mobility": 0},
                      small={"unguarded_corner_paths": 0, "king_corner_paths": 0}),
    "xiangqi": Game("xiangqi:red", 1, "gbot:depth=1,eval=material", "wdl", 0.15,
                    large={"piece_square": 0, "general_safety": 0, "pieces_across": 0, "exposed_general": 0,
                           "squares": 0},
                    small={"squares": 0.05, "pieces_across": 0}, budget=XIANGQI_BUDGET),
}


def null_salt(seed: int) -> int:
    """The null problem's incumbent salt of one repetition: inside the range, away from its bounds."""
    return 100_000 + (seed * 104_729 + 4_242) % 800_000


def study_text(name: str, game: str, problem: str, sampler: str, seed: int, budget: Budget) -> str:
    """The study file of one repetition of one problem: only ``seed`` differs between repetitions."""
    setting = GAMES[game]
    if problem == "null":
        # the incumbent's salt differs per repetition too: from a salt at a bound SPSA's first pair is the
        # same two points whatever its seed, and its repetitions would replay the same games
        space = ("[params]\ntiebreak = { low = 0, high = 1000000, integer = true }\n\n"
                 f"[incumbent]\ntiebreak = {null_salt(seed)}\n")
    else:
        moved = setting.large if problem == "gain_large" else setting.small
        space = ("[weights]\n" + "".join(f"{w} = {{}}\n" for w in moved)
                 + "\n[incumbent]\n" + "".join(f"{w} = {v}\n" for w, v in moved.items()))
    return f"""name = "{name}"
game = "{setting.game}"
opponent = "{setting.opponent}"
objective = "{setting.objective}"
sampler = "{sampler}"
pruner = "incumbent"
seed = {seed}

[player]
kind = "alphabeta"
depth = {setting.depth}

{space}
[budget]
trials = {budget.trials}
block = {budget.block}
blocks = {budget.blocks}
parallel = {budget.parallel}

[openings]
tuning = [{budget.tuning[0]}, {budget.tuning[1]}]
selection = [{budget.selection[0]}, {budget.selection[1]}]
confirmation = [{budget.confirmation[0]}, {budget.confirmation[1]}]

[selection]
finalists = {budget.finalists}

[confirmation]
smallest_gain = {setting.smallest_gain}
"""


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a rate: sound at 0 or n successes, where the normal one collapses."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def run_study(text: str, pool: Any, directory: str, label: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """One study on a fresh SQLite file: its outcome as data, and the figures of the run."""
    config = parse_study_file(text)
    path = Path(directory) / f"{config.name}-{label}.db"
    try:
        summary = tune(config, db_url=f"sqlite:///{path}", pool=pool)
    finally:
        path.unlink(missing_ok=True)
    outcome = summary.outcome.to_dict()
    figures = {"games": summary.games, "selection_games": summary.selection_games,
               "seconds": round(summary.seconds, 2), "selection_seconds": round(summary.selection_seconds, 2),
               "trials_pruned": summary.trials_pruned}
    return outcome, figures


def record_of(game: str, problem: str, sampler: str, rep: int, quick: bool, outcome: dict[str, Any],
              one: dict[str, Any], two: dict[str, Any] | None, identical: bool | None) -> dict[str, Any]:
    """One finished study as a line of ``--out``."""
    confirmation = outcome["confirmation"]
    gain = None if confirmation is None else [round(confirmation["gain"][k], 4) for k in ("mean", "low", "high")]
    return {"game": game, "problem": problem, "sampler": sampler, "rep": rep, "budget": "quick" if quick else "full",
            "verdict": outcome["verdict"], "winner": outcome["winner"], "winner_spec": outcome["winner_spec"],
            "confirmation_gain": gain,
            "confirmation_openings": None if confirmation is None else confirmation["openings"],
            "one_worker": one, "two_workers": two, "identical": identical}


def progress_line(record: dict[str, Any]) -> str:
    """A finished study in one line for stderr."""
    gain, one, two = record["confirmation_gain"], record["one_worker"], record["two_workers"]
    text = record["verdict"] + ("" if gain is None else " {:+.3f} [{:+.3f}, {:+.3f}]".format(*gain))
    text += f", {one['games']}+{one['selection_games']} games, {one['seconds'] + one['selection_seconds']:.1f}s"
    if two is not None:
        text += f" (2 workers {two['seconds'] + two['selection_seconds']:.1f}s, identical {record['identical']})"
    return text


def summarise(records: list[dict[str, Any]], games: list[str], problems: list[str], samplers: list[str],
              reps: int) -> list[dict[str, Any]]:
    """Per game, problem and sampler: the rate of confirmed "better", the games, seconds and the 1-vs-2 check."""
    rows = []
    for game in games:
        for problem in problems:
            for sampler in samplers:
                mine = [r for r in records if (r["game"], r["problem"], r["sampler"]) == (game, problem, sampler)
                        and r["rep"] < reps]
                if not mine:
                    continue
                n = len(mine)
                better = sum(r["verdict"] == "better" for r in mine)
                low, high = wilson(better, n)
                measure, relation, target = TARGETS[problem]
                rate = better / n
                checked = [r["identical"] for r in mine if r["identical"] is not None]
                rows.append({
                    "game": game, "problem": problem, "sampler": sampler, "reps": n, "partial": n < reps,
                    "better": better, measure: round(rate, 3), "wilson95": [round(low, 3), round(high, 3)],
                    "target": f"{measure} {relation} {target}",
                    "met": rate >= target if relation == ">=" else rate <= target,
                    "verdicts": {v: sum(r["verdict"] == v for r in mine) for v in ("better", "no gain", "worse")},
                    "mean_games_tuning": round(sum(r["one_worker"]["games"] for r in mine) / n, 1),
                    "mean_games_selection": round(sum(r["one_worker"]["selection_games"] for r in mine) / n, 1),
                    "mean_seconds_1": round(sum(r["one_worker"]["seconds"] + r["one_worker"]["selection_seconds"]
                                                for r in mine) / n, 2),
                    "mean_seconds_2": (round(sum(r["two_workers"]["seconds"] + r["two_workers"]["selection_seconds"]
                                                 for r in mine) / n, 2) if len(checked) == n else None),
                    "identical_1_2": (all(checked) if checked else None),
                    "identical_checked": len(checked)})
    return rows


def read_records(path: str | None, quick: bool) -> list[dict[str, Any]]:
    """The studies already in ``--out`` run on the same budget (quick or full)."""
    if not path or not os.path.exists(path):
        return []
    budget = "quick" if quick else "full"
    with open(path) as lines:
        return [record for record in map(json.loads, filter(str.strip, lines)) if record.get("budget") == budget]


def warm(pool: Any, text: str) -> None:
    """A few matches on each worker before the clock: each process compiles the engine once."""
    config = parse_study_file(text)
    for _ in pool.run(config.matches(config.player_spec(config.incumbent_weights()),
                                     range(1000, 1000 + 2 * max(1, pool.workers)))):
        pass


def measure(games: list[str], pool: Any) -> list[dict[str, Any]]:
    """The known answers: today's defaults against each gain problem's incumbent, paired by opening."""
    rows = []
    for game in games:
        setting = GAMES[game]
        text = study_text("measure", game, "null", "random", 0, BUDGET)
        config = parse_study_file(text)
        defaults = f"alphabeta:depth={setting.depth}"
        for problem, moved in (("gain_large", setting.large), ("gain_small", setting.small)):
            incumbent = defaults + "," + ",".join(f"w.{w}={v}" for w, v in moved.items())
            values = {}
            for label, spec in (("defaults", defaults), ("incumbent", incumbent)):
                matches = config.matches(spec, MEASURE_OPENINGS)
                by_key = {result.key: result for result in pool.run(matches)}
                values[label] = [game_value(by_key[match_key(m)], setting.objective) for m in matches]
            differences = [d - i for d, i in zip(values["defaults"], values["incumbent"])]
            interval = paired_interval(differences)
            mean = interval.mean
            sd = math.sqrt(sum((x - mean) ** 2 for x in differences) / (len(differences) - 1))
            rows.append({"game": game, "problem": problem, "incumbent": incumbent, "defaults": defaults,
                         "opponent": setting.opponent, "objective": setting.objective,
                         "gain_of_defaults": [round(interval.mean, 3), round(interval.low, 3), round(interval.high, 3)],
                         "sd": round(sd, 3), "openings": interval.n})
            print(f"{game} {problem}: defaults over the incumbent {interval.mean:+.3f} "
                  f"[{interval.low:+.3f}, {interval.high:+.3f}] over {interval.n} openings (sd {sd:.3f})",
                  file=sys.stderr, flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="totality,ravenward,xiangqi")
    parser.add_argument("--problems", default=",".join(PROBLEMS))
    parser.add_argument("--samplers", default=",".join(SAMPLERS))
    parser.add_argument("--reps", type=int, default=20, help="repetitions per problem and sampler (sampler seeds)")
    parser.add_argument("--no-two-workers", action="store_true",
                        help="skip the 2-worker Ray run of each study (halves the cost; no 1-vs-2 check)")
    parser.add_argument("--out", help="append one JSON line per finished study; on start, skip those in it")
    parser.add_argument("--quick", action="store_true", help="a tiny budget: a smoke test, not a measurement")
    parser.add_argument("--measure", action="store_true",
                        help="only measure the known answers (defaults against each gain incumbent)")
    args = parser.parse_args()
    games, problems, samplers = (args.games.split(","), args.problems.split(","), args.samplers.split(","))
    for name, chosen, valid in (("games", games, GAMES), ("problems", problems, PROBLEMS),
                                ("samplers", samplers, SAMPLERS + ("random",))):
        unknown = [c for c in chosen if c not in valid]
        if unknown:
            parser.error(f"--{name}: unknown {', '.join(unknown)}; valid: {', '.join(valid)}")
    if args.measure:
        with InProcessPool() as pool:
            print(json.dumps({"format": "bench_tuner.measure/1", "openings": [MEASURE_OPENINGS.start,
                                                                             MEASURE_OPENINGS.stop],
                              "known_answers": measure(games, pool)}))
        return
    records = read_records(args.out, args.quick)
    done = {(r["game"], r["problem"], r["sampler"], r["rep"]) for r in records}
    two_workers = not args.no_two_workers
    started = time.monotonic()
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="harness-bench-tuner-") as directory:
        one_pool = stack.enter_context(InProcessPool())
        two_pool = None
        if two_workers:
            stack.enter_context(ray_session(num_cpus=2))
            two_pool = stack.enter_context(Pool(workers=2))
        for game in games:
            budget = QUICK if args.quick else GAMES[game].budget
            warm_text = study_text("warm", game, "null", "random", 0, budget)
            warm(one_pool, warm_text)
            if two_pool is not None:
                warm(two_pool, warm_text)
            # repetitions outermost: a run stopped early has every problem and sampler on a few seeds
            for rep in range(args.reps):
                for problem in problems:
                    for sampler in samplers:
                        if (game, problem, sampler, rep) in done:
                            continue
                        name = f"bench-{game}-{problem}-{sampler}-{rep}"
                        text = study_text(name, game, problem, sampler, rep, budget)
                        outcome, one = run_study(text, one_pool, directory, "w1")
                        two, identical = None, None
                        if two_pool is not None:
                            outcome_two, two = run_study(text, two_pool, directory, "w2")
                            identical = outcome_two == outcome
                        record = record_of(game, problem, sampler, rep, args.quick, outcome, one, two, identical)
                        records.append(record)
                        if args.out:
                            with open(args.out, "a") as out:
                                out.write(json.dumps(record) + "\n")
                        print(f"{name}: {progress_line(record)}; {time.monotonic() - started:.0f}s so far",
                              file=sys.stderr, flush=True)
    print(json.dumps({"format": "bench_tuner/1", "budget": "quick" if args.quick else "full",
                      "reps": args.reps, "two_workers": two_workers,
                      "setting": {g: {"game": GAMES[g].game, "player": f"alphabeta:depth={GAMES[g].depth}",
                                      "opponent": GAMES[g].opponent, "objective": GAMES[g].objective,
                                      "smallest_gain": GAMES[g].smallest_gain,
                                      "budget": asdict(QUICK if args.quick else GAMES[g].budget)} for g in games},
                      "results": summarise(records, games, problems, samplers, args.reps),
                      "seconds": round(time.monotonic() - started, 1), "load_1min": round(os.getloadavg()[0], 2),
                      "cpus": os.cpu_count()}))


if __name__ == "__main__":
    main()
