"""Defects found by hostile testing (issue 18, part 3), each against a real service.

Each test here failed on the code before its fix: a stranger's hostile input, a retried
or concurrent request, or a replay, must be refused with a 4xx naming what is wrong (or
have exactly one effect), never a 5xx or a traceback.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from audit.log.cosignature import witness_key_of
from audit.log.keys import generate_signer

from .conftest import Running


def post_raw(
    url: str, path: str, body: bytes, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    req = urllib.request.Request(url + path, data=body, method="POST", headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


# ---------------------------------------------------------------- 4. cosignatures


def test_a_hostile_tree_size_in_a_cosigned_checkpoint_is_a_400(
    make_service: Callable[..., Running],
) -> None:
    """``²`` passes ``str.isdigit`` and 5000 digits pass it too, but ``int`` raises on
    both: the note is checked against the log key before its checkpoint is parsed, and
    the size line is parsed strictly (ASCII digits, at most 20)."""
    witness = generate_signer("w.test")
    service = make_service(witness_keys=(witness_key_of(witness).text(),))
    origin = service.origin
    root = "A" * 43 + "="
    for size in ("\u00b2", "9" * 5000, "\u0663", "12\u00b2"):
        body = f"{origin}\n{size}\n{root}\n\n\u2014 {origin} AAAAAAAA\n".encode()
        status, answer = post_raw(service.url, "/v1/log/cosignatures", body)
        assert status == 400, (size[:10], status, answer)
        assert answer["details"]["path"] == "body"


def test_a_checkpoint_parses_its_size_and_a_proof_its_index_strictly() -> None:
    """Signed by the log key or not, a size or index that ``int`` refuses is a NoteError
    or LogInconsistent (what a verifier turns into exit 2), never a ValueError."""
    import pytest

    from audit.log.checkpoint import parse, verify_tlog_proof
    from audit.log.errors import LogError
    from audit.log.note import sign

    signer = generate_signer("log.test")
    root = "A" * 43 + "="
    for size in ("\u00b2", "9" * 5000, "\u0663", "18446744073709551616", "01", "-1", " 1"):
        with pytest.raises(LogError):
            parse(f"log.test\n{size}\n{root}\n")
        note_text = sign(f"log.test\n1\n{root}\n", signer)
        with pytest.raises(LogError):
            verify_tlog_proof(
                f"c2sp.org/tlog-proof@v1\nindex {size}\n\n{note_text}", b"x", signer.verifier()
            )
    assert parse(f"log.test\n18446744073709551615\n{root}\n").size == 2**64 - 1
