"""A real HTTP server that sends its one answer a byte at a time, for tests of a client's deadline: each byte comes
well within any read timeout, the whole answer far beyond it."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class DribblingServer:
    """Answers every GET and POST with ``body`` (JSON, status 200), a byte every ``interval`` seconds; ``url`` is
    its base. A context manager: stopped on leaving."""

    def __init__(self, body: bytes, *, interval: float = 0.05) -> None:
        answer = (f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                  f"\r\n").encode() + body

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):  # noqa: N802
                try:
                    for i in range(len(answer)):
                        self.wfile.write(answer[i:i + 1])
                        time.sleep(interval)
                except OSError:
                    pass
                self.close_connection = True

            def do_POST(self):  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.do_GET()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def __enter__(self) -> DribblingServer:
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
