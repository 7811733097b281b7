"""Track a live game with the local engine, trusting what the server lists and learning what it shows.

The shape of a live server's state and observation is not published, so the
local position is never read from them directly. Instead the tracker keeps
every local position (a *candidate*) consistent with everything the server
has said:

- the game starts from the rules' initial position; the opponent's moves (and
  the user's forced passes) are expanded until it is the user's turn with a
  real choice, or the game is over;
- each server reply keeps only the candidates whose set of legal actions is
  exactly the set the server lists (order is not meaningful; extra fields of a
  server action are ignored), and that are over exactly when the server says
  ``gameOver``;
- the boards found in the reply's observation (and readable state) narrow
  further, under the layouts learned so far (:mod:`harness.live.observation`);
- after the user's action every candidate is advanced by it and expanded
  again through every opponent reply.

The tracker never stops a game. When it cannot be sure it says why, in
:attr:`Tracker.condition`, and the player votes over what is kept
(:func:`choose_over_candidates`), always among the server's legal actions:

- ``several``: more than one position fits;
- ``sampled``: more positions fit than can be kept; a seeded sample is kept;
- ``no_fit``: no position fits the reply exactly (the server's rules differ,
  or the true position was not in the sample); the candidates closest to it
  (most legal actions in common) are kept;
- ``lost``: no candidate is left at all; the server's legal actions alone are played.

A candidate whose user must pass matches a server listing either
``[{"type": "pass"}]`` or nothing (some servers resolve the pass, some list it).
An extra filter (the Chinese chess board of the seat protocol's summary) may be
``strict``: a mismatch is then counted as a warning and the filter dropped for that reply.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from harness.errors import TrackingError
from harness.games import Action, Rules, State
from harness.live.observation import LayoutLearner

if TYPE_CHECKING:
    from players import Limits, Player

PASS: Action = {"type": "pass"}

#: The candidates kept at once; beyond it a seeded sample is kept.
MAX_CANDIDATES = 512
#: Why a move was played without one sure position (counted in the match's counters).
CONDITIONS = ("several", "sampled", "no_fit", "lost")


def normalize(value: Any) -> Any:
    """Plain JSON with integral floats as ints and tuples as lists, for comparing actions."""
    if isinstance(value, dict):
        return {str(k): normalize(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [normalize(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def action_key(action: Any, fields: Iterable[str] | None = None) -> str:
    """A canonical text of an action; with ``fields`` only those keys are kept."""
    data = normalize(action)
    if fields is not None and isinstance(data, dict):
        wanted = set(fields)
        data = {k: v for k, v in data.items() if k in wanted}
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class Candidate:
    """One local position consistent with the server, and the plies that led to it."""

    state: State
    actions: tuple[Action, ...]
    legal: list[Action] | None = field(default=None, compare=False, repr=False)  # cached at the user's turn


class Tracker:
    """The set of local positions consistent with a live game so far.

    Args:
        rules: the local rules, with ``user_side`` the seat the server lets us play.
        max_candidates: a bound on the candidates kept at once (a seeded sample beyond it).
        start: the position the server's game starts from (the rules' initial one by default).
        rng: the source of the samples (injected so a game replays identically).

    Attributes:
        condition: None when exactly one position is possible, else why not (:data:`CONDITIONS`).
        warnings: counts of what did not fit (``layout``, ``board``), never fatal.
        notes: one line per warning, the latest last.
    """

    def __init__(self, rules: Rules, max_candidates: int = MAX_CANDIDATES, start: State | None = None,
                 rng: random.Random | None = None) -> None:
        self.rules = rules
        self.max_candidates = max_candidates
        self.rng = rng or random.Random(0)
        # the keys of the game's actions: extra keys in a server's action are ignored
        self.fields: set[str] = {key for action in rules.legal_actions(rules.initial_state()) for key in action}
        self.layouts = LayoutLearner(rules)
        self.ambiguous_steps = 0
        self.steps = 0
        self.widest = 0  # the most candidates kept after any reply
        self.condition: str | None = None
        self.warnings: Counter[str] = Counter()
        self.notes: list[str] = []
        self._sampled = False
        start = rules.initial_state() if start is None else start
        self.candidates: list[Candidate] = self._settle([Candidate(start, ())])

    # ---------------------------------------------------------------- narrowing

    def observe(self, legal: list[Any] | None, game_over: bool, *,
                extra: Callable[[State], bool] | Sequence[Callable[[State], bool]] | None = None,
                strict: bool = False, boards: dict[str, list[str]] | None = None,
                server_state: Any = None) -> list[Candidate]:
        """Keep the candidates that fit one server reply; never raises.

        Args:
            legal: the server's legal actions (any order; may be empty when over);
                None when the server did not list them (then only the end and
                the side to move, and the filters, narrow).
            game_over: whether the server says the game is over.
            extra: optional filters read from the reply (one or a sequence).
            strict: when True a filter that rejects every fitting candidate is
                a ``board`` warning; when False it is silently ignored then.
            boards: the reply's board sources (:func:`~harness.live.observation.reply_sources`),
                read under the learned layouts.
            server_state: unused; kept for callers that pass it.

        Returns:
            The remaining candidates (possibly empty when tracking is lost).
        """
        self.steps += 1
        wanted = None if legal is None else sorted(action_key(a, self.fields or None) for a in legal)
        extras = [] if extra is None else [extra] if callable(extra) else list(extra)
        pool = self.candidates
        if strict:  # a strict filter is cheap and decisive: first, so the legal actions are checked on few
            for check in extras:
                narrowed = [c for c in pool if check(c.state)]
                if narrowed and any(self._fits(c, wanted, game_over) for c in narrowed):
                    pool = narrowed
                elif pool:
                    self._warn("board", f"step {self.steps}: the server's board fits none of "
                                        f"{len(pool)} tracked position(s) that fit its reply")
        fitting = [c for c in pool if self._fits(c, wanted, game_over)]
        no_fit = not fitting
        if no_fit:
            fitting = self._closest(wanted, game_over)
        for check in extras if not strict else ():
            fitting = [c for c in fitting if check(c.state)] or fitting
        if boards:
            fitting = [fitting[i] for i in self.layouts.narrow([c.state for c in fitting], boards)]
            if self.layouts.warnings > self.warnings["layout"]:
                self._warn("layout", f"step {self.steps}: {self.layouts.last_warning}")
        self.candidates = fitting
        self.widest = max(self.widest, len(fitting))
        if not fitting:
            self.condition = "lost"
        elif no_fit:
            self.condition = "no_fit"
        elif self._sampled:
            self.condition = "sampled"
        elif len(self._distinct(fitting)) > 1:
            self.condition = "several"
        else:
            self.condition = None
        if self.condition is not None:
            self.ambiguous_steps += 1
        return fitting

    def play(self, action: Action, server_state: Any = None) -> None:
        """Advance every candidate in which ``action`` is legal, and expand the replies.

        A candidate in which it is not legal is dropped; none left means tracking is lost.
        """
        advanced = []
        for candidate in self.candidates:
            try:
                state = self.rules.apply(candidate.state, action)
            except ValueError:
                continue
            advanced.append(Candidate(state, candidate.actions + (action,)))
        self.candidates = self._settle(advanced)

    def matching_server_action(self, action: Action, server_legal: list[Any]) -> Any:
        """The server's own item for a local action, to send back unchanged."""
        key = action_key(action, self.fields or None)
        for item in server_legal:
            if action_key(item, self.fields or None) == key:
                return item
        return action

    # ------------------------------------------------------------------ helpers

    @property
    def best(self) -> Candidate | None:
        """The first candidate (a deterministic pick when several remain), None when lost."""
        return self.candidates[0] if self.candidates else None

    def is_ambiguous(self) -> bool:
        """Whether more than one distinct position is still possible."""
        return len(self._distinct(self.candidates)) > 1

    def _warn(self, kind: str, note: str) -> None:
        self.warnings[kind] += 1
        self.notes.append(note)
        del self.notes[:-20]

    def _local_keys(self, candidate: Candidate) -> list[str]:
        local = candidate.legal if candidate.legal is not None else self.rules.legal_actions(candidate.state)
        return sorted(action_key(a, self.fields) for a in local)

    def _fits(self, candidate: Candidate, wanted: list[str] | None, game_over: bool) -> bool:
        rules, state = self.rules, candidate.state
        if rules.is_terminal(state):
            return game_over
        if game_over or rules.to_move(state) != rules.user_side:
            return False
        if wanted is None:  # the server did not list the legal actions this time
            return True
        keys = self._local_keys(candidate)
        if keys == wanted:
            return True
        # a forced pass: the server may list it or list nothing
        return wanted == [] and keys == [action_key(PASS, self.fields)]

    def _closest(self, wanted: list[str] | None, game_over: bool) -> list[Candidate]:
        """The candidates sharing the most legal actions with the reply (and its end), when none fits."""
        if not self.candidates:
            return []
        wanted_set = set(wanted or [])

        def closeness(candidate: Candidate) -> tuple[int, float]:
            over = self.rules.is_terminal(candidate.state)
            local = set() if over else set(self._local_keys(candidate))
            union = len(local | wanted_set) or 1
            return (int(over == game_over), len(local & wanted_set) / union)

        scored = [(closeness(c), c) for c in self.candidates]
        top = max(score for score, _ in scored)
        return [c for score, c in scored if score == top]

    def _settle(self, candidates: list[Candidate]) -> list[Candidate]:
        """Expand opponent moves and forced passes until each line reaches the user's
        choice or the end; keep the user's forced-pass positions too. Beyond
        ``max_candidates`` a seeded sample is kept (and the next condition says so)."""
        rules = self.rules
        done: dict[str, Candidate] = {}
        frontier = list(candidates)
        self._sampled = False
        while frontier:
            next_frontier = []
            for candidate in frontier:
                state = candidate.state
                if rules.is_terminal(state):
                    done.setdefault(self._key(state), candidate)
                    continue
                legal = rules.legal_actions(state)
                if rules.to_move(state) == rules.user_side:
                    done.setdefault(self._key(state), replace(candidate, legal=legal))
                    if not (len(legal) == 1 and action_key(legal[0]) == action_key(PASS)):
                        continue
                for action in legal:
                    next_frontier.append(Candidate(rules.apply(state, action),
                                                   candidate.actions + (action,)))
            if len(next_frontier) > self.max_candidates:
                next_frontier = self.rng.sample(next_frontier, self.max_candidates)
                self._sampled = True
            frontier = next_frontier
        kept = list(done.values())
        if len(kept) > self.max_candidates:
            kept = self.rng.sample(kept, self.max_candidates)
            self._sampled = True
        return kept

    def _key(self, state: State) -> str:
        return json.dumps(self.rules.state_to_json(state), sort_keys=True, default=str)

    def _distinct(self, candidates: list[Candidate]) -> set[str]:
        return {self.rules.notation(c.state) for c in candidates}


def choose_over_candidates(player: Player, rules: Rules, candidates: list[Candidate], limits: Limits | None = None,
                           max_evaluated: int = 8, allowed: Sequence[Action] | None = None,
                           rng: random.Random | None = None, fields: Iterable[str] | None = None) -> Action:
    """The player's action when one, several or no positions are possible.

    With one candidate this is ``player.choose``. With several, each of up to
    ``max_evaluated`` of them (a seeded sample when there are more) is
    searched and the action most of them pick wins; ties go to the first
    action in the rules' order. A time limit is split between the searches.
    With ``allowed`` (the server's legal actions, less any it refused) only
    those actions count; when no vote lands on one, the first allowed action
    legal in a candidate is taken, and with no candidate at all a seeded
    choice among ``allowed``.

    Returns:
        An action (in local form when a candidate knows it, else the server's item).
    """
    rng = rng or random.Random(0)
    fields = list(fields) if fields is not None else None
    allowed_keys = None if allowed is None else {action_key(a, fields): a for a in allowed}
    if not candidates:
        if not allowed_keys:
            raise TrackingError("no candidate and no allowed action to choose from")
        return allowed_keys[rng.choice(sorted(allowed_keys))]
    chosen = candidates if len(candidates) <= max_evaluated else rng.sample(candidates, max_evaluated)
    if len(chosen) > 1 and limits is not None and getattr(limits, "time", None):
        limits = replace(limits, time=limits.time / len(chosen))
    votes: Counter[str] = Counter()
    actions: dict[str, Action] = {}
    for candidate in chosen:
        action = player.choose(rules, candidate.state, limits)
        key = action_key(action, fields)
        if allowed_keys is not None and key not in allowed_keys:
            continue
        votes[key] += 1
        actions[key] = action
    if votes:
        top = max(votes.values())
        return min((actions[k] for k, v in votes.items() if v == top), key=rules.action_sort_key)
    for candidate in chosen:
        legal = candidate.legal if candidate.legal is not None else \
            ([] if rules.is_terminal(candidate.state) else rules.legal_actions(candidate.state))
        for action in sorted(legal, key=rules.action_sort_key):
            if allowed_keys is None or action_key(action, fields) in allowed_keys:
                return action
    if not allowed_keys:
        raise TrackingError("no action is legal in the candidates")
    return allowed_keys[rng.choice(sorted(allowed_keys))]
