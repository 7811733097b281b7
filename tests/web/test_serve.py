"""``harness serve`` in a real headless Chromium (Debian's package, driven by Selenium).

The database is filled by real commands (``harness play --record`` for the
three games, a tiny real study on a local Ray pool); the tests load every
page, fail on any console error, compare the numbers on the leaderboard page
with ``harness leaderboard --json``, step a replay with its slider, and save
a screenshot of each page to ``tmp/artifacts/screenshots`` (or
``$HARNESS_ARTIFACTS``). Without Chromium the tests skip, except under
``HARNESS_CI=1`` (set by ``.ci/run``), where a missing browser fails.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import urllib.request
from collections.abc import Iterator

import pytest

from harness.cli import main
from harness.web import WebServer, create_app
from tests.requirements import unavailable

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,900")
ARTIFACTS = pathlib.Path(os.environ.get("HARNESS_ARTIFACTS") or ROOT / "tmp" / "artifacts") / "screenshots"


def browser_missing() -> str | None:
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if shutil.which(path) is None]
    return f"needs {' and '.join(missing)} (apt-get install chromium chromium-driver)" if missing else None


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A results database filled by real commands: recorded plays of every game and a tiny study."""
    url = f"sqlite:///{tmp_path_factory.mktemp('web') / 'harness.db'}"
    plays = [("ravenward", "greedy", "random", 4), ("ravenward", "random", "random", 3),
             ("ravenward", "greedy", "gbot", 2), ("totality", "greedy", "random", 3),
             ("xiangqi", "random", "random", 1)]
    for game, player, opponent, games in plays:
        assert main(["play", game, "--player", player, "--opponent", opponent, "--games", str(games),
                     "--record", "--db", url]) == 0
    from harness.cluster import Pool, ray_session
    from harness.tuning import parse_study_file, tune
    from tests.tuning_studies import tiny_study
    with ray_session(num_cpus=2), Pool(workers=2) as pool:
        tune(parse_study_file(tiny_study("web")), db_url=url, pool=pool)
    return url


@pytest.fixture(scope="module")
def server(recorded: str) -> Iterator[WebServer]:
    web = WebServer(create_app(recorded), port=0).start()
    yield web
    web.stop()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    reason = browser_missing()
    if reason is not None:
        unavailable(reason)
    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must never download anything
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def visit(browser, server: WebServer, path: str, shot: str) -> None:
    """Load a page, save its full-length screenshot, and fail on any console error."""
    browser.set_window_size(1280, 900)  # measure each page from the same viewport
    browser.get(server.url + path)
    screenshot(browser, shot)
    errors = [entry for entry in browser.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]
    assert errors == [], f"{path}: console errors {errors}"
    assert "Not found" not in browser.title, path


def screenshot(browser, shot: str) -> None:
    """The whole page, as long as it is, to the artifacts folder."""
    height = browser.execute_script("return document.body.scrollHeight")
    browser.set_window_size(1280, min(max(900, height + 40), 6000))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / f"{shot}.png"))


def cli_json(capsys, *argv: str) -> dict:
    capsys.readouterr()
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_every_page_loads_without_console_errors(browser, server, recorded):
    from selenium.webdriver.common.by import By
    pages = {"home": "/", "leaderboard-ravenward": "/games/ravenward", "leaderboard-totality": "/games/totality",
             "leaderboard-xiangqi": "/games/xiangqi", "runs": "/runs", "run": "/runs/1", "studies": "/studies",
             "players": "/players"}
    for shot, path in pages.items():
        visit(browser, server, path, shot)
    # the study page draws Optuna's plots with the locally served plotly.js
    visit(browser, server, "/studies/web", "study")
    assert len(browser.find_elements(By.CSS_SELECTOR, ".plotly-graph-div .main-svg")) >= 3
    assert "tuned:web" in browser.find_element(By.TAG_NAME, "body").text


def test_the_leaderboard_page_shows_the_numbers_of_leaderboard_json(browser, server, recorded, capsys):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait
    for game, opponent in (("ravenward", None), ("ravenward", "random"), ("totality", None)):
        document = cli_json(capsys, "leaderboard", game, "--json", "--db", recorded,
                            *(["--opponent", opponent] if opponent else []))
        visit(browser, server, f"/games/{game}", f"leaderboard-{game}")
        if opponent:
            Select(browser.find_element(By.ID, "opponent")).select_by_value(opponent)
            browser.find_element(By.CSS_SELECTOR, "form.filters button").click()
            # the click only starts the navigation: wait for the filtered page before reading it
            WebDriverWait(browser, 60).until(lambda b: f"opponent={opponent}" in b.current_url)
            visit(browser, server, browser.current_url.replace(server.url, ""), f"leaderboard-{game}-vs-{opponent}")
        rows = browser.find_elements(By.CSS_SELECTOR, "#leaderboard tbody tr")
        assert len(rows) == len(document["rows"]) > 0
        for tr, row in zip(rows, document["rows"]):
            cells = tr.find_elements(By.TAG_NAME, "td")
            assert cells[1].text == row["player"] and int(cells[4].text) == row["games"]
            assert cells[3].text == (row["verdict"] or "-")  # a tuned player's verdict, "-" for others
            assert [int(c.text) for c in cells[5:8]] == [row["wins"], row["draws"], row["losses"]]
            assert float(cells[8].get_attribute("data-value")) == row["mean"]
            assert cells[8].text == f"{row['mean']:.3f}"
            assert cells[9].text == f"[{row['low']:.3f}, {row['high']:.3f}]"
            assert cells[10].find_element(By.TAG_NAME, "svg")  # the interval drawn as a bar
    # the JSON endpoint serves the same document
    with urllib.request.urlopen(f"{server.url}/api/games/ravenward/leaderboard") as response:
        assert json.loads(response.read()) == cli_json(capsys, "leaderboard", "ravenward", "--json", "--db", recorded)


def test_a_column_header_sorts_the_table(browser, server):
    from selenium.webdriver.common.by import By
    visit(browser, server, "/games/ravenward", "leaderboard-ravenward")
    header = browser.find_elements(By.CSS_SELECTOR, "#leaderboard th")[7]  # mean
    header.click()
    means = [float(td.get_attribute("data-value")) for td in
             browser.find_elements(By.CSS_SELECTOR, "#leaderboard tbody tr td:nth-child(8)")]
    assert means == sorted(means) and len(means) >= 2
    header.click()
    means = [float(td.get_attribute("data-value")) for td in
             browser.find_elements(By.CSS_SELECTOR, "#leaderboard tbody tr td:nth-child(8)")]
    assert means == sorted(means, reverse=True)


@pytest.mark.parametrize("game", ["ravenward", "totality", "xiangqi"])
def test_a_replay_steps_through_the_game_with_the_slider(browser, server, recorded, game, capsys):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    capsys.readouterr()
    assert main(["export", game, "--db", recorded]) == 0
    match = json.loads(capsys.readouterr().out.splitlines()[0])
    visit(browser, server, f"/matches/{match['match_id']}", f"replay-{game}")
    slider = browser.find_element(By.ID, "ply")
    assert int(slider.get_attribute("max")) == match["plies"] == len(match["actions"])
    start = browser.find_element(By.ID, "board").get_attribute("innerHTML")
    assert "<svg" in start and browser.find_element(By.ID, "ply-label").text == f"ply 0 of {match['plies']}"
    slider.send_keys(Keys.ARROW_RIGHT)
    assert browser.find_element(By.ID, "ply-label").text == f"ply 1 of {match['plies']}"
    assert json.loads(browser.find_element(By.ID, "move").text.split(": ", 1)[1]) == match["actions"][0]
    assert browser.find_element(By.ID, "board").get_attribute("innerHTML") != start
    slider.send_keys(Keys.END)
    assert browser.find_element(By.ID, "ply-label").text == f"ply {match['plies']} of {match['plies']}"
    screenshot(browser, f"replay-{game}-end")
    browser.find_element(By.ID, "prev").click()
    assert browser.find_element(By.ID, "ply-label").text == f"ply {match['plies'] - 1} of {match['plies']}"
    browser.find_element(By.ID, "next").click()
    assert browser.find_element(By.ID, "ply-label").text == f"ply {match['plies']} of {match['plies']}"
    visit(browser, server, f"/matches/{match['match_id']}", f"replay-{game}")  # fresh page, no console error
