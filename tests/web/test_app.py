"""The web application over real HTTP on loopback, without a browser: JSON twins, 404s, refresh, no writes."""

from __future__ import annotations

import contextlib
import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from harness.cli import main
from harness.db import open_database
from harness.errors import InvalidInput
from harness.web import WebServer, create_app


@dataclass(frozen=True)
class Response:
    status_code: int
    text: str

    def json(self) -> dict:
        return json.loads(self.text)


class Client:
    def __init__(self, url: str) -> None:
        self.url = url

    def get(self, path: str) -> Response:
        try:
            with urllib.request.urlopen(self.url + path) as answer:
                return Response(answer.status, answer.read().decode())
        except urllib.error.HTTPError as error:
            return Response(error.code, error.read().decode())


@contextlib.contextmanager
def serving(app) -> Iterator[Client]:
    server = WebServer(app, port=0).start()
    try:
        yield Client(server.url)
    finally:
        server.stop()


@pytest.fixture(scope="module")
def filled(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('app') / 'harness.db'}"
    assert main(["play", "totality", "--player", "greedy", "--opponent", "random", "--games", "2", "--record",
                 "--db", url]) == 0
    return url


def cli_json(capsys, *argv):
    capsys.readouterr()
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_every_json_endpoint_serves_the_clis_document(filled, capsys):
    with serving(create_app(filled)) as client:
        assert client.get("/api/games/totality/leaderboard").json() == cli_json(
            capsys, "leaderboard", "totality", "--json", "--db", filled)
        assert client.get("/api/games/totality/ratings").json() == cli_json(
            capsys, "ratings", "totality", "--json", "--db", filled)
        assert client.get("/api/runs").json() == cli_json(capsys, "runs", "--json", "--db", filled)
        assert client.get("/api/players").json() == cli_json(capsys, "players", "--json", "--db", filled)
        match = client.get("/api/matches/1").json()
        assert match["match_id"] == 1 and match["actions"]
        assert client.get("/api/runs/1").json()["run"]["matches"] == 2 == len(client.get("/api/runs/1").json()["matches"])
        assert set(client.get("/api/games").json()["matches"]) == {"totality"}


def test_unknown_things_are_404_with_the_clis_message(filled):
    with serving(create_app(filled)) as client:
        response = client.get("/api/runs/99")
        assert response.status_code == 404 and "harness runs lists them" in response.json()["error"]
        page = client.get("/games/nonsense")
        assert page.status_code == 404 and "unknown game" in page.text
        assert client.get("/matches/99").status_code == 404
        assert client.get("/studies/none").status_code == 404


def test_a_running_run_refreshes_its_pages(filled):
    with open_database(filled) as db:
        run_id = db.start_run("tournament", "totality", {"players": ["greedy"], "opponent": "random", "games": 4})
    with serving(create_app(filled)) as client:
        for path in ("/runs", f"/runs/{run_id}"):
            text = client.get(path).text
            assert '<meta http-equiv="refresh" content="5">' in text and 'max="4"' in text
    with open_database(filled) as db:
        db.set_run_status(run_id, "done")
    with serving(create_app(filled)) as client:
        assert "refresh" not in client.get("/runs").text


def test_the_app_never_creates_a_database(tmp_path):
    with pytest.raises(InvalidInput):
        create_app(f"sqlite:///{tmp_path / 'missing.db'}")
    assert not (tmp_path / "missing.db").exists()


def test_pages_use_no_network_asset(filled):
    with serving(create_app(filled)) as client:
        for path in ("/", "/games/totality", "/runs", "/runs/1", "/matches/1", "/players", "/studies"):
            text = client.get(path).text
            assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), path
        assert client.get("/static/plotly.min.js").status_code == 200


def test_the_players_and_leaderboard_pages_show_each_tuned_players_verdict(tmp_path):
    url = f"sqlite:///{tmp_path / 'harness.db'}"
    assert main(["play", "totality", "--player", "greedy", "--opponent", "random", "--record", "--db", url]) == 0
    with open_database(url) as db:
        db.save_named_player("greedy-v2", "greedy", "totality", verdict="no gain", detail="+0.4 [-2.0, 2.8]")
        db.save_named_player("by-hand", "random", "totality")
    with serving(create_app(url)) as client:
        players = client.get("/players").text
        assert '<span class="verdict-no-gain">no gain</span>' in players and "+0.4 [-2.0, 2.8]" in players
        assert '<span class="verdict-unconfirmed">unconfirmed</span>' in players
        leaderboard = client.get("/games/totality").text
        assert '<td class="" data-value="no gain">no gain</td>' in leaderboard
