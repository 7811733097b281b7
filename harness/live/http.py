"""The one choke point for every live HTTP request: retries, backoff, rate limit, errors.

Every request of both live clients goes through :meth:`HttpClient.request`.
It waits for the client-side rate limiter, sends, and classifies the answer:

- 2xx with a JSON object body: returned.
- 429 and 5xx: retried with exponential backoff and full jitter, honouring a
  ``Retry-After`` header (seconds or an HTTP date), under a total time bound.
- timeouts, dropped connections, connection refused: retried the same way
  (the Gameboard API is stateless and seeded, so resending the same
  ``{state, action}`` is safe). Each retry is announced in one line
  (``notify``, stderr by default): the reason, the attempt, the next wait.
- a body that is not a JSON object (garbage, truncated): retried a bounded
  number of times, then :class:`~harness.errors.ProtocolError`.
- any other 4xx: final, never retried: :class:`~harness.errors.ProtocolError`.
- a redirect answering a POST: never followed (it may turn into a GET):
  :class:`~harness.errors.ProtocolError` naming the new location.

When the retry budget is spent the error is a
:class:`~harness.errors.TransportError`. Lower-level httpx errors are always
translated with ``raise ... from``, so nothing of httpx leaks to callers.
"""

from __future__ import annotations

import email.utils
import json
import random
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol
from urllib.parse import urlsplit

import httpx

from harness import __version__
from harness.errors import InvalidInput, ProtocolError, TransportError

USER_AGENT = f"boardgame-harness/{__version__} (+automated board-game bot; python-httpx/{httpx.__version__})"

#: Default client-side rate: well under one request per second per game.
DEFAULT_RATE = 0.5


def check_url(url: str, parameter: str = "url") -> str:
    """``url`` if it is an http(s) address; refused at once otherwise (no retry could help).

    Raises:
        InvalidInput: the URL has no ``http://`` or ``https://`` scheme.
    """
    if not isinstance(url, str) or not url.startswith(("http://", "https://")) or len(url.split("://", 1)[1]) == 0:
        raise InvalidInput(f"{parameter} must start with http:// or https://, got {url!r} "
                           f"(e.g. http://127.0.0.1:8765)", parameters=(parameter,) if parameter.isidentifier() else ())
    return url


def announce(line: str) -> None:
    """The default retry notice: one line on stderr."""
    print(f"harness: {line}", file=sys.stderr, flush=True)


class Limiter(Protocol):
    """Anything with a blocking ``acquire()``: the local limiter or the pool's shared one."""

    def acquire(self) -> None: ...


class RateLimiter:
    """At most ``rate`` requests per second from this process, evenly spaced.

    Thread-safe. The Ray pool's ``rate_limiter(rate)`` has the same
    ``acquire()`` and is shared by every worker.

    Raises:
        InvalidInput: ``rate`` is not a positive number.
    """

    def __init__(self, rate: float = DEFAULT_RATE) -> None:
        if not rate > 0:
            raise InvalidInput(f"rate must be a positive number of requests per second, got {rate!r}")
        self.interval = 1.0 / float(rate)
        self._next = 0.0
        self._lock = threading.Lock()

    def acquire(self) -> None:
        """Block until the next request may be sent."""
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            time.sleep(start - now)


class RefusedRequest(ProtocolError):
    """A final 4xx answer: never retried. ``status`` and ``body`` (JSON or None) are kept."""

    def __init__(self, message: str, status: int, body: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = body


@dataclass(frozen=True)
class RetryPolicy:
    """How long and how often one request may be retried.

    Attributes:
        total_s: the total time bound of one request, retries and waits included.
        base_s: first backoff; doubled on every retry, capped at ``cap_s``, fully jittered.
        cap_s: the largest single backoff (a longer ``Retry-After`` is still honoured
            while it fits in ``total_s``).
        malformed_retries: how many times a non-JSON body is retried before
            a ProtocolError.
        connect_s: connect timeout; read_s: read timeout (G-Bot's minimax runs
            inside the POST, so it is generous).
    """

    total_s: float = 300.0
    base_s: float = 1.0
    cap_s: float = 60.0
    malformed_retries: int = 3
    connect_s: float = 10.0
    read_s: float = 120.0


@dataclass
class RequestStats:
    """Counters of what the choke point met, for the summary and the record."""

    requests: int = 0
    retries: int = 0
    throttled: int = 0
    server_errors: int = 0
    transport_errors: int = 0
    malformed: int = 0
    waited_s: float = 0.0

    def to_dict(self) -> dict[str, float]:
        return dict(self.__dict__)


@dataclass
class HttpClient:
    """A small synchronous JSON client with one request choke point.

    Args:
        limiter: blocks before every request (retries included); by default a
            local :class:`RateLimiter` at :data:`DEFAULT_RATE`.
        policy: retry and timeout bounds.
        rng: jitter source (injected so tests are repeatable).
        notify: receives one line per retry: the reason, the attempt and the next wait.
    """

    limiter: Limiter | None = None
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    stats: RequestStats = field(default_factory=RequestStats)
    notify: Callable[[str], None] = announce

    def __post_init__(self) -> None:
        if self.limiter is None:
            self.limiter = RateLimiter()
        self._client = httpx.Client(
            headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
            timeout=httpx.Timeout(self.policy.read_s, connect=self.policy.connect_s),
            follow_redirects=False)

    def close(self) -> None:
        """Close the connection pool; idempotent."""
        self._client.close()

    def __enter__(self) -> HttpClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get(self, url: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """GET ``url`` and return its JSON object (redirects followed)."""
        return self.request("GET", url, params=params)

    def post(self, url: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST ``body`` as JSON to ``url`` and return its JSON object (redirects refused)."""
        return self.request("POST", url, body=body)

    def request(self, method: str, url: str, *, params: dict[str, Any] | None = None,
                body: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one request with retries under the policy's total time bound.

        Returns:
            The reply's JSON object.

        Raises:
            TransportError: the server could not be reached, kept throttling
                or kept failing within ``policy.total_s``.
            ProtocolError: a final 4xx, a refused redirect, or a body that is
                not a JSON object after ``policy.malformed_retries`` retries.
        """
        policy = self.policy
        give_up_at = time.monotonic() + policy.total_s
        attempt = 0
        malformed = 0
        while True:
            attempt += 1
            self.limiter.acquire()
            self.stats.requests += 1
            retry_after: float | None = None
            try:
                response = self._client.request(method, url, params=params, json=body,
                                                follow_redirects=method == "GET")
            except httpx.TimeoutException as error:
                self.stats.transport_errors += 1
                failure: Exception = error
                reason = f"timed out ({type(error).__name__})"
            except (httpx.TransportError, httpx.DecodingError) as error:
                self.stats.transport_errors += 1
                failure, reason = error, f"connection failed ({type(error).__name__}: {error})"
            else:
                status = response.status_code
                if 200 <= status < 300:
                    try:
                        data = json.loads(response.content)
                    except (ValueError, UnicodeDecodeError) as error:
                        data, failure = None, error
                    else:
                        failure = None
                    if isinstance(data, dict):
                        return data
                    self.stats.malformed += 1
                    malformed += 1
                    preview = response.content[:80].decode("utf-8", "replace")
                    if malformed > policy.malformed_retries:
                        raise ProtocolError(
                            f"{method} {url}: the reply is not a JSON object after "
                            f"{malformed} tries (first bytes: {preview!r})") from failure
                    failure = failure or ValueError(preview)
                    reason = f"malformed JSON reply ({preview!r})"
                elif 300 <= status < 400:
                    raise ProtocolError(
                        f"{method} {url}: the server redirected ({status}) to "
                        f"{response.headers.get('location', '?')!r}; a POST is never followed, "
                        f"use that address as the base URL")
                elif status == 429 or status >= 500:
                    if status == 429:
                        self.stats.throttled += 1
                    else:
                        self.stats.server_errors += 1
                    retry_after = parse_retry_after(response.headers.get("retry-after"))
                    failure = httpx.HTTPStatusError(f"HTTP {status}", request=response.request,
                                                    response=response)
                    reason = f"HTTP {status}"
                else:
                    try:
                        refusal = response.json()
                    except ValueError:
                        refusal = None
                    raise RefusedRequest(
                        f"{method} {url}: HTTP {status} (not retried): {response.text[:200]!r}",
                        status, refusal)
            delay = backoff_delay(attempt, policy, self.rng, retry_after)
            if time.monotonic() + delay > give_up_at:
                raise TransportError(
                    f"{method} {url}: gave up after {attempt} tries in "
                    f"{policy.total_s:g}s; last: {reason}") from failure
            self.stats.retries += 1
            self.stats.waited_s += delay
            self.notify(f"{method} {urlsplit(url).path}: {reason}; attempt {attempt} failed, "
                        f"retrying in {delay:.1f}s")
            time.sleep(delay)


def backoff_delay(attempt: int, policy: RetryPolicy, rng: random.Random,
                  retry_after: float | None = None) -> float:
    """The wait before retry number ``attempt``: full jitter, at least ``Retry-After``."""
    ceiling = min(policy.cap_s, policy.base_s * 2 ** (attempt - 1))
    delay = rng.uniform(0.5 * ceiling, ceiling)
    if retry_after is not None:
        delay = max(delay, retry_after)
    return delay


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())
