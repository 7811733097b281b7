#!/usr/bin/env python
"""Benchmark one game engine beside its reference engines; prints one JSON line.

Usage: scripts/bench_engines.py GAME [--json] [--seconds S]

Each game's measurements live in ``scripts/bench/<game>.py`` (a ``run(seconds)``
function returning a dict); this script only picks one and prints its result.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent


def main() -> int:
    games = sorted(p.stem for p in (HERE / "bench").glob("*.py") if not p.stem.startswith("_"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=games)
    parser.add_argument("--json", action="store_true", help="print one JSON line (the default output)")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    args = parser.parse_args()
    spec = importlib.util.spec_from_file_location(f"bench_{args.game}", HERE / "bench" / f"{args.game}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.run(args.seconds)
    print(json.dumps(result, sort_keys=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
