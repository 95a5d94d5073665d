"""The fast path of record loading: validate and convert in one pass.

The shipped JSON Schema is the definition of a valid record, and
:func:`audit.record.codec.load_record` is defined as "validate with the schema, then
convert". Running the compiled schema costs about eight times the JSON parse, which
would dominate an audit, so this module checks every constraint the schema states
while it converts, and gives up (returns ``None``) at the first thing it is not sure
of. It is stricter than the schema, never looser: on ``None`` the caller runs the
schema itself, which either names the problem or accepts the record (then the
ordinary conversion runs). ``tests/audit/test_fastload.py`` checks, on many mutated
records, that the two never disagree about a record the fast path accepts.
"""

from __future__ import annotations

from typing import Any

from audit.rules.cards import CARD_BY_TEXT, SEAT_BY_TEXT, Side
from audit.rules.model import (
    HAND_FIELDS,
    Bonus,
    GameWon,
    HandRecord,
    Penalty,
    Record,
    Score,
    Start,
    TrickRecord,
)
from audit.rules.ruleset import DEFAULT_RULESET, PENALTY_OPTIONS, SEVEN_IS, Ruleset

__all__ = ["TopLevel", "fast_load", "load_hand", "top_level"]

_CALLS = frozenset(("pass", "S", "H", "D", "C", "grand", "nullo"))
_SEAT_KEYS = frozenset(("N", "E", "S", "W"))
_RULESET_KEYS = frozenset(("deal_pattern", "seven_is", "default_penalty"))
_KINDS = frozenset(("rubber", "slam", "little_slam"))
_SIDES = {"NS": Side.NS, "EW": Side.EW}
_META = ("event", "site", "date", "table")


class _Reject(Exception):
    """The fast path is not sure; let the schema decide."""


def _int(x: Any, lo: int, hi: int | None) -> int:
    if type(x) is not int or x < lo or (hi is not None and x > hi):
        raise _Reject
    return x


_CARD = CARD_BY_TEXT.__getitem__


def _cards(x: Any) -> tuple[int, ...]:
    if type(x) is not list:
        raise _Reject
    try:
        return tuple(map(_CARD, x))
    except (KeyError, TypeError):
        raise _Reject from None


def _names_ok(obj: dict[str, Any], allowed: frozenset[str]) -> None:
    for k in obj:
        if k not in allowed and not k.startswith("x-"):
            raise _Reject


def _side_points(x: Any, hi: int) -> tuple[int, int]:
    if type(x) is not dict:
        raise _Reject
    try:
        return (_int(x["NS"], 0, hi), _int(x["EW"], 0, hi))
    except KeyError:
        raise _Reject from None


def _score(x: Any) -> Score:
    if type(x) is not dict or "points" not in x:
        raise _Reject
    pts = _side_points(x["points"], 9)
    games: list[GameWon] = []
    bonuses: list[Bonus] = []
    g = x.get("games", None)
    if "games" in x:
        if type(g) is not list:
            raise _Reject
        for item in g:
            if type(item) is not dict or item.get("side") not in _SIDES:
                raise _Reject
            games.append(GameWon(_SIDES[item["side"]], _int(item.get("value"), 1, 4)))
    b = x.get("bonuses", None)
    if "bonuses" in x:
        if type(b) is not list:
            raise _Reject
        for item in b:
            if (
                type(item) is not dict
                or item.get("side") not in _SIDES
                or item.get("kind") not in _KINDS
            ):
                raise _Reject
            bonuses.append(
                Bonus(_SIDES[item["side"]], item["kind"], _int(item.get("points"), 0, None))
            )
    return Score(
        points=pts,
        games=tuple(games),
        bonuses=tuple(bonuses),
        has_games="games" in x,
        has_bonuses="bonuses" in x,
    )


def _hand(index: int, h: Any) -> HandRecord:
    if type(h) is not dict or "void" in h:
        raise _Reject  # a voided deal (its fields optional) takes the schema's path
    seats = SEAT_BY_TEXT
    by = CARD_BY_TEXT
    try:
        dealer = seats[h["dealer"]]
        deal = h["deal"]
        cayenne = by[h["cayenne"]]
        calls_raw = h["calls"]
        tricks_raw = h["tricks"]
    except (KeyError, TypeError):
        raise _Reject from None
    if type(deal) is not dict:
        raise _Reject
    _names_ok(deal, _SEAT_KEYS)
    try:
        hands = (_cards(deal["N"]), _cards(deal["E"]), _cards(deal["S"]), _cards(deal["W"]))
    except KeyError:
        raise _Reject from None
    if type(calls_raw) is not list or not calls_raw:
        raise _Reject
    calls = []
    for c in calls_raw:
        if type(c) is not dict:
            raise _Reject
        call = c.get("call")
        seat = c.get("seat")
        if call not in _CALLS or seat not in seats:
            raise _Reject
        calls.append((seats[seat], call))
    if type(tricks_raw) is not list:
        raise _Reject
    tricks = []
    for t in tricks_raw:
        if type(t) is not dict:
            raise _Reject
        leader = t.get("leader")
        if leader not in seats or "cards" not in t or "corrected" in t:
            raise _Reject
        ah = t.get("ace_high")
        tricks.append(
            TrickRecord(
                seats[leader], _cards(t["cards"]), None if "ace_high" not in t else _cards(ah)
            )
        )
    extra: dict[str, Any] = {}
    pack = board = None
    dealt_order = gathered = collected = claimed = shuffle = None
    penalties: tuple[Penalty, ...] = ()
    if len(h) > 5:
        if "board" in h:
            board = _int(h["board"], 1, None)
        if "pack" in h:
            pack = h["pack"]
            if type(pack) is not int or pack not in (0, 1):
                raise _Reject
        if "dealt_order" in h:
            dealt_order = _cards(h["dealt_order"])
        if "gathered" in h:
            g = h["gathered"]
            if type(g) is not dict or "NS" not in g or "EW" not in g:
                raise _Reject
            ns, ew = g["NS"], g["EW"]
            if type(ns) is not list or type(ew) is not list:
                raise _Reject
            gathered = (tuple(_int(n, 1, 13) for n in ns), tuple(_int(n, 1, 13) for n in ew))
        if "collected" in h:
            collected = _cards(h["collected"])
        if "penalties" in h:
            p = h["penalties"]
            if type(p) is not list:
                raise _Reject
            out = []
            for item in p:
                if (
                    type(item) is not dict
                    or item.get("seat") not in seats
                    or item.get("option") not in PENALTY_OPTIONS
                ):
                    raise _Reject
                out.append(
                    Penalty(_int(item.get("trick"), 1, 13), seats[item["seat"]], item["option"])
                )
            penalties = tuple(out)
        if "claimed" in h:
            claimed = _score(h["claimed"])
        if "claim" in h:
            raise _Reject  # a claimed hand: the full reader (codec) reads it
        if "shuffle" in h:
            shuffle = h["shuffle"]
            if type(shuffle) is not dict:
                raise _Reject
        extra = {k: v for k, v in h.items() if k not in HAND_FIELDS}
    return HandRecord(
        number=index + 1,
        dealer=dealer,
        deal=hands,
        cayenne=cayenne,
        calls=tuple(calls),
        tricks=tuple(tricks),
        board=board,
        pack=pack,
        dealt_order=dealt_order,
        gathered=gathered,
        collected=collected,
        penalties=penalties,
        claimed=claimed,
        shuffle=shuffle,
        extra=extra,
    )


def _ruleset(r: Any) -> Ruleset:
    if type(r) is not dict:
        raise _Reject
    _names_ok(r, _RULESET_KEYS)
    pattern = r.get("deal_pattern", DEFAULT_RULESET.deal_pattern)
    if "deal_pattern" in r:
        if type(pattern) is not list or not 1 <= len(pattern) <= 13:
            raise _Reject
        pattern = tuple(_int(n, 1, 13) for n in pattern)
        if sum(pattern) != 13:
            raise _Reject
    seven = r.get("seven_is", "single")
    penalty = r.get("default_penalty", "tricks")
    if seven not in SEVEN_IS or penalty not in PENALTY_OPTIONS:
        raise _Reject
    return Ruleset(deal_pattern=tuple(pattern), seven_is=seven, default_penalty=penalty)


TopLevel = tuple[
    Ruleset, Start | None, dict[str, Any] | None, dict[str, int] | None, dict[str, Any], list[Any]
]
"""``(ruleset, start, players, cut, meta, hands)`` of a record, the hands still raw JSON."""


def top_level(doc: Any) -> TopLevel | None:
    """Everything but the hands, converted, or ``None`` when anything is not certainly valid."""
    try:
        if type(doc) is not dict or doc.get("format") != "cayenne-record/1":
            return None
        hands_raw = doc.get("hands")
        if type(hands_raw) is not list:
            return None
        ruleset = _ruleset(doc["ruleset"]) if "ruleset" in doc else DEFAULT_RULESET
        meta: dict[str, Any] = {}
        for k in _META:
            if k in doc:
                if type(doc[k]) is not str:
                    return None
                meta[k] = doc[k]
        if "round" in doc:
            meta["round"] = _int(doc["round"], 1, None)
        if "independent_deals" in doc:
            if type(doc["independent_deals"]) is not bool:
                return None
            meta["independent_deals"] = doc["independent_deals"]
        players = doc.get("players", None)
        if "players" in doc:
            if type(players) is not dict:
                return None
            _names_ok(players, _SEAT_KEYS)
            if any(type(v) is not str for k, v in players.items() if k in _SEAT_KEYS):
                return None
            players = dict(players)
        start = None
        if "start" in doc:
            s = doc["start"]
            if type(s) is not dict or "points" not in s:
                return None
            games = _side_points(s["games"], 3) if "games" in s else (0, 0)
            sheet = None
            if "sheet" in s:
                sh = s["sheet"]
                if type(sh) is not dict or set(sh) != {"NS", "EW"}:
                    return None
                if type(sh["NS"]) is not list or type(sh["EW"]) is not list:
                    return None
                sheet = (
                    tuple(_int(v, 0, None) for v in sh["NS"]),
                    tuple(_int(v, 0, None) for v in sh["EW"]),
                )
            start = Start(points=_side_points(s["points"], 9), games=games, sheet=sheet)
        cut = None
        if "cut" in doc:
            c = doc["cut"]
            if type(c) is not dict:
                return None
            _names_ok(c, _SEAT_KEYS)
            cut = {k: CARD_BY_TEXT[v] for k, v in c.items() if k in _SEAT_KEYS}
        for k in doc:
            if k.startswith("x-"):
                meta[k] = doc[k]
        return ruleset, start, players, cut, meta, hands_raw
    except (_Reject, KeyError, TypeError):
        return None


def load_hand(index: int, raw: Any) -> HandRecord | None:
    """Hand ``index`` (0-based) of a record, converted as :func:`fast_load` converts it, or
    ``None`` when anything is not certainly valid (a hand read on its own, from a stream)."""
    try:
        return _hand(index, raw)
    except (_Reject, KeyError, TypeError):
        return None


def fast_load(doc: Any) -> Record | None:
    """The typed record, or ``None`` when anything is not certainly valid."""
    top = top_level(doc)
    if top is None:
        return None
    ruleset, start, players, cut, meta, hands_raw = top
    try:
        hands = [_hand(i, h) for i, h in enumerate(hands_raw)]
    except (_Reject, KeyError, TypeError):
        return None
    return Record(hands=hands, ruleset=ruleset, start=start, players=players, cut=cut, meta=meta)
