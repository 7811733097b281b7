"""An engine in any language, run as a subprocess speaking JSON lines.

The protocol (documented for engine authors in ``docs/players.md``): for every
move the harness writes one JSON object on a line to the engine's stdin::

    {"game": "totality:easy", "state": "<rules.notation(state)>",
     "state_json": {...}, "to_move": 0, "legal_actions": [...],
     "limits": {"depth": 4, "timeout": 10.0}, "seed": 7, "ply": 12}

and reads one line from its stdout: an action object (one of
``legal_actions``) or ``{"action": <action>}``. Anything the engine writes to
stderr is kept (the last lines) for the error message.

The process is started on the first move of a match (so a spec is plain data
and building a player starts nothing) and stopped by ``close()``. It is run
without a shell (``command`` is split with ``shlex``) and with a clean
environment (``players.process``: no ``HARNESS_DB``, no passwords). A reply that does not
arrive within ``timeout`` seconds kills the process; a crash, a line that is
not JSON, or an action that is not legal raise ``PlayerError``, which the
match records as a loss with reason ``player_error``.
"""

from __future__ import annotations

import json
from typing import Any

from harness.errors import PlayerError
from harness.games import Action, Rules, State
from players.base import Limits, Param, Player
from players.process import EngineProcess, split_command


class ExternalPlayer(Player):
    """A subprocess engine; see the module docstring for the protocol."""

    kind = "external"
    RUNS_COMMAND = True
    PARAMS = {
        "command": Param(str, None, "the engine's program and arguments, split with shlex (no shell)"),
        "timeout": Param(float, 10.0, "seconds the engine may take for one move", minimum=0.001),
        "depth": Param(int, None, "depth limit passed to the engine in limits", minimum=1),
        "nodes": Param(int, None, "node limit passed to the engine in limits", minimum=1),
        "time": Param(float, None, "seconds per move passed to the engine in limits", minimum=0.0),
    }

    def __init__(self, params: dict[str, Any] | None = None,
                 weights: dict[str, float] | None = None) -> None:
        super().__init__(params, weights)
        self.argv = split_command(self.kind, self.params["command"],
                                  "external:command=python scripts/example_engine.py")
        self.process: EngineProcess | None = None
        self.ply = 0

    def reset(self, seed: int) -> None:
        super().reset(seed)
        self.ply = 0

    def choose(self, rules: Rules, state: State, limits: Limits | None = None) -> Action:
        legal = rules.legal_actions(state)
        bounds = self.limits().merged(limits)
        wanted = {name: value for name, value in vars(bounds).items() if value is not None}
        request = {
            "game": rules.spec, "state": rules.notation(state), "state_json": rules.state_to_json(state),
            "to_move": rules.to_move(state), "legal_actions": legal,
            "limits": wanted | {"timeout": self.params["timeout"]}, "seed": self.seed, "ply": self.ply,
        }
        self.ply += 1
        line = self._exchange(json.dumps(request, separators=(",", ":")))
        try:
            reply = json.loads(line)
        except json.JSONDecodeError:
            raise PlayerError(f"engine {self.argv[0]!r} replied with a line that is not JSON: "
                              f"{line.strip()[:200]!r}") from None
        action = reply.get("action", reply) if isinstance(reply, dict) else reply
        if action not in legal:
            raise PlayerError(f"engine {self.argv[0]!r} chose {json.dumps(action)[:200]}, "
                              f"which is not one of the {len(legal)} legal actions")
        return action

    def close(self) -> None:
        """Close the engine's stdin, give it a moment to exit, then kill it."""
        process, self.process = self.process, None
        if process is not None:
            process.close()

    def __del__(self) -> None:
        if getattr(self, "process", None) is not None:
            self.close()

    def _exchange(self, request: str) -> str:
        """Send one request line and wait for one reply line, within the timeout."""
        if self.process is None:
            self.process = EngineProcess(self.argv)
        process = self.process
        try:
            process.send(request)
            return process.read_line(self.params["timeout"])
        except PlayerError:
            self.process = None
            raise
