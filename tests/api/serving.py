"""A real HTTP server for the app in this process, as every in-process test starts one.

:func:`serve` binds a free port (or the one given) and serves the app from a background
thread; :meth:`TestServer.shutdown` stops it at once. Two differences from werkzeug's
``make_server(..., threaded=True)``, both about the suite's time, neither about what the
app sees:

- its loop sleeps until a connection comes or :meth:`TestServer.shutdown` wakes it (a byte
  on a socket pair), where socketserver's looks for a shutdown request every
  ``poll_interval``: werkzeug's 0.5 s was half a second of idle teardown for every service
  the suite starts, and the 20 ms used here before took 2.8 ms of CPU a second for every
  service alive, idle or not;
- a connection is served by a thread that has finished its last one when there is such a
  thread (a new one otherwise, so there is never a limit to wait on), as gunicorn's
  gthread workers do: the thread's database connection (``api.database.Database`` keeps
  one a thread) is opened once, not for every request.
"""

from __future__ import annotations

import contextlib
import queue
import selectors
import socket
import threading
from typing import Any

from flask import Flask
from werkzeug.serving import BaseWSGIServer

__all__ = ["TestServer", "serve"]


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
        self._wake, self._waker = socket.socketpair()
        self._stop = threading.Event()
        self._stopped = threading.Event()
        self._serving = False

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

    def serve_forever(self, poll_interval: float | None = None) -> None:
        """Serve until :meth:`shutdown` (socketserver's loop, woken rather than polling),
        then close the server as werkzeug's does."""
        self._serving = True
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(self, selectors.EVENT_READ)
                selector.register(self._wake, selectors.EVENT_READ)
                while not self._stop.is_set():
                    ready = selector.select(poll_interval)
                    if self._stop.is_set():
                        break
                    if any(key.fileobj is self for key, _ in ready):
                        self._handle_request_noblock()
                    self.service_actions()
        finally:
            self._stopped.set()
            self.server_close()

    def shutdown(self) -> None:
        """Stop the serving loop at once; returns when it has stopped (as socketserver's)."""
        self._stop.set()
        with contextlib.suppress(OSError):  # closed: the loop has ended already
            self._waker.send(b"x")
        self._stopped.wait()

    def server_close(self) -> None:
        """Close the socket and end the idle threads (and so their database connections)."""
        super().server_close()
        if self._stopped.is_set() or not self._serving:  # else its loop's end closes them
            self._wake.close()
            self._waker.close()
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
