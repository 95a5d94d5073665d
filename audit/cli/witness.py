"""``fairplay witness``: follow a log over HTTP, cosign its checkpoints, refuse split views.

  fairplay witness --log URL --key FILE [--state FILE] [--log-key VKEY]
                   [--interval S] [--once] [--evidence FILE]
  fairplay witness --key FILE --new-key NAME      create the witness key; print its vkey
  fairplay witness --key FILE --print-key         print the witness's verifier key

The witness fetches ``URL/v1/log/checkpoint``, checks the log's signature and that the
checkpoint extends the last one it cosigned (``URL/v1/log/proofs/consistency``), cosigns
it (c2sp.org/tlog-cosignature v1) and posts the cosigned note to
``URL/v1/log/cosignatures``. Its state (the log's pinned key and the last cosigned
checkpoint) is kept in ``--state`` (default: the key file's name + ``.state.json``), so a
restarted witness carries on where it stopped. Without ``--log-key`` the log's key is
fetched from ``URL/v1/log/key`` at first contact and pinned in the state.

Exit status: 0 when a ``--once`` step succeeded (or on interrupt), 1 on a split view: the
witness refuses, prints the reason and writes the evidence (both signed checkpoints and
the proof served) to ``--evidence`` (default: beside the state file), 2 on a usage,
key or (with ``--once``) network error, and also, following or not, when the log refuses
a request in a way that asking again will not change (an HTTP 4xx other than 408, 409,
425 and 429: the log does not take this witness's key, say). Without ``--once`` network
errors, 5xx (a 503: the log's database restarting) and those four are printed and retried
with backoff, from half a second up to once an interval (a 409: a host behind the same
address has not reached the checkpoint yet).
"""

from __future__ import annotations

import argparse
import base64
import binascii
import json
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from audit.log.cosignature import witness_key_of
from audit.log.errors import LogError
from audit.log.keys import generate_signer, load_signer, load_verifier, save_signer
from audit.log.witness import SplitViewError, Witness

__all__ = ["MAX_RESPONSE", "TIMEOUT", "HttpLog", "LogRefused", "register", "run_witness"]

TIMEOUT = 15.0
RETRY_FIRST = 0.5
"""Seconds before the first retry after a failed step (doubling up to ``--interval``)."""
MAX_RESPONSE = 4 * 1024 * 1024
RETRIED_4XX = frozenset({408, 409, 425, 429})
"""The refusals that may pass: a timeout, a host that has not reached the checkpoint yet,
too early, too many requests."""


class LogRefused(LogError):
    """The log refused a request, and asking again will not change its answer (an HTTP
    4xx not in :data:`RETRIED_4XX`)."""

    code = "LOG_REFUSED"


class HttpLog:
    """A log served by ``fairplay serve`` (or any service with the same routes)."""

    def __init__(self, url: str, timeout: float = TIMEOUT) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout

    def _call(self, path: str, data: bytes | None = None) -> bytes:
        req = urllib.request.Request(
            self.url + path,
            data=data,
            method="POST" if data is not None else "GET",
            headers={"Content-Type": "text/plain; charset=utf-8"} if data is not None else {},
        )
        deadline = time.monotonic() + self.timeout  # the whole request, not each read
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                chunks: list[bytes] = []
                size = 0
                while size <= MAX_RESPONSE:
                    if time.monotonic() > deadline:
                        raise LogError(
                            f"{req.method} {self.url}{path}: no whole answer in {self.timeout:g} s"
                        )
                    chunk = resp.read1(65536)
                    if not chunk:
                        break
                    chunks.append(chunk)
                    size += len(chunk)
                body = b"".join(chunks)
        except urllib.error.HTTPError as exc:
            detail = exc.read(4096).decode("utf-8", "replace")
            try:
                err = json.loads(detail)
                detail = f"{err['code']}: {err['message']}"
            except (ValueError, KeyError, TypeError):
                detail = detail.strip()[:200]
            refused = 400 <= exc.code < 500 and exc.code not in RETRIED_4XX
            raise (LogRefused if refused else LogError)(
                f"{req.method} {self.url}{path}: HTTP {exc.code} {detail}"
            ) from exc
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise LogError(
                f"{req.method} {self.url}{path}: cannot reach the log: {reason}"
            ) from exc
        if len(body) > MAX_RESPONSE:
            raise LogError(f"GET {self.url}{path}: response too large")
        return body

    def key(self) -> str:
        return self._call("/v1/log/key").decode("utf-8", "replace").strip()

    def checkpoint(self) -> str:
        return self._call("/v1/log/checkpoint").decode("utf-8", "replace")

    def consistency(self, first: int, second: int) -> list[bytes]:
        raw = self._call(f"/v1/log/proofs/consistency?from={first}&to={second}")
        try:
            data = json.loads(raw)
            return [base64.b64decode(h, validate=True) for h in data["proof"]]
        except (ValueError, KeyError, TypeError, binascii.Error) as exc:
            raise LogError(f"the log's consistency proof {first}..{second} is malformed") from exc

    def submit(self, cosigned_note: str) -> None:
        self._call("/v1/log/cosignatures", cosigned_note.encode())


def _evidence_path(args: argparse.Namespace, state: Path, size: int) -> Path:
    if args.evidence:
        return Path(args.evidence)
    return state.with_name(f"{state.stem}.split-view-{size}-{int(time.time())}.json")


def run_witness(args: argparse.Namespace) -> int:
    key_path = Path(args.key)
    if args.new_key:
        signer = generate_signer(args.new_key)
        save_signer(signer, key_path)
        print(witness_key_of(signer).text())
        return 0
    signer = load_signer(key_path)
    if args.print_key:
        print(witness_key_of(signer).text())
        return 0
    if not args.log:
        raise LogError("--log URL is required (the log to follow)")
    if args.interval <= 0:
        raise LogError("--interval must be a positive number of seconds")
    state_path = (
        Path(args.state) if args.state else key_path.with_name(key_path.name + ".state.json")
    )
    log_key = load_verifier(args.log_key) if args.log_key else None
    witness = Witness(signer, state_path, log_key=log_key, clock=time.time)
    log = HttpLog(args.log)
    name = witness.key.name
    backoff = 0.0
    while True:
        try:
            outcome = witness.step(log, fetch_key=log.key)
        except SplitViewError as exc:
            sizes = exc.evidence["sizes"]
            path = _evidence_path(args, state_path, sizes[1])
            text = json.dumps(exc.evidence, indent=2, ensure_ascii=False) + "\n"
            path.write_text(text, encoding="utf-8")
            print(f"fairplay witness {name}: REFUSED {exc.message}", file=sys.stderr)
            print(f"fairplay witness {name}: evidence written to {path}", file=sys.stderr)
            sys.stdout.write(text)
            return 1
        except LogRefused:
            raise  # asking again gets the same answer: exit 2 with it
        except LogError as exc:
            if args.once:
                raise
            # The log unreachable or answering 503 (its database restarting): asked
            # again soon, then less often, up to once an interval.
            backoff = min(args.interval, RETRY_FIRST if backoff == 0 else backoff * 2)
            print(
                f"fairplay witness {name}: {exc.message}; retrying in {backoff:g} s",
                file=sys.stderr,
            )
            time.sleep(backoff)
            continue
        else:
            backoff = 0.0
            print(f"{name}: {outcome.action} size {outcome.size}", flush=True)
            if args.once:
                return 0
        time.sleep(args.interval)


def register(subparsers: Any) -> None:
    w = subparsers.add_parser(
        "witness",
        help="follow a log, cosign its checkpoints, refuse split views",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    w.add_argument("--log", help="the log service's base URL, e.g. http://127.0.0.1:8000")
    w.add_argument("--key", required=True, help="the witness's signer key file")
    w.add_argument("--state", help="state file (default: KEY.state.json)")
    w.add_argument("--log-key", help="the log's verifier key (text or file); default: pinned")
    w.add_argument("--interval", type=float, default=10.0, help="seconds between polls")
    w.add_argument("--once", action="store_true", help="one step, then exit")
    w.add_argument("--evidence", help="where to write split-view evidence")
    w.add_argument("--new-key", metavar="NAME", help="create the witness key file KEY")
    w.add_argument("--print-key", action="store_true", help="print the witness verifier key")
    w.set_defaults(func=run_witness)
