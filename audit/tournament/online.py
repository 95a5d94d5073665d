"""An online event's state folded from its log, and its standings (docs/tournaments.md).

The service keeps a tournament as a chain of the log (``table`` = the event id, hand
``event``). :func:`apply` is the one place an event's meaning is written: the service
applies each event it logs to the state document it caches, and :func:`fold` replays a
chain into that same document, so the service's standings and a verifier's (:mod:`audit.tournament.certificate`)
come from one function, :func:`standings`, over that state and the finished hands'
records. Pure: no database, no clock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from audit.record.codec import load_record
from audit.tournament.boardscore import score_board_hand
from audit.tournament.errors import TournamentError
from audit.tournament.event import DUPLICATE
from audit.tournament.matchpoints import Adjustment, BoardResult
from audit.tournament.movement import Round, boards_of_set, mitchell, round_robin
from audit.tournament.score import Played, duplicate_standings, score_event

__all__ = [
    "ACTIONS",
    "LEAVE",
    "OPENING",
    "PHASES",
    "SPEC_FIELDS",
    "apply",
    "fold",
    "chain_of",
    "initial",
    "members",
    "movement",
    "pairs_of",
    "records",
    "standings",
    "unplayed",
]

SPEC_FIELDS = (
    "name",
    "format",
    "movement",
    "tables",
    "pairs",
    "rounds",
    "boards_per_round",
    "hands_per_match",
    "ruleset",
    "schedule",
    "service_commitment",
    "pattern",
)
ACTIONS = ("substitute", "adjust", "withdraw", "void_board", "remove")
"""The director's actions, each a ``tournament_<action>`` with its reason; ``remove`` (an
entrant, before the start) is the only one taken before the pairs are fixed."""
PHASES = ("created", "registration", "closed", "revealing", "playing", "over")
"""An event's phases, in order (docs/tournaments.md)."""
OPENING = "tournament_create"
"""The type of an event chain's first event."""
LEAVE = "tournament_leave"
"""An entrant's own withdrawal before the start: signed by the entrant, its chain's
event 1 (after its registration), not an event of the event's own chain."""
BEFORE_START = ("created", "registration", "closed")


def initial(tid: str) -> dict[str, Any]:
    """The state of event ``tid`` before its chain's first event."""
    return {
        "id": tid,
        "beacon": None,
        "pair_list": [],
        "unpaired": [],
        "revealed": [],
        "absent": [],
        "withdrawn": {},
        "substitutions": [],
        "adjustments": [],
        "voided": [],
        "removed": [],
        "actions": [],
        "round": 0,
        "rounds_played": [],
        "service_seed": None,
        "standings_sha256": None,
        "phase": "created",
        "reveal_deadline": None,
        "drand": None,
    }


def apply(doc: dict[str, Any], kind: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """``doc`` after one event of its chain (type ``kind``, ``body``): the one place an
    event's meaning is written. The service validates an event, appends it to the log,
    then applies it to its row's document; :func:`fold` applies a whole chain. ``doc`` is
    changed in place and returned; an event that changes no state (an entrant's, say)
    leaves it as it is. The body is taken as valid: the service checked it before
    logging it, and a verifier's log admitted it by its schema."""
    if kind == OPENING:
        doc |= {k: body[k] for k in SPEC_FIELDS if k in body}
        if "clock" in body:  # the time control (api/clock.py), not in the certificate's event
            doc["clock"] = dict(body["clock"])
        doc["chat"] = body.get("chat") is True  # the tables' chat (api/chat.py)
    elif kind == "tournament_registration":
        doc["phase"] = "registration" if body["open"] else "closed"
    elif kind == "tournament_beacon":
        doc["beacon"] = dict(body)
    elif kind == "tournament_start":
        doc |= {"phase": "revealing", "pair_list": body["pairs"], "unpaired": body["unpaired"]}
        if "reveal_deadline" in body:  # cayenne-tournament-deals/2
            doc |= {"reveal_deadline": body["reveal_deadline"], "drand": dict(body["beacon"])}
    elif kind == "tournament_deal":
        doc |= {"phase": "playing", "revealed": body["revealed"], "absent": body["withdrawn"]}
        if "beacon" in body and doc["drand"] is not None:
            doc["drand"] = doc["drand"] | dict(body["beacon"])
    elif kind == "tournament_round":
        doc["round"] = body["round"]
        doc["rounds_played"].append(
            {"round": body["round"], "tables": body["tables"], "bye": body["bye"], "over": False}
        )
    elif kind == "tournament_round_end":
        for r in doc["rounds_played"]:
            if r["round"] == body["round"]:
                r |= {"over": True, "early": body["early"], "abandoned": body["abandoned"]}
    elif kind == LEAVE:  # the entrant's own, as the director's remove: in no pair
        if doc["phase"] not in BEFORE_START:
            raise TournamentError(
                f"{body['entrant']} withdrew in phase {doc['phase']}: an entrant withdraws "
                "before the start"
            )
        if body["entrant"] not in doc.get("removed", []):
            doc["removed"] = [*doc.get("removed", []), body["entrant"]]
    elif kind.removeprefix("tournament_") in ACTIONS:
        _act(doc, kind.removeprefix("tournament_"), dict(body))
    elif kind == "tournament_end":
        doc |= {
            "phase": "over",
            "service_seed": body["service_seed"],
            "standings_sha256": body["standings_sha256"],
        }
    return doc


def _act(doc: dict[str, Any], action: str, event: dict[str, Any]) -> None:
    """A director's action (its body ``event``, reason included; a director's signed
    request as his id, ``by``)."""
    if "by" in event:
        event["by"] = event["by"]["director"]
    if action == "substitute":
        doc["substitutions"].append(event)
    elif action == "withdraw":
        doc["withdrawn"][str(event["pair"])] = event["from_round"]
    elif action == "adjust":
        key = (event["round"], event["table"], event["board"])
        doc["adjustments"] = [
            a for a in doc["adjustments"] if (a["round"], a["table"], a["board"]) != key
        ] + [dict(event)]
    elif action == "void_board":
        doc["voided"].append(event["board"])
    else:
        doc["removed"] = [*doc.get("removed", []), event["entrant"]]  # a row kept before it
    doc["actions"].append({"action": action, **event})


def fold(tid: str, bodies: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """The state of event ``tid`` after its chain's events ``(type, body)`` in order:
    :func:`apply` over the chain, from :func:`initial`."""
    doc = initial(tid)
    for n, (kind, body) in enumerate(bodies):
        if n == 0 and kind != OPENING:
            raise TournamentError(f"the event's chain opens with {kind!r}, not {OPENING}")
        apply(doc, kind, body)
    return doc


def chain_of(tid: str, items: Sequence[Mapping[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """What event ``tid``'s state is folded from, ``(type, body)`` in log order: its own
    chain's events (hand ``event``) and its entrants' withdrawals (:data:`LEAVE`, each in
    its entrant's chain), from log items ``{index, event}`` in log order."""
    out = []
    for item in items:
        ev = item["event"]
        if ev["table"] != tid:
            continue
        if ev["hand"] == "event" or (
            ev["type"] == LEAVE and str(ev["hand"]).startswith("entrant-")
        ):
            out.append((ev["type"], ev["body"]))
    return out


def members(doc: Mapping[str, Any], pair: int, rnd: int) -> list[str]:
    """The pair's two players in round ``rnd`` (substitutions from their round on)."""
    out = list(doc["pair_list"][pair - 1])
    for s in doc["substitutions"]:
        if s["pair"] == pair and s["from_round"] <= rnd and s["out"] in out:
            out[out.index(s["out"])] = s["in"]
    return out


def movement(doc: Mapping[str, Any]) -> tuple[Round, ...]:
    if doc["format"] == DUPLICATE:
        return mitchell(doc["tables"], doc["rounds"])
    return round_robin(doc["pairs"])[: doc["rounds"]]


def pairs_of(doc: Mapping[str, Any], ns: int, ew: int) -> tuple[int, int]:
    """Movement positions to pair numbers (Mitchell: NS t is pair t, EW t pair T+t)."""
    if doc["format"] == DUPLICATE:
        return ns, doc["tables"] + ew
    return ns, ew


def unplayed(doc: Mapping[str, Any], pair: int, rnd: int) -> Adjustment:
    """A board a pair could not play: average, average minus for a withdrawn pair."""
    w = doc["withdrawn"].get(str(pair))
    return Adjustment.AVERAGE_MINUS if w is not None and w <= rnd else Adjustment.AVERAGE


def records(
    doc: Mapping[str, Any], finished: Mapping[str, Sequence[dict[str, Any]]]
) -> list[dict[str, Any]]:
    """One cayenne-record/1 per played round and table, from ``finished`` (a table id to
    its finished hands' one-hand records, in hand order)."""
    out = []
    for r in doc["rounds_played"]:
        for t in r["tables"]:
            hands = [rec["hands"][0] for rec in finished.get(t["id"], ())]
            if not hands:
                continue
            out.append(
                {
                    "format": "cayenne-record/1",
                    "event": doc["id"],
                    "round": r["round"],
                    "table": str(t["table"]),
                    "players": t["seats"],
                    "ruleset": doc["ruleset"],
                    "hands": hands,
                }
            )
    return out


def standings(
    doc: Mapping[str, Any], finished: Mapping[str, Sequence[dict[str, Any]]]
) -> dict[str, Any]:
    """The standings (only finished hands and rounds count), by the spec."""
    if doc["format"] != DUPLICATE:
        recs = records(doc, finished)
        if not recs:
            return {
                "format": "cayenne-standings/1",
                "event": doc["id"],
                "kind": doc["format"],
                "standings": [],
                "boards": [],
                "matches": [],
            }
        out = score_event([(f"round-{d['round']}-table-{d['table']}", d) for d in recs])
        out.pop("findings", None)
        out.pop("verdict", None)
        return out
    label: dict[int, tuple[str, str]] = {}
    for n in range(1, len(doc["pair_list"]) + 1):
        first, second = members(doc, n, doc["round"] or 1)
        label[n] = (first, second)
    adjusted = {(a["round"], a["table"], a["board"]): a for a in doc["adjustments"]}
    plays: list[Played] = []
    avg = Adjustment.AVERAGE
    for r in doc["rounds_played"]:
        seated = {t["table"]: t for t in r["tables"]}
        for s in movement(doc)[r["round"] - 1].sittings:
            assert s.board_set is not None
            ns, ew = pairs_of(doc, s.ns, s.ew)
            t = seated.get(s.table)
            results: dict[int, BoardResult] = {}
            for rec_doc in finished.get(t["id"], ()) if t is not None else ():
                rec = load_record(rec_doc)
                score = score_board_hand(rec.hands[0], rec.ruleset)
                results[int(rec_doc["hands"][0]["board"])] = (
                    BoardResult(None, (avg, avg)) if score is None else BoardResult(score.result)
                )
            for b in boards_of_set(s.board_set, doc["boards_per_round"]):
                if b in doc["voided"]:
                    continue
                a = adjusted.get((r["round"], s.table, b))
                if a is not None:
                    res = BoardResult(None, (Adjustment(a["ns"]), Adjustment(a["ew"])))
                elif b in results:
                    res = results[b]
                elif not r["over"]:
                    continue  # still to be played
                else:
                    res = BoardResult(
                        None, (unplayed(doc, ns, r["round"]), unplayed(doc, ew, r["round"]))
                    )
                plays.append(Played(r["round"], str(s.table), label[ns], label[ew], b, res))
    absent = frozenset(label[n] for n in doc["absent"])
    table, boards = duplicate_standings(plays, absent)
    for s in table:
        s["pair_number"] = next(n for n, v in label.items() if list(v) == s["pair"])
    return {
        "format": "cayenne-standings/1",
        "event": doc["id"],
        "kind": DUPLICATE,
        "standings": table,
        "boards": boards,
    }
