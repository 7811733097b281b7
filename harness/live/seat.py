"""The seat-protocol client for the Chinese chess platform (``harness arena xiangqi``).

What is read from the rules text (``rules/xiangqi.md``: Platform, State,
Actions, Finish) and nothing more: GET the seat's view; when ``next.rel`` is
``act`` and ``remainMs`` is above 0, POST ``{command, round}`` with one item of
``data.legal`` unchanged (or, when ``legal`` is absent, our own move in the
same shape, else ``data.schema.example``); otherwise sleep ``pollAfterMs`` and
GET again, also when ``remainMs`` is 0 while the status is still starting or
running. ``summary`` gives the 90-square board, ``turn``, ``yourTurn`` and
``phase``; ``result.ranks`` is read at the end. Unknown fields are ignored and
missing ones have defaults, so a real server's details may differ.

The game is shadow-tracked with the local engine (:mod:`harness.live.tracking`):
every listed ``data.legal`` must be exactly the legal moves of a tracked
position, and the summary's board, which the text makes unambiguous, is a
strict extra filter. Moves are chosen within the clock: the player gets a
time limit well inside ``remainMs`` (a fraction of it less a safety margin).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from harness.errors import ProtocolError, TrackingError
from harness.games import Action, Rules, load as load_game
from harness.live.board import SIDES, fen_board
from harness.live.http import HttpClient, RateLimiter, RefusedRequest, RetryPolicy
from harness.live.tracking import Tracker, choose_over_candidates
from harness.match import MatchResult
from players import Limits, load as load_player

FINISHED = ("finished", "done", "over", "ended", "closed")


@dataclass(frozen=True)
class SeatConfig:
    """How to play one seat.

    Attributes:
        url: the seat's URL (given by the platform).
        player: the (resolved) player spec.
        seed: seeds the player's tie-breaking.
        rate: requests per second at most (the server's ``pollAfterMs`` hints
            come on top).
        clock_fraction: the share of ``remainMs`` a move may use.
        safety_s: subtracted from that share for the network round trip.
        max_wait_s: give up with a ProtocolError when the match shows no
            progress for this long.
        policy: retry bounds; the backoff is short because the clock runs.
    """

    url: str
    player: str
    seed: int = 0
    rate: float = 2.0
    clock_fraction: float = 0.5
    safety_s: float = 0.25
    max_wait_s: float = 600.0
    # short backoff: a beat's clock runs while we retry (the server paces us with pollAfterMs)
    policy: RetryPolicy = field(default_factory=lambda: RetryPolicy(total_s=60.0, base_s=0.2, cap_s=2.0,
                                                                    read_s=30.0))


def _get(data: Any, *path: str, default: Any = None) -> Any:
    for name in path:
        if not isinstance(data, dict) or name not in data:
            return default
        data = data[name]
    return data


def board_filter(rules: Rules, board: Any) -> Callable[[Any], bool] | None:
    """A filter on local positions from the summary's board, or None if it cannot be read."""
    if not isinstance(board, list) or len(board) != 90:
        return None
    try:
        wanted = [(str(_get(sq, "mark", default="") or ""), str(_get(sq, "side", default="") or ""))
                  for sq in board]
    except (TypeError, ValueError):
        return None

    def fits(state: Any) -> bool:
        local = fen_board(rules.notation(state))
        return [(sq["mark"], sq["side"]) for sq in local] == wanted
    return fits


class SeatGame:
    """One seat of one match, played to the end."""

    def __init__(self, config: SeatConfig, sink: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.config = config
        self.http = HttpClient(limiter=RateLimiter(config.rate), policy=config.policy)
        self.sink = sink or (lambda event: None)
        self.rules: Rules | None = None
        self.tracker: Tracker | None = None
        self.player = None
        self.view: dict[str, Any] = {}
        self.observed_round: Any = None
        self.sent: list[Action] = []
        self.player_s = 0.0
        self.started = time.perf_counter()

    def run(self) -> MatchResult:
        """Play until the match is finished.

        Raises:
            TransportError: the server could not be reached within the retry budget.
            ProtocolError: the server's views could not be understood or made no progress.
        """
        try:
            self._fetch()
            last_progress = time.monotonic()
            last_round = None
            while not self._finished():
                round_ = _get(self.view, "data", "round")
                if round_ != last_round:
                    last_round, last_progress = round_, time.monotonic()
                elif time.monotonic() - last_progress > self.config.max_wait_s:
                    raise ProtocolError(f"no progress for {self.config.max_wait_s:g}s at round {round_!r}")
                if not self._act():
                    self._sleep()
                    self._fetch()
            return self._result()
        except TrackingError as error:
            return self._result(error)
        finally:
            self.http.close()

    # ---------------------------------------------------------------- reading

    def _fetch(self) -> None:
        self.view = self.http.get(self.config.url)
        self.received = time.monotonic()
        self._ensure_rules()

    def _ensure_rules(self) -> None:
        if self.rules is not None:
            return
        summary = _get(self.view, "data", "summary", default={}) or {}
        side = summary.get("side")
        if side not in SIDES:
            you = summary.get("you")
            side = SIDES[you] if you in (0, 1) else None
        if side is None:
            return  # not said yet (a start countdown may omit it): read it on a later view
        self.rules = load_game("xiangqi", seat=side)
        self.tracker = Tracker(self.rules)
        self.player = load_player(self.config.player, "xiangqi")
        self.player.reset(self.config.seed)

    def _finished(self) -> bool:
        status = str(self.view.get("status", "")).lower()
        return (status in FINISHED or _get(self.view, "data", "summary", "phase") == "done"
                or isinstance(_get(self.view, "result", "ranks"), list))

    def _remain_s(self) -> float:
        remain = self.view.get("remainMs")
        return max(0.0, float(remain) / 1000) if isinstance(remain, (int, float)) else 0.0

    def _sleep(self) -> None:
        poll = self.view.get("pollAfterMs")
        seconds = float(poll) / 1000 if isinstance(poll, (int, float)) and poll >= 0 else 1.0
        time.sleep(min(max(seconds, 0.02), 10.0))

    # ----------------------------------------------------------------- acting

    def _act(self) -> bool:
        """Send a command if the view asks for one; False when there is nothing to do now."""
        view = self.view
        next_ = view.get("next")
        rel = next_.get("rel") if isinstance(next_, dict) else next_
        data = view.get("data") if isinstance(view.get("data"), dict) else {}
        legal = data.get("legal")
        if rel != "act" or self._remain_s() <= 0 or self.rules is None:
            return False
        if isinstance(legal, list) and not legal:
            return False  # "an empty data.legal means it is not your turn"
        round_ = data.get("round")
        if isinstance(legal, list):
            if round_ != self.observed_round:
                self._observe(legal)
            local = self._choose()
            command = self.tracker.matching_server_action(local, legal)
        else:  # no data.legal: our own move in the same shape, checked by the board alone
            example = _get(data, "schema", "example")
            if round_ != self.observed_round:
                self._observe(None)
            local = self._choose() if self._our_turn_locally() else None
            command = local if local is not None else example
            if command is None:
                raise ProtocolError("the view asks to act but has neither data.legal nor data.schema.example")
        try:
            reply = self.http.post(self._act_url(), {"command": command, "round": round_})
        except RefusedRequest as refusal:
            if refusal.status == 409:  # the beat moved on (a retried POST, a missed clock): look again
                self._fetch()
                return True
            raise
        self.sent.append(command)
        if local is not None:
            self.tracker.play(local, server_state=reply)
        self.sink({"round": round_, "command": command})
        self.view, self.received = reply, time.monotonic()
        return True

    def _act_url(self) -> str:
        href = _get(self.view, "next", "href")
        return href if isinstance(href, str) and href.startswith(("http://", "https://")) else self.config.url

    def _observe(self, legal: list[Any] | None) -> None:
        board = _get(self.view, "data", "summary", "board")
        self.tracker.observe(legal, False, extra=board_filter(self.rules, board), strict=True,
                             server_state=self.view)
        self.observed_round = _get(self.view, "data", "round")

    def _our_turn_locally(self) -> bool:
        state = self.tracker.best.state
        return not self.rules.is_terminal(state) and self.rules.to_move(state) == self.rules.user_side

    def _choose(self) -> Action:
        budget = self._remain_s() * self.config.clock_fraction - self.config.safety_s
        budget -= time.monotonic() - self.received
        limits = Limits(time=max(0.01, budget))
        own = self.player.limits().time
        if own is not None:
            limits = Limits(time=min(own, limits.time))
        started = time.perf_counter()
        try:
            return choose_over_candidates(self.player, self.rules, self.tracker.candidates, limits)
        finally:
            self.player_s += time.perf_counter() - started

    # ----------------------------------------------------------------- ending

    def _result(self, error: TrackingError | None = None) -> MatchResult:
        rules = self.rules or load_game("xiangqi")
        ranks = _get(self.view, "result", "ranks")
        seat = rules.user_side
        server_outcome, server_score = None, None
        if isinstance(ranks, list) and len(ranks) == 2:
            ours, theirs = ranks[seat], ranks[1 - seat]
            server_outcome = "draw" if ours == theirs == 1 else "win" if ours == 1 else "loss"
            server_score = 1.0 if ours == 1 else 0.0  # the local score's reading: rank 1 scores 1
        local_state, local_outcome, actions = None, None, []
        if self.tracker is not None and error is None:
            board = board_filter(rules, _get(self.view, "data", "summary", "board"))
            terminal = [c for c in self.tracker.candidates if rules.is_terminal(c.state)]
            pool = terminal or self.tracker.candidates
            fitting = [c for c in pool if board is None or board(c.state)] or pool
            final = fitting[0]
            local_state, actions = final.state, list(final.actions)
            local_outcome = rules.outcome(final.state)
        elif self.tracker is not None:
            local_state, actions = self.tracker.best.state, list(self.tracker.best.actions)
        outcome = server_outcome or (local_outcome[0] if local_outcome else "loss")
        if error is not None:
            reason = "tracking_error"
        elif local_outcome is not None:
            reason = local_outcome[1]
        else:
            reason = str(_get(self.view, "data", "summary", "lastEvent", default="server_finish"))
        return MatchResult(
            game=rules.spec, player=self.player.spec if self.player else self.config.player,
            opponent="platform", seed=self.config.seed, outcome=outcome, reason=reason,
            score=rules.score(local_state) if local_state is not None and local_outcome else 0.0,
            counters=rules.counters(local_state) if local_state is not None else {},
            actions=actions, plies=len(actions), duration_s=time.perf_counter() - self.started,
            player_s=self.player_s, opponent_s=0.0, key=f"arena-{self.config.url}", source="live",
            server_score=server_score, error=None if error is None else str(error),
            extra={"url": self.config.url, "ranks": ranks, "local_outcome": local_outcome,
                   "outcome_mismatch": bool(local_outcome and server_outcome
                                            and local_outcome[0] != server_outcome),
                   "sent": self.sent, "requests": self.http.stats.to_dict()})


def play_seat(config: SeatConfig, sink: Callable[[dict[str, Any]], None] | None = None) -> MatchResult:
    """Play one seat of a Chinese chess match to its end; see :class:`SeatGame`."""
    return SeatGame(config, sink).run()


#: The emulator's match-creation path (the real platform's is not published).
MATCHES_PATH = "/arena/xiangqi/matches"


def create_match(url: str, seat: str = "red", seed: int = 0, policy: RetryPolicy | None = None) -> str:
    """Create a match on the emulator (``POST .../arena/xiangqi/matches``) and return our seat's URL.

    Raises:
        ProtocolError: the reply names no seat URL.
    """
    with HttpClient(limiter=RateLimiter(10.0), policy=policy or RetryPolicy(total_s=30.0)) as http:
        reply = http.post(url, {"seat": seat, "seed": seed})
    seat_url = reply.get("url")
    if not isinstance(seat_url, str):
        raise ProtocolError(f"POST {url}: the reply names no seat url (keys: {', '.join(sorted(reply))})")
    return seat_url
