"""The offline verifiers against hostile files (issue 18, part 3, item 10).

``fairplay verify``, ``fairplay tournament verify`` and ``fairplay shuffle verify`` read a
file a stranger may have written. Exit 1 means "tampering found"; a file that cannot be
read as the document it claims to be is exit 2, one line naming where, no traceback.
Invalid UTF-8, deep nesting, a 5000-digit integer and ``728²`` crashed them with exit 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.cli import main
from audit.log.keys import generate_signer

KEY = generate_signer("log.test").verifier().text()

HOSTILE = [
    b"\xff\xfe{\x80}",  # not UTF-8
    b"[" * 100_000 + b"]" * 100_000,  # nesting past the parser's recursion limit
    b'{"format": ' + b"9" * 5000 + b"}",  # more digits than int() takes
]
# Well-formed JSON that is not a bundle: refused (1 or 2), never a traceback.
ODD = [
    b'{"checkpoint": "o\\n728\\u00b2\\nAAAA\\n", "events": [], "proof": [[[[[]]]]]}',
    b'{"a": 1, "a": 2}',  # a key named twice
    b"[]",
    b"null",
    b'{"events": "x", "hand": {}, "table": 7}',
]


def verifiers(path: Path) -> list[list[str]]:
    return [
        ["verify", str(path), "--key", KEY],
        ["tournament", "verify", str(path), "--key", KEY],
        ["shuffle", "verify", str(path)],
    ]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out + err


@pytest.mark.parametrize("data", HOSTILE, ids=range(len(HOSTILE)))
def test_a_hostile_file_is_exit_2_without_a_traceback(
    data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "hostile.json"
    path.write_bytes(data)
    for argv in verifiers(path):
        status, text = run(argv, capsys)
        assert status == 2, (argv[:2], status, text[:300])
        assert "Traceback" not in text and text[-1:] == "\n" and text.count("\n") == 1


@pytest.mark.parametrize("data", ODD, ids=range(len(ODD)))
def test_a_file_that_is_not_a_bundle_is_refused_without_a_traceback(
    data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "odd.json"
    path.write_bytes(data)
    for argv in verifiers(path):
        status, text = run(argv, capsys)
        assert status in (1, 2), (argv[:2], status, text[:300])
        assert "Traceback" not in text


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=st.one_of(
        st.binary(max_size=300),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=20),
            lambda inner: (
                st.lists(inner, max_size=4)
                | st.dictionaries(st.text(max_size=8), inner, max_size=4)
            ),
            max_leaves=30,
        ).map(lambda v: json.dumps(v).encode()),
    )
)
def test_every_offline_verifier_holds_against_any_input(
    data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Whatever the file, each verifier answers 1 or 2 (never 0, never an exception)."""
    path = tmp_path / "fuzz.json"
    path.write_bytes(data)
    for argv in verifiers(path):
        status, text = run(argv, capsys)
        assert status in (1, 2), (argv[:2], status, text[:300])
        assert "Traceback" not in text


def test_the_witness_timeout_covers_the_whole_request() -> None:
    """A log that trickles a byte every 0.2 s held the witness for as long as it liked
    (the timeout was per read): the whole answer must come within the timeout."""
    import socket
    import threading
    import time

    from audit.cli.witness import HttpLog
    from audit.log.errors import LogError

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    stop = threading.Event()

    def trickle() -> None:
        conn, _ = server.accept()
        conn.recv(4096)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
        while not stop.is_set():
            try:
                conn.sendall(b"x")
            except OSError:
                break
            time.sleep(0.2)
        conn.close()

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    began = time.monotonic()
    with pytest.raises(LogError, match="no whole answer"):
        HttpLog(f"http://127.0.0.1:{server.getsockname()[1]}", timeout=1.0).checkpoint()
    assert time.monotonic() - began < 5
    stop.set()
    server.close()


def test_deep_nesting_is_refused_even_under_a_raised_recursion_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """hypothesis raises the recursion limit around its examples; under a raised limit the
    C parser would recurse until the C stack overflows (a crash of the whole process), so
    the nesting is counted first."""
    import sys

    path = tmp_path / "deep.json"
    path.write_bytes(HOSTILE[1])
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1_000_000)
    try:
        for argv in verifiers(path):
            status, text = run(argv, capsys)
            assert status == 2 and "nests too deep" in text, (argv[:2], status, text[:300])
    finally:
        sys.setrecursionlimit(limit)
