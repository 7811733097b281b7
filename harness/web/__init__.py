"""``harness serve``: a read-only web view of the results database (Starlette on Uvicorn).

The only package that imports ``starlette``; it serves on ``harness.serving``'s
bounded Uvicorn server (the only importer of ``uvicorn``). It imports only
downward (``harness.db``, ``harness.games``, ``harness.ratings`` through the
database's documents; ``harness.report`` for study pages, which owns the
Optuna plots). Pages: per game the leaderboard (sortable, filtered by
opponent and run, intervals drawn as bars) and Elo ratings; runs with their
progress; studies with their plots and validation; tuned players; every match
as a replay with SVG boards and a move slider. ``/api`` serves the same data
as JSON. No asset comes from the network: plotly.js is served from the
installed plotly package.
"""

from __future__ import annotations

from harness.web.app import create_app
from harness.web.server import WebServer

__all__ = ["WebServer", "create_app"]
