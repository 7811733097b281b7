"""The server of ``harness serve``: the project's one bounded Uvicorn server (``harness.serving``)."""

from __future__ import annotations

from harness.serving import HttpServer as WebServer

__all__ = ["WebServer"]
