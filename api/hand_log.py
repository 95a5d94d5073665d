"""The service's side of the signed hand log (``audit.log``), in the service's database.

The server signs its own events (a hand's opening commitment, its seed reveal, the end
of the hand) with the log's key under the actor id ``server``; players' keys are
registered in the log's key registry when they register, so the log itself refuses an
event signed by any other key. Every accepted event, player-signed or server-signed,
is appended to the log, which is the source of truth for a hand's history (the service's
``api_hands`` row is a cache of it).

Checkpoints are signed by the writer side only: at the end of every hand, and by the
commit thread at most :data:`CHECKPOINT_INTERVAL` after any append no checkpoint covers.
Reads sign nothing: proofs are served against the latest stored checkpoint, or, for a
tree size the client names, against that tree's unsigned root (which the client checks
against the checkpoint of that size it holds).
"""

from __future__ import annotations

import base64
import contextlib
import logging
from pathlib import Path
from typing import Any

from api.config import Config
from api.database import private_dir
from api.errors import BadRequest, NotFound
from api.witnesses import WitnessBook
from audit.log.bundle import build_bundle
from audit.log.checkpoint import parse as parse_checkpoint
from audit.log.errors import LogError
from audit.log.events import make_event, sign_event
from audit.log.group import GroupCommit
from audit.log.keys import Signer, Verifier, generate_signer, load_signer, save_signer
from audit.log.merkle import leaf_hash
from audit.log.note import parse as parse_note
from audit.log.schemas import check_cayenne_event
from audit.log.store import Log, open_log

__all__ = [
    "CHECKPOINT_INTERVAL",
    "SERVER_ACTOR",
    "HandLog",
    "b64_list",
    "key_name",
    "load_or_create_signer",
]

logger = logging.getLogger(__name__)

SERVER_ACTOR = "server"
CHECKPOINT_INTERVAL = 10.0
"""Seconds a checkpoint served to readers stays the latest (a hand's end issues one now);
an append is in a signed checkpoint at the latest this long after it is acknowledged."""


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


class HandLog:
    """The service's hand log: the signed log (:mod:`audit.log`) opened once per process,
    with its key, the server's events and seeds, checkpoints and the proofs it serves."""

    def __init__(self, config: Config, database_url: str) -> None:
        key_file = Path(config.log_key_file or Path(config.data_dir) / "log-key")
        self.signer = load_or_create_signer(key_file, key_name(config.log_origin))
        self.origin = config.log_origin
        self.log: Log = open_log(database_url, self.origin, self.signer, clock=config.clock)
        if self.signer.verifier_key() not in self.log.actor_keys(SERVER_ACTOR):
            self.log.register_key(SERVER_ACTOR, self.signer.verifier())
        self.committer = GroupCommit(self.log, CHECKPOINT_INTERVAL)
        self.witnesses: WitnessBook | None = None
        """The witnesses' cosignatures (api/witnesses.py), appended to served checkpoints."""
        # The writer side at start-up: entries a dead host left unsigned get a checkpoint.
        self.log.checkpoint(min_interval=CHECKPOINT_INTERVAL)

    def close(self) -> None:
        self.committer.close()
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
        self,
        table: str,
        hand: int | str,
        seq: int,
        prev: str | None,
        kind: str,
        body: dict[str, Any],
        time: str | None = None,
    ) -> dict[str, Any]:
        """An event of the server's (a hand's, an event's chain, the directors' grants),
        signed by the log key."""
        event = make_event(
            origin=self.origin,
            table=table,
            hand=hand,
            seq=seq,
            prev=prev,
            actor=SERVER_ACTOR,
            type=kind,
            body=body,
            time=time,
        )
        return sign_event(event, self.signer)

    def append(self, events: list[dict[str, Any]]) -> list[int]:
        """Append signed events as one unit (the log re-checks signatures, keys and chains).

        Units from concurrent requests of this process are committed together (group
        commit): one transaction, one fsync, for all of them. A batch the log refuses is
        retried unit by unit, so one stale event fails alone. Every event must match its
        type's schema (:func:`audit.log.schemas.check_cayenne_event`).
        """
        for event in events:
            check_cayenne_event(event)  # the service writes nothing but its own event types
        return self.committer.append(events)

    def head(self, table: str, hand: int) -> int:
        """The number of events of a hand in the log (its next ``seq``)."""
        return self.log.next_link(table, hand)[0]

    def hand_events(self, table: str, hand: int) -> list[dict[str, Any]]:
        return self.log.hand_events(table, hand)

    # ------------------------------------------------------------------ reading

    def verifier_key(self) -> str:
        return self.signer.verifier_key()

    def sign_checkpoint(self) -> str:
        """Sign (and store) a checkpoint of the whole tree now: the writer side, after an
        append (the end of a hand). Readers never call this."""
        note = self.log.checkpoint()
        self.committer.signed()
        return note

    def checkpoint(self, witnessed: int = 0) -> str:
        """The latest stored checkpoint with its witnesses' cosignatures (a read: it signs
        nothing); with ``witnessed``, the latest cosigned by at least that many of the
        configured witnesses."""
        if witnessed > 0:
            size = self.witnesses.witnessed(witnessed) if self.witnesses else None
            note = None if size is None else self.log.checkpoint_of(size)
            if note is None:
                raise NotFound(
                    f"no checkpoint is cosigned by {witnessed} of the configured witnesses",
                    details={"path": "witnessed"},
                )
            return self.cosigned(note)
        note = self.log.latest_checkpoint()
        if note is None:
            raise NotFound(
                f"the log has signed no checkpoint yet; it signs one within "
                f"{CHECKPOINT_INTERVAL:.0f} s of an append",
                details={"retry_after": CHECKPOINT_INTERVAL},
            )
        return self.cosigned(note)

    def cosigned(self, note: str) -> str:
        """A checkpoint note with every witness cosignature the service holds for it
        appended (the note itself when no witness is configured)."""
        return note if self.witnesses is None else self.witnesses.annotate(note)

    def _size_of(self, note_text: str) -> int:
        return parse_checkpoint(parse_note(note_text)[0]).size

    def _tree(self, size: int | None, index: int = 0) -> tuple[int, dict[str, Any]]:
        """The tree a proof is served against, and how the client checks its root.

        No ``size``: the latest stored checkpoint (``{"checkpoint": note}``); an entry it
        does not cover yet is refused until the writer signs the next one. A ``size``: the
        tree of that size, its root unsigned (``{"root": base64, "checkpoint": note or
        None}``), which the client compares with a checkpoint of that size it holds.
        """
        current = self.log.size()
        if size is None:
            note = self.checkpoint()
            covered = self._size_of(note)
            if covered <= index < current:
                raise NotFound(
                    f"entry {index} is not in a signed checkpoint yet (the latest has "
                    f"{covered} entries); the log signs one within {CHECKPOINT_INTERVAL:.0f} s",
                    details={"size": covered, "retry_after": CHECKPOINT_INTERVAL},
                )
            return covered, {"checkpoint": note}
        if not 1 <= size <= current:
            raise NotFound(f"the log has {current} entries; no tree of size {size}")
        return size, self._unsigned(size)

    def _unsigned(self, size: int) -> dict[str, Any]:
        note = self.log.checkpoint_of(size)
        return {
            "root": self.log.tree_hash_b64(size),
            "checkpoint": None if note is None else self.cosigned(note),
        }

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
        tree, against = self._tree(size, index)
        if not 0 <= index < tree:
            raise NotFound(f"no entry {index} in the tree of size {tree}")
        leaf = self.log.leaves(index, index + 1)[0]
        return {
            "index": index,
            "size": tree,
            "leaf_hash": b64_list([leaf_hash(leaf)])[0],
            "proof": b64_list(self.log.inclusion_proof(index, tree)),
            **against,
        }

    def consistency(self, first: int, second: int | None) -> dict[str, Any]:
        tree, against = self._tree(second)
        if not 1 <= first <= tree:
            raise BadRequest(f"from: must be between 1 and {tree}", details={"path": "from"})
        older = self._unsigned(first)
        return {
            "from": first,
            "to": tree,
            "proof": b64_list(self.log.consistency_proof(first, tree)),
            **against,
            "from_root": older["root"],
            "from_checkpoint": older["checkpoint"],
        }

    def proof_bundle(self, table: str, hand: int) -> dict[str, Any]:
        """The hand's bundle against stored checkpoints only (a read signs nothing)."""
        events = self.log.hand_events(table, hand)
        if not events:
            raise NotFound(f"the log has no events of table {table!r} hand {hand}")
        try:
            bundle = build_bundle(self.log, table, str(hand), sign=False)
        except LogError:
            last = max(e["index"] for e in events)
            raise NotFound(
                f"entry {last} of the hand is not in a signed checkpoint yet; the log signs "
                f"one within {CHECKPOINT_INTERVAL:.0f} s",
                details={"retry_after": CHECKPOINT_INTERVAL},
            ) from None
        return self._witnessed_bundle(bundle)

    def _witnessed_bundle(self, bundle: dict[str, Any]) -> dict[str, Any]:
        """The bundle's checkpoints with their cosignatures; its ``later`` checkpoint moved
        to the one cosigned by the most witnesses, when that is another (a client with a
        witness policy needs one of the two to meet it)."""
        book = self.witnesses
        if book is None:
            return bundle
        size = self._size_of(bundle["checkpoint"])
        best = book.best_covering(size)
        if best is not None and best > size and book.count(best) > book.count(size):
            later_note = self.log.checkpoint_of(best)
            if later_note is not None:
                bundle["later"] = {
                    "checkpoint": later_note,
                    "consistency": b64_list(self.log.consistency_proof(size, best)),
                }
        bundle["checkpoint"] = book.annotate(bundle["checkpoint"])
        if "later" in bundle:
            bundle["later"]["checkpoint"] = book.annotate(bundle["later"]["checkpoint"])
        return bundle
