"""An event's rounds: the deal, each round's tables and their hands, the round's end,
the next round and the event's end, each one logged step (:meth:`Desk.event`).

:func:`advance` moves an event on as far as it can go now: the director's word, the end
of a table's hand, a reader of a stalled event and the start-up repair all call it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import replace
from typing import Any

from api import faults, rows
from api.database import Connection
from api.handstate import ZERO_SCORE
from api.tournament import checks, documents, event_rows
from api.tournament.chain import CHAIN, Desk, Moved, Ruling, entrant_chain
from audit.errors import NotReadyError, StateConflict, WrongPhaseError
from audit.log.errors import LogChainBroken
from audit.log.events import event_hash
from audit.rules.cards import Seat
from audit.tournament import online
from audit.tournament.event import DUPLICATE
from audit.tournament.movement import boards_of_set
from shuffle import tournament as deals
from shuffle.beacon import DrandRound

__all__ = ["advance", "due", "end_round", "following", "hand_ended", "next_round", "standings"]


def next_round(desk: Desk, tid: str, body: Any, by: Ruling = None) -> dict[str, Any]:
    """The director's word: deal (withdrawing whoever has not revealed) or move on.

    The request names the round it starts (``{"round": n}``): once round ``n`` is
    begun, the same request again (a retry, or many at once) changes nothing."""
    wanted = checks.round_named(body)
    with desk.lock:
        conn = desk.db.connection()
        doc = desk.current(conn, tid)
        if wanted <= doc["round"]:
            return desk.load(conn, tid)  # begun already: a retry
        if wanted != doc["round"] + 1 or wanted > doc["rounds"]:
            raise WrongPhaseError(
                f"round {wanted} cannot start: the event is in round {doc['round']} "
                f"of {doc['rounds']}",
                details={"path": "round", "round": doc["round"]},
            )
        if doc["phase"] == "revealing":
            if doc.get("reveal_deadline") is None:
                _deal(desk, conn, doc, by=by)  # version 1: the director's word
            else:
                _deal_by_rule(desk, conn, doc, asked=True, by=by)
        elif doc["phase"] == "playing":
            if _round_on(doc):  # else the event is moving on already
                _end_round(desk, conn, doc, "the director started the next round", by)
        else:
            raise WrongPhaseError(f"the tournament is {doc['phase']}; no round to start")
        advance(desk, conn, tid)
        return desk.load(conn, tid)


def end_round(desk: Desk, tid: str, body: Any, by: Ruling = None) -> dict[str, Any]:
    """End the round the request names (``{"round": n, "reason"}``) early; once it is
    over, the same request again (a retry, or many at once) changes nothing."""
    reason = checks.reason(body)
    wanted = checks.round_named(body)
    with desk.lock:
        conn = desk.db.connection()
        doc = desk.current(conn, tid)
        played = {r["round"]: r for r in doc["rounds_played"]}
        if wanted in played and played[wanted]["over"]:
            return desk.load(conn, tid)  # ended already: a retry
        if doc["phase"] != "playing" or not _round_on(doc) or wanted != doc["round"]:
            raise WrongPhaseError(
                f"the tournament is {doc['phase']} in round {doc['round']}; round "
                f"{wanted} is not being played",
                details={"path": "round", "round": doc["round"]},
            )
        _end_round(desk, conn, doc, reason, by)
        advance(desk, conn, tid)
        return desk.load(conn, tid)


# ---------------------------------------------------------------------- moving on


def advance(desk: Desk, conn: Connection, tid: str) -> None:
    """Move the event on as far as it can go now, one logged step at a time.

    Each step is judged against the row brought up to the log and logged at the row's
    head (:meth:`Desk.event`); when another request (another worker or host, say at the
    end of another table's hand) took a step first, the log refuses this one and the
    next turn judges again from the log: each step is logged once whoever races.
    """
    for _ in range(1000):  # a step per turn; an event has fewer than 1000
        doc = desk.current(conn, tid)
        try:
            if not _step(desk, conn, doc):
                return
        except Moved:
            continue
    raise StateConflict("the tournament kept moving on meanwhile; read it again")


def due(desk: Desk, conn: Connection, doc: dict[str, Any]) -> bool:
    """Whether the event's row is behind its chain, or its next step is due (the
    conditions of :func:`_step`, read without taking it)."""
    if doc["phase"] == "over":
        return False
    if doc.get("head") != list(desk.hand_log.log.next_link(doc["id"], CHAIN)):
        return True
    if doc["phase"] == "revealing":
        return all(p in doc["reveals"] for pair in doc["pair_list"] for p in pair)
    if doc["phase"] != "playing":
        return False
    if not doc["rounds_played"] or doc["rounds_played"][-1]["over"]:
        return True
    current = doc["rounds_played"][-1]
    hands = _round_hands(conn, current)
    if any(t["id"] not in hands and _plays(doc, t) for t in current["tables"]):
        return True
    return _round_done(doc, current, hands)


def _step(desk: Desk, conn: Connection, doc: dict[str, Any]) -> bool:
    """Take the event's next step if it is due; whether one was taken."""
    if doc["phase"] == "revealing":
        if doc.get("reveal_deadline") is not None:
            return _deal_by_rule(desk, conn, doc, asked=False)
        if not all(p in doc["reveals"] for pair in doc["pair_list"] for p in pair):
            return False
        _deal(desk, conn, doc)
        return True
    if doc["phase"] != "playing":
        return False
    if not doc["rounds_played"]:
        _start_round(desk, conn, doc)
        return True
    current = doc["rounds_played"][-1]
    if current["over"]:
        _void_abandoned(desk, conn, current.get("abandoned", []))
        if doc["round"] < doc["rounds"]:
            _start_round(desk, conn, doc)
        else:
            _finish(desk, conn, doc)
        return True
    hands = _round_hands(conn, current)
    if any(t["id"] not in hands and _plays(doc, t) for t in current["tables"]):
        _open_tables(desk, conn, doc, current)  # a round logged, its tables not all open
        hands = _round_hands(conn, current)
    if _round_done(doc, current, hands):
        faults.at("round_over")  # the tests' crash before the event moves on
        _end_round(desk, conn, doc, None)
        return True
    return False


def _round_on(doc: dict[str, Any]) -> bool:
    """Whether a round of a playing event is being played (begun, not over)."""
    return bool(doc["rounds_played"]) and not doc["rounds_played"][-1]["over"]


def _plays(doc: dict[str, Any], sitting: dict[str, Any]) -> bool:
    """Whether a table of a round has anything to play (not every board void)."""
    return doc["format"] != DUPLICATE or any(b not in doc["voided"] for b in sitting["boards"])


def _round_hands(conn: Connection, current: dict[str, Any]) -> dict[str, tuple[int, int]]:
    return event_rows.round_hands(conn, [t["id"] for t in current["tables"]])


def _round_done(
    doc: dict[str, Any], current: dict[str, Any], hands: dict[str, tuple[int, int]]
) -> bool:
    """Whether every table of the round has played all it owes: no hand still open, a
    round-robin match its hands (a void one is played again), and a table without a
    hand only when it has nothing to play (every board void)."""
    duplicate = doc["format"] == DUPLICATE
    for t in current["tables"]:
        if t["id"] not in hands:
            if _plays(doc, t):
                return False
            continue
        open_, over = hands[t["id"]]
        if open_ or (not duplicate and over < int(t["hands"])):
            return False
    return True


# ---------------------------------------------------------------------- the deal


def _deal_by_rule(
    desk: Desk, conn: Connection, doc: dict[str, Any], *, asked: bool, by: Ruling = None
) -> bool:
    """Version 2: deal once the drand round the start named is out, from the reveals
    received before the deadline (no later one was taken); whether it dealt. Nobody
    chooses the moment: before the round, nothing (``asked``: 409 NOT_READY)."""
    chain, _ = documents.drand_of(doc["drand"])
    assert chain is not None
    rnd = int(doc["drand"]["round"])
    due_at = chain.round_time(rnd)
    now = desk.config.clock()
    beacon = None
    if now >= due_at and desk.beacon_source is not None:
        beacon = desk.beacon_source.fetch(rnd)
    if beacon is None:
        if not asked:
            return False
        wait = max(1, int(due_at - now) + 1)
        raise NotReadyError(
            f"the deal waits for drand round {rnd}, the first after the reveal deadline "
            f"(published at {due_at}, Unix seconds)",
            retry_after=wait,
            details={"round": rnd, "published_at": due_at},
        )
    _deal(desk, conn, doc, beacon, by)
    return True


def _deal(
    desk: Desk,
    conn: Connection,
    doc: dict[str, Any],
    beacon: DrandRound | None = None,
    by: Ruling = None,
) -> None:
    revealed = sorted(p for p in doc["reveals"])
    withdrawn = [
        n
        for n, pair in enumerate(doc["pair_list"], 1)
        if any(p not in doc["reveals"] for p in pair)
    ]
    if len(withdrawn) == len(doc["pair_list"]):
        raise StateConflict("no pair has revealed its seeds: nothing can be dealt")
    body: dict[str, Any] = {"revealed": revealed, "withdrawn": withdrawn}
    if beacon is not None:
        body["beacon"] = beacon.to_json()
    desk.event(conn, doc, "tournament_deal", body, by)
    desk.keep(conn, doc)


# ---------------------------------------------------------------------- a round


def _out(doc: dict[str, Any], pair: int, rnd: int) -> bool:
    w = doc["withdrawn"].get(str(pair))
    return pair in doc["absent"] or (w is not None and w <= rnd)


def _start_round(desk: Desk, conn: Connection, doc: dict[str, Any]) -> None:
    rnd = doc["round"] + 1
    plan = online.movement(doc)[rnd - 1]
    tables: list[dict[str, Any]] = []
    for s in plan.sittings:
        ns, ew = online.pairs_of(doc, s.ns, s.ew)
        if _out(doc, ns, rnd) or _out(doc, ew, rnd):
            continue  # the table is not played: its boards are adjusted
        a, b = online.members(doc, ns, rnd)
        c, d = online.members(doc, ew, rnd)
        sitting: dict[str, Any] = {
            "table": s.table,
            "id": rows.new_id("t"),
            "ns": ns,
            "ew": ew,
            "seats": {"N": a, "E": c, "S": b, "W": d},
        }
        if doc["format"] == DUPLICATE:
            assert s.board_set is not None
            sitting["boards"] = list(boards_of_set(s.board_set, doc["boards_per_round"]))
        else:
            sitting["hands"] = doc["hands_per_match"]
        tables.append(sitting)
    desk.event(conn, doc, "tournament_round", {"round": rnd, "tables": tables, "bye": plan.bye})
    desk.keep(conn, doc)


def _open_tables(
    desk: Desk, conn: Connection, doc: dict[str, Any], current: dict[str, Any]
) -> bool:
    """Give every table of the round its row and its first hand, as the logged
    ``tournament_round`` seats it; what a crash left undone is done, what was done is
    kept (a first hand the log holds but no row does is rebuilt from its logged
    opening), and what another request does at the same time is taken once (the
    rows are inserted if absent, the first hand's opening is appended at seq 0 only
    once). The round's first boards are derived together and their openings go to the
    log in one append; when the log refuses that unit (a crash or another request
    appended some of them), table by table. Whether anything was written."""
    rnd = current["round"]
    private = doc["format"] == DUPLICATE
    wrote = False
    waiting: list[tuple[rows.Table, int]] = []  # no first hand yet; its board (0: rubber)
    for sitting in current["tables"]:
        try:
            table = rows.get_table(conn, sitting["id"])
        except checks.MISSING:
            table = rows.Table(
                id=sitting["id"],
                name=checks.table_name(doc["name"], rnd, sitting["table"]),
                ruleset=doc["ruleset"],
                seats={Seat.parse(k): v for k, v in sitting["seats"].items()},
                first_dealer=Seat.N,
                hand_count=1,
                created_at=desk.now(),
            )
            with conn.transaction():
                rows.insert_table(conn, table, if_absent=True)
                event_rows.insert_event_table(
                    conn, table.id, doc["id"], rnd, sitting["table"], private
                )
            wrote = True
        if event_rows.has_first_hand(conn, table.id):
            continue
        first = 0
        if doc["format"] == DUPLICATE:
            first = next((b for b in sitting["boards"] if b not in doc["voided"]), 0)
            if not first:
                continue  # every board of the table is void: nothing to play
        waiting.append((table, first))
    if not waiting:
        return wrote
    dealt: list[deals.BoardDeal] = []
    if doc["format"] == DUPLICATE:  # the round's first boards, derived together
        last = max(first for _, first in waiting)
        transcript = documents.transcript(doc, desk.service_seed(doc["id"]))
        dealt = deals.derive_boards(replace(transcript, boards=last))
    hands = [
        (
            table,
            desk.room.open_board(table, 1, doc, rnd, dealt[first - 1])
            if first
            else desk.room.open_hand(table, 1, ZERO_SCORE, Seat.N, 0),
        )
        for table, first in waiting
    ]
    try:  # every table's opening in one append (one commit, not one a table)
        desk.hand_log.append([event for _, hand in hands for event in hand.pending])
        faults.at("board_open")
        opened = [hand for _, hand in hands]
    except LogChainBroken:  # some are in the log already: table by table
        opened = [hand for table, hand in hands if _open_first(desk, conn, table, hand)]
    for hand in opened:
        hand.pending = []
        rows.insert_hand(conn, hand, if_absent=True)
    return wrote or bool(opened)


def _open_first(desk: Desk, conn: Connection, table: rows.Table, hand: rows.HandRow) -> bool:
    """Log a table's first hand unless the log holds it; ``False`` when another request
    wrote its row meanwhile. A logged opening that is not the one the service derives
    is a conflict for an operator."""
    logged = desk.hand_log.hand_events(table.id, 1)
    if not logged:
        try:
            desk.hand_log.append(hand.pending)
            faults.at("board_open")
        except LogChainBroken:  # another request appended it meanwhile
            logged = desk.hand_log.hand_events(table.id, 1)
    if logged:  # appended by a crashed or a concurrent request, its row not written
        opening, derived = logged[0]["event"], hand.pending[0]
        if len(logged) > 1 and event_rows.has_first_hand(conn, table.id):
            return False  # another request wrote it and its players are playing
        if len(logged) > 1 or (opening["type"], opening["body"]) != (
            derived["type"],
            derived["body"],
        ):
            raise StateConflict(
                f"table {table.id}'s logged first hand is not the one the service "
                "derives; an operator must repair it",
                details={"table": table.id},
            )
        hand.last_hash = event_hash(opening)
    return True


def _end_round(
    desk: Desk, conn: Connection, doc: dict[str, Any], reason: str | None, by: Ruling = None
) -> None:
    current = doc["rounds_played"][-1]
    abandoned = []
    for t in current["tables"]:
        for h in rows.list_hands(conn, t["id"]):
            if h.phase not in ("over", "void"):
                abandoned.append({"table": t["id"], "hand": h.number})
    body: dict[str, Any] = {
        "round": current["round"],
        "early": bool(abandoned),
        "abandoned": abandoned,
    }
    if reason is not None:
        body["reason"] = reason
    desk.event(conn, doc, "tournament_round_end", body, by)
    _void_abandoned(desk, conn, abandoned)
    desk.keep(conn, doc)  # the next round or the end: the caller's advance


def _void_abandoned(desk: Desk, conn: Connection, abandoned: list[dict[str, Any]]) -> None:
    """The hands a round's end abandoned, void (again: what a crash left undone)."""
    for a in abandoned:
        event_rows.void_hand(conn, a["table"], a["hand"], desk.now())
        desk.room.forget((a["table"], a["hand"]))


def _finish(desk: Desk, conn: Connection, doc: dict[str, Any]) -> None:
    """The event is over: log the entrants' reveals and the service's seed."""
    # One append for the reveals not yet logged (an earlier attempt may have logged some)
    owed = [
        doc["reveals"][pid]
        for pid in doc["revealed"]
        if desk.hand_log.log.next_link(doc["id"], entrant_chain(pid))[0] == 1
    ]
    try:
        if owed:
            desk.hand_log.append(owed)
    except LogChainBroken:  # logged meanwhile: one by one, skipping those
        for reveal in owed:
            with contextlib.suppress(LogChainBroken):
                desk.hand_log.append([reveal])
    table = standings(conn, doc)
    # The standings hold fractions rounded to floats: hashed as sorted, compact JSON.
    text = json.dumps(table, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(text.encode()).hexdigest()
    seed = desk.service_seed(doc["id"]).hex()
    desk.event(conn, doc, "tournament_end", {"service_seed": seed, "standings_sha256": digest})
    desk.keep(conn, doc)
    desk.publish(conn, doc["id"])


def standings(conn: Connection, doc: dict[str, Any]) -> dict[str, Any]:
    """The live standings (only finished hands and rounds count), by the spec."""
    return online.standings(doc, documents.finished(conn, doc))


# ---------------------------------------------------------------------- the room's hooks


def following(desk: Desk, table: rows.Table, hand: rows.HandRow) -> rows.HandRow | None:
    """The hand after ``hand`` at a tournament table, or ``None`` when it is done."""
    conn = desk.db.connection()
    place = event_rows.table_sitting(conn, table.id)
    assert place is not None
    doc = desk.load(conn, place[0])
    sitting = documents.sitting(doc, place[1], place[2])
    assert sitting is not None
    rnd = documents.sitting_round(doc, table.id)
    if doc["phase"] != "playing" or any(
        r["round"] == rnd and r["over"] for r in doc["rounds_played"]
    ):
        return None  # the round (or the event) is over: nothing more is dealt here
    if doc["format"] == DUPLICATE:
        played = hand.ceremony["board"]
        rest = [b for b in sitting["boards"] if b > played and b not in doc["voided"]]
        if not rest or doc["phase"] != "playing":
            return None
        deal = documents.board(doc, desk.service_seed(doc["id"]), rest[0])
        return desk.room.open_board(table, hand.number + 1, doc, rnd, deal)
    over = sum(1 for h in rows.list_hands(conn, table.id) if h.phase == "over")
    if over + 1 >= sitting["hands"] or doc["phase"] != "playing":  # this hand is the last
        return None
    assert hand.end_score is not None
    return desk.room.open_hand(
        table, hand.number + 1, hand.end_score, hand.dealer.left, 1 - hand.pack
    )


def hand_ended(desk: Desk, table_id: str) -> None:
    """A hand of a tournament table is over: move the event on when the round is."""
    conn = desk.db.connection()
    tid = event_rows.event_of_table(conn, table_id)
    if tid is None:
        return
    with desk.lock:
        advance(desk, conn, tid)
