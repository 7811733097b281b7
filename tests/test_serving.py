"""Both servers (the emulator and ``harness serve``) under a bounded fuzz and load over loopback.

Malformed JSON, oversized, negative and malformed lengths, too many or too
large headers, slow clients (headers sent byte by byte, then a stall), idle
connections and many connections at once: each is refused with a 4xx and a
JSON error (or cut off), and afterwards the server still answers a correct
request exactly as before. Limits are small here so the test takes seconds.
"""

from __future__ import annotations

import json
import logging
import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import httpx
import pytest

from harness.db import open_database
from harness.errors import InvalidInput
from harness.live.emulator import Emulator
from harness.serving import ServerLimits
from harness.web import WebServer, create_app

LIMITS = ServerLimits(max_body_bytes=4096, max_headers=20, max_header_bytes=2048, request_timeout_s=0.5,
                      keep_alive_s=0.5, max_connections=24, max_active=4, shutdown_s=0.5)


@pytest.fixture
def emulator() -> Iterator[Emulator]:
    with Emulator(opponent="random", limits=LIMITS, max_matches=2, start_ms=0) as server:
        yield server


@pytest.fixture
def web(tmp_path) -> Iterator[WebServer]:
    url = f"sqlite:///{tmp_path / 'results.db'}"
    open_database(url).close()
    server = WebServer(create_app(url), port=0, limits=LIMITS).start()
    yield server
    server.stop()


#: Per server: a correct request (method, path) whose answer must not change, and a POST path.
SERVERS = {"emulator": ("/api/games/ravenward/init?seed=3", "/api/games/ravenward/action"),
           "web": ("/api/games", "/api/games")}


@pytest.fixture(params=sorted(SERVERS))
def server(request):
    return request.param, request.getfixturevalue(request.param)


def exchange(url: str, data: bytes, timeout: float = 5.0, stall_s: float = 0.0) -> tuple[int | None, str]:
    """Send ``data`` on a fresh connection (then wait ``stall_s``), read to EOF: (status, body)."""
    address = urlsplit(url)
    with socket.create_connection((address.hostname, address.port), timeout=timeout) as connection:
        connection.sendall(data)
        time.sleep(stall_s)
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
    if not received:
        return None, ""
    head, _, body = received.partition(b"\r\n\r\n")
    return int(head.split()[1]), body.decode(errors="replace")


def request(method: str, path: str, headers: dict[str, str] | None = None, body: bytes = b"") -> bytes:
    fields = {"Host": "127.0.0.1", "Connection": "close", **(headers or {})}
    return (f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields.items())
            + "\r\n").encode() + body


def assert_refused(reply: tuple[int | None, str], status: int, words: str) -> None:
    code, body = reply
    assert code == status, reply
    document = json.loads(body)
    assert document["ok"] is False and words in document["error"], document


def refusal_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "harness.serving" and r.levelno == logging.WARNING]


def test_bad_requests_get_a_4xx_with_a_json_error_and_one_log_line_and_the_server_stays_correct(server, caplog):
    name, live = server
    good, post = SERVERS[name]
    before = httpx.get(live.url + good).json()
    caplog.set_level(logging.WARNING, logger="harness.serving")
    cases = [
        (request("POST", post, {"Content-Length": "1000000000"}), 413, "at most 4096"),
        (request("POST", post, {"Content-Length": "-5"}), 400, "not valid HTTP"),
        (request("POST", post, {"Content-Length": "12abc"}), 400, "not valid HTTP"),
        (request("POST", post, {"Transfer-Encoding": "chunked"},
                 b"1000\r\n" + b"x" * 4096 + b"\r\n10\r\n" + b"y" * 16 + b"\r\n0\r\n\r\n"), 413, "over 4096"),
        (request("GET", good, {f"X-Filler-{i}": "1" for i in range(30)}), 431, "at most 20"),
        (request("GET", good, {"X-Large": "y" * 4000}), 431, "at most 2048"),
        (request("GET", good, {"X-Large": "y" * 4000})[:3000], 400, "exceed 2048 bytes"),
        (b"NOT HTTP AT ALL\r\n\r\n", 400, "not valid HTTP"),
    ]
    for number, (data, status, words) in enumerate(cases, start=1):
        assert_refused(exchange(live.url, data), status, words)
        assert len(refusal_lines(caplog)) == number, "one log line per refusal"
    assert httpx.get(live.url + good).json() == before


def test_a_slow_client_is_cut_off_and_an_idle_connection_closed(server, caplog):
    name, live = server
    good, _ = SERVERS[name]
    before = httpx.get(live.url + good).json()
    address = urlsplit(live.url)
    started = time.monotonic()
    with socket.create_connection((address.hostname, address.port), timeout=5) as slow:
        for byte in request("GET", good)[:20]:  # byte by byte, then a stall
            slow.sendall(bytes([byte]))
            time.sleep(0.01)
        received = b""
        while chunk := slow.recv(4096):
            received += chunk
    assert time.monotonic() - started < 3, "cut off near request_timeout_s"
    assert received.startswith(b"HTTP/1.1 408") and b'"ok": false' in received
    assert exchange(live.url, b"", stall_s=0)[0] == 408, "a connection that sends nothing is closed too"
    assert httpx.get(live.url + good).json() == before


def test_many_connections_at_once_leave_the_server_up_and_correct(server):
    name, live = server
    good, _ = SERVERS[name]
    before = httpx.get(live.url + good).json()
    address = urlsplit(live.url)
    held = [socket.create_connection((address.hostname, address.port), timeout=5) for _ in range(40)]
    try:
        for connection in held:  # forty half-sent requests, more than max_connections
            connection.sendall(b"GET / HTTP/1.1\r\n")

        def get(_: int) -> int:
            try:
                return httpx.get(live.url + good, timeout=5).status_code
            except httpx.TransportError:
                return 0  # the connection limit may refuse the connection itself
        with ThreadPoolExecutor(16) as pool:
            statuses = list(pool.map(get, range(32)))
        assert set(statuses) <= {200, 503, 0}
    finally:
        for connection in held:
            connection.close()
    time.sleep(LIMITS.request_timeout_s)
    with ThreadPoolExecutor(8) as pool:  # afterwards: concurrent correct requests, all answered alike
        replies = list(pool.map(lambda _: httpx.get(live.url + good, timeout=10).json(), range(8)))
    assert all(reply == before for reply in replies)


def test_the_emulator_refuses_malformed_json_and_clock_values_out_of_range(emulator, caplog):
    caplog.set_level(logging.WARNING, logger="harness.serving")
    reply = httpx.post(f"{emulator.url}/api/games/ravenward/action", content=b'{"state": ',
                       headers={"content-type": "application/json"})
    assert reply.status_code == 400 and reply.json() == {"ok": False, "error": "the body is not JSON"}
    create = f"{emulator.url}/arena/xiangqi/matches"
    for field, value in [("beatMs", -1), ("beatMs", 10**12), ("beatMs", "fast"), ("beatMs", 2.5), ("beatMs", True),
                         ("startMs", 3_600_000), ("maxRounds", 0), ("seed", 2**64)]:
        refused = httpx.post(create, json={"seat": "red", field: value})
        assert refused.status_code == 400 and field in refused.json()["error"], (field, value)
    assert not emulator.matches
    for _ in range(2):
        assert httpx.post(create, json={"seat": "red", "beatMs": 60_000}).status_code == 200
    full = httpx.post(create, json={"seat": "red"})
    assert full.status_code == 429 and full.headers["retry-after"] and "2 matches" in full.json()["error"]
    assert httpx.get(f"{emulator.url}/api/games/totality/init", params={"seed": 2**60}).status_code == 400


def test_an_abandoned_match_frees_its_place_when_its_clock_runs_out():
    with Emulator(opponent="random", max_matches=1, start_ms=0) as server:
        server.create_match(seat="red", beat_ms=50)
        time.sleep(0.1)
        assert server.create_match(seat="red", beat_ms=50)["match"]


def test_a_limit_that_is_not_positive_is_refused():
    with pytest.raises(InvalidInput, match="max_body_bytes"):
        ServerLimits(max_body_bytes=0)


def test_limit_settings_change_one_bound_and_refuse_unknown_names():
    from harness.serving import parse_limits
    assert parse_limits(["max_body_bytes=1000", "request-timeout-s=2.5"]) == ServerLimits(
        max_body_bytes=1000, request_timeout_s=2.5)
    with pytest.raises(InvalidInput, match="unknown server limit"):
        parse_limits(["max_bodies=1"])
    with pytest.raises(InvalidInput, match="positive number"):
        parse_limits(["max_connections=many"])
