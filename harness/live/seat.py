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
strict extra filter (a mismatch is a warning; the game goes on).

Moves never miss the clock: the command must leave by the *deadline*, the
beat's end (``remainMs`` from when the view arrived) less the slowest
measured round trip and a safety margin. The player runs in a thread with a
time limit of a share of that; a deepening search stops there with its best
move so far. Meanwhile a 1-ply fallback is found; if the player has not
answered by the deadline (a slow player, a loaded machine) the fallback is
sent, and counted (``fallback_moves``).
"""

from __future__ import annotations

import hashlib
import random
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from harness.errors import ProtocolError
from harness.games import Action, Rules, State, load as load_game
from harness.live.board import SIDES, fen_board
from harness.live.http import HttpClient, RateLimiter, RefusedRequest, RetryPolicy, check_url
from harness.live.session import ambiguity_counters
from harness.live.tracking import Candidate, Tracker, action_key, choose_over_candidates
from harness.match import MatchResult, build_result
from players import Limits, Player, load as load_player

FINISHED = ("finished", "done", "over", "ended", "closed")


def clock_limits(player: Player, rules: Rules, state: State | None, share: float) -> Limits:
    """A move's limits under the clock: the player's own time for this move, capped by the clock's ``share``.

    The player's own time is read for the position (``Player.budget``), so a
    spec that spends longer on some moves (alpha-beta's ``behind``) gets that
    room where the clock leaves it; a player with no time of its own gets the
    share. ``state`` is None when the position to move from is not known.
    """
    own = (player.limits() if state is None else player.budget(rules, state)).time
    return Limits(time=share if own is None else min(own, share))


@dataclass(frozen=True)
class SeatConfig:
    """How to play one seat.

    Attributes:
        url: the seat's URL (given by the platform).
        player: the (resolved) player spec.
        seed: seeds the player's tie-breaking.
        rate: requests per second at most (the server's ``pollAfterMs`` hints
            come on top).
        clock_fraction: the share of the time to the deadline given to the player as its limit.
        safety_s: the margin kept before the beat's end, beyond the measured round trip.
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


def fallback_move(rules: Rules, state: Any, legal: list[Action], deadline: float,
                  found: Callable[[Action], None] | None = None) -> Action:
    """The best move of a 1-ply search (material, decided games first) found by ``deadline``.

    ``found`` hears of every improvement as it is found; the first legal move
    is the answer when even that search does not get started in time.
    """
    from harness.games import kit
    from players.greedy import terminal_value
    best, best_value = legal[0], float("-inf")
    if state is None or rules.is_terminal(state):
        return best
    side = rules.to_move(state)
    material = kit(rules.name).material
    for action in sorted(legal, key=rules.action_sort_key):
        if time.monotonic() >= deadline:
            break
        try:
            child = rules.apply(state, action)
        except ValueError:
            continue
        value = terminal_value(rules, child, side) if rules.is_terminal(child) else float(material(rules, child, side))
        if value > best_value:
            best, best_value = action, value
            if found is not None:
                found(action)
    return best


class _Thinking:
    """One call running in its own thread, so the clock never waits for it; ``best`` is its answer so far."""

    def __init__(self, work: Callable[[Callable[[Action], None]], Action], name: str) -> None:
        self.best: Action | None = None
        self.action: Action | None = None
        self.error: BaseException | None = None
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(work,), name=name, daemon=True)
        self.thread.start()

    def _found(self, action: Action) -> None:
        self.best = action

    def _run(self, work: Callable[[Callable[[Action], None]], Action]) -> None:
        try:
            self.action = self.best = work(self._found)
        except BaseException as error:  # reported to the seat, which sends its fallback instead
            self.error = error
        finally:
            self.done.set()


def warm_up() -> None:
    """Load the engine and the fallback's evaluation once, before any clock runs (a first call may compile)."""
    rules = load_game("xiangqi")
    start = rules.initial_state()
    fallback_move(rules, start, rules.legal_actions(start), float("inf"))


class SeatGame:
    """One seat of one match, played to the end within every beat's clock.

    Args:
        config: the seat.
        sink: receives an event after every command sent (round, command, the plies tracked).
        player: a player object instead of ``config.player``'s spec (tests use slow ones).
        start_actions: the plies of both seats already played (a rejoined match).
    """

    def __init__(self, config: SeatConfig, sink: Callable[[dict[str, Any]], None] | None = None,
                 player: Player | None = None, start_actions: list[Action] | tuple = ()) -> None:
        check_url(config.url, "the seat URL")
        warm_up()  # before the first view: no clock runs yet
        self.config = config
        self.http = HttpClient(limiter=RateLimiter(config.rate), policy=config.policy)
        self.sink = sink or (lambda event: None)
        self.rules: Rules | None = None
        self.tracker: Tracker | None = None
        self.player = player if player is not None else load_player(config.player, "xiangqi")
        self.start_actions = list(start_actions)
        self.view: dict[str, Any] = {}
        self.received = time.monotonic()
        self.observed_round: Any = None
        self.sent: list[Action] = []
        self.last_plies: list[Action] = []
        self.refused: dict[Any, set[str]] = {}
        self.round_trips: list[float] = []
        self.fallbacks = 0
        self.player_errors: list[str] = []
        self.thinking: _Thinking | None = None
        self.ambiguous: dict[str, int] = {}
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
        finally:
            self.http.close()

    # ---------------------------------------------------------------- reading

    def _request(self, method: str, url: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """One request; its round trip is measured (retries excluded) for the clock budget."""
        started = time.monotonic()
        retries = self.http.stats.retries
        reply = self.http.request(method, url, body=body)
        if self.http.stats.retries == retries:
            self.round_trips = (self.round_trips + [time.monotonic() - started])[-8:]
        return reply

    def _fetch(self) -> None:
        self.view = self._request("GET", self.config.url)
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
        start = self.rules.initial_state()
        for action in self.start_actions:
            start = self.rules.apply(start, action)
        self.tracker = Tracker(self.rules, start=start, rng=random.Random(f"seat:{self.config.seed}"))
        self.tracker.candidates = [replace(c, actions=tuple(self.start_actions) + c.actions)
                                   for c in self.tracker.candidates]
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

    @property
    def round_trip_s(self) -> float:
        """The round trip to allow for: the slowest of the last few measured."""
        return max(self.round_trips, default=0.1)

    def deadline(self) -> float:
        """When the command must leave: the beat's end less the round trip and the safety margin."""
        return self.received + self._remain_s() - self.round_trip_s - self.config.safety_s

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
        if round_ != self.observed_round:
            self._observe(legal if isinstance(legal, list) else None)
        if isinstance(legal, list):
            refused = self.refused.get(round_, set())
            allowed = [item for item in legal if action_key(item, self.tracker.fields) not in refused]
            if not allowed:
                raise ProtocolError(f"the server refused every move it listed in round {round_!r}")
            local = self._local(self._choose(allowed))
            command = self.tracker.matching_server_action(local, legal)
        else:  # no data.legal: our own move in the same shape, checked by the board alone
            example = _get(data, "schema", "example")
            local = self._choose(None) if self._our_turn_locally() else None
            command = local if local is not None else example
            if command is None:
                raise ProtocolError("the view asks to act but has neither data.legal nor data.schema.example")
        try:
            reply = self._request("POST", self._act_url(), {"command": command, "round": round_})
        except RefusedRequest as refusal:
            if refusal.status == 422:  # the move was refused: never sent again this round
                self.refused.setdefault(round_, set()).add(action_key(command, self.tracker.fields))
            if refusal.status in (409, 422):  # the beat moved on, or the move was refused: look again
                self._fetch()
                return True
            raise
        self.sent.append(command)
        condition = self.tracker.condition
        if condition is not None:
            self.ambiguous[condition] = self.ambiguous.get(condition, 0) + 1
        best = self.tracker.best
        plies = [] if best is None else list(best.actions) + ([local] if local is not None else [])
        if local is not None:
            self.tracker.play(local)
        self.last_plies = plies
        self.sink({"round": round_, "command": command, "plies": plies})  # both seats' plies, ours last
        self.view, self.received = reply, time.monotonic()
        return True

    def _local(self, action: Action) -> Action:
        """The tracked position's own form of an action (a fallback may pick the server's item)."""
        best, fields = self.tracker.best, self.tracker.fields
        if best is None or self.rules.is_terminal(best.state):
            return action
        key = action_key(action, fields)
        return next((a for a in self.rules.legal_actions(best.state) if action_key(a, fields) == key), action)

    def _act_url(self) -> str:
        href = _get(self.view, "next", "href")
        return href if isinstance(href, str) and href.startswith(("http://", "https://")) else self.config.url

    def _observe(self, legal: list[Any] | None) -> None:
        board = _get(self.view, "data", "summary", "board")
        self.tracker.observe(legal, False, extra=board_filter(self.rules, board), strict=True)
        self.observed_round = _get(self.view, "data", "round")

    def _our_turn_locally(self) -> bool:
        best = self.tracker.best
        return best is not None and not self.rules.is_terminal(best.state) \
            and self.rules.to_move(best.state) == self.rules.user_side

    def _choose(self, listed: list[Any] | None) -> Action:
        """The player's move by the deadline, else the fallback: never later than the clock allows.

        The player gets ``clock_fraction`` of the time left as its limit, or
        its own time for this move where that is shorter (:func:`clock_limits`;
        a deepening search stops there with its best move so far); it runs
        in a thread while a 1-ply fallback is found, and whatever it has not
        answered by :meth:`deadline` is not waited for.
        """
        deadline = self.deadline()
        budget = max(0.01, deadline - time.monotonic())
        best = self.tracker.best
        ours = best.state if best is not None and self._our_turn_locally() else None
        limits = clock_limits(self.player, self.rules, ours, max(0.01, budget * self.config.clock_fraction))
        candidates = list(self.tracker.candidates)
        known = listed if listed is not None else (self.rules.legal_actions(ours) if ours is not None else [])
        rules, player, rng, fields = self.rules, self.player, self.tracker.rng, self.tracker.fields
        started = time.perf_counter()
        busy = self.thinking is not None and not self.thinking.done.is_set()
        if busy:  # still on an earlier move: its answer is for another position
            self.player_errors.append("the player was still busy with an earlier move")
        else:
            self.thinking = _Thinking(lambda found: choose_over_candidates(
                player, rules, candidates, limits, allowed=listed or None, rng=rng, fields=fields), "seat-player")
        state = best.state if best else None
        fallback = _Thinking(lambda found: fallback_move(rules, state, known, deadline, found), "seat-fallback") \
            if known else None
        action = None
        if busy:
            if fallback is not None:
                fallback.done.wait(max(0.0, deadline - time.monotonic()))
        else:
            self.thinking.done.wait(max(0.0, deadline - time.monotonic()))
            if self.thinking.done.is_set():
                action = self.thinking.action
                if self.thinking.error is not None:
                    self.player_errors.append(f"{type(self.thinking.error).__name__}: {self.thinking.error}")
        self.player_s += time.perf_counter() - started
        if action is None:
            self.fallbacks += 1
            if not known:
                raise ProtocolError("no move is known to send: the player did not answer and nothing is listed")
            action = fallback.best if fallback is not None and fallback.best is not None else known[0]
        return action

    # ----------------------------------------------------------------- ending

    def _result(self) -> MatchResult:
        rules = self.rules or load_game("xiangqi")
        ranks = _get(self.view, "result", "ranks")
        seat = rules.user_side
        server_outcome, server_score = None, None
        if isinstance(ranks, list) and len(ranks) == 2:
            ours, theirs = ranks[seat], ranks[1 - seat]
            server_outcome = "draw" if ours == theirs == 1 else "win" if ours == 1 else "loss"
            server_score = 1.0 if ours == 1 else 0.0  # the local score's reading: rank 1 scores 1
        local_state, local_outcome, actions = None, None, []
        if self.tracker is not None and self.tracker.candidates:
            board = board_filter(rules, _get(self.view, "data", "summary", "board"))
            terminal = [c for c in self.tracker.candidates if rules.is_terminal(c.state)]
            pool = terminal or self.tracker.candidates
            if self.last_plies:  # a match ended by the server right after our move: no reply to guess
                ours = rules.initial_state()
                for ply in self.last_plies:
                    ours = rules.apply(ours, ply)
                pool = pool + [Candidate(ours, tuple(self.last_plies))]
            final = ([c for c in pool if board is None or board(c.state)] or pool)[0]
            local_state, actions = final.state, list(final.actions)
            local_outcome = rules.outcome(final.state)
        outcome = server_outcome or (local_outcome[0] if local_outcome else "loss")
        if local_outcome is not None:
            reason = local_outcome[1]
        else:
            reason = str(_get(self.view, "data", "summary", "lastEvent", default="server_finish"))
        score = rules.score(local_state) if local_state is not None and local_outcome else \
            (server_score if server_score is not None else 0.0)
        return build_result(
            rules, local_state, player=self.player.spec if self.player else self.config.player,
            opponent="platform", seed=self.config.seed, actions=actions, outcome=(outcome, reason),
            started=self.started, player_s=self.player_s, opponent_s=0.0, key=seat_key(self.config.url),
            score=score, counters={**ambiguity_counters(self.ambiguous), "fallback_moves": self.fallbacks},
            source="live", server_score=server_score, error=_get(self.view, "result", "error"),
            extra={"url": self.config.url, "ranks": ranks, "local_outcome": local_outcome,
                   "outcome_mismatch": bool(local_outcome and server_outcome
                                            and local_outcome[0] != server_outcome),
                   "sent": self.sent, "fallback_moves": self.fallbacks, "player_errors": self.player_errors,
                   "round_trip_s": self.round_trip_s, "tracking_warnings": dict(self.tracker.warnings)
                   if self.tracker else {}, "requests": self.http.stats.to_dict()})


def seat_key(url: str) -> str:
    """The match key of a seat: a short hash of its URL, which names it (and may be long)."""
    return "arena-" + hashlib.sha256(url.encode()).hexdigest()[:24]


def play_seat(config: SeatConfig, sink: Callable[[dict[str, Any]], None] | None = None,
              player: Player | None = None, start_actions: list[Action] | tuple = ()) -> MatchResult:
    """Play one seat of a Chinese chess match to its end; see :class:`SeatGame`."""
    return SeatGame(config, sink, player, start_actions).run()


#: The emulator's match-creation path (the real platform's is not published).
MATCHES_PATH = "/arena/xiangqi/matches"


def create_match(url: str, seat: str = "red", seed: int = 0, policy: RetryPolicy | None = None,
                 options: dict[str, Any] | None = None) -> str:
    """Create a match on the emulator (``POST .../arena/xiangqi/matches``) and return our seat's URL.

    Raises:
        ProtocolError: the reply names no seat URL.
    """
    check_url(url, "url")
    with HttpClient(limiter=RateLimiter(10.0), policy=policy or RetryPolicy(total_s=30.0)) as http:
        reply = http.post(url, {"seat": seat, "seed": seed, **(options or {})})
    seat_url = reply.get("url")
    if not isinstance(seat_url, str):
        raise ProtocolError(f"POST {url}: the reply names no seat url (keys: {', '.join(sorted(reply))})")
    return seat_url
