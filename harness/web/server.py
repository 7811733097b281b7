"""Uvicorn serving the web application: in the foreground for the CLI, in a thread for tests.

The socket is bound before the server starts, so ``port=0`` takes any free
port and ``url`` names it at once.
"""

from __future__ import annotations

import socket
import threading
import time

import uvicorn
from starlette.applications import Starlette

from harness.errors import HarnessError
from harness.files import bind_error


class WebServer:
    """One uvicorn server on ``host:port`` (loopback by default)."""

    def __init__(self, app: Starlette, host: str = "127.0.0.1", port: int = 8000) -> None:
        self._socket = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._socket.bind((host, port))
        except OSError as error:
            self._socket.close()
            raise bind_error(host, port, error) from None
        self.host, self.port = host, self._socket.getsockname()[1]
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The server's base URL."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def serve_forever(self) -> None:
        """Serve in this thread until Ctrl-C."""
        self._server.run(sockets=[self._socket])

    def start(self, timeout: float = 30.0) -> WebServer:
        """Serve in a background thread; returns once the server accepts requests."""
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise HarnessError(f"the web server on {self.url} did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        """Stop a background server and release its socket."""
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._socket.close()
