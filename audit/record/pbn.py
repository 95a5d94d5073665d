"""PBN (Portable Bridge Notation 2.1) export and import of deals and play.

Export writes one PBN game per hand: the standard tags a bridge program needs to
read the deal and replay the play (``Dealer``, ``Deal``, ``Declarer``, ``Contract``,
``Play``, ``Result``) plus custom tags for what bridge has no word for:
``CayenneCard``, ``CayenneContract`` (``S``/``H``/``D``/``C``/``grand``/``nullo``),
``CayenneCalls`` (``"N:pass S:grand"``), ``CayennePattern`` (``4-4-5``),
``CayennePack``, ``CayenneGathered``. Import reads the deals and play of a PBN file
(bridge events publish their boards so) into a cayenne-record/1 document.
docs/pbn.md gives the mapping and what cannot be carried.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from audit.errors import FairplayError
from audit.rules.cards import CARD_BY_TEXT, CARD_TEXT, RANK_LETTERS, SUIT_OF, Card, Seat
from audit.rules.contract import Contract
from audit.rules.deal import pattern_name
from audit.rules.model import HandRecord, Record
from audit.rules.play import trick_winner
from audit.rules.replay import contract_of

__all__ = ["PbnError", "PbnGame", "deal_tag", "export_pbn", "import_pbn", "parse_games"]


class PbnError(FairplayError, ValueError):
    """A PBN file that cannot be read; the message names the game and the line."""

    code = "INVALID_PBN"


_TAG = re.compile(r'^\[(\w+)\s+"(.*)"\]\s*$')
_RANK_ORDER = "AKQJT98765432"


# -- export ------------------------------------------------------------------------


def _holding_text(cards: tuple[Card, ...]) -> str:
    suits: list[list[str]] = [[], [], [], []]
    for c in sorted(cards, key=lambda c: -(c % 13)):
        suits[SUIT_OF[c]].append(RANK_LETTERS[c % 13])
    return ".".join("".join(s) for s in suits)


def deal_tag(hand: HandRecord) -> str:
    """``"N:AKQ.JT9.876.5432 ..."``, starting with the dealer, clockwise."""
    seat = hand.dealer
    parts = []
    for _ in range(4):
        parts.append(_holding_text(hand.deal[seat]))
        seat = seat.left
    return f"{hand.dealer.name}:" + " ".join(parts)


def export_pbn(record: Record) -> str:
    """The record's hands as PBN games (only hands with a contract and whole tricks)."""
    out: list[str] = ["% PBN 2.1", "% EXPORT", "% Cayenne Fair-Play: cayenne-record/1 export"]
    players = record.players or {}
    for hand in record.hands:
        if hand.void is not None:
            continue  # PBN has no voided deal: the deal dealt again is the board
        contract = contract_of(hand)
        tag = out.append
        tag("")
        tag(f'[Event "{_esc(str(record.meta.get("event", "")))}"]')
        tag(f'[Site "{_esc(str(record.meta.get("site", "")))}"]')
        tag(f'[Date "{_esc(str(record.meta.get("date", "")))}"]')
        tag(f'[Board "{hand.number}"]')
        for name in ("West", "North", "East", "South"):
            tag(f'[{name} "{_esc(players.get(name[0], ""))}"]')
        tag(f'[Dealer "{hand.dealer.name}"]')
        tag('[Vulnerable "None"]')
        tag(f'[Deal "{deal_tag(hand)}"]')
        tag('[Scoring "Cayenne"]')
        # The first lead is the dealer's left, as in bridge it is the declarer's left:
        # the dealer stands as "declarer" so bridge programs find the right leader.
        tag(f'[Declarer "{hand.dealer.name}"]')
        if contract is None:
            tag('[Contract ""]')
        else:
            tag(f'[Contract "1{"NT" if contract >= 4 else "SHDC"[contract]}"]')
        tag(f'[CayenneCard "{"" if hand.cayenne is None else CARD_TEXT[hand.cayenne]}"]')
        tag(f'[CayenneContract "{"" if contract is None else contract.text}"]')
        tag(f'[CayenneCalls "{" ".join(f"{s.name}:{c}" for s, c in hand.calls)}"]')
        tag(f'[CayennePattern "{pattern_name(record.ruleset.deal_pattern)}"]')
        if hand.pack is not None:
            tag(f'[CayennePack "{hand.pack}"]')
        if hand.gathered is not None:
            g = hand.gathered
            tag(f'[CayenneGathered "NS:{",".join(map(str, g[0]))} EW:{",".join(map(str, g[1]))}"]')
        complete = (
            contract is not None
            and len(hand.tricks) == 13
            and all(len(t.cards) == 4 for t in hand.tricks)
        )
        if complete and contract is not None:
            declarer_side = hand.dealer.side
            won = 0
            first = hand.tricks[0].leader
            tag(f'[Play "{first.name}"]')
            for t in hand.tricks:
                row: list[str] = ["-"] * 4
                for i, c in enumerate(t.cards):
                    seat = Seat((t.leader + i) & 3)
                    text = CARD_TEXT[c]
                    row[(seat - first) & 3] = text[1] + text[0]
                out.append(" ".join(row))
                ace = 0
                for a in t.ace_high or ():
                    ace |= 1 << a
                if trick_winner(t.cards, t.leader, contract, ace).side == declarer_side:
                    won += 1
            tag(f'[Result "{won}"]')
    return "\n".join(out) + "\n"


def _esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


# -- import ------------------------------------------------------------------------


@dataclass
class PbnGame:
    tags: dict[str, str] = field(default_factory=dict)
    play: list[list[str]] = field(default_factory=list)
    line: int = 0


def parse_games(text: str) -> Iterator[PbnGame]:
    """Split PBN text into games: their tags and the rows of their Play section."""
    game: PbnGame | None = None
    section: str | None = None
    in_comment = False
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        had_text = bool(line)
        if in_comment:
            if "}" in line:
                in_comment = False
                line = line.split("}", 1)[1].strip()
            else:
                continue
        if line.startswith("%") or line.startswith(";"):
            continue
        if "{" in line:
            before, _, after = line.partition("{")
            if "}" in after:
                line = (before + after.split("}", 1)[1]).strip()
            else:
                line = before.strip()
                in_comment = True
        if not line and had_text:
            continue  # a line that held only a comment
        if not line:
            if game is not None and game.tags:
                yield game
                game = None
            section = None
            continue
        m = _TAG.match(line)
        if m:
            if game is None:
                game = PbnGame(line=lineno)
            game.tags[m.group(1)] = m.group(2)
            section = m.group(1)
            continue
        if game is not None and section == "Play":
            tokens = [t for t in line.split() if not t.startswith("=") and not t.startswith("$")]
            if tokens == ["*"]:
                section = None
                continue
            game.play.append(tokens)
    if game is not None and game.tags:
        yield game


def _card(token: str) -> Card | None:
    token = token.rstrip("!?")
    if len(token) == 2 and token[0] in "SHDC" and token[1] in _RANK_ORDER:
        return CARD_BY_TEXT[token[1] + token[0]]
    return None


def _parse_deal(tag: str, where: str) -> dict[Seat, list[Card]]:
    try:
        first, rest = tag.split(":", 1)
        seat = Seat.parse(first.strip())
    except (ValueError, FairplayError):
        raise PbnError(f"{where}: Deal tag {tag!r} does not start with a seat") from None
    hands: dict[Seat, list[Card]] = {}
    for holding in rest.split():
        suits = holding.split(".")
        if len(suits) != 4:
            raise PbnError(f"{where}: Deal holding {holding!r} has not four suits")
        cards = []
        for s, ranks in enumerate(suits):
            for r in ranks:
                if r not in RANK_LETTERS:
                    raise PbnError(f"{where}: {r!r} is not a rank in Deal holding {holding!r}")
                cards.append(s * 13 + RANK_LETTERS.index(r))
        hands[seat] = cards
        seat = seat.left
    if len(hands) != 4:
        raise PbnError(f"{where}: the Deal tag does not give all four hands")
    return hands


def _contract(tags: dict[str, str]) -> Contract | None:
    cay = tags.get("CayenneContract")
    if cay:
        return Contract.parse(cay)
    raw = tags.get("Contract", "").upper().rstrip("X")
    m = re.match(r"^[1-7](NT|[SHDC])$", raw)
    if not m:
        return None
    return Contract.GRAND if m.group(1) == "NT" else Contract.parse(m.group(1))


def import_pbn(text: str) -> tuple[dict[str, Any], list[str]]:
    """A cayenne-record/1 document of the PBN games played to the thirteenth trick.

    Returns the document and a list of notes on games left out (passed out, no play,
    ended by a claim). The hands are independent bridge boards: the record sets
    ``independent_deals`` so the auditor does not expect the deal to pass left.
    """
    hands: list[dict[str, Any]] = []
    skipped: list[str] = []
    first_tags: dict[str, str] = {}
    ours = False
    for game in parse_games(text):
        where = f"game at line {game.line} (board {game.tags.get('Board', '?')})"
        if not first_tags:
            first_tags = game.tags
        if "Deal" not in game.tags:
            skipped.append(f"{where}: no Deal tag")
            continue
        deal = _parse_deal(game.tags["Deal"], where)
        contract = _contract(game.tags)
        if contract is None:
            skipped.append(f"{where}: no contract (passed out)")
            continue
        if "Play" not in game.tags or not game.play:
            skipped.append(f"{where}: no play")
            continue
        try:
            leader = Seat.parse(game.tags["Play"])
        except FairplayError:
            raise PbnError(f"{where}: Play tag {game.tags['Play']!r} is not a seat") from None
        first = leader
        tricks: list[dict[str, Any]] = []
        complete = True
        for row in game.play:
            cards_by_col = [_card(t) for t in row[:4]]
            if len(row) < 4 or any(c is None for c in cards_by_col):
                complete = False
                break
            in_order = [cards_by_col[(leader - first + i) & 3] for i in range(4)]
            cards = [c for c in in_order if c is not None]
            tricks.append({"leader": leader.name, "cards": [CARD_TEXT[c] for c in cards]})
            leader = trick_winner(cards, leader, contract)
        if not complete or len(tricks) != 13:
            skipped.append(f"{where}: play ends after {len(tricks)} tricks (a claim)")
            continue
        maker = first.partner.left  # the declarer, on the opening leader's right
        cayenne = game.tags.get("CayenneCard")
        if cayenne is None:
            # Bridge has no cayenne card: turn the ace of trumps (the contract is then
            # "cayenne", unit 4), or the ace of spades at no trump.
            cayenne = "A" + ("S" if contract >= 4 else "SHDC"[contract])
        calls_tag = game.tags.get("CayenneCalls")
        if calls_tag:
            ours = True
            calls = [{"seat": c.split(":")[0], "call": c.split(":")[1]} for c in calls_tag.split()]
            dealer = game.tags.get("Dealer", maker.name)
        else:
            calls = [{"seat": maker.name, "call": contract.text}]
            dealer = maker.name
        hand: dict[str, Any] = {
            "dealer": dealer,
            "deal": {s.name: [CARD_TEXT[c] for c in deal[s]] for s in Seat},
            "cayenne": cayenne,
            "calls": calls,
            "tricks": tricks,
            "x-pbn": {
                k: game.tags[k]
                for k in ("Event", "Board", "Dealer", "Declarer", "Contract", "Result")
                if k in game.tags
            },
        }
        gathered = game.tags.get("CayenneGathered")
        if gathered:
            try:
                parts = dict(p.split(":", 1) for p in gathered.split())
                hand["gathered"] = {
                    k: [int(n) for n in parts.get(k, "").split(",") if n] for k in ("NS", "EW")
                }
            except ValueError:
                raise PbnError(
                    f"{where}: CayenneGathered {gathered!r} is not NS:n,n EW:n,n"
                ) from None
        if "CayennePack" in game.tags:
            hand["pack"] = int(game.tags["CayennePack"])
        hands.append(hand)
    doc: dict[str, Any] = {"format": "cayenne-record/1"}
    if first_tags.get("Event"):
        doc["event"] = first_tags["Event"]
    if first_tags.get("Site"):
        doc["site"] = first_tags["Site"]
    if not ours:
        doc["independent_deals"] = True
    doc["hands"] = hands
    return doc, skipped
