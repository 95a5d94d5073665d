"""Event streams over a real socket: the seat's stream is its player's only, signed in the
URL for a minute; the number of open streams is bounded; a change reaches a stream."""

from __future__ import annotations

import base64
import http.client
import json
import time
from collections.abc import Callable
from urllib.parse import urlencode, urlparse

from api.client import Identity
from api.signing import read_message
from tests.api.conftest import Running
from tests.api.helpers import open_table


def signed(ident: Identity, path: str, ts: int) -> str:
    sig = base64.b64encode(ident.signer.sign(read_message("GET", path, ts))).decode()
    return f"{path}?{urlencode({'player': ident.id, 'ts': ts, 'sig': sig})}"


def open_stream(url: str, path: str) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    u = urlparse(url)
    conn = http.client.HTTPConnection(u.hostname or "", u.port, timeout=10)
    conn.request("GET", path)
    return conn, conn.getresponse()


def read_events(
    resp: http.client.HTTPResponse, n: int, skip: tuple[str, ...] = ("chat",)
) -> list[tuple[str, dict]]:
    """The next ``n`` events of a stream, leaving out the kinds in ``skip`` (the table's
    chat, sent on connect and on each message: tests/api/test_chat.py)."""
    out: list[tuple[str, dict]] = []
    buf = b""
    while len(out) < n:
        buf += resp.read1(65536)
        while b"\n\n" in buf:
            block, buf = buf.split(b"\n\n", 1)
            lines = dict(line.split(": ", 1) for line in block.decode().split("\n") if ": " in line)
            if "event" in lines and lines["event"] not in skip:
                out.append((lines["event"], json.loads(lines["data"])))
    return out


def test_a_seats_stream_is_its_players_only(make_service: Callable[..., Running]) -> None:
    now = [time.time()]
    service = make_service(clock=lambda: now[0])
    t = open_table(service.client(), service.origin)
    path = f"/v1/tables/{t.id}/seats/N/stream"
    ts = int(now[0])
    for who, query, status in (
        (t.players["E"], signed(t.players["E"], path, ts), 403),  # another seat's player
        (t.players["N"], path, 401),  # unsigned
        (t.players["N"], signed(t.players["N"], path, ts - 61), 401),  # a stale URL
        # a URL signed for another path
        (t.players["N"], path + "?" + signed(t.players["N"], path + "x", ts).split("?")[1], 401),
    ):
        conn, resp = open_stream(service.url, query)
        body = json.loads(resp.read())
        assert resp.status == status and body["code"] and body["message"], (who.id, body)
        conn.close()
    conn, resp = open_stream(service.url, signed(t.players["N"], path, ts))
    assert resp.status == 200 and resp.getheader("Content-Type", "").startswith("text/event-stream")
    (kind, first), (kind2, state) = read_events(resp, 2)
    assert (kind, kind2) == ("table", "state") and state["cards"]["seat"] == "N"
    t.commit_all()  # a change reaches the open stream
    later = read_events(resp, 1)[0][1]
    assert later["hand"]["next_seq"] > state["hand"]["next_seq"]
    conn.close()


def test_open_streams_are_bounded(make_service: Callable[..., Running]) -> None:
    service = make_service(max_streams=1)
    t = open_table(service.client(), service.origin)
    conn, resp = open_stream(service.url, f"/v1/tables/{t.id}/stream")
    assert resp.status == 200
    read_events(resp, 1)
    conn2, resp2 = open_stream(service.url, f"/v1/tables/{t.id}/stream")
    body = json.loads(resp2.read())
    assert resp2.status == 429 and body["code"] == "TOO_MANY_REQUESTS"
    assert resp2.getheader("Retry-After") == "5"
    conn.close()
    conn2.close()


def test_a_players_newest_stream_supersedes_the_oldest(
    make_service: Callable[..., Running],
) -> None:
    """A person who reloads a page twice (or opens the seat in a third window) is followed
    at once: the newest stream opens, and the oldest ends with a ``bye`` that tells its
    page not to reconnect (a closed page's stream was only noticed at its next write, up
    to 15 s later, and the third stream was refused until then)."""
    service = make_service(max_streams=8)
    t = open_table(service.client(), service.origin)
    path = f"/v1/tables/{t.id}/seats/N/stream"
    opened = []
    for _ in range(3):
        conn, resp = open_stream(service.url, signed(t.players["N"], path, int(time.time())))
        assert resp.status == 200, resp.status
        assert [k for k, _ in read_events(resp, 2)] == ["table", "state"]
        opened.append((conn, resp))
    started = time.monotonic()
    ((kind, bye),) = read_events(opened[0][1], 1)
    assert (kind, bye) == ("bye", {"reconnect": False, "superseded": True})
    assert time.monotonic() - started < 5
    # The two newest still follow the table.
    t.commit_all()
    for _, resp in opened[1:]:
        kind, state = read_events(resp, 1)[0]
        assert kind == "state" and state["cards"]["seat"] == "N"
    for conn, _ in opened:
        conn.close()
