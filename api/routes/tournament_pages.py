"""Pages for people about tournaments: the events, one event live, a board's travelling
score sheet, a pair's card (docs/tournaments.md, "Online events").

The pages show what the JSON routes of :mod:`api.routes.tournaments` show, to the same
readers: the event, its rounds, tables, seating and live standings to anyone; a duplicate
board's travelling score sheet and a pair's results only once the event is over (before
then, to a player who has played the board, by a signed request, as the JSON route; anyone
else gets a 403 page that says the sheet is hidden). The tables of a duplicate event are
private until it ends: the event page shows how far each has got (boards finished, the
phase of the one in play), never a card or a result. A page of an event in progress
reloads itself every ``REFRESH_SECONDS`` (no stream per event exists; one small page
load every few seconds per visitor).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, render_template

from api import rows
from api.auth import signed_reader
from api.database import Connection
from api.errors import NotFound
from api.routes import services
from api.routes.tournaments import board_access
from api.schemas import spec
from api.tournament import Tournaments
from audit.record.codec import load_record
from audit.report.views import holding_rows
from audit.rules.cards import SUIT_SYMBOLS, parse_card
from audit.rules.replay import replay_hand
from audit.rules.sitting import hand_facts
from audit.tournament.directors import GRANTS_HAND, GRANTS_TABLE, check_rulings, grants_of
from audit.tournament.event import DUPLICATE

__all__ = [
    "HIDDEN",
    "by_suit",
    "REFRESH_SECONDS",
    "board_page",
    "bp",
    "event_page",
    "events_page",
    "num",
    "pair_page",
]

bp = Blueprint("tournament_pages", __name__)

REFRESH_SECONDS = 5
"""How often the page of an event in progress reloads itself."""

CONTRACT_TEXT = dict(zip("SHDC", SUIT_SYMBOLS, strict=True))
HIDDEN = (
    "is hidden until the event ends: until then only a player who has played the board "
    "may read it (a signed request)."
)


def by_suit(cards: list[str]) -> list[tuple[str, str, bool]]:
    """(symbol, ranks high to low, red) per suit, for a board's diagram (the report's
    holding rows, ten written 10)."""
    rows_ = holding_rows((parse_card(c) for c in cards), ten="10")
    return [(r.symbol, r.ranks, "red" in r.cls.split()) for r in rows_]


def num(value: Any) -> str:
    """A score or matchpoints as a scorer writes it: ``3``, ``2.5``, ``—`` for none."""
    if value is None:
        return "\u2014"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _page(template: str, status: int = 200, **context: Any) -> Response:
    html = render_template(template, by_suit=by_suit, num=num, **context)
    return Response(html, status=status, mimetype="text/html")


def _t() -> Tournaments:
    return services().tournaments


def _names(conn: Connection, doc: dict[str, Any]) -> dict[str, str]:
    ids = {p for pair in doc["pair_list"] for p in pair} | set(doc["order"])
    ids |= {s["in"] for s in doc["substitutions"]}
    return rows.player_names(conn, sorted(ids))


def _pair_names(names: dict[str, str], players: list[str]) -> str:
    return " \u2013 ".join(names.get(p, p[:12]) for p in players)


def _table_status(conn: Connection, sitting: dict[str, Any], over: bool) -> dict[str, Any]:
    """How far a table has got: boards finished, the board in play and its phase."""
    hands = rows.list_hands(conn, sitting["id"])
    done = sum(1 for h in hands if h.phase == "over")
    live = next((h for h in hands if h.phase not in ("over", "void")), None)
    if live is not None and not over:
        board = live.ceremony.get("board")
        what = f"board {board}" if board is not None else f"hand {live.number}"
        text = f"{what}: {live.phase}"
    elif over:
        text = "finished"
    else:
        text = "waiting"
    total = len(sitting["boards"]) if "boards" in sitting else int(sitting.get("hands", 0))
    return {"done": done, "total": total, "text": text, "live": live is not None and not over}


def _standing_rows(
    doc: dict[str, Any], standings: list[dict[str, Any]], names: dict[str, str]
) -> list[dict[str, Any]]:
    numbers = {tuple(p): n for n, p in enumerate(doc["pair_list"], 1)}
    out = []
    for s in standings:
        number = s.get("pair_number") or numbers.get(tuple(s["pair"]))
        out.append({**s, "number": number, "names": _pair_names(names, s["pair"])})
    return out


@bp.get("/tournaments")
@spec("Tournaments page: the events", response="text/html")
def events_page() -> Response:
    conn = services().db.connection()
    found = conn.all("SELECT id FROM api_tournaments ORDER BY created_at DESC, id")
    events = [_t().load(str(tid)) for (tid,) in found]
    return _page("tournaments.html", events=events)


@bp.get("/tournaments/<tid>")
@spec("An event's page: rounds, tables, live standings", response="text/html")
def event_page(tid: str) -> Response:
    t = _t()
    doc = t.load(tid)
    conn = services().db.connection()
    names = _names(conn, doc)
    standings = t.standings(doc)
    pairs = [
        {
            "number": n,
            "names": _pair_names(names, t.members(doc, n, doc["round"] or 1)),
            "withdrawn": n in doc["absent"] or str(n) in doc["withdrawn"],
        }
        for n in t.pair_numbers(doc)
    ]
    rounds = []
    for r in reversed(doc["rounds_played"]):
        tables = []
        for s in r["tables"]:
            tables.append(
                {
                    **s,
                    "seat_names": {k: names.get(v, v[:12]) for k, v in s["seats"].items()},
                    "status": _table_status(conn, s, r["over"]),
                }
            )
        rounds.append({**r, "tables": tables})
    fields: dict[str, list[dict[str, Any]]] = {}
    for s in _standing_rows(doc, standings["standings"], names):
        fields.setdefault(s["field"] or "", []).append(s)
    duplicate = doc["format"] == DUPLICATE  # a round robin has no boards (nor "tables")
    boards = list(range(1, doc["tables"] * doc["boards_per_round"] + 1)) if duplicate else []
    return _page(
        "tournament.html",
        doc=doc,
        pairs=pairs,
        rounds=rounds,
        fields=fields,
        boards=boards,
        over=doc["phase"] == "over",
        refresh=REFRESH_SECONDS if doc["phase"] not in ("over", "created") else None,
        deals_rule=_deals_rule(doc),
        rulings=_rulings(tid),
    )


def _rulings(tid: str) -> list[dict[str, Any]]:
    """Who took each ruling of the event and why (audit.tournament.directors: a director's
    signed request checked against the grants, else the operator's)."""
    log = services().hand_log.log
    chain = log.hand_events(tid, "event")
    grants = grants_of(log.hand_events(GRANTS_TABLE, GRANTS_HAND))
    return [
        {**r, "what": r["type"].removeprefix("tournament_").replace("_", " ")}
        for r in check_rulings(tid, chain, grants)
        if r["by"] != "operator" or "reason" in r  # the operator's steps: those with a reason
    ]


def _deals_rule(doc: dict[str, Any]) -> dict[str, Any] | None:
    """Version 2: the reveal deadline and the drand round that deals, in UTC text."""
    drand = doc.get("drand")
    if doc.get("reveal_deadline") is None or drand is None:
        return None
    published = drand["genesis"] + (drand["round"] - 1) * drand["period"]
    return {
        "deadline": rows.now_iso(doc["reveal_deadline"]),
        "round": drand["round"],
        "published": rows.now_iso(published),
        "dealt": "signature" in drand,
    }


def _hand_summary(hand_json: dict[str, Any], ruleset: dict[str, Any]) -> dict[str, Any]:
    """Contract, maker and tricks of one finished board (from its record)."""
    record = load_record(
        {"format": "cayenne-record/1", "ruleset": ruleset, "hands": [hand_json], "players": {}}
    )
    hand = record.hands[0]
    facts = hand_facts(hand, replay_hand(hand), record.ruleset)
    calls = [c for c in hand_json.get("calls", []) if c.get("call") not in ("pass", None)]
    maker = calls[-1]["seat"] if calls else None
    if facts is None:
        return {"contract": "\u2014", "maker": maker, "tricks": None}
    name = facts.contract.name
    contract = CONTRACT_TEXT.get(name, name.lower())
    return {"contract": contract, "red": name in ("H", "D"), "maker": maker, "tricks": facts.tricks}


@bp.get("/tournaments/<tid>/boards/<int:board>")
@spec(
    "A board's travelling score sheet (its players only until the event ends)",
    response="text/html",
    errors=(403,),
)
def board_page(tid: str, board: int) -> Response:
    t, doc, conn, readable = board_access(tid, board)
    if not readable:
        return _page("tournament_hidden.html", 403, doc=doc, what=f"Board {board}", why=HIDDEN)
    names = _names(conn, doc)
    sheet = next((b for b in t.standings(doc)["boards"] if b["board"] == board), None)
    played: dict[tuple[int, str], dict[str, Any]] = {}
    for rec in t.records(doc):
        for h in rec["hands"]:
            if h.get("board") == board:
                played[(rec["round"], rec["table"])] = _hand_summary(h, doc["ruleset"])
    numbers = {tuple(p): n for n, p in enumerate(doc["pair_list"], 1)}
    results = []
    for r in [] if sheet is None else sheet["results"]:
        results.append(
            {
                **r,
                "ns_names": _pair_names(names, r["ns"]),
                "ew_names": _pair_names(names, r["ew"]),
                "ns_number": numbers.get(tuple(r["ns"])),
                "ew_number": numbers.get(tuple(r["ew"])),
                "play": played.get((r["round"], str(r["table"]))),
            }
        )
    deal = None
    if doc["phase"] == "over" and doc["revealed"]:
        d = t.board(doc, board)
        from audit.rules.cards import CARD_TEXT

        deal = {
            "dealer": d.dealer.name,
            "cayenne": d.to_json()["cayenne"],
            "hands": {s.name: [CARD_TEXT[c] for c in d.deal[s]] for s in d.deal},
        }
    return _page(
        "tournament_board.html",
        doc=doc,
        board=board,
        voided=board in doc["voided"],
        top=None if sheet is None else sheet["top"],
        results=results,
        deal=deal,
    )


@bp.get("/tournaments/<tid>/pairs/<int:pair>")
@spec(
    "A pair's card (results to its players only until the event ends)",
    response="text/html",
    errors=(403,),
)
def pair_page(tid: str, pair: int) -> Response:
    t = _t()
    doc = t.load(tid)
    if not 1 <= pair <= len(doc["pair_list"]):
        raise NotFound(f"tournament {tid!r} has no pair {pair}")
    conn = services().db.connection()
    names = _names(conn, doc)
    label = t.members(doc, pair, doc["round"] or 1)
    members = {p for r in range(1, max(doc["round"], 1) + 1) for p in t.members(doc, pair, r)}
    shown = doc["phase"] == "over" or doc["format"] != DUPLICATE
    if not shown:
        reader = signed_reader(conn, services().config)
        shown = reader is not None and reader in members
    standings = t.standings(doc)
    place = next((s for s in standings["standings"] if s["pair"] == label), None)
    # The pair's schedule (public: the movement is) and, when it may be read, its results.
    results: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for b in standings.get("boards", []) if shown else []:
        for r in b["results"]:
            for side in ("ns", "ew"):
                if r[side] == label:
                    mine = f"{side}_matchpoints"
                    score = r["ns_score"] if side == "ns" else -r["ns_score"]
                    results.setdefault((r["round"], int(r["table"])), []).append(
                        {
                            "board": b["board"],
                            "score": score,
                            "mp": r[mine],
                            "top": b["top"],
                            "adjusted": r.get("adjusted", {}).get(side),
                        }
                    )
    matches = [m for m in standings.get("matches", []) if label in (m["ns"], m["ew"])]
    schedule = []
    for r in doc["rounds_played"]:
        for s in r["tables"]:
            if pair not in (s["ns"], s["ew"]):
                continue
            side = "NS" if s["ns"] == pair else "EW"
            other = s["ew"] if side == "NS" else s["ns"]
            schedule.append(
                {
                    "round": r["round"],
                    "table": s["table"],
                    "side": side,
                    "against": other,
                    "against_names": _pair_names(names, t.members(doc, other, r["round"])),
                    "boards": s.get("boards", []),
                    "over": r["over"],
                    "results": results.get((r["round"], s["table"]), []),
                }
            )
    return _page(
        "tournament_pair.html",
        doc=doc,
        pair=pair,
        names=_pair_names(names, label),
        place=place,
        schedule=schedule,
        matches=matches,
        shown=shown,
        hidden=HIDDEN,
    )


@bp.get("/tournaments/<tid>/certificate")
@spec(
    "The certificate's page for a person (what it holds, its note, how to check it)",
    response="text/html",
    errors=(409,),
)
def certificate_page(tid: str) -> Response:
    """The certificate for a person: what it holds, its signed note, and how to check it
    offline (the JSON route is for the tools)."""
    from api.certificate import bundle

    doc = _t().load(tid)
    b = bundle(services().certificates, tid)
    cert = b["certificate"]
    facts = [(k, v) for k, v in cert.items() if isinstance(v, str | int | float | bool)]
    counts = [(k, len(v)) for k, v in cert.items() if isinstance(v, list | dict)]
    rulings = [
        {**r, "what": str(r["type"]).removeprefix("tournament_").replace("_", " ")}
        for r in cert.get("rulings", [])
        if r["by"] != "operator" or "reason" in r
    ]
    return _page(
        "tournament_certificate.html",
        doc=doc,
        facts=facts,
        counts=counts,
        note=b["note"],
        rulings=rulings,
        actions=cert["actions"],
        directors=cert.get("directors", []),
    )
