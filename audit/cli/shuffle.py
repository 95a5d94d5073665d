"""fairplay shuffle: run a commit-reveal ceremony for a physical table (the default), or
check one with fairplay shuffle verify FILE.

The ceremony prints the server commitment first, then takes each seat's seed (typed
without echo, or from --seed-N... options or a --seeds file) and prints its
commitment; once all four are in it reveals the seeds and prints the pack order, the
deal, the cayenne card and the deal number, and last the complete transcript with the
server's seed revealed (--out writes it to a file).

A seat seed is one of:
  hex:HEX   16..64 bytes written as 32..128 hexadecimal digits after "hex:";
  a phrase  16..64 bytes of UTF-8, used as it is (surrounding spaces removed).
A phrase made only of hexadecimal digits is refused (write hex: before it, or add a
word), so that no seed can be read two ways.

fairplay shuffle verify FILE checks a transcript, or every hand of a record that
carries one: exit 0 it verifies, 1 it does not (a seed does not open its commitment,
a seed not revealed, an outcome that does not follow), 2 the file is unreadable or not
a well-formed transcript (not JSON, a key named twice, a field malformed).
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from audit.errors import FairplayError
from audit.log.events import loads
from audit.rules.cards import CARD_TEXT, Seat
from audit.rules.deal import PATTERNS, check_pattern
from shuffle import kdf
from shuffle.ceremony import Ceremony
from shuffle.errors import ShuffleError, ShuffleFormatError, ShuffleIncompleteError
from shuffle.protocol import SEAT_ORDER, Beacon
from shuffle.verify import Result, check_record_hand, verify_transcript

__all__ = [
    "HEX_DIGITS",
    "SEED_RULE",
    "parse_beacon",
    "parse_pattern",
    "parse_seat_seed",
    "register",
    "run_ceremony",
    "run_verify",
]


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "shuffle",
        help="run a commit-reveal shuffle for a physical table, or verify one",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        usage="fairplay shuffle [options]            (run a ceremony)\n"
        "       fairplay shuffle verify FILE [--json] (check a transcript or a record)",
    )
    p.add_argument("--table", default="local", help="table id bound into the commitments")
    p.add_argument("--hand", type=int, default=1, help="hand number (never reuse one)")
    p.add_argument(
        "--dealer", default="N", choices=["N", "E", "S", "W"], help="the dealer's seat (default N)"
    )
    p.add_argument(
        "--pack", type=int, default=0, choices=[0, 1], help="which of the two packs (default 0)"
    )
    p.add_argument(
        "--pattern", default="4-4-5", help="packet pattern: 4-4-5, 6-7, 1, or sizes like 3-5-5"
    )
    for seat in SEAT_ORDER:
        p.add_argument(f"--player-{seat.name}", default="", metavar="ID", help=f"{seat.name}'s id")
        p.add_argument(
            f"--seed-{seat.name}",
            metavar="SEED",
            help=f"{seat.name}'s seed (scripts only: at a table, type it at the prompt)",
        )
    p.add_argument(
        "--seeds", type=Path, help='JSON file {"N": seed, "E": ...}, each seed hex:HEX or a phrase'
    )
    p.add_argument("--beacon", metavar="SOURCE:ROUND:HEX", help="public beacon value to mix in")
    p.add_argument("--out", type=Path, help="write the complete transcript (JSON) here")
    p.set_defaults(func=run_ceremony)

    sub = p.add_subparsers(dest="shuffle_command", metavar="verify", required=False)
    v = sub.add_parser(
        "verify",
        help="(optional) check a transcript, or every shuffle in a record, instead of "
        "running a ceremony",
        description="Check a shuffle transcript, or every hand of a cayenne-record/1 file "
        "that carries one. Exit 0 it verifies, 1 it does not, 2 the file is unreadable or "
        "not a well-formed transcript.",
    )
    v.add_argument("file", type=Path, help="a shuffle transcript or a cayenne-record/1 file")
    v.add_argument("--json", action="store_true", help="print the result as JSON")
    v.set_defaults(func=run_verify)


# ---------------------------------------------------------------- ceremony


SEED_RULE = (
    "a seed is hex: and 32..128 hexadecimal digits (16..64 bytes), or a phrase of 16..64 "
    "bytes of UTF-8 that is not made only of hexadecimal digits"
)


def parse_seat_seed(text: str, seat: Seat) -> bytes:
    """``hex:`` and 32..128 hex digits, or a phrase of 16..64 bytes of UTF-8 taken as it is.

    One reading only: a phrase made only of hex digits (which an earlier version read as
    hex) is refused rather than silently read as text."""
    path = f"seats.{seat.name}.seed"
    s = text.strip()
    if s[:4].lower() == "hex:":
        digits = s[4:]
        if (
            len(digits) % 2
            or not 2 * kdf.SEAT_SEED_MIN <= len(digits) <= 2 * kdf.SEAT_SEED_MAX
            or not all(c in HEX_DIGITS for c in digits)
        ):
            raise ShuffleFormatError(path, f"{SEED_RULE} (hex: with {len(digits)} characters)")
        return bytes.fromhex(digits)
    raw = s.encode()
    if s and all(c in HEX_DIGITS for c in s):
        raise ShuffleFormatError(
            path, f"{SEED_RULE}: this phrase is only hex digits; write hex:{s} to mean hex"
        )
    if not kdf.SEAT_SEED_MIN <= len(raw) <= kdf.SEAT_SEED_MAX:
        raise ShuffleFormatError(path, f"{SEED_RULE} (this phrase has {len(raw)} bytes)")
    return raw


HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def parse_pattern(text: str) -> tuple[int, ...]:
    if text in PATTERNS:
        return PATTERNS[text]
    try:
        return check_pattern(tuple(int(x) for x in text.split("-")))
    except ValueError:
        raise ShuffleFormatError("pattern", f"{text!r} is not a packet pattern") from None


def parse_beacon(text: str) -> Beacon:
    try:
        source, round_, value = text.rsplit(":", 2)
        return Beacon(source, int(round_), bytes.fromhex(value))
    except ValueError:
        raise ShuffleFormatError("beacon", "give SOURCE:ROUND:HEX") from None


def _seeds_file(path: Path) -> dict[str, str]:
    try:
        data = loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, FairplayError) as exc:
        raise ShuffleFormatError("", f"cannot read seeds from {path}: {exc}") from None
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise ShuffleFormatError("", f'{path}: expected {{"N": "seed", ...}}')
    return data


def run_ceremony(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    players = {s: getattr(args, f"player_{s.name}") for s in SEAT_ORDER}
    ceremony = Ceremony(
        args.table,
        args.hand,
        Seat[args.dealer],
        players,
        pattern=parse_pattern(args.pattern),
        pack=args.pack,
        expect_beacon=args.beacon is not None,
    )
    print(f"table {args.table}, hand {args.hand}, dealer {args.dealer}, pack {args.pack}", file=out)
    print(f"server commitment: {ceremony.server_commitment.hex()}", file=out)
    given = _seeds_file(args.seeds) if args.seeds else {}
    seeds: dict[Seat, bytes] = {}
    for seat in SEAT_ORDER:
        text = getattr(args, f"seed_{seat.name}") or given.get(seat.name)
        if text is None:
            text = getpass.getpass(f"{seat.name} ({players[seat] or 'no id'}), type your seed: ")
        seeds[seat] = parse_seat_seed(text, seat)
        commitment = ceremony.commit_seed(seat, seeds[seat])
        print(f"{seat.name} commitment: {commitment.hex()}", file=out)
    # All four commitments are in (and printed): the seeds are revealed.
    for seat in SEAT_ORDER:
        ceremony.reveal(seat, seeds[seat])
    if args.beacon:
        ceremony.set_beacon(parse_beacon(args.beacon))
    derived = ceremony.deal()
    print("pack order (top first): " + " ".join(CARD_TEXT[c] for c in derived.pack_order), file=out)
    for seat in SEAT_ORDER:
        print(f"{seat.name}: " + " ".join(CARD_TEXT[c] for c in derived.deal[seat]), file=out)
    print(f"cayenne: {CARD_TEXT[derived.cayenne]}", file=out)
    print(f"deal number: {derived.deal_number}", file=out)
    transcript = ceremony.finish()
    text = json.dumps(transcript.to_json(), indent=2)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
        print(f"transcript written to {args.out}", file=out)
    else:
        print("transcript:", file=out)
        print(text, file=out)
    return 0


# ---------------------------------------------------------------- verify


def _describe(result: Result) -> dict[str, Any]:
    return {
        "ok": True,
        "deal": {s.name: [CARD_TEXT[c] for c in result.deal[s]] for s in SEAT_ORDER},
        "cayenne": CARD_TEXT[result.cayenne],
        "dealt_order": [CARD_TEXT[c] for c in result.pack_order],
        "deal_number": str(result.deal_number),
    }


def run_verify(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        # a transcript is hashed and signed: a key named twice is refused, not read
        data = loads(args.file.read_bytes())
    except (OSError, ValueError, FairplayError) as exc:
        raise ShuffleFormatError("", f"cannot read {args.file}: {exc}") from None
    if isinstance(data, dict) and data.get("format") == "cayenne-record/1":
        return _verify_record(data, args, out)
    try:
        result = verify_transcript(data)
    except ShuffleError as exc:
        if isinstance(exc, ShuffleFormatError) and not isinstance(exc, ShuffleIncompleteError):
            raise  # not a well-formed transcript: exit 2, as an unreadable record
        # well formed, but it does not verify (or a seed was never revealed): exit 1
        if args.json:
            print(json.dumps({"ok": False, "code": exc.code, "message": exc.message}), file=out)
        else:
            print(f"FAIL {exc.code}: {exc.message}", file=out)
        return 1
    if args.json:
        print(json.dumps(_describe(result)), file=out)
    else:
        print(f"OK: {args.file} verifies", file=out)
        for seat in SEAT_ORDER:
            print(f"{seat.name}: " + " ".join(CARD_TEXT[c] for c in result.deal[seat]), file=out)
        print(f"cayenne: {CARD_TEXT[result.cayenne]}", file=out)
        print(f"deal number: {result.deal_number}", file=out)
    return 0


def _verify_record(data: dict[str, Any], args: argparse.Namespace, out: TextIO) -> int:
    hands = data.get("hands")
    if not isinstance(hands, list):
        raise ShuffleFormatError("", f"{args.file}: a record without a hands list")
    ruleset = data.get("ruleset")
    pattern = ruleset.get("deal_pattern") if isinstance(ruleset, dict) else None
    failures = 0
    checked = 0
    report: list[dict[str, Any]] = []
    for i, hand in enumerate(hands, start=1):
        if not isinstance(hand, dict) or "shuffle" not in hand:
            continue
        checked += 1
        try:
            result = check_record_hand(hand, pattern if isinstance(pattern, list) else None)
        except FairplayError as exc:
            failures += 1
            report.append({"hand": i, "ok": False, "code": exc.code, "message": exc.message})
            if not args.json:
                print(f"hand {i}: FAIL {exc.code}: {exc.message}", file=out)
        else:
            report.append({"hand": i, **_describe(result)})
            if not args.json:
                print(f"hand {i}: OK (deal number {result.deal_number})", file=out)
    if args.json:
        print(json.dumps({"checked": checked, "failed": failures, "hands": report}), file=out)
    elif checked == 0:
        print(f"{args.file}: no hand carries a shuffle object", file=out)
    return 1 if failures else 0
