"""One bounded HTTP server (Uvicorn) for ``harness serve`` and ``harness emulate``.

Both servers run an ASGI application on Uvicorn's h11 protocol, bounded so a
client cannot make them read, hold or wait without limit (:class:`ServerLimits`):

- **request size**: a ``Content-Length`` over ``max_body_bytes`` is refused
  with 413 before a byte of the body is read; a body without a length
  (chunked) is refused once it passes the bound; a negative or malformed
  length is refused by h11 with 400. Every refusal closes the connection, so
  the rest of an oversized body is never read.
- **headers**: more than ``max_headers`` is refused with 431, and so is a
  request line and header block over ``max_header_bytes``; one still arriving
  when it passes that size is refused with 400 (Uvicorn's
  ``h11_max_incomplete_event_size``), so it is never buffered further.
- **time**: a request (headers and body) must arrive within
  ``request_timeout_s`` of the connection opening or of the previous reply,
  else the server answers 408 and closes the connection (a slow client sending
  its headers byte by byte is cut off); an idle keep-alive connection is closed
  after ``keep_alive_s`` (Uvicorn's ``timeout_keep_alive``). The time the
  application takes to answer is the server's, not the client's: it is not cut.
- **concurrency**: at most ``max_connections`` open connections (Uvicorn's
  ``limit_concurrency``: a request over it is answered 503 by Uvicorn, in
  plain text); at most ``max_active`` requests inside the application at once,
  the rest wait their turn.

Every refusal is a JSON body ``{"ok": false, "error": ...}`` and one warning
line on the ``harness.serving`` logger (stderr by default). Uvicorn's own
protocol messages go to the same logger.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from harness.errors import HarnessError, InvalidInput
from harness.files import bind_error

LOG = logging.getLogger("harness.serving")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The key under which a request's scope state holds the function that closes its connection.
_CLOSE = "harness.close_connection"


@dataclass(frozen=True)
class ServerLimits:
    """The bounds of one server; the defaults suit both ``harness serve`` and the emulator.

    Raises:
        InvalidInput: a bound that is not positive.
    """

    max_body_bytes: int = 256 * 1024
    max_headers: int = 64
    max_header_bytes: int = 16 * 1024
    request_timeout_s: float = 10.0
    keep_alive_s: float = 5.0
    max_connections: int = 64
    max_active: int = 8
    shutdown_s: float = 2.0

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise InvalidInput(f"the server limit {name} must be a positive number, got {value!r}")


def parse_limits(settings: list[str] | tuple[str, ...]) -> ServerLimits:
    """The default limits with ``NAME=VALUE`` settings applied (``harness serve --limit``).

    Raises:
        InvalidInput: an unknown name or a value that is not a positive number.
    """
    known = {name: type(value) for name, value in vars(ServerLimits()).items()}
    changed: dict[str, Any] = {}
    for setting in settings:
        name, _, value = setting.partition("=")
        name = name.strip().replace("-", "_")
        if name not in known:
            raise InvalidInput(f"unknown server limit {name!r}; known: {', '.join(known)}")
        try:
            changed[name] = known[name](value)
        except ValueError:
            raise InvalidInput(f"the server limit {name} must be a positive number, got {value!r}") from None
    return ServerLimits(**changed)


def error_body(message: str) -> bytes:
    """The JSON body of every refusal."""
    return json.dumps({"ok": False, "error": message}).encode()


def _client(scope_or_address: Any) -> str:
    address = scope_or_address.get("client") if isinstance(scope_or_address, dict) else scope_or_address
    return f"{address[0]}:{address[1]}" if address else "unknown client"


class _BoundedProtocol(H11Protocol):
    """Uvicorn's h11 protocol with a deadline on receiving each request and JSON refusals."""

    limits: ServerLimits  # set on the per-server subclass

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.logger = LOG
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.app_state = {**self.app_state, _CLOSE: transport.close}  # each request's scope["state"] gets it
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request on this connection has its own deadline

    def send_400_response(self, msg: str) -> None:
        self._refuse(400, "the request is not valid HTTP/1.1 (request line, headers or Content-Length), "
                          f"or its headers exceed {self.limits.max_header_bytes} bytes", log=False)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.limits.request_timeout_s, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        cycle = self.cycle
        if self.transport.is_closing():
            return
        if cycle is not None and not cycle.response_complete and (not cycle.more_body or cycle.response_started):
            return  # the whole request is in: the application is answering it
        self._refuse(408, f"the request did not arrive within {self.limits.request_timeout_s:g} s")

    def _refuse(self, status: int, message: str, log: bool = True) -> None:
        if log:
            LOG.warning("refused %s: %d %s", _client(self.client), status, message)
        body = error_body(message)
        head = (f"HTTP/1.1 {status} {_REASONS[status]}\r\ncontent-type: application/json\r\n"
                f"content-length: {len(body)}\r\nconnection: close\r\n\r\n").encode()
        self.transport.write(head + body)
        self.transport.close()


_REASONS = {400: "Bad Request", 408: "Request Timeout", 413: "Content Too Large",
            431: "Request Header Fields Too Large"}


def bounded(app: App, limits: ServerLimits) -> App:
    """``app`` behind the header-count, body-size and concurrency bounds.

    The body is read here, bounded, and handed to ``app`` whole, so ``app``
    never reads more than ``max_body_bytes``.
    """
    active = asyncio.Semaphore(limits.max_active)

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return

        async def refuse(status: int, message: str) -> None:
            LOG.warning("refused %s %s %s: %d %s", _client(scope), scope["method"], scope["path"], status, message)
            body = error_body(message)
            await send({"type": "http.response.start", "status": status,
                        "headers": [(b"content-type", b"application/json"),
                                    (b"content-length", str(len(body)).encode()), (b"connection", b"close")]})
            await send({"type": "http.response.body", "body": body})

        headers = scope["headers"]
        if len(headers) > limits.max_headers:
            await refuse(431, f"{len(headers)} headers; at most {limits.max_headers}")
            return
        size = len(scope["raw_path"]) + len(scope["query_string"]) + sum(len(n) + len(v) for n, v in headers)
        if size > limits.max_header_bytes:  # h11's own bound covers only a header block still arriving
            await refuse(431, f"a request line and headers of {size} bytes; at most {limits.max_header_bytes}")
            return
        lengths = {value for name, value in headers if name == b"content-length"}
        if len(lengths) > 1 or any(not value.isdigit() for value in lengths):
            await refuse(400, "Content-Length must be one non-negative integer")
            return
        if lengths and int(next(iter(lengths))) > limits.max_body_bytes:
            await refuse(413, f"a body of {int(next(iter(lengths)))} bytes; at most {limits.max_body_bytes}")
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > limits.max_body_bytes:
                await refuse(413, f"a body over {limits.max_body_bytes} bytes")
                return
            if not message.get("more_body", False):
                break
        delivered = False

        async def replay() -> dict[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        async with active:
            await app(scope, replay, send)

    return guarded


async def close_connection(scope: Scope, receive: Receive, wait_s: float = 5.0) -> None:
    """Close the request's connection (what was sent is flushed first) and wait until it is closed.

    For fault injection: a dropped connection, or a reply cut short.
    """
    scope["state"][_CLOSE]()
    try:
        async with asyncio.timeout(wait_s):
            while (await receive())["type"] != "http.disconnect":
                pass
    except TimeoutError:
        pass


class HttpServer:
    """One Uvicorn server on ``host:port`` (loopback by default), bounded by ``limits``.

    The socket is bound at once, so ``port=0`` takes any free port and
    ``url`` names it before the server starts.

    Raises:
        InvalidInput: the address cannot be bound.
    """

    def __init__(self, app: App, host: str = "127.0.0.1", port: int = 8000,
                 limits: ServerLimits | None = None, lifespan: str = "on") -> None:
        self.limits = limits or ServerLimits()
        self._socket = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._socket.bind((host, port))
        except OSError as error:
            self._socket.close()
            raise bind_error(host, port, error) from None
        self.host, self.port = host, self._socket.getsockname()[1]
        protocol = type("BoundedProtocol", (_BoundedProtocol,), {"limits": self.limits})
        config = uvicorn.Config(
            bounded(app, self.limits), http=protocol, lifespan=lifespan, log_level="warning",
            limit_concurrency=self.limits.max_connections, timeout_keep_alive=self.limits.keep_alive_s,  # type: ignore[arg-type]
            h11_max_incomplete_event_size=self.limits.max_header_bytes,
            timeout_graceful_shutdown=self.limits.shutdown_s)  # type: ignore[arg-type]
        self._server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The server's base URL."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def server_address(self) -> tuple[str, int]:
        """``(host, port)``, as the standard library's servers name it."""
        return self.host, self.port

    def serve_forever(self) -> None:
        """Serve in this thread until Ctrl-C."""
        self._server.run(sockets=[self._socket])

    def start(self, timeout: float = 30.0) -> HttpServer:
        """Serve in a background thread; returns once the server accepts requests."""
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]},
                                        name="http-server", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise HarnessError(f"the server on {self.url} did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        """Stop a background server and release its socket."""
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10 + self.limits.shutdown_s)
            self._thread = None
        self._socket.close()
