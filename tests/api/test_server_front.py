"""The production front (``fairplay serve``, gunicorn) seen through raw sockets.

Body limits hold for chunked bodies too, gunicorn's own errors have the JSON error
shape, and clients that trickle their requests cannot take the worker threads from
everyone else (api/server.py).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from api.client import Client
from api.server import MAX_HEAD, Verdict, judge
from tests.api.conftest import ADMIN, Running
from tests.api.helpers import free_port

# one worker starts the gunicorn server once for every test of the module (make test's xdist)
pytestmark = pytest.mark.xdist_group("server_front")

ROOT = Path(__file__).resolve().parents[2]
MAX_BODY = 8192
REQUEST_TIMEOUT = 4
EXAMPLE = json.loads((ROOT / "audit" / "record" / "examples" / "worked-example.json").read_text())


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """One gunicorn worker with four threads: four stuck requests would block it all."""
    tmp = tmp_path_factory.mktemp("front")
    port = free_port()
    cmd = [sys.executable, "-m", "audit.cli", "serve", "--port", str(port)]
    cmd += ["--workers", "1", "--threads", "4", "--data-dir", str(tmp / "data")]
    env = dict(
        os.environ,
        FAIRPLAY_ADMIN_TOKEN=ADMIN,
        FAIRPLAY_MAX_BODY=str(MAX_BODY),
        FAIRPLAY_REQUEST_TIMEOUT=str(REQUEST_TIMEOUT),
    )
    log = open(tmp / "serve.log", "w")  # noqa: SIM115 - closed after the server stops
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log)
    try:
        client = Client(f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + 30
        while True:
            try:
                client.call("GET", "/healthz")
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError((tmp / "serve.log").read_text()) from None
                time.sleep(0.2)
        client.close()
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        log.close()


class Conn:
    """A raw client connection that reads responses one at a time (pipelining too)."""

    def __init__(self, port: int, timeout: float = 10) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.rest = b""

    def __enter__(self) -> Conn:
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def _more(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise AssertionError(f"the connection closed after {self.rest!r}")
        self.rest += chunk

    def response(self) -> tuple[int, dict[str, str], bytes]:
        """The next response (every answer of this service has a Content-Length)."""
        while b"\r\n\r\n" not in self.rest:
            self._more()
        head, _, self.rest = self.rest.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {
            k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])
        }
        size = 0 if status == 100 else int(headers["content-length"])
        while len(self.rest) < size:
            self._more()
        body, self.rest = self.rest[:size], self.rest[size:]
        return status, headers, body


def exchange(port: int, data: bytes) -> tuple[int, dict[str, str], bytes]:
    with Conn(port) as c:
        c.send(data)
        return c.response()


def chunked(body: bytes, size: int = 1000) -> bytes:
    parts = [
        b"%x\r\n%s\r\n" % (len(body[i : i + size]), body[i : i + size])
        for i in range(0, len(body), size)
    ]
    return b"".join(parts) + b"0\r\n\r\n"


def post_head(path: str, extra: str = "") -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n{extra}\r\n"
    ).encode()


def assert_json_error(status: int, headers: dict[str, str], body: bytes, code: str) -> None:
    assert headers["content-type"].startswith("application/json"), body
    error = json.loads(body)
    assert error["code"] == code and error["message"], error
    assert "<html" not in body.decode().lower()


# ------------------------------------------------------------------------ body limits


def test_a_chunked_body_over_the_limit_is_refused_413(served: int) -> None:
    # Valid JSON all along, so that a body cut at the limit would parse and be accepted.
    body = json.dumps(EXAMPLE, indent=1).encode() + b" " * MAX_BODY
    status, headers, reply = exchange(
        served, post_head("/v1/audits", "Transfer-Encoding: chunked\r\n") + chunked(body)
    )
    assert status == 413
    assert_json_error(status, headers, reply, "PAYLOAD_TOO_LARGE")


def test_a_chunked_body_under_the_limit_is_read_whole(served: int) -> None:
    body = json.dumps(EXAMPLE).encode()
    assert len(body) < MAX_BODY
    status, _, reply = exchange(
        served,
        post_head("/v1/audits", "Transfer-Encoding: chunked\r\nConnection: close\r\n")
        + chunked(body, 333),
    )
    assert status == 201, reply
    assert json.loads(reply)["report"]["verdict"]


def test_a_content_length_over_the_limit_is_refused_before_the_body(served: int) -> None:
    status, headers, reply = exchange(
        served, post_head("/v1/audits", f"Content-Length: {MAX_BODY + 1}\r\n")
    )
    assert status == 413
    assert_json_error(status, headers, reply, "PAYLOAD_TOO_LARGE")


# ------------------------------------------------------------- gunicorn's own errors


@pytest.mark.parametrize(
    ("request_bytes", "status", "code"),
    [
        (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: t\r\n\r\n", 414, "URI_TOO_LONG"),
        (b"BLAH\r\n\r\n", 400, "BAD_REQUEST"),
        (b"GET / HTTP/9.9\r\nHost: t\r\n\r\n", 400, "BAD_REQUEST"),
        (
            b"GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n",
            431,
            "HEADERS_TOO_LARGE",
        ),
        (b"GET / HTTP/1.1\r\nHost: t\r\nX: " + b"a" * (MAX_HEAD + 10), 431, "HEADERS_TOO_LARGE"),
        (
            post_head("/v1/audits", "Transfer-Encoding: chunked\r\n") + b"zz\r\n{}\r\n0\r\n\r\n",
            400,
            "BAD_REQUEST",
        ),
        (post_head("/v1/audits", "Transfer-Encoding: gzip\r\n") + b"{}", 400, "BAD_REQUEST"),
    ],
    ids=[
        "uri-too-long",
        "bad-request-line",
        "bad-version",
        "header-too-large",
        "head-too-large",
        "bad-chunk-size",
        "unknown-coding",
    ],
)
def test_gunicorns_errors_have_the_json_shape(
    served: int, request_bytes: bytes, status: int, code: str
) -> None:
    got, headers, body = exchange(served, request_bytes)
    assert got == status, body
    assert_json_error(got, headers, body, code)


# ---------------------------------------------------------------------- slow clients


def test_trickling_clients_do_not_starve_the_service(served: int) -> None:
    slow: list[Conn] = []
    try:
        for _ in range(48):  # twelve times the worker's threads
            c = Conn(served)
            c.send(post_head("/v1/audits", "Content-Length: 100\r\n") + b"{")
            slow.append(c)
        time.sleep(0.5)
        for c in slow:
            c.send(b" ")  # still trickling
        start = time.monotonic()
        status, _, body = exchange(served, b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        assert status == 200, body
        assert time.monotonic() - start < 2.0
        slow[0].send(b" " * 97 + b"}")  # the rest of one body: it is answered
        status, headers, body = slow[0].response()
        assert status == 422 and json.loads(body)["code"] == "INVALID_RECORD"
    finally:
        for c in slow:
            c.sock.close()


def test_a_request_trickled_byte_by_byte_is_answered(served: int) -> None:
    data = b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"
    with Conn(served) as c:
        c.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for i in range(len(data)):
            c.send(data[i : i + 1])
            time.sleep(0.02)
        status, _, body = c.response()
    assert status == 200 and json.loads(body)["status"] == "ok"


def test_a_request_not_complete_in_time_gets_408(served: int) -> None:
    with Conn(served, timeout=REQUEST_TIMEOUT + 10) as c:
        c.send(post_head("/v1/audits", "Content-Length: 100\r\n") + b"{")
        status, headers, body = c.response()
    assert status == 408
    assert_json_error(status, headers, body, "REQUEST_TIMEOUT")


def test_keep_alive_pipelining_and_expect_continue(served: int) -> None:
    one = b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"
    with Conn(served) as c:
        c.send(one + one)  # pipelined
        assert c.response()[0] == 200
        assert c.response()[0] == 200
        c.send(one)  # kept alive
        assert c.response()[0] == 200
        body = json.dumps(EXAMPLE).encode()
        head = f"Content-Length: {len(body)}\r\nExpect: 100-continue\r\n"
        c.send(post_head("/v1/audits", head))
        assert c.response()[0] == 100  # before the body is sent
        c.send(body)
        status, _, reply = c.response()
        while status == 100:  # gunicorn may send its own as well
            status, _, reply = c.response()
        assert status in (200, 201), reply  # 200: the record was uploaded by an earlier test
        assert json.loads(reply)["source"] == "upload"


# ------------------------------------------------------------------------------ judge


def test_judge_waits_for_the_whole_request() -> None:
    head = b"POST / HTTP/1.1\r\nHost: t\r\ncontent-length: 5\r\n\r\n"
    assert judge(head[:-2], 100).verdict is Verdict.NEED_MORE
    assert judge(head + b"1234", 100).verdict is Verdict.NEED_MORE
    assert judge(head + b"12345", 100).verdict is Verdict.READY
    assert judge(head + b"12345", 4).verdict is Verdict.TOO_LARGE
    te = b"POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n"
    assert judge(te + b"3\r\nabc\r\n", 100).verdict is Verdict.NEED_MORE
    assert judge(te + b"3;x=y\r\nabc\r\n0\r\n", 100).verdict is Verdict.NEED_MORE
    assert judge(te + b"3\r\nabc\r\n0\r\n\r\n", 100).verdict is Verdict.READY
    assert judge(te + b"3\r\nabc\r\n0\r\nT: 1\r\n\r\n", 100).verdict is Verdict.READY
    assert judge(te + b"3\r\nabc\r\n3\r\nabc\r\n", 5).verdict is Verdict.TOO_LARGE
    # What gunicorn's parser refuses is handed to it at once (it answers 400 or 501).
    assert judge(te + b"q\r\n", 100).verdict is Verdict.READY
    assert judge(b"GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n", 100).verdict is Verdict.READY
    assert judge(b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * 20000, 100).verdict is Verdict.HEAD_TOO_LARGE
    expect = b"POST / HTTP/1.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n"
    assert judge(expect, 100).expects_continue
    assert not judge(expect + b"1", 100).expects_continue


def test_the_app_refuses_a_chunked_body_over_the_limit_under_any_server(
    make_service: Callable[..., Running],
) -> None:
    """The second line of defence, for a server that hands the app a chunked stream."""
    service = make_service(max_body=MAX_BODY)
    port = int(service.url.rsplit(":", 1)[1])
    body = json.dumps(EXAMPLE, indent=1).encode() + b" " * MAX_BODY
    head = post_head("/v1/audits", "Transfer-Encoding: chunked\r\nConnection: close\r\n")
    status, headers, reply = exchange(port, head + chunked(body))
    assert status == 413
    assert_json_error(status, headers, reply, "PAYLOAD_TOO_LARGE")
