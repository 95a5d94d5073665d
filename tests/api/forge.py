"""An operator's forgery of a certificate bundle, with the log key and nothing else.

:class:`Forger` takes a real bundle and the log's signer, lets a test change records and
the server's events, then does what an operator holding the log key can do: every
server event of a changed chain is linked again and re-signed (a player's event cannot
be: its signature would break, and the forger stops), every ``end`` names its record's
new hash and verdict, ``tournament_end`` the new standings, and a new log is built from
the bundle's events (a fork of the real one) with its checkpoint, inclusion proofs, the
certificate computed again and its note, all signed by the log key.
"""

from __future__ import annotations

import base64
import copy
import hashlib
from typing import Any

from audit.auditor import audit_document
from audit.log import merkle
from audit.log.checkpoint import Checkpoint
from audit.log.events import canonical_json, event_hash, sign_event
from audit.log.keys import Signer
from audit.log.note import sign as sign_note
from audit.tournament.certificate import certify, note_text

__all__ = ["Forger"]


class Forger:
    def __init__(self, bundle: dict[str, Any], signer: Signer) -> None:
        self.bundle = copy.deepcopy(bundle)
        self.signer = signer
        self.tid: str = self.bundle["certificate"]["event"]["id"]

    @property
    def events(self) -> list[dict[str, Any]]:
        return [item["event"] for item in self.bundle["events"]]

    def records(self) -> list[dict[str, Any]]:
        return list(self.bundle["records"])

    def chain(self, table: str, hand: str) -> list[dict[str, Any]]:
        return [e for e in self.events if (e["table"], e["hand"]) == (table, hand)]

    def server_event(self, table: str, hand: str, kind: str) -> dict[str, Any]:
        return next(e for e in self.chain(table, hand) if e["type"] == kind)

    def _relink(self) -> None:
        """Every chain linked again; changed server events re-signed with the log key."""
        heads: dict[tuple[str, str], str | None] = {}
        for item in self.bundle["events"]:
            ev = item["event"]
            key = (ev["table"], ev["hand"])
            prev = heads.get(key)
            if ev["seq"] == 0:
                prev = None
            if ev["prev"] != prev or ev.get("x-forged"):
                assert ev["actor"] == "server", "a player's event cannot be re-signed"
                fresh = {k: v for k, v in ev.items() if k not in ("signature", "x-forged")}
                fresh["prev"] = prev
                item["event"] = ev = sign_event(fresh, self.signer)
            heads[key] = event_hash(ev)

    def mark(self, ev: dict[str, Any]) -> None:
        """``ev`` (a server event of the bundle) was changed: it is re-signed."""
        ev["x-forged"] = True

    def finish(self, recompute: bool = True) -> dict[str, Any]:
        """The forged bundle, consistent in every signature the log key makes; without
        ``recompute``, the certificate is the real one on the forged checkpoint (for a
        forgery the project's :func:`certify` refuses to compute)."""
        for r in self.bundle["records"]:
            chain = self.chain(r["table"], str(r["hand"]))
            if not chain or chain[-1]["type"] != "end":
                continue  # a record of no hand of this log: no end to re-sign
            end = chain[-1]
            if end["type"] != "end":
                continue
            digest = hashlib.sha256(canonical_json(r["record"])).hexdigest()
            verdict = str(audit_document(r["record"]).get("verdict"))
            if (end["body"]["record_sha256"], end["body"]["verdict"]) != (digest, verdict):
                end["body"] = dict(end["body"], record_sha256=digest, verdict=verdict)
                self.mark(end)
        self._relink()
        cert = self._certify() if recompute else self.bundle["certificate"]
        end = self.server_event(self.tid, "event", "tournament_end")
        recomputed = cert["standings_sha256"]["recomputed"]
        if end["body"]["standings_sha256"] != recomputed:
            end["body"] = dict(end["body"], standings_sha256=recomputed)
            self.mark(end)
            self._relink()
        leaves = [canonical_json(ev) for ev in self.events]
        checkpoint = Checkpoint(
            self.bundle["certificate"]["origin"], len(leaves), merkle.root_hash(leaves)
        ).sign(self.signer)
        proofs = merkle.inclusion_proofs(leaves)
        for n, item in enumerate(self.bundle["events"]):
            item["index"] = n
            item["inclusion"] = [base64.b64encode(h).decode() for h in proofs[n]]
        self.bundle["checkpoint"] = checkpoint
        self.bundle["certificate"]["checkpoint"] = checkpoint
        cert = self._certify() if recompute else self.bundle["certificate"]
        self.bundle["certificate"] = cert
        self.bundle["note"] = sign_note(note_text(cert), self.signer)
        return self.bundle

    def _certify(self) -> dict[str, Any]:
        cert = self.bundle["certificate"]
        records: dict[tuple[str, int], dict[str, Any]] = {}
        for r in self.bundle["records"]:  # the last copy wins, as the verifier's certify
            records[(r["table"], r["hand"])] = r["record"]
        return certify(
            origin=cert["origin"],
            log_key=self.signer.verifier_key(),
            checkpoint=cert["checkpoint"],
            tournament=self.tid,
            events=[{"index": i, "event": ev} for i, ev in enumerate(self.events)],
            records=records,
        )


def forge_hand_bundle(bundle: dict[str, Any], signer: Signer, end_body: dict[str, Any]) -> Any:
    """A hand's proof bundle whose server ``end`` says ``end_body``, re-signed with the
    log key, in a new log of the hand's events alone (a fork), with its own checkpoint."""
    forged = copy.deepcopy(bundle)
    forged.pop("later", None)
    end = forged["events"][-1]["event"]
    assert end["type"] == "end" and end["actor"] == "server"
    fresh = {k: v for k, v in end.items() if k != "signature"} | {"body": end_body}
    forged["events"][-1]["event"] = sign_event(fresh, signer)
    leaves = [canonical_json(item["event"]) for item in forged["events"]]
    proofs = merkle.inclusion_proofs(leaves)
    for n, item in enumerate(forged["events"]):
        item["index"] = n
        item["inclusion"] = [base64.b64encode(h).decode() for h in proofs[n]]
    forged["checkpoint"] = Checkpoint(forged["origin"], len(leaves), merkle.root_hash(leaves)).sign(
        signer
    )
    return forged
