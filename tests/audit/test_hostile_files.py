"""The offline verifiers against hostile files (issue 18, part 3, item 10).

``fairplay verify``, ``fairplay tournament verify`` and ``fairplay shuffle verify`` read a
file a stranger may have written. Exit 1 means "tampering found"; a file that cannot be
read as the document it claims to be is exit 2, one line naming where, no traceback.
Invalid UTF-8, deep nesting, a 5000-digit integer and ``728²`` crashed them with exit 1.
"""

from __future__ import annotations

import base64
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
    b'{"\\n": 1}',  # a key that is a line break (its name would break the one line)
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
def test_a_file_that_is_not_a_bundle_is_exit_2_naming_the_path(
    data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Malformed input is exit 2 (exit 1 says "tampering found"), one line naming the
    JSON path; ``fairplay verify`` answered exit 1 ``LOG_INCONSISTENT`` to ``[]``."""
    path = tmp_path / "odd.json"
    path.write_bytes(data)
    for argv in verifiers(path):
        status, text = run(argv, capsys)
        assert status == 2, (argv[:2], status, text[:300])
        assert "Traceback" not in text and text.count("\n") == 1, text
        assert "$" in text or "bundle." in text or "shuffle" in text, text


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
    """Whatever the file (none is a bundle or a transcript), each verifier answers exit 2
    in one line: malformed, never "tampering found", never an exception."""
    path = tmp_path / "fuzz.json"
    path.write_bytes(data)
    for argv in verifiers(path):
        status, text = run(argv, capsys)
        assert status == 2 and text.count("\n") == 1, (argv[:2], status, text[:300])
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


class _HostileLog:
    """A log over HTTP whose answers the test sets (``answers[path]``): its signed
    checkpoints and proofs are whatever a hostile operator holding the key serves."""

    def __init__(self) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        answers: dict[str, bytes] = {}
        self.answers = answers

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = answers.get(self.path.split("?")[0], b"")
                self.send_response(200 if body else 404)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:  # a cosignature: taken
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_the_witness_against_a_hostile_log_is_exit_2_or_writes_the_evidence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A log holding its key served a checkpoint of size ``728²`` and a nested proof: the
    witness crashed with a traceback and wrote no evidence. A checkpoint it cannot read,
    or a proof of an extension it cannot read, is exit 2 in one line (nothing cosigned);
    a smaller tree with a proof it cannot read is a rollback: exit 1, the evidence (both
    signed checkpoints) written."""
    from audit.log import merkle
    from audit.log.checkpoint import Checkpoint
    from audit.log.note import sign

    log_key = generate_signer("log.test")
    witness = tmp_path / "w.key"
    assert main(["witness", "--key", str(witness), "--new-key", "w.test"]) == 0
    leaves = [f"leaf {n}".encode() for n in range(8)]
    log = _HostileLog()
    try:
        base = ["witness", "--log", log.url, "--key", str(witness), "--once"]
        base += ["--log-key", log_key.verifier_key(), "--evidence", str(tmp_path / "ev.json")]

        def served(size: int) -> None:
            cp = Checkpoint("log.test", size, merkle.root_hash(leaves[:size]))
            log.answers["/v1/log/checkpoint"] = cp.sign(log_key).encode()

        def witness_once() -> tuple[int, str]:
            capsys.readouterr()
            status = main(base)
            out, err = capsys.readouterr()
            assert "Traceback" not in out + err
            return status, err

        root = base64.b64encode(merkle.root_hash(leaves[:4])).decode()
        log.answers["/v1/log/checkpoint"] = sign(f"log.test\n728\u00b2\n{root}\n", log_key).encode()
        status, err = witness_once()
        assert status == 2 and err.count("\n") == 1 and "size" in err, err
        served(4)
        assert witness_once()[0] == 0  # cosigned at size 4
        nested = json.dumps({"proof": [[[[[]]]]]}).encode()
        log.answers["/v1/log/proofs/consistency"] = nested
        served(8)  # an extension it cannot check: nothing cosigned, try later
        status, err = witness_once()
        assert status == 2 and "malformed" in err, err
        served(2)  # a smaller tree it cannot prove a prefix of the one signed: a rollback
        status, err = witness_once()
        assert status == 1 and "rollback" in err, err
        evidence = json.loads((tmp_path / "ev.json").read_text())
        assert evidence["sizes"] == [4, 2]
    finally:
        log.close()


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
