"""Read, validate and write cayenne-record/1 (docs/record-format.md).

Validation has two stages. The shipped JSON Schema (``audit/record/schema/``), compiled
once into Python code, checks the structure and every notation (cards, seats,
contracts); its first error is reported with the JSON path of the problem, as
``hands[2].tricks[4].cards[1]: 'XS' is not a card``. The conversion to typed values
(:mod:`audit.rules.model`) then checks what a schema cannot say (the ruleset's packet
sizes add up to 13). Counts and the rules of play are *not* input errors: the auditor
reports them as findings, hand by hand.
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import fastjsonschema

from audit.errors import RecordError
from audit.record.fastload import fast_load
from audit.rules.cards import CARD_BY_TEXT, CARD_TEXT, SEAT_BY_TEXT, Card, Seat, Side
from audit.rules.model import (
    HAND_FIELDS,
    Bonus,
    Claim,
    Correction,
    GameWon,
    HandRecord,
    Penalty,
    Record,
    Score,
    Start,
    TrickRecord,
    VoidDeal,
)
from audit.rules.ruleset import DEFAULT_RULESET, Ruleset

__all__ = [
    "FORMAT",
    "SCHEMA_RESOURCE",
    "dumps",
    "hand_to_json",
    "json_path",
    "load_record",
    "parse_json_text",
    "read_json_file",
    "read_record_file",
    "record_to_json",
    "schema",
    "validate",
]

FORMAT = "cayenne-record/1"
SCHEMA_RESOURCE = "cayenne-record-1.json"
_META_FIELDS = ("event", "site", "date", "table", "round", "independent_deals")


def schema() -> dict[str, Any]:
    """The JSON Schema of cayenne-record/1, as shipped in the package."""
    text = resources.files("audit.record.schema").joinpath(SCHEMA_RESOURCE).read_text("utf-8")
    obj: dict[str, Any] = json.loads(text)
    return obj


@lru_cache(maxsize=1)
def _validator() -> Callable[[Any], Any]:
    return fastjsonschema.compile(schema())


def json_path(parts: list[str] | tuple[str, ...]) -> str:
    """``['data', 'hands', '2', 'cards']`` → ``hands[2].cards``."""
    out = ""
    for part in parts[1:]:
        if part.isdigit():
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out


_TYPE_WORDS = {
    "object": "an object",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
}


def _schema_error(exc: fastjsonschema.JsonSchemaValueException) -> RecordError:
    path = json_path(exc.path or ["data"])
    definition = exc.definition if isinstance(exc.definition, dict) else {}
    value = exc.value
    custom = definition.get("x-message")
    if exc.rule == "required" and isinstance(value, dict):
        missing = [k for k in (exc.rule_definition or []) if k not in value]
        name = missing[0] if missing else "?"
        return RecordError(f"{path}.{name}" if path else name, "is required")
    if exc.rule == "type":
        want = exc.rule_definition
        words = _TYPE_WORDS.get(want, str(want)) if isinstance(want, str) else str(want)
        return RecordError(
            path,
            f"{value!r} is not {words}"
            if not isinstance(value, (dict, list))
            else f"must be {words}",
        )
    if exc.rule == "propertyNames" and isinstance(value, dict):
        names = definition.get("propertyNames", {})
        pattern = re.compile(names.get("pattern", ".*"))
        bad = next((k for k in value if not pattern.search(k)), "?")
        return RecordError(path, f"{bad!r} {names.get('x-message', 'is not an allowed name here')}")
    if custom:
        if custom.startswith("must"):
            return RecordError(path, f"{value!r}: {custom}" if path else custom)
        return RecordError(path, f"{value!r} {custom}")
    if exc.rule in ("minimum", "maximum"):
        return RecordError(path, f"{value!r} is out of range ({exc.rule} {exc.rule_definition})")
    if exc.rule in ("minItems", "maxItems"):
        return RecordError(
            path,
            f"must have {'at least' if exc.rule == 'minItems' else 'at most'} "
            f"{exc.rule_definition} items",
        )
    message = exc.message
    if message.startswith("data"):
        message = message.split(" ", 1)[-1]
    return RecordError(path, message)


def validate(doc: Any) -> None:
    """Check ``doc`` against the schema; raise :class:`RecordError` at the first problem."""
    if not isinstance(doc, dict):
        raise RecordError("", "a record must be a JSON object")
    try:
        _validator()(doc)
    except fastjsonschema.JsonSchemaValueException as exc:
        raise _schema_error(exc) from None


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector (restored after, if it was on).

    Parsing a big record allocates millions of containers, each of which counts
    towards the collector's thresholds, so it would scan the growing tree again and
    again (a record of 20,000 hands: 2.0 s to parse with it on, 0.5 s with it off).
    A JSON tree holds no reference cycles, so nothing is lost by not looking.
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def parse_json_text(text: str | bytes) -> Any:
    """Parse JSON, turning a syntax error into a :class:`RecordError` with line and column."""
    try:
        with collector_paused():
            return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(
            "", f"not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except UnicodeDecodeError as exc:
        raise RecordError("", f"not UTF-8 text: {exc.reason} at byte {exc.start}") from None


def read_json_file(path: str | Path) -> Any:
    """Read and parse a record file, not yet validated (:class:`RecordError` on failure)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise RecordError("", f"cannot read {path}: {exc.strerror}") from None
    return parse_json_text(data)


def read_record_file(path: str | Path) -> tuple[dict[str, Any], Record]:
    """Read and validate a record file; returns the JSON document and the typed record."""
    doc = read_json_file(path)
    return doc, load_record(doc)


def load_record(doc: Any, *, validated: bool = False) -> Record:
    """Validate a JSON document against the schema and convert it to a :class:`Record`.

    Most records take the one-pass fast path of :mod:`audit.record.fastload`, which is
    stricter than the schema; anything it is unsure of goes through the schema.
    """
    if not validated:
        fast = fast_load(doc)
        if fast is not None:
            return fast
        validate(doc)
    try:
        return _load_checked(doc)
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, RecordError):
            raise
        raise RecordError("", f"record not understood: {exc!r}") from None


def _load_checked(doc: Any) -> Record:
    ruleset = Ruleset.from_json(doc.get("ruleset")) if "ruleset" in doc else DEFAULT_RULESET
    start = None
    if "start" in doc:
        s = doc["start"]
        pts = s["points"]
        games = s.get("games") or {"NS": 0, "EW": 0}
        sheet = s.get("sheet")
        start = Start(
            points=(pts["NS"], pts["EW"]),
            games=(games["NS"], games["EW"]),
            sheet=None if sheet is None else (tuple(sheet["NS"]), tuple(sheet["EW"])),
        )
    cut = None
    if "cut" in doc:
        cut = {k: CARD_BY_TEXT[v] for k, v in doc["cut"].items() if not k.startswith("x-")}
    meta = {k: v for k, v in doc.items() if k in _META_FIELDS or k.startswith("x-")}
    hands = [_hand(i, h) for i, h in enumerate(doc["hands"])]
    players = doc.get("players")
    return Record(
        hands=hands,
        ruleset=ruleset,
        start=start,
        players=None if players is None else dict(players),
        cut=cut,
        meta=meta,
    )


def _cards(texts: list[str]) -> tuple[Card, ...]:
    return tuple(CARD_BY_TEXT[t] for t in texts)


def _score(obj: Mapping[str, Any]) -> Score:
    pts = obj["points"]
    return Score(
        points=(pts["NS"], pts["EW"]),
        games=tuple(GameWon(Side.parse(g["side"]), g["value"]) for g in obj.get("games", ())),
        bonuses=tuple(
            Bonus(Side.parse(b["side"]), b["kind"], b["points"]) for b in obj.get("bonuses", ())
        ),
        has_games="games" in obj,
        has_bonuses="bonuses" in obj,
    )


def _claim(obj: Mapping[str, Any]) -> Claim:
    seats = SEAT_BY_TEXT
    return Claim(seats[obj["claimer"]], obj["tricks"], tuple(seats[s] for s in obj["agreed"]))


def _hand(index: int, h: Mapping[str, Any]) -> HandRecord:
    by = CARD_BY_TEXT
    seats = SEAT_BY_TEXT
    # A voided deal may stop anywhere: its deal, cayenne card, calls and tricks are
    # optional (the schema requires them of every other hand).
    deal = h.get("deal") or {"N": [], "E": [], "S": [], "W": []}
    tricks = tuple(
        TrickRecord(
            seats[t["leader"]],
            tuple(by[c] for c in t["cards"]),
            None if "ace_high" not in t else tuple(by[c] for c in t["ace_high"]),
            tuple(Correction(seats[c["seat"]], by[c["card"]]) for c in t.get("corrected", ())),
        )
        for t in h.get("tricks", ())
    )
    gathered = h.get("gathered")
    void = h.get("void")
    return HandRecord(
        number=index + 1,
        dealer=seats[h["dealer"]],
        deal=(_cards(deal["N"]), _cards(deal["E"]), _cards(deal["S"]), _cards(deal["W"])),
        cayenne=by[h["cayenne"]] if "cayenne" in h else None,
        calls=tuple((seats[c["seat"]], c["call"]) for c in h.get("calls", ())),
        tricks=tricks,
        board=h.get("board"),
        pack=h.get("pack"),
        dealt_order=_cards(h["dealt_order"]) if "dealt_order" in h else None,
        gathered=None if gathered is None else (tuple(gathered["NS"]), tuple(gathered["EW"])),
        collected=_cards(h["collected"]) if "collected" in h else None,
        penalties=tuple(
            Penalty(p["trick"], seats[p["seat"]], p["option"]) for p in h.get("penalties", ())
        ),
        claimed=_score(h["claimed"]) if "claimed" in h else None,
        claim=_claim(h["claim"]) if "claim" in h else None,
        shuffle=h.get("shuffle"),
        void=None if void is None else VoidDeal(void["reason"], void.get("note")),
        extra={k: v for k, v in h.items() if k not in HAND_FIELDS},
    )


# -- writing ---------------------------------------------------------------------


def _texts(cards: tuple[Card, ...]) -> list[str]:
    return [CARD_TEXT[c] for c in cards]


def hand_to_json(hand: HandRecord) -> dict[str, Any]:
    obj: dict[str, Any] = {"dealer": hand.dealer.name}
    if hand.board is not None:
        obj["board"] = hand.board
    if hand.pack is not None:
        obj["pack"] = hand.pack
    void = hand.void
    if void is not None:
        obj["void"] = void.to_json()
    # a voided deal writes only what it holds (its deal, cayenne, calls, tricks optional)
    if void is None or any(hand.deal):
        obj["deal"] = {s.name: _texts(hand.deal[s]) for s in Seat}
    if hand.dealt_order is not None:
        obj["dealt_order"] = _texts(hand.dealt_order)
    if hand.cayenne is not None:
        obj["cayenne"] = CARD_TEXT[hand.cayenne]
    if void is None or hand.calls:
        obj["calls"] = [{"seat": s.name, "call": c} for s, c in hand.calls]
    tricks = []
    for t in hand.tricks:
        tj: dict[str, Any] = {"leader": t.leader.name, "cards": _texts(t.cards)}
        if t.ace_high is not None:
            tj["ace_high"] = _texts(t.ace_high)
        if t.corrected:
            tj["corrected"] = [
                {"seat": c.seat.name, "card": CARD_TEXT[c.card]} for c in t.corrected
            ]
        tricks.append(tj)
    if void is None or tricks:
        obj["tricks"] = tricks
    if hand.gathered is not None:
        obj["gathered"] = {"NS": list(hand.gathered[0]), "EW": list(hand.gathered[1])}
    if hand.collected is not None:
        obj["collected"] = _texts(hand.collected)
    if hand.penalties:
        obj["penalties"] = [
            {"trick": p.trick, "seat": p.seat.name, "option": p.option} for p in hand.penalties
        ]
    if hand.claimed is not None:
        c = hand.claimed.to_json()
        if not hand.claimed.has_games:
            del c["games"]
        if not hand.claimed.has_bonuses:
            del c["bonuses"]
        obj["claimed"] = c
    if hand.claim is not None:
        obj["claim"] = hand.claim.to_json()
    if hand.shuffle is not None:
        obj["shuffle"] = hand.shuffle
    obj.update(hand.extra)
    return obj


def record_to_json(record: Record) -> dict[str, Any]:
    """The canonical JSON form of a record (cards in two-character form)."""
    doc: dict[str, Any] = {"format": FORMAT}
    if record.players is not None:
        doc["players"] = dict(record.players)
    for k in _META_FIELDS:
        if k in record.meta:
            doc[k] = record.meta[k]
    if record.ruleset != DEFAULT_RULESET:
        doc["ruleset"] = record.ruleset.to_json()
    if record.start is not None:
        st: dict[str, Any] = {
            "points": {"NS": record.start.points[0], "EW": record.start.points[1]},
            "games": {"NS": record.start.games[0], "EW": record.start.games[1]},
        }
        if record.start.sheet is not None:
            st["sheet"] = {"NS": list(record.start.sheet[0]), "EW": list(record.start.sheet[1])}
        doc["start"] = st
    if record.cut is not None:
        doc["cut"] = {k: CARD_TEXT[v] for k, v in record.cut.items()}
    doc["hands"] = [hand_to_json(h) for h in record.hands]
    for k, v in record.meta.items():
        if k.startswith("x-"):
            doc[k] = v
    return doc


def dumps(record: Record) -> str:
    return json.dumps(record_to_json(record), indent=1, ensure_ascii=False) + "\n"
