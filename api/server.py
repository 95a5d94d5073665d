"""The production HTTP front: gunicorn's threaded worker, fed only whole requests.

gunicorn's ``gthread`` worker hands a connection to a thread as soon as its first bytes
arrive; the thread then blocks until the client has sent the whole head and body. Forty
clients trickling a body one byte a second hold forty threads, and the service stops
answering anyone. :class:`FrontWorker` keeps gthread (threads let one process commit
many requests' log appends together, see ``api/hand_log.py``) but reads each request in
the worker's event loop, without a thread, until it is complete: the head, then the body
by ``Content-Length`` or to the last chunk. Only then does a thread take it, and the
thread never waits for the network. A request that is not complete within
``request_timeout`` seconds of its first byte is answered 408; a connection that sends
nothing is closed after the keep-alive timeout, as gunicorn does.

The same loop enforces the body limit (``max_body``) before anything is buffered past
it: a ``Content-Length`` over the limit, or chunks that add up past it, are answered 413
at once, for chunked bodies too (which Werkzeug would otherwise cut at the limit).

gunicorn writes its own errors (414 request line too long, 400 bad request line, 431
header fields too large...) as HTML through ``gunicorn.util.write_error``; in the worker
process that function is replaced by :func:`write_json_error`, so every answer the
service gives has the project's JSON error shape ``{code, message, details}``.

:func:`judge` (is this buffer a whole request?) is a pure function, tested on its own.
"""

from __future__ import annotations

import contextlib
import enum
import json
import selectors
import socket
import time
from dataclasses import dataclass
from functools import partial
from typing import Any

from gunicorn import http as gunicorn_http  # type: ignore[import-untyped]
from gunicorn import util as gunicorn_util
from gunicorn.workers.gthread import ThreadWorker  # type: ignore[import-untyped]

from api.errors import HTTP_CODES

__all__ = [
    "DRAIN_BYTES",
    "DRAIN_SECONDS",
    "MAX_CHUNK_LINE",
    "MAX_HEAD",
    "RECV_SIZE",
    "FrontWorker",
    "Judgement",
    "Verdict",
    "error_bytes",
    "front_worker",
    "judge",
    "write_json_error",
]

MAX_HEAD = 64 * 1024
"""The largest request head (request line and header fields) read before a 431."""
MAX_CHUNK_LINE = 1024
"""The longest chunk-size line (with extensions) that is waited for."""
DRAIN_SECONDS = 2.0
"""How long a connection refused mid-body is read and discarded before it is closed, so
that the client reads the error instead of a reset (RFC 9112 section 9.6)."""
DRAIN_BYTES = 4 * 1024 * 1024
RECV_SIZE = 64 * 1024

_REASONS = {
    400: "Bad Request",
    408: "Request Timeout",
    413: "Content Too Large",
    414: "URI Too Long",
    417: "Expectation Failed",
    431: "Request Header Fields Too Large",
    500: "Internal Server Error",
    501: "Not Implemented",
}


class Verdict(enum.Enum):
    """What :func:`judge` says of a connection's buffered bytes."""

    NEED_MORE = "need more bytes"
    READY = "a whole request (or one gunicorn's parser will refuse)"
    TOO_LARGE = "a body over the limit"
    HEAD_TOO_LARGE = "a head over MAX_HEAD"


@dataclass(frozen=True, slots=True)
class Judgement:
    verdict: Verdict
    expects_continue: bool = False
    """The head asks for ``100 Continue`` and its body has not fully arrived."""


def _header_values(head: bytes, name: bytes) -> list[bytes]:
    out = []
    for line in head.split(b"\r\n")[1:]:
        key, sep, value = line.partition(b":")
        if sep and key.strip().lower() == name:
            out.append(value.strip())
    return out


def judge(buf: bytes, max_body: int) -> Judgement:
    """Whether ``buf`` (bytes read from a connection) holds a whole HTTP/1.x request.

    READY when gunicorn's parser can read the request without waiting for the network,
    including when the head is malformed: the parser then refuses it with its own error.
    Only the first request of ``buf`` is judged (pipelined ones follow after it).
    """
    end = buf.find(b"\r\n\r\n")
    if end < 0:
        return Judgement(Verdict.HEAD_TOO_LARGE if len(buf) > MAX_HEAD else Verdict.NEED_MORE)
    if end > MAX_HEAD:
        return Judgement(Verdict.HEAD_TOO_LARGE)
    head = buf[:end]
    body_at = end + 4
    codings = _header_values(head, b"transfer-encoding")
    lengths = _header_values(head, b"content-length")
    expects = any(v.lower() == b"100-continue" for v in _header_values(head, b"expect"))
    if codings:
        if lengths or len(codings) != 1 or codings[0].lower() != b"chunked":
            return Judgement(Verdict.READY)  # refused by the parser (400 or 501)
        done = _chunked_end(buf, body_at, max_body)
        if done is Verdict.NEED_MORE:
            return Judgement(Verdict.NEED_MORE, expects and len(buf) == body_at)
        return Judgement(done)
    if not lengths:
        return Judgement(Verdict.READY)
    if len(lengths) != 1 or not (lengths[0].isascii() and lengths[0].isdigit()):
        return Judgement(Verdict.READY)  # refused by the parser
    size = int(lengths[0])
    if size > max_body:
        return Judgement(Verdict.TOO_LARGE)
    if len(buf) - body_at >= size:
        return Judgement(Verdict.READY)
    return Judgement(Verdict.NEED_MORE, expects and len(buf) == body_at)


def _chunked_end(buf: bytes, pos: int, max_body: int) -> Verdict:
    """READY once the last chunk and the trailer section are in ``buf``."""
    total = 0
    while True:
        eol = buf.find(b"\r\n", pos, pos + MAX_CHUNK_LINE)
        if eol < 0:
            return Verdict.READY if len(buf) - pos > MAX_CHUNK_LINE else Verdict.NEED_MORE
        size_text = buf[pos:eol].split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            return Verdict.READY  # the parser refuses the chunk size
        if size < 0:
            return Verdict.READY
        if size == 0:
            # The trailer section: header lines, then an empty line.
            if buf.startswith(b"\r\n", eol + 2):
                return Verdict.READY
            trailer_end = buf.find(b"\r\n\r\n", eol + 2)
            if trailer_end >= 0:
                return Verdict.READY
            return Verdict.HEAD_TOO_LARGE if len(buf) - eol > MAX_HEAD else Verdict.NEED_MORE
        total += size
        if total > max_body:
            return Verdict.TOO_LARGE
        pos = eol + 2 + size + 2
        if len(buf) < pos:
            return Verdict.NEED_MORE


def error_bytes(status: int, message: str, details: dict[str, Any] | None = None) -> bytes:
    """A whole HTTP/1.1 response carrying the project's JSON error shape; it closes."""
    code = HTTP_CODES.get(status, "HTTP_ERROR" if status < 500 else "INTERNAL_ERROR")
    body = json.dumps({"code": code, "message": message, "details": details or {}}).encode()
    reason = _REASONS.get(status, "Error")
    head = (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


def write_json_error(sock: Any, status_int: int, reason: str, mesg: str) -> None:
    """Stands in for ``gunicorn.util.write_error`` in the worker process: JSON, not HTML."""
    message = mesg or reason
    if status_int >= 500:
        message = "internal error; the incident was logged"
    gunicorn_util.write_nonblock(sock, error_bytes(status_int, message))


class _Reading:
    """A connection's request being read in the event loop."""

    __slots__ = ("buf", "continued", "deadline", "draining", "registered", "started")

    def __init__(self) -> None:
        self.buf = bytearray()
        self.started: float | None = None
        """When the request's first byte arrived (None: none yet)."""
        self.deadline = 0.0
        self.continued = False
        self.draining = 0
        """Bytes discarded plus one, once the request was refused (0: reading it)."""
        self.registered = False


class FrontWorker(ThreadWorker):  # type: ignore[misc]
    """gthread, with each request read whole in the event loop before a thread takes it."""

    max_body = 256 * 1024
    request_timeout = 30.0

    def init_process(self) -> None:
        gunicorn_util.write_error = write_json_error
        self._reading: dict[Any, _Reading] = {}
        super().init_process()

    # Every path that hands a connection to a thread (accept, a kept-alive connection
    # becoming readable, bytes left over after a response) goes through enqueue_req,
    # always on the worker's event-loop thread.
    def enqueue_req(self, conn: Any) -> None:
        state = _Reading()
        now = time.monotonic()
        state.deadline = now + max(float(self.cfg.keepalive), 1.0)
        if conn.parser is not None:
            state.buf += conn.parser.unreader.take_buffered()
        if state.buf:
            state.started = now
            state.deadline = now + self.request_timeout
        self._reading[conn] = state
        conn.sock.setblocking(False)
        self._read_some(conn, state)
        if conn in self._reading and not state.registered:
            state.registered = True
            self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._on_readable, conn))

    def _on_readable(self, conn: Any, sock: Any) -> None:
        state = self._reading.get(conn)
        if state is not None:
            self._read_some(conn, state)

    def _read_some(self, conn: Any, state: _Reading) -> None:
        try:
            data: bytes | None = conn.sock.recv(RECV_SIZE)
        except (BlockingIOError, InterruptedError):
            data = None
        except OSError:
            data = b""
        if state.draining:
            if data is not None:
                state.draining += len(data)
                if not data or state.draining > DRAIN_BYTES:
                    self._drop(conn)
            return
        if data == b"":
            self._drop(conn)  # the client went away
            return
        if data:
            if state.started is None:
                state.started = time.monotonic()
                state.deadline = state.started + self.request_timeout
            state.buf += data
        if state.buf:
            self._advance(conn, state)

    def _advance(self, conn: Any, state: _Reading) -> None:
        """Hand a whole request to a thread, refuse one over a limit, or wait for more."""
        j = judge(bytes(state.buf), self.max_body)
        if j.verdict is Verdict.NEED_MORE:
            if j.expects_continue and not state.continued:
                state.continued = True
                self._send(conn, b"HTTP/1.1 100 Continue\r\n\r\n")
        elif j.verdict is Verdict.READY:
            self._leave(conn, state)
            if conn.parser is None:
                conn.parser = gunicorn_http.get_parser(self.cfg, conn.sock, conn.client)
            conn.parser.unreader.unread(bytes(state.buf))
            conn.data_ready = True  # the thread must not wait for the socket
            super().enqueue_req(conn)
        elif j.verdict is Verdict.TOO_LARGE:
            message = f"the request body is over the limit of {self.max_body} bytes"
            self._refuse(conn, state, error_bytes(413, message, {"limit": self.max_body}))
        else:
            message = f"the request head is over the limit of {MAX_HEAD} bytes"
            self._refuse(conn, state, error_bytes(431, message, {"limit": MAX_HEAD}))

    def _leave(self, conn: Any, state: _Reading) -> None:
        del self._reading[conn]
        if state.registered:
            state.registered = False
            with contextlib.suppress(KeyError, ValueError, OSError):
                self.poller.unregister(conn.sock)

    def _send(self, conn: Any, data: bytes) -> None:
        """A short answer written from the event loop (it fits the socket's buffer)."""
        try:
            conn.sock.settimeout(1.0)
            conn.sock.sendall(data)
        except OSError:
            pass
        finally:
            conn.sock.setblocking(False)

    def _refuse(self, conn: Any, state: _Reading, response: bytes) -> None:
        """Answer an error, then read and discard what the client still sends, and close."""
        self._send(conn, response)
        try:
            conn.sock.shutdown(socket.SHUT_WR)
        except OSError:
            self._drop(conn)
            return
        state.buf = bytearray()
        state.draining = 1
        state.deadline = time.monotonic() + DRAIN_SECONDS

    def _drop(self, conn: Any) -> None:
        state = self._reading.get(conn)
        if state is not None:
            self._leave(conn, state)
        self.nr_conns -= 1
        conn.close()

    def murder_pending(self) -> None:
        super().murder_pending()
        now = time.monotonic()
        for conn, state in list(self._reading.items()):
            if state.deadline > now:
                continue
            if state.started is None or state.draining:
                self._drop(conn)
            else:
                message = f"the request was not complete within {self.request_timeout:g} seconds"
                self._refuse(conn, state, error_bytes(408, message))

    def murder_keepalived(self, force: bool = False) -> None:
        super().murder_keepalived(force)
        if force:
            for conn in list(self._reading):
                self._drop(conn)


def front_worker(max_body: int, request_timeout: float) -> type[FrontWorker]:
    """The worker class for ``fairplay serve``, with the service's limits."""
    return type(
        "FairplayWorker",
        (FrontWorker,),
        {"max_body": max_body, "request_timeout": request_timeout, "__module__": __name__},
    )
