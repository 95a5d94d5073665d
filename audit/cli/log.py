"""fairplay log ... (administer and audit a hand log) and fairplay verify BUNDLE.

  fairplay log keygen NAME --out KEYFILE      new Ed25519 signer key; prints the verifier key
  fairplay log register --db URL --key KEYFILE ACTOR VKEY
  fairplay log append --db URL --key KEYFILE [--origin O] EVENTS.json|jsonl|-
  fairplay log checkpoint --db URL --key KEYFILE [--min-interval S] [--every S [--count N]]
  fairplay log verify --db URL --vkey VKEY [--checkpoint NOTEFILE ...] [--json]
                      [--witness WVKEY ... [--witness-quorum K]]
  fairplay log bundle --db URL --table T --hand H [--out FILE]
  fairplay log prove --db URL INDEX           c2sp.org/tlog-proof of one entry
  fairplay log fork-evidence NOTE1 NOTE2 --vkey VKEY
  fairplay verify BUNDLE --key VKEY [--checkpoint NOTEFILE] [--record RECORD.json]
                  [--witness WVKEY ... [--witness-quorum K]]

With a witness policy (--witness, repeatable, and --witness-quorum, default all), a
checkpoint counts only with valid cosignatures (c2sp.org/tlog-cosignature) by that many
of the named witnesses: "verify" needs the bundle's checkpoint or its later one to meet
it, "log verify" each --checkpoint; a LOG_WITNESS_QUORUM line names the missing ones.

"log verify" and "verify" print one line per finding ("CODE entry N: message") and
exit 1 when anything fails, 0 when everything holds ("verify": 2 for a file that is not
a bundle, naming the JSON path: nothing was checked). "verify" exits 3 with a
LOG_HAND_PARTIAL line when every check holds but the hand is not finished (its last
event is neither end nor void): a partial bundle does not show the whole hand.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

from audit.errors import FairplayError
from audit.log.bundle import build_bundle, verify_bundle
from audit.log.checkpoint import fork_evidence
from audit.log.cosignature import WitnessPolicy
from audit.log.errors import (
    BundleUnreadable,
    EventError,
    KeyFormatError,
    LogError,
    LogHandPartial,
)
from audit.log.events import canonical_json, loads
from audit.log.keys import generate_signer, load_signer, load_verifier, save_signer
from audit.log.store import Log, open_log
from audit.log.verify import Finding, verify_log
from audit.rules.cards import Seat, parse_card
from audit.tournament.signed import RecordMismatch, derive_hand, difference
from shuffle.tournament import BoardDeal

__all__ = ["register"]


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text()
    except OSError as exc:
        raise LogError(f"cannot read {path}: {exc.strerror}") from exc


def _read_bytes(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise LogError(f"cannot read {path}: {exc.strerror}") from exc


def _open(args: argparse.Namespace, *, signed: bool) -> Log:
    signer = load_signer(args.key) if signed else None
    origin = getattr(args, "origin", None)
    if signed and origin is None and signer is not None:
        origin = None
    return open_log(
        args.db, origin, signer, require_registered_keys=not getattr(args, "any_key", False)
    )


def _keygen(args: argparse.Namespace) -> int:
    signer = generate_signer(args.name)
    save_signer(signer, args.out)
    print(signer.verifier_key())
    return 0


def _register(args: argparse.Namespace) -> int:
    with _open(args, signed=True) as log:
        log.register_key(args.actor, args.vkey)
    return 0


def _events(text: str) -> list[dict[str, Any]]:
    text = text.strip()
    try:
        if text.startswith("["):
            data = loads(text)
        else:
            data = [loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        raise EventError(f"events: invalid JSON at line {exc.lineno}: {exc.msg}") from exc
    if not isinstance(data, list):
        raise EventError("events: must be a JSON list or JSON lines")
    return data


def _append(args: argparse.Namespace) -> int:
    with _open(args, signed=True) as log:
        indices = log.append(_events(_read(args.events)))
        print(json.dumps({"indices": indices, "size": log.size()}))
    return 0


def _checkpoint(args: argparse.Namespace) -> int:
    with _open(args, signed=True) as log:
        if not args.every:
            sys.stdout.write(log.checkpoint(min_interval=args.min_interval))
            return 0
        # the schedule: one checkpoint per period when the tree has grown
        last = None
        issued = 0
        while args.count is None or issued < args.count:
            note_text = log.checkpoint(min_interval=args.every)
            if note_text != last:
                sys.stdout.write(note_text + "\n")
                sys.stdout.flush()
                last = note_text
                issued += 1
            time.sleep(args.every)
    return 0


def _verify_log(args: argparse.Namespace) -> int:
    vkey = load_verifier(args.vkey) if args.vkey else None
    saved = [_read(p) for p in args.checkpoint]
    policy = _policy(args)
    if policy is not None and not saved:
        raise LogError(
            "a witness policy applies to checkpoints: give the witnessed checkpoint(s) "
            "with --checkpoint NOTEFILE (e.g. saved from GET /v1/log/checkpoint)"
        )
    with open_log(args.db, args.origin) as log:
        findings = verify_log(log, verifier=vkey, saved_checkpoints=saved)
        size = log.size()
    if policy is not None:
        for path, note_text in zip(args.checkpoint, saved, strict=True):
            try:
                policy.check(note_text)
            except LogError as exc:
                findings.append(Finding(exc.code, f"saved checkpoint {path}: {exc.message}"))
    if args.json:
        print(
            json.dumps(
                {"ok": not findings, "size": size, "findings": [f.as_dict() for f in findings]},
                indent=2,
            )
        )
    else:
        for f in findings:
            print(f.text())
        if not findings:
            print(f"OK: {size} entries; signatures, chains, tree and checkpoints verify")
    return 1 if findings else 0


def _bundle(args: argparse.Namespace) -> int:
    with _open(args, signed=args.key is not None) as log:
        bundle = build_bundle(log, args.table, str(args.hand))
    text = json.dumps(bundle, indent=2, ensure_ascii=False) + "\n"
    if args.out:
        Path(args.out).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def _prove(args: argparse.Namespace) -> int:
    with _open(args, signed=args.key is not None) as log:
        sys.stdout.write(log.tlog_proof(args.index))
    return 0


def _fork(args: argparse.Namespace) -> int:
    evidence = fork_evidence(_read(args.note1), _read(args.note2), load_verifier(args.vkey))
    print(json.dumps(evidence, indent=2, ensure_ascii=False))
    return 0


def _verify_bundle(args: argparse.Namespace) -> int:
    try:  # a file that cannot be read as JSON is no evidence either way: exit 2
        bundle = loads(_read_bytes(args.bundle))
    except json.JSONDecodeError as exc:
        print(f"fairplay verify: {args.bundle}: $: not JSON: {exc.msg}", file=sys.stderr)
        return 2
    except EventError as exc:
        print(f"fairplay verify: {args.bundle}: {exc.message}", file=sys.stderr)
        return 2
    saved = _read(args.checkpoint) if args.checkpoint else None
    policy = _policy(args)
    record = None
    if args.record:
        try:
            record = loads(_read(args.record))
        except (json.JSONDecodeError, EventError) as exc:
            print(f"RECORD_MISMATCH {args.record}: not a JSON record: {exc}")
            return 1
    try:
        summary = verify_bundle(
            bundle, load_verifier(args.key), saved_checkpoint=saved, policy=policy
        )
        derived = _derived(bundle, record) if summary["last_type"] == "end" else ""
    except BundleUnreadable as exc:  # not a bundle: nothing was checked, exit 2
        print(f"fairplay verify: {args.bundle}: {exc.message}", file=sys.stderr)
        return 2
    except LogError as exc:
        if isinstance(exc, KeyFormatError):  # the --key given is unusable (or weak)
            raise
        print(f"{exc.code} {exc.message}")
        return 3 if isinstance(exc, LogHandPartial) else 1
    except FairplayError as exc:
        print(f"{exc.code} {exc.message}")
        return 1
    print(
        f"OK: table {summary['table']} hand {summary['hand']}: {summary['events']} signed "
        f"events in order ending with {summary['last_type']!r}, included in checkpoint "
        f"{summary['checkpoint_size']} of "
        f"{summary['origin']}"
        + (
            f", consistent with checkpoint {summary['later_size']}"
            if summary["later_size"] != summary["checkpoint_size"]
            else ""
        )
        + derived
        + f"; saved checkpoint: {summary['saved_checkpoint']}"
        + (
            f"; witnesses: {len(summary['witnessed_by'])} of {len(policy.witnesses)} "
            f"({', '.join(summary['witnessed_by'])}), policy {policy.quorum}"
            if policy is not None
            else ""
        )
    )
    return 0


def _derived(bundle: dict[str, Any], record: Any) -> str:
    """The finished hand derived from its players' signed events (the seeds' deal, every
    call and card through the rules engine): the server's ``end`` must state its tricks,
    and a ``record`` given must be the one whose hash ``end`` signs and follow from the
    events field by field (its ``start`` and ``event``, a rubber's score before the hand
    and the table's name, are not in one hand's events). A board's deal is the event's
    (``fairplay tournament verify``): its calls and plays are checked against a record."""
    chain = [item["event"] for item in bundle["events"]]
    end = chain[-1]
    if chain[0]["type"] not in ("open", "board_open") or chain[0]["actor"] != "server":
        if record is not None:  # a chain of the generic log, not a Cayenne hand's
            raise RecordMismatch("record: the bundle's chain is not a hand (no server's open)")
        return ""
    if chain[0]["type"] == "board_open":
        if record is None:
            return "; a board: its deal is the event's, checked by fairplay tournament verify"
        board = _board_of(record, chain[0])
        hand, state = derive_hand(chain, board)
    else:
        hand, state = derive_hand(chain)
    won = {"NS": state.won[0], "EW": state.won[1]}
    if end["body"].get("tricks") != won:
        raise RecordMismatch(
            f"end: the server says tricks {end['body'].get('tricks')}, the players' signed "
            f"calls and plays give {won}"
        )
    text = f"; the players' signed calls and plays give the contract and tricks NS {won['NS']}"
    text += f", EW {won['EW']}"
    if record is None:
        return text
    digest = hashlib.sha256(canonical_json(record)).hexdigest()
    if digest != end["body"].get("record_sha256"):
        raise RecordMismatch("record: not the record whose hash the server signed in its end")
    opening = chain[0]
    want = {
        "format": "cayenne-record/1",
        "table": opening["table"],
        "players": opening["body"]["seats"],
        "ruleset": opening["body"]["ruleset"],
        "hands": [hand],
        "x-hand-number": int(opening["hand"]),
    }
    given = {k: record.get(k) for k in want} if isinstance(record, dict) else record
    diff = difference(given, want, "record")
    if diff is not None:
        path, got, expected = diff
        raise RecordMismatch(
            f"{path}: the record says {json.dumps(got)[:120]}, the players' signed events "
            f"give {json.dumps(expected)[:120]}"
        )
    return text + "; the record follows from them, field by field"


def _board_of(record: Any, opening: dict[str, Any]) -> BoardDeal:
    """A board's deal as the record states it (its deal is the event's; the calls and
    plays are checked against it, and the event's verifier checks the deal itself)."""
    try:
        h = record["hands"][0]
        order = [parse_card(c) for c in h["dealt_order"]]
        deal = {s: [parse_card(c) for c in h["deal"][s.name]] for s in Seat}
        return BoardDeal(
            board=int(h["board"]),
            dealer=Seat.parse(h["dealer"]),
            pack=int(h["pack"]),
            pack_order=order,
            deal=deal,
            cayenne=parse_card(h["cayenne"]),
            deal_number=0,
        )
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise RecordMismatch(f"record.hands[0]: not a board's hand ({exc!r})") from exc


def _policy(args: argparse.Namespace) -> WitnessPolicy | None:
    """The witness policy of ``--witness KEY ... [--witness-quorum K]``, or None."""
    if not args.witness:
        if args.witness_quorum is not None:
            raise KeyFormatError("--witness-quorum needs the witnesses (--witness KEY)")
        return None
    return WitnessPolicy.of(args.witness, args.witness_quorum)


def _policy_args(q: argparse.ArgumentParser) -> None:
    q.add_argument(
        "--witness",
        action="append",
        default=[],
        metavar="VKEY",
        help="a witness's cosignature/v1 verifier key (text or file); repeatable",
    )
    q.add_argument(
        "--witness-quorum",
        type=int,
        metavar="K",
        help="how many of the --witness keys must cosign (default: all)",
    )


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "log",
        help="administer and audit the signed hand log",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="log_command", metavar="LOGCOMMAND")
    p.set_defaults(func=lambda a: (p.print_help(sys.stderr), 2)[1])

    def db_args(q: argparse.ArgumentParser, key: bool) -> None:
        q.add_argument("--db", required=True, help="sqlite:///path, a path, or postgresql://...")
        q.add_argument("--origin", help="log origin (required to create a log)")
        if key:
            q.add_argument("--key", required=True, help="the log's signer key file")

    k = sub.add_parser("keygen", help="create an Ed25519 signer key file")
    k.add_argument("name", help="key name, e.g. the log origin")
    k.add_argument("--out", required=True, help="key file to create (mode 0600)")
    k.set_defaults(func=_keygen)

    r = sub.add_parser("register", help="allow a key to sign events of an actor")
    db_args(r, True)
    r.add_argument("actor", help="the actor (player id) whose key is registered")
    r.add_argument("vkey", help="the actor's C2SP verifier key text")
    r.set_defaults(func=_register)

    a = sub.add_parser("append", help="verify and append signed events (JSON list or lines)")
    db_args(a, True)
    a.add_argument("events", help="file, or - for stdin")
    a.add_argument(
        "--any-key",
        action="store_true",
        help="accept any key that verifies (no actor key registry)",
    )
    a.set_defaults(func=_append)

    c = sub.add_parser("checkpoint", help="print the signed checkpoint (issuing one if needed)")
    db_args(c, True)
    c.add_argument(
        "--min-interval",
        type=float,
        default=0.0,
        help="reuse the latest checkpoint if younger than this many seconds",
    )
    c.add_argument(
        "--every",
        type=float,
        default=0.0,
        help="keep running: issue a checkpoint every this many seconds if grown",
    )
    c.add_argument("--count", type=int, help="with --every: stop after this many checkpoints")
    c.set_defaults(func=_checkpoint)

    v = sub.add_parser("verify", help="check a whole log: signatures, chains, tree, checkpoints")
    v.add_argument("--db", required=True, help="sqlite:///path, a path, or postgresql://...")
    v.add_argument("--origin", help="the log origin (default: the stored one)")
    v.add_argument("--vkey", help="the log's verifier key (text or file); default: stored")
    v.add_argument(
        "--checkpoint",
        action="append",
        default=[],
        help="a checkpoint note saved earlier (repeatable)",
    )
    v.add_argument("--json", action="store_true", help="print the result as JSON")
    _policy_args(v)
    v.set_defaults(func=_verify_log)

    b = sub.add_parser("bundle", help="write a hand's offline proof bundle")
    b.add_argument("--db", required=True, help="sqlite:///path, a path, or postgresql://...")
    b.add_argument("--origin", help="the log origin (default: the stored one)")
    b.add_argument("--key", help="log signer key file (to issue a fresh checkpoint)")
    b.add_argument("--table", required=True, help="the table id")
    b.add_argument("--hand", required=True, help="the hand number")
    b.add_argument("--out", help="write the bundle here (default: standard output)")
    b.set_defaults(func=_bundle)

    pr = sub.add_parser("prove", help="print one entry's inclusion as a c2sp.org/tlog-proof")
    pr.add_argument("--db", required=True, help="sqlite:///path, a path, or postgresql://...")
    pr.add_argument("--origin", help="the log origin (default: the stored one)")
    pr.add_argument("--key", help="log signer key file (to issue a fresh checkpoint)")
    pr.add_argument("index", type=int, help="the log index of the entry (from 0)")
    pr.set_defaults(func=_prove)

    f = sub.add_parser("fork-evidence", help="package two conflicting checkpoints as evidence")
    f.add_argument("note1", help="a checkpoint note file")
    f.add_argument("note2", help="another checkpoint note of the same size, another root")
    f.add_argument("--vkey", required=True, help="the log's verifier key (text or file)")
    f.set_defaults(func=_fork)

    vb = subparsers.add_parser(
        "verify", help="check a hand's offline proof bundle with the log's verifier key"
    )
    vb.add_argument("bundle", help="bundle JSON file, or -")
    vb.add_argument("--key", required=True, help="the log's verifier key (text or file)")
    vb.add_argument("--checkpoint", help="a checkpoint note you saved earlier")
    vb.add_argument(
        "--record",
        help="the hand's record (GET .../record): it must follow from the signed events",
    )
    _policy_args(vb)
    vb.set_defaults(func=_verify_bundle)
