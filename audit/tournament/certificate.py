"""The tournament certificate (``cayenne-tournament-certificate/1``) and its offline check.

:func:`certify` computes the certificate of an event from its log events (the event's
chain, its entrants' chains, every hand of every table of every round) and the finished
hands' records; the service issues exactly that document, signed by the log key as a C2SP
signed note whose text is :func:`note_text` (format, origin, event id and the SHA-256 of
the certificate's RFC 8785 bytes). :func:`verify_bundle` checks a certificate bundle with
the log's verifier key alone: the note, the checkpoint, every event's signature, key,
chain and inclusion, then computes the certificate again from the bundle's events and
records and raises :class:`CertificateMismatch` at the first difference. The whole
contract is in docs/tournaments.md ("The certificate").
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from importlib.resources import files
from typing import Any

from audit.auditor import DEFAULT_ALPHA, audit_record
from audit.errors import FairplayError
from audit.log import merkle
from audit.log.checkpoint import Checkpoint, verify_checkpoint
from audit.log.cosignature import WitnessPolicy
from audit.log.errors import LogChainBroken, LogError, LogInconsistent, LogSignatureInvalid
from audit.log.events import (
    canonical_json,
    check_event,
    signature_mismatch,
    signature_parts,
    signed_encodings,
)
from audit.log.keys import Verifier
from audit.log.note import parse as parse_note
from audit.log.note import verify as verify_note
from audit.log.sigbatch import SignatureBatch
from audit.native import audit_fast
from audit.record.codec import load_record
from audit.rules.cards import CARD_TEXT
from audit.tournament import directors as rulers
from audit.tournament import online
from audit.tournament import signed as signed_events
from audit.tournament.errors import TournamentError
from audit.tournament.event import DUPLICATE
from audit.tournament.eventaudit import audit_records
from shuffle import tournament as deals
from shuffle.beacon import DrandChain, DrandRound
from shuffle.protocol import Beacon

__all__ = [
    "BUNDLE_FORMAT",
    "CertificateMismatch",
    "CertificateUnreadable",
    "EVENT_CHAIN",
    "FORMAT",
    "SCHEMA",
    "certify",
    "check_schema",
    "exact",
    "first_difference",
    "note_text",
    "standings_digest",
    "verify_bundle",
]

FORMAT = "cayenne-tournament-certificate/1"
BUNDLE_FORMAT = "cayenne-tournament-certificate-bundle/1"
EVENT_CHAIN = "event"
SCHEMA = "schema/cayenne-tournament-certificate-1.json"
_validator: Any = None


class CertificateUnreadable(TournamentError):
    """A bundle that is not one: not JSON, another format, a field of the wrong type."""

    code = "CERTIFICATE_UNREADABLE"


class CertificateMismatch(TournamentError):
    """The certified value and the value recomputed from the log differ (first one)."""

    code = "CERTIFICATE_MISMATCH"

    def __init__(
        self,
        path: str,
        certified: Any,
        recomputed: Any,
        *,
        board: Any = None,
        table: Any = None,
    ) -> None:
        where = "".join(
            f"{name} {value}, " for name, value in (("board", board), ("table", table)) if value
        )
        super().__init__(
            f"{where}field {path}: certified {_show(certified)}, recomputed {_show(recomputed)}",
            details={
                "path": path,
                "board": board,
                "table": table,
                "certified": certified,
                "recomputed": recomputed,
            },
        )
        self.path = path


def _show(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


def exact(obj: Any) -> Any:
    """``obj`` with every float written as a string (its shortest round-trip decimal):
    the certificate's canonical JSON holds integers only."""
    kind = type(obj)
    if kind is str or kind is int or kind is bool or obj is None:
        return obj
    if kind is dict:
        return {str(k): exact(v) for k, v in obj.items()}
    if kind is list:
        return [exact(v) for v in obj]
    if isinstance(obj, float):
        return repr(obj)
    if isinstance(obj, Mapping):
        return {str(k): exact(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [exact(v) for v in obj]
    return obj


def standings_digest(standings: Mapping[str, Any]) -> str:
    """The ``standings_sha256`` of ``tournament_end``: sorted, compact JSON of the
    standings document as the service computed it (floats as Python writes them)."""
    text = json.dumps(standings, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def note_text(cert: Mapping[str, Any]) -> str:
    """The text the log key signs: format, origin, event id, the certificate's hash."""
    digest = hashlib.sha256(canonical_json(cert)).hexdigest()
    return f"{FORMAT}\n{cert['origin']}\n{cert['event']['id']}\nsha256 {digest}\n"


def _leaf(item: Mapping[str, Any]) -> dict[str, Any]:
    leaf = merkle.leaf_hash(canonical_json(item["event"]))
    return {"index": item["index"], "leaf_hash": base64.b64encode(leaf).decode()}


def _report(record: dict[str, Any]) -> dict[str, Any]:
    """The audit's report on a hand's record: the native fast path's when it answers
    (a valid record in order; its report is the Python auditor's, byte for byte), else
    the Python auditor's on the record read as before (a RecordError names the field)."""
    report = audit_fast(record, DEFAULT_ALPHA)
    if report is None:
        report = audit_record(load_record(record))
    return report


def _verdict(record: dict[str, Any]) -> str:
    """The audit's verdict on a hand's record (:func:`_report`)."""
    return str(_report(record)["verdict"])


def certify(
    *,
    origin: str,
    log_key: str,
    checkpoint: str,
    tournament: str,
    events: Sequence[Mapping[str, Any]],
    records: Mapping[tuple[str, int], dict[str, Any]],
) -> dict[str, Any]:
    """The certificate of event ``tournament`` from its log ``events`` (``{index, event}``
    in log order) and its finished hands' ``records`` (by table id and hand number)."""
    chains = _item_chains(events)
    own = chains.get((tournament, EVENT_CHAIN), [])
    doc = online.fold(tournament, online.chain_of(tournament, events))
    if doc["phase"] != "over":
        raise TournamentError(f"tournament {tournament}: its chain has no tournament_end")
    roster, seeds = _entrants(tournament, chains)
    substitutes = _substitutes(doc, chains)
    boards, deal_inputs = _board_deals(tournament, doc, roster, seeds)
    hands, finished = _hands(doc, chains, records, boards)
    standings = online.standings(doc, finished)
    audit = _event_audit(online.records(doc, finished))
    grants = rulers.grants_of(events)
    rulings = rulers.check_rulings(tournament, own, grants)
    event = {"id": tournament, **{k: doc[k] for k in online.SPEC_FIELDS if k in doc}}
    event["beacon"] = doc["beacon"]
    cert: dict[str, Any] = {
        "format": FORMAT,
        "origin": origin,
        "log_key": log_key,
        "event": event,
        "roster": roster,
        "substitutes": substitutes,
        "pairs": [
            {
                "pair": n,
                "players": p,
                "absent": n in doc["absent"],
                "withdrawn_from_round": doc["withdrawn"].get(str(n)),
            }
            for n, p in enumerate(doc["pair_list"], 1)
        ],
        "unpaired": doc["unpaired"],
        "substitutions": doc["substitutions"],
        "rounds": doc["rounds_played"],
        "deal_inputs": deal_inputs,
        "hands": hands,
        "results": standings["boards"] if doc["format"] == DUPLICATE else standings["matches"],
        "actions": doc["actions"],
        "standings": standings["standings"],
        "standings_sha256": {
            "logged": doc["standings_sha256"],
            "recomputed": standings_digest(standings),
        },
        "audit": {"verdict": audit["verdict"], "findings": audit["findings"]},
        "checkpoint": checkpoint,
    }
    ruled = list(dict.fromkeys(r["by"] for r in rulings if r["by"] != rulers.OPERATOR))
    if ruled:  # who took each ruling (none: every one the operator's, as before directors)
        cert["directors"] = [
            {"director": d, "key": grants[d][0], "granted_at": grants[d][1]} for d in ruled
        ]
        cert["rulings"] = rulings
    return exact(cert)  # type: ignore[no-any-return]


_Chains = dict[tuple[str, str], list[Mapping[str, Any]]]
"""Log items (``{index, event}``) by chain (table id, hand id), each chain in log order."""


def _item_chains(events: Sequence[Mapping[str, Any]]) -> _Chains:
    chains: _Chains = {}
    for item in events:
        ev = item["event"]
        chains.setdefault((ev["table"], str(ev["hand"])), []).append(item)
    return chains


def _entrants(tournament: str, chains: _Chains) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The entrants: registration (key, commitment, partner), in log order, and the
    seeds they revealed (by player)."""
    roster: list[dict[str, Any]] = []
    seeds: dict[str, str] = {}
    for (table, hand), chain in sorted(chains.items(), key=lambda c: c[1][0]["index"]):
        if table != tournament or not hand.startswith("entrant-"):
            continue
        reg = chain[0]["event"]
        roster.append(
            {
                "player": reg["actor"],
                "key": reg["key"],
                "partner": reg["body"]["partner"],
                "commitment": reg["body"]["commitment"],
                "registration": _leaf(chain[0]),
            }
        )
        for item in chain[1:]:
            if item["event"]["type"] == "tournament_reveal":
                seeds[reg["actor"]] = item["event"]["body"]["seed"]
    return roster, seeds


def _substitutes(doc: Mapping[str, Any], chains: _Chains) -> list[dict[str, Any]]:
    """Each substitute that came in, with the keys of the first events they signed."""
    substitutes = []
    for s in doc["substitutions"]:
        keys = sorted(
            {
                c[0]["event"]["key"]
                for c in (
                    [e for e in ch if e["event"]["actor"] == s["in"]] for ch in chains.values()
                )
                if c
            }
        )
        substitutes.append({"player": s["in"], "keys": keys})
    return substitutes


def _board_deals(
    tournament: str,
    doc: Mapping[str, Any],
    roster: Sequence[Mapping[str, Any]],
    seeds: Mapping[str, str],
) -> tuple[dict[int, deals.BoardDeal], dict[str, Any] | None]:
    """Every board's deal (by board number) and the deal inputs, derived again (duplicate
    events; none otherwise)."""
    boards: dict[int, deals.BoardDeal] = {}
    deal_inputs: dict[str, Any] | None = None
    if doc["format"] == DUPLICATE:
        commitments = {r["player"]: r["commitment"] for r in roster}
        b = doc["beacon"]
        t = deals.TournamentTranscript(
            event=tournament,
            boards=doc["tables"] * doc["boards_per_round"],
            service_commitment=bytes.fromhex(doc["service_commitment"]),
            entrants=tuple(
                deals.Entrant(
                    pid,
                    bytes.fromhex(commitments[pid]),
                    bytes.fromhex(seeds[pid]) if pid in doc["revealed"] and pid in seeds else None,
                )
                for pair in doc["pair_list"]
                for pid in pair
            ),
            pattern=tuple(doc["pattern"]),
            service_seed=bytes.fromhex(doc["service_seed"]),
            beacon=None
            if b is None
            else Beacon(b["source"], b["round"], bytes.fromhex(b["randomness"])),
            **_version_2(doc),
        )
        derived = deals.verify(t)
        boards = {d.board: d for d in derived}
        deal_inputs = replace(t, claimed=tuple(d.to_json() for d in derived)).to_json()
    return boards, deal_inputs


def _hands(
    doc: Mapping[str, Any],
    chains: _Chains,
    records: Mapping[tuple[str, int], dict[str, Any]],
    boards: Mapping[int, deals.BoardDeal],
) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """Every hand of every table of every round, as the certificate lists it, and the
    records of the finished hands (by table id)."""
    hands: list[dict[str, Any]] = []
    finished: dict[str, list[dict[str, Any]]] = {}
    for r in doc["rounds_played"]:
        for sit in r["tables"]:
            tid = sit["id"]
            numbers = sorted(int(h) for (t_, h) in chains if t_ == tid)
            finished[tid] = []
            for n in numbers:
                entry, record = _hand(r["round"], sit, n, chains[(tid, str(n))], records, boards)
                hands.append(entry)
                if record is not None:
                    finished[tid].append(record)
    return hands, finished


def _hand(
    round_number: Any,
    sit: Mapping[str, Any],
    n: int,
    chain: Sequence[Mapping[str, Any]],
    records: Mapping[tuple[str, int], dict[str, Any]],
    boards: Mapping[int, deals.BoardDeal],
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """One hand's entry, and its record when the hand ended and its record is given."""
    tid = sit["id"]
    first, last = chain[0]["event"], chain[-1]
    entry: dict[str, Any] = {
        "round": round_number,
        "table": sit["table"],
        "table_id": tid,
        "hand": n,
        "events": len(chain),
        "last": last["event"]["type"],
    }
    if first["type"] == "board_open":
        entry["board"] = first["body"]["board"]
    if last["event"]["type"] != "end":
        return entry, None
    record = records.get((tid, n))
    digest = None if record is None else hashlib.sha256(canonical_json(record)).hexdigest()
    entry |= {"record_sha256": digest, "end": _leaf(last)}
    if record is None:
        return entry, None
    entry["verdict"] = _verdict(record)
    entry["logged"] = {
        "record_sha256": last["event"]["body"]["record_sha256"],
        "verdict": last["event"]["body"]["verdict"],
    }
    h = record["hands"][0]
    if "board" in entry:
        entry["deal"] = _deal(h, boards.get(entry["board"]))
    else:
        entry["ceremony"] = h.get("shuffle")
    return entry, record


def _deal(h: Mapping[str, Any], d: deals.BoardDeal | None) -> dict[str, Any]:
    """A board's hand as its record deals it, beside the board's deal derived again."""
    return {
        "dealer": h.get("dealer"),
        "cayenne": h.get("cayenne"),
        "dealt_order": h.get("dealt_order"),
        "board_deal": None
        if d is None
        else {
            "dealer": d.dealer.name,
            "cayenne": CARD_TEXT[d.cayenne],
            "dealt_order": [CARD_TEXT[c] for c in d.pack_order],
        },
    }


def _event_audit(recs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The event-wide audit of the finished hands' records: its verdict and findings."""
    return audit_records(recs, DEFAULT_ALPHA)


def _version_2(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The transcript's version 2 fields from the folded chain (none for version 1): the
    start's reveal deadline and drand chain, the deal's round. The deal must carry the
    round under version 2 (else the transcript is incomplete and verify raises)."""
    if doc.get("reveal_deadline") is None:
        return {"version": 1}
    d = doc["drand"]
    chain = DrandChain(d["scheme"], d["public_key"], d["genesis"], d["period"])
    drand = None
    if "signature" in d:
        drand = DrandRound(d["round"], d["signature"], d.get("previous_signature"))
        if d.get("randomness") != drand.randomness.hex():
            raise CertificateMismatch(
                "$.deal_inputs.beacon.randomness", d.get("randomness"), drand.randomness.hex()
            )
    return {
        "version": 2,
        "reveal_deadline": doc["reveal_deadline"],
        "chain": chain,
        "drand": drand,
    }


# ---------------------------------------------------------------------- verification


def first_difference(
    certified: Any, recomputed: Any, path: str = "$", ctx: tuple[Any, Any] = (None, None)
) -> CertificateMismatch | None:
    """The first place where the two documents differ, named with its board and table."""
    if isinstance(certified, dict) and isinstance(recomputed, dict):
        board = certified.get("board", ctx[0])
        table = certified.get("table", ctx[1])
        for k in sorted(set(certified) | set(recomputed)):
            if k not in certified or k not in recomputed:
                return CertificateMismatch(
                    f"{path}.{k}", certified.get(k), recomputed.get(k), board=board, table=table
                )
            diff = first_difference(certified[k], recomputed[k], f"{path}.{k}", (board, table))
            if diff is not None:
                return diff
        return None
    if isinstance(certified, list) and isinstance(recomputed, list):
        for i, (a, b) in enumerate(zip(certified, recomputed, strict=False)):
            diff = first_difference(a, b, f"{path}[{i}]", ctx)
            if diff is not None:
                return diff
        if len(certified) != len(recomputed):
            return CertificateMismatch(
                f"{path}.length", len(certified), len(recomputed), board=ctx[0], table=ctx[1]
            )
        return None
    if certified != recomputed or type(certified) is not type(recomputed):
        return CertificateMismatch(path, certified, recomputed, board=ctx[0], table=ctx[1])
    return None


def check_schema(cert: Any) -> None:
    """Raise :class:`CertificateUnreadable` unless ``cert`` has the shipped schema's shape."""
    import fastjsonschema

    global _validator
    if _validator is None:
        text = files("audit.tournament").joinpath(SCHEMA).read_text(encoding="utf-8")
        _validator = fastjsonschema.compile(json.loads(text))
    try:
        _validator(cert)
    except fastjsonschema.JsonSchemaValueException as exc:
        raise CertificateUnreadable(f"certificate: {exc.message}") from None


def _need(obj: Any, field: str, kind: type | tuple[type, ...], where: str = "bundle") -> Any:
    value = obj.get(field) if isinstance(obj, dict) else None
    if not isinstance(value, kind) or isinstance(value, bool):
        raise CertificateUnreadable(f"{where}.{field}: missing or of the wrong type")
    return value


def _internal_checks(cert: Mapping[str, Any]) -> None:
    """What must agree inside one certificate: the log's own word against the record."""
    for i, h in enumerate(cert["hands"]):
        logged = h.get("logged")
        if logged is not None:
            for field in ("record_sha256", "verdict"):
                if logged[field] != h[field]:
                    raise CertificateMismatch(
                        f"$.hands[{i}].{field}",
                        logged[field],
                        h[field],
                        board=h.get("board"),
                        table=h.get("table"),
                    )
        deal = h.get("deal")
        if deal is not None:
            theirs = deal["board_deal"]
            ours = {k: deal[k] for k in ("dealer", "cayenne", "dealt_order")}
            if theirs != ours:
                raise CertificateMismatch(
                    f"$.hands[{i}].deal", theirs, ours, board=h.get("board"), table=h.get("table")
                )
    s = cert["standings_sha256"]
    if s["logged"] != s["recomputed"]:
        raise CertificateMismatch("$.standings_sha256", s["logged"], s["recomputed"])


def verify_bundle(
    bundle: Any, key: Verifier | str, *, policy: WitnessPolicy | None = None, jobs: int = 1
) -> dict[str, Any]:
    """Check a certificate bundle with the log key alone; raise at the first problem.

    ``jobs`` processes check the events' signatures (:mod:`audit.log.sigbatch`); the
    problem named is the same whatever their number."""
    verifier = key if isinstance(key, Verifier) else Verifier.from_text(key)
    if not isinstance(bundle, dict) or bundle.get("format") != BUNDLE_FORMAT:
        raise CertificateUnreadable(f"bundle.format: must be {BUNDLE_FORMAT!r}")
    cert = _need(bundle, "certificate", dict)
    note = _need(bundle, "note", str)
    items = _need(bundle, "events", list)
    recs = _need(bundle, "records", list)
    witnessed = _need(bundle, "checkpoint", str)
    check_schema(cert)
    origin = _need(cert, "origin", str, "certificate")
    tournament = _need(_need(cert, "event", dict, "certificate"), "id", str, "certificate.event")
    certified_cp = _need(cert, "checkpoint", str, "certificate")
    # 1. the note: signed by the log key, over this certificate's hash
    try:
        signed = verify_note(note, verifier)
        expected = note_text(cert)
    except LogError as exc:
        raise LogSignatureInvalid(f"bundle.note: {exc.message}") from exc
    except FairplayError as exc:
        raise CertificateUnreadable(f"bundle.certificate: {exc}") from exc
    if signed != expected:
        raise LogSignatureInvalid(
            "bundle.note: the signed note is not over this certificate "
            f"(signed {signed.splitlines()[-1]!r}, certificate {expected.splitlines()[-1]!r})"
        )
    # 2. the checkpoint: the certified one, signed by the log key (and witnesses)
    cp = verify_checkpoint(certified_cp, verifier, origin=origin)
    if parse_note(witnessed)[0] != parse_note(certified_cp)[0]:
        raise LogInconsistent("bundle.checkpoint: not the certificate's checkpoint")
    verify_checkpoint(witnessed, verifier, origin=origin)
    witnesses = [w.name for w in policy.check(witnessed)] if policy is not None else []
    # 3. every event: signed, by the right key, chained, included in the checkpoint; the
    # signatures' equations run in `jobs` processes meanwhile (through steps 4 to 6), and
    # the first event whose signature fails is named before any later problem, as a
    # sequential check would
    log_key = verifier.text()
    with SignatureBatch(jobs, len(items)) as batch:
        signers: list[tuple[Verifier, int]] = []  # each check's key and log index
        try:
            events = _check_events(items, origin, log_key, cp, batch, signers)
            again, doc, chains, given = _recompute(
                tournament, origin, log_key, certified_cp, events, recs
            )
            diff = first_difference(cert, again)
            if diff is not None:
                raise diff
            _internal_checks(again)
            # 6. every record what the players signed
            try:
                _check_signed(tournament, doc, chains, again, given)
            except FairplayError:
                raise
            except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
                raise signed_events.HandNotDerivable(
                    f"the event's hands: not derivable: {exc!r}"
                ) from exc
        except Exception:
            failed = batch.first_failure()
            if failed is not None:
                raise signature_mismatch(*signers[failed]) from None
            raise
        failed = batch.first_failure()
        if failed is not None:
            raise signature_mismatch(*signers[failed])
    return {
        "tournament": tournament,
        "origin": origin,
        "events": len(events),
        "hands": len(cert["hands"]),
        "checkpoint_size": cp.size,
        "witnessed_by": witnesses,
        "standings": len(cert["standings"]),
        "deals": _deals_said(cert["deal_inputs"]),
        "rulings": again.get("rulings", []),
    }


def _deals_said(inputs: Mapping[str, Any] | None) -> str:
    """How the boards were dealt, as a reader of the verdict must know it: version 1's
    deals could be chosen by whoever held the log key (docs/shuffle-protocol.md)."""
    if inputs is None:
        return "each hand dealt by its own ceremony"
    if inputs.get("protocol") == deals.VERSION_2:
        return (
            f"boards dealt by {deals.VERSION_2} from drand round {inputs['beacon']['round']}, "
            "after the reveal deadline"
        )
    return (
        f"boards dealt by {inputs.get('protocol')}: the log key's holder could choose them "
        "(docs/shuffle-protocol.md II.10)"
    )


def _chains(events: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    chains: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for item in events:
        ev = item["event"]
        chains.setdefault((ev["table"], str(ev["hand"])), []).append(ev)
    return chains


def _check_signed(
    tournament: str,
    doc: Mapping[str, Any],
    chains: Mapping[tuple[str, str], Sequence[Mapping[str, Any]]],
    cert: Mapping[str, Any],
    given: Sequence[tuple[str, int, Any]],
) -> None:
    """Step 6 of :func:`verify_bundle` (:mod:`audit.tournament.signed`): each hand
    derived from its chain (the board's deal from the certificate's deal inputs, which
    step 5 recomputed from the events), compared with the bundle's record."""
    boards: dict[int, deals.BoardDeal] = {}
    if cert["deal_inputs"] is not None:
        t = deals.tournament_from_json(cert["deal_inputs"])
        boards = {d.board: d for d in deals.derive_boards(t)}
    derived = signed_events.event_hands(tournament, doc, chains, boards, _report)
    signed_events.check_records(given, derived)


def _recompute(
    tournament: str,
    origin: str,
    log_key: str,
    certified_cp: str,
    events: list[dict[str, Any]],
    recs: list[Any],
) -> tuple[dict[str, Any], dict[str, Any], Any, list[tuple[str, int, Any]]]:
    """Steps 4 and 5 of :func:`verify_bundle`: the chains checked against the event's own,
    and the certificate computed again from the events and records alone; returns it,
    the event's document, the chains and the records given."""
    given: list[tuple[str, int, Any]] = []
    for n, r in enumerate(recs):
        table = _need(r, "table", str, f"bundle.records[{n}]")
        hand = _need(r, "hand", int, f"bundle.records[{n}]")
        given.append((table, hand, _need(r, "record", dict, f"bundle.records[{n}]")))
    records = {(table, hand): record for table, hand, record in given}
    # 4. every chain a table's of the event, once, seated as its round says
    chains = _chains(events)
    try:
        signed_events.check_entrants(tournament, chains)  # before their withdrawals fold
        doc = online.fold(tournament, online.chain_of(tournament, events))
        signed_events.check_chains(tournament, doc, chains)
        # who ruled: each director's request signed by a key granted before the ruling
        own_items = [
            e
            for e in events
            if (e["event"]["table"], e["event"]["hand"]) == (tournament, EVENT_CHAIN)
        ]
        rulers.check_rulings(tournament, own_items, rulers.grants_of(events))
    except FairplayError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise signed_events.ChainOutsideEvent(f"the event's chains: not readable: {exc!r}") from exc
    # 5. the certificate, computed again from the events and records alone
    try:
        again = certify(
            origin=origin,
            log_key=log_key,
            checkpoint=certified_cp,
            tournament=tournament,
            events=events,
            records=records,
        )
    except CertificateMismatch:
        raise
    except (FairplayError, KeyError, TypeError, ValueError, IndexError) as exc:
        raise CertificateMismatch("$", "the certified event", f"not recomputable: {exc}") from exc
    return again, doc, chains, given


def _check_events(
    items: list[Any],
    origin: str,
    log_key: str,
    cp: Checkpoint,
    batch: SignatureBatch,
    signers: list[tuple[Verifier, int]],
) -> list[dict[str, Any]]:
    """Step 3 of :func:`verify_bundle` but the signatures' equations, which go to
    ``batch`` (each with its key and log index in ``signers``); the events, checked."""
    keys: dict[str, str] = {}
    heads: dict[tuple[str, str], tuple[int, str]] = {}
    hashes: dict[str, bytes] = {}
    last_index = -1
    events: list[dict[str, Any]] = []
    for n, item in enumerate(items):
        where = f"bundle.events[{n}]"
        index = item.get("index") if isinstance(item, dict) else None
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise CertificateUnreadable(f"{where}.index: must be a non-negative integer")
        if index <= last_index:
            raise LogInconsistent(f"{where}.index: events must be in log order", entry=index)
        last_index = index
        try:
            ev = check_event(item.get("event"), encodable=False)
            # once: the event's hash and Merkle leaf, and what its actor signed
            encoded, message = signed_encodings(ev)
        except LogError as exc:
            raise LogInconsistent(f"{where}.event: {exc.message}", entry=index) from exc
        if ev["origin"] != origin:
            raise LogInconsistent(f"{where}: an event of another log", entry=index)
        signer, _, sig = signature_parts(ev, entry=index, message=message)
        batch.add(signer, message, sig)
        signers.append((signer, index))
        failed = batch.settled_failure()
        if failed is not None:
            raise signature_mismatch(*signers[failed])
        if ev["actor"] == "server":
            if ev["key"] != log_key:
                raise LogSignatureInvalid(f"{where}: a server event not signed by the log key")
        elif keys.setdefault(ev["actor"], ev["key"]) != ev["key"]:
            raise LogSignatureInvalid(f"{where}: {ev['actor']} signs with two keys", entry=index)
        chain = (ev["table"], str(ev["hand"]))
        seq, prev = heads.get(chain, (0, None))
        if ev["seq"] != seq or ev["prev"] != prev:
            raise LogChainBroken(
                f"{where}: table {chain[0]} hand {chain[1]}: seq {ev['seq']} does not follow "
                f"the chain (expected seq {seq} after the event before)",
                entry=index,
            )
        heads[chain] = (seq + 1, hashlib.sha256(encoded).hexdigest())  # event_hash(ev)
        proof = item.get("inclusion")
        try:  # the proofs share their upper nodes: each hash text is decoded once
            raw = [hashes[p] if p in hashes else hashes.setdefault(p, _b64(p)) for p in proof]
        except (binascii.Error, ValueError, TypeError) as exc:
            raise CertificateUnreadable(f"{where}.inclusion: a list of base64 hashes") from exc
        leaf = merkle.leaf_hash(encoded)
        merkle.verify_inclusion(leaf, index, cp.size, raw, cp.root)
        events.append({"index": index, "event": ev})
    return events


def _b64(text: str) -> bytes:
    return base64.b64decode(text, validate=True)
