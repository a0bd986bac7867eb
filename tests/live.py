"""The service over real HTTP: the ASGI application (REST API through Django, /mcp through the MCP SDK) served by
uvicorn on 127.0.0.1 in a thread of the test process, so it shares the test's settings, key set and database.
Requests commit for real: use with the ``committed_db`` fixture."""

from __future__ import annotations

import socket
import threading
import time

import uvicorn
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveService:
    def __init__(self) -> None:
        from a2wsgi import WSGIMiddleware

        from agents_mcp.server import build_app
        from config.asgi import Router

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        settings.MCP_RESOURCE_URL = f"{self.url}/mcp"
        self.app = Router(WSGIMiddleware(WSGIHandler(), workers=4), build_app())
        # as manage.py serve --asgi runs it: the client's address is core.gate.client_address's to take
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on",
                                proxy_headers=False)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the live service did not start")
            time.sleep(0.02)

    @property
    def mcp_url(self) -> str:
        return f"{self.url}/mcp"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

