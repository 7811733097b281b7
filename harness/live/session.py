"""One live Gameboard game: the loop, the checkpoints it streams, and resuming it.

A live game is driven by the server's replies: the local position comes from
:class:`~harness.live.tracking.Tracker`, which checks every reply against the
local engine and learns how the observation shows the board. After every step
a :class:`Checkpoint` is handed to a ``sink`` (the driver stores it with
``db.save_live_game``; a Ray worker puts it on the pool's channel for the
driver to store). A checkpoint holds the whole transcript (the init reply,
then every action sent with the server's reply), so a game interrupted by a
crash or a network failure resumes from the last stored server state: the
tracker is rebuilt by replaying the transcript locally, without a request.

A game is never stopped for ambiguity: while the tracker is unsure the player
votes over the kept positions among the server's legal actions, and the moves
so played are counted by reason in the result's counters (``ambiguous_moves``,
``ambiguous_<reason>``). Failures: a transport or protocol error leaves the
game ``interrupted`` and resumable; a server that refuses the state we send
(as one restarted with another signing key does) leaves it ``interrupted``
with a :class:`~harness.live.environment.StateRefused` reason, not resumable.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from harness.envs import Observation
from harness.errors import IllegalAction, InvalidInput, LiveError, ProtocolError, TrackingError
from harness.games import Action, Rules, kit, load as load_game
from harness.live.environment import GameboardEnv
from harness.live.gameboard import DEFAULT_BASE_URL, GameboardClient, ServerReply, gameboard_slugs
from harness.live.http import DEFAULT_RATE, HttpClient, Limiter, RateLimiter, RetryPolicy
from harness.live.tracking import CONDITIONS, Tracker, choose_over_candidates
from harness.match import MatchResult, build_result
from players import Limits, load as load_player

#: Refused actions in a row after which a game stops when the server lists no actions to try.
MAX_ILLEGAL_IN_A_ROW = 5


def ambiguity_counters(moves: dict[str, int]) -> dict[str, int]:
    """The counters of moves played without one sure position: in all, and by reason."""
    return {"ambiguous_moves": sum(moves.values()),
            **{f"ambiguous_{reason}": moves.get(reason, 0) for reason in CONDITIONS}}


@dataclass(frozen=True)
class LiveGameConfig:
    """Everything that names one live game (plain data: it travels to Ray workers).

    Attributes:
        game: a local game spec, ``ravenward`` or ``totality:easy``.
        player: the (resolved) player spec.
        seed: the server seed.
        base_url: the server.
        params: extra query parameters of ``init`` (``{"level": "easy"}``).
        move_time: seconds per move for players that take a time limit.
        rate: requests per second when no shared limiter is given.
        policy: retry and timeout bounds of the choke point.
    """

    game: str
    player: str
    seed: int
    base_url: str = DEFAULT_BASE_URL
    params: tuple[tuple[str, str], ...] = ()
    move_time: float | None = None
    rate: float = DEFAULT_RATE
    policy: RetryPolicy = field(default_factory=RetryPolicy)

    @property
    def key(self) -> str:
        """The deterministic key of this game within a run."""
        text = json.dumps([load_game(self.game).spec, self.player, self.seed, self.base_url.rstrip("/"),
                           sorted(self.params)], separators=(",", ":"))
        return "live-" + hashlib.sha256(text.encode()).hexdigest()[:20]


@dataclass(frozen=True)
class Checkpoint:
    """What is stored after every step of a live game (the arguments of ``db.save_live_game``)."""

    key: str
    game: str
    seed: int
    player: str
    server_state: dict[str, Any]   # {"state": last server state, "transcript": {...}}
    actions: list[Action]          # the actions we sent, in order
    status: str                    # running | done | failed | interrupted
    error: str | None = None
    server_score: float | None = None
    result: MatchResult | None = None


Sink = Callable[[Checkpoint], None]


def slug_of(rules: Rules) -> str:
    """The Gameboard slug of a local game.

    Raises:
        InvalidInput: the game is not served by the stateless loop.
    """
    slug = kit(rules.name).gameboard_slug
    if slug is None:
        raise InvalidInput(f"{rules.name} is not a Gameboard game; live games: {', '.join(gameboard_slugs())} "
                           f"(Chinese chess is played with 'harness arena xiangqi')")
    return slug


class LiveGame:
    """One live game in progress: a :class:`~harness.live.environment.GameboardEnv` and its player.

    Args:
        config: the game.
        sink: receives a checkpoint after every step.
        limiter: shared rate limiter (the pool's), else a local one at ``config.rate``.
        transcript: a stored transcript to resume from.
        notify: receives one line per retry of a request (stderr by default).
    """

    def __init__(self, config: LiveGameConfig, sink: Sink | None = None, limiter: Limiter | None = None,
                 transcript: dict[str, Any] | None = None, notify: Callable[[str], None] | None = None) -> None:
        self.config = config
        self.rules = load_game(config.game)
        self.player = load_player(config.player, self.rules.name)
        self.sink = sink or (lambda checkpoint: None)
        self.http = HttpClient(limiter=limiter or RateLimiter(config.rate), policy=config.policy,
                               **({"notify": notify} if notify is not None else {}))
        client = GameboardClient(self.http, slug_of(self.rules), config.base_url)
        self.env = GameboardEnv(self.rules, client, dict(config.params))
        self.stored = transcript if transcript and transcript.get("init") is not None else None
        self.rng = random.Random(f"live:{config.seed}")
        self.player_s = 0.0
        self.started = time.perf_counter()

    @property
    def tracker(self) -> Tracker:
        return self.env.tracker

    @property
    def transcript(self) -> dict[str, Any]:
        return self.env.transcript

    @property
    def reply(self) -> ServerReply | None:
        return self.env.reply

    # ------------------------------------------------------------------- steps

    def run(self) -> MatchResult | None:
        """Play (or resume) the game to its end.

        Returns:
            The result when the game finished.

        Raises:
            LiveError: the game was interrupted by a transport or protocol
                error (the last checkpoint says so; resumable unless the
                error is :class:`~harness.live.environment.StateRefused`).
        """
        self.player.reset(self.config.seed)
        try:
            if self.stored is not None:
                observation = self.env.resume(self.stored, self.config.seed)
            else:
                observation = self.env.reset(self.config.seed)
                self.transcript["base_url"] = self.config.base_url  # as given (the client strips a slash)
                self._emit("running")
            while not observation.done:
                observation = self._step()
            return self._finish()
        except LiveError as error:
            self._emit("interrupted", error=f"{type(error).__name__}: {error}")
            raise
        finally:
            self.http.close()

    def _step(self) -> Observation:
        """One action the server accepts; refused ones are never sent again at this step."""
        rejected = self.env.refused()
        if self.reply.legal_actions and {self.env.key(a) for a in self.reply.legal_actions} <= rejected:
            rejected = set()  # a resumed game the server refused entirely before: it may accept now
        limits = Limits(time=self.config.move_time) if self.config.move_time else None
        while self.reply.legal_actions or len(rejected) < MAX_ILLEGAL_IN_A_ROW:  # until it refuses every action
            local = self._choose(limits, rejected)
            try:
                observation = self.env.step(local)
            except IllegalAction:
                rejected.add(self.env.key(local))
                self._emit("running")
                continue
            self._emit("running")
            return observation
        raise ProtocolError(f"the server refused {len(rejected)} actions in a row at step "
                            f"{len(self.transcript['steps'])} and lists none", server_state=self.reply.state)

    def _choose(self, limits: Limits | None, rejected: set[str]) -> Action:
        """The player's action among the server's legal actions, never one it refused at this step."""
        listed = self.reply.legal_actions
        allowed = [a for a in listed if self.env.key(a) not in rejected]
        if listed and not allowed:
            raise ProtocolError(f"the server refused every action it listed ({len(listed)}) at step "
                                f"{len(self.transcript['steps'])}; last reason: "
                                f"{self.transcript['illegal'][-1]['reason']!r}", server_state=self.reply.state)
        started = time.perf_counter()
        try:
            return choose_over_candidates(self.player, self.rules, self.tracker.candidates, limits,
                                          allowed=allowed or None, rng=self.rng,
                                          fields=self.tracker.fields or None)
        except (TrackingError, ValueError) as error:  # no tracked position and nothing listed, or a player
            # asked to move in a finished candidate: nothing can be sent
            raise ProtocolError(f"nothing to play at step {len(self.transcript['steps'])}: {error}",
                                server_state=self.reply.state) from error
        finally:
            self.player_s += time.perf_counter() - started

    # ------------------------------------------------------------------ ending

    def _finish(self) -> MatchResult:
        reply, rules = self.reply, self.rules
        candidates = self.tracker.candidates
        agreeing = [c for c in candidates if reply.score is not None and rules.is_terminal(c.state)
                    and rules.score(c.state) == reply.score]
        final = (agreeing or [c for c in candidates if rules.is_terminal(c.state)] or candidates or [None])[0]
        if final is not None and rules.is_terminal(final.state):
            state, actions, outcome, score = final.state, final.actions, rules.outcome(final.state), None
        else:  # tracking ended unsure: the server's score is the result
            state = None if final is None else final.state
            actions = () if final is None else final.actions
            outcome, score = ("loss", "untracked"), reply.score if reply.score is not None else 0.0
        result = self._result(state, actions, outcome, score)
        self._emit("done", result=result)
        return result

    def _result(self, state: Any, actions: tuple, outcome: tuple[str, str], score: float | None) -> MatchResult:
        reply = self.reply
        ambiguous = dict(Counter(c for c in self.env.conditions if c is not None))
        sent = [step["local"] for step in self.transcript["steps"]]
        return build_result(
            self.rules, state, player=self.player.spec, opponent="gbot", seed=self.config.seed,
            actions=actions, outcome=outcome, started=self.started, player_s=self.player_s, opponent_s=0.0,
            key=self.config.key, score=score, counters=ambiguity_counters(ambiguous), source="live",
            server_score=reply.score if reply is not None and reply.game_over else None,
            extra={"base_url": self.config.base_url, "sent": sent,
                   "illegal_replies": len(self.transcript["illegal"]),
                   "ambiguous_steps": self.tracker.ambiguous_steps, "max_candidates": self.tracker.widest,
                   "ambiguous_moves": ambiguous,
                   "tracking_warnings": dict(self.tracker.warnings), "tracking_notes": self.tracker.notes,
                   "layout": [layout.describe() for layout in self.tracker.layouts.layouts[:4]],
                   "requests": self.http.stats.to_dict()})

    def _emit(self, status: str, error: str | None = None, result: MatchResult | None = None) -> None:
        reply = self.reply
        self.sink(Checkpoint(
            key=self.config.key, game=self.rules.spec, seed=self.config.seed, player=self.player.spec,
            server_state={"state": None if reply is None else reply.state, "transcript": self.transcript},
            actions=[step["action"] for step in self.transcript["steps"]], status=status, error=error,
            server_score=reply.score if reply is not None and reply.game_over else None, result=result))


def play_live_game(config: LiveGameConfig, sink: Sink | None = None, limiter: Limiter | None = None,
                   transcript: dict[str, Any] | None = None,
                   notify: Callable[[str], None] | None = None) -> MatchResult | None:
    """Play one live game (or resume it from ``transcript``); see :class:`LiveGame`."""
    return LiveGame(config, sink, limiter, transcript, notify).run()
