#!/usr/bin/env python
"""A minimal external engine speaking the harness's JSON-lines protocol.

Usage: scripts/example_engine.py [--strategy random|first]

It reads one request per line on stdin and answers one action per line on
stdout, until stdin closes. ``random`` (the default) picks a legal action with
a generator seeded by the request's seed, ply and position, so a match
replays exactly; ``first`` takes the first legal action. It uses only the
standard library, so it shows everything an engine in another language needs:

    request: {"game", "state", "state_json", "to_move", "legal_actions", "limits", "seed", "ply"}
    reply:   {"action": <one of legal_actions>}

Play it: harness play totality --player "external:command=python scripts/example_engine.py"
"""

from __future__ import annotations

import argparse
import json
import random
import sys


def choose(request: dict, strategy: str) -> dict:
    """The action this engine plays for one request."""
    legal = request["legal_actions"]
    if strategy == "first":
        return legal[0]
    rng = random.Random(f"{request.get('seed', 0)}:{request.get('ply', 0)}:{request['state']}")
    return rng.choice(legal)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", choices=("random", "first"), default="random")
    args = parser.parse_args()
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        print(json.dumps({"action": choose(request, args.strategy)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
