"""The Starlette application of ``harness serve``: read-only pages and JSON over the results database.

Every page has a JSON twin under ``/api`` serving the document the page is
drawn from (the leaderboard's is exactly ``harness leaderboard --json``).
Nothing here writes: the database is opened once without creating it, and
each request reads through its sessions. Handlers are plain functions, which
Starlette runs in its thread pool (SQLAlchemy's engine is thread-safe).
Study pages come from ``harness.report`` (the tuning side owns Optuna); it is
imported on the first study request, so the server starts fast.
"""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from harness.db import Database, open_database
from harness.db import queries
from harness.db.export import export_line
from harness.db.specs import canonical_game
from harness.errors import HarnessError, InvalidInput
from harness.games import REGISTRY, load as load_game
from harness.web import boards, pages

STATIC = Path(__file__).resolve().parent / "static"
MATCHES_PER_RUN_PAGE = 500


def plotly_js() -> Path:
    """plotly.js as the installed plotly package ships it (served locally: the pages never use a CDN)."""
    spec = importlib.util.find_spec("plotly")
    if spec is None or not spec.submodule_search_locations:
        raise HarnessError("the plotly package is not installed")
    return Path(list(spec.submodule_search_locations)[0]) / "package_data" / "plotly.min.js"


def _query(request: Request, name: str) -> str | None:
    value = request.query_params.get(name)
    return value or None


def create_app(db_url: str | None = None) -> Starlette:
    """The web application over the results database at ``db_url``.

    Raises:
        InvalidInput: no database there (a SQLite file is never created).
        DatabaseError: it cannot be reached.
    """
    database = open_database(db_url, read_only=True)
    url = db_url

    def documents_of_game(request: Request) -> tuple[dict[str, Any], dict[str, Any]]:
        game = request.path_params["game"]
        run = _query(request, "run")
        board = queries.leaderboard_document(database, game, opponent=_query(request, "opponent"), run=run,
                                             by=_query(request, "by") or "mean")
        name = game.partition(":")[0]
        ratings = queries.ratings_document(database, name, run=board["run_id"])
        return board, ratings

    def home(request: Request) -> Response:
        summaries = queries.runs_document(database)["runs"]
        games = {name: info.description for name, info in sorted(REGISTRY.items())}
        return page("Results", pages.home(queries.game_counts(database), games, summaries))

    def game_page(request: Request) -> Response:
        board, ratings = documents_of_game(request)
        runs = [r for r in queries.runs_document(database, game=board["game"])["runs"]
                if canonical_game(r["game"]) == board["game"]]
        body = pages.leaderboard(board, ratings, load_game(board["game"]).score_bounds(),
                                 queries.opponents(database, board["game"]), runs)
        return page(f"{board['game']} leaderboard" + (f" vs {board['opponent']}" if board["opponent"] else ""), body)

    def runs_page(request: Request) -> Response:
        runs = queries.runs_document(database, kind=_query(request, "kind"), game=_query(request, "game"))["runs"]
        running = any(r["status"] == "running" for r in runs)
        body = (pages.runs_table(runs) if runs else
                '<p class="empty">No runs recorded yet: harness tournament, harness play --record.</p>')
        if running:
            body = '<p class="muted">A run is in progress: this page refreshes every 5 seconds.</p>' + body
        return page("Runs", body, refresh=5 if running else None)

    def run_page(request: Request) -> Response:
        run = run_document(request)
        return page(f"Run {run['run']['id']}" + (f" ({run['run']['name']})" if run["run"]["name"] else ""),
                    pages.run_page(run["run"], run["matches"], run["more"]),
                    refresh=5 if run["run"]["status"] == "running" else None)

    def run_document(request: Request) -> dict[str, Any]:
        run_id = database.run_id(request.path_params["run"])
        (run,) = queries.runs_document(database, run=run_id)["runs"]
        matches = []
        for record in database.iter_matches(run_id=run_id):
            if len(matches) == MATCHES_PER_RUN_PAGE:
                break
            line = export_line(record)
            del line["actions"]
            matches.append(line)
        return {"format": "harness.run/1", "run": run, "matches": matches,
                "more": max(0, run["matches"] - len(matches))}

    def match_document(request: Request) -> dict[str, Any]:
        record = database.match(int(request.path_params["match"]))
        if record is None:
            raise InvalidInput(f"no match {request.path_params['match']} in {database.masked_url}")
        return export_line(record)

    def match_page(request: Request) -> Response:
        match = match_document(request)
        frames = boards.replay_frames(match["game"], match["actions"])
        return page(f"Match {match['match_id']}", pages.replay(match, frames))

    def studies_document(request: Request) -> dict[str, Any]:
        from harness.report import studies_document
        return studies_document(url)

    def studies_page(request: Request) -> Response:
        return page("Studies", pages.studies(studies_document(request)))

    def study_page(request: Request) -> Response:
        from harness import report
        view = report.study_view(request.path_params["study"], url)
        return page(f"Study {view.config.name}", report.study_body(view, plotlyjs=False),
                    head='<script src="/static/plotly.min.js"></script>',
                    refresh=10 if view.counts["running"] else None)

    def study_document(request: Request) -> dict[str, Any]:
        from harness import report
        view = report.study_view(request.path_params["study"], url)
        outcome = view.outcome
        return {"format": "harness.study/2", "name": view.config.name, "game": view.config.games_label,
                "games": list(view.config.game_specs), "opponent": view.config.opponent, "opponents": list(view.config.opponents),
                "objective": view.config.objective, "counts": view.counts,
                "best": view.best, "trials": report.trial_rows(view.trials),
                "outcome": None if outcome is None else outcome.to_dict()}

    def players_page(request: Request) -> Response:
        return page("Players", pages.players(queries.players_document(database)))

    def api_index(request: Request) -> Response:
        return JSONResponse({"format": "harness.api/1", "endpoints": [
            "/api/games", "/api/games/{game}/leaderboard?opponent=&run=&by=", "/api/games/{game}/ratings?run=&anchor=",
            "/api/runs?kind=&game=", "/api/runs/{run}", "/api/matches/{match}", "/api/studies",
            "/api/studies/{study}", "/api/players"]})

    def api(make: Callable[[Request], Any]) -> Callable[[Request], Response]:
        def endpoint(request: Request) -> Response:
            try:
                return JSONResponse(make(request))
            except InvalidInput as failure:
                return JSONResponse({"error": str(failure)}, status_code=404)
        return endpoint

    def html_page(make: Callable[[Request], Response]) -> Callable[[Request], Response]:
        def endpoint(request: Request) -> Response:
            try:
                return make(request)
            except InvalidInput as failure:
                return page("Not found", pages.error(str(failure)), status=404)
        return endpoint

    def page(title: str, body: str, head: str = "", refresh: int | None = None, status: int = 200) -> Response:
        return HTMLResponse(pages.layout(title, body, head=head, refresh=refresh), status_code=status)

    def plotly(request: Request) -> Response:
        return FileResponse(plotly_js(), media_type="text/javascript")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            database.close()

    routes = [
        Route("/", html_page(home)),
        Route("/games/{game}", html_page(game_page)),
        Route("/runs", html_page(runs_page)),
        Route("/runs/{run}", html_page(run_page)),
        Route("/matches/{match:int}", html_page(match_page)),
        Route("/studies", html_page(studies_page)),
        Route("/studies/{study}", html_page(study_page)),
        Route("/players", html_page(players_page)),
        Route("/api", api_index),
        Route("/api/games", api(lambda request: {"format": "harness.games/1", "matches": queries.game_counts(database),
                                                 "games": {n: i.description for n, i in sorted(REGISTRY.items())}})),
        Route("/api/games/{game}/leaderboard", api(lambda request: documents_of_game(request)[0])),
        Route("/api/games/{game}/ratings", api(lambda request: queries.ratings_document(  # as harness ratings GAME
            database, request.path_params["game"], run=_query(request, "run"), anchor=_query(request, "anchor")))),
        Route("/api/runs", api(lambda request: queries.runs_document(database, kind=_query(request, "kind"),
                                                                     game=_query(request, "game")))),
        Route("/api/runs/{run}", api(run_document)),
        Route("/api/matches/{match:int}", api(match_document)),
        Route("/api/studies", api(studies_document)),
        Route("/api/studies/{study}", api(study_document)),
        Route("/api/players", api(lambda request: queries.players_document(database))),
        Route("/static/plotly.min.js", plotly),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, lifespan=lifespan)
