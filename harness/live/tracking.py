"""Track a live game with the local engine, trusting only the legal actions the server lists.

The shape of a live server's state and observation is not published, so the
local position is never read from them. Instead the tracker keeps every local
position (a *candidate*) consistent with everything the server has said:

- the game starts from the rules' initial position; the opponent's moves (and
  the user's forced passes) are expanded until it is the user's turn with a
  real choice, or the game is over;
- each server reply keeps only the candidates whose set of legal actions is
  exactly the set the server lists (order is not meaningful; extra fields of a
  server action are ignored), and that are over exactly when the server says
  ``gameOver``;
- after the user's action every candidate is advanced by it and expanded
  again through every opponent reply.

A forced pass may leave several candidates until a later reply tells them
apart; while several remain at the user's turn they all have the same legal
actions, so :func:`choose_over_candidates` lets the player choose by voting
over them. A candidate whose user must pass matches a server listing either
``[{"type": "pass"}]`` or nothing (some servers resolve the pass, some list it).

An observation is used only as an extra filter where it can be read without
guessing (the Chinese chess board in the seat protocol's summary); a filter
may be ``strict`` (a mismatch is a tracking error) or only narrowing (ignored
when it would leave no candidate). When no candidate fits, the tracker raises
:class:`~harness.errors.TrackingError`: this is how a rules change on the
server is noticed.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Sequence

from harness.errors import TrackingError
from harness.games import Action, Rules, State

PASS: Action = {"type": "pass"}

#: More candidates than this at once means the server says too little to track the game.
MAX_CANDIDATES = 512


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
        max_candidates: a bound on the candidates kept at once.
        start: the position the server's game starts from (the rules' initial one by default).
    """

    def __init__(self, rules: Rules, max_candidates: int = MAX_CANDIDATES, start: State | None = None) -> None:
        self.rules = rules
        self.max_candidates = max_candidates
        # the keys of the game's actions: extra keys in a server's action are ignored
        self.fields: set[str] = {key for action in rules.legal_actions(rules.initial_state()) for key in action}
        self.ambiguous_steps = 0
        self.steps = 0
        start = rules.initial_state() if start is None else start
        self.candidates: list[Candidate] = self._settle([Candidate(start, ())])

    # ---------------------------------------------------------------- narrowing

    def observe(self, legal: list[Any] | None, game_over: bool, *,
                extra: Callable[[State], bool] | Sequence[Callable[[State], bool]] | None = None,
                strict: bool = False,
                server_state: Any = None) -> list[Candidate]:
        """Keep the candidates that fit one server reply.

        Args:
            legal: the server's legal actions (any order; may be empty when over);
                None when the server did not list them (then only the end and
                the side to move, and the filters, narrow).
            game_over: whether the server says the game is over.
            extra: optional filters read from the observation (one or a sequence).
            strict: when False, each filter only narrows: it is ignored if it
                would leave no candidate.
            server_state: the server's state, stored in a TrackingError.

        Returns:
            The remaining candidates.

        Raises:
            TrackingError: no candidate fits the reply.
        """
        self.steps += 1
        wanted = None if legal is None else sorted(action_key(a, self.fields or None) for a in legal)
        extras = [] if extra is None else [extra] if callable(extra) else list(extra)
        kept = self.candidates
        for extra in (extras if strict else ()):  # cheap and decisive: filter first
            kept = [c for c in kept if extra(c.state)]
            if not kept:
                raise TrackingError(
                    f"{self.rules.spec}: no tracked position matches the server's board after "
                    f"{self.steps - 1} steps; the server's rules may differ from ours",
                    server_state=server_state)
        narrowed = kept
        for narrowing in (extras if not strict else ()):  # a narrowing filter is ignored if it empties
            narrowed = [c for c in narrowed if narrowing(c.state)] or narrowed
        fitting = [c for c in narrowed if self._fits(c, wanted, game_over)] if narrowed is not kept else []
        if not fitting:  # no narrowing, or what it kept does not fit: the legal actions decide alone
            fitting = [c for c in kept if self._fits(c, wanted, game_over)]
        if not fitting:
            raise TrackingError(self._explain(wanted, game_over), server_state=server_state)
        kept = fitting
        self.candidates = kept
        if len(self._distinct(kept)) > 1:
            self.ambiguous_steps += 1
        return kept

    def play(self, action: Action, server_state: Any = None) -> None:
        """Advance every candidate by the user's ``action`` and expand the replies.

        Raises:
            TrackingError: the action is not legal in any candidate.
        """
        advanced = []
        for candidate in self.candidates:
            try:
                state = self.rules.apply(candidate.state, action)
            except ValueError:
                continue
            advanced.append(Candidate(state, candidate.actions + (action,)))
        if not advanced:
            raise TrackingError(f"{self.rules.spec}: our action {action!r} is legal in no tracked "
                                f"position", server_state=server_state)
        self.candidates = self._settle(advanced, server_state)

    def matching_server_action(self, action: Action, server_legal: list[Any]) -> Any:
        """The server's own item for a local action, to send back unchanged."""
        key = action_key(action, self.fields or None)
        for item in server_legal:
            if action_key(item, self.fields or None) == key:
                return item
        return action

    # ------------------------------------------------------------------ helpers

    @property
    def best(self) -> Candidate:
        """The first candidate (a deterministic pick when several remain)."""
        return self.candidates[0]

    def is_ambiguous(self) -> bool:
        """Whether more than one distinct position is still possible."""
        return len(self._distinct(self.candidates)) > 1

    def _fits(self, candidate: Candidate, wanted: list[str] | None, game_over: bool) -> bool:
        rules, state = self.rules, candidate.state
        if rules.is_terminal(state):
            return game_over
        if game_over or rules.to_move(state) != rules.user_side:
            return False
        if wanted is None:  # the server did not list the legal actions this time
            return True
        local = candidate.legal if candidate.legal is not None else rules.legal_actions(state)
        if len(local) != len(wanted):
            return len(local) == 1 and wanted == [] and action_key(local[0]) == action_key(PASS)
        keys = sorted(action_key(a, self.fields) for a in local)
        if keys == wanted:
            return True
        # a forced pass: the server may list it or list nothing
        return len(local) == 1 and action_key(local[0]) == action_key(PASS) and wanted == []

    def _settle(self, candidates: list[Candidate], server_state: Any = None) -> list[Candidate]:
        """Expand opponent moves and forced passes until each line reaches the user's
        choice or the end; keep the user's forced-pass positions too."""
        rules = self.rules
        done: dict[str, Candidate] = {}
        frontier = list(candidates)
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
            frontier = next_frontier
            if len(done) > self.max_candidates:
                raise TrackingError(
                    f"{rules.spec}: more than {self.max_candidates} positions fit the server's replies; "
                    f"it says too little to track this game", server_state=server_state)
        return list(done.values())

    def _key(self, state: State) -> str:
        return json.dumps(self.rules.state_to_json(state), sort_keys=True, default=str)

    def _distinct(self, candidates: list[Candidate]) -> set[str]:
        return {self.rules.notation(c.state) for c in candidates}

    def _explain(self, wanted: list[str] | None, game_over: bool) -> str:
        wanted = wanted or []
        sample = self.candidates[0].state if self.candidates else None
        local = [] if sample is None or self.rules.is_terminal(sample) else \
            sorted(action_key(a, self.fields or None) for a in self.rules.legal_actions(sample))
        missing = sorted(set(wanted) - set(local))[:3]
        extra = sorted(set(local) - set(wanted))[:3]
        return (f"{self.rules.spec}: no local position fits the server's reply after "
                f"{self.steps - 1} steps ({len(self.candidates)} candidate(s); server "
                f"gameOver={game_over}, {len(wanted)} legal actions; e.g. server-only {missing}, "
                f"local-only {extra}); the server's rules may differ from ours")


def choose_over_candidates(player: Any, rules: Rules, candidates: list[Candidate], limits: Any = None,
                           max_evaluated: int = 8) -> Action:
    """The player's action when one or several positions are possible.

    With one candidate this is just ``player.choose``. With several (all with
    the same legal actions) each of up to ``max_evaluated`` candidates is
    searched and the action most of them pick wins; ties go to the first
    action in the rules' order. A time limit is split between the searches.

    Returns:
        An action legal in every candidate.
    """
    if len(candidates) == 1:
        return player.choose(rules, candidates[0].state, limits)
    chosen = candidates[:max_evaluated]
    if limits is not None and getattr(limits, "time", None):
        limits = replace(limits, time=limits.time / len(chosen))
    votes: Counter[str] = Counter()
    actions: dict[str, Action] = {}
    for candidate in chosen:
        action = player.choose(rules, candidate.state, limits)
        key = action_key(action)
        votes[key] += 1
        actions[key] = action
    top = max(votes.values())
    best = [actions[k] for k, v in votes.items() if v == top]
    return min(best, key=rules.action_sort_key)
