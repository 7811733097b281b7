"""A UCI engine as a Chinese chess player: Fairy-Stockfish, Pikafish and their forks.

``uci:command=fairy-stockfish,nodes=20000,option.Hash=16`` runs the engine
without a shell, in a clean environment (``players.process``), and speaks the
Universal Chess Interface to it:

* handshake (within ``start_timeout`` seconds): ``uci`` until ``uciok``
  (the engine's options are read from its ``option name ...`` lines), then
  ``setoption name UCI_Variant value xiangqi`` when the engine has that option
  (Fairy-Stockfish; a xiangqi-only engine such as Pikafish has none), then
  every ``option.NAME=VALUE`` of the spec as ``setoption``, then ``isready``
  until ``readyok``;
* each match: ``ucinewgame`` and ``isready`` before its first move, so an
  engine reused across matches starts every match from cleared tables;
* each move: ``position fen <FEN> moves <m1> <m2> ...`` (the position where
  the player's history in this match starts, and the moves since, so the engine
  sees repetitions), ``go`` with the spec's ``depth``, ``nodes`` and
  ``movetime`` (ms; ``time`` in seconds is sent as movetime), then ``info``
  lines (depth, nodes, score kept for the match counters) until ``bestmove``.

Coordinates: files ``a``-``i`` are columns 0-8 (left to right as the board
is drawn, red at the bottom); ranks count from red's back rank, which is
row 9: ``1``-``10`` for Fairy-Stockfish (``a1`` is row 9, column 0; ``a10``
row 0) and ``0``-``9`` for Pikafish-style engines. ``ranks=auto`` (the
default) takes 1-10 when the engine has ``UCI_Variant``, else 0-9.

Failures cost the match and nothing else: an engine that cannot start, a
reply that does not come in time (the process is killed), a crash, a
``bestmove`` that is not a move or not legal here, or an option the engine does
not have raise ``PlayerError``. A failed engine is killed and never reused.

One engine process per worker process serves every match of the same
command and options: ``close()`` (at a match's end) hands the engine back to
an idle set, the next match takes it (``ucinewgame`` between). ``close_engines``
(registered with ``players.base.at_shutdown``, run when a worker pool closes,
and at exit) quits them all.

Readings where the harness's rules and UCI engines may differ: under
``pseudo`` legality a move that captures the other general is played without
asking the engine (the engine would see an impossible position), and a side
with no move the engine accepts (its general cannot escape) plays the first
legal action, as every move loses then.
"""

from __future__ import annotations

import atexit
import re
import time
from typing import Any

from harness.errors import NotationError, PlayerError, SpecError
from harness.games import Action, Rules, State
from players.base import Limits, Param, Player, at_shutdown, format_value
from players.process import EngineProcess, split_command

OPTION_PREFIX = "option."
VARIANT = "xiangqi"
MATE_CP = 100_000  # a mate in n is reported as +-(MATE_CP - n) centipawns
COLUMNS = "abcdefghi"
ROWS = 10
_MOVE = re.compile(r"^([a-i])(10|[0-9])([a-i])(10|[0-9])$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

# Idle engines of this process, by (argv, options, ranks); see the module docstring.
_IDLE: dict[tuple, list[UCIEngine]] = {}


def action_to_move(action: Action, first_rank: int) -> str:
    """The UCI move text of an action (``{"from": [9, 7], "to": [7, 6]}`` -> ``h1g3`` with ranks 1-10)."""
    def square(point: list[int]) -> str:
        return f"{COLUMNS[point[1]]}{ROWS - 1 - point[0] + first_rank}"
    return square(action["from"]) + square(action["to"])


def move_to_action(move: str, first_rank: int) -> Action:
    """The action of a UCI move text; the inverse of ``action_to_move``.

    Raises:
        NotationError: not a move on the 9x10 board in this rank numbering.
    """
    found = _MOVE.match(move)
    if found is None:
        raise NotationError(f"{move!r} is not a move of the form <file a-i><rank><file><rank>")
    points = []
    for file, rank in (found.group(1, 2), found.group(3, 4)):
        row = ROWS - 1 - (int(rank) - first_rank)
        if not 0 <= row < ROWS:
            raise NotationError(f"{move!r} has rank {rank}, outside {first_rank}-{first_rank + ROWS - 1}")
        points.append([row, COLUMNS.index(file)])
    return {"from": points[0], "to": points[1]}


class UCIEngine:
    """One running UCI engine after its handshake: options set, variant chosen.

    Raises:
        PlayerError: the engine failed the handshake (it is killed).
    """

    def __init__(self, argv: list[str], options: dict[str, str], ranks: str, timeout: float) -> None:
        self.key = (tuple(argv), tuple(sorted(options.items())), ranks)
        self.process = EngineProcess(argv)
        self.name = ""
        self.last = ""  # the line that ended the last wait (``bestmove ...``)
        self.info_lines: list[str] = []  # the ``info`` lines of the last search (a reader may want more of them)
        self.options: dict[str, str] = {}  # option name -> its ``option name ...`` line
        self.process.send("uci")
        for line in self._lines_until("uciok", timeout):
            if line.startswith("id name "):
                self.name = line[len("id name "):]
            elif line.startswith("option name "):
                name = line[len("option name "):].split(" type ")[0].strip()
                self.options[name] = line
        has_variant = "UCI_Variant" in self.options
        if has_variant:
            if f" var {VARIANT}" not in self.options["UCI_Variant"] + " ":
                self.process.fail(f"has UCI_Variant but no {VARIANT} variant")
            self.process.send(f"setoption name UCI_Variant value {VARIANT}")
        self.first_rank = {"1-10": 1, "0-9": 0}.get(ranks, 1 if has_variant else 0)
        lowered = {name.lower(): name for name in self.options}
        for name, value in options.items():
            if name.lower() not in lowered:
                known = ", ".join(sorted(self.options)) or "none"
                self.process.fail(f"has no option {name!r}; its options: {known}")
            self.process.send(f"setoption name {lowered[name.lower()]} value {value}")
        self.ready(timeout)

    @property
    def alive(self) -> bool:
        return self.process.alive

    def ready(self, timeout: float) -> None:
        """``isready`` and wait for ``readyok``."""
        self.process.send("isready")
        for _ in self._lines_until("readyok", timeout):
            pass

    def new_game(self, timeout: float) -> None:
        """``ucinewgame``: the engine forgets the last match (hash, history)."""
        self.process.send("ucinewgame")
        self.ready(timeout)

    def search(self, fen: str, moves: list[str], go: str, timeout: float) -> tuple[str, dict[str, int]]:
        """Send the position and ``go``; return the ``bestmove`` text and the last info values."""
        self.process.send(f"position fen {fen}" + (" moves " + " ".join(moves) if moves else ""))
        self.process.send(go)
        info: dict[str, int] = {}
        self.info_lines = [line for line in self._lines_until("bestmove", timeout, prefix=True)
                           if line.startswith("info ")]
        for line in self.info_lines:
            info.update(parse_info(line))
        return self.last.split()[1] if len(self.last.split()) > 1 else "", info

    def close(self) -> None:
        self.process.close(farewell="quit")

    def kill(self) -> None:
        self.process.kill()

    def _lines_until(self, word: str, timeout: float, prefix: bool = False) -> list[str]:
        """Every line up to the one that is ``word`` (or starts with it), within ``timeout``."""
        deadline = time.monotonic() + timeout
        lines = []
        while True:
            line = self.process.read_line(deadline - time.monotonic(), awaiting=word, stated=timeout).strip()
            if line == word or (prefix and line.split(" ", 1)[0] == word):
                self.last = line
                return lines
            lines.append(line)


def position_reader(command: str) -> UCIEngine:
    """One engine with one thread and a small table, for reading stored positions one at a time (the
    analysis scripts: ``scripts/judge_games.py``, ``scripts/fit_xiangqi_eval.py``,
    ``scripts/tactics/xiangqi.py``, and the tactics tests).

    Raises:
        SpecError: a command ``shlex`` cannot split.
        PlayerError: the engine failed the handshake.
        OSError: the command could not be started.
    """
    argv = split_command("uci", command, "fairy-stockfish")
    return UCIEngine(argv, {"Threads": "1", "Hash": "16"}, "auto", 30.0)


def parse_info(line: str) -> dict[str, int]:
    """Depth, nodes and score (centipawns; mates as +-(MATE_CP - n)) of one ``info`` line."""
    tokens = line.split()
    found: dict[str, int] = {}
    for index, token in enumerate(tokens[:-1]):
        try:
            if token in ("depth", "nodes"):
                found[token] = int(tokens[index + 1])
            elif token == "score" and index + 2 < len(tokens):
                kind, value = tokens[index + 1], int(tokens[index + 2])
                if kind == "cp":
                    found["score"] = value
                elif kind == "mate":
                    found["score"] = (MATE_CP - abs(value)) * (1 if value > 0 else -1)
        except ValueError:
            continue
    return found


def close_engines() -> None:
    """Quit every idle engine of this process."""
    engines = [engine for idle in _IDLE.values() for engine in idle]
    _IDLE.clear()
    for engine in engines:
        engine.close()


at_shutdown(close_engines)
atexit.register(close_engines)


class UCIPlayer(Player):
    """A UCI engine playing Chinese chess; see the module docstring for the protocol."""

    kind = "uci"
    GAMES = ("xiangqi",)
    RUNS_COMMAND = True
    PARAMS = {
        "command": Param(str, None, "the engine's program and arguments, split with shlex (no shell)"),
        "depth": Param(int, None, "go depth: plies", minimum=1),
        "nodes": Param(int, None, "go nodes: the node budget per move (deterministic with Threads=1)", minimum=1),
        "movetime": Param(int, None, "go movetime: milliseconds per move (live play)", minimum=1),
        "time": Param(float, None, "seconds per move, sent as go movetime (live play)", minimum=0.001),
        "timeout": Param(float, 60.0, "seconds each reply may take beyond movetime (a hang, not a slow search: "
                                          "a busy machine slows node-limited searches)", minimum=0.001),
        "start_timeout": Param(float, 30.0, "seconds the engine may take to start and answer uciok and "
                                            "readyok (engines load their networks then)", minimum=0.001),
        "ranks": Param(str, "auto", "rank numbering of the engine's moves: 1-10 (Fairy-Stockfish), "
                                    "0-9 (Pikafish) or auto", choices=("auto", "1-10", "0-9")),
    }

    def __init__(self, params: dict[str, Any] | None = None,
                 weights: dict[str, float] | None = None) -> None:
        params = dict(params or {})
        table = params.pop("options", None) or {}
        if not isinstance(table, dict):
            raise SpecError("player 'uci': options must be a table of NAME = value")
        options = {str(name): value for name, value in table.items()}
        for key in [key for key in params if key.startswith(OPTION_PREFIX)]:
            options[key[len(OPTION_PREFIX):]] = params.pop(key)
        super().__init__(params, weights)
        self.options = {name.strip(): option_text(name, value) for name, value in options.items()}
        self.argv = split_command(self.kind, self.params["command"], "uci:command=fairy-stockfish,nodes=20000")
        if self.params["movetime"] is not None and self.params["time"] is not None:
            raise SpecError("player 'uci': give one of movetime (ms) and time (s), not both")
        if all(self.params[name] is None for name in ("depth", "nodes", "movetime", "time")):
            raise SpecError("player 'uci' needs a limit: depth, nodes, movetime (ms) or time (s), "
                            "e.g. uci:command=fairy-stockfish,nodes=20000")
        self.engine: UCIEngine | None = None
        self.stats_: dict[str, int] = {}
        self.fresh = True
        self.root: str | None = None
        self.moves: list[str] = []
        self.expected: State | None = None

    @property
    def spec(self) -> str:
        """The base spec, then ``option.NAME=VALUE`` sorted by name."""
        text = super().spec
        extra = ",".join(f"{OPTION_PREFIX}{name}={format_value(value)}" for name, value in sorted(self.options.items()))
        return text if not extra else text + ("," if ":" in text else ":") + extra

    def reset(self, seed: int) -> None:
        super().reset(seed)
        self.fresh = True
        self.root, self.moves, self.expected = None, [], None
        self.stats_ = {}

    def stats(self) -> dict[str, int]:
        """This match's engine figures: moves searched, nodes and depth summed, the last score."""
        return dict(self.stats_)

    def go_command(self, limits: Limits | None = None) -> tuple[str, float]:
        """The ``go`` line for these limits and the seconds the search itself may take."""
        bounds = self.limits().merged(limits)
        movetime = self.params["movetime"]
        if limits is not None and limits.time is not None or movetime is None and bounds.time is not None:
            movetime = max(1, round(bounds.time * 1000))  # a time given for this move wins
        parts = ["go"]
        if bounds.depth is not None:
            parts += ["depth", str(bounds.depth)]
        if bounds.nodes is not None:
            parts += ["nodes", str(bounds.nodes)]
        if movetime is not None:
            parts += ["movetime", str(movetime)]
        return " ".join(parts), (movetime or 0) / 1000

    def choose(self, rules: Rules, state: State, limits: Limits | None = None) -> Action:
        if rules.name not in self.GAMES:
            raise SpecError(f"player 'uci' plays {', '.join(self.GAMES)}, not {rules.name}")
        legal = rules.legal_actions(state)
        capture = general_capture(rules, state, legal)
        if capture is not None:  # the engine would see an impossible position: take the general
            self.expected = None
            return capture
        engine = self._engine()
        self._follow(rules, state)
        go, search_s = self.go_command(limits)
        try:
            text, info = engine.search(self.root, self.moves, go, self.params["timeout"] + search_s)
        except PlayerError:
            self.engine = None
            raise
        self.stats_["uci_moves"] = self.stats_.get("uci_moves", 0) + 1
        self.stats_["uci_nodes"] = self.stats_.get("uci_nodes", 0) + info.get("nodes", 0)
        self.stats_["uci_depth"] = self.stats_.get("uci_depth", 0) + info.get("depth", 0)
        if "score" in info:
            self.stats_["uci_score_cp"] = info["score"]
        if text in ("(none)", "0000") and getattr(rules, "pseudo", False):
            self.expected = None  # every move loses: the first legal one
            return legal[0]
        try:
            action = move_to_action(text, engine.first_rank)
        except ValueError as error:
            self._discard()
            raise PlayerError(f"engine {self.argv[0]!r} sent {engine.last!r}: {error}") from None
        if action not in legal:
            self._discard()
            raise PlayerError(f"engine {self.argv[0]!r} sent bestmove {text} ({action}), which is not one "
                              f"of the {len(legal)} legal moves in {rules.to_fen(state)}")
        return self._played(rules, state, action)

    def read_score(self, rules: Rules, actions: list[Action]) -> int | None:
        """The engine's score of the position ``actions`` reach from the start, for its side to move.

        Centipawns in the engine's own units, a mate as +-(MATE_CP - n);
        None when the engine gives no score. The engine is sent the start and
        every move (it sees repetitions, as the position's key does) after
        ``ucinewgame``, so with one thread and a node or depth limit the
        reading is a function of the position and the spec alone, not of the
        positions read before it (a fit's labels, ``harness.fitting.labels``).

        Raises:
            PlayerError: the engine failed or sent nothing in time (it is not reused).
        """
        state = rules.initial_state()
        for action in actions:
            state = rules.apply(state, action)
        if general_capture(rules, state, rules.legal_actions(state)) is not None:
            return MATE_CP - 1  # the side to move takes the general: the engine would see an impossible position
        self.fresh = True  # each reading after ucinewgame (see above)
        engine = self._engine()
        moves = [action_to_move(action, engine.first_rank) for action in actions]
        go, search_s = self.go_command()
        try:
            _text, info = engine.search(rules.to_fen(rules.initial_state()), moves, go,
                                        self.params["timeout"] + search_s)
        except PlayerError:
            self.engine = None
            raise
        return info.get("score")

    def close(self) -> None:
        """Hand a healthy engine back to this process's idle engines (see ``close_engines``)."""
        engine, self.engine = self.engine, None
        if engine is not None:
            if engine.alive:
                _IDLE.setdefault(engine.key, []).append(engine)
            else:
                engine.kill()

    def _engine(self) -> UCIEngine:
        """This match's engine: an idle one of the same command and options, or a new one."""
        timeout = self.params["timeout"]
        try:
            if self.engine is None:
                key = (tuple(self.argv), tuple(sorted(self.options.items())), self.params["ranks"])
                idle = []
                for engine in _IDLE.get(key, []):
                    if engine.alive:
                        idle.append(engine)
                    else:
                        engine.kill()  # it died while idle: reap it
                _IDLE[key] = idle
                self.engine = idle.pop() if idle else UCIEngine(self.argv, self.options, self.params["ranks"],
                                                                self.params["start_timeout"])
                self.fresh = True
            if self.fresh:
                self.engine.new_game(timeout)
                self.fresh = False
        except PlayerError:
            self.engine = None
            raise
        return self.engine

    def _follow(self, rules: Rules, state: State) -> None:
        """Extend the move list by the opponent's reply, or start it afresh at ``state``."""
        if self.expected is not None and self.root is not None:
            for action in rules.legal_actions(self.expected):
                if rules.apply(self.expected, action) == state:
                    self.moves.append(action_to_move(action, self.engine.first_rank))
                    return
        self.root, self.moves = rules.to_fen(state), []

    def _played(self, rules: Rules, state: State, action: Action) -> Action:
        if self.root is not None and self.engine is not None:
            self.moves.append(action_to_move(action, self.engine.first_rank))
            self.expected = rules.apply(state, action)
        return action

    def _discard(self) -> None:
        """Kill an engine that misbehaved, so no other match gets it."""
        engine, self.engine = self.engine, None
        if engine is not None:
            engine.kill()

    def __del__(self) -> None:
        if getattr(self, "engine", None) is not None:
            self.close()


def general_capture(rules: Rules, state: State, legal: list[Action]) -> Action | None:
    """Under ``pseudo`` legality, an action of ``legal`` that captures a general (no UCI engine has such positions)."""
    if getattr(rules, "pseudo", False):
        for action in legal:
            if state.cells[action["to"][0] * 9 + action["to"][1]] & 7 == 1:
                return action
    return None


def option_text(name: Any, value: Any) -> str:
    """An option's value as UCI text (``true``/``false``, integral floats without ``.0``).

    Raises:
        SpecError: an empty name, or a control character (a line break would be a new command).
    """
    text = value if isinstance(value, str) else format_value(value)
    if not str(name).strip() or _CONTROL.search(str(name) + text):
        raise SpecError(f"player 'uci': option {name!r}={value!r} is not valid; names and values are one "
                        "line of text, e.g. option.Hash=16")
    return text
