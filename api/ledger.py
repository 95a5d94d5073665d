"""The service's side of the signed hand log (``audit.log``), in the service's database.

The server signs its own events (a hand's opening commitment, its seed reveal, the end
of the hand) with the log's key under the actor id ``server``; players' keys are
registered in the log's key registry when they register, so the log itself refuses an
event signed by any other key. Every accepted event, player-signed or server-signed,
is appended to the log, which is the source of truth for a hand's history (the service's
``api_hands`` row is a cache of it). The checkpoint advances when a hand ends.
"""

from __future__ import annotations

import base64
import contextlib
import os
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from api.config import Config
from api.db import private_dir
from api.errors import BadRequest, NotFound
from audit.log.checkpoint import parse as parse_checkpoint
from audit.log.events import make_event, sign_event
from audit.log.keys import Signer, Verifier, generate_signer, load_signer, save_signer
from audit.log.merkle import leaf_hash
from audit.log.note import parse as parse_note
from audit.log.store import Log, open_log

SERVER_ACTOR = "server"
CHECKPOINT_INTERVAL = 10.0
"""Seconds a checkpoint served to readers stays the latest (a hand's end issues one now)."""


def key_name(origin: str) -> str:
    """The log key's name: the origin without characters a key name cannot hold."""
    return "".join(ch for ch in origin if ch != "+" and not ch.isspace()) or "cayenne-fairplay"


def load_or_create_signer(path: Path, name: str) -> Signer:
    """The log's signer from ``path``, created (mode 0600) when the file is absent."""
    if not path.exists():
        private_dir(path.parent)
        with contextlib.suppress(FileExistsError):  # another worker created it first
            save_signer(generate_signer(name), path)
    return load_signer(path)


def b64_list(hashes: list[bytes]) -> list[str]:
    return [base64.b64encode(h).decode() for h in hashes]


class GroupCommit:
    """Appends from many request threads, committed in batches by one thread per process."""

    def __init__(self, log: Log) -> None:
        self.log = log
        self._queue: list[tuple[list[dict[str, Any]], Future[list[int]]]] = []
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._pid = 0

    def append(self, events: list[dict[str, Any]]) -> list[int]:
        if not events:
            return []
        done: Future[list[int]] = Future()
        with self._cond:
            if self._thread is None or self._pid != os.getpid():  # first use, or after fork
                self._pid = os.getpid()
                self._thread = threading.Thread(target=self._run, name="log-commit", daemon=True)
                self._thread.start()
            self._queue.append((events, done))
            self._cond.notify()
        return done.result()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue:
                    self._cond.wait()
                batch, self._queue = self._queue, []
            flat = [e for events, _ in batch for e in events]
            try:
                indices = self.log.append(flat)
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting requests
                if len(batch) == 1:
                    batch[0][1].set_exception(exc)
                    continue
                for events, done in batch:
                    try:
                        done.set_result(self.log.append(events))
                    except BaseException as one:  # noqa: BLE001
                        done.set_exception(one)
                continue
            start = 0
            for events, done in batch:
                done.set_result(indices[start : start + len(events)])
                start += len(events)


class Ledger:
    """The log, opened once per process."""

    def __init__(self, config: Config, database_url: str) -> None:
        key_file = Path(config.log_key_file or Path(config.data_dir) / "log-key")
        self.signer = load_or_create_signer(key_file, key_name(config.log_origin))
        self.origin = config.log_origin
        self.log: Log = open_log(database_url, self.origin, self.signer, clock=config.clock)
        if self.signer.verifier_key() not in self.log.actor_keys(SERVER_ACTOR):
            self.log.register_key(SERVER_ACTOR, self.signer.verifier())
        self.committer = GroupCommit(self.log)

    def close(self) -> None:
        self.log.close()

    def server_seed(self, table: str, hand: int) -> bytes:
        """The server's seed for a hand: secret until the hand ends, and the same every time
        it is asked for, so that a crash between logging a hand's opening and storing its
        row cannot lose it. Derived from the log's key (HKDF-SHA256, one label per hand):
        only the holder of that key can compute it, and it is committed in the hand's
        ``open`` event before any seat commits."""
        label = f"cayenne-fairplay server seed v1\x00{table}\x00{hand}".encode()
        return self.signer.derive_secret(label)

    # ------------------------------------------------------------------ writing

    def register_player(self, player: str, key: Verifier) -> None:
        self.log.register_key(player, key)

    def server_event(
        self, table: str, hand: int, seq: int, prev: str | None, kind: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        event = make_event(
            origin=self.origin,
            table=table,
            hand=hand,
            seq=seq,
            prev=prev,
            actor=SERVER_ACTOR,
            type=kind,
            body=body,
        )
        return sign_event(event, self.signer)

    def append(self, events: list[dict[str, Any]]) -> list[int]:
        """Append signed events as one unit (the log re-checks signatures, keys and chains).

        Units from concurrent requests of this process are committed together (group
        commit): one transaction, one fsync, for all of them. A batch the log refuses is
        retried unit by unit, so one stale event fails alone.
        """
        return self.committer.append(events)

    def head(self, table: str, hand: int) -> int:
        """The number of events of a hand in the log (its next ``seq``)."""
        return self.log.next_link(table, hand)[0]

    def hand_events(self, table: str, hand: int) -> list[dict[str, Any]]:
        return self.log.hand_events(table, hand)

    # ------------------------------------------------------------------ reading

    def verifier_key(self) -> str:
        return self.signer.verifier_key()

    def checkpoint(self, *, fresh: bool = False) -> str:
        """The signed checkpoint: a new one when ``fresh`` (the end of a hand), otherwise the
        latest unless it is older than :data:`CHECKPOINT_INTERVAL` and the tree grew, so
        that readers and witnesses see the same note for a while."""
        return self.log.checkpoint(min_interval=0.0 if fresh else CHECKPOINT_INTERVAL)

    def _size_of(self, note_text: str) -> int:
        return parse_checkpoint(parse_note(note_text)[0]).size

    def _checkpoint_for(self, size: int | None, index: int = 0) -> tuple[str, int]:
        """A checkpoint and its size: the latest (covering ``index``), or one of exactly
        ``size`` entries."""
        current = self.log.size()
        if size is None:
            note = self.checkpoint()
            if self._size_of(note) <= index < current:
                note = self.checkpoint(fresh=True)
            return note, self._size_of(note)
        if not 1 <= size <= current:
            raise NotFound(f"the log has {current} entries; no tree of size {size}")
        return self.log.checkpoint_at(size), size

    def entries(self, start: int, end: int) -> dict[str, Any]:
        size = self.log.size()
        end = min(end, size)
        if start >= size:
            raise NotFound(f"the log has {size} entries", details={"size": size})
        return {
            "start": start,
            "size": size,
            "entries": [
                {"index": start + i, "event": e} for i, e in enumerate(self.log.entries(start, end))
            ],
        }

    def inclusion(self, index: int, size: int | None) -> dict[str, Any]:
        note, tree = self._checkpoint_for(size, index)
        if not 0 <= index < tree:
            raise NotFound(f"no entry {index} in the tree of size {tree}")
        leaf = self.log.leaves(index, index + 1)[0]
        return {
            "index": index,
            "size": tree,
            "leaf_hash": b64_list([leaf_hash(leaf)])[0],
            "proof": b64_list(self.log.inclusion_proof(index, tree)),
            "checkpoint": note,
        }

    def consistency(self, first: int, second: int | None) -> dict[str, Any]:
        note, tree = self._checkpoint_for(second)
        if not 1 <= first <= tree:
            raise BadRequest(f"from: must be between 1 and {tree}", details={"path": "from"})
        return {
            "from": first,
            "to": tree,
            "proof": b64_list(self.log.consistency_proof(first, tree)),
            "checkpoint": note,
            "from_checkpoint": self.log.checkpoint_at(first),
        }

    def proof_bundle(self, table: str, hand: int) -> dict[str, Any]:
        if not self.log.hand_events(table, hand):
            raise NotFound(f"the log has no events of table {table!r} hand {hand}")
        return self.log.proof_bundle(table, hand)
