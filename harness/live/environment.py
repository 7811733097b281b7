"""A live Gameboard game as an :class:`~harness.envs.Environment` over the tracker.

``reset(seed)`` starts a game on the server (``GET init``), ``step(action)``
sends one action with the last state (``POST action``) and the server's
G-Bot replies inside it, exactly as ``LocalEnv`` plays its opponent. The
observation's ``state`` is the tracker's best local position (None when
tracking is lost), ``legal_actions`` the server's list, ``done`` the server's
``gameOver`` and ``score`` the server's score; ``info`` holds the tracked
candidates, the tracker's condition (why it is unsure, if it is) and the
server's opaque state. An action the server refuses raises
:class:`~harness.errors.IllegalAction` and changes nothing, as in ``LocalEnv``.

Every step is kept in ``transcript`` (the init reply, each action in server
and local form with the server's reply, each refusal), so ``resume`` rebuilds
the same environment from a stored transcript without a request.
"""

from __future__ import annotations

import random
from typing import Any

from harness.envs import Observation
from harness.errors import IllegalAction, ProtocolError
from harness.games import Action, Rules
from harness.live.gameboard import GameboardClient, ServerReply
from harness.live.http import RefusedRequest
from harness.live.observation import reply_sources
from harness.live.tracking import Tracker, action_key


class StateRefused(ProtocolError):
    """The server refuses the state we send back (a final 4xx): resuming cannot help."""


class GameboardEnv:
    """One seat of one live Gameboard game; see the module docstring.

    Args:
        rules: the local rules of the game the server plays.
        client: the server's endpoints for this game.
        params: extra query parameters of ``init`` (a Totality level).

    The tracker's samples are seeded by the game's seed, so a resumed game replays identically.

    Attributes:
        conditions: the tracker's condition at each of our moves, in order (None: sure).
    """

    def __init__(self, rules: Rules, client: GameboardClient, params: dict[str, Any] | None = None) -> None:
        self.rules = rules
        self.client = client
        self.params = dict(params or {})
        self._start(0, None)

    def _start(self, seed: int, transcript: dict[str, Any] | None) -> None:
        self.tracker = Tracker(self.rules, rng=random.Random(f"track:{seed}"))
        self.transcript: dict[str, Any] = transcript or {
            "base_url": self.client.base_url, "params": self.params, "init": None, "steps": [], "illegal": []}
        self.reply: ServerReply | None = None
        self.conditions: list[str | None] = []

    def reset(self, seed: int) -> Observation:
        """Start a new game on the server with ``seed``."""
        self._start(seed, None)
        reply = self.client.init(seed, self.params)
        self.transcript["init"] = reply.to_dict()
        self._take(reply)
        return self.observe()

    def resume(self, transcript: dict[str, Any], seed: int) -> Observation:
        """Rebuild the game of ``seed`` from a stored transcript, replaying it locally (no request)."""
        self._start(seed, transcript)
        self._take(ServerReply.from_dict(transcript["init"]))
        for step in transcript["steps"]:
            self.conditions.append(self.tracker.condition)
            self.tracker.play(step["local"])
            self._take(ServerReply.from_dict(step["reply"]))
        return self.observe()

    def step(self, action: Action) -> Observation:
        """Send ``action`` (as the server listed it) and read the server's reply.

        Raises:
            IllegalAction: the server refused it (``ok: false``); recorded, nothing else changes.
            StateRefused: the server refused our state (a final 4xx).
            TransportError, ProtocolError: the server could not be reached or understood.
        """
        reply = self.reply
        sent = self.tracker.matching_server_action(action, reply.legal_actions)
        try:
            answer = self.client.act(reply.state, sent)
        except RefusedRequest as refusal:
            raise StateRefused(f"the server refused our state ({refusal}); the game cannot be resumed "
                               f"(a server restarted with another signing key does this)",
                               server_state=reply.state) from refusal
        if not answer.ok:
            self.transcript["illegal"].append({"step": len(self.transcript["steps"]), "key": self.key(action),
                                               "action": sent, "reason": answer.reason})
            raise IllegalAction(f"the server refused {sent!r}: {answer.reason}")
        self.conditions.append(self.tracker.condition)
        self.tracker.play(action)
        self.transcript["steps"].append({"action": sent, "local": action, "reply": answer.to_dict()})
        self._take(answer)
        return self.observe()

    def observe(self) -> Observation:
        """The observation of the last reply."""
        reply, rules, best = self.reply, self.rules, self.tracker.best
        state = None if best is None else best.state
        outcome = None
        if reply.game_over:
            outcome = rules.outcome(state) if state is not None and rules.is_terminal(state) else ("loss", "untracked")
        return Observation(state=state, legal_actions=list(reply.legal_actions), done=reply.game_over,
                           score=reply.score if reply.score is not None else 0, outcome=outcome,
                           info={"candidates": self.tracker.candidates, "condition": self.tracker.condition,
                                 "server_state": reply.state})

    def refused(self) -> set[str]:
        """The keys of the actions the server refused at the current step."""
        step = len(self.transcript["steps"])
        return {entry["key"] for entry in self.transcript["illegal"] if entry["step"] == step}

    def key(self, action: Any) -> str:
        """The canonical text of an action, extra server fields ignored."""
        return action_key(action, self.tracker.fields or None)

    def _take(self, reply: ServerReply) -> None:
        self.reply = reply
        self.tracker.observe(reply.legal_actions, reply.game_over,
                             boards=reply_sources(self.rules, reply.observation, reply.state))
