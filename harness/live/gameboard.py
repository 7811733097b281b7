"""The Gameboard Agent API client: the stateless init/action loop.

Read from the site's published API docs::

    GET  {base}/api/games/{slug}/init?seed=N  -> {state, observation, legalActions, spec, score, gameOver}
    POST {base}/api/games/{slug}/action  {state, action}  -> the next {state, ...}
    an illegal action -> HTTP 200 {ok: false, reason, legalActions}

Assumed, because nothing published says otherwise: extra query parameters of
``init`` (a Totality ``level``) are passed through as given; ``state`` is an
opaque value sent back unchanged; an ``ok: false`` reply may or may not carry
a state (the last good one is kept either way); field names are read
tolerantly (``legalActions`` or ``legal_actions``, ``gameOver`` or
``game_over`` or ``done``) and unknown fields are ignored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from harness.errors import ProtocolError
from harness.games import kit, names
from harness.live.http import HttpClient, check_url

DEFAULT_BASE_URL = "https://gameboard.gg"


def gameboard_slugs() -> dict[str, str]:
    """Games served by the Gameboard stateless loop, local game name -> slug (each game kit's)."""
    return {name: slug for name in names() if (slug := kit(name).gameboard_slug) is not None}


@dataclass(frozen=True)
class ServerReply:
    """One reply of the Gameboard API, read tolerantly.

    ``ok`` is False for a rejected (illegal) action; then ``state`` is the
    reply's state if it sent one, else None.
    """

    ok: bool
    state: Any
    legal_actions: list[Any]
    game_over: bool
    score: float | None
    observation: Any = None
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """What is stored of a reply in a live game's transcript (the bulky ``spec`` is not)."""
        return {"ok": self.ok, "state": self.state, "legalActions": self.legal_actions,
                "gameOver": self.game_over, "score": self.score, "observation": self.observation,
                "reason": self.reason}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ServerReply:
        return read_reply(data, "stored reply")


def _first(data: dict[str, Any], *names: str, default: Any = None) -> Any:
    for name in names:
        if name in data:
            return data[name]
    return default


def read_reply(data: dict[str, Any], where: str) -> ServerReply:
    """Read one reply object.

    Raises:
        ProtocolError: a good reply without a state, or legal actions that are not a list.
    """
    ok = _first(data, "ok", default=True) is not False
    legal = _first(data, "legalActions", "legal_actions", "legal", default=[])
    if legal is None:
        legal = []
    if not isinstance(legal, list):
        raise ProtocolError(f"{where}: legalActions is not a list: {legal!r:.120}")
    state = _first(data, "state")
    if ok and state is None:
        raise ProtocolError(f"{where}: the reply has no state (keys: {', '.join(sorted(data))})")
    score = _first(data, "score")
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        score = None
    return ServerReply(ok=ok, state=state, legal_actions=legal,
                       game_over=bool(_first(data, "gameOver", "game_over", "done", default=False)),
                       score=score, observation=_first(data, "observation"),
                       reason=None if ok else str(_first(data, "reason", "error", default="")))


@dataclass
class GameboardClient:
    """One game's endpoints on a Gameboard server, over the shared choke point.

    Args:
        http: the request choke point (rate limit, retries).
        slug: the game's slug (``ravenward``, ``totality``).
        base_url: the server, ``https://gameboard.gg`` by default.
    """

    http: HttpClient
    slug: str
    base_url: str = DEFAULT_BASE_URL
    illegal_replies: int = field(default=0)

    def __post_init__(self) -> None:
        check_url(self.base_url, "the base URL")
        self.base_url = self.base_url.rstrip("/")

    @property
    def init_url(self) -> str:
        return f"{self.base_url}/api/games/{quote(self.slug)}/init"

    @property
    def action_url(self) -> str:
        return f"{self.base_url}/api/games/{quote(self.slug)}/action"

    def init(self, seed: int, params: dict[str, Any] | None = None) -> ServerReply:
        """Start a game: ``GET init?seed=N`` plus any extra query parameters."""
        query = {"seed": int(seed), **{k: v for k, v in (params or {}).items() if v is not None}}
        reply = read_reply(self.http.get(self.init_url, params=query), f"GET {self.init_url}")
        if not reply.ok:
            raise ProtocolError(f"GET {self.init_url}: the server refused to start a game: {reply.reason}")
        return reply

    def act(self, state: Any, action: Any) -> ServerReply:
        """Send one action with the last state; an ``ok: false`` reply is returned, and counted."""
        reply = read_reply(self.http.post(self.action_url, {"state": state, "action": action}),
                           f"POST {self.action_url}")
        if not reply.ok:
            self.illegal_replies += 1
        return reply
