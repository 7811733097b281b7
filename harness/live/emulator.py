"""A local emulator of both live protocols, for dry runs and for the tests.

``harness emulate`` serves, on loopback by default:

- the Gameboard stateless loop for Ravenward and Totality, from the local
  engines with a G-Bot stand-in (``players.load("gbot")`` by default) replying
  inside the POST, exactly as the published API docs describe it:
  ``GET /api/games``, ``GET /api/games/{slug}/init?seed=N[&level=easy|wise]``,
  ``POST /api/games/{slug}/action`` with ``{state, action}``. The state is
  opaque and tamper-evident (JSON signed with HMAC-SHA256; a changed state is
  refused with HTTP 400); an illegal action answers HTTP 200
  ``{ok: false, reason, legalActions}``; the score is 0 until ``gameOver``.
  The stand-in's randomness follows the seed and the ply, so the same seed
  replays identically without server-side memory.
- the seat protocol for Chinese chess. This is a *reading* of the rules text
  (``Platform``, ``State``, ``Actions``, ``Finish``), not a copy of a real
  server: no host, path or JSON example of the real platform is published.
  ``POST /arena/xiangqi/matches`` with ``{"seat": "red"|"black", "seed": N,
  "beatMs": ms, "startMs": ms}`` creates a match and answers ``{match, url,
  seats}``; ``GET``/``POST /arena/matches/{id}/seats/{seat}`` is a seat's view.
  The other seat is played by the stand-in. Each beat (one move, one
  ``round``) has a real clock: ``remainMs`` counts down to the end of the
  current beat (or of the start countdown), ``pollAfterMs`` is always shorter
  while ``remainMs`` is above 0 and a short wait when it is 0. A seat to move
  that misses its beat gets actions ``[null]`` and loses; an empty command
  from the side to move loses; a hold (``[]``) stored by the other seat does
  nothing.

Faults are injected through :attr:`Emulator.faults` (or ``POST
/_admin/faults``, served only when started with ``faults=True``, ``harness
emulate --faults``): the next matching requests answer 429 with
``Retry-After``, 500 or 503 with an HTML body, a dropped connection, a delay,
an illegal-action reply, garbage JSON, a truncated body, a redirect, or
``drift`` (one legal action missing, as if the server's rules had changed);
``score_offset`` makes the final score differ from the local formula's. Every
request is logged in :attr:`Emulator.log` (method, path, status, time; the
last ``max_log``) so tests can check rate limits; finished seat matches are
kept up to ``max_finished``. A stand-in that raises (or answers illegally)
ends its match at once, its seat losing, with ``result.error`` saying why.

It runs on :class:`harness.serving.HttpServer` (Uvicorn), bounded as ``harness
serve`` is (:class:`harness.serving.ServerLimits`); on top of that it caps the
seat matches starting or running (``max_matches``) and checks every seed and
clock value a client sends against :data:`MATCH_BOUNDS` (400 otherwise).

The signing key can be kept in a key file (``key_file``; ``harness emulate
--key-file``, by default ``harness-emulator.key`` in the current directory,
beside the default results database), so a restarted emulator still accepts
the states it issued before: a client resumes a game across a restart.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import os
import secrets
import threading
import time
import zlib
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from harness.envs import LocalEnv
from harness.errors import InvalidInput, UnusableResource
from harness.games import REGISTRY, load as load_game
from harness.live.board import SIDES, fen_board
from harness.live.observation import SYMMETRIES, board_shape, local_cells, symmetry_positions
from harness.serving import HttpServer, ServerLimits, close_connection

GAMEBOARD_GAMES = ("ravenward", "totality")
FAULT_KINDS = ("429", "500", "503", "drop", "delay", "illegal", "garbage", "truncated", "redirect", "drift")
#: The request log and the finished seat matches kept at most (older ones are forgotten).
MAX_LOG = 10_000
MAX_FINISHED_MATCHES = 200
#: Seat matches starting or running at once (a finished match frees its place).
MAX_RUNNING_MATCHES = 32
#: The key file's name beside the results database when ``--key-file`` is not given.
DEFAULT_KEY_FILE = "harness-emulator.key"


def load_key(path: str | Path) -> bytes:
    """The signing key stored in ``path``, created (owner-only) on first use, so restarts keep it.

    Raises:
        InvalidInput: the file exists but holds no key, or cannot be written.
    """
    path = Path(path)
    try:
        text = path.read_text().strip()
    except FileNotFoundError:
        key = secrets.token_bytes(32)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another emulator created it meanwhile
            return load_key(path)
        except OSError as error:
            raise InvalidInput(f"cannot create the key file {path}: {error.strerror}") from None
        with os.fdopen(descriptor, "w") as handle:
            handle.write(key.hex() + "\n")
        return key
    except OSError as error:
        raise InvalidInput(f"cannot read the key file {path}: {error.strerror}") from None
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) < 16:
        raise InvalidInput(f"the key file {path} holds no key (expected at least 32 hex digits); "
                           f"delete it to make a new one")
    return key

# ----------------------------------------------------------------------- faults

@dataclass
class Fault:
    """One injected misbehaviour for the next ``count`` requests whose path contains ``path``."""

    kind: str
    path: str = ""
    count: int = 1
    retry_after: float | None = None
    delay_s: float = 0.0
    method: str = ""  # only requests of this method ("POST"), any by default

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise InvalidInput(f"unknown fault {self.kind!r}; valid faults: {', '.join(FAULT_KINDS)}")


class FaultSchedule:
    """Faults waiting for requests, consumed in order; thread-safe."""

    def __init__(self) -> None:
        self._faults: list[Fault] = []
        self._lock = threading.Lock()

    def add(self, kind: str, path: str = "", count: int = 1, retry_after: float | None = None,
            delay_s: float = 0.0, method: str = "") -> None:
        """Schedule ``kind`` for the next ``count`` requests whose path contains ``path``."""
        with self._lock:
            self._faults.append(Fault(kind, path, count, retry_after, delay_s, method.upper()))

    def clear(self) -> None:
        with self._lock:
            self._faults.clear()

    def pending(self) -> int:
        with self._lock:
            return sum(f.count for f in self._faults)

    def take(self, path: str, method: str = "") -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.path in path and fault.count > 0 and fault.method in ("", method):
                    fault.count -= 1
                    if fault.count == 0:
                        self._faults.remove(fault)
                    return fault
        return None


@dataclass
class LoggedRequest:
    """One request as the emulator saw it (logged on arrival; the status is set before replying)."""

    method: str
    path: str
    status: int
    at: float  # time.monotonic() when the request arrived
    user_agent: str = ""
    query: str = ""
    action: Any = None     # the action or command a POST carried (when its body was read)
    refused: bool = False  # answered 200 ok:false (an illegal action), or 422


class HttpFailure(Exception):
    """An HTTP error reply with a JSON body."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or {}
        self.body = {"ok": False, "error": message, **extra}


# ------------------------------------------------------------- board layouts

BOARD_FORMS = ("rows", "flat", "string")


@dataclass(frozen=True)
class BoardLayout:
    """How the emulator shows the board in its observations.

    A real server's layout is not published, so the emulator can serve any:
    one of the 8 symmetries of the square (``symmetry``), a symbol per local
    kind (``codes``: ``""`` is empty; by default the kind's letter and ``.``),
    as rows, one flat list or one string (``form``; a string needs
    one-character symbols).

    Raises:
        InvalidInput: an unknown symmetry or form.
    """

    symmetry: str = "identity"
    codes: tuple[tuple[str, Any], ...] | None = None
    form: str = "rows"

    def __post_init__(self) -> None:
        if self.symmetry not in SYMMETRIES:
            raise InvalidInput(f"unknown board symmetry {self.symmetry!r}; valid: {', '.join(SYMMETRIES)}")
        if self.form not in BOARD_FORMS:
            raise InvalidInput(f"unknown board form {self.form!r}; valid: {', '.join(BOARD_FORMS)}")

    def show(self, rules: Any, state: Any) -> Any:
        """The board of ``state`` in this layout."""
        cells = local_cells(rules, state)
        codes = dict(self.codes) if self.codes is not None else None
        shown: list[Any] = [None] * len(cells)
        for kind, place in zip(cells, symmetry_positions(rules, self.symmetry)):
            shown[place] = codes[kind] if codes is not None else (kind[:1] or ".")
        if self.form == "flat":
            return shown
        if self.form == "string":
            return "".join(str(symbol) for symbol in shown)
        rows, columns = board_shape(rules)
        width = rows if SYMMETRIES[self.symmetry][1] else columns
        if all(isinstance(symbol, str) and len(symbol) == 1 for symbol in shown):
            return ["".join(shown[i:i + width]) for i in range(0, len(shown), width)]
        return [shown[i:i + width] for i in range(0, len(shown), width)]


# ------------------------------------------------------------------ seat matches

#: The values a client may send, inclusive: seeds, the seat protocol's clocks (ms) and match length.
#: Anything else (a float, a string, a value out of range) is refused with 400.
MATCH_BOUNDS: dict[str, tuple[int, int]] = {
    "seed": (-(2**53 - 1), 2**53 - 1),   # exact in every JSON reader
    "beatMs": (50, 3_600_000),           # 50 ms to one hour a move
    "startMs": (0, 600_000),             # the start countdown: at most ten minutes
    "maxRounds": (1, 10_000),
}


def bounded_integer(name: str, value: Any) -> int:
    """``value`` if it is an integer within ``MATCH_BOUNDS[name]``.

    Raises:
        HttpFailure: 400 naming the field and its range.
    """
    low, high = MATCH_BOUNDS[name]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise HttpFailure(400, f"{name} must be an integer from {low} to {high}, got {value!r}")
    return value


@dataclass
class SeatMatch:
    """One Chinese chess match of the seat protocol; the stand-in plays the other seat."""

    match_id: str
    human_seat: int
    seed: int
    beat_ms: int
    start_at: float
    opponent: str
    state: Any = None
    round: int = 1
    beat_started: float = 0.0
    pending: dict[int, list[Any]] = field(default_factory=dict)
    status: str = "starting"
    ranks: list[int] | None = None
    last_event: str | None = None
    finish_line: str | None = None
    history: list[Any] = field(default_factory=list)
    thinking: bool = False
    max_rounds: int | None = None
    error: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


class Emulator:
    """The emulator server; ``start()`` runs it in a thread, ``serve_forever()`` in the foreground.

    Args:
        host: bind address (loopback by default).
        port: 0 picks a free port.
        opponent: the stand-in player's spec (``gbot``; tests may pass a faster one).
        secret: HMAC key of the Gameboard state (random per server by default).
        beat_ms: the default clock of one seat-protocol beat.
        start_ms: the default start countdown of a match.
        poll_ms: the usual ``pollAfterMs`` hint.
        standin_ms: how long the stand-in "thinks" before its move shows (so seats poll).
        board: how observations show the board (row-major from the top left by default).
        key_file: where the signing key is kept across restarts (overrides ``secret``).
        faults: serve ``POST /_admin/faults`` (only for tests and dry runs of faults;
            :attr:`faults` can always be scheduled in process).
        max_log: the request log's bound; max_finished: finished seat matches kept.
        matches_file: where the seat matches are kept across restarts (none by default:
            they live in memory).
        limits: the server's bounds (request size, headers, time, connections, requests
            answered at once; :class:`harness.serving.ServerLimits`).
        max_matches: seat matches starting or running at once; one more is refused with 429.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, opponent: str = "gbot",
                 secret: bytes | None = None, beat_ms: int = 30_000, start_ms: int = 500,
                 poll_ms: int = 200, standin_ms: int = 300, board: BoardLayout | None = None,
                 key_file: str | Path | None = None, faults: bool = False, max_log: int = MAX_LOG,
                 max_finished: int = MAX_FINISHED_MATCHES, matches_file: str | Path | None = None,
                 limits: ServerLimits | None = None, max_matches: int = MAX_RUNNING_MATCHES) -> None:
        self.opponent = opponent
        self.matches_file = None if matches_file is None else Path(matches_file)
        self.board = board or BoardLayout()
        self.secret = load_key(key_file) if key_file is not None else secret or secrets.token_bytes(32)
        self.fault_route = faults
        self.max_finished = max_finished
        self.beat_ms, self.start_ms, self.poll_ms = beat_ms, start_ms, poll_ms
        self.standin_ms = standin_ms
        self.score_offset = 0.0  # tests set it to play a server whose score formula differs
        self.seat_lists_legal = True  # False: seat views carry only data.schema.example (the text allows it)
        self.faults = FaultSchedule()
        self.log: deque[LoggedRequest] = deque(maxlen=max_log)
        self.matches: dict[str, SeatMatch] = {}
        self._saved: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self.limits = limits or ServerLimits()
        self.max_matches = max_matches
        self._workers = ThreadPoolExecutor(self.limits.max_active, thread_name_prefix="emulator")
        self.server = HttpServer(_App(self), host, port, self.limits, lifespan="off")
        self._load_matches()

    @property
    def url(self) -> str:
        return self.server.url

    def start(self) -> Emulator:
        """Serve in a daemon thread; returns self once the server accepts requests."""
        self.server.start()
        return self

    def serve_forever(self) -> None:
        self.server.serve_forever()

    def stop(self) -> None:
        """Stop serving: close the socket and every open connection, letting requests in flight
        finish for up to ``limits.shutdown_s`` seconds; idempotent."""
        self.server.stop()
        self._workers.shutdown(wait=False, cancel_futures=True)

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------- gameboard

    def sign(self, payload: dict[str, Any]) -> str:
        """The opaque state: compressed JSON and its HMAC, base64url."""
        body = base64.urlsafe_b64encode(zlib.compress(json.dumps(payload, separators=(",", ":")).encode()))
        mac = hmac.new(self.secret, body, hashlib.sha256).hexdigest()
        return body.decode() + "." + mac

    def unsign(self, token: Any) -> dict[str, Any]:
        if not isinstance(token, str) or "." not in token:
            raise HttpFailure(400, "state is missing or not a state this server issued")
        body, _, mac = token.rpartition(".")
        expected = hmac.new(self.secret, body.encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(mac, expected):
            raise HttpFailure(400, "state has been tampered with (signature mismatch)")
        return json.loads(zlib.decompress(base64.urlsafe_b64decode(body)))

    def _env(self, game: str, seed: int, ply: int) -> LocalEnv:
        env = LocalEnv(load_game(game), self.opponent)
        env.opponent.reset(seed * 1000 + ply)
        return env

    def _reply(self, game: str, seed: int, state: Any) -> dict[str, Any]:
        rules = load_game(game)
        over = rules.is_terminal(state)
        return {
            "state": self.sign({"game": game, "seed": seed, "s": rules.state_to_json(state)}),
            "observation": {"board": self.board.show(rules, state), "counters": rules.counters(state),
                            "toMove": rules.to_move(state), "text": rules.notation(state)},
            "legalActions": [] if over else rules.legal_actions(state),
            "score": rules.score(state) + self.score_offset if over else 0,
            "gameOver": over,
        }

    def game_init(self, slug: str, query: dict[str, str]) -> dict[str, Any]:
        game = self._game_spec(slug, query.get("level"))
        try:
            seed = int(query.get("seed", "0"))
        except ValueError:
            raise HttpFailure(400, f"seed must be an integer, got {query.get('seed')!r}") from None
        seed = bounded_integer("seed", seed)
        env = self._env(game, seed, 0)
        observation = env.reset(seed)
        reply = self._reply(game, seed, observation.state)
        rules = env.rules
        reply["spec"] = {"game": rules.spec, "goal": REGISTRY[rules.name].description,
                         "scoring": f"score between {rules.score_bounds()[0]:g} and {rules.score_bounds()[1]:g}",
                         "note": "served by the harness emulator from the local engine"}
        return reply

    def game_action(self, slug: str, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict) or "state" not in body or "action" not in body:
            raise HttpFailure(400, "the body must be a JSON object with state and action")
        payload = self.unsign(body["state"])
        game, seed = payload["game"], payload["seed"]
        if game.partition(":")[0] != slug:
            raise HttpFailure(400, f"this state belongs to {game}, not {slug}")
        rules = load_game(game)
        state = rules.state_from_json(payload["s"])
        if rules.is_terminal(state):
            return {"ok": False, "reason": "the game is over", "legalActions": []}
        legal = rules.legal_actions(state)
        if body["action"] not in legal:
            return {"ok": False, "reason": f"illegal action {body['action']!r}", "legalActions": legal}
        env = self._env(game, seed, int(rules.counters(state).get("ply", 0)))
        env.state = state
        env.step(body["action"])
        return self._reply(game, seed, env.state)

    def _game_spec(self, slug: str, level: str | None) -> str:
        if slug not in GAMEBOARD_GAMES:
            raise HttpFailure(404, f"unknown game {slug!r}; this emulator serves {', '.join(GAMEBOARD_GAMES)}")
        if level is None or slug != "totality":
            return slug
        try:
            return load_game(slug, level=level).spec
        except InvalidInput as error:
            raise HttpFailure(400, str(error)) from None

    # ------------------------------------------------------------ seat matches

    def create_match(self, seat: Any = "red", seed: Any = 0, beat_ms: Any = None,
                     start_ms: Any = None, max_rounds: Any = None) -> dict[str, Any]:
        """Create a Chinese chess match; the caller plays ``seat``, the stand-in the other.

        ``max_rounds`` ends the match as a draw after that many moves (short test matches).

        Raises:
            HttpFailure: 400 for a value outside :data:`MATCH_BOUNDS`, 429 when
                ``max_matches`` matches are starting or running.
        """
        if seat not in SIDES:
            raise HttpFailure(400, f"seat must be red or black, got {seat!r}")
        seed = bounded_integer("seed", seed)
        beat_ms = bounded_integer("beatMs", self.beat_ms if beat_ms is None else beat_ms)
        start_ms = bounded_integer("startMs", self.start_ms if start_ms is None else start_ms)
        max_rounds = None if max_rounds is None else bounded_integer("maxRounds", max_rounds)
        rules = load_game("xiangqi")
        match_id = secrets.token_hex(6)
        now = time.monotonic()
        match = SeatMatch(match_id, SIDES.index(seat), seed, beat_ms, now + start_ms / 1000,
                          self.opponent, state=rules.initial_state(), max_rounds=max_rounds)
        with self._lock:
            live = [m for m in self.matches.values() if m.status != "finished"]
        for other in live:  # a match nobody polls any more ends here when its clock has run out
            with other.lock:
                self._tick(other)
        with self._lock:
            if sum(m.status != "finished" for m in self.matches.values()) >= self.max_matches:
                raise HttpFailure(429, f"{self.max_matches} matches are already starting or running; "
                                       f"finish one first", headers={"Retry-After": "5"})
            self.matches[match_id] = match
        self._save(match)
        seats = {side: f"{self.url}/arena/matches/{match_id}/seats/{index}" for index, side in enumerate(SIDES)}
        return {"match": match_id, "url": seats[seat], "seats": seats, "seat": seat}

    def _match(self, match_id: str, seat: str) -> tuple[SeatMatch, int]:
        match = self.matches.get(match_id)
        if match is None or seat not in ("0", "1"):
            raise HttpFailure(404, f"no seat {seat} in match {match_id}")
        return match, int(seat)

    def seat_view(self, match_id: str, seat: str) -> dict[str, Any]:
        match, index = self._match(match_id, seat)
        with match.lock:
            self._tick(match)
            return self._view(match, index)

    def seat_command(self, match_id: str, seat: str, body: Any) -> dict[str, Any]:
        match, index = self._match(match_id, seat)
        if not isinstance(body, dict) or "command" not in body:
            raise HttpFailure(400, "the body must be a JSON object with command and round")
        with match.lock:
            self._tick(match)
            if match.status != "running":
                raise HttpFailure(409, f"the match is {match.status}", view=self._view(match, index))
            if body.get("round") != match.round:
                raise HttpFailure(409, f"round {body.get('round')!r} is not the current round {match.round}",
                                  view=self._view(match, index))
            rules = load_game("xiangqi")
            command = body["command"]
            if index == rules.to_move(match.state):
                if command in (None, [], {}):
                    self._finish(match, loser=index, line=f"{SIDES[index]} sent an empty command")
                elif command not in rules.legal_actions(match.state):
                    raise HttpFailure(422, f"command {command!r} is not legal this beat",
                                      view=self._view(match, index))
                else:
                    self._apply(match, command)
                    self._tick(match)
            else:
                match.pending[index] = [] if command in (None, [], {}) else [command]
                self._save(match)
            return self._view(match, index)

    def _tick(self, match: SeatMatch) -> None:
        """Advance the match to now (caller holds its lock): the start, a missed beat, and
        the stand-in's turn, which it plays in its own thread so the clock stays real."""
        now = time.monotonic()
        rules = load_game("xiangqi")
        if match.status == "starting" and now >= match.start_at:
            match.status, match.beat_started = "running", match.start_at
        if match.status != "running":
            return
        side = rules.to_move(match.state)
        if side != match.human_seat:
            if not match.thinking:
                match.thinking = True
                threading.Thread(target=self._standin_move, args=(match, match.round, match.state),
                                 name=f"standin-{match.match_id}", daemon=True).start()
        elif now > match.beat_started + match.beat_ms / 1000:
            match.history.append(None)
            self._finish(match, loser=side, line=f"{SIDES[side]} missed the clock (actions [null])")

    def _standin_move(self, match: SeatMatch, round_: int, state: Any) -> None:
        """The stand-in's move, shown no sooner than ``standin_ms`` into its beat; our beat starts then."""
        from players import load as load_player
        rules = load_game("xiangqi")
        try:
            player = load_player(self.opponent, "xiangqi")
            player.reset(match.seed * 1000 + round_)
            action = player.choose(rules, state)
            if action not in rules.legal_actions(state):
                raise ValueError(f"the illegal action {action!r}")
        except Exception as error:  # the stand-in failed: its seat loses, the match does not hang
            with match.lock:
                match.thinking = False
                if match.status == "running" and match.round == round_:
                    self._finish(match, loser=1 - match.human_seat,
                                 line=f"error: the stand-in {self.opponent} failed: {type(error).__name__}: {error}")
                    match.error = f"{type(error).__name__}: {error}"
            return
        wait = match.beat_started + self.standin_ms / 1000 - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        with match.lock:
            match.thinking = False
            if match.status == "running" and match.round == round_:
                self._apply(match, action)

    def _apply(self, match: SeatMatch, command: dict[str, Any]) -> None:
        rules = load_game("xiangqi")
        side = rules.to_move(match.state)
        fen_before = rules.notation(match.state)
        row, column = command["from"]
        mark = fen_board(fen_before)[row * 9 + column]["mark"]
        match.state = rules.apply(match.state, command)
        match.history.append(command)
        match.pending.clear()
        match.round += 1
        match.beat_started = time.monotonic()
        match.last_event = SIDES[side] + mark
        if rules.is_terminal(match.state):
            ranks = list(rules.ranks(match.state))
            match.status, match.ranks = "finished", ranks
            match.last_event = match.finish_line = f"{rules.outcome(match.state)[1]}: ranks {ranks}"
            self._forget_finished()
        elif match.max_rounds is not None and match.round > match.max_rounds:
            self._finish(match, loser=None, line=f"draw: the match's {match.max_rounds} rounds are played")
        self._save(match)

    def _finish(self, match: SeatMatch, loser: int | None, line: str) -> None:
        match.status = "finished"
        match.ranks = [1, 1] if loser is None else [2, 1] if loser == 0 else [1, 2]
        match.last_event = match.finish_line = line
        match.pending.clear()
        self._forget_finished()
        self._save(match)

    # ------------------------------------------------------- seat matches on disk

    def _save(self, match: SeatMatch) -> None:
        """Write every match to ``matches_file`` (caller holds ``match.lock``); clock times as wall time."""
        if self.matches_file is None:
            return
        shift = time.time() - time.monotonic()
        record = {"match_id": match.match_id, "human_seat": match.human_seat, "seed": match.seed,
                  "beat_ms": match.beat_ms, "start_at": match.start_at + shift, "opponent": match.opponent,
                  "state": load_game("xiangqi").state_to_json(match.state), "round": match.round,
                  "beat_started": match.beat_started + shift,
                  "pending": {str(k): v for k, v in match.pending.items()}, "status": match.status,
                  "ranks": match.ranks, "last_event": match.last_event, "finish_line": match.finish_line,
                  "history": match.history, "max_rounds": match.max_rounds, "error": match.error}
        with self._lock:
            self._saved = {key: value for key, value in self._saved.items() if key in self.matches}
            self._saved[match.match_id] = record
            partial = self.matches_file.with_suffix(self.matches_file.suffix + ".partial")
            partial.write_text(json.dumps(self._saved))
            os.replace(partial, self.matches_file)

    def _load_matches(self) -> None:
        """The matches a previous start of this emulator left in ``matches_file``."""
        if self.matches_file is None or not self.matches_file.exists():
            return
        try:
            saved = json.loads(self.matches_file.read_text())
        except (OSError, ValueError) as error:
            raise InvalidInput(f"cannot read the matches file {self.matches_file}: {error}") from None
        rules = load_game("xiangqi")
        shift = time.time() - time.monotonic()
        for key, record in saved.items():
            record = dict(record, state=rules.state_from_json(record["state"]),
                          start_at=record["start_at"] - shift, beat_started=record["beat_started"] - shift,
                          pending={int(k): v for k, v in record["pending"].items()})
            self.matches[key] = SeatMatch(**record)
        self._saved = saved

    def _forget_finished(self) -> None:
        """Keep at most ``max_finished`` finished matches (the oldest go first)."""
        with self._lock:
            finished = [key for key, m in self.matches.items() if m.status == "finished"]
            for key in finished[:max(0, len(finished) - self.max_finished)]:
                del self.matches[key]

    def _view(self, match: SeatMatch, index: int) -> dict[str, Any]:
        rules = load_game("xiangqi")
        now = time.monotonic()
        href = f"{self.url}/arena/matches/{match.match_id}/seats/{index}"
        turn = rules.to_move(match.state)
        finished = match.status == "finished"
        if match.status == "starting":
            remain = max(0, int((match.start_at - now) * 1000))
        elif finished:
            remain = 0
        else:
            remain = max(0, int((match.beat_started + match.beat_ms / 1000 - now) * 1000))
        poll = min(self.poll_ms, remain // 2) if remain > 0 else 50
        acting = match.status == "running" and turn == index and remain > 0
        legal = rules.legal_actions(match.state) if acting else []
        data: dict[str, Any] = {
            "round": match.round,
            "legal": legal,
            "schema": {"example": legal[0] if legal else {"from": [0, 0], "to": [0, 0]}},
            "summary": {
                "you": index, "side": SIDES[index], "turn": turn,
                "yourTurn": not finished and turn == index, "phase": "done" if finished else "move",
                "board": fen_board(rules.notation(match.state)), "lastEvent": match.last_event,
            },
        }
        if not self.seat_lists_legal:
            del data["legal"]
        if not finished and index in match.pending:
            data["pending"] = match.pending[index]
        return {
            "status": match.status, "remainMs": remain, "pollAfterMs": max(1, poll),
            "next": None if finished else ({"rel": "act", "method": "POST", "href": href} if acting
                                           else {"rel": "poll", "method": "GET", "href": href}),
            "data": data,
            "result": ({"ranks": match.ranks, "line": match.finish_line,
                        **({"error": match.error} if match.error else {})} if finished else None),
        }


class _App:
    """The emulator's ASGI application: routes requests, applying scheduled faults first.

    The engines and the stand-in run in the emulator's worker threads, so a
    slow stand-in never blocks the server's event loop.
    """

    def __init__(self, emulator: Emulator) -> None:
        self.emulator = emulator

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        emulator = self.emulator
        method, path = scope["method"], scope["path"]
        query = scope["query_string"].decode("latin-1")
        headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]}
        entry = LoggedRequest(method, path, -1, time.monotonic(), headers.get("user-agent", ""), query)
        with emulator._lock:
            emulator.log.append(entry)
        raw = b""
        message = await receive()  # the whole body: the server's bound has read it already
        if message["type"] == "http.request":
            raw = message.get("body", b"")
        fault = emulator.faults.take(path, method) if not path.startswith("/_admin") else None
        if fault is not None and await self._inject(fault, entry, scope, receive, send):
            return
        status, body, extra = await asyncio.get_running_loop().run_in_executor(
            emulator._workers, self._answer, method, path, query, raw, fault, entry)
        await _send(send, entry, status, body, extra)

    def _answer(self, method: str, path: str, query: str, raw: bytes, fault: Fault | None,
                entry: LoggedRequest) -> tuple[int, Any, dict[str, str]]:
        """The status, JSON body and extra headers of a request (in a worker thread)."""
        emulator = self.emulator
        body: Any = None
        try:
            if raw:
                try:
                    body = json.loads(raw)
                except ValueError:
                    raise HttpFailure(400, "the body is not JSON") from None
                if isinstance(body, dict):
                    entry.action = body.get("action", body.get("command"))
            if fault is not None and fault.kind == "illegal" and method == "POST" and "/seats/" in path:
                raise HttpFailure(422, "injected: command refused")
            if fault is not None and fault.kind == "illegal" and method == "POST":
                legal = []
                if isinstance(body, dict) and "state" in body:
                    payload = emulator.unsign(body["state"])
                    rules = load_game(payload["game"])
                    legal = rules.legal_actions(rules.state_from_json(payload["s"]))
                return 200, {"ok": False, "reason": "injected: action refused", "legalActions": legal}, {}
            reply = self._route(method, path, {k: v[-1] for k, v in parse_qs(query).items()}, body)
            if fault is not None and fault.kind == "drift" and reply.get("legalActions"):
                reply["legalActions"] = reply["legalActions"][:-1]  # as if the server's rules had changed
            return 200, reply, {}
        except HttpFailure as failure:
            return failure.status, failure.body, failure.headers
        except Exception as error:  # an emulator bug must answer, not hang the client
            return 500, {"ok": False, "error": f"emulator error: {type(error).__name__}: {error}"}, {}

    def _route(self, method: str, path: str, query: dict[str, str], body: Any) -> dict[str, Any]:
        emulator = self.emulator
        parts = [p for p in path.split("/") if p]
        if method == "GET" and parts == ["api", "games"]:
            return {"games": [{"slug": g, "name": g.title(), "initUrl": f"{emulator.url}/api/games/{g}/init",
                               "actionUrl": f"{emulator.url}/api/games/{g}/action"} for g in GAMEBOARD_GAMES]}
        if len(parts) == 4 and parts[:2] == ["api", "games"]:
            if method == "GET" and parts[3] == "init":
                return emulator.game_init(parts[2], query)
            if method == "POST" and parts[3] == "action":
                return emulator.game_action(parts[2], body)
        if method == "POST" and parts == ["arena", "xiangqi", "matches"]:
            body = body if isinstance(body, dict) else {}
            return emulator.create_match(body.get("seat", "red"), body.get("seed", 0),
                                         body.get("beatMs"), body.get("startMs"), body.get("maxRounds"))
        if len(parts) == 5 and parts[:2] == ["arena", "matches"] and parts[3] == "seats":
            if method == "GET":
                return emulator.seat_view(parts[2], parts[4])
            return emulator.seat_command(parts[2], parts[4], body)
        if method == "POST" and parts == ["_admin", "faults"] and emulator.fault_route:
            try:
                for fault in (body or {}).get("faults", []):
                    emulator.faults.add(**fault)
            except (TypeError, AttributeError, InvalidInput) as error:
                raise HttpFailure(400, f"bad fault: {error}") from None
            return {"ok": True, "pending": emulator.faults.pending()}
        raise HttpFailure(404, f"no route for {method} {path}")

    async def _inject(self, fault: Fault, entry: LoggedRequest, scope: dict[str, Any], receive: Any,
                      send: Any) -> bool:
        """Answer with a transport-level fault; False for faults that need the request body."""
        if fault.kind == "429":
            headers = {"Retry-After": f"{fault.retry_after:g}"} if fault.retry_after is not None else {}
            await _send(send, entry, 429, {"ok": False, "error": "rate limited"}, headers)
        elif fault.kind in ("500", "503"):  # as a proxy in front of a real server answers: HTML
            await _send_raw(send, entry, int(fault.kind), b"<html><body><h1>Service unavailable</h1></body></html>",
                            "text/html")
        elif fault.kind == "drop":
            await close_connection(scope, receive)
        elif fault.kind == "delay":
            await asyncio.sleep(fault.delay_s)
            return False
        elif fault.kind == "redirect":
            target = scope["path"] + (f"?{entry.query}" if entry.query else "")
            await _send(send, entry, 307, {"ok": False, "error": "moved"},
                        {"Location": "http://www.example.invalid" + target})
        elif fault.kind == "garbage":
            await _send_raw(send, entry, 200, b"<html>upstream error</html>", "text/html")
        elif fault.kind == "truncated":
            entry.status = 200
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json"), (b"content-length", b"400")]})
            await send({"type": "http.response.body", "body": b'{"state": "abc", "legalAct', "more_body": True})
            await close_connection(scope, receive)
        else:
            return False
        return True


async def _send(send: Any, entry: LoggedRequest, status: int, body: Any,
                headers: dict[str, str] | None = None) -> None:
    entry.refused = status == 422 or (status == 200 and isinstance(body, dict) and body.get("ok") is False)
    await _send_raw(send, entry, status, json.dumps(body, ensure_ascii=False).encode(), "application/json", headers)


async def _send_raw(send: Any, entry: LoggedRequest, status: int, data: bytes, content_type: str,
                    headers: dict[str, str] | None = None) -> None:
    entry.status = status
    fields = [(b"content-type", content_type.encode()), (b"content-length", str(len(data)).encode())]
    fields += [(name.lower().encode(), value.encode()) for name, value in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": fields})
    await send({"type": "http.response.body", "body": data})
