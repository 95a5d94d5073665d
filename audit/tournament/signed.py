"""Hands derived from what the players signed, not from what the server says of them.

A hand's chain in the log opens with the server's ``open`` (a hand with a ceremony) or
``board_open`` (a duplicate board), and the players' own signed events follow: the
commitments and seeds, every ``call`` and every ``play`` (with its ``ace_high``, an ace
declared high in a nullo). Each player's event names the hash of the event before it
(``prev``), so everything up to the last card is fixed by the players' signatures: the
operator, who holds the log key, can re-sign the server's ``end`` and anything after the
last card, but not one call, card or seat before it (docs/operations.md, "Threat model"). The one
call or card the server signs is the house's for a seat whose ``clock_expired`` it logged
earlier in the chain (:mod:`audit.rules.house`); one without it is refused.

:func:`derive_record` rebuilds the cayenne-record/1 of a finished hand from its chain
alone, as the service wrote it (``api.room.Room.record_of``): the seats from the opening,
the deal from the ceremony's seeds (or, for a board, from the event's transcript), then
every call and play through the rules engine, so an illegal one, or a card a player did
not hold, is refused; a claim of the tricks left ends the hand only when both adversaries'
own signed ``claim_answer`` accept it (docs/record-format.md, "A claim of the remaining
tricks"). :func:`event_hands` does it for every hand of an event and checks
that every chain of a certificate bundle belongs to the event, once; :func:`check_records`
compares the bundle's records with the derived ones, field by field.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from typing import Any

from audit.errors import FairplayError
from audit.rules.cards import CARD_TEXT, Seat, parse_card
from audit.rules.deal import check_pattern
from audit.rules.house import SERVER, HouseActionRefused, acting_seat, house_record, house_tally
from audit.rules.play import HandState
from audit.tournament import online
from audit.tournament.directors import GRANTS_HAND, GRANTS_TABLE
from audit.tournament.errors import TournamentError
from audit.tournament.event import DUPLICATE
from shuffle import tournament as deals
from shuffle.errors import ShuffleError
from shuffle.protocol import SeatEntry, Transcript
from shuffle.verify import verify as verify_transcript

__all__ = [
    "EVENT_CHAIN",
    "ZERO_SCORE",
    "ChainOutsideEvent",
    "HandNotDerivable",
    "RecordMismatch",
    "check_chains",
    "check_entrants",
    "check_records",
    "derive_hand",
    "derive_record",
    "difference",
    "event_hands",
    "next_start",
]

EVENT_CHAIN = "event"
ZERO_SCORE: dict[str, Any] = {"points": {"NS": 0, "EW": 0}, "games": {"NS": 0, "EW": 0}}
"""A rubber's score before its first hand (and every duplicate board's)."""


class HandNotDerivable(TournamentError):
    """A hand's chain that does not make a hand: a call or card the rules refuse, an
    actor not seated, a seed that does not open its commitment, an opening missing."""

    code = "HAND_NOT_DERIVABLE"


class RecordMismatch(TournamentError):
    """A record that is not what the players' signed events give (the first field)."""

    code = "RECORD_MISMATCH"


class ChainOutsideEvent(TournamentError):
    """A chain or record of a bundle that is not one of the event's, or one given twice."""

    code = "CHAIN_OUTSIDE_EVENT"


def next_start(report: Mapping[str, Any]) -> dict[str, Any]:
    """The rubber's state after a hand, from the hand's audit report (the next hand's
    ``start``): zero after a rubber is won, else the points, games and sheet so far."""
    rubbers = report.get("rubbers") or []
    if rubbers and rubbers[-1].get("winner") is not None:
        return copy.deepcopy(ZERO_SCORE)
    hands = report.get("hands") or []
    points = hands[-1]["score"]["points"] if hands else {"NS": 0, "EW": 0}
    games = rubbers[-1].get("games", {"NS": 0, "EW": 0}) if rubbers else {"NS": 0, "EW": 0}
    start: dict[str, Any] = {"points": dict(points), "games": dict(games)}
    if rubbers and (rubbers[-1]["sheet"]["NS"] or rubbers[-1]["sheet"]["EW"]):
        start["sheet"] = {side: list(rubbers[-1]["sheet"][side]) for side in ("NS", "EW")}
    return start


def _where(ev: Mapping[str, Any]) -> str:
    return f"table {ev.get('table')} hand {ev.get('hand')} event {ev.get('seq')}"


def _seats(opening: Mapping[str, Any]) -> dict[Seat, str]:
    seats = opening["body"]["seats"]
    out = {s: seats[s.name] for s in Seat}
    if len(set(out.values())) != 4 or not all(isinstance(p, str) for p in out.values()):
        raise HandNotDerivable(f"{_where(opening)}: the seats are not four players")
    return out


def _transcript(chain: Sequence[Mapping[str, Any]], seats: Mapping[Seat, str]) -> Transcript:
    """The ceremony's transcript from the opening, the seats' commitments and seeds and
    the server's reveal (not checked yet: :func:`derive_hand` verifies it)."""
    opening = chain[0]
    body = opening["body"]
    commitments: dict[Seat, bytes] = {}
    seeds: dict[Seat, bytes] = {}
    server_seed: bytes | None = None
    by_player = {p: s for s, p in seats.items()}
    for ev in chain[1:]:
        seat = by_player.get(ev["actor"])
        if ev["type"] == "commit" and seat is not None:
            commitments[seat] = bytes.fromhex(ev["body"]["commitment"])
        elif ev["type"] == "reveal" and seat is not None:
            seeds[seat] = bytes.fromhex(ev["body"]["seed"])
        elif ev["type"] == "server_reveal" and ev["actor"] == "server":
            server_seed = bytes.fromhex(ev["body"]["seed"])
    missing = [s.name for s in Seat if s not in commitments or s not in seeds]
    if missing:
        raise HandNotDerivable(f"{_where(opening)}: no commitment or seed of {missing}")
    entries = tuple(SeatEntry(seats[s], commitments[s], seeds[s]) for s in Seat)
    return Transcript(
        table=str(opening["table"]),
        hand=int(opening["hand"]),
        dealer=Seat.parse(body["dealer"]),
        server_commitment=bytes.fromhex(body["server_commitment"]),
        seats=(entries[0], entries[1], entries[2], entries[3]),
        pattern=check_pattern((body.get("ruleset") or {}).get("deal_pattern", (4, 4, 5))),
        pack=int(body["pack"]),
        server_seed=server_seed,
    )


def derive_hand(
    chain: Sequence[Mapping[str, Any]], board: deals.BoardDeal | None = None
) -> tuple[dict[str, Any], HandState]:
    """The record hand of a finished hand's ``chain`` (its events in ``seq`` order) and
    the rules state after its last card; ``board`` is the event's deal of a duplicate
    board (the chain of a board opens with ``board_open``). Raises
    :class:`HandNotDerivable` naming the event at fault."""
    if not chain or chain[0]["type"] not in ("open", "board_open"):
        raise HandNotDerivable(f"{_where(chain[0]) if chain else 'a hand'}: no opening")
    opening = chain[0]
    try:
        seats = _seats(opening)
        body = opening["body"]
        dealer, pack = Seat.parse(body["dealer"]), int(body["pack"])
        pattern = check_pattern((body.get("ruleset") or {}).get("deal_pattern", (4, 4, 5)))
        transcript: Transcript | None = None
        if opening["type"] == "board_open":
            if board is None or board.board != body["board"]:
                raise HandNotDerivable(f"{_where(opening)}: board {body['board']} is not dealt")
            if (board.dealer, board.pack) != (dealer, pack):
                raise HandNotDerivable(
                    f"{_where(opening)}: the opening's dealer and pack are not board "
                    f"{board.board}'s ({board.dealer.name}, {board.pack})"
                )
            deal, cayenne, order = board.deal, board.cayenne, board.pack_order
        else:
            transcript = _transcript(chain, seats)
            try:
                result = verify_transcript(transcript)
            except ShuffleError as exc:
                raise HandNotDerivable(f"{_where(opening)}: the ceremony: {exc}") from exc
            deal, cayenne, order = result.deal, result.cayenne, result.pack_order
        state = HandState(deal, dealer, cayenne, pattern)
        by_player = {p: s for s, p in seats.items()}
        expired: set[str] = set()  # seats whose clock ran out: the house plays them
        house: dict[str, list[int]] = {}
        for ev in chain[1:]:
            if ev["type"] == "clock_expired" and ev["actor"] == SERVER:
                expired.add(str(ev["body"]["seat"]))
            if ev["type"] not in ("call", "play", "claim", "claim_answer"):
                continue
            try:
                seat = acting_seat(ev, by_player, expired)
            except HouseActionRefused as exc:
                raise HandNotDerivable(f"{_where(ev)}: {exc.message}") from exc
            if ev["actor"] == SERVER and ev["type"] in ("call", "play"):
                house_tally(house, seat, ev["type"])
            try:
                if ev["type"] == "call":
                    state.call(seat, ev["body"]["call"])
                elif ev["type"] == "claim":
                    tricks = ev["body"]["tricks"]
                    if isinstance(tricks, bool) or not isinstance(tricks, int):
                        raise HandNotDerivable(f"{_where(ev)}: tricks is not a whole number")
                    state.claim_tricks(seat, tricks)
                elif ev["type"] == "claim_answer":
                    accept = ev["body"]["accept"]
                    if not isinstance(accept, bool):
                        raise HandNotDerivable(f"{_where(ev)}: accept is not true or false")
                    state.answer_claim(seat, accept)
                else:
                    ace_high = ev["body"].get("ace_high", False)
                    if not isinstance(ace_high, bool):
                        raise HandNotDerivable(f"{_where(ev)}: ace_high is not true or false")
                    state.play(seat, parse_card(ev["body"]["card"]), ace_high)
            except FairplayError as exc:
                if isinstance(exc, HandNotDerivable):
                    raise
                raise HandNotDerivable(f"{_where(ev)}: {exc.message}") from exc
        if not state.is_over:
            raise HandNotDerivable(
                f"{_where(chain[-1])}: the hand's play is not finished"
                + (" (a claim no adversary accepted is not an end)" if state.pending_claim else "")
            )
    except HandNotDerivable:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        if isinstance(exc, FairplayError):
            raise HandNotDerivable(f"{_where(opening)}: {exc}") from exc
        raise HandNotDerivable(f"{_where(opening)}: not a hand's chain ({exc!r})") from exc
    hand = state.to_record_hand()
    hand["pack"] = pack
    hand["dealt_order"] = [CARD_TEXT[c] for c in order]
    if house:
        hand["x-house"] = house_record(house)
    if transcript is None:
        hand["board"] = body["board"]
    else:
        hand["shuffle"] = transcript.with_outcome().to_json()
    return hand, state


def derive_record(
    chain: Sequence[Mapping[str, Any]],
    *,
    name: str,
    start: Mapping[str, Any],
    board: deals.BoardDeal | None = None,
) -> dict[str, Any]:
    """The cayenne-record/1 of a finished hand as the service writes it: ``name`` is the
    table's name, ``start`` the rubber's score before the hand."""
    hand, _ = derive_hand(chain, board)
    opening = chain[0]
    return {
        "format": "cayenne-record/1",
        "table": str(opening["table"]),
        "event": name,
        "players": {s.name: p for s, p in _seats(opening).items()},
        "ruleset": opening["body"]["ruleset"],
        "start": copy.deepcopy(dict(start)),
        "hands": [hand],
        "x-hand-number": int(opening["hand"]),
    }


# ------------------------------------------------------------------------ an event


def _chain_error(table: str, hand: str, problem: str) -> ChainOutsideEvent:
    return ChainOutsideEvent(
        f"table {table} hand {hand}: {problem}", details={"table": table, "hand": hand}
    )


def check_chains(
    tournament: str,
    doc: Mapping[str, Any],
    chains: Mapping[tuple[str, str], Sequence[Mapping[str, Any]]],
) -> list[tuple[str, int, Mapping[str, Any], list[int]]]:
    """Raise :class:`ChainOutsideEvent` unless every chain is the event's own, an
    entrant's of the event, or a hand of a table of one of its rounds (each table in one
    round, once; its hands numbered 1, 2, ...), each hand's opening seated as the round
    seats the table and, for a board, naming this event, this round and a board of the
    table, each board once. Each table: its id, round, sitting and hand numbers."""
    _check_pairs(tournament, doc, chains)
    sittings: dict[str, tuple[int, Mapping[str, Any]]] = {}
    for r in doc["rounds_played"]:
        for sit in r["tables"]:
            if sit["id"] in sittings or sit["id"] == tournament:
                raise _chain_error(sit["id"], "*", "a table listed twice in the event's rounds")
            sittings[sit["id"]] = (r["round"], sit)
    numbers: dict[str, list[int]] = {}
    for table, hand in chains:
        if table == tournament and (hand == EVENT_CHAIN or hand.startswith("entrant-")):
            continue
        if (table, hand) == (GRANTS_TABLE, GRANTS_HAND):  # the directors' grants
            continue
        if table not in sittings:
            raise _chain_error(table, hand, f"not a chain of event {tournament}")
        if not (hand.isascii() and hand.isdigit()) or hand != str(int(hand)) or int(hand) < 1:
            raise _chain_error(table, hand, "not a hand number")
        numbers.setdefault(table, []).append(int(hand))
    plan = []
    for table, (rnd, sit) in sittings.items():
        played: set[Any] = set()
        hands = sorted(numbers.get(table, []))
        if hands != list(range(1, len(hands) + 1)):
            raise _chain_error(table, str(hands), "the table's hands are not numbered 1, 2, ...")
        for n in hands:
            opening = chains[(table, str(n))][0]
            body = opening["body"] if isinstance(opening.get("body"), dict) else {}
            if body.get("seats") != sit["seats"]:
                raise _chain_error(
                    table,
                    str(n),
                    f"the opening seats {_show(body.get('seats'))}, the round seats "
                    f"{_show(sit['seats'])}",
                )
            if doc["format"] == DUPLICATE:
                b: Any = body.get("board")
                named = (body.get("tournament"), body.get("round"))
                if opening["type"] != "board_open" or named != (tournament, rnd):
                    raise _chain_error(table, str(n), f"not a board of round {rnd} of {tournament}")
                if b not in sit.get("boards", ()) or b in played:
                    raise _chain_error(table, str(n), f"board {b} is not one the table plays once")
                played.add(b)
            elif opening["type"] != "open":
                raise _chain_error(table, str(n), "a rubber's hand opens with 'open'")
        plan.append((table, rnd, sit, hands))
    _check_movement(doc)
    return plan


def _check_pairs(
    tournament: str,
    doc: Mapping[str, Any],
    chains: Mapping[tuple[str, str], Sequence[Mapping[str, Any]]],
) -> None:
    """Each pair of the start is two entrants whose own signed registrations name each
    other as partner, neither removed by the director before the start: the operator
    cannot pair players who did not enter together, nor seat one it removed."""
    removed = set(doc.get("removed", []))
    for n, pair in enumerate(doc["pair_list"], 1):
        for me, mate in ((pair[0], pair[1]), (pair[1], pair[0])):
            chain = chains.get((tournament, f"entrant-{me}"), ())
            reg: Mapping[str, Any] = chain[0] if chain else {}
            raw = reg.get("body")
            body: Mapping[str, Any] = raw if isinstance(raw, dict) else {}
            if reg.get("type") != "tournament_register" or reg.get("actor") != me:
                raise ChainOutsideEvent(
                    f"pair {n}: {me} has no signed registration", details={"pair": n}
                )
            if body.get("partner") != mate:
                raise ChainOutsideEvent(
                    f"pair {n}: {me}'s signed registration names {body.get('partner')} as "
                    f"partner, not {mate}",
                    details={"pair": n},
                )
            if me in removed:
                raise ChainOutsideEvent(
                    f"pair {n}: {me} was removed by the director before the start",
                    details={"pair": n},
                )


def check_entrants(
    tournament: str, chains: Mapping[tuple[str, str], Sequence[Mapping[str, Any]]]
) -> None:
    """Every event of an entrant's chain (hand ``entrant-<player>``) is that entrant's own:
    its registration first, then its reveal or its withdrawal (``tournament_leave``,
    naming the entrant), nothing after a withdrawal. The log key cannot sign an
    entrant's withdrawal, nor can another player."""
    for (table, hand), chain in chains.items():
        if table != tournament or not hand.startswith("entrant-"):
            continue
        me = hand.removeprefix("entrant-")
        for n, ev in enumerate(chain):
            kind, actor = ev.get("type"), ev.get("actor")
            want = ("tournament_register",) if n == 0 else ("tournament_reveal", online.LEAVE)
            if kind not in want:
                raise _chain_error(table, hand, f"event {n} is {kind!r}, not one of {list(want)}")
            if actor != me:
                raise _chain_error(
                    table, hand, f"its {kind} is signed by {actor}, not by the entrant {me}"
                )
            if n and chain[n - 1].get("type") == online.LEAVE:
                raise _chain_error(table, hand, f"a {kind} after the entrant withdrew")
            body = ev.get("body")
            if kind == online.LEAVE and (not isinstance(body, dict) or body.get("entrant") != me):
                raise _chain_error(table, hand, "a withdrawal that names another entrant")


def _check_movement(doc: Mapping[str, Any]) -> None:
    """Each table of a round seats the pairs the movement puts there, their members as
    the start and the substitutions say (N, S the first pair's; E, W the second's): the
    seats are fixed by the openings, so pairs renumbered or re-membered are refused."""
    plan = online.movement(doc)
    for r in doc["rounds_played"]:
        at = {s.table: s for s in plan[r["round"] - 1].sittings}
        for sit in r["tables"]:
            s = at.get(sit["table"])
            if s is None:
                raise _chain_error(
                    sit["id"], "*", f"round {r['round']} has no table {sit['table']}"
                )
            ns, ew = online.pairs_of(doc, s.ns, s.ew)
            a, b = online.members(doc, ns, r["round"])
            c, d = online.members(doc, ew, r["round"])
            want = {"N": a, "E": c, "S": b, "W": d}
            if (sit.get("ns"), sit.get("ew"), sit["seats"]) != (ns, ew, want):
                raise _chain_error(
                    sit["id"],
                    "*",
                    f"round {r['round']} table {sit['table']} seats {_show(sit['seats'])} as "
                    f"pairs {sit.get('ns')} and {sit.get('ew')}; the movement seats pairs {ns} "
                    f"and {ew}: {_show(want)}",
                )


def event_hands(
    tournament: str,
    doc: Mapping[str, Any],
    chains: Mapping[tuple[str, str], Sequence[Mapping[str, Any]]],
    boards: Mapping[int, deals.BoardDeal],
    audit: Any,
) -> dict[tuple[str, int], dict[str, Any]]:
    """Every finished hand's record derived from the event's chains (``(table, hand)`` to
    the events in order), by table id and hand number, once :func:`check_chains` holds.
    ``audit`` gives a record's audit report (a rubber's next hand starts from it)."""
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for table, rnd, sit, hands in check_chains(tournament, doc, chains):
        start: dict[str, Any] = copy.deepcopy(ZERO_SCORE)
        name = f"{doc['name']} round {rnd} table {sit['table']}"
        for n in hands:
            chain = chains[(table, str(n))]
            board = boards.get(chain[0]["body"]["board"]) if doc["format"] == DUPLICATE else None
            if chain[-1]["type"] != "end":
                continue  # void (the next hand starts from the same score) or unfinished
            record = derive_record(chain, name=name, start=start, board=board)
            out[(table, n)] = record
            if board is None:
                start = next_start(audit(record))
    return out


def _show(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


def difference(given: Any, derived: Any, path: str) -> tuple[str, Any, Any] | None:
    """The first place (a JSON path) where ``given`` and ``derived`` differ, and both
    values there; ``None`` when they are equal, types included."""
    if isinstance(given, dict) and isinstance(derived, dict):
        for k in sorted(set(given) | set(derived), key=str):
            if k not in given or k not in derived:
                return f"{path}.{k}", given.get(k), derived.get(k)
            diff = difference(given[k], derived[k], f"{path}.{k}")
            if diff is not None:
                return diff
        return None
    if isinstance(given, list) and isinstance(derived, list):
        for i, (a, b) in enumerate(zip(given, derived, strict=False)):
            diff = difference(a, b, f"{path}[{i}]")
            if diff is not None:
                return diff
        if len(given) != len(derived):
            return f"{path}.length", len(given), len(derived)
        return None
    if given != derived or type(given) is not type(derived):
        return path, given, derived
    return None


def check_records(
    records: Sequence[tuple[str, int, Any]], derived: Mapping[tuple[str, int], dict[str, Any]]
) -> None:
    """Each ``(table, hand, record)`` of a bundle (``bundle.records[n]``) must be the
    record derived for that hand, field by field, each hand's once, and every finished
    hand's must be there; raise at the first that is not."""
    seen: set[tuple[str, int]] = set()
    for n, (table, hand, record) in enumerate(records):
        where = f"bundle.records[{n}]"
        key = (table, hand)
        if key in seen:
            raise ChainOutsideEvent(
                f"{where}: a second record of table {table} hand {hand}",
                details={"path": where, "table": table, "hand": hand},
            )
        seen.add(key)
        if key not in derived:
            raise ChainOutsideEvent(
                f"{where}: table {table} hand {hand} is not a finished hand of the event",
                details={"path": where, "table": table, "hand": hand},
            )
        diff = difference(record, derived[key], f"{where}.record")
        if diff is not None:
            path, got, want = diff
            raise RecordMismatch(
                f"table {table} hand {hand}, field {path}: the record says {_show(got)}, the "
                f"players' signed events give {_show(want)}",
                details={"path": path, "table": table, "hand": hand, "record": got, "signed": want},
            )
    missing = sorted(set(derived) - seen)
    if missing:
        table, hand = missing[0]
        raise RecordMismatch(
            f"bundle.records: no record of table {table} hand {hand}, which the log shows ended",
            details={"path": "bundle.records", "table": table, "hand": hand},
        )
