"""The request choke point against the emulator's injected faults (real HTTP on loopback)."""

from __future__ import annotations

import random
import time

import pytest

from harness import __version__
from harness.errors import InvalidInput, ProtocolError, TransportError
from harness.live.http import HttpClient, RateLimiter, RefusedRequest, RetryPolicy, parse_retry_after

def client(policy: RetryPolicy, rate: float = 1000.0) -> HttpClient:
    return HttpClient(limiter=RateLimiter(rate), policy=policy, rng=random.Random(1))


def init_url(emulator) -> str:
    return f"{emulator.url}/api/games/ravenward/init"


def test_user_agent_names_the_package_and_its_version(emulator, fast):
    with client(fast) as http:
        http.get(init_url(emulator), params={"seed": 1})
    assert f"boardgame-harness/{__version__}" in emulator.log[-1].user_agent


def test_429_is_retried_after_the_servers_retry_after(emulator, fast):
    emulator.faults.add("429", path="/init", retry_after=0.6)
    with client(fast) as http:
        started = time.monotonic()
        reply = http.get(init_url(emulator), params={"seed": 1})
        waited = time.monotonic() - started
    assert "state" in reply and http.stats.throttled == 1 and http.stats.retries == 1
    assert waited >= 0.6
    assert [entry.status for entry in emulator.log] == [429, 200]


@pytest.mark.parametrize("fault", ["500", "drop", "garbage", "truncated"])
def test_transient_faults_are_retried_until_a_good_reply(emulator, fault, fast):
    emulator.faults.add(fault, path="/init", count=2)
    with client(fast) as http:
        reply = http.get(init_url(emulator), params={"seed": 1})
    assert reply["gameOver"] is False and http.stats.retries == 2
    assert len(emulator.log) == 3


def test_a_reply_slower_than_the_read_timeout_is_retried(emulator):
    emulator.faults.add("delay", path="/init", delay_s=1.0)
    policy = RetryPolicy(total_s=10.0, base_s=0.05, cap_s=0.2, read_s=0.3)
    with client(policy) as http:
        reply = http.get(init_url(emulator), params={"seed": 1})
    assert "state" in reply and http.stats.transport_errors == 1


def test_garbage_json_beyond_the_retry_bound_is_a_clear_protocol_error(emulator, fast):
    emulator.faults.add("garbage", path="/init", count=10)
    with client(fast) as http, pytest.raises(ProtocolError, match="not a JSON object after 3 tries"):
        http.get(init_url(emulator), params={"seed": 1})
    assert len(emulator.log) == 3


def test_a_final_4xx_is_never_retried(emulator, fast):
    with client(fast) as http, pytest.raises(RefusedRequest) as refused:
        http.post(f"{emulator.url}/api/games/ravenward/action", {"state": "forged.state", "action": {}})
    assert refused.value.status == 400 and "tampered" in refused.value.body["error"]
    assert len(emulator.log) == 1


def test_a_redirect_answering_a_post_is_not_followed(emulator, fast):
    emulator.faults.add("redirect", path="/action")
    with client(fast) as http, pytest.raises(ProtocolError, match="redirected"):
        http.post(f"{emulator.url}/api/games/ravenward/action", {"state": "x", "action": {}})
    assert len(emulator.log) == 1


def test_throttling_beyond_the_total_time_bound_is_a_transport_error(emulator):
    emulator.faults.add("429", path="/init", count=100, retry_after=0.4)
    policy = RetryPolicy(total_s=1.0, base_s=0.05, cap_s=0.1)
    with client(policy) as http, pytest.raises(TransportError, match="gave up"):
        http.get(init_url(emulator), params={"seed": 1})
    assert 2 <= len(emulator.log) <= 4


def test_an_unreachable_server_is_a_transport_error_within_the_bound():
    policy = RetryPolicy(total_s=0.5, base_s=0.05, cap_s=0.1, connect_s=0.2)
    with client(policy) as http, pytest.raises(TransportError) as error:
        http.get("http://127.0.0.1:9/api/games/ravenward/init")
    assert error.value.__cause__ is not None


def test_the_rate_limiter_spaces_requests():
    limiter = RateLimiter(20.0)
    started = time.monotonic()
    for _ in range(5):
        limiter.acquire()
    assert time.monotonic() - started >= 4 * 0.05 * 0.9


def test_a_rate_that_is_not_positive_is_refused():
    with pytest.raises(InvalidInput, match="positive"):
        RateLimiter(0)


def test_retry_after_reads_seconds_and_http_dates():
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert parse_retry_after("soon") is None
