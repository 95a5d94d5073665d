"""A real HTTP server for the app in this process, as every in-process test starts one.

:func:`serve` binds a free port (or the one given) and serves the app from a background
thread; :meth:`TestServer.shutdown` stops it at once. Two differences from werkzeug's
``make_server(..., threaded=True)``, both about the suite's time, neither about what the
app sees:

- it checks for shutdown every :data:`POLL_SECONDS` (werkzeug's loop every 0.5 s, which was
  half a second of idle teardown for every service the suite starts);
- a connection is served by a thread that has finished its last one when there is such a
  thread (a new one otherwise, so there is never a limit to wait on), as gunicorn's
  gthread workers do: the thread's database connection (``api.database.Database`` keeps
  one a thread) is opened once, not for every request.
"""

from __future__ import annotations

import queue
import threading
from typing import Any

from flask import Flask
from werkzeug.serving import BaseWSGIServer

__all__ = ["POLL_SECONDS", "TestServer", "serve"]

POLL_SECONDS = 0.02
"""How often the serving loop looks for a shutdown request."""


class TestServer(BaseWSGIServer):
    """werkzeug's WSGI server with a cache of connection threads (see the module)."""

    __test__ = False  # not a test class, whatever its name
    multithread = True
    daemon_threads = True

    def __init__(self, host: str, port: int, app: Flask) -> None:
        super().__init__(host, port, app)
        self._lock = threading.Lock()
        self._idle = 0
        self._jobs: queue.SimpleQueue[tuple[Any, Any] | None] = queue.SimpleQueue()
        self._closed = False

    def process_request(self, request: Any, client_address: Any) -> None:  # type: ignore[override]
        with self._lock:
            if self._idle > 0:
                self._idle -= 1
                self._jobs.put((request, client_address))
                return
        threading.Thread(target=self._work, args=(request, client_address), daemon=True).start()

    def _work(self, request: Any, client_address: Any) -> None:
        job: tuple[Any, Any] | None = (request, client_address)
        while job is not None:
            request, client_address = job
            try:
                self.finish_request(request, client_address)
            except Exception:  # noqa: BLE001 - reported as socketserver does
                self.handle_error(request, client_address)
            finally:
                self.shutdown_request(request)
            with self._lock:
                if self._closed:
                    return
                self._idle += 1
            job = self._jobs.get()

    def serve_forever(self, poll_interval: float = POLL_SECONDS) -> None:
        super().serve_forever(poll_interval=poll_interval)

    def server_close(self) -> None:
        """Close the socket and end the idle threads (and so their database connections)."""
        super().server_close()
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, 0
        for _ in range(idle):  # a busy thread ends when its connection does
            self._jobs.put(None)


def serve(app: Flask, port: int = 0) -> tuple[TestServer, str]:
    """Serve ``app`` on 127.0.0.1 (a free port unless ``port``): the server and its URL.
    ``server.shutdown()`` stops it (and ends its idle threads)."""
    server = TestServer("127.0.0.1", port, app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}"
